"""The twin's GPU health outputs (nvidia-smi -q, nvidia-smi nvlink -s and -e, dmesg, journalctl -k, the rail NICs'
sysfs PCIe link files) parse back with the product's parsers and judge as a real node's would: a healthy HGX
H100 node passes every GPU health check (DCGM, absent from the twin, is not applicable), and each GPU health
fault fails its own check alone, naming the GPU by index and bus id (a NIC by its rail)."""

import json
import os
import re

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import expectations as _expectations
from pyramid_twin import fake_tool, formats, model

CATALOG = _catalog.load_catalog()
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers")
GPU_CHECKS = [check for check in CATALOG["checks"] if check["row"] == "gpu_health"]
# the fault kinds this file covers (tests/unit/test_twin_formats.py leaves them to it)
GPU_HEALTH_FAULTS = {"xid", "ecc_uncorrectable", "row_remap_pending", "pcie_degraded", "nvlink_down", "fabric_manager_down",
                     "clock_throttle", "nvlink_errors", "pcie_replays", "dcgm_diag_fail", "pcie_replays_rising", "nvlink_errors_rising",
                     "dmesg_no_json"}
SOAK_CHECKS = [check for check in CATALOG["checks"] if check["row"] == "gpu_links_soak"]
RAIL_FILES = ("current_link_speed", "max_link_speed", "current_link_width", "max_link_width")


def node(tmp_path, faults=()):
    scenario = {"pod": {"nodes": 2}, "faults": [dict(fault, node="node-001") for fault in faults]}
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump(scenario))
    return model.node_state(model.load_scenario(str(path)), "node-001")


def rail_cat(state, device):
    """What `cat` of the rail's four sysfs PCIe link files prints on the twin node (the rendered files, in order)."""
    files = formats.sys_rail_pcie(state)
    return "".join(files["/sys/class/infiniband/%s/device/%s" % (device, name)] for name in RAIL_FILES)


def collected(state):
    """What the collect module would bring back from the node, tool by tool (fake_tool's answers and the
    rendered files)."""
    runs = {"gpu_query": fake_tool.nvidia_smi(state, ["-q"], {}), "gpu_nvlink": fake_tool.nvidia_smi(state, ["nvlink", "-s"], {}),
            "gpu_nvlink_errors": fake_tool.nvidia_smi(state, ["nvlink", "-e"], {}),
            "kernel_log": fake_tool.dmesg(state, ["--json"], {}),  # the source's first way
            "rdma_sysfs": (0, "".join(rail["device"] + "\n" for rail in state["rails"]), "")}
    runs.update({"rail_pcie_link[%s]" % rail["device"]: (0, rail_cat(state, rail["device"]), "") for rail in state["rails"]})
    runs["dcgm_diag"] = fake_tool.dcgmi(state, ["diag", "-r", "1", "-j"], {})
    # dcgmi's 226 on a failed test is accepted (the source's accept_rc): the status is still ok
    return {name: {"status": "ok", "rc": rc, "stdout": out, "stderr": err, "command": name, "way": 0} for name, (rc, out, err) in runs.items()}


def verdicts(state, raw=None):
    expect, errors = _expectations.resolve(CATALOG, {})
    assert not errors
    names = _engine.source_names(GPU_CHECKS)
    answers = _engine.answers(_engine.reads(names, CATALOG, expect), raw or collected(state))  # each names its parser
    facts = _engine.parse_sources(names, CATALOG, answers, expect)
    return {check["id"]: _engine.judge_host("node-001", check, CATALOG, facts, expect) for check in GPU_CHECKS}


def test_healthy_node_passes_every_gpu_check(tmp_path):
    results = verdicts(node(tmp_path))
    assert {check: result["status"] for check, result in results.items()} == dict.fromkeys(results, "PASS"), results
    assert "8 GPUs x 18 links at 26.562 GB/s" in results["gpu_nvlink"]["actual"]
    assert "8 GPUs: fabric Completed/Success" in results["gpu_fabric"]["actual"]
    assert "8 GPUs, 144 links: no recovery or CRC errors" in results["gpu_nvlink_errors"]["actual"]
    assert "8 rail NICs at Gen5 x16" in results["nic_pcie_link"]["actual"]
    assert "0 PCIe replays since reset" in results["gpu_pcie_link"]["actual"]
    assert "DCGM 3.1.0, level 1: 17 results passed" in results["gpu_dcgm_diag"]["actual"]


