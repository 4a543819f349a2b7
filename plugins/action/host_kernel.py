# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""IOMMU units, kernel command line, hugepages and kernel release, parsed on the controller."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_collect import SourceFactsAction


class ActionModule(SourceFactsAction):
    SOURCES = ("iommu_sysfs", "cmdline", "meminfo", "osrelease")

    def shape(self, facts):
        return {"iommu_units": facts["iommu_sysfs"]["units"], "cmdline": facts["cmdline"]["args"],
                "hugepages": {key: facts["meminfo"][key] for key in ("hugepages_total", "hugepages_free", "hugepagesize_kb")},
                "kernel_release": facts["osrelease"]["release"]}
