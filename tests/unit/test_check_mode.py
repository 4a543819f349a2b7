"""Check mode (run/check_mode.py): under --check every read runs and is judged, and no check whose sources load the
fabric or the GPUs (the catalog's `load`) runs: it reads SKIP "not run: check mode", never PASS. One rule for a layer's
own checks (run/layer.py), its pod checks (run/pod.py), the straggler hunt and the phased runs (run/ansible_step.py)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.registry import ALONE
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import go_no_go
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import ansible_step, check_mode, layer as _layer
from ansible_collections.gpufabric.pyramid.tests.unit.test_layer import CATALOG, Collector, _doc, _expect, _no_wait

# What loads, by the catalog: the rail mesh (ping, ib_write_bw), the incast when asked for on RoCE, NCCL and training on
# a node and across nodes, DCGM's diagnostic at levels 2 and 3
COLLECTIVES = {"nccl_%s_%s" % (op, kind) for op in ("all_gather", "reduce_scatter", "alltoall", "sendrecv")
               for kind in ("correct", "busbw")}
LOADING = {"rail_ping", "rdma_write_bw", "rdma_gpudirect_bw", "incast_ecn", "nccl_completes", "nccl_correct",
           "nccl_node_busbw", "nccl_loaded", "gpu_p2p", "nccl_pairs", "nccl_scale", "nccl_all_gather_pod", "nccl_reduce_scatter_pod",
           "nccl_alltoall_pod", "training_stable", "training_parity",
           "training_pod", "training_parity_pod", "gpu_dcgm_diag"} | COLLECTIVES


def _loading(**overrides):
    expect = _expect(**overrides)
    return {check["id"] for check in CATALOG["checks"] if _catalog.load_of(check, CATALOG, expect)}


def test_the_catalog_says_which_checks_load_and_when():
    assert _loading(pyramid_incast=True, pyramid_dcgm_diag_level=3) == LOADING
    # DCGM's level 1 is a quick read; an incast not asked for (or on InfiniBand) is off, not a load
    assert _loading(pyramid_dcgm_diag_level=1) == LOADING - {"gpu_dcgm_diag", "incast_ecn"}
    assert "incast_ecn" not in _loading(pyramid_incast=True, pyramid_rdma_link_layer="infiniband")


@pytest.mark.parametrize("source, problem", [
    ({"load": ""}, "load says in words"),
    ({"load": "x", "load_if": {"pyramid_no_such": [1]}}, "load_if maps expectations"),
    ({"load_if": {"pyramid_incast": [True]}}, "load_if maps expectations"),
])
def test_a_load_the_catalog_cannot_use_is_refused(source, problem):
    catalog = dict(CATALOG, sources=dict(CATALOG["sources"], extra=dict({"ways": [{"run": ["true"], "parser": "linux_lsmod"}]}, **source)))
    with pytest.raises(_catalog.CatalogError, match=problem):
        _catalog._check(catalog)  # pylint: disable=protected-access


def test_layer5_in_check_mode_reads_nothing_and_records_every_node_check_as_not_run():
    checks = _catalog.checks_at(CATALOG, 5, "gpu_node")
    collect = Collector()
    doc = _doc()
    records, _summary = _layer.run("dev", 5, checks, CATALOG, _expect(), doc, collect, wait=_no_wait, check_mode=True)
    assert collect.planned is None  # nothing collected: all_reduce_perf never started
    by_check = {record["check"]: record for record in records}
    # the node's own checks and its pod check; the fabric ones are the straggler hunt's to record
    assert set(by_check) == {"nccl_completes", "nccl_correct", "nccl_node_busbw", "nccl_loaded", "gpu_p2p"} | COLLECTIVES
    for check, record in by_check.items():
        assert record["status"] == "SKIP" and record["check_mode"] and not record.get("not_applicable"), record
        if check == "gpu_p2p":  # the GPU-pair test, not NCCL
            assert record["actual"] == ("not run: check mode (it puts load on the fabric or the GPUs: GPU-to-GPU copies "
                                        "between every pair of the node's GPUs)"), record
            assert "p2pBandwidthLatencyTest" in record["command"]
            continue
        op = check[len("nccl_"):].rsplit("_", 1)[0] if check in COLLECTIVES else "all_reduce"
        words = {"all_reduce": "all-reduce", "all_gather": "all-gather", "reduce_scatter": "reduce-scatter",
                 "alltoall": "all-to-all", "sendrecv": "send/recv"}[op]
        assert record["actual"] == ("not run: check mode (it puts load on the fabric or the GPUs: NCCL %s on every GPU of "
                                    "the node)" % words), record
        assert "%s_perf" % op in record["command"]


def test_layer0_in_check_mode_still_reads_and_judges_and_skips_only_dcgms_long_levels():
    checks = [c for c in _catalog.checks_at(CATALOG, 0, "gpu_node") if c["scope"] == "host"]
    collect = Collector(stdout="garbage")
    records, _summary = _layer.run("dev", 0, checks, CATALOG, _expect(pyramid_dcgm_diag_level=2), _doc(), collect,
                                   wait=_no_wait, check_mode=True)
    planned = {item["id"] for item in collect.planned}
    assert "dcgm_diag" not in planned and "ibstat" in planned
    not_run = [r["check"] for r in records if r.get("check_mode")]
    assert not_run == ["gpu_dcgm_diag"]
    judged = [r["status"] for r in records if not r.get("check_mode") and not r.get("not_applicable") and not r.get("depends_on")]
    assert judged and "SKIP" not in judged and "ERROR" in judged  # the reads ran and were judged (garbage: ERROR)


class _Step:
    host = "node-001"

    def expectations(self, host, catalog, checks, extra=()):  # pylint: disable=unused-argument
        return _expect(pyramid_incast=True)


class _Phases:
    NAMES = ("plan", "run", "verdict")

    def __init__(self, ids):
        self.checks = [c for c in CATALOG["checks"] if c["id"] in ids]


def test_a_phased_run_that_loads_runs_no_round_and_records_its_checks_as_not_run(tmp_path):
    run_dir = str(tmp_path)
    phases = _Phases({"rdma_write_bw", "rdma_gpudirect_bw"})
    args = {"run_dir": run_dir, "hosts": ["node-001", "node-002"]}
    planned = ansible_step._not_run_in_check_mode({}, "plan", phases, _Step(), CATALOG, args)  # pylint: disable=protected-access
    assert planned["rounds"] == [] and planned["retest_rounds"] == [] and "not run: check mode" in planned["msg"]
    done = ansible_step._not_run_in_check_mode({}, "verdict", phases, _Step(), CATALOG, args)  # pylint: disable=protected-access
    assert done["counts"] == {"SKIP": 4}
    for host in args["hosts"]:
        records = {r["check"]: r for r in _results.load(run_dir, host)["results"]}
        assert set(records) == {"rdma_write_bw", "rdma_gpudirect_bw"}
        assert all(r["status"] == "SKIP" and r["actual"].startswith("not run: check mode") for r in records.values())


def test_on_a_lone_gpu_box_a_run_across_nodes_reads_not_applicable_as_in_the_full_run(tmp_path):
    """Issue 66: the only GPU node of a run, none outside it named: its rail mesh and its runs across nodes do not apply
    (the full run's words, each kind's own: judging/registry.py ALONE), never "not run: check mode"; a pod with a partner
    named (references) is still not run."""
    run_dir = str(tmp_path)
    phases = _Phases({"rdma_write_bw", "rdma_gpudirect_bw"})
    done = ansible_step._not_run_in_check_mode({}, "verdict", phases, _Step(), CATALOG, {  # pylint: disable=protected-access
        "run_dir": run_dir, "hosts": ["gpu-host"]})
    assert done["counts"] == {"SKIP": 2}
    records = {r["check"]: r for r in _results.load(run_dir, "gpu-host")["results"]}
    assert records["rdma_write_bw"]["not_applicable"] and records["rdma_write_bw"]["actual"] == (
        "not applicable: gpu-host is the only GPU node of this run, and rdma_write_bw needs a partner on the other end of each rail")
    fabric = [c for c in CATALOG["checks"] if c["id"] in ("nccl_pairs", "training_pod")]
    check_mode.record_not_run(run_dir, ["gpu-host"], fabric, CATALOG, lambda host: _expect())
    records = {r["check"]: r for r in _results.load(run_dir, "gpu-host")["results"]}
    assert all(records[c]["not_applicable"] and records[c]["actual"].startswith("not applicable: gpu-host is the only GPU node")
               for c in ("nccl_pairs", "training_pod"))
    check_mode.record_not_run(run_dir, ["gpu-host"], fabric, CATALOG, lambda host: _expect(), references=["node-100"])
    records = {r["check"]: r for r in _results.load(run_dir, "gpu-host")["results"]}
    assert records["nccl_pairs"]["actual"].startswith("not run: check mode") and not records["nccl_pairs"].get("not_applicable")


def test_only_kinds_that_run_across_nodes_say_what_a_lone_box_gets():
    """The table check mode reads for a lone box (judging/registry.py ALONE) holds kinds of the catalog that run across
    nodes (catalog/kinds.yml across_nodes): no kind named in run/check_mode.py."""
    assert set(ALONE) == {"rail_mesh", "fabric"}
    assert all(_catalog.kinds()[scope]["across_nodes"] for scope in ALONE)


def test_a_phased_run_that_only_reads_runs_in_check_mode():
    phases = _Phases({"rails_active"})
    assert ansible_step._not_run_in_check_mode({}, "plan", phases, _Step(), CATALOG, {}) is None  # pylint: disable=protected-access


def test_a_check_mode_run_is_never_go_and_its_report_says_why(tmp_path):
    run_dir = str(tmp_path)
    check = next(c for c in CATALOG["checks"] if c["id"] == "nccl_completes")
    doc = _results.load(run_dir, "node-001")
    _results.record(doc, [check_mode.not_run("node-001", check, CATALOG, _expect(), ["NCCL all-reduce on every GPU of the node"])])
    _results.save(run_dir, doc)
    report = go_no_go.build(CATALOG, run_dir, {"gpu_node": ["node-001"]})
    assert report["verdict"] == "NO-GO" and report["check_mode_not_run"] == 1
    assert "Check mode (--check): 1 checks that load the fabric or the GPUs were not run" in go_no_go.checklist_text(report)
    assert "Check mode (--check)" in go_no_go.markdown(report)
