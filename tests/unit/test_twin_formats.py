"""The twin's rendered outputs parse back to the node state they came from."""

import pytest
import yaml

from pyramid_twin import formats, model

# Tool name (as in state["tools"]) -> parser that reads its output.
TOOL_PARSERS = {
    "ibstat": "linux_ibstat",
    "lsmod": "linux_lsmod",
    "mlxconfig": "linux_mlxconfig_query",
    "nvidia-smi": "linux_nvidia_smi_topo_m",
    "modinfo": "linux_modinfo",
}


def node(tmp_path, faults=(), **pod):
    pod.setdefault("nodes", 2)
    scenario = {"pod": pod, "faults": [dict(fault, node="node-001") for fault in faults]}
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump(scenario))
    return model.node_state(model.load_scenario(str(path)), "node-001")


def render(parsers, state):
    """Facts from every renderer, as the collection would gather them."""
    facts = {
        "proc_modules": parsers.parse("linux_proc_modules", formats.proc_modules(state)),
        "lsmod": parsers.parse("linux_lsmod", formats.lsmod(state)),
        "meminfo": parsers.parse("linux_proc_meminfo", formats.proc_meminfo(state)),
        "cmdline": parsers.parse("linux_proc_cmdline", formats.proc_cmdline(state)),
        "osrelease": parsers.parse("linux_proc_osrelease", formats.proc_osrelease(state)),
        "iommu": parsers.parse("linux_sys_class_iommu", formats.sys_class_iommu(state)),
        "topo": parsers.parse("linux_nvidia_smi_topo_m", formats.nvidia_smi_topo(state)),
        "modinfo": parsers.parse("linux_modinfo", formats.modinfo_nvidia(state)),
        "mlxconfig": {},
    }
    if state["rails"]:
        facts["ibstat"] = parsers.parse("linux_ibstat", formats.ibstat(state))
    for device in state["mlxconfig"]:
        rc, out, err = formats.mlxconfig_query(state, device)
        assert (rc, err) == (0, "")
        facts["mlxconfig"][device] = parsers.parse("linux_mlxconfig_query", out)
    return facts


def expected_cell(gpu, rail):
    if rail["gpu"] == gpu["index"]:
        return "PIX"
    return "NODE" if rail["numa"] == gpu["numa"] else "SYS"


def assert_recovers(state, facts):
    """Every fact matches the state it was rendered from."""
    rails = state["rails"]
    if rails:
        devices = facts["ibstat"]["devices"]
        assert list(devices) == [rail["device"] for rail in rails]
        for rail in rails:
            device = devices[rail["device"]]
            assert (device["ca_type"], device["firmware"], device["node_guid"]) == (
                rail["ca_type"], rail["firmware"], rail["node_guid"])
            assert device["ports"] == {str(rail["port"]): {
                "state": rail["state"], "phys_state": rail["phys_state"], "rate_gbps": rail["rate"],
                "link_layer": rail["link_layer"], "port_guid": rail["port_guid"]}}
    for source in ("proc_modules", "lsmod"):
        assert list(facts[source]["modules"]) == state["modules"]
    pages = state["hugepages"]
    assert facts["meminfo"] == {"mem_total_kb": state["mem_total_kb"], "hugepages_total": pages["total"],
                                "hugepages_free": pages["free"], "hugepagesize_kb": pages["size_kb"]}
    assert facts["cmdline"]["raw"] == state["cmdline"]
    assert facts["osrelease"]["release"] == state["kernel_release"]
    assert facts["iommu"]["units"] == sorted(state["iommu_units"])
    assert facts["modinfo"]["version"] == state["nvidia_driver"]["version"]
    assert facts["modinfo"]["open_kernel_module"] == state["nvidia_driver"]["open_kernel_module"]
    for device, params in state["mlxconfig"].items():
        got = facts["mlxconfig"][device]
        assert (got["device"], got["device_type"]) == (device, "ConnectX7")
        for name, entry in params.items():
            modified = entry["next_boot"] != entry["default"] or entry["next_boot"] != entry["current"]
            assert got["params"][name] == dict(entry, modified=modified)
    topo = facts["topo"]
    assert list(topo["nics"].values()) == [rail["device"] for rail in rails]
    nic_of = {device: nic for nic, device in topo["nics"].items()}
    assert list(topo["gpus"]) == ["GPU%d" % gpu["index"] for gpu in state["gpus"]]
    for gpu in state["gpus"]:
        row = topo["gpus"]["GPU%d" % gpu["index"]]
        assert row["numa_affinity"] == str(gpu["numa"])
        for other in state["gpus"]:
            if other is not gpu:
                assert row["links"]["GPU%d" % other["index"]] == "NV18"
        for rail in rails:
            assert row["links"][nic_of[rail["device"]]] == expected_cell(gpu, rail)


