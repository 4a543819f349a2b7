# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The run's results as Prometheus metrics, in node_exporter's textfile collector format (pyramid.prom
next to report.json), so operators see validation history beside the golden signals.

Copy (or link) the file into node_exporter's --collector.textfile.directory on the controller: the
textfile collector reads every *.prom there at each scrape. The text is prometheus_client's (the Prometheus
project's own Python client library): the text exposition format 0.0.4
(https://prometheus.io/docs/instrumenting/exposition_formats/), one HELP and one TYPE line per family, then its
samples, no timestamps (the textfile collector refuses them), label values escaped by the library. Every family's
name is in METRICS: the Grafana dashboard's queries are checked against it (tests/unit/test_telemetry.py).
"""

from __future__ import annotations

import datetime
import os
import statistics
import tempfile

try:
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.core import GaugeMetricFamily
except ImportError as exc:  # a controller dependency (requirements.txt, meta/ee-requirements.txt): said by write()
    CollectorRegistry = generate_latest = GaugeMetricFamily = None
    PROMETHEUS_CLIENT_IMPORT_ERROR = str(exc)
else:
    PROMETHEUS_CLIENT_IMPORT_ERROR = None

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
    "pyramid_checklist_row_status": ("gauge", "1 for the status of each go/no-go checklist row in the last run (pass, fail, not_run, not_covered)."),
    "pyramid_nccl_busbw_gbytes_per_second": ("gauge", "Round-1 all-reduce bus bandwidth of the node at the largest message size (GB/s)."),
    "pyramid_train_step_seconds": ("gauge", "Median training step time of the node after warm-up (seconds)."),
}
ROW_STATUSES = ("pass", "fail", "not_run", "not_covered")


def _timestamp(text):
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except (TypeError, ValueError):
        return None


def samples(report, figures):
    """{metric: [(labels, value)]} for one report, labels a list of (name, value) in the family's order;
    ``figures``: device -> {"busbw": GB/s, "step_seconds": s}."""
    out = {name: [] for name in METRICS}
    run = os.path.basename(os.path.normpath(report["run_dir"]))
    out["pyramid_run_info"].append(([("run", run), ("verdict", report["verdict"])], 1))
    stamp = _timestamp(report.get("generated_at"))
    if stamp is not None:
        out["pyramid_run_timestamp_seconds"].append(([], stamp))
    out["pyramid_pod_go"].append(([], int(report["verdict"] == "GO")))
    for verdict in ("GO", "NO-GO"):
        count = sum(1 for info in report["hosts"].values() if info["verdict"] == verdict)
        out["pyramid_devices"].append(([("verdict", verdict)], count))
    for device, info in sorted(report["hosts"].items()):
        kind = [("device", device), ("device_type", info["device"])]
        out["pyramid_device_go"].append((kind, int(info["verdict"] == "GO")))
        if info["stopped_at"] is not None:
            out["pyramid_device_stopped_at_layer"].append((kind, info["stopped_at"]))
        for record in info["checks"]:
            for status in STATUSES:
                labels = kind + [("layer", record["layer"]), ("check", record["check"]), ("status", status)]
                out["pyramid_check_status"].append((labels, int(record["status"] == status)))
        for name, key in (("pyramid_nccl_busbw_gbytes_per_second", "busbw"), ("pyramid_train_step_seconds", "step_seconds")):
            if (figures.get(device) or {}).get(key) is not None:
                out[name].append(([("device", device)], float(figures[device][key])))
    for row in report["checklist"]:
        for status in ROW_STATUSES:
            labels = [("row", row["row"]), ("layer", row["layer"]), ("title", row["title"]), ("status", status)]
            out["pyramid_checklist_row_status"].append((labels, int(row["status"] == status)))
    return out


class ExportUnavailable(RuntimeError):
    """The metrics file cannot be written on this controller (its library is missing): the report stands without it."""


class _Families:
    """A prometheus_client collector of one report's families: a family without samples is left out (HELP and TYPE
    alone say nothing)."""

    def __init__(self, found):
        self._found = found

    def collect(self):
        for name, found in self._found.items():
            if not found:
                continue
            _kind, helptext = METRICS[name]  # every family of METRICS is a gauge: a value as the last run left it
            family = GaugeMetricFamily(name, helptext, labels=[key for key, _value in found[0][0]])
            for labels, value in found:
                family.add_metric([str(item) for _key, item in labels], value)
            yield family


def text(report, figures=None):
    """The report's metrics in the text exposition format, written by prometheus_client."""
    if PROMETHEUS_CLIENT_IMPORT_ERROR:
        raise ExportUnavailable("pyramid.prom not written: prometheus_client is not installed on the controller (%s); "
                                "pip install prometheus-client (requirements.txt)" % PROMETHEUS_CLIENT_IMPORT_ERROR)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(samples(report, figures or {})))
    return generate_latest(registry).decode("utf-8")


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
    # not prometheus_client's write_to_textfile: its temporary file takes the umask's mode, and under a strict umask
    # (0600) node_exporter, running as its own user, could not read what it renames into place
    handle, tmp = tempfile.mkstemp(dir=run_dir, suffix=".prom.tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(body)
    os.chmod(tmp, 0o644)  # node_exporter runs as its own user: a textfile it cannot read is no metric
    path = os.path.join(run_dir, FILE)
    os.replace(tmp, path)
    return path
