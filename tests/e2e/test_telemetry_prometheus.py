"""Layer 7 against a real Prometheus (Debian's `prometheus` package) on loopback, scraping real
exporter endpoints: the twin's exporter (twin/pyramid_twin/exporter.py) prints what dcgm-exporter,
node_exporter and snmp_exporter print, per device. Among the devices, one lacks its GPU series (its
dcgm-exporter is not deployed), one serves samples 90 s old (stale), one lacks a rail.

Needs no twin (no sshd, no root): 127.0.0.1 only, free ports, a temporary storage directory. Every
server it starts it stops; every wait is bounded (DEADLINE), so a Prometheus that never scrapes is a
failure, not a hang. The query and judge path is the production one (run/telemetry.py, client.py).
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import go_no_go as _report
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.telemetry import client as _client, export as _export
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import telemetry as _layer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "twin"))
from pyramid_twin import exporter  # noqa: E402  pylint: disable=wrong-import-position

pytestmark = [pytest.mark.slow]
PROMETHEUS = shutil.which("prometheus")
DEADLINE = 60  # seconds for Prometheus to start and scrape every target
STALE = 90  # seconds old: past the 30 s window below, inside Prometheus' 5 min lookback
CATALOG = _catalog.load_catalog()
DEVICES = [
    exporter.node("node-001"),
    exporter.node("node-002"),
    exporter.node("node-003", missing=[name for name, _kind, _help in exporter.DCGM]),  # no dcgm-exporter
    exporter.node("node-004", stale_seconds=STALE),
    exporter.node("node-005", rails_missing=["mlx5_6"]),
    exporter.switch("leaf1-r0"),
    exporter.switch("spine-01", missing=["ifInErrors", "ifOperStatus"]),
]


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _query(url, promql):
    with urllib.request.urlopen("%s/api/v1/query?%s" % (url, urllib.parse.urlencode({"query": promql})), timeout=5) as answer:
        return json.load(answer)["data"]["result"]


def _wait_for_scrapes(url, process, targets):
    """Until every target was scraped up (twice: the staleness window needs a second sample time)."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail("prometheus exited with %s" % process.returncode)
        try:
            up = _query(url, "count_over_time(up[1m]) >= 2 and up == 1")
            if len(up) == targets:
                return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail("prometheus at %s did not scrape the %d targets within %ds" % (url, targets, DEADLINE))


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    if PROMETHEUS is None:
        pytest.skip("no prometheus binary (Debian package prometheus; make setup installs it)")
    work = tmp_path_factory.mktemp("prometheus")
    server = exporter.serve(DEVICES)
    config = work / "prometheus.yml"
    config.write_text(exporter.config("127.0.0.1:%d" % server.server_address[1], DEVICES, interval="1s"))
    url = "http://127.0.0.1:%d" % _free_port()
    with open(work / "prometheus.log", "w", encoding="utf-8") as log:
        process = subprocess.Popen([PROMETHEUS, "--config.file=%s" % config, "--storage.tsdb.path=%s" % (work / "data"),
                                    "--web.listen-address=%s" % url[len("http://"):], "--log.level=warn"],
                                   stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for_scrapes(url, process, len(DEVICES))
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        server.shutdown()
        server.server_close()


def _expectations_of(url, **overrides):
    def expectations_of(host, checks):
        values = dict({"pyramid_prometheus_url": url, "pyramid_telemetry_max_age_seconds": 30}, **overrides)
        if checks[0]["device"] == "switch":
            values["pyramid_switch_os"] = "sonic"
        return _expectations.resolve(CATALOG, values, _catalog.expectation_names(checks, CATALOG))
    return expectations_of


def _judged(run_dir, url, **overrides):
    devices = {"gpu_node": [d["name"] for d in DEVICES if d["kind"] == "gpu_node"],
               "switch": [d["name"] for d in DEVICES if d["kind"] == "switch"]}
    summary = _layer.run(str(run_dir), devices, CATALOG, _expectations_of(url, **overrides), _client.query)
    records = {}
    for hosts in devices.values():
        for host in hosts:
            records.update({host: r for r in _results.load(str(run_dir), host)["results"] if r["layer"] == 7})
    return summary, records, devices


def test_each_device_is_judged_on_its_own_series(prometheus, tmp_path):
    summary, records, _devices = _judged(tmp_path, prometheus)
    status = {host: record["status"] for host, record in records.items()}
    assert status == {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL", "node-004": "FAIL", "node-005": "FAIL",
                      "leaf1-r0": "PASS", "spine-01": "FAIL"}, {h: r["actual"] for h, r in records.items()}
    assert "node-003: GPU activity: missing DCGM_FI_PROF_GR_ENGINE_ACTIVE" in records["node-003"]["actual"]
    assert "GPU health: missing DCGM_FI_DEV_XID_ERRORS" in records["node-003"]["actual"]
    assert "node-004: " in records["node-004"]["actual"] and "stale DCGM_FI_PROF_GR_ENGINE_ACTIVE (newest sample 9" in records["node-004"]["actual"]
    assert "per-rail RDMA throughput: missing node_infiniband_port_data_received_bytes_total for mlx5_6" in records["node-005"]["actual"]
    assert "spine-01: link errors: missing ifInErrors" in records["spine-01"]["actual"]
    assert summary["queries"] == 16  # 11 node selectors, 5 switch selectors: each asked once for the whole run


def test_the_report_row_reads_layer_7(prometheus, tmp_path):
    _summary, _records, devices = _judged(tmp_path, prometheus)
    report = _report.build(CATALOG, str(tmp_path), devices)
    row = next(row for row in report["checklist"] if row["row"] == "telemetry")
    assert row["status"] == "fail" and row["failing_hosts"] == ["node-003", "node-004", "node-005", "spine-01"]
    assert "[✗] L7  Telemetry plumbed  FAILING: node-003, node-004, node-005, spine-01" in _report.checklist_text(report)
    path = _export.write(report, devices["gpu_node"] + devices["switch"])
    with open(path, encoding="utf-8") as handle:
        # prometheus_client writes a sample's labels in name order: check first, status last
        assert re.search(r'pyramid_check_status\{check="telemetry_signals",[^}]*,status="FAIL"\} 1\.0', handle.read())


def test_an_api_error_is_an_error_naming_url_and_query(prometheus, tmp_path):
    # a selector the catalog's grammar lets through but PromQL refuses: Prometheus answers HTTP 400 bad_data
    _summary, records, _devices = _judged(tmp_path, prometheus, pyramid_telemetry_gpu_health=["DCGM_FI_DEV_XID_ERRORS{gpu}"])
    record = records["node-001"]
    assert record["status"] == "ERROR", record
    said = record["actual"] + " " + record["cause"]
    assert "HTTP 400" in said and "bad_data" in said and prometheus + "/api/v1/query" in said
    assert "timestamp(DCGM_FI_DEV_XID_ERRORS{gpu})" in said


def test_prometheus_gone_is_an_error_naming_the_url(tmp_path):
    gone = "http://127.0.0.1:%d" % _free_port()
    _summary, records, _devices = _judged(tmp_path, gone, pyramid_prometheus_timeout=2)
    assert {record["status"] for record in records.values()} == {"ERROR"}
    assert "Prometheus unreachable at %s/api/v1/query" % gone in records["leaf1-r0"]["actual"] + records["leaf1-r0"]["cause"]
