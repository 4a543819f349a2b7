"""Handing the failing GPU nodes to the scheduler (run/handover.py) and the twin's kubectl that answers it. Its refusals
are DATA rows (test_handover_data.py); against the real Slurm, tests/e2e/test_handover_slurm.py."""

import json

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import handover as _drain
from pyramid_twin import scheduler

NODES = ["node-001", "node-002", "node-003", "node-004"]


def record(check, layer, status, cause=None, actual="seen"):
    return {"check": check, "layer": layer, "status": status, "cause": cause, "actual": actual}


REPORT = {"hosts": {
    "node-001": {"device": "gpu_node", "verdict": "GO", "checks": [record("iommu", 0, "PASS")]},
    # its first finding is the lowest layer's, whatever the order the checks were recorded in
    "node-002": {"device": "gpu_node", "verdict": "NO-GO", "checks": [
        record("nccl_pairs", 5, "FAIL", "slow"), record("gpudirect", 0, "FAIL", 'GPUDirect "not active"\n  (nvidia_peermem)')]},
    "node-003": {"device": "gpu_node", "verdict": "NO-GO", "checks": [record("rail_ping", 2, "BLOCKED", None, "blocked by leaf1-r5")]},
    # NO-GO by what was not run (--check): nothing found on it, not handed over
    "node-004": {"device": "gpu_node", "verdict": "NO-GO", "checks": [record("nccl_pairs", 5, "SKIP", None, "not run: check mode")]},
    # Layer 7 is the monitoring's (a Prometheus down is an ERROR on every device), and a host the play never read has
    # nothing found on it: neither is handed over
    "node-005": {"device": "gpu_node", "verdict": "NO-GO", "checks": [record("telemetry_signals", 7, "ERROR", None, "no answer")]},
    "node-006": {"device": "gpu_node", "verdict": "NO-GO", "checks": [dict(record("iommu", 0, "ERROR", "No data"), not_read=True)]},
    "leaf1-r5": {"device": "switch", "verdict": "NO-GO", "checks": [record("link_errors", 1, "FAIL", "CRC")]},
}}
NAMES = {node: node for node in NODES}


def test_each_node_with_a_finding_is_handed_over_with_its_lowest_layers_cause():
    found = _drain.reasons(REPORT)
    assert sorted(found) == ["node-002", "node-003"]  # no switch, no node NO-GO only by what was not run
    assert found["node-002"] == ("pyramid: L0 gpudirect FAIL: GPUDirect 'not active' (nvidia_peermem)", "gpudirect")
    assert found["node-003"] == ("pyramid: L2 rail_ping BLOCKED: blocked by leaf1-r5", "rail_ping")


def test_slurm_drains_one_command_per_reason_as_argv():
    commands = _drain.drain_commands("slurm", _drain.reasons(REPORT), NAMES)
    assert [argv for argv, _group, _what in commands] == [
        ["scontrol", "update", "nodename=node-002", "state=drain", "reason=pyramid: L0 gpudirect FAIL: GPUDirect 'not active' (nvidia_peermem)"],
        ["scontrol", "update", "nodename=node-003", "state=drain", "reason=pyramid: L2 rail_ping BLOCKED: blocked by leaf1-r5"]]
    same = {"node-002": ("pyramid: x", "gpudirect"), "node-003": ("pyramid: x", "gpudirect")}
    assert [argv[2] for argv, _group, _what in _drain.drain_commands("slurm", same, NAMES)] == ["nodename=node-002,node-003"]


def test_kubernetes_cordons_taints_by_check_and_annotates_the_reason():
    commands = [argv for argv, _group, _what in _drain.drain_commands("kubernetes", _drain.reasons(REPORT), {
        "node-002": "gpu-b", "node-003": "gpu-c"})]
    assert commands[0] == ["kubectl", "cordon", "gpu-b", "gpu-c"]
    assert ["kubectl", "taint", "nodes", "gpu-b", "pyramid.gpufabric/no-go=gpudirect:NoSchedule", "--overwrite"] in commands
    assert commands[-1][:4] == ["kubectl", "annotate", "nodes", "gpu-c"]


def test_the_scheduler_name_is_the_inventory_names_first_label_unless_named():
    assert _drain.scheduler_name("node-001.pod1.example") == "node-001"
    assert _drain.scheduler_name("node-001.pod1.example", "gpu001") == "gpu001"


def ours(nodes):
    return {name for name, seen in nodes.items() if seen["ours"]}


def test_the_twins_fallback_scontrol_is_read_as_slurms_own(tmp_path, monkeypatch):
    """Where no real Slurm runs (twin/slurm without its packages) the twin's scontrol answers in Slurm's format."""
    monkeypatch.setattr(scheduler, "real_slurm_conf", lambda: None)
    path = str(tmp_path / "scheduler.json")
    scheduler.scontrol(path, NODES, ["update", "nodename=node-002", "state=drain", "reason=pyramid: L0 gpudirect FAIL: x"])
    scheduler.scontrol(path, NODES, ["update", "nodename=node-003", "state=drain", "reason=bad dimm"])
    rc, out, _err = scheduler.scontrol(path, NODES, ["show", "node"])
    nodes = _drain.scheduler_nodes("slurm", out)
    assert rc == 0 and ours(nodes) == {"node-002"} and {name for name, seen in nodes.items() if seen["out"]} == {"node-002", "node-003"}
    assert nodes["node-003"]["reason"] == "bad dimm"  # who and when ([root@...]) apart, as the parser reads them
    scheduler.scontrol(path, NODES, ["update", "nodename=node-002", "state=resume"])
    assert ours(_drain.scheduler_nodes("slurm", scheduler.scontrol(path, NODES, ["show", "node"])[1])) == set()
    assert scheduler.scontrol(path, NODES, ["update", "nodename=node-009", "state=drain", "reason=x"])[0] == 1