def test_dcgm_absent_is_not_applicable_never_an_error(tmp_path):
    state = node(tmp_path, [{"kind": "tool_missing", "tool": "dcgmi"}])
    raw = collected(state)
    raw["dcgm_diag"] = {"status": "missing", "command": "dcgmi diag -r 1 -j", "rc": 127, "stdout": "", "stderr": "",
                        "msg": "command not found"}  # what the collect module answers for a tool not on PATH
    result = verdicts(state, raw)["gpu_dcgm_diag"]
    assert result["status"] == "SKIP" and "not applicable: DCGM is not installed" in result["actual"], result
    assert result.get("not_applicable")


def test_dcgmi_renders_the_real_3_1_layout(tmp_path, parsers):
    state = node(tmp_path)
    rc, out, _err = fake_tool.dcgmi(state, ["diag", "--run", "1", "--json"], {})
    with open(os.path.join(FIXTURES, "linux_dcgmi_diag_json", "dcgm_3_1_8gpu_real.raw"), encoding="utf-8") as handle:
        assert rc == 0 and out == handle.read()  # byte for byte the real report of 8 healthy GPUs
    assert fake_tool.dcgmi(state, ["diag", "-r", "3", "-j"], {})[0] == fake_tool.NOT_SIMULATED


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
    ({"kind": "nvlink_errors", "gpu": 2, "link": 7}, "gpu_nvlink_errors", "GPU 2 (0000:3a:00.0): link 7 1 recovery"),
    ({"kind": "nvlink_errors", "gpu": 5, "link": 1, "recovery": 0, "crc": 250, "replay": 250}, "gpu_nvlink_errors",
     "GPU 5 (0000:ab:00.0): link 1 250 CRC"),
    ({"kind": "pcie_replays", "gpu": 3}, "gpu_pcie_link", "GPU 3 (0000:5d:00.0): 500 PCIe replays since reset"),
    ({"kind": "pcie_degraded", "rail": "mlx5_4", "width": 8}, "nic_pcie_link", "mlx5_4: x8 of x16"),
    ({"kind": "pcie_degraded", "rail": "mlx5_1", "gen": 4}, "nic_pcie_link", "mlx5_1: Gen4 of Gen5 (16.0 GT/s PCIe of 32.0 GT/s PCIe)"),
    ({"kind": "dcgm_diag_fail", "gpu": 6}, "gpu_dcgm_diag", "software on GPU 6: Fail: Persistence mode for GPU 6 is disabled"),
]


def _case_id(case):
    fault = case[0]
    return "%s-%s-%s" % (fault["kind"], fault.get("rail", fault.get("gpu", "")), fault.get("code", fault.get("gen", "")))


@pytest.mark.parametrize("fault, check, said", FAULTS, ids=[_case_id(case) for case in FAULTS])
def test_fault_fails_its_check_alone(tmp_path, fault, check, said):
    results = verdicts(node(tmp_path, [fault]))
    failing = {name: result["status"] for name, result in results.items() if result["status"] != "PASS"}
    assert failing == {check: "FAIL"}, results
    assert said in results[check]["actual"], results[check]
    if fault["kind"] == "pcie_replays":  # its own cause: the link trained at full rate but is not clean
        assert results[check]["cause"].startswith("PCIe replays on a GPU's link"), results[check]
    else:
        assert results[check]["cause"] == next(c["cause"] for c in GPU_CHECKS if c["id"] == check)


def test_every_gpu_fault_kind_is_covered():
    # dmesg_no_json fails nothing alone (journalctl answers): test_old_dmesg_falls_back_... covers it
    assert {case[0]["kind"] for case in FAULTS} | {case[0]["kind"] for case in SOAK_FAULTS} | {"dmesg_no_json"} == GPU_HEALTH_FAULTS
    assert GPU_HEALTH_FAULTS <= set(model.FAULTS)


def test_every_kernel_log_way_reads_the_same_xids(tmp_path, parsers):
    state = node(tmp_path, [{"kind": "xid", "gpu": 3, "code": 79}])
    want = parsers.parse("linux_dmesg_xid", formats.dmesg(state))["xids"]
    assert [xid["code"] for xid in want] == [79]
    rc, out, _err = fake_tool.dmesg(state, ["--json"], {})
    assert rc == 0 and parsers.parse("linux_dmesg_json", out)["xids"] == want
    rc, out, _err = fake_tool.journalctl(state, ["-k", "-b", "--no-pager", "--all", "--show-cursor"], {})
    assert rc == 0 and out.splitlines()[-1].startswith("-- cursor: s=")
    assert parsers.parse("linux_journalctl_kernel_xid", out)["xids"] == want
    rc, out, _err = fake_tool.journalctl(state, ["-k", "-b", "--no-pager"], {})
    assert rc == 0 and parsers.parse("linux_dmesg_xid", out)["xids"] == want


