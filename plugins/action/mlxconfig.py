# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Query NIC firmware config with mlxconfig and, given params, set what differs (check mode, diff; what to set:
run/mlxconfig_changes.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_collect import SourceFactsAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import mlxconfig_changes as _mlxconfig

COMMAND = "ansible.builtin.command"


class ActionModule(SourceFactsAction):
    SOURCES = ("mlxconfig",)
    _VALID_ARGS = frozenset(("devices", "timeout", "params", "reset", "link_layer"))
    ARGUMENT_SPEC = dict(SourceFactsAction.ARGUMENT_SPEC, params={"type": "dict"}, reset={"type": "bool", "default": False},
                         link_layer={"type": "str", "choices": sorted(_mlxconfig.LINK_TYPES)})
    _supports_check_mode = True
    _supports_diff = True

    def run(self, tmp=None, task_vars=None):
        result = super(SourceFactsAction, self).run(tmp, task_vars)
        host = task_vars["inventory_hostname"]
        facts, error = self.collect_facts(task_vars)
        if error:
            return dict(result, failed=True, msg="%s: %s" % (host, error))
        devices = {device: queried["params"] for device, queried in facts["mlxconfig"].items()}
        args = self.arguments()
        desired = {str(key): str(value) for key, value in (args.get("params") or {}).items()}
        if not desired and not args.get("link_layer"):
            return dict(result, changed=False, devices=devices)

        try:
            changed = _mlxconfig.changes(facts["mlxconfig"], desired, args.get("link_layer"))
        except _mlxconfig.MlxconfigChangeError as exc:
            return dict(result, failed=True, msg="%s: %s" % (host, exc))
        result.update(_mlxconfig.task_result(changed, args["reset"], self._task.diff))
        if self._task.check_mode or not result["changed"]:
            return dict(result, devices=devices)
        for argv in _mlxconfig.commands(changed, args["reset"]):
            failure = self._command(argv, task_vars)
            if failure:
                return dict(result, failed=True, msg="%s: %s" % (host, failure))
        facts, error = self.collect_facts(task_vars)
        if error:
            return dict(result, failed=True, msg="%s: after setting: %s" % (host, error))
        return dict(result, devices={device: queried["params"] for device, queried in facts["mlxconfig"].items()})

    def _command(self, argv, task_vars):
        outcome = self._execute_module(module_name=COMMAND, module_args={"argv": argv}, task_vars=task_vars)
        if outcome.get("failed") or outcome.get("rc", 0) != 0:
            text = (outcome.get("stdout") or "") + (outcome.get("stderr") or "") or outcome.get("msg", "")
            return "%s failed (rc %s): %s" % (" ".join(argv), outcome.get("rc"), text.strip()[-300:])
        return None
