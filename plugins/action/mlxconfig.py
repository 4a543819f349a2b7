# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Query NIC firmware config with mlxconfig and, given params, set what differs (check mode, diff)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.collect.source_action import SourceFactsAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.host import mlx_applicable, mlx_equal

COMMAND = "ansible.builtin.command"


class ActionModule(SourceFactsAction):
    SOURCES = ("mlxconfig",)
    _VALID_ARGS = frozenset(("devices", "timeout", "params", "reset"))
    ARGUMENT_SPEC = dict(SourceFactsAction.ARGUMENT_SPEC, params={"type": "dict"}, reset={"type": "bool", "default": False})
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
        if not desired:
            return dict(result, changed=False, devices=devices)

        to_set, to_reset, before, after = {}, [], {}, {}
        for device, params in devices.items():
            # a single-port card (its Description says so) has no _P2 parameter to set: the judge's rule
            wanted = mlx_applicable(desired, facts["mlxconfig"][device])
            unknown = sorted(set(wanted) - set(params))
            if unknown:
                return dict(result, failed=True, msg="%s: %s does not report %s" % (host, device, ", ".join(unknown)))
            changes = {k: v for k, v in wanted.items() if not mlx_equal(params[k]["next_boot"], v)}
            if changes:
                to_set[device] = changes
                before[device] = {k: params[k]["next_boot"] for k in changes}
                after[device] = changes
            if any(not mlx_equal(params[k]["current"], v) for k, v in wanted.items()):
                to_reset.append(device)
        reset = args["reset"]
        changed = bool(to_set) or (reset and bool(to_reset))
        result.update(changed=changed, set=to_set, reset=sorted(to_reset) if reset else [],
                      pending_reset=[] if reset else sorted(to_reset))
        if self._task.diff and to_set:
            result["diff"] = {"before": before, "after": after, "before_header": "mlxconfig next boot", "after_header": "desired"}
        if self._task.check_mode or not changed:
            return dict(result, devices=devices)
        for device, changes in sorted(to_set.items()):
            argv = ["mlxconfig", "-d", device, "-y", "set"] + ["%s=%s" % item for item in sorted(changes.items())]
            failure = self._command(argv, task_vars)
            if failure:
                return dict(result, failed=True, msg="%s: %s" % (host, failure))
        if reset:
            for device in sorted(to_reset):
                failure = self._command(["mlxfwreset", "-d", device, "-y", "reset"], task_vars)
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
