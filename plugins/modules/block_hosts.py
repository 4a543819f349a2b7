#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/block_hosts.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: block_hosts
short_description: Block the GPU nodes behind the switches that failed a layer
version_added: 0.1.0
description:
  - Reads the results of the switches at a layer and, from each switch's cabling plan
    (C(pyramid_switch_ports)), writes a C(BLOCKED) result at that layer into the results file of
    every GPU node in the path of a failure, naming the switch, the check and the port.
  - A failing host port blocks the node on that port. A failure of the whole switch (BGP, ECMP, an
    ERROR) or of an uplink (a C(fabric) port) blocks every node on that leaf.
  - Spines have no nodes of their own. A failing spine port blocks the nodes of the leaf at its far
    end; a failure of the whole spine blocks the nodes of every leaf it serves, since any path
    between leaves may hash through it.
  - A switch whose failures are confined to ports keeps climbing (M(gpufabric.pyramid.run_layer)
    judges its higher layers without those ports), so the nodes on its healthy ports are GO only
    once the whole switch was validated at every layer.
  - A blocked node is not climbed past that layer and is NO-GO, but the report shows it as blocked,
    not as failing on its own.
  - Run it once per switch layer, after M(gpufabric.pyramid.run_layer) on the switches.
options:
  layer:
    description: Layer number (1-3).
    type: int
    required: true
  switches:
    description: The switches judged at this layer.
    type: list
    elements: str
    required: true
  hosts:
    description: The GPU nodes of this run; only they can be blocked.
    type: list
    elements: str
    required: true
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: Block the nodes behind failing switches at layer 1
  gpufabric.pyramid.block_hosts:
    layer: 1
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
    switches: "{{ ansible_play_hosts_all }}"
    # the GPU nodes of this run (pre-flight's device map): only they can be blocked
    hosts: "{{ hostvars['localhost']['pyramid_devices']['gpu_node'] | default([]) }}"
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
blocked:
  description: Each blocked GPU node with the switches that blocked it.
  returned: always
  type: dict
  sample: {"node-030": ["leaf1-r5"]}
"""
