#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/judge_pod.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: judge_pod
short_description: Judge a layer's pod-wide checks across every device of the layer
version_added: 0.1.0
description:
  - Runs the catalog checks of scope C(pod) (for example one NIC firmware version across the pod)
    over the facts that M(gpufabric.pyramid.run_layer) stored for each device, and adds a result
    per device to its results file.
  - Devices blocked below the layer or unreachable are left out; they already carry SKIP or ERROR.
  - Run it once per play, after M(gpufabric.pyramid.run_layer).
options:
  layer:
    description: Layer number.
    type: int
    required: true
  hosts:
    description: The devices of the layer, usually C(ansible_play_hosts_all).
    type: list
    elements: str
    required: true
  device:
    description: Device type.
    type: str
    default: gpu_node
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
# As the layer role runs it, once per layer after run_layer: NIC firmware drift across the GPU nodes
- name: Judge the pod-wide checks of layer 0
  gpufabric.pyramid.judge_pod:
    layer: 0
    device: gpu_node
    hosts: "{{ ansible_play_hosts_all }}"
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
  run_once: true
"""

RETURN = r"""
judged_hosts:
  description:
    - Number of devices judged.
    - Devices blocked below the layer or unreachable at it are not judged; they carry SKIP or ERROR already.
  returned: always
  type: int
not_passing:
  description: Check id to the devices that did not pass it.
  returned: always
  type: dict
  sample: {nic_firmware: ["node-012=FAIL"]}
msg:
  description: One line naming the checks and devices that did not pass, or C(all PASS).
  returned: always
  type: str
"""
