#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/counter_snapshot.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: counter_snapshot
short_description: Read a device's counters once, the start of the soak its counter checks judge
version_added: 0.2.0
description:
  - Reads every counter source (catalog C(counters) true - switch error, PFC, ECN, discard and FEC
    counters) of the device's applicable checks once, and keeps them in its results file.
  - A later M(gpufabric.pyramid.run_layer) with counter checks waits until C(pyramid_soak_seconds)
    have passed since this snapshot, reads the counters again and judges the difference.
  - Run it on every switch in one task before Layer 1, so the soak is waited out once, not once per switch.
  - A source that gives nothing at the snapshot (missing tool, timeout, unreachable device) is kept
    as such; the checks that read it are ERROR at their layer, naming the command, never a PASS.
options:
  device:
    description: Device type whose counter sources are read (the catalog's C(device) field).
    type: str
    default: switch
    choices: [gpu_node, switch]
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: Start the soak - read every switch's error, PFC, ECN and discard counters once
  gpufabric.pyramid.counter_snapshot:
    device: switch
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
"""

RETURN = r"""
snapshot:
  description: The counter sources read.
  returned: success
  type: list
  elements: str
  sample: [sw_errors, sw_pfc, sw_ecn, sw_discards]
no_data:
  description: The counter sources that gave nothing at the snapshot.
  returned: success
  type: list
  elements: str
msg:
  description: One-line summary.
  returned: always
  type: str
"""
