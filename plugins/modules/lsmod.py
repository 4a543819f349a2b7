#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/lsmod.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: lsmod
short_description: Loaded kernel modules and the active GPUDirect RDMA path, as facts
version_added: 0.1.0
description:
  - Runs C(lsmod), or reads C(/proc/modules) where lsmod is absent (container images), and
    C(modinfo nvidia) and C(/proc/sys/kernel/osrelease); parses them on the controller.
  - Says which GPUDirect RDMA path is active, C(peermem) (nvidia_peermem or amd_peer_mem loaded)
    or C(dmabuf) (NVIDIA open GPU kernel module on Linux 5.12 or later), or none.
extends_documentation_fragment:
  - gpufabric.pyramid.source_facts
"""

EXAMPLES = r"""
- name: Is GPUDirect active?
  gpufabric.pyramid.lsmod:
  register: kmods

- name: Fail without GPUDirect
  ansible.builtin.assert:
    that: kmods.gpudirect_path is not none
    fail_msg: "{{ kmods.gpudirect }}"
"""

RETURN = r"""
modules:
  description: Module name to size and users.
  returned: success
  type: dict
  sample: {nvidia_peermem: {size: 16384, used_by: []}}
gpudirect_path:
  description: C(peermem), C(dmabuf), or null when no GPUDirect RDMA path is active.
  returned: success
  type: str
gpudirect:
  description: The GPUDirect finding in words.
  returned: success
  type: str
  sample: "path peermem: nvidia_peermem loaded"
"""
