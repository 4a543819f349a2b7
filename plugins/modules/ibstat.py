#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/ibstat.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: ibstat
short_description: RDMA devices and ports from ibstat, as facts
version_added: 0.1.0
description:
  - Runs C(ibstat) on the host (argv, C(LC_ALL=C), under C(timeout)) and parses it on the
    controller with the C(linux_ibstat) TextFSM template.
  - Missing tool, timeout or unparseable output fail the task with the host and the command named.
  - A CA that ibstat cannot read (its C(ibpanic) line, exit 255) does not fail the task - the CAs it
    listed before are returned, and the failing one in RV(unreadable).
extends_documentation_fragment:
  - gpufabric.pyramid.source_facts
"""

EXAMPLES = r"""
- name: Read the rails
  gpufabric.pyramid.ibstat:
  register: rails

- name: Show the rate of mlx5_0
  ansible.builtin.debug:
    msg: "{{ rails.devices.mlx5_0.ports['1'].rate_gbps }}"
"""

RETURN = r"""
devices:
  description: CA name to its facts.
  returned: success
  type: dict
  sample:
    mlx5_0:
      ca_type: MT4129
      firmware: 28.39.1002
      node_guid: "0xa088c20300a1b2c4"
      ports:
        "1": {state: Active, phys_state: LinkUp, rate_gbps: 400, link_layer: Ethernet, port_guid: "0xa288c2fffea1b2c4"}
unreadable:
  description:
    - CA name to ibstat's own message, for the CA it could not read (C(ibpanic), exit 255). ibstat stops
      there, so CAs after it are not listed either; the CAs before it are in RV(devices).
  returned: when ibstat could not read a CA
  type: dict
  sample:
    mlx5_8: "stat of IB device 'mlx5_8' failed: No such file or directory"
"""
