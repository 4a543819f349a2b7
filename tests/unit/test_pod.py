"""run/pod.py: a layer's pod checks judged from the facts each device's layer kept in its results file (what the
action plugin gpufabric.pyramid.judge_pod runs), on a real capture of the built-in NCCL benchmark."""

import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine, layer as _layer, pod as _pod

CATALOG = _catalog.load_catalog()
BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "nccl_tests", "h100_1gpu_builtin_bench_real.raw")


def _run_layer5(run_dir, host, expect, output):
    def collect(planned):
        return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0, "way": 1, "stdout": output, "command": "bench"}
                                         for item in planned}), None
    doc = {"host": host, "results": [], "facts": {}}
    checks = [c for c in _catalog.checks_at(CATALOG, 5, "gpu_node") if c["scope"] != "fabric"]
    _layer.run(host, 5, checks, CATALOG, expect, doc, collect, wait=lambda doc, seconds: 0.0)
    _results.save(run_dir, doc)


def test_the_pod_checks_are_recorded_for_every_judged_host_and_a_blocked_one_is_left_alone(tmp_path):
    run_dir = str(tmp_path)
    expect, errors = _expectations.resolve(CATALOG, {})  # 8 GPUs a node expected: the 1-GPU capture falls short
    assert not errors, errors
    with open(BENCH, encoding="utf-8") as handle:
        output = handle.read()
    for host in ("node-001", "node-002"):
        _run_layer5(run_dir, host, expect, output)
    _results.save(run_dir, {"host": "node-003", "results": [{"layer": 0, "check": "iommu", "status": "FAIL"}], "facts": {}})
    judged, not_passing = _pod.judge_layer(CATALOG, run_dir, 5, ["node-001", "node-002", "node-003"])
    assert judged == 2
    pod = [c["id"] for c in _catalog.checks_at(CATALOG, 5, "gpu_node") if c["scope"] == "pod"]
    for host in ("node-001", "node-002"):
        records = {r["check"]: r for r in _results.load(run_dir, host)["results"]}
        assert set(pod) <= set(records) and all(records[check]["command"] for check in pod)
        assert all(records[check]["status"] == "PASS" or "%s=%s" % (host, records[check]["status"]) in not_passing[check] for check in pod)
    assert not any(r["check"] in pod for r in _results.load(run_dir, "node-003")["results"])
    assert sorted(not_passing["nccl_node_busbw"]) == ["node-001=FAIL", "node-002=FAIL"], not_passing
