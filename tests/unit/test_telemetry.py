"""Layer 7 (telemetry) without a Prometheus: the layer's logic with a stand-in for the query, the
client against a closed port, the pyramid.prom export (and promtool where it is installed), and the
Grafana dashboard's queries against the catalog's signals and the export's metrics.

A real Prometheus scraping real exporters: tests/e2e/test_telemetry_prometheus.py."""

import json
import os
import re
import shutil
import socket
import subprocess

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import go_no_go as _report
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.telemetry import client as _client, export as _export
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import telemetry as _layer
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.telemetry import layer7_telemetry as table

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DASHBOARD = os.path.join(ROOT, "dashboards", "pyramid-golden-signals.json")
CATALOG = _catalog.load_catalog()
SIGNAL_LISTS = sorted(name for name in CATALOG["expectations"] if name.startswith("pyramid_telemetry_") and
                      CATALOG["expectations"][name]["type"] == "list")
URL = "http://127.0.0.1:9"  # discard: nothing answers HTTP there


def _expectations_of(overrides=None):
    def expectations_of(host, checks):
        names = _catalog.expectation_names(checks, CATALOG)
        values = dict((overrides or {}).get(host, {}))
        if checks[0]["device"] == "switch":
            values.setdefault("pyramid_switch_os", "eos")
        return _expectations.resolve(CATALOG, values, names)
    return expectations_of


def _answers(device, stale=(), missing=()):
    """A stand-in for client.query: every selector answered for ``device`` (and another device)."""
    def ask(url, promql, timeout):  # pylint: disable=unused-argument
        selector = promql[len("timestamp("):-1]
        series = []
        for name, label in ((device, "%s:9100" % device), ("other-node", "other-node:9100")):
            if selector in missing and name == device:
                continue
            age = 600 if selector in stale and name == device else 1
            series += [{"metric": {"instance": label, "device": rail}, "value": [table.NOW, str(table.NOW - age)]} for rail in table.RAILS]
        body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": series}})
        return {"status": "ok", "rc": 0, "stdout": body, "command": _client.shown(url, promql), "way": 0}
    return ask


def _run(tmp_path, ask, overrides=None, devices=None, results=None):
    for host, records in (results or {}).items():
        doc = {"host": host, "results": records, "facts": {}}
        _results.save(str(tmp_path), doc)
    devices = devices or {"gpu_node": ["node-001"]}
    summary = _layer.run(str(tmp_path), devices, CATALOG, _expectations_of(overrides), ask)
    found = {}
    for hosts in devices.values():
        for host in hosts:
            found.update({(host, r["check"]): r for r in _results.load(str(tmp_path), host)["results"] if r["layer"] == 7})
    return summary, found


def test_every_signal_fresh_passes_and_each_query_is_asked_once(tmp_path):
    asked = []
    answer = _answers("node-001")

    def ask(url, promql, timeout):
        asked.append(promql)
        return answer(url, promql, timeout)
    summary, found = _run(tmp_path, ask, {h: {"pyramid_prometheus_url": URL} for h in ("node-001", "node-002")},
                          {"gpu_node": ["node-001", "node-002"]})
    assert found[("node-001", "telemetry_signals")]["status"] == "PASS", found
    assert found[("node-002", "telemetry_signals")]["status"] == "FAIL"  # nothing labelled node-002
    assert found[("node-002", "telemetry_signals")]["actual"].startswith(
        "node-002: no series at all for it (instance=node-002 or node-002:<port>): not scraped, or under another name; "
        "GPU activity: missing DCGM_FI_PROF_GR_ENGINE_ACTIVE")
    assert len(asked) == len(set(asked)) == 11 and summary["queries"] == 11


def test_missing_and_stale_signals_fail_naming_device_and_signal(tmp_path):
    ask = _answers("node-001", stale=("node_infiniband_link_downed_total",), missing=("DCGM_FI_DEV_XID_ERRORS",))
    _summary, found = _run(tmp_path, ask, {"node-001": {"pyramid_prometheus_url": URL}})
    record = found[("node-001", "telemetry_signals")]
    assert record["status"] == "FAIL"
    assert "node-001: GPU health: missing DCGM_FI_DEV_XID_ERRORS" in record["actual"]
    assert "link errors: stale node_infiniband_link_downed_total (newest sample 600s old)" in record["actual"]
    assert record["go_back_to"].startswith("Layer 7: telemetry")


def test_the_device_label_and_name_are_the_inventorys(tmp_path):
    ask = _answers("gpu-a17")
    overrides = {"node-001": {"pyramid_prometheus_url": URL, "pyramid_telemetry_device": "gpu-a17"}}
    assert _run(tmp_path, ask, overrides)[1][("node-001", "telemetry_signals")]["status"] == "PASS"
    assert _layer.names("node-001:9100", "node-001") and _layer.names("node-001", "node-001")
    assert not _layer.names("node-0011:9100", "node-001") and not _layer.names("node-001:x", "node-001")
    assert not _layer.names(None, "node-001")


