#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/link.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: link
short_description: A missed load run again while the switches on its paths are read - the fabric link named
version_added: 0.4.0
description:
  - Runs the catalog checks of O(layer) whose kind reads the switches on a load's paths (C(reads_on) V(paths) in
    C(catalog/kinds.yml); the kind C(link) - C(fabric_link_under_load) after the pod's all-to-all, C(pair_link_under_load)
    after a pair of round 2 placed on the path), one phase per task.
  - Each such check names, with C(retraces), the check whose miss it follows and the causes of that miss; the nodes whose
    record of that check holds one of them are the ones its load runs across again.
  - V(plan) (once, on the controller) - per check, those nodes, the switches on their paths (the rail leaves that
    cable them in C(pyramid_switch_ports) and those leaves' fabric peers) and the fabric links among them; C(readers)
    lists the switches to read. Nothing to retrace - every phase does nothing.
  - V(read) (each switch of the play) - the check's sources on this switch at O(label) (V(before) or V(after)), kept in
    C(run_dir/link/<check>/).
  - V(load) (once, delegated to the launcher) - the retraced check's load across the same nodes, as the straggler hunt
    runs it (each missed pair its own run, one after the other); its output and its judge's account kept.
  - V(judge) (once, on the controller) - each source a window of the two reads per switch; the check's judge gets them
    with the paths of each run and returns a verdict per device, recorded - a switch's under the check (one for all
    the runs whose paths it is on), a node's under the retraced check (a miss the judge places on a link is not the
    node's).
  - On InfiniBand (a check whose C(leaves_from) names the subnet's read - C(ib_fabric_link_under_load),
    C(ib_pair_link_under_load)) no switch is a host of the run - V(plan) makes the subnet's reader (the first host of
    C(ib_fabric_hosts), as Layers 1-3 read it) the one reader, and the links those of the leaves each rail lands on in
    the reader's C(iblinkinfo) kept at Layer 3; V(read) runs C(ibqueryerrors) there; V(judge) records each switch the
    judge names under its name in the subnet, a device of the report found in the read (C(found_devices.json)).
  - A check of another fabric (its C(only_if) against the GPU nodes' expectations) is not applicable on every switch.
options:
  layer:
    description: The layer whose checks of a kind read on paths (the link kind) run.
    type: int
    default: 5
  phase:
    description: Which phase this task runs.
    type: str
    choices: [plan, read, load, judge]
    required: true
  label:
    description: With V(read), which read this is - V(before) or V(after) the load.
    type: str
    choices: [before, after]
  hosts:
    description: The GPU nodes whose records V(plan) reads for the misses to retrace.
    type: list
    elements: str
    default: []
  switches:
    description: The switches V(plan) may read (their plans give the paths).
    type: list
    elements: str
    default: []
  check:
    description:
      - With V(read) and V(load), the one check of the kind this task runs (with O(run), a round of the role - one
        run's reads around its own load, so that a read's window holds that load alone).
      - Without it, every check of the layer.
    type: str
  run:
    description:
      - With V(read) and V(load), which of the check's planned runs (its index in the plan's C(rounds)); without it,
        every run of the check.
    type: int
notes:
  - Runs after the layer's fabric checks (the miss it follows must be recorded). In check mode the retraced check was not
    run, so there is no miss and nothing runs.
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: Plan the link run after a missed all-to-all
  gpufabric.pyramid.link:
    phase: plan
    layer: 5
    hosts: "{{ groups['gpu_nodes'] }}"
    switches: "{{ groups['switches'] }}"
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
  run_once: true
  delegate_to: localhost
  register: link_plan

- name: Read the switches on the paths of one retraced miss before its load
  gpufabric.pyramid.link:
    phase: read
    check: fabric_link_under_load
    run: 0
    label: before
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
  when: inventory_hostname in link_plan.readers
"""

RETURN = r"""
readers:
  description: The switches on the paths of the loads to retrace, from V(plan).
  returned: phase plan
  type: list
  elements: str
rounds:
  description: From V(plan), one per run to make again - C(check), C(run) (its index) and C(readers), the switches on its paths.
  returned: phase plan
  type: list
  elements: dict
counts:
  description: Records per check and status, from V(judge).
  returned: phase judge
  type: dict
msg:
  description: One-line summary.
  returned: always
  type: str
"""
