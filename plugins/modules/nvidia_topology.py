#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/nvidia_topology.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: nvidia_topology
short_description: GPU and NIC topology from nvidia-smi topo -m, as facts
version_added: 0.1.0
description:
  - Runs C(nvidia-smi topo -m) on the host and parses the matrix and its NIC legend on the controller.
  - Works on hosts with GPUs and no NICs, and with 1 to 8 GPUs.
extends_documentation_fragment:
  - gpufabric.pyramid.source_facts
"""

EXAMPLES = r"""
- name: Read the topology
  gpufabric.pyramid.nvidia_topology:
  register: topo
"""

RETURN = r"""
gpus:
  description: GPU name to its links (GPUn/NICn to NV18, PIX, PXB, PHB, NODE, SYS) and affinities.
  returned: success
  type: dict
  sample: {GPU0: {links: {GPU1: NV18, NIC0: PIX}, cpu_affinity: "0-55,112-167", numa_affinity: "0"}}
nics:
  description: NIC column name to RDMA device name, from the NIC legend.
  returned: success
  type: dict
  sample: {NIC0: mlx5_0}
"""