def test_prometheus_unreachable_is_an_error_naming_url_and_query(tmp_path):
    with socket.socket() as probe:  # a port nothing listens on: the connection is refused
        probe.bind(("127.0.0.1", 0))
        closed = "http://127.0.0.1:%d" % probe.getsockname()[1]
    _summary, found = _run(tmp_path, _client.query, {"node-001": {"pyramid_prometheus_url": closed, "pyramid_prometheus_timeout": 2}})
    record = found[("node-001", "telemetry_signals")]
    assert record["status"] == "ERROR"
    assert "Prometheus unreachable at %s/api/v1/query" % closed in record["actual"]
    assert "timestamp(DCGM_FI_PROF_GR_ENGINE_ACTIVE)" in record["actual"] + record["cause"]


def test_without_a_url_it_is_not_checked_never_pass(tmp_path):
    _summary, found = _run(tmp_path, _answers("node-001"))
    record = found[("node-001", "telemetry_signals")]
    assert record["status"] == "SKIP" and record["not_applicable"] and "no Prometheus URL" in record["actual"]
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001"]})
    row = next(row for row in report["checklist"] if row["row"] == "telemetry")
    assert row["status"] == "not_covered" and row["why_not"] == "no Prometheus URL (pyramid_prometheus_url)"


def test_required_telemetry_without_a_url_holds_the_device_back(tmp_path):
    _summary, found = _run(tmp_path, _answers("node-001"), {"node-001": {"pyramid_telemetry_required": True}})
    record = found[("node-001", "telemetry_signals")]
    assert record["status"] == "SKIP" and not record.get("not_applicable")


def test_a_device_stopped_below_is_not_climbed_to_layer_7(tmp_path):
    failed = {"host": "node-001", "layer": 0, "check": "iommu", "title": "t", "row": "iommu", "status": "FAIL",
              "expected": "e", "actual": "a", "command": "c", "cause": "x", "go_back_to": "y"}
    asked = []
    _summary, found = _run(tmp_path, lambda *args: asked.append(args), {"node-001": {"pyramid_prometheus_url": URL}},
                           results={"node-001": [failed]})
    record = found[("node-001", "telemetry_signals")]
    assert record["status"] == "SKIP" and record["actual"] == "not run: blocked at layer 0 (iommu)" and not asked


def test_switches_are_judged_on_their_signals(tmp_path):
    ask = _answers("leaf1-r0", missing=("ifInErrors",))
    _summary, found = _run(tmp_path, ask, {"leaf1-r0": {"pyramid_prometheus_url": URL}}, {"switch": ["leaf1-r0"]})
    record = found[("leaf1-r0", "switch_telemetry_signals")]
    assert record["status"] == "FAIL" and "leaf1-r0: link errors: missing ifInErrors" in record["actual"]


# --- pyramid.prom -----------------------------------------------------------------------------

def _report_of(tmp_path):
    doc = {"host": "node-001", "results": [], "facts": {
        "layer5": {"nccl_node": {"rows": [{"size": 1024, "oop_busbw": 350.5, "ip_busbw": 351.25}]}},
        "layer6": {"training_node": {"steps": [{"step": s, "step_time_ms": 200.0 + s} for s in range(1, 11)]}}}}
    weird = {"host": "node-001", "layer": 7, "check": "telemetry_signals", "title": 'say "hi"\\ back\nnow', "row": "telemetry",
             "status": "FAIL", "expected": "e", "actual": "a", "command": "c", "cause": "x", "go_back_to": "y"}
    doc["results"].append(weird)
    _results.save(str(tmp_path), doc)
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001"]})
    return report


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (\S+)$')


def test_the_export_is_the_textfile_format(tmp_path):
    report = _report_of(tmp_path)
    path = _export.write(report, ["node-001"])
    assert os.path.basename(path) == "pyramid.prom" and oct(os.stat(path).st_mode & 0o777) == "0o644"
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    families, seen = [], set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            families.append(line.split()[2])
        elif line.startswith("# TYPE "):
            assert line.split()[2] == families[-1] and line.split()[3] in ("gauge", "counter", "untyped")
        else:
            match = SAMPLE.match(line)
            assert match, line
            assert match.group(1) == families[-1], line  # each family's samples follow its HELP/TYPE
            float(match.group(4))
            assert line not in seen
            seen.add(line)
    assert len(families) == len(set(families)) and set(families) <= set(_export.METRICS)
    assert {kind for kind, _help in _export.METRICS.values()} == {"gauge"}  # what the collector writes every family as
    # the series are as before; prometheus_client writes each sample's labels in name order
    assert 'pyramid_check_status{check="telemetry_signals",device="node-001",device_type="gpu_node",layer="7",status="FAIL"} 1.0' in text
    assert "pyramid_nccl_busbw_gbytes_per_second{device=\"node-001\"} 351.25" in text
    assert "pyramid_train_step_seconds{device=\"node-001\"} 0.208" in text
    assert 'pyramid_pod_go 0.0' in text
    # a label value with a double quote, a backslash and a line feed, escaped as the format says (prometheus_client's)
    odd = _export.text(dict(report, run_dir=os.path.join(str(tmp_path), 'say "hi"\\ back\nnow')))
    assert 'pyramid_run_info{run="say \\"hi\\"\\\\ back\\nnow",verdict="NO-GO"} 1.0' in odd


