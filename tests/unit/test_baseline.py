"""baseline.yml: the medians of the GO nodes, as the inventory variables later runs are judged against."""

import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import baseline as _baseline
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results


def device(run_dir, host, status, busbw, step_ms):
    rows = [{"size": 1 << 30, "oop_busbw": busbw - 5, "ip_busbw": busbw},
            {"size": 4 << 30, "oop_busbw": busbw, "ip_busbw": busbw - 1}]
    steps = [{"step": s, "rank": 0, "step_time_ms": step_ms * (3 if s == 1 else 1)} for s in range(1, 11)]
    _results.save(run_dir, {"host": host, "results": [{"layer": 0, "check": "iommu", "status": status}],
                            "facts": {"layer5": {"nccl_node": {"rows": rows}}, "layer6": {"training_node": {"steps": steps}}},
                            "expect": {"pyramid_train_warmup_steps": 2}})


def test_medians_of_the_go_nodes_only(tmp_path):
    run_dir = str(tmp_path)
    device(run_dir, "n1", "PASS", 340.0, 850.0)
    device(run_dir, "n2", "PASS", 350.0, 870.0)
    device(run_dir, "n3", "PASS", 360.0, 860.0)
    device(run_dir, "n4", "FAIL", 100.0, 2000.0)  # NO-GO: not a baseline
    values, counted = _baseline.figures(run_dir, ["n1", "n2", "n3", "n4"])
    assert counted == 3
    assert values == {"pyramid_nccl_node_busbw": {str(4 << 30): 350.0}, "pyramid_train_step_ms_baseline": 860.0}
    text = _baseline.text(values, counted, "20261123T000000Z-abc", "NO-GO")
    assert "run 20261123T000000Z-abc (pod verdict NO-GO), on the 3 GO nodes" in text
    assert yaml.safe_load(text) == values


def test_no_go_node_no_baseline(tmp_path):
    device(str(tmp_path), "n1", "ERROR", 340.0, 850.0)
    assert _baseline.figures(str(tmp_path), ["n1", "missing"]) == ({}, 0)


def test_a_go_node_with_a_not_applicable_skip_counts(tmp_path):
    """GO is nothing failed, errored or blocked: a SKIP (Layer 7 without a Prometheus URL) does not keep
    a GO node's figures out of the baseline, while a blocked node stays out."""
    run_dir = str(tmp_path)
    device(run_dir, "n1", "PASS", 350.0, 860.0)
    doc = _results.load(run_dir, "n1")
    doc["results"].append({"layer": 7, "check": "telemetry_signals", "status": "SKIP"})
    _results.save(run_dir, doc)
    device(run_dir, "n2", "BLOCKED", 100.0, 2000.0)
    values, counted = _baseline.figures(run_dir, ["n1", "n2"])
    assert counted == 1 and values["pyramid_train_step_ms_baseline"] == 860.0


def test_the_other_collectives_figures_are_kept_by_collective(tmp_path):
    """issue 38: a node validated alone later (--limit) is judged on every collective against the pod's figures."""
    run_dir = str(tmp_path)
    for host, busbw in (("n1", 300.0), ("n2", 320.0)):
        device(run_dir, host, "PASS", 350.0, 860.0)
        doc = _results.load(run_dir, host)
        doc["facts"]["layer5"]["nccl_node_alltoall"] = {"rows": [{"size": 4 << 30, "oop_busbw": busbw, "ip_busbw": busbw - 9}]}
        _results.save(run_dir, doc)
    values, _counted = _baseline.figures(run_dir, ["n1", "n2"])
    assert values["pyramid_nccl_collective_busbw"] == {"alltoall": {str(4 << 30): 310.0}}
    # what it writes, the inventory takes: pre-flight validates the tables of pyramid_nccl_collective_busbw
    resolved, errors = _expectations.resolve(_catalog.load_catalog(), yaml.safe_load(_baseline.text(values, 2, "r", "GO")))
    assert not errors and resolved["pyramid_nccl_collective_busbw"] == {"alltoall": {str(4 << 30): "310.0"}}
    _resolved, errors = _expectations.resolve(_catalog.load_catalog(), {"pyramid_nccl_collective_busbw": {"all_to_all": {"8": 1}}})
    assert errors == ["pyramid_nccl_collective_busbw: key 'all_to_all' is none of all_gather, reduce_scatter, alltoall, sendrecv; "
                      "did you mean alltoall?"]


