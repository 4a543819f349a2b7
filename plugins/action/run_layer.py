# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run one layer's catalog checks on a device, behind the gate of the layers below (logic: run/layer.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import counters as _counters, ansible_collect as _collector
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import layer as _layer, pod as _pod
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations


class ActionModule(EngineAction):
    # True: a network_cli switch needs its persistent connection (its failures are caught here); an SSH
    # host connects only through _execute_module, so its failures are caught here too.
    _requires_connection = True
    _VALID_ARGS = frozenset(("layer", "run_dir", "device"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        return _collector.released_result(self, task_vars, lambda: self._run_layer(result, task_vars))

    def _run_layer(self, result, task_vars):
        args = self._task.args
        layer, run_dir, host = int(args["layer"]), args["run_dir"], task_vars["inventory_hostname"]
        catalog = _catalog.load_catalog()
        checks = _catalog.checks_at(catalog, layer, args.get("device", "gpu_node"))
        expect, errors = host_expectations(self._templar, task_vars, catalog, checks)
        if errors:
            return dict(result, failed=True, msg="%s: invalid expectations: %s" % (host, "; ".join(errors)))
        doc = _results.load(run_dir, host)
        # the pod's reader reads for it here, held back by its own checks or not (run/pod.py readers: one for the run)
        reads_for = _pod.reads_for(host, _layer.split_applicable(host, checks, catalog, expect)[0], catalog, task_vars.get("groups") or {},
                                   run_dir, layer, task_vars.get("ansible_play_hosts_all") or [host])
        _records, summary = _layer.run(host, layer, checks, catalog, expect, doc, lambda planned: _collector.collect(
            self, planned, expect["pyramid_command_timeout"], task_vars), reads_for=reads_for, check_mode=bool(self._task.check_mode))
        if "counters" in summary:
            _counters.save(run_dir, host, layer, summary.pop("counters"))
        _results.save(run_dir, doc)
        failing = _layer.stops_here(doc, layer, args.get("device", "gpu_node") == "switch")
        if failing:
            # Shown as failed, not as ok; the role rescues it, keeping the device in the run (the layers above record
            # why not). `failed_when_result` fails the task as `failed` would, without ansible-core 2.19's "[ERROR]:
            # Task failed ... Origin:" block and its code excerpt, which read like a crash (as the verdict does).
            return dict(result, changed=False, failed_when_result=True, pyramid_stops_at=layer, **dict(summary, msg="%s stops at layer %d (%s): %s" % (
                host, layer, ", ".join(failing), summary.get("msg", ""))))
        return dict(result, changed=False, **summary)
