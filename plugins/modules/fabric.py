#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/fabric.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: fabric
short_description: Run a layer's fabric checks across groups of nodes from the launcher host
version_added: 0.2.0
description:
  - Runs the catalog checks of scope C(fabric) of a layer (Layer 5 - C(nccl_pairs) and C(nccl_scale))
    on the nodes that passed everything up to that layer, round 1 included.
  - Round 2 (C(nccl_pairs)) runs node I(i) with node I(i + n/2) across the pod, side by side; when a pair
    misses, each side is retested with a partner from a pair that passed, so the node to blame is
    named. A pair whose sides both pass with known-good partners is blamed on the path between them.
  - Round 3 (C(nccl_scale)) runs 2, 4, 8, ... nodes, then all of them, and stops at the first size
    that misses; the nodes added at that size are named.
  - Round 4 (C(nccl_alltoall_pod)) runs one all-to-all across every node that held round 3, the load that
    uses the spine layer's whole bisection. A miss no node is traced to runs each scalable unit alone, side by
    side; a unit that misses alone is named, and when every unit holds alone the spine layer between them is.
  - Each run is one command on the launcher host, through the launcher the inventory names
    (O(launcher) host, C(pyramid_nccl_launcher) - C(mpirun -H) or C(srun --nodelist)), collected by
    M(gpufabric.pyramid.collect) and parsed on the controller (nccl-tests table and NCCL_DEBUG=INFO
    lines). Verdicts - busbw and algbw within C(pyramid_nccl_tolerance) of the platform's figures,
    every rail in NCCL's NIC list on every node, GPUDirect RDMA on every network channel, no wrong
    results, no hang.
  - Results go into each node's results file in O(run_dir); every run's raw output into
    C(run_dir/hunt/). Nodes left out of a round get a SKIP that says why.
  - Run it once per play (C(run_once), delegated to the launcher host).
options:
  layer:
    description: Layer number whose fabric checks run.
    type: int
    required: true
  hosts:
    description: The nodes of the layer, usually C(ansible_play_hosts_all), in the order they are paired.
    type: list
    elements: str
    required: true
  references:
    description:
      - Nodes outside this run (not in O(hosts), say after C(--limit)) to pair with when no node of the
        run can be a partner - a lone reimaged node is tested with one of them.
      - A bad reference fails the node it is paired with, never passes it.
    type: list
    elements: str
    default: []
  pod_order:
    description:
      - The pod's GPU nodes in inventory order (usually C(groups['gpu_nodes'])). A node without
        C(pyramid_scalable_unit) belongs to unit C(su<k>) by its place here, C(pyramid_scalable_unit_nodes) to a unit;
        the pod's all-to-all (C(nccl_alltoall_pod)) runs each unit alone when the whole pod misses.
      - Empty - O(hosts) in their order.
    type: list
    elements: str
    default: []
  launcher:
    description:
      - Inventory name of the launcher host (usually the first host of the group C(launcher)).
      - Empty - the fabric checks are an ERROR naming the missing launcher.
    type: str
    default: ""
notes:
  - Named C(straggler_hunt) before issue 69 gave each kind of run one name; that name still runs this module, with a
    deprecation warning (C(meta/runtime.yml)), until 1.0.0.
  - The launcher reaches nodes by their inventory names; nccl-tests must be built with C(MPI=1) on every node.
  - The expectations (launcher, platform, tolerance, NCCL environment) are those of the host the task runs for
    (the first of the play), so keep them in C(group_vars/gpu_nodes).
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: The fabric checks (the straggler hunt) from the launcher
  gpufabric.pyramid.fabric:
    layer: 5
    hosts: "{{ ansible_play_hosts_all }}"
    launcher: "{{ groups['launcher'] | first }}"
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
  run_once: true
  delegate_to: "{{ groups['launcher'] | first }}"
"""

RETURN = r"""
counts:
  description: Number of node results per check and status.
  returned: when the layer has fabric checks
  type: dict
  sample: {"nccl_pairs=PASS": 30, "nccl_pairs=FAIL": 1, "nccl_scale=PASS": 30}
runs:
  description: Number of runs started on the launcher.
  returned: when the layer has fabric checks
  type: int
msg:
  description: One-line summary.
  returned: always
  type: str
"""
