#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/incast.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: incast
short_description: Layer 3 under load - an induced incast proves that ECN marks, DCQCN reacts, PFC only blips and nothing drops
version_added: 0.3.0
description:
  - Runs the catalog check C(incast_ecn) (scope C(incast)), one phase per task so that Ansible's linear strategy
    orders them across hosts (docs/incast.md; the role C(gpufabric.pyramid.incast)).
  - V(plan) (once) - one target per leaf of the switches' C(pyramid_switch_ports) (a target on every rail at once
    covers every rail leaf of its scalable unit), C(pyramid_incast_senders) senders each from other leaves first,
    in rounds that do not grow with the pod; refuses a load that cannot congest the port (senders x
    C(pyramid_incast_rate_gbps) at or below C(pyramid_rail_rate_gbps)). Nothing runs unless C(pyramid_incast).
  - V(serve) (every node) - a target's servers, one per sender and rail, each on its own port, through
    M(gpufabric.pyramid.rail_servers). V(fire) (every node) - a sender's rate-limited clients, in the background
    (rail_servers C(wait_for=running)), so that every sender fires at once.
  - V(read) (every node, or every target leaf with O(device=switch)) - the NICs' C(rdma_cc_counters) and
    C(nic_stats), the leaf's C(sw_ecn), C(sw_pfc), C(sw_discards), at O(label) V(before), V(tail) (leaves only,
    near the end of the window, C(sw_pfc) alone) or V(after). The leaves read as hosts of the play
    (C(gpu_nodes:switches)), side by side in Ansible's forks. A tail read that ended after the first sender's
    window could have ended cannot bound PFC over the last part of the window; the target's verdict is then
    ERROR, naming the leaf.
  - V(wait) (once, on the controller) - sleeps until O(until=tail), the last C(pyramid_incast_tail_percent) of the
    window, or O(until=end), every sender's window over, counted from when the round's senders were started.
  - V(stop) (every node) - collects the clients' and the servers' output and kills any still running.
  - V(again) (once, on the controller, after the planned rounds) - the senders an incast failed before any CNP reached
    them (its target's leaf or its target failed) are planned into rounds of their own against a target whose incast
    passed on leaves that passed, appended to the plan (returns their O(round) numbers as C(rounds), every round's
    target leaves as C(leaves)); the role runs them as the planned rounds.
  - V(verdict) (once) - one result per target from judging/incast.py, with the seed's cause; a sender FAILs
    where its DCQCN did not react, PASSes where it handled CNPs (in its own round or in one run again), else is not
    measured (SKIP, its C(held_by) naming the devices in its way); a node in no incast is not applicable.
  - On InfiniBand (C(pyramid_rdma_link_layer=infiniband)) the same phases run the catalog check C(incast_ib). The
    leaves are the subnet's, found from the Layer 3 reads (each rail's port GUID in the node's ibstat, the leaf port it
    lands on in iblinkinfo), the rate-limited clients address the target without a GID index, the NICs have no DCQCN
    counters to read, and the fabric host reads every port's counters (ibqueryerrors) before the senders fire, after
    they end and once more (V(settled)). The target's leaf port must wait for credits under the load, discard at most
    C(pyramid_incast_discards_max) and stop waiting with the load (judging/incast_infiniband.py).
  - Raw reads go into C(run_dir/incast/round-K/).
options:
  phase:
    description: Which phase this task runs.
    type: str
    choices: [plan, serve, read, fire, wait, stop, again, verdict]
    required: true
  round:
    description: The round (0-based) of V(serve), V(read), V(fire) and V(stop).
    type: int
  hosts:
    description: The GPU nodes (V(plan) and V(verdict)), usually C(ansible_play_hosts_all).
    type: list
    elements: str
  switches:
    description: The switches whose C(pyramid_switch_ports) say which leaf port faces which node's rail (V(plan)).
    type: list
    elements: str
  label:
    description: Which read (V(read)).
    type: str
    choices: [before, tail, after, settled]
  until:
    description: What V(wait) waits for - V(tail), the read near the end of the window; V(end), every sender done.
    type: str
    choices: [tail, end]
  device:
    description:
      - V(switch) - read a leaf's counters (the task runs on the leaf, a host of the play).
      - V(fabric) - on InfiniBand, read every port's counters of the subnet (C(ib_port_counters), ibqueryerrors) on the
        fabric host the plan named (C(fabric_readers)), at O(label) V(before), V(after) or V(settled).
    type: str
    choices: [gpu_node, switch, fabric]
    default: gpu_node
notes:
  - The command settings (duration, rate, limiter type, GID index, port base) are each target's and sender's own
    expectations; keep them in C(group_vars/gpu_nodes).
  - Servers and senders end by themselves after the run's duration plus twice C(pyramid_command_timeout) and a
    minute, even if the controller is interrupted.
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: Plan the incast
  gpufabric.pyramid.incast:
    phase: plan
    hosts: "{{ ansible_play_hosts_all }}"
    switches: "{{ groups['switches'] | default([]) }}"
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
  run_once: true
  delegate_to: localhost
  register: incast_plan
"""

RETURN = r"""
rounds:
  description: The rounds planned (0-based indices), from V(plan).
  returned: phase plan
  type: list
  elements: int
leaves:
  description: Per round, the leaves whose counters are read, from V(plan).
  returned: phase plan
  type: list
  elements: list
fabric_readers:
  description: On InfiniBand, the fabric host that reads the subnet's counters (one), else empty; from V(plan).
  returned: phase plan
  type: list
  elements: str
waited:
  description: Seconds V(wait) slept.
  returned: phase wait
  type: float
counts:
  description: Node results per status, from V(verdict).
  returned: phase verdict
  type: dict
msg:
  description: One-line summary.
  returned: always
  type: str
"""
