# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 7: the golden signals of every device of the run, read from Prometheus on the controller
(logic: plugin_utils/run/telemetry.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.telemetry import client as _client
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import telemetry as _layer


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("run_dir", "devices"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        catalog = _catalog.load_catalog()
        devices = {device: list(hosts or []) for device, hosts in (self._task.args.get("devices") or {}).items()}
        hostvars = task_vars["hostvars"]
        summary = _layer.run(self._task.args["run_dir"], devices, catalog,
                             lambda host, checks: host_expectations(self._templar, hostvars[host], catalog, checks),
                             _client.query)
        return dict(result, changed=False, **summary)  # reading Prometheus changes no device
