"""validate.yml on the twin: the GPUs' own links over the soak (Layer 1 on the GPU nodes). A PCIe link or an NVLink
that starts counting errors passes Layer 0 (its count since reset is still small) and is caught at Layer 1, naming
the GPU, the link and the rise; the counters are read at the start of the soak and after it. Beside the soak, each
rail NIC's own physical layer (mlxlink, issue 67): a rail whose raw BER is over the threshold or whose module runs hot
passes Layer 0 and is caught at Layer 1, naming the rail and its figure."""

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]

# node -> (fault, the Layer 1 check that fails, what its actual says, words of its cause)
RISING = {
    "node-002": ({"kind": "pcie_replays_rising", "gpu": 6, "per_s": 2.0}, "gpu_pcie_replays_soak",
                 "GPU 6 (0000:ba:00.0): +", "PCIe replays rising"),
    "node-003": ({"kind": "nvlink_errors_rising", "gpu": 1, "link": 11, "recovery_per_s": 0.5}, "gpu_nvlink_errors_soak",
                 "GPU 1 (0000:2a:00.0) link 11: +", "NVLink errors rising"),
}

# node -> (fault, what nic_physical_layer's actual says)
NIC = {
    "node-005": ({"kind": "nic_ber", "rail": "mlx5_3", "raw_ber": "5E-6"}, "mlx5_3: raw (pre-FEC) BER 5E-06 > 1E-07"),
    "node-006": ({"kind": "nic_module_hot", "rail": "mlx5_6", "celsius": 81}, "mlx5_6: module 81 C > 70 C"),
}

# Layers 0 to 2: Layer 2's records of a node that failed Layer 1 show the gate ("blocked at layer 1"); the layers above
# were climbed by the two healthy nodes for no test here (the suite's budget, issue 33)
TO_LAYER2 = "--tags layer0,layer1,layer2"


@pytest.fixture(scope="module")
def pod(validate):
    faults = [dict(fault, node=node) for node, (fault, *_rest) in list(RISING.items()) + list(NIC.items())]
    # 3 s: NVLink recovery errors at 0.5/s show as a rise, as on the switches' soak (tests/e2e/test_validate_switches.py)
    return validate({"pod": {"nodes": 6}, "faults": faults}, cmdline=TO_LAYER2, pyramid_soak_seconds=3)


@pytest.mark.parametrize("node", sorted(RISING))
def test_a_link_going_bad_passes_layer0_and_stops_at_layer1(pod, node):
    _fault, check, said, cause = RISING[node]
    host = pod.host(node)
    assert host["verdict"] == "NO-GO" and host["stopped_at"] == 1, pod.not_passing(node)
    layer0 = [r for r in host["checks"] if r["layer"] == 0 and not r.get("not_applicable")]  # InfiniBand's: n/a
    assert layer0 and {r["status"] for r in layer0} == {"PASS"}, [r for r in layer0 if r["status"] != "PASS"]
    layer1 = {r["check"]: r for r in host["checks"] if r["layer"] == 1 and not r.get("not_applicable")}  # InfiniBand's: n/a
    failing = {name: r["status"] for name, r in layer1.items() if r["status"] != "PASS"}
    assert failing == {check: "FAIL"}, layer1
    assert said in layer1[check]["actual"] and "s soak" in layer1[check]["expected"], layer1[check]
    assert cause in layer1[check]["cause"] and layer1[check]["go_back_to"]
    layer2 = [r for r in host["checks"] if r["layer"] == 2 and not r.get("not_applicable")]  # the InfiniBand SM: not on RoCE
    assert layer2 and all(r["status"] == "SKIP" and "blocked at layer 1" in r["actual"] for r in layer2), layer2
    assert all(r["status"] == "SKIP" for r in host["checks"] if r["layer"] > 2)  # not in this run's tags


def test_healthy_nodes_add_nothing_over_the_soak(pod):
    for node in ("node-001", "node-004"):
        host = pod.host(node)
        ran = {r["status"] for r in host["checks"] if r["layer"] <= 2 and not r.get("not_applicable")}
        assert host["stopped_at"] is None and ran == {"PASS"}, pod.not_passing(node)
        soak = {r["check"]: r for r in host["checks"] if r["layer"] == 1 and not r.get("not_applicable")}
        assert set(soak) == {"gpu_pcie_replays_soak", "gpu_nvlink_errors_soak", "nic_physical_layer"}
        assert "8 GPUs: 0 PCIe replays in" in soak["gpu_pcie_replays_soak"]["actual"]
        assert soak["nic_physical_layer"]["actual"].startswith("8 rails: worst raw BER 2E-09, at most 0 effective errors")


@pytest.mark.parametrize("node", sorted(NIC))
def test_a_rail_s_own_physical_layer_passes_layer0_and_stops_at_layer1(pod, node):
    said = NIC[node][1]
    host = pod.host(node)
    assert host["verdict"] == "NO-GO" and host["stopped_at"] == 1, pod.not_passing(node)
    layer0 = [r for r in host["checks"] if r["layer"] == 0 and not r.get("not_applicable")]
    assert layer0 and {r["status"] for r in layer0} == {"PASS"}, [r for r in layer0 if r["status"] != "PASS"]
    layer1 = {r["check"]: r for r in host["checks"] if r["layer"] == 1 and not r.get("not_applicable")}
    assert {name: r["status"] for name, r in layer1.items() if r["status"] != "PASS"} == {"nic_physical_layer": "FAIL"}, layer1
    record = layer1["nic_physical_layer"]
    assert record["actual"] == said and "mlxlink -d" in record["command"], record
    assert "degrading at the NIC's end" in record["cause"] and record["go_back_to"]
    layer2 = [r for r in host["checks"] if r["layer"] == 2 and not r.get("not_applicable")]
    assert layer2 and all(r["status"] == "SKIP" and "blocked at layer 1" in r["actual"] for r in layer2), layer2
    row = next(r for r in pod.report["checklist"] if r["row"] == "links")
    assert node in row["failing_hosts"], row


def test_the_checklist_row_names_the_nodes(pod):
    row = next(r for r in pod.report["checklist"] if r["row"] == "gpu_links_soak")
    assert set(row["failing_hosts"]) == set(RISING), row
