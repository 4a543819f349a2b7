"""run/fabric_runs.py: who climbs into the hunt, the run logs, the records; judging/fabric_rounds.py: who is left out and why."""

import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import PASS, verdict
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import fabric_rounds as _decide
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import fabric_runs as _fabric_runs

CATALOG = _catalog.load_catalog()
FABRIC = [check for check in CATALOG["checks"] if check["scope"] == "fabric"]
EXPECT = _expectations.resolve(CATALOG, {})[0]


def _doc(host, *results):
    return {"host": host, "results": [{"layer": layer, "check": check, "status": status} for layer, check, status in results]}


def _docs():
    return {
        "good": _doc("good", (0, "iommu", "PASS"), (5, "nccl_completes", "PASS")),
        "failed_l0": _doc("failed_l0", (0, "iommu", "FAIL")),
        "skipped": _doc("skipped", (0, "iommu", "PASS"), (5, "nccl_completes", "SKIP")),
        "blocked": _doc("blocked", (1, "optics", "BLOCKED")),
        "errored_above": _doc("errored_above", (0, "iommu", "PASS"), (6, "training_stable", "ERROR")),
        "nothing": _doc("nothing"),
        "fabric_failed": _doc("fabric_failed", (0, "iommu", "PASS"), (5, "nccl_pairs", "FAIL")),
    }


def test_only_nodes_with_every_result_up_to_the_layer_passing_climb():
    climbing = _fabric_runs.climbing(_docs(), 5, {"nccl_pairs"})
    # errored_above failed above the layer; fabric_failed's failure is the hunt's own check, judged again now
    assert climbing == ["good", "errored_above", "fabric_failed"]


def test_a_node_with_no_results_below_does_not_climb():
    assert _fabric_runs.climbing({"n": _doc("n")}, 5, set()) == []


def test_references_are_only_nodes_outside_the_run():
    assert _fabric_runs.references_for(["a", "b"], ["b", "ref"]) == ["ref"]
    assert _fabric_runs.references_for(["a"], None) == []


def test_no_launcher_is_an_error_for_every_node_once_a_run_spans_nodes():
    missing = _decide.launcher_missing(["a", "b"], [], "", EXPECT)
    assert set(missing) == {"a", "b"} and {v["status"] for v in missing.values()} == {"ERROR"}
    assert "inventory group `launcher`" in missing["a"]["actual"]
    assert _decide.launcher_missing(["a"], ["ref"], "", EXPECT)["a"]["status"] == "ERROR"
    assert _decide.launcher_missing(["a"], [], "", EXPECT) is None  # one node alone needs no launcher
    assert _decide.launcher_missing(["a", "b"], [], "launcher-1", EXPECT) is None


def test_a_group_context_names_hosts_ranks_and_slots():
    context = _fabric_runs.group_context(["n1", "n2"], 8)
    assert context == {"hosts": "n1,n2", "size": 2, "first": "n1", "ranks": 16, "slots": "n1:8,n2:8"}


def test_nodes_left_out_of_a_round_are_skipped_naming_their_failures():
    docs = _docs()
    check = {"id": "nccl_pairs"}
    verdicts = {"good": verdict(PASS, "x", "y", cause_key=None)}
    left = _decide.left_out(docs, verdicts, check, 5)
    assert "good" not in left and {v["status"] for v in left.values()} == {"SKIP"}
    assert "iommu=FAIL" in left["failed_l0"]["actual"]
    assert "optics=BLOCKED" in left["blocked"]["actual"]
    assert left["nothing"]["actual"] == "not in this round: no results below"
    assert "fabric_failed" not in left  # it already has a result of this check at this layer
    assert "training_stable" not in left["errored_above"]["actual"]  # layer 6 is above the round


def test_records_carry_the_cause_of_the_kind_of_miss_and_are_counted(tmp_path):
    check = next(c for c in FABRIC if c.get("causes"))
    key = sorted(check["causes"])[0]
    verdicts = {"a": verdict("FAIL", "e", "slow", cause_key=key, command="mpirun x"), "b": verdict(PASS, "e", "ok", cause_key=None)}
    counts = {}
    _fabric_runs.record(str(tmp_path), verdicts, check, CATALOG, EXPECT, counts)
    (recorded,) = _results.load(str(tmp_path), "a")["results"]
    assert recorded["status"] == "FAIL" and recorded["cause"] == check["causes"][key] and recorded["command"] == "mpirun x"
    assert _results.load(str(tmp_path), "b")["results"][0]["status"] == PASS
    assert counts == {"%s=FAIL" % check["id"]: 1, "%s=PASS" % check["id"]: 1}


def test_every_run_leaves_a_log_with_command_status_and_both_streams(tmp_path):
    log = _fabric_runs.RunLog(str(tmp_path), 5)
    first = log.write("nccl_pairs", ["n1", "n2"], {"command": "mpirun -np 16", "status": "ok", "rc": 0, "stdout": "table", "stderr": "warn"})
    second = log.write("nccl_scale", ["n%d" % i for i in range(8)], None)
    assert log.count == 2 and first == os.path.join("hunt", "nccl_pairs-001-n1_n2.log")
    assert second == os.path.join("hunt", "nccl_scale-002-8-nodes.log")
    text = (tmp_path / first).read_text()
    assert text.startswith("$ mpirun -np 16\n# status: ok, rc: 0\n# nodes: n1,n2\ntable") and text.endswith("# stderr\nwarn")
    assert (tmp_path / second).read_text().startswith("$ (not run)\n")


def test_a_lone_gpu_node_with_nobody_to_run_with_is_not_applicable_and_says_why(tmp_path):
    assert _decide.lone_node(["a", "b"], []) is None
    assert _decide.lone_node(["a"], ["outside-1"]) is None  # a --limit'ed run pairs with nodes outside it
    verdicts = _decide.lone_node(["gpu-host"], [])
    assert verdicts["gpu-host"]["status"] == "SKIP" and verdicts["gpu-host"]["not_applicable"] is True
    assert verdicts["gpu-host"]["actual"].startswith("not applicable: gpu-host is the only GPU node of this run")
    counts = {}
    _fabric_runs.record(str(tmp_path), verdicts, FABRIC[0], CATALOG, EXPECT, counts)
    (recorded,) = _results.load(str(tmp_path), "gpu-host")["results"]
    assert recorded["status"] == "SKIP" and recorded["not_applicable"] is True  # left out of the verdict and the checklist


def test_a_check_that_does_not_apply_neither_stops_a_node_nor_lets_it_climb_alone():
    docs = {"pcie_box": {"host": "pcie_box", "results": [
        {"layer": 0, "check": "iommu", "status": "PASS"},
        {"layer": 0, "check": "gpu_fabric", "status": "SKIP", "not_applicable": True},  # no NVSwitch here
        {"layer": 4, "check": "rdma_write_bw", "status": "SKIP", "not_applicable": True}]},
        "only_na": {"host": "only_na", "results": [{"layer": 0, "check": "gpu_fabric", "status": "SKIP", "not_applicable": True}]}}
    assert _fabric_runs.climbing(docs, 5, {"nccl_pairs"}) == ["pcie_box"]


def test_scalable_units_by_name_else_by_place_in_the_pod():
    named = {"n03": "hall-b"}
    units = _fabric_runs.scalable_units(["n01", "n02", "n03", "n05", "x9"], ["n01", "n02", "n03", "n04", "n05"], 2,
                                        lambda host: {"pyramid_scalable_unit": named.get(host)})
    assert units == {"n01": "su1", "n02": "su1", "n03": "hall-b", "n05": "su3", "x9": "x9 (not in gpu_nodes)"}
