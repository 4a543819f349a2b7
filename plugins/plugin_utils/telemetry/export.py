# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The run's results as Prometheus metrics, in node_exporter's textfile collector format (pyramid.prom
next to report.json), so operators see validation history beside the golden signals.

Copy (or link) the file into node_exporter's --collector.textfile.directory on the controller: the
textfile collector reads every *.prom there at each scrape. The format is the text exposition
format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/): one HELP and one TYPE
line per family, then its samples; no timestamps (the textfile collector refuses them); label values
escape backslash, double quote and line feed. Every family's name is in METRICS: the Grafana
dashboard's queries are checked against it (tests/unit/test_telemetry_export.py).
"""

from __future__ import annotations

import datetime
import os
import statistics
import tempfile

from ..core import results as _results
from ..core.model import STATUSES

FILE = "pyramid.prom"
METRICS = {  # name -> (type, help)
    "pyramid_run_info": ("gauge", "The last validation run: its directory and verdict as labels, always 1."),
    "pyramid_run_timestamp_seconds": ("gauge", "When the last validation run wrote its report (Unix time)."),
    "pyramid_pod_go": ("gauge", "1 when the last run's pod verdict was GO, else 0."),
    "pyramid_devices": ("gauge", "Devices of the last run by verdict."),
    "pyramid_device_go": ("gauge", "1 when the device was GO in the last run, else 0."),
    "pyramid_device_stopped_at_layer": ("gauge", "The lowest layer the device failed in the last run (absent when it failed none)."),
    "pyramid_check_status": ("gauge", "1 for the status of each check of each device in the last run, 0 for the other statuses."),
    "pyramid_checklist_row_status": ("gauge", "1 for the status of each go/no-go checklist row in the last run (pass, fail, not_covered)."),
    "pyramid_nccl_busbw_gbytes_per_second": ("gauge", "Round-1 all-reduce bus bandwidth of the node at the largest message size (GB/s)."),
    "pyramid_train_step_seconds": ("gauge", "Median training step time of the node after warm-up (seconds)."),
}
ROW_STATUSES = ("pass", "fail", "not_covered")


def escape(value):
    """A label value in the text format: backslash, double quote and line feed escaped."""
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _sample(name, labels, value):
    inside = ",".join('%s="%s"' % (key, escape(item)) for key, item in labels)
    return "%s{%s} %s" % (name, inside, repr(float(value)) if isinstance(value, float) else int(value))


def _timestamp(text):
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except (TypeError, ValueError):
        return None


def samples(report, figures):
    """{metric: [sample line]} for one report; ``figures``: device -> {"busbw": GB/s, "step_seconds": s}."""
    out = {name: [] for name in METRICS}
    run = os.path.basename(os.path.normpath(report["run_dir"]))
    out["pyramid_run_info"].append(_sample("pyramid_run_info", [("run", run), ("verdict", report["verdict"])], 1))
    stamp = _timestamp(report.get("generated_at"))
    if stamp is not None:
        out["pyramid_run_timestamp_seconds"].append("pyramid_run_timestamp_seconds %r" % stamp)
    out["pyramid_pod_go"].append("pyramid_pod_go %d" % (report["verdict"] == "GO"))
    for verdict in ("GO", "NO-GO"):
        count = sum(1 for info in report["hosts"].values() if info["verdict"] == verdict)
        out["pyramid_devices"].append(_sample("pyramid_devices", [("verdict", verdict)], count))
    for device, info in sorted(report["hosts"].items()):
        kind = [("device", device), ("device_type", info["device"])]
        out["pyramid_device_go"].append(_sample("pyramid_device_go", kind, info["verdict"] == "GO"))
        if info["stopped_at"] is not None:
            out["pyramid_device_stopped_at_layer"].append(_sample("pyramid_device_stopped_at_layer", kind, info["stopped_at"]))
        for record in info["checks"]:
            for status in STATUSES:
                labels = kind + [("layer", record["layer"]), ("check", record["check"]), ("status", status)]
                out["pyramid_check_status"].append(_sample("pyramid_check_status", labels, record["status"] == status))
        for name, key in (("pyramid_nccl_busbw_gbytes_per_second", "busbw"), ("pyramid_train_step_seconds", "step_seconds")):
            if (figures.get(device) or {}).get(key) is not None:
                out[name].append(_sample(name, [("device", device)], float(figures[device][key])))
    for row in report["checklist"]:
        for status in ROW_STATUSES:
            labels = [("row", row["row"]), ("layer", row["layer"]), ("title", row["title"]), ("status", status)]
            out["pyramid_checklist_row_status"].append(_sample("pyramid_checklist_row_status", labels, row["status"] == status))
    return out


def text(report, figures=None):
    lines = []
    for name, found in samples(report, figures or {}).items():
        if found:  # a family without samples is left out: HELP/TYPE alone say nothing
            kind, helptext = METRICS[name]
            lines += ["# HELP %s %s" % (name, helptext.replace("\\", "\\\\").replace("\n", "\\n")), "# TYPE %s %s" % (name, kind)]
            lines += found
    return "\n".join(lines) + "\n"


def device_figures(run_dir, hosts):
    """device -> {"busbw", "step_seconds"}: what Layers 5 and 6 measured on each node (its facts)."""
    figures = {}
    for host in hosts:
        facts = _results.load(run_dir, host).get("facts", {})
        found = {}
        node = facts.get("layer5", {}).get("nccl_node") or {}
        if isinstance(node, dict) and node.get("rows"):
            row = node["rows"][-1]
            found["busbw"] = max(row["oop_busbw"], row["ip_busbw"])
        training = facts.get("layer6", {}).get("training_node") or {}
        warmup = _results.load(run_dir, host).get("expect", {}).get("pyramid_train_warmup_steps", 5)
        times = [step["step_time_ms"] for step in training.get("steps", []) if step["step"] > warmup] if isinstance(training, dict) else []
        if times:
            found["step_seconds"] = statistics.median(times) / 1000.0
        if found:
            figures[host] = found
    return figures


def write(report, hosts):
    """Write pyramid.prom into the report's run directory, atomically (the textfile collector may read it any time)."""
    run_dir = report["run_dir"]
    body = text(report, device_figures(run_dir, hosts))
    handle, tmp = tempfile.mkstemp(dir=run_dir, suffix=".prom.tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(body)
    os.chmod(tmp, 0o644)  # node_exporter runs as its own user: a textfile it cannot read is no metric
    path = os.path.join(run_dir, FILE)
    os.replace(tmp, path)
    return path