def test_the_pod_collectives_figures_come_from_the_passing_runs_across_the_pod(tmp_path):
    """issue 38: the all-gather and reduce-scatter across the pod are judged only where pyramid_nccl_pod_collective_busbw
    is declared; a GO run offers the figure it measured, taken from the passing records' detail (never a failed run's)."""
    run_dir = str(tmp_path)
    size = str(4 << 30)
    for host in ("n1", "n2", "n3"):
        device(run_dir, host, "PASS", 350.0, 860.0)
        doc = _results.load(run_dir, host)
        doc["results"] += [
            {"layer": 5, "check": "nccl_all_gather_pod", "status": "PASS",
             "detail": {"collective": "all_gather", "nodes": 3, "busbw": {size: 201.04}}},
            {"layer": 5, "check": "nccl_reduce_scatter_pod", "status": "PASS" if host != "n3" else "SKIP",
             "detail": {"collective": "reduce_scatter", "nodes": 2, "busbw": {size: 188.0}} if host != "n3" else None}]
        _results.save(run_dir, doc)
    values, counted = _baseline.figures(run_dir, ["n1", "n2", "n3"])
    assert counted == 3
    assert values["pyramid_nccl_pod_collective_busbw"] == {"all_gather": {size: 201.0}, "reduce_scatter": {size: 188.0}}
    text = _baseline.text(values, counted, "r", "GO", across_nodes=_baseline.pod_collective_nodes(run_dir, ["n1", "n2", "n3"]))
    assert "this run's all-gather and reduce-scatter across 3 nodes" in text
    resolved, errors = _expectations.resolve(_catalog.load_catalog(), yaml.safe_load(text))
    assert not errors and resolved["pyramid_nccl_pod_collective_busbw"]["all_gather"] == {size: "201.0"}


def test_no_pod_collectives_figure_without_a_passing_run(tmp_path):
    run_dir = str(tmp_path)
    device(run_dir, "n1", "PASS", 350.0, 860.0)
    doc = _results.load(run_dir, "n1")
    doc["results"].append({"layer": 5, "check": "nccl_all_gather_pod", "status": "SKIP", "actual": "not run: check mode"})
    # a failed run's figures are none (even with a detail: a judge's, or a round's traced miss)
    doc["results"].append({"layer": 5, "check": "nccl_reduce_scatter_pod", "status": "FAIL",
                           "detail": {"collective": "reduce_scatter", "nodes": 2, "busbw": {"4294967296": 90.0}}})
    _results.save(run_dir, doc)
    device(run_dir, "n2", "PASS", 350.0, 860.0)
    doc = _results.load(run_dir, "n2")
    doc["results"].append({"layer": 5, "check": "nccl_reduce_scatter_pod", "status": "PASS",
                           "detail": {"collective": "reduce_scatter", "nodes": 2, "busbw": {"4294967296": 190.0}}})
    doc["results"][0]["status"] = "FAIL"  # a NO-GO node: its passing record is not a baseline either
    _results.save(run_dir, doc)
    values, _counted = _baseline.figures(run_dir, ["n1", "n2"])
    assert "pyramid_nccl_pod_collective_busbw" not in values
    assert "across the pod" not in _baseline.text(values, 1, "r", "GO")


def test_all_reduce_across_nodes_is_kept_by_node_count_and_judges_the_next_run_there(tmp_path):
    """issue 72: the pairs' and the scale-up's passing runs (their records' detail) become the pod's own figures by node
    count, latency-bound sizes included; a failed run's figures are none."""
    run_dir = str(tmp_path)
    pairs = {"n1": 48.0, "n2": 52.0, "n3": 50.0, "n4": 50.0}
    for host, one_mib in pairs.items():
        device(run_dir, host, "PASS", 350.0, 860.0)
        doc = _results.load(run_dir, host)
        doc["results"].append({"layer": 5, "check": "nccl_pairs", "status": "PASS", "detail": {
            "collective": "all_reduce", "nodes": 2, "busbw": {str(1 << 20): one_mib, str(4 << 30): 340.0},
            "latency_us_per_step": 18.9}})
        doc["results"].append({"layer": 5, "check": "nccl_scale", "status": "PASS", "detail": {
            "collective": "all_reduce", "nodes": 4, "busbw": {str(1 << 20): 17.5, str(4 << 30): 338.0}}})
        _results.save(run_dir, doc)
    device(run_dir, "n5", "PASS", 350.0, 860.0)
    doc = _results.load(run_dir, "n5")
    doc["results"].append({"layer": 5, "check": "nccl_pairs", "status": "FAIL", "detail": {
        "collective": "all_reduce", "nodes": 2, "busbw": {str(1 << 20): 1.0}}})
    _results.save(run_dir, doc)
    values, counted = _baseline.figures(run_dir, sorted(pairs) + ["n5"])
    assert counted == 4 and values["pyramid_nccl_scale_busbw"] == {
        "2": {str(1 << 20): 50.0, str(4 << 30): 340.0}, "4": {str(1 << 20): 17.5, str(4 << 30): 338.0}}
    text = _baseline.text(values, counted, "r", "GO")
    assert "all-reduce across nodes at each node count it held (2, 4)" in text
    resolved, errors = _expectations.resolve(_catalog.load_catalog(), yaml.safe_load(text))
    assert not errors and resolved["pyramid_nccl_scale_busbw"]["4"] == {str(1 << 20): "17.5", str(4 << 30): "338.0"}
