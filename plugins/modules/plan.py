#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/plan.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: plan
short_description: Write the plan of a validation run - checks, commands, pairs, rounds, load and duration - touching no device
version_added: 0.3.0
description:
  - Builds, from the inventory and the catalog alone, what C(validate.yml) would do on the given devices, the run in
    which every device passes the layers below - per layer and device the checks that apply (and why the others do
    not), the commands each reads with, the load it puts on the fabric or the GPUs; the rail mesh's pairs of Layers 2
    and 4; Layer 5's rounds across nodes; the incast's targets, senders and leaf ports; each node's rail addresses;
    and how long each layer's load lasts (the soak, C(ib_write_bw)'s and the incast's durations) or at most (NCCL's
    and training's timeouts).
  - The rounds come from the planners the run itself uses, so a real run's rounds can only be smaller (a device that
    fails a layer drops out of the rounds above). Each kind of run that runs across nodes is planned by the planner
    its declaration names (C(catalog/kinds.yml) C(planned_by)); C(plan.json) keeps each kind's sections under C(runs),
    layer by layer, each with its C(kind).
  - Writes C(plan.json) (everything) and C(plan.md) (grouped, readable) into O(run_dir); returns summary lines.
  - Run it after M(gpufabric.pyramid.preflight), which validates every expectation first (C(playbooks/plan.yml)).
options:
  hosts:
    description: The devices to plan for (the play's hosts).
    type: list
    elements: str
    required: true
  run_dir:
    description: The run directory pre-flight opened; C(plan.json) and C(plan.md) are written there.
    type: path
    required: true
attributes:
  check_mode:
    details: Touches no device; the plan files are written on the controller, in check mode too.
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.action
"""

EXAMPLES = r"""
- name: Write the plan
  gpufabric.pyramid.plan:
    hosts: "{{ groups['gpu_nodes'] + groups['switches'] }}"
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
"""

RETURN = r"""
plan:
  description: The paths of the plan's files.
  returned: success
  type: dict
  sample: {"json": "/srv/pyramid/reports/20261127T171500Z-a1b2c3/plan.json", "md": "/srv/pyramid/reports/20261127T171500Z-a1b2c3/plan.md"}
summary:
  description: One line per layer - its checks across the devices, its load and how long it lasts - and where the files are.
  returned: success
  type: list
  elements: str
  sample: ["plan: 32 GPU nodes, 12 switches; nothing run", "layer 4: 96 checks across the devices; ib_write_bw ...; about 20 s"]
"""
