"""An InfiniBand pod whose switches all keep their factory node description (issue 67): the real management stack
(ibsim, opensm, infiniband-diags: twin/pyramid_twin/ibsim.py) with every switch answering "Quantum-2 Mellanox
Technologies" (pod.ib_switch_description), as unmanaged Quantum-2 leaves do. The subnet's reads were refused whole
("switch ... listed twice"); now a switch is its GUID: every check is judged, and findings name the switches by a
node-name map's names where one is given (pyramid_ib_node_name_map: the tools run with --node-name-map), by GUID
otherwise.

ibsim 0.10 trains links at HDR at most: these pods are HDR (200 Gb/s rails, 53.125 Gbps lanes)."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HDR = {"pyramid_rdma_link_layer": "infiniband", "pyramid_rail_rate_gbps": 200}
LAYERS_0_3 = "--tags layer0,layer1,layer2,layer3"
FACTORY = "Quantum-2 Mellanox Technologies"
# formats_infiniband.subnet: the switches' GUIDs by LID (leaf1-r0..r7 LIDs 1-8, spine-01 9, spine-02 10)
LEAVES = {"leaf1-r%d" % rail: "0x0c42a10300%06x" % (rail + 1) for rail in range(8)}
SPINES = {"spine-01": "0x0c42a10300%06x" % 9, "spine-02": "0x0c42a10300%06x" % 10}
IB_CHECKS = ("ib_links", "ib_rail_leaves", "ib_cabling", "ib_port_errors", "ib_subnet_manager", "ib_sm_handover",
             "ib_routing", "ib_congestion_idle")


@pytest.fixture(scope="module", autouse=True)
def stack():
    from pyramid_twin import ibsim  # pylint: disable=import-outside-toplevel
    why = ibsim.missing()
    if why:
        pytest.skip("the real InfiniBand stack is not here: %s" % why)


@pytest.fixture(scope="module")
def node_name_map():
    """A node-name map in ibnetdiscover's format where the fabric host reads it (the checkout's .twin, which the twin's
    nodes see), naming the switches as the twin's plan does."""
    path = os.path.join(ROOT, ".twin", "e2e-ib-node-name-map")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("# switches by node GUID (ibnetdiscover --node-name-map)\n")
        handle.writelines('%s "%s"\n' % (guid, name) for name, guid in sorted(dict(LEAVES, **SPINES).items()))
    yield path
    os.remove(path)


def _pod(nodes, *faults):
    return {"pod": {"nodes": nodes, "node_defaults": {"link_layer": "InfiniBand", "rate": 200}, "ib_stack": "ibsim",
                    "ib_switch_description": FACTORY}, "faults": list(faults)}


def _record(run, node, check):
    return next(r for r in run.host(node)["checks"] if r["check"] == check)


def test_switches_sharing_one_description_are_judged_whole_and_named_by_the_map(validate, node_name_map):
    run = validate(_pod(3), cmdline=LAYERS_0_3, pyramid_ib_node_name_map=node_name_map, **HDR)
    for node in ("node-001", "node-002", "node-003"):
        records = [r for r in run.host(node)["checks"] if r["layer"] <= 3 and not r.get("not_applicable")]
        assert {r["status"] for r in records} == {"PASS"}, (node, run.not_passing(node), run.stdout[-3000:])
        judged = {r["check"] for r in records}
        assert set(IB_CHECKS) <= judged, sorted(set(IB_CHECKS) - judged)
    assert "mlx5_0: 4X 53.125 Gbps Active/LinkUp to leaf1-r0 port 2" in _record(run, "node-002", "ib_links")["actual"]
    assert "leaf1-r0: " in _record(run, "node-001", "ib_routing")["actual"]
    # the tools were given the map: the read names the switches by it, its descriptions all the factory one
    switches = run.layer_facts("node-001", 1)["ib_link_info"]["switches"]
    assert sorted(switch["name"] for switch in switches.values()) == sorted(dict(LEAVES, **SPINES))


def test_without_a_map_the_switches_are_named_by_guid_and_a_fault_is_found(validate):
    run = validate(_pod(3, {"node": "node-002", "kind": "ib_link", "rail": "mlx5_3", "width": "1X"}),
                   cmdline=LAYERS_0_3 + " -e pyramid_enforce_gate=false", pyramid_ib_ports=[], **HDR)
    switches = run.layer_facts("node-001", 1)["ib_link_info"]["switches"]
    assert {switch["description"] for switch in switches.values()} == {FACTORY}
    assert sorted(switches) == sorted(dict(LEAVES, **SPINES).values())
    failed = _record(run, "node-002", "ib_links")
    assert failed["status"] == "FAIL", failed
    assert "mlx5_3: 1X 53.125 Gbps Active/LinkUp to %s port 2" % LEAVES["leaf1-r3"] in failed["actual"], failed
    for node in ("node-001", "node-003"):
        for check in IB_CHECKS:
            record = _record(run, node, check)
            assert record["status"] in ("PASS", "SKIP"), (node, check, record)
            assert record["status"] == "PASS" or record.get("not_applicable"), (node, check, record)
    assert _record(run, "node-001", "ib_routing")["actual"].count(LEAVES["leaf1-r0"]) >= 1