def test_dmesg_json_renders_the_real_util_linux_layout(tmp_path):
    """The real util-linux 2.39.3 capture's layout line for line: indents, "},{" between records, the time column."""
    _rc, out, _err = fake_tool.dmesg(node(tmp_path), ["--json"], {})
    with open(os.path.join(FIXTURES, "linux_dmesg_json", "h100_580_no_xid_real.raw"), encoding="utf-8") as handle:
        real = handle.read()
    shape = re.compile(r'"msg": ".*"|"pri": \d+|"time": +\d+\.\d{6}')
    assert [shape.sub("X", line) for line in out.splitlines()[:12]] == [shape.sub("X", line) for line in real.splitlines()[:12]]
    assert out.splitlines()[-3:] == real.splitlines()[-3:]


def test_old_dmesg_falls_back_to_plain_dmesg_whose_silence_proves_nothing(tmp_path):
    """util-linux before 2.38 refuses --json as getopt does; with no journald either, the plain dmesg answers,
    and no Xid in it is an ERROR (it cannot prove it is whole), while an Xid in it still FAILs."""
    state = node(tmp_path, [{"kind": "dmesg_no_json"}])
    rc, out, err = fake_tool.dmesg(state, ["--json"], {})
    assert (rc, out) == (1, "") and err.startswith("dmesg: unrecognized option '--json'\nTry 'dmesg --help'")
    raw = collected(state)
    raw["kernel_log"] = {"status": "ok", "rc": 0, "stdout": formats.dmesg(state), "stderr": "", "command": "dmesg", "way": 2}
    result = verdicts(state, raw)["gpu_xid"]
    assert result["status"] == "ERROR" and "no end marker" in result["actual"], result
    state = node(tmp_path, [{"kind": "dmesg_no_json"}, {"kind": "xid", "gpu": 1, "code": 48}])
    raw = collected(state)
    raw["kernel_log"] = {"status": "ok", "rc": 0, "stdout": formats.dmesg(state), "stderr": "", "command": "dmesg", "way": 2}
    assert verdicts(state, raw)["gpu_xid"]["status"] == "FAIL"


# checks that read no nvidia-smi: the kernel log (Xid by bus id), the NICs' sysfs, dcgmi
NOT_NVIDIA_SMI = ("gpu_xid", "nic_pcie_link", "gpu_dcgm_diag")


