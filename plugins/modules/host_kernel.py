#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/host_kernel.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: host_kernel
short_description: IOMMU units, kernel command line, hugepages and kernel release, as facts
version_added: 0.1.0
description:
  - Lists C(/sys/class/iommu) and reads C(/proc/cmdline), C(/proc/meminfo) and
    C(/proc/sys/kernel/osrelease) on the host; parses them on the controller.
extends_documentation_fragment:
  - gpufabric.pyramid.source_facts
"""

EXAMPLES = r"""
- name: Read the kernel prerequisites
  gpufabric.pyramid.host_kernel:
  register: kernel
"""

RETURN = r"""
iommu_units:
  description: Entries of /sys/class/iommu; empty when the IOMMU is off.
  returned: success
  type: list
  elements: str
  sample: [dmar0, dmar1]
cmdline:
  description: Kernel command line arguments (last value wins).
  returned: success
  type: dict
  sample: {iommu: pt, hugepages: "64"}
hugepages:
  description: HugePages_Total, HugePages_Free and Hugepagesize (kB).
  returned: success
  type: dict
  sample: {hugepages_total: 64, hugepages_free: 64, hugepagesize_kb: 1048576}
kernel_release:
  description: The running kernel's release.
  returned: success
  type: str
  sample: 5.15.0-119-generic
"""