def test_healthy_node(parsers, tmp_path):
    state = node(tmp_path)
    facts = render(parsers, state)
    assert_recovers(state, facts)
    assert len(facts["ibstat"]["devices"]) == 8
    assert facts["topo"]["gpus"]["GPU3"]["links"]["NIC3"] == "PIX"
    assert facts["topo"]["gpus"]["GPU3"]["cpu_affinity"] == "0-55,112-167"
    assert "nvidia_peermem" in facts["lsmod"]["modules"]["ib_core"]["used_by"]
    assert facts["cmdline"]["args"]["iommu"] == "pt"


def _check_rail_missing(parsers, state, facts):
    assert "mlx5_3" not in facts["ibstat"]["devices"]
    assert "mlx5_3" not in facts["topo"]["nics"].values()
    rc, out, err = formats.mlxconfig_query(state, "mlx5_3")
    assert (rc, out) == (1, "-E- Failed to open the device\n")
    with pytest.raises(parsers.ParseError):
        parsers.parse("linux_mlxconfig_query", out)


def _port(facts, device):
    return facts["ibstat"]["devices"][device]["ports"]["1"]


# (kind, fault fields, extra check(parsers, state, facts) or None)
FAULT_CASES = [
    # VT-d off in the BIOS: no units, whatever the command line still asks for.
    ("iommu_off", {}, lambda p, s, f: f["iommu"]["units"] == [] and f["cmdline"]["args"]["iommu"] == "pt"),
    ("hugepages", {"total": 0}, lambda p, s, f: (
        f["meminfo"]["hugepages_total"] == 0 and "hugepages" not in f["cmdline"]["args"])),
    ("hugepages", {"total": 32768, "size_kb": 2048}, lambda p, s, f: (
        f["meminfo"]["hugepagesize_kb"] == 2048 and f["cmdline"]["args"]["hugepagesz"] == "2M")),
    ("rail_missing", {"rail": "mlx5_3"}, _check_rail_missing),
    ("port_state", {"rail": "mlx5_5"}, lambda p, s, f: (
        (_port(f, "mlx5_5")["state"], _port(f, "mlx5_5")["phys_state"]) == ("Down", "Polling"))),
    ("rail_rate", {"rail": "mlx5_2", "rate": 200}, lambda p, s, f: _port(f, "mlx5_2")["rate_gbps"] == 200),
    ("rail_rate", {"rail": "mlx5_6"}, lambda p, s, f: _port(f, "mlx5_6")["rate_gbps"] == 100),
    ("module_missing", {}, lambda p, s, f: (
        "nvidia_peermem" not in f["lsmod"]["modules"]
        and "nvidia_peermem" not in f["proc_modules"]["modules"]
        and "nvidia_peermem" not in f["proc_modules"]["modules"]["nvidia"]["used_by"])),
    ("open_kernel_module", {"kernel_release": "6.8.0-1015-nvidia"}, lambda p, s, f: (
        f["modinfo"]["license"] == "Dual MIT/GPL"
        and (f["osrelease"]["major"], f["osrelease"]["minor"]) == (6, 8))),
    ("mlxconfig", {"set": {"ROCE_CC_PRIO_MASK_P1": 0}}, lambda p, s, f: all(
        dev["params"]["ROCE_CC_PRIO_MASK_P1"]["current"] == "0"
        and dev["params"]["ROCE_CC_PRIO_MASK_P1"]["modified"] for dev in f["mlxconfig"].values())),
    ("mlxconfig", {"rail": "mlx5_1", "set": {"ROCE_CC_PRIO_MASK_P1": 255},
                   "next_boot": {"ROCE_CC_PRIO_MASK_P1": 0}}, lambda p, s, f: (
        f["mlxconfig"]["mlx5_1"]["params"]["ROCE_CC_PRIO_MASK_P1"]
        == {"default": "255", "current": "255", "next_boot": "0", "modified": True}
        and not f["mlxconfig"]["mlx5_0"]["params"]["ROCE_CC_PRIO_MASK_P1"]["modified"])),
    ("firmware", {"rail": "mlx5_7"}, lambda p, s, f: (
        f["ibstat"]["devices"]["mlx5_7"]["firmware"] == "28.37.1014"
        and f["ibstat"]["devices"]["mlx5_0"]["firmware"] == "28.39.1002")),
    ("gpu_nic_affinity", {"gpu": 0}, lambda p, s, f: (
        f["topo"]["gpus"]["GPU0"]["links"]["NIC0"] == "SYS"
        and "PIX" not in f["topo"]["gpus"]["GPU0"]["links"].values())),
    ("tool_missing", {"tool": "ibstat"}, None),
    ("tool_hang", {"tool": "mlxconfig"}, None),
    ("tool_garbage", {"tool": "nvidia-smi"}, None),
    ("unreachable", {}, None),
]


