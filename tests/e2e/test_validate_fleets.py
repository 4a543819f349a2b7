"""validate.yml on a twin pod as fleets run them (issue 67): Ubuntu nodes read with dpkg-query beside RHEL-family nodes
(Rocky Linux 9.4, NVIDIA's and DOCA's RPMs, no dpkg-query) read with rpm, and nodes with the inbox RDMA stack (rdma-core
and iproute2, no ibstat) whose rails `rdma link` and the kernel's sysfs show. Layer 0 alone (--tags layer0: the stack and
the rails are judged there, and the climb is the healthy pod's to prove): every healthy node passes whatever its
packaging and RDMA tools, a node off the pin is named on either packaging, and a rail down on an inbox node FAILs on
`rdma link`, never an ERROR for the missing ibstat."""

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]

OFF_PIN = "2.19.3-1+cuda12.2"
PIN = {"pyramid_stack": {"nccl": "2.21.5"}}
ROCKY, UBUNTU = "Rocky Linux 9.4 (Blue Onyx)", "Ubuntu 22.04.4 LTS"
# node -> (faults, the distribution its software_stack names, what it must say where it does not pass)
NODES = {
    "node-001": ([], UBUNTU, None),
    "node-002": ([{"kind": "distro", "distro": "rhel"}], ROCKY, None),
    "node-003": ([{"kind": "distro", "distro": "rhel"}, {"kind": "stack", "nccl": OFF_PIN}], ROCKY,
                 "NCCL %s, pinned 2.21.5" % OFF_PIN),
    "node-004": ([{"kind": "stack", "nccl": OFF_PIN}], UBUNTU, "NCCL %s, pinned 2.21.5" % OFF_PIN),
    "node-005": ([{"kind": "inbox_rdma"}], UBUNTU, None),
    "node-006": ([{"kind": "inbox_rdma"}, {"kind": "distro", "distro": "rhel"}], ROCKY, None),
}
# inbox nodes with a rail down: rails_active FAILs on `rdma link`'s DOWN/POLLING, the rail's other checks stand
RAIL_DOWN = {"node-007": [{"kind": "inbox_rdma"}, {"kind": "port_state", "rail": "mlx5_2", "state": "Down", "phys_state": "Polling"}]}


@pytest.fixture(scope="module")
def fleet(validate):
    faults = [dict(fault, node=node) for node, spec in NODES.items() for fault in spec[0]]
    faults += [dict(fault, node=node) for node, each in RAIL_DOWN.items() for fault in each]
    return validate({"pod": {"nodes": len(NODES) + len(RAIL_DOWN)}, "faults": faults}, cmdline="--tags layer0", **PIN)


def _layer0(run, node):
    return {r["check"]: r for r in run.host(node)["checks"] if r["layer"] == 0 and not r.get("not_applicable")}


@pytest.mark.parametrize("node", sorted(NODES))
def test_each_node_is_judged_on_its_own_packaging(fleet, node):
    _faults, distro, off = NODES[node]
    records = _layer0(fleet, node)
    stack = records["software_stack"]
    assert distro in stack["actual"], stack
    if off is None:
        # a healthy node passes every Layer 0 check, rpm or dpkg: nothing read by the other manager is an ERROR
        assert {check: r["status"] for check, r in records.items() if r["status"] != "PASS"} == {}, records
        assert fleet.host(node)["stopped_at"] is None
        assert "NCCL 2.21.5-1+cuda12.4" in stack["actual"] and "CUDA runtime 12.4.127-1" in stack["actual"]
        return
    assert stack["status"] == "FAIL" and off in stack["actual"] and "Not the pinned stack" in stack["cause"], stack
    assert fleet.host(node)["verdict"] == "NO-GO" and fleet.host(node)["stopped_at"] == 0
    assert {check for check, r in records.items() if r["status"] != "PASS"} == {"software_stack"}, records


def test_the_rhel_nodes_were_read_with_rpm_and_their_kernel_held_among_their_own(fleet):
    stack = _layer0(fleet, "node-002")["software_stack"]
    assert "rpm -q --queryformat" in stack["command"] or "rpm -q" in str(stack), stack
    assert "kernel 5.14.0-427.13.1.el9_4.x86_64" in stack["actual"]  # Rocky's build, not the Ubuntu nodes' 5.15
    assert "kernel 5.15.0-119-generic" in _layer0(fleet, "node-001")["software_stack"]["actual"]


RAIL_CHECKS = ("rails_present", "rails_active", "rails_link_layer", "rails_rate", "nic_firmware", "mlxconfig", "gpu_nic_affinity")


@pytest.mark.parametrize("node", ["node-005", "node-006"])
def test_an_inbox_node_s_rails_pass_on_rdma_link_and_the_kernel_s_files(fleet, node):
    records = _layer0(fleet, node)
    assert {check: records[check]["status"] for check in RAIL_CHECKS} == {check: "PASS" for check in RAIL_CHECKS}
    assert "8 ports at 400G" in records["rails_rate"]["actual"] and "8 rails on 28.39.1002" in records["nic_firmware"]["actual"]
    assert records["rails_active"]["command"].startswith("rdma -j link show;")  # iproute2's JSON form, before its text


def test_a_rail_down_on_an_inbox_node_fails_on_rdma_link_never_an_error(fleet):
    records = _layer0(fleet, "node-007")
    active = records["rails_active"]
    assert active["status"] == "FAIL" and "mlx5_2/1 Down/Polling" in active["actual"], active
    assert {check: r["status"] for check, r in records.items() if r["status"] != "PASS"} == {"rails_active": "FAIL"}, records
    assert fleet.host("node-007")["verdict"] == "NO-GO" and fleet.host("node-007")["stopped_at"] == 0
