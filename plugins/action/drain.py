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

SETTINGS = ("pyramid_drain", "pyramid_drain_resume", "pyramid_drain_max_fraction")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _VALID_ARGS = frozenset(("run_dir", "scheduler"))

    def run(self, tmp=None, task_vars=None):
        result = dict(super().run(tmp, task_vars), changed=False)
        run_dir = self._task.args.get("run_dir")
        try:
            with open(os.path.join(run_dir, "report.json"), encoding="utf-8") as handle:
                report = json.load(handle)
            nodes = sorted(host for host, info in report["hosts"].items() if info.get("device") == "gpu_node")
        except (OSError, TypeError, ValueError, KeyError, AttributeError) as exc:
            return dict(result, failed=True, msg="no report to hand over: %s/report.json: %s" % (run_dir, exc))
        settings = self._settings(nodes, task_vars)
        if isinstance(settings, str):
            return dict(result, failed=True, msg=settings)
        mode, resume, fraction, names = settings
        if mode == "none":
            return dict(result, skipped=True, msg="pyramid_drain is none: no node handed to the scheduler")
        if not self._task.args.get("scheduler"):
            return dict(result, failed=True, msg="pyramid_drain: %s needs a host that runs %s: add one to the inventory group "
                        "scheduler (or launcher)" % (mode, "scontrol" if mode == "slurm" else "kubectl"))
        try:
            found = _drain.reasons(report)
        except (KeyError, TypeError) as exc:
            return dict(result, failed=True, msg="report.json without what the hand-over reads: %s" % exc)
        refused = _drain.too_many(found, nodes, fraction)
        if refused:
            return dict(result, failed=True, msg=refused)
        if self._task.check_mode:
            return self._plan(result, run_dir, mode, resume, found, names)
        read = self._command(_drain.state_command(mode), task_vars)
        try:
            state = _drain.scheduler_nodes(mode, read.get("stdout", "")) if read.get("rc") == 0 else None
        except (ValueError, KeyError, TypeError) as exc:
            state, read = None, dict(read, stderr="not read: %s" % exc)
        if state is None:  # what is out of service, and why, is not known: nothing is changed on a guess
            return dict(result, failed=True, msg="%s on %s: rc %s: %s; no node handed over or given back" % (
                " ".join(_drain.state_command(mode)), self._task.args["scheduler"], read.get("rc"), _said(read)))
        outcome, lines = self._hand_over(mode, resume, report, found, names, state, task_vars)
        _save(run_dir, outcome)
        failed = bool(outcome["errors"])
        return dict(result, changed=bool(outcome["done"]), failed=failed, drain=outcome, pyramid_scheduler_lines=lines,
                    msg=("; ".join(outcome["errors"]) if failed else lines[0][len("[scheduler] "):]))

    def _settings(self, nodes, task_vars):
        """(mode, resume, max fraction, {host: scheduler name}) from the GPU nodes' inventory, or the problem."""
        catalog, typed = _catalog.load_catalog(), {}
        for host in nodes:  # validated in pre-flight already; read here as each node's inventory says
            if host not in task_vars["hostvars"]:
                return "%s is in the report but not in the inventory: no node handed over" % host
            typed[host], errors = host_expectations(self._templar, task_vars["hostvars"][host], catalog, [],
                                                    SETTINGS + ("pyramid_scheduler_node_name",))
            if errors:
                return "%s: %s" % (host, "; ".join(errors))
        modes = {tuple(typed[host][name] for name in SETTINGS) for host in nodes}
        if len(modes) > 1:
            return ("%s differ between GPU nodes (%s): set them once for the pod (group_vars/gpu_nodes)" % (
                ", ".join(SETTINGS), sorted(modes)))
        mode, resume, fraction = modes.pop() if modes else ("none", False, 0.5)
        names = {host: _drain.scheduler_name(host, typed[host]["pyramid_scheduler_node_name"]) for host in nodes}
        twice = sorted({name for name in names.values() if list(names.values()).count(name) > 1})
        if twice and mode != "none":
            return ("two GPU nodes have the same scheduler name (%s): set pyramid_scheduler_node_name on them; no node "
                    "handed over" % ", ".join(twice))
        return mode, resume, fraction, names

    def _plan(self, result, run_dir, mode, resume, found, names):
        """Check mode: the commands a run would make, the state not read (nodes out for another reason would be left)."""
        commands = _drain.drain_commands(mode, found, names)
        lines = ["[scheduler] would hand %d node(s) to %s (but none that is out of service for another reason)" % (len(found), mode)]
        lines += ["[scheduler] %s: %s" % (names[host], reason) for host, (reason, _check) in sorted(found.items())]
        lines += ["[scheduler] would run: %s" % " ".join(argv) for argv, _group, _what in commands]
        if resume:
            lines.append("[scheduler] would read `%s` and give back the GO nodes the pyramid took out before" % " ".join(
                _drain.state_command(mode)))
        outcome = {"mode": mode, "check_mode": True, "drained": {names[h]: r for h, (r, _c) in found.items()}, "left": {},
                   "resumed": [], "commands": [argv for argv, _group, _what in commands], "done": [], "errors": []}
        _save(run_dir, outcome)
        return dict(result, drain=outcome, msg=lines[0][len("[scheduler] "):], pyramid_scheduler_lines=lines)

    def _hand_over(self, mode, resume, report, found, names, state, task_vars):
        """Drain what is ours to drain, give back what is ours to give back, every command run even when one fails."""
        left = {names[host]: state[names[host]]["reason"] for host in found
                if names[host] in state and state[names[host]]["out"] and not state[names[host]]["ours"]}
        unknown = sorted(names[host] for host in found if names[host] not in state)
        drain = {host: found[host] for host in found if names[host] in state and names[host] not in left}
        commands = _drain.drain_commands(mode, drain, names)
        drained = {names[host] for host in drain}
        back = [names[host] for host in _drain.go_nodes(report)
                if resume and state.get(names[host], {}).get("ours") and names[host] not in drained]
        commands += _drain.resume_commands(mode, back)
        done, errors = [], ["%s: not a node of the scheduler (pyramid_scheduler_node_name?)" % name for name in unknown]
        for argv, group, what in commands:
            ran = self._command(argv, task_vars)
            if ran.get("rc") == 0:
                done.append("%s %s" % (what, ",".join(group)))
            else:
                errors.append("%s failed (rc %s): %s" % (" ".join(argv), ran.get("rc"), _said(ran)))
        outcome = {"mode": mode, "check_mode": False, "drained": {names[h]: r for h, (r, _c) in drain.items()}, "left": left,
                   "resumed": back, "commands": [argv for argv, _group, _what in commands], "done": done, "errors": errors}
        lines = ["[scheduler] handed %d node(s) to %s, gave back %d" % (len(drain), mode, len(back))]
        lines += ["[scheduler] %s: %s" % (names[host], reason) for host, (reason, _check) in sorted(drain.items())]
        lines += ["[scheduler] %s left as it is, out of service for another reason: %s" % (name, why) for name, why in sorted(left.items())]
        lines += ["[scheduler] %s" % line for line in done + errors]
        return outcome, lines

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