def test_damaged_nvidia_smi_is_error_never_pass(tmp_path):
    state = node(tmp_path)
    raw = collected(state)
    raw["gpu_query"]["stdout"] = formats.garbage("nvidia-smi")
    raw["gpu_nvlink"]["stdout"] = formats.garbage("nvidia-smi")
    raw["gpu_nvlink_errors"]["stdout"] = formats.garbage("nvidia-smi")
    results = verdicts(state, raw)
    reading = [c["id"] for c in GPU_CHECKS if c["id"] not in NOT_NVIDIA_SMI]
    assert {check: r["status"] for check, r in results.items() if check in reading} == dict.fromkeys(reading, "ERROR"), results
    assert results["gpu_xid"]["status"] == "PASS"  # the kernel log still reads: no Xid, GPUs named by bus id
    cut = collected(state)
    cut["gpu_query"]["stdout"] = cut["gpu_query"]["stdout"][:len(cut["gpu_query"]["stdout"]) // 2]
    assert {r["status"] for check, r in verdicts(state, cut).items() if check not in NOT_NVIDIA_SMI + ("gpu_nvlink",)} == {"ERROR"}


def test_rail_pcie_files_are_the_kernel_format(tmp_path, parsers):
    state = node(tmp_path, [{"kind": "pcie_degraded", "rail": "mlx5_2", "width": 8, "gen": 4}])
    files = formats.sys_rail_pcie(state)
    assert files["/sys/class/infiniband/mlx5_0/device/current_link_speed"] == "32.0 GT/s PCIe\n"
    assert files["/sys/class/infiniband/mlx5_0/device/max_link_width"] == "16\n"
    assert parsers.parse("linux_sysfs_pcie_link", rail_cat(state, "mlx5_2")) == {
        "gen_current": 4, "gen_max": 5, "speed_current": "16.0 GT/s PCIe", "speed_max": "32.0 GT/s PCIe", "width_current": 8, "width_max": 16}


def test_nvlink_errors_render_as_the_real_535_to_580_layout(tmp_path, parsers):
    state = node(tmp_path, [{"kind": "nvlink_errors", "gpu": 0, "link": 3, "recovery": 2, "crc": 9, "replay": 9}])
    out = fake_tool.nvidia_smi(state, ["nvlink", "--errorcounters"], {})[1]
    assert out.startswith("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-")
    assert "\t Link 3: Replay Errors: 9\n\t Link 3: Recovery Errors: 2\n\t Link 3: CRC Errors: 9\n\n" in out
    facts = parsers.parse("linux_nvidia_smi_nvlink_e", out)
    assert len(facts["gpus"]) == 8 and len(facts["gpus"][7]["links"]) == 18
    assert facts["gpus"][0]["links"][3] == {"Replay Errors": 9, "Recovery Errors": 2, "CRC Errors": 9}


def test_unknown_gpu_and_reason_are_refused(tmp_path):
    with pytest.raises(model.ScenarioError, match="no GPU 8"):
        node(tmp_path, [{"kind": "xid", "gpu": 8}])
    with pytest.raises(model.ScenarioError, match="clock_throttle reason"):
        node(tmp_path, [{"kind": "clock_throttle", "reason": "idle"}])


def soak(state, monkeypatch, tmp_path, seconds=60):
    """Layer 0's read, then the soak's two reads `seconds` apart, on the twin's clock: (Layer 0 verdicts,
    Layer 1 soak verdicts). A rising fault's counter starts at the node's first read (fake_tool.rising)."""
    now = [1000.0]
    monkeypatch.setattr(fake_tool.changes, "STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(fake_tool, "NODE", [str(tmp_path / "render" / "digest" / "node-001")])
    monkeypatch.setattr(fake_tool, "time", type("Clock", (), {"time": staticmethod(lambda: now[0])}))
    layer0 = verdicts(state)
    reads = []
    for pause in (1, seconds):
        now[0] += pause
        reads.append({"gpu_query_soak": fake_tool.nvidia_smi(json.loads(json.dumps(state)), ["-q"], {}),
                      "gpu_nvlink_errors_soak": fake_tool.nvidia_smi(json.loads(json.dumps(state)), ["nvlink", "-e"], {})})
    expect, errors = _expectations.resolve(CATALOG, {})
    assert not errors
    facts = {}
    for name in ("gpu_query_soak", "gpu_nvlink_errors_soak"):
        before, after = ({name: {"status": "ok", "rc": rc, "stdout": out, "stderr": err, "command": name, "way": 0}}
                         for rc, out, err in (read[name] for read in reads))
        planned = _engine.reads([name], CATALOG, expect)
        facts[name] = {"before": _engine.parse_sources([name], CATALOG, _engine.answers(planned, before), expect)[name],
                       "after": _engine.parse_sources([name], CATALOG, _engine.answers(planned, after), expect)[name], "seconds": seconds}
    return layer0, {check["id"]: _engine.judge_host("node-001", check, CATALOG, facts, expect) for check in SOAK_CHECKS}


SOAK_FAULTS = [
    ({"kind": "pcie_replays_rising", "gpu": 6, "per_s": 0.5}, "gpu_pcie_replays_soak", "GPU 6 (0000:ba:00.0): +30 PCIe replays in 60s"),
    ({"kind": "nvlink_errors_rising", "gpu": 1, "link": 11}, "gpu_nvlink_errors_soak", "GPU 1 (0000:2a:00.0) link 11: +30 recovery in 60s"),
    ({"kind": "nvlink_errors_rising", "gpu": 3, "link": 2, "recovery_per_s": 0, "crc_per_s": 250}, "gpu_nvlink_errors_soak",
     "link 2: +15000 CRC in 60s"),
]


def test_a_healthy_node_adds_nothing_over_the_soak(tmp_path, monkeypatch):
    _layer0, results = soak(node(tmp_path), monkeypatch, tmp_path)
    assert {check: result["status"] for check, result in results.items()} == dict.fromkeys(results, "PASS"), results


@pytest.mark.parametrize("fault, check, said", SOAK_FAULTS, ids=[case[0]["kind"] + "-" + case[1] for case in SOAK_FAULTS])
def test_a_rising_counter_passes_layer0_and_fails_the_soak(tmp_path, monkeypatch, fault, check, said):
    layer0, results = soak(node(tmp_path, [fault]), monkeypatch, tmp_path)
    assert {name for name, result in layer0.items() if result["status"] != "PASS"} == set(), layer0
    assert {name: result["status"] for name, result in results.items() if result["status"] != "PASS"} == {check: "FAIL"}, results
    assert said in results[check]["actual"], results[check]
    assert results[check]["cause"] == next(c["cause"] for c in SOAK_CHECKS if c["id"] == check)
