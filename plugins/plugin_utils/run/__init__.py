# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runner: every kind of run, from the plan to the saved record, through the same engine (engine.py: plan a
source's commands, parse, judge, make the record).

One device's layer (layer.py, counters.py); the commands through Ansible (ansible_collect.py); the rail mesh
(rail_mesh.py, rail_rounds.py); the induced incast (incast_plan.py, incast_reads.py); the straggler hunt
(fabric.py, fabric_rounds.py, fabric_runs.py); telemetry (telemetry.py). What the catalog names is checked against what runs it
(catalog_references.py). Below it: core/ (the ground: model, catalog, results), parsing/, judging/, collect/, gate/.
"""
