#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/load_guard.py (its decisions: plugins/plugin_utils/run/load_guard.py);
# this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: load_guard
short_description: Stop the run before its first load where the scheduler runs jobs on the nodes it would load
description:
  - Layers 3 to 6 load every rail and GPU of the GPU nodes at line rate. Before the first of them, this asks the
    scheduler the hand-over uses (C(pyramid_drain=slurm)) which of the nodes the run loads hold a job, with the read
    the hand-over makes (C(scontrol show node), through its parser); a node ALLOCATED, MIXED or COMPLETING stops the
    run, naming it and its state.
  - The nodes the run loads are its GPU nodes and, in a run limited to some of them (C(--limit)), the first two GPU
    nodes outside it, which the meshes and the NCCL rounds may load as partners.
  - A scheduler that cannot say (a controller that does not answer, an answer that is not a node listing) stops the run
    too, naming the command. C(pyramid_load_guard=false) loads the nodes anyway.
  - C(pyramid_drain=none) names no scheduler and C(pyramid_drain=kubernetes)'s node list does not show its pods - both
    are not asked, and say so.
  - In check mode nothing is loaded, so nothing is asked.
  - Run it once, delegated to the host that runs C(scontrol) - the first host of the group C(scheduler), else of
    C(launcher), as the hand-over is.
options:
  nodes:
    description: The GPU nodes of this run (pre-flight's C(pyramid_devices.gpu_node)).
    type: list
    elements: str
    required: true
  pod:
    description: Every GPU node of the inventory, in order (the group C(gpu_nodes)) - the partners outside a limited run.
    type: list
    elements: str
    default: []
  scheduler:
    description: The inventory host the task is delegated to, which runs C(scontrol).
    type: str
    default: ""
notes:
  - One read, an argv list (M(ansible.builtin.command)), no shell; nothing is changed on the scheduler.
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.action
"""

EXAMPLES = r"""
- name: Stop the run where a job runs on a node it would load
  gpufabric.pyramid.load_guard:
    nodes: "{{ hostvars['localhost']['pyramid_devices']['gpu_node'] | default([]) }}"
    pod: "{{ groups['gpu_nodes'] | default([]) }}"
    scheduler: "{{ ((groups['scheduler'] | default([])) + (groups['launcher'] | default([])) + ['']) | first }}"
  run_once: true
  delegate_to: "{{ ((groups['scheduler'] | default([])) + (groups['launcher'] | default([])) + ['localhost']) | first }}"
"""

RETURN = r"""
busy:
  description: The nodes that hold a job, each with its scheduler state (empty when none, or when not asked).
  returned: always
  type: dict
  sample: {"node-003": "ALLOCATED"}
"""