def test_without_prometheus_client_the_report_stands_and_the_metrics_file_is_said_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(_export, "PROMETHEUS_CLIENT_IMPORT_ERROR", "No module named 'prometheus_client'")
    with pytest.raises(_export.ExportUnavailable, match="pyramid.prom not written: prometheus_client is not installed"):
        _export.write(_report_of(tmp_path), ["node-001"])
    assert not os.path.exists(os.path.join(str(tmp_path), "pyramid.prom"))


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (Debian package prometheus)")
def test_promtool_accepts_the_export(tmp_path):
    path = _export.write(_report_of(tmp_path), ["node-001"])
    with open(path, "rb") as handle:
        checked = subprocess.run(["promtool", "check", "metrics"], stdin=handle, capture_output=True, timeout=30, check=False)
    # promtool lints too: an exit code of 3 is lint findings only, 1 a format error
    assert checked.returncode == 0, checked.stdout + checked.stderr


# --- the Grafana dashboard ----------------------------------------------------------------------

KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "inf", "nan"}


def metric_names(expr):
    """Metric names an expression reads: identifiers outside label matchers, grouping clauses, ranges
    and strings that are not a function call, a keyword or a number."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    names = set()
    for match in re.finditer(r"(?<![\w$.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", text):
        if not match.group(2) and match.group(1).lower() not in KEYWORDS:
            names.add(match.group(1))
    return names


def _dashboard():
    with open(DASHBOARD, encoding="utf-8") as handle:
        return json.load(handle)


def _exprs(dashboard):
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            yield panel["title"], target["expr"]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            yield variable["name"], re.sub(r"^label_values\((.*), *\w+\)$", r"\1", variable["definition"])


def test_the_dashboard_reads_only_the_catalogs_signals_and_the_export():
    known = set(_export.METRICS)
    for name in SIGNAL_LISTS:
        known.update(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", selector).group(0) for selector in CATALOG["expectations"][name]["default"])
    dashboard = _dashboard()
    read = set()
    for title, expr in _exprs(dashboard):
        names = metric_names(expr)
        assert names, (title, expr)
        assert names <= known, (title, sorted(names - known))
        read |= names
    assert read >= known - {"pyramid_run_info"}, sorted(known - read)  # every signal and result is on a panel
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(dashboard["panels"])
    titles = [panel["title"] for panel in dashboard["panels"] if panel["type"] == "row"]
    assert [title.split(".")[0] for title in titles[:5]] == ["1", "2", "3", "4", "5"]


def test_the_expression_reader_finds_metric_names():
    assert metric_names('sum by (instance, device) (rate(node_x_total{instance=~"$node"}[1m])) * 8') == {"node_x_total"}
    assert metric_names('time() - max(pyramid_run_timestamp_seconds)') == {"pyramid_run_timestamp_seconds"}
    assert metric_names('a and on(instance) b offset 5m') == {"a", "b"}


def test_the_client_names_url_query_and_what_went_wrong():
    """A Prometheus behind a proxy that answers 503 in plain text, and one that answers JSON."""
    import http.server  # pylint: disable=import-outside-toplevel
    import threading  # pylint: disable=import-outside-toplevel

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            if "up" in self.path:
                body, code = b'{"status":"success","data":{"resultType":"vector","result":[]}}', 200
            else:
                body, code = b"upstream connect error", 503
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            return

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/" % server.server_address[1]
    try:
        failed = _client.query(url, "timestamp(x)", 5)
        answered = _client.query(url, "up", 5)
    finally:
        server.shutdown()
        server.server_close()
    assert failed["status"] == "failed" and failed["command"] == "GET %sapi/v1/query?query=timestamp(x)" % url
    assert failed["msg"] == "Prometheus API error at %sapi/v1/query: HTTP 503: upstream connect error (query timestamp(x))" % url
    assert answered["status"] == "ok" and json.loads(answered["stdout"])["status"] == "success"
