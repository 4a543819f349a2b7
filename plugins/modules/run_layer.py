#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/run_layer.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: run_layer
short_description: Run one layer of the validation pyramid on a device, behind the gate of the layers below
version_added: 0.1.0
description:
  - Reads the check catalog (C(catalog/checklist.yml)) for the layer and device type, collects every
    source the checks need in one M(gpufabric.pyramid.collect) call, parses the raw output on the
    controller with the collection's TextFSM templates, judges the facts against the device's
    expectations and writes the results into the device's results file in O(run_dir).
  - A device with a FAIL or ERROR on a lower layer is not run; its checks are recorded as SKIP,
    naming the layer and the checks that stopped it. A GPU node BLOCKED by a switch in its path
    (M(gpufabric.pyramid.block_hosts)) is not run either.
  - A switch reached through C(ansible.netcommon.network_cli) (EOS, NX-OS) gets its C(cli) commands
    over that persistent connection, on the controller; each is bounded by C(ansible_command_timeout).
    A switch that refuses the session, fails authentication or never shows its prompt is an ERROR for
    each of its checks; the play goes on for the other devices. SONiC and Cumulus switches are Linux
    hosts reached over SSH like the GPU nodes.
  - Missing tools, timeouts, unparseable output and unreachable hosts are ERROR results naming the
    host and the command, never a PASS and never a traceback.
  - A device whose own FAIL or ERROR records stop it at this layer (its first failing layer; a switch's failures
    confined to ports let it climb) returns a failed result naming the layer and the checks (C(failed_when_result), as
    M(gpufabric.pyramid.verdict) does), so the terminal shows it as failed rather than C(ok). The collection's role
    rescues it (any other failure it does not), so the device stays in the run, the layers above record it as not
    climbed, and the report covers it.
options:
  layer:
    description: Layer number (0 = host prerequisites).
    type: int
    required: true
  device:
    description: Device type whose checks run (the catalog's C(device) field).
    type: str
    default: gpu_node
    choices: [gpu_node, switch]
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: Layer 0 on the GPU nodes
  gpufabric.pyramid.run_layer:
    layer: 0
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"

- name: Start the soak - read the switch counters once
  gpufabric.pyramid.counter_snapshot:
    device: switch
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"

- name: Layer 1 on the switches, the soak's second read included
  gpufabric.pyramid.run_layer:
    layer: 1
    device: switch
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
"""

RETURN = r"""
soak_waited:
  description: Seconds the layer waited for the soak since the counters snapshot (M(gpufabric.pyramid.counter_snapshot)).
  returned: when the layer ran
  type: float
counts:
  description: Number of results per status.
  returned: when the layer ran
  type: dict
  sample: {PASS: 10, FAIL: 1}
skipped_checks:
  description: Checks recorded as SKIP because a lower layer failed.
  returned: when the device is blocked
  type: int
msg:
  description: One-line summary naming the checks that did not pass; where the device stops, it says so first.
  returned: always
  type: str
  sample: "node-007 stops at layer 0 (gpudirect): layer 0: 1 FAIL, 10 PASS (gpudirect=FAIL)"
pyramid_stops_at:
  description: The layer, when the device stops here (the task's result is then failed).
  returned: when the device stops at this layer
  type: int
  sample: 0
"""
