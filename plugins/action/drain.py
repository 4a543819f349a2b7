# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hand the run's failing GPU nodes to the scheduler from the scheduler host (logic: report/drain.py)."""

from __future__ import annotations

import json
import os

from ansible.plugins.action import ActionBase

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import drain as _drain

SETTINGS = ("pyramid_drain", "pyramid_drain_resume")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _VALID_ARGS = frozenset(("run_dir",))

    def run(self, tmp=None, task_vars=None):
        result = dict(super().run(tmp, task_vars), changed=False)
        run_dir = self._task.args.get("run_dir")
        try:
            with open(os.path.join(run_dir, "report.json"), encoding="utf-8") as handle:
                report = json.load(handle)
        except (OSError, TypeError, ValueError) as exc:
            return dict(result, failed=True, msg="no report to hand over: %s/report.json: %s" % (run_dir, exc))
        nodes = sorted(host for host, info in report["hosts"].items() if info.get("device") == "gpu_node")
        catalog = _catalog.load_catalog()
        typed = {}
        for host in nodes:  # validated in pre-flight already; read here as each node's inventory says
            typed[host], errors = host_expectations(self._templar, task_vars["hostvars"][host], catalog, [],
                                                    SETTINGS + ("pyramid_scheduler_node_name",))
            if errors:
                return dict(result, failed=True, msg="%s: %s" % (host, "; ".join(errors)))
        modes = {(typed[host]["pyramid_drain"], typed[host]["pyramid_drain_resume"]) for host in nodes}
        if len(modes) > 1:
            return dict(result, failed=True, msg="pyramid_drain and pyramid_drain_resume differ between GPU nodes (%s): "
                        "set them once for the pod (group_vars/gpu_nodes)" % sorted(modes))
        mode, resume = modes.pop() if modes else ("none", False)
        if mode == "none":
            return dict(result, skipped=True, msg="pyramid_drain is none: no node handed to the scheduler")
        if self._task.delegate_to in (None, "", "localhost"):
            return dict(result, failed=True, msg="pyramid_drain: %s needs a host that runs %s: add one to the inventory group "
                        "scheduler (or launcher)" % (mode, "scontrol" if mode == "slurm" else "kubectl"))
        names = {host: _drain.scheduler_name(host, typed[host]["pyramid_scheduler_node_name"]) for host in nodes}
        found = _drain.reasons(report)
        commands = _drain.drain_commands(mode, found, names)
        said = ["%s: %s" % (names[host], reason) for host, (reason, _check) in sorted(found.items())]
        back = []
        if resume and self._task.check_mode:
            said.append("would read `%s` and give back the GO nodes the pyramid took out before" % " ".join(_drain.state_command(mode)))
        elif resume:
            read = self._command(_drain.state_command(mode), task_vars)
            if read.get("rc") != 0:
                return dict(result, failed=True, msg="%s on %s: rc %s: %s" % (
                    " ".join(_drain.state_command(mode)), self._task.delegate_to, read.get("rc"), _said(read)))
            try:
                taken = _drain.taken_out(mode, read.get("stdout", ""))
            except ValueError as exc:
                return dict(result, failed=True, msg="the scheduler's state could not be read, no node resumed: %s" % exc)
            back = [names[host] for host in _drain.go_nodes(report) if names[host] in taken]
            commands += _drain.resume_commands(mode, back)
        outcome = {"mode": mode, "check_mode": bool(self._task.check_mode), "drained": {names[h]: r for h, (r, _c) in found.items()},
                   "resumed": back, "commands": [argv for argv, _group, _what in commands]}
        if self._task.check_mode:
            outcome["done"] = []
            _save(run_dir, outcome)
            lines = ["[scheduler] would hand %d node(s) to %s" % (len(found), mode)] + ["[scheduler] %s" % line for line in said] + [
                "[scheduler] would run: %s" % " ".join(argv) for argv, _group, _what in commands]
            return dict(result, drain=outcome, msg=lines[0][len("[scheduler] "):], pyramid_scheduler_lines=lines)
        done = []
        for argv, group, what in commands:
            ran = self._command(argv, task_vars)
            if ran.get("rc") != 0:
                outcome["done"] = done
                _save(run_dir, outcome)
                return dict(result, changed=bool(done), failed=True, drain=outcome, msg="%s failed on %s (rc %s): %s; done before it: %s" % (
                    " ".join(argv), self._task.delegate_to, ran.get("rc"), _said(ran), "; ".join(done) or "nothing"))
            done.append("%s %s" % (what, ",".join(group)))
        outcome["done"] = done
        _save(run_dir, outcome)
        lines = ["[scheduler] handed %d node(s) to %s, gave back %d" % (len(found), mode, len(back))] + [
            "[scheduler] %s" % line for line in said + done]
        return dict(result, changed=bool(done), drain=outcome, msg=lines[0][len("[scheduler] "):], pyramid_scheduler_lines=lines)

    def _command(self, argv, task_vars):
        """One argv on the scheduler host (the task is delegated there); never called under --check."""
        return self._execute_module(module_name="ansible.builtin.command", module_args={"argv": argv}, task_vars=task_vars)


def _said(result):
    return (result.get("stderr") or result.get("msg") or result.get("stdout") or "").strip()[:400]


def _save(run_dir, outcome):
    """drain.json beside report.json: what was handed over, by which commands, and what was done."""
    with open(os.path.join(run_dir, "drain.json"), "w", encoding="utf-8") as handle:
        json.dump(outcome, handle, indent=2, sort_keys=True)
        handle.write("\n")
