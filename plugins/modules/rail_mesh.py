#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/rail_mesh.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: rail_mesh
short_description: The rail mesh - ping (Layer 2) or ib_write_bw (Layer 4) between pairs of nodes on every rail, in rounds that do not grow with the pod
version_added: 0.3.0
description:
  - Runs the catalog check of scope C(rail_mesh) of O(layer) (Layer 2 C(rail_ping), Layer 4
    C(rdma_write_bw)) on the nodes that passed every layer below, one phase per task so that
    Ansible's linear strategy orders them across hosts.
  - Traffic goes only to the rail addresses of the plan, from the node's own rail address.
  - V(plan) (once) - picks the nodes, their rail addresses (C(pyramid_rail_address_plan) or a node's
    own C(pyramid_rail_addresses), checked with netaddr) and two rounds, each a matching in which a
    pair runs both ways on every rail at once (node I(i) with node I(i + n/2), then a shifted round
    with no pair repeated). Every node is server and client on every rail, with two partners, in two
    rounds whatever the pod's size. Layer 2's pings need no server and load nothing, so both rounds'
    pings run as one round.
  - V(serve) (every node) - starts its servers of the round with M(gpufabric.pyramid.rail_servers),
    and returns once each is seen waiting for
    its client (rail i on C(pyramid_rdma_port_base) + i). V(run) (every node) - its clients of the round at once;
    Layer 2's pings run and are read through M(gpufabric.pyramid.collect); Layer 4's ib_write_bw clients start in the
    background with M(gpufabric.pyramid.rail_servers), so a round lasts one C(pyramid_rdma_duration) whatever the forks.
    V(stop) (every node) - waits for its clients to end (the duration plus C(pyramid_command_timeout) at most; a client
    still running then is killed and reported as hung), keeps their output, then collects its servers' output and
    kills any still running; with O(next_round), it then starts the node's servers of that round as V(serve) does, in
    the same module run (one SSH round trip per node and round fewer; only the first round needs V(serve)).
  - V(judge) (once) - parses every run on the controller and plans retest rounds with known-good
    partners for misses the two rounds cannot place. V(verdict) (once) - one result per node
    naming each missing rail, its partner and Gb/s, and the likely cause (the node's rail, the path
    between two nodes, the whole rail).
  - At Layer 4, unless C(pyramid_rdma_gpudirect) is false, V(plan) runs every run of a round again in GPU
    memory in the same round, right after the host-memory run of its rail (never beside it - two runs on one
    rail would share its bandwidth), its server listening from the round's start on C(pyramid_rdma_port_base)
    + 50 + i - the same pairs, each end with C(--use_cuda=<the GPU nearest the rail>)
    (C(pyramid_rdma_gpudirect_gpus), else GPU I(i) for rail I(i)), and C(--use_cuda_dmabuf) when
    C(pyramid_rdma_gpudirect_dmabuf); a round then lasts two C(pyramid_rdma_duration) and costs each node no
    module run more. V(verdict) writes a second result per node,
    C(rdma_gpudirect_bw), each run judged against the host-memory run of the same pair, rail and
    direction (C(pyramid_rdma_gpudirect_tolerance_percent)). A node with no GPU near any rail, or the
    switch off, is SKIP not applicable.
  - Raw outputs of every server and client go into C(run_dir/mesh/layerN/round-K/).
options:
  layer:
    description: The layer whose C(rail_mesh) check runs (2 - C(rail_ping); 4 - C(rdma_write_bw)).
    type: int
    default: 4
  phase:
    description: Which phase this task runs.
    type: str
    choices: [plan, serve, run, stop, judge, verdict]
    required: true
  round:
    description: The round (0-based) of V(serve), V(run) and V(stop).
    type: int
  next_round:
    description:
      - With V(stop), the round (0-based) whose servers the node starts once this round has ended on it, instead of a
        V(serve) task of that round. Absent - none (the last round).
    type: int
  hosts:
    description: The GPU nodes of the layer (V(plan) and V(verdict)), usually C(ansible_play_hosts_all).
    type: list
    elements: str
  references:
    description:
      - GPU nodes outside this run (V(plan) and V(verdict)), after C(--limit). When one node of the run
        reaches the layer, the first of them is its partner, its tasks delegated to it (O(as_host)), as
        the straggler hunt pairs a reimaged node. A bad reference can fail the node, never pass it.
      - Empty, and one node in the run - a lone GPU box - the check does not apply (SKIP not applicable).
    type: list
    elements: str
    default: []
  as_host:
    description: The node a delegated V(serve), V(run) or V(stop) works for (the reference partner).
    type: str
notes:
  - The command settings of the runs (message size, duration, GID index, port base) are those of the
    first planned node, so keep them in C(group_vars/gpu_nodes); each node is judged against its own
    C(pyramid_rdma_gbps_min).
  - Servers and background clients end by themselves, even if the controller is interrupted, after the run's
    duration, the listen timeout, twice C(pyramid_command_timeout) and Ansible's serve, run and stop phases across
    the pod in waves of forks.
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: Plan the rail mesh
  gpufabric.pyramid.rail_mesh:
    phase: plan
    hosts: "{{ ansible_play_hosts_all }}"
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
  run_once: true
  register: mesh

- name: Start the servers of round 1
  gpufabric.pyramid.rail_mesh:
    phase: serve
    round: 0
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"

- name: End round 1 on each node and start its round 2 servers
  gpufabric.pyramid.rail_mesh:
    phase: stop
    round: 0
    next_round: 1
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
"""

RETURN = r"""
rounds:
  description: The rounds planned (0-based indices), from V(plan).
  returned: phase plan
  type: list
  elements: int
round_seconds:
  description:
    - How long a round's runs take on a rail, from V(plan) - C(pyramid_rdma_duration), twice that where GPUDirect runs
      follow the host-memory runs (0 for Layer 2's pings). The V(stop) tasks' expected time for the progress callback.
  returned: phase plan
  type: int
retest_rounds:
  description: The retest rounds planned (0-based indices), from V(judge).
  returned: phase judge
  type: list
  elements: int
counts:
  description: Node results per status, from V(verdict).
  returned: phase verdict
  type: dict
msg:
  description: One-line summary.
  returned: always
  type: str
"""
