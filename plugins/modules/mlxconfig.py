#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/mlxconfig.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: mlxconfig
short_description: Query NVIDIA/Mellanox NIC firmware config, and set the values that differ
version_added: 0.1.0
description:
  - Runs C(mlxconfig -d <device> -e q) for each device and parses it on the controller
    (default, current and next-boot value of every parameter).
  - With O(params), runs C(mlxconfig -d <device> -y set K=V ...) for the values whose next-boot
    value differs, then, with O(reset=true), C(mlxfwreset -d <device> -y reset) on the devices whose
    current value differs, so the values take effect without a reboot.
  - The remediation of the node-047 RCA (ROCE_CC_PRIO_MASK_P1/P2 not re-applied after a reimage).
options:
  devices:
    description: RDMA devices to query (MFT accepts RDMA device names such as C(mlx5_0)).
    type: list
    elements: str
    default: [mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_7]
  params:
    description:
      - Parameter name to desired value. Omit to only query.
      - A port parameter (C(_P2) and up) is left alone on a card whose Description, in the query's header, names
        fewer ports (C(Single-port)); on a card that names no port count, every parameter must be reported.
    type: dict
  link_layer:
    description:
      - The fabric's link layer. Given, every C(LINK_TYPE_P<n>) a card reports (a VPI ConnectX; Ethernet-only and
        InfiniBand-only cards have none, and are left alone) is set to it - C(ETH) on C(roce), C(IB) on C(infiniband) -
        so that a port a reimage or a firmware default left in the other mode comes back (Layer 0's
        C(rails_link_layer)). A C(LINK_TYPE_P<n>) named in O(params) wins.
      - Omitted, link types are left as they are.
    type: str
    choices: [infiniband, roce]
  reset:
    description:
      - Reset the NIC firmware (C(mlxfwreset)) where the current value differs, so it applies now.
      - Without it, new values apply at the next boot and are returned in RV(pending_reset).
    type: bool
    default: false
  timeout:
    description: Seconds each query may run before it counts as hung.
    type: int
    default: 60
attributes:
  diff_mode:
    support: full
    details: The C(diff) shows each parameter's current and desired value.
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.action
  - gpufabric.pyramid.attributes.diff
"""

EXAMPLES = r"""
- name: Re-apply DCQCN on all priorities after a reimage, now
  gpufabric.pyramid.mlxconfig:
    devices: "{{ pyramid_rails }}"
    params:
      ROCE_CC_PRIO_MASK_P1: 255
      ROCE_CC_PRIO_MASK_P2: 255
    reset: true

- name: Only look
  gpufabric.pyramid.mlxconfig:
    devices: [mlx5_0]
  register: fw
"""

RETURN = r"""
devices:
  description: Device to parameter to its values (after any change).
  returned: success
  type: dict
  sample: {mlx5_0: {ROCE_CC_PRIO_MASK_P1: {default: "255", current: "255", next_boot: "255", modified: false}}}
set:
  description: Device to the values set.
  returned: when params are given
  type: dict
  sample: {mlx5_0: {ROCE_CC_PRIO_MASK_P1: "255"}}
reset:
  description: Devices reset with mlxfwreset.
  returned: when params are given
  type: list
  elements: str
pending_reset:
  description: Devices whose new values wait for a reset or reboot (reset=false).
  returned: when params are given
  type: list
  elements: str
"""
