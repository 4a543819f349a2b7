# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the report task hands on beside the report files (the gpufabric.pyramid.go_no_go action): the GO nodes'
baseline.yml, and the run's outcome for set_stats (AWX): who failed, who was blocked, why, and where the files are."""

from __future__ import annotations

import os

from . import baseline as _baseline, files as _files, go_no_go as _report


def write_baseline(report, hosts):
    """baseline.yml in the run directory from what the GO nodes measured, ready to become the next runs' expectations;
    its path, or None where no GO node measured anything."""
    values, counted = _baseline.figures(report["run_dir"], hosts)
    if not values:
        return None
    path = os.path.join(report["run_dir"], "baseline.yml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(_baseline.text(values, counted, os.path.basename(report["run_dir"]), report["verdict"],
                                    across_nodes=_baseline.pod_collective_nodes(report["run_dir"], hosts)))
    return path


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