@pytest.mark.parametrize("kind,fields,check", FAULT_CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_fault(parsers, tmp_path, kind, fields, check):
    state = node(tmp_path, [dict(fields, kind=kind)])
    facts = render(parsers, state)
    assert_recovers(state, facts)
    if check is not None:
        result = check(parsers, state, facts)
        assert result is None or result  # None: the check asserted itself


# Layer 5/6 faults render through formats_nccl.py; tests/e2e/test_validate_layer5_6.py covers them.
L5_L6_FAULTS = {"slow_node", "nccl_wrong", "nccl_hang", "unstable_step_time", "slow_rank", "training_timeout"}
# Multi-node faults render through formats_fabric.py; tests/unit/test_twin_fabric.py covers them.
FABRIC_FAULTS = {"gdr_off"}


def test_every_fault_kind_is_covered():
    assert {case[0] for case in FAULT_CASES} == set(model.FAULTS) - L5_L6_FAULTS - FABRIC_FAULTS


@pytest.mark.parametrize("tool", sorted(TOOL_PARSERS))
def test_garbage_does_not_parse(parsers, tool):
    with pytest.raises(parsers.ParseError):
        parsers.parse(TOOL_PARSERS[tool], formats.garbage(tool))


@pytest.mark.parametrize("gpus,rails", [(1, 0), (2, 0), (4, 0), (8, 0), (4, 4), (8, 8)])
def test_gpu_and_rail_counts(parsers, tmp_path, gpus, rails):
    state = node(tmp_path, gpus_per_node=gpus, rails=rails)
    facts = render(parsers, state)
    assert_recovers(state, facts)
    assert len(facts["topo"]["gpus"]) == gpus
    assert len(facts["topo"]["nics"]) == rails


def test_infiniband_rails(parsers, tmp_path):
    state = node(tmp_path, node_defaults={"link_layer": "InfiniBand"})
    facts = render(parsers, state)
    assert_recovers(state, facts)
    assert _port(facts, "mlx5_0")["link_layer"] == "InfiniBand"


def test_mlxconfig_by_pci_address_and_unknown_device(parsers, tmp_path):
    state = node(tmp_path)
    rc, out = formats.mlxconfig_query(state, "0000:19:00.0")[:2]
    assert rc == 0 and parsers.parse("linux_mlxconfig_query", out)["device"] == "0000:19:00.0"
    assert formats.mlxconfig_query(state, "mlx5_9")[0] == 1


def test_small_memory_node_still_renders_a_valid_meminfo(parsers, tmp_path):
    state = node(tmp_path, node_defaults={"mem_total_kb": 16318712})  # 64 x 1G pages exceed it
    facts = parsers.parse("linux_proc_meminfo", formats.proc_meminfo(state))
    assert facts["mem_total_kb"] == 16318712 and facts["hugepages_total"] == 64


def test_no_gpus_is_not_a_topology(parsers, tmp_path):
    state = node(tmp_path, gpus_per_node=0, rails=0)
    with pytest.raises(parsers.ParseError):
        parsers.parse("linux_nvidia_smi_topo_m", formats.nvidia_smi_topo(state))
