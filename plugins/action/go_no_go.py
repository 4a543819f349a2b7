# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the go/no-go report of a run from the devices' results files."""

from __future__ import annotations

import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import baseline as _baseline, files as _files, go_no_go as _report
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import interrupted as _interrupted
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.telemetry import export as _export


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("run_dir", "devices", "pod_order"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        devices = {device: list(hosts or []) for device, hosts in (self._task.args.get("devices") or {}).items()}
        report = _report.build(_catalog.load_catalog(), self._task.args["run_dir"], devices,
                               pod_order=list(self._task.args.get("pod_order") or []))
        # a run that was interrupted stays so when its directory is reported again (playbooks/report.yml)
        report = _interrupted.mark(report, _interrupted.read_marker(self._task.args["run_dir"]))
        for warning in _files.write(report):  # report.html not drawn: said, the other files stand
            result.setdefault("warnings", []).append(warning)
        baseline = None
        hosts = [host for group in devices.values() for host in group]
        try:
            metrics = _export.write(report, hosts)  # pyramid.prom: the results as textfile metrics (docs/telemetry.md)
        except _export.ExportUnavailable as exc:  # the report stands; the metrics file is said to be missing, and why
            metrics = None
            result.setdefault("warnings", []).append(str(exc))
        values, counted = _baseline.figures(report["run_dir"], hosts)
        if values:  # what the GO nodes measured, ready to become the next runs' expectations
            baseline = os.path.join(report["run_dir"], "baseline.yml")
            with open(baseline, "w", encoding="utf-8") as handle:
                handle.write(_baseline.text(values, counted, os.path.basename(report["run_dir"]), report["verdict"],
                                            across_nodes=_baseline.pod_collective_nodes(report["run_dir"], hosts)))
        checklist = _report.checklist_text(report)
        # the progress callback prints pyramid_checklist_lines as plain lines, whatever the stdout callback's format
        return dict(result, changed=False, verdict=report["verdict"], summary=report["summary"],  # reports change no device
                    run_dir=report["run_dir"], checklist=checklist, pyramid_checklist_lines=checklist.splitlines(),
                    baseline=baseline, metrics=metrics, **outcome(report, baseline))


def outcome(report, baseline):
    """Who failed, who was blocked, where each stopped, why each device is not GO and where the reports are: for
    set_stats (AWX)."""
    failing, blocked = [], []
    for host, info in sorted(report["hosts"].items()):
        statuses = {record["status"] for record in info["checks"]}
        if statuses & {"FAIL", "ERROR"}:
            failing.append(host)
        elif "BLOCKED" in statuses:  # not failing on its own: a switch in its path failed
            blocked.append(host)
    files = {name: os.path.join(report["run_dir"], name) for name in _files.NAMES + ("pyramid.prom",)}
    files = {name: path for name, path in files.items() if os.path.exists(path)}  # pyramid.prom needs prometheus_client
    if baseline:
        files["baseline.yml"] = baseline
    return {"failing_hosts": failing, "blocked_hosts": blocked, "reports": files,
            # every device not GO with its cause, those NO-GO with no finding of their own too (a check not proven)
            "causes": _report.causes(report),
            "unchecked_rows": [row["row"] for row in report.get("unchecked_rows") or []],
            "waived_rows": {row["row"]: row["reason"] for row in report.get("waived_rows") or []},
            "stopped_at": {host: info["stopped_at"] for host, info in sorted(report["hosts"].items())
                           if info["stopped_at"] is not None}}
