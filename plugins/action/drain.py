# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hand the run's failing GPU nodes to the scheduler from the scheduler host (logic: run/handover.py)."""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import handover as _handover


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _VALID_ARGS = frozenset(("run_dir", "scheduler"))

    def run(self, tmp=None, task_vars=None):
        result = dict(super().run(tmp, task_vars), changed=False)
        run_dir = self._task.args.get("run_dir")
        try:
            report, nodes = _handover.load_report(run_dir)
        except (OSError, TypeError, ValueError, KeyError, AttributeError) as exc:
            return dict(result, failed=True, msg="no report to hand over: %s/report.json: %s" % (run_dir, exc))
        chosen = self._settings(nodes, task_vars)
        if isinstance(chosen, str):
            return dict(result, failed=True, msg=chosen)
        return dict(result, **_handover.run(run_dir, report, nodes, chosen, self._task.args.get("scheduler"),
                                            self._task.check_mode, self._command(task_vars)))

    def _settings(self, nodes, task_vars):
        """Each GPU node's settings as its inventory says (validated in pre-flight already), then the pod's."""
        catalog, typed = _catalog.load_catalog(), {}
        for host in nodes:
            if host not in task_vars["hostvars"]:
                return "%s is in the report but not in the inventory: no node handed over" % host
            typed[host], errors = host_expectations(self._templar, task_vars["hostvars"][host], catalog, [],
                                                    _handover.SETTINGS + ("pyramid_scheduler_node_name",))
            if errors:
                return "%s: %s" % (host, "; ".join(errors))
        return _handover.settings(typed, nodes)

    def _command(self, task_vars):
        """One argv on the scheduler host (the task is delegated there); never called under --check."""
        return lambda argv: self._execute_module(module_name="ansible.builtin.command", module_args={"argv": argv},
                                                 task_vars=task_vars)
