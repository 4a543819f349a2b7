# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the go/no-go report of a run from the devices' results files (logic: report/go_no_go.py, report/outcome.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import files as _files, go_no_go as _report
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report.outcome import outcome, write_baseline
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import interrupted as _interrupted
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import resume as _resume
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
        if _resume.read_marker(self._task.args["run_dir"]):  # -e pyramid_resume: which layers came from which run
            report["resumed"] = _resume.read_marker(self._task.args["run_dir"])
        for warning in _files.write(report):  # report.html not drawn: said, the other files stand
            result.setdefault("warnings", []).append(warning)
        hosts = [host for group in devices.values() for host in group]
        try:
            metrics = _export.write(report, hosts)  # pyramid.prom: the results as textfile metrics (docs/telemetry.md)
        except _export.ExportUnavailable as exc:  # the report stands; the metrics file is said to be missing, and why
            metrics = None
            result.setdefault("warnings", []).append(str(exc))
        baseline = write_baseline(report, hosts)  # what the GO nodes measured: the next runs' expectations
        checklist = _report.checklist_text(report)
        # the progress callback prints pyramid_checklist_lines as plain lines, whatever the stdout callback's format
        return dict(result, changed=False, verdict=report["verdict"], summary=report["summary"],  # reports change no device
                    run_dir=report["run_dir"], checklist=checklist, pyramid_checklist_lines=checklist.splitlines(),
                    baseline=baseline, metrics=metrics, **outcome(report, baseline))