def test_many_nodes_failing_at_once_are_not_handed_over():
    found = {"n%d" % index: ("pyramid: x", "iommu") for index in range(3)}
    assert _drain.too_many(found, ["n%d" % index for index in range(6)], 0.5) is None  # half: handed over
    assert "3 of the run's 5 GPU nodes" in _drain.too_many(found, ["n%d" % index for index in range(5)], 0.5)
    assert _drain.too_many(dict(list(found.items())[:2]), ["n0", "n1"], 0.5) is None  # two nodes: always (a --limit rerun)


def _fixture(parser, case):
    with open("tests/unit/parsers/%s/%s.raw" % (parser, case), encoding="utf-8") as handle:
        return handle.read()


def test_a_real_drained_node_with_another_reason_is_out_and_never_ours():
    real = _fixture("slurm_scontrol_show_node", "slurm2505_admin_drain")
    assert _drain.scheduler_nodes("slurm", real) == {"server5": {"out": True, "ours": False, "reason": "maintenance"}}
    assert ours(_drain.scheduler_nodes("slurm", real.replace("Reason=maintenance", "Reason=pyramid: L0 iommu FAIL: off"))) == {"server5"}
    with pytest.raises(parsing.ParseError):
        _drain.scheduler_nodes("slurm", "   State=IDLE+DRAIN\n")  # a read cut before its NodeName: refused, never "nothing drained"


def test_kubernetes_state_from_the_twins_kubectl(tmp_path):
    path = str(tmp_path / "scheduler.json")
    assert scheduler.kubectl(path, NODES, ["cordon", "node-002"])[0] == 0
    assert scheduler.kubectl(path, NODES, ["taint", "nodes", "node-002", "pyramid.gpufabric/no-go=gpudirect:NoSchedule", "--overwrite"])[0] == 0
    assert scheduler.kubectl(path, NODES, ["cordon", "node-003"])[0] == 0  # an admin's cordon, no taint of ours
    out = scheduler.kubectl(path, NODES, ["get", "nodes", "-o", "json"])[1]
    nodes = _drain.scheduler_nodes("kubernetes", out)
    assert ours(nodes) == {"node-002"} and nodes["node-003"] == {"out": True, "ours": False, "reason": "cordoned"}
    assert json.loads(out)["items"][1]["spec"]["unschedulable"] is True
    for argv, _group, _what in _drain.resume_commands("kubernetes", ["node-002"]):
        assert scheduler.kubectl(path, NODES, argv[1:])[0] == 0, argv
    nodes = _drain.scheduler_nodes("kubernetes", scheduler.kubectl(path, NODES, ["get", "nodes", "-o", "json"])[1])
    assert ours(nodes) == set() and not nodes["node-002"]["out"] and nodes["node-003"]["out"]
    for cut in (out[: len(out) // 2], "[]", '{"kind": "List"}'):
        with pytest.raises(parsing.ParseError):
            _drain.scheduler_nodes("kubernetes", cut)  # cut JSON, or not a list of nodes: refused


def _twin_kubectl(path, calls):
    """run(argv) for the hand-over, answered by the twin's kubectl (Kubernetes cannot run here; Slurm's real daemons
    answer the Slurm cases: tests/e2e/test_handover_slurm.py)."""
    def command(argv):
        calls.append(argv)
        rc, out, err = scheduler.kubectl(path, NODES, argv[1:])
        return {"rc": rc, "stdout": out, "stderr": err}
    return command


def test_an_admins_cordon_is_left_as_it_is_and_never_given_back(tmp_path):
    path, calls = str(tmp_path / "scheduler.json"), []
    command = _twin_kubectl(path, calls)
    scheduler.kubectl(path, NODES, ["cordon", "node-001", "node-002"])  # an admin's, on a GO node and a failing one
    state = _drain.scheduler_nodes("kubernetes", command(_drain.state_command("kubernetes"))["stdout"])
    outcome, lines = _drain.hand_over("kubernetes", True, REPORT, _drain.reasons(REPORT), NAMES, state, command)
    assert sorted(outcome["left"]) == ["node-002"] and sorted(outcome["drained"]) == ["node-003"], outcome
    assert outcome["resumed"] == [] and outcome["errors"] == []  # node-001 is GO, but its cordon is not ours
    assert not [argv for argv in calls if "node-002" in argv or "uncordon" in argv]
    assert any("node-002 left as it is, out of service for another reason: cordoned" in line for line in lines)
    after = _drain.scheduler_nodes("kubernetes", command(_drain.state_command("kubernetes"))["stdout"])
    assert after["node-001"]["out"] and not after["node-001"]["ours"] and after["node-003"]["ours"]


def test_a_node_the_scheduler_does_not_have_does_not_stop_the_others(tmp_path):
    path, calls = str(tmp_path / "scheduler.json"), []
    command = _twin_kubectl(path, calls)
    state = _drain.scheduler_nodes("kubernetes", command(_drain.state_command("kubernetes"))["stdout"])
    found = dict(_drain.reasons(REPORT), **{"node-009": ("pyramid: L0 iommu FAIL: off", "iommu")})  # unknown to it
    outcome, _lines = _drain.hand_over("kubernetes", False, REPORT, found, dict(NAMES, **{"node-009": "node-009"}), state, command)
    assert sorted(outcome["drained"]) == ["node-002", "node-003"] and len(outcome["done"]) == 5
    assert outcome["errors"] == ["node-009: not a node of the scheduler (pyramid_scheduler_node_name?)"]
