"""validate.yml on a twin mixed-vendor fabric: host and switch agree on RoCE (issue 14, catalog/roce_agree.yml).

One leaf per rail (r0 eos, r1 nxos, r2 sonic, r3 cumulus, r4 eos, r5 nxos, r6 sonic, r7 cumulus); the agreement is
compared where the switch shows the value: MTU on every leaf, the PFC priority on the EOS (its running-config), SONiC
and NVUE leaves, the DSCP map and ECN on NVUE; elsewhere it says what it could not compare. A NIC whose PFC priority or MTU disagrees with its leaf port FAILs
roce_host_switch_agree at Layer 3 naming both ends (node, rail and value; switch, port and value) beside its own host
check; a leaf port whose lossless priority or MTU is wrong FAILs on the switch at Layer 3 (pfc_enabled, port_mtu) and
blocks the node behind it there. A healthy node agrees with every leaf that shows the values.
"""

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]


@pytest.fixture(scope="module")
def agree_pod(roce_fabric):
    """The session's RoCE fabric (tests/e2e/conftest.py): node-002's NICs lossless on priority 4, node-003's rail 2 at
    MTU 9216 over leaf1-r2's 9100; node-004's ports on leaf1-r6 (MTU 1500) and leaf1-r7 (lossless on priority 4), and
    on leaf1-r1 (no ECN: tests/e2e/test_validate_roce_qos.py's)."""
    return roce_fabric


def _record(run, device, check):
    return next(r for r in run.host(device)["checks"] if r["check"] == check)


def test_a_healthy_node_agrees_with_the_leaves_that_show_the_values(agree_pod):
    record = _record(agree_pod, "node-001", "roce_host_switch_agree")
    assert record["status"] == "PASS" and record["layer"] == 3, (record, agree_pod.stdout[-3000:])
    assert record["actual"].startswith("8 rails agree with their leaf ports"), record  # MTU read on all four platforms
    for said in ("mlx5_2 PFC 3 = leaf1-r2 Ethernet0 3", "mlx5_3 MTU 9000 <= leaf1-r3 swp1 9216", "mlx5_3 DSCP 26 -> 3 = leaf1-r3 swp1",
                 "mlx5_3 ECN on tc 3 at leaf1-r3 swp1", "not compared", "read from NVUE only"):
        assert said in record["actual"], record
    layer3 = [r for r in agree_pod.host("node-001")["checks"] if r["layer"] == 3 and not r.get("not_applicable")]
    assert layer3 and {r["status"] for r in layer3} == {"PASS"}, agree_pod.not_passing("node-001")


def test_a_nic_on_another_pfc_priority_fails_naming_both_ends(agree_pod):
    record = _record(agree_pod, "node-002", "roce_host_switch_agree")
    assert record["status"] == "FAIL", record
    for said in ("node-002 mlx5_2 (ens3np0) PFC on priority 4; leaf1-r2 Ethernet8 lossless priority 3",
                 "node-002 mlx5_3 (ens4np0) PFC on priority 4; leaf1-r3 swp2 lossless priority 3",
                 "node-002 mlx5_7 (ens8np0) PFC on priority 4; leaf1-r7 swp2 lossless priority 3"):
        assert said in record["actual"], record
    assert "PFC not configured end to end" in record["cause"] and record["go_back_to"], record
    layer3 = {r["check"]: r["status"] for r in agree_pod.host("node-002")["checks"]
              if r["layer"] == 3 and r["status"] != "PASS" and not r.get("not_applicable")}
    assert layer3 == {"roce_pfc": "FAIL", "roce_host_switch_agree": "FAIL"}, layer3
    assert agree_pod.host("node-002")["stopped_at"] == 3


def test_a_rail_mtu_over_its_port_fails_naming_both_ends(agree_pod):
    record = _record(agree_pod, "node-003", "roce_host_switch_agree")
    assert record["status"] == "FAIL", record
    assert record["actual"].startswith("node-003 mlx5_2 (ens3np0) MTU 9216; leaf1-r2 Ethernet16 MTU 9100"), record
    layer3 = {r["check"]: r["status"] for r in agree_pod.host("node-003")["checks"]
              if r["layer"] == 3 and r["status"] != "PASS" and not r.get("not_applicable")}
    assert layer3 == {"rail_mtu": "FAIL", "roce_host_switch_agree": "FAIL"}, layer3


def test_leaf_ports_that_disagree_fail_on_the_switch_and_block_the_node(agree_pod):
    mtu = _record(agree_pod, "leaf1-r6", "port_mtu")
    assert mtu["status"] == "FAIL" and mtu["layer"] == 3, mtu
    assert mtu["actual"] == "Ethernet24 MTU 1500 < 9000 (node-004 ens7np0)", mtu
    pfc = _record(agree_pod, "leaf1-r7", "pfc_enabled")
    assert pfc["status"] == "FAIL" and "swp4: PFC off on priority 3 (lossless priorities: 4)" in pfc["actual"], pfc
    node = agree_pod.host("node-004")
    assert node["stopped_at"] == 3, agree_pod.not_passing("node-004")
    blocked = [r for r in node["checks"] if r["status"] == "BLOCKED"]
    assert blocked and {r["layer"] for r in blocked} == {3}, blocked
    by = [entry for r in blocked for entry in r["blocked_by"]]
    assert {"switch": "leaf1-r6", "check": "port_mtu", "status": "FAIL", "ports": ["Ethernet24"]} in by, by
    assert {"switch": "leaf1-r7", "check": "pfc_enabled", "status": "FAIL", "ports": ["swp4"]} in by, by
    assert {"switch": "leaf1-r7", "check": "roce_port_qos", "status": "FAIL", "ports": ["swp4"]} in by, by  # NVUE's RoCE class moved
    assert not {r["status"] for r in node["checks"]} & {"FAIL", "ERROR"}, agree_pod.not_passing("node-004")


def test_the_checklist_row_names_the_failing_hosts(agree_pod):
    rows = {row["row"]: row for row in agree_pod.report["checklist"]}
    assert {"node-002", "node-003", "leaf1-r6"} <= set(rows["roce_agree"]["failing_hosts"]), rows["roce_agree"]
    assert agree_pod.report["verdict"] == "NO-GO"
