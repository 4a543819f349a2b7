"""The twin's GPU health outputs (nvidia-smi -q, nvidia-smi nvlink -s, dmesg, journalctl -k) parse back with
the product's parsers and judge as a real node's would: a healthy HGX H100 node passes every GPU health
check, and each GPU health fault fails its own check alone, naming the GPU by index and bus id."""

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import expectations as _expectations
from pyramid_twin import fake_tool, formats, model

CATALOG = _catalog.load_catalog()
GPU_CHECKS = [check for check in CATALOG["checks"] if check["row"] == "gpu_health"]
# the fault kinds this file covers (tests/unit/test_twin_formats.py leaves them to it)
GPU_HEALTH_FAULTS = {"xid", "ecc_uncorrectable", "row_remap_pending", "pcie_degraded", "nvlink_down", "fabric_manager_down",
                     "clock_throttle"}


def node(tmp_path, faults=()):
    scenario = {"pod": {"nodes": 2}, "faults": [dict(fault, node="node-001") for fault in faults]}
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump(scenario))
    return model.node_state(model.load_scenario(str(path)), "node-001")


def collected(state):
    """What the collect module would bring back from the node, tool by tool (fake_tool's answers)."""
    runs = {"gpu_query": fake_tool.nvidia_smi(state, ["-q"], {}), "gpu_nvlink": fake_tool.nvidia_smi(state, ["nvlink", "-s"], {}),
            "kernel_log": fake_tool.dmesg(state, [], {})}
    return {name: {"status": "ok", "rc": rc, "stdout": out, "stderr": err, "command": name, "way": 0} for name, (rc, out, err) in runs.items()}


def verdicts(state, raw=None):
    expect, errors = _expectations.resolve(CATALOG, {})
    assert not errors
    names = _engine.source_names(GPU_CHECKS)
    facts = _engine.parse_sources(names, CATALOG, raw or collected(state), expect)
    return {check["id"]: _engine.judge_host("node-001", check, CATALOG, facts, expect) for check in GPU_CHECKS}


def test_healthy_node_passes_every_gpu_check(tmp_path):
    results = verdicts(node(tmp_path))
    assert {check: result["status"] for check, result in results.items()} == dict.fromkeys(results, "PASS"), results
    assert "8 GPUs x 18 links at 26.562 GB/s" in results["gpu_nvlink"]["actual"]
    assert "8 GPUs: fabric Completed/Success" in results["gpu_fabric"]["actual"]


FAULTS = [
    ({"kind": "xid", "gpu": 3, "code": 79}, "gpu_xid", "GPU 3 (0000:5d:00.0): Xid 79"),
    ({"kind": "xid", "gpu": 1, "code": 48}, "gpu_xid", "GPU 1 (0000:2a:00.0): Xid 48"),
    ({"kind": "ecc_uncorrectable", "gpu": 5, "count": 3}, "gpu_ecc", "GPU 5 (0000:ab:00.0): 3 uncorrectable volatile, 3 aggregate"),
    ({"kind": "row_remap_pending", "gpu": 2}, "gpu_row_remap", "GPU 2 (0000:3a:00.0): remapping pending"),
    ({"kind": "pcie_degraded", "gpu": 6}, "gpu_pcie_link", "GPU 6 (0000:ba:00.0): x8 of x16"),
    ({"kind": "pcie_degraded", "gpu": 0, "gen": 4}, "gpu_pcie_link", "GPU 0 (0000:18:00.0): Gen4 of Gen5 in P0"),
    ({"kind": "nvlink_down", "gpu": 7, "link": 11}, "gpu_nvlink", "GPU 7 (0000:db:00.0): link 11 inactive"),
    ({"kind": "fabric_manager_down"}, "gpu_fabric", "GPU 0 (0000:18:00.0): State In Progress, Status N/A"),
    ({"kind": "clock_throttle", "gpu": 4}, "gpu_clocks", "GPU 4 (0000:9a:00.0): hw_slowdown, hw_thermal_slowdown active"),
    ({"kind": "clock_throttle", "gpu": 4, "reason": "hw_power_brake_slowdown"}, "gpu_clocks", "hw_power_brake_slowdown active"),
]


@pytest.mark.parametrize("fault, check, said", FAULTS, ids=["%s-%s" % (case[0]["kind"], case[0].get("code", case[0].get("gen", ""))) for case in FAULTS])
def test_fault_fails_its_check_alone(tmp_path, fault, check, said):
    results = verdicts(node(tmp_path, [fault]))
    failing = {name: result["status"] for name, result in results.items() if result["status"] != "PASS"}
    assert failing == {check: "FAIL"}, results
    assert said in results[check]["actual"], results[check]
    assert results[check]["cause"] == next(c["cause"] for c in GPU_CHECKS if c["id"] == check)


def test_every_gpu_fault_kind_is_covered():
    assert {case[0]["kind"] for case in FAULTS} == GPU_HEALTH_FAULTS
    assert GPU_HEALTH_FAULTS <= set(model.FAULTS)


def test_journalctl_reads_as_dmesg(tmp_path, parsers):
    state = node(tmp_path, [{"kind": "xid", "gpu": 3, "code": 79}])
    rc, out, _err = fake_tool.journalctl(state, ["-k", "-b", "--no-pager"], {})
    assert rc == 0
    assert parsers.parse("linux_dmesg_xid", out)["xids"] == parsers.parse("linux_dmesg_xid", formats.dmesg(state))["xids"]


def test_damaged_nvidia_smi_is_error_never_pass(tmp_path):
    state = node(tmp_path)
    raw = collected(state)
    raw["gpu_query"]["stdout"] = formats.garbage("nvidia-smi")
    raw["gpu_nvlink"]["stdout"] = formats.garbage("nvidia-smi")
    results = verdicts(state, raw)
    assert {check: r["status"] for check, r in results.items() if check != "gpu_xid"} == dict.fromkeys(
        [c["id"] for c in GPU_CHECKS if c["id"] != "gpu_xid"], "ERROR"), results
    assert results["gpu_xid"]["status"] == "PASS"  # the kernel log still reads: no Xid, GPUs named by bus id
    cut = collected(state)
    cut["gpu_query"]["stdout"] = cut["gpu_query"]["stdout"][:len(cut["gpu_query"]["stdout"]) // 2]
    assert {r["status"] for check, r in verdicts(state, cut).items() if check != "gpu_xid" and check != "gpu_nvlink"} == {"ERROR"}


def test_pcie_degraded_on_a_rail_is_refused(tmp_path):
    with pytest.raises(model.ScenarioError, match="not simulated"):
        node(tmp_path, [{"kind": "pcie_degraded", "rail": "mlx5_0", "width": 8}])


def test_unknown_gpu_and_reason_are_refused(tmp_path):
    with pytest.raises(model.ScenarioError, match="no GPU 8"):
        node(tmp_path, [{"kind": "xid", "gpu": 8}])
    with pytest.raises(model.ScenarioError, match="clock_throttle reason"):
        node(tmp_path, [{"kind": "clock_throttle", "reason": "idle"}])
