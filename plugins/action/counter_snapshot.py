# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a device's counters once: the start of the soak that run_layer's counter checks judge (logic: run/layer.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import ansible_collect as _collector
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import layer as _layer, pod as _pod
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations


class ActionModule(EngineAction):
    _requires_connection = True  # as run_layer: a network_cli switch needs its persistent connection
    _VALID_ARGS = frozenset(("run_dir", "device"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        return _collector.released_result(self, task_vars, lambda: self._snapshot(result, task_vars))

    def _snapshot(self, result, task_vars):
        run_dir, host = self._task.args["run_dir"], task_vars["inventory_hostname"]
        catalog = _catalog.load_catalog()
        checks = _catalog.checks_for(catalog, self._task.args.get("device", "switch"))
        expect, errors = host_expectations(self._templar, task_vars, catalog, checks)
        if errors:
            return dict(result, failed=True, msg="%s: invalid expectations: %s" % (host, "; ".join(errors)))
        doc = _results.load(run_dir, host)
        # a source read once for the pod (read_on) is snapshotted on its group's reader, chosen here for the whole run
        # (run/pod.py readers): its later reads, at every layer, are that host's
        reads_for = _pod.reads_for_checks(host, _layer.split_applicable(host, checks, catalog, expect)[0], catalog,
                                          task_vars.get("groups") or {}, run_dir, task_vars.get("ansible_play_hosts_all") or [host])
        summary = _layer.snapshot(host, checks, catalog, expect, doc, lambda planned: _collector.collect(
            self, planned, expect["pyramid_command_timeout"], task_vars), reads_for=reads_for)
        _results.save(run_dir, doc)
        return dict(result, changed=False, **summary)
