# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Loaded kernel modules (lsmod, else /proc/modules) and the GPUDirect path, parsed on the controller."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import host as _judges
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_collect import SourceFactsAction


class ActionModule(SourceFactsAction):
    SOURCES = ("kernel_modules", "nvidia_module", "osrelease")

    def shape(self, facts):
        outcome = _judges.gpudirect_path(facts, ["peermem", "dmabuf"])  # the driver's side: RDMA devices are ibstat's
        path = outcome.get("detail", {}).get("path")  # set only on a PASS: the path in use
        return {"modules": facts["kernel_modules"]["modules"], "gpudirect_path": path, "gpudirect": outcome["actual"]}
