"""An InfiniBand pod whose subnet is the real management stack (issue 36; twin/pyramid_twin/ibsim.py): Debian's ibsim
simulates the pod's switches and HCAs, opensm sweeps and routes it, and the fabric host's iblinkinfo, ibqueryerrors,
sminfo and dump_fts are the real tools through libumad2sim. validate.yml reads them as it reads a real fabric; the
scenario's faults reach the stack as they would reach a real one (the topology's link widths and cables, the ports'
counters set through ibsim's console, opensm's roots, opensm stopped or restarted).

ibsim 0.10 trains links at HDR at most: these pods are HDR (200 Gb/s rails, 53.125 Gbps lanes), and its ports can
do 12X, so every link says "Could be 12X" (read, never a fault: the link runs at the planned 4X)."""

import glob
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HDR = {"pyramid_rdma_link_layer": "infiniband", "pyramid_rail_rate_gbps": 200}
LAYERS_0_3 = "--tags layer0,layer1,layer2,layer3"
# Layer 3's incast on InfiniBand: node-001 the target, the others its senders (2 x 150 over the 200G port)
INCAST = {"pyramid_incast": True, "pyramid_incast_duration": 5, "pyramid_incast_rate_gbps": 150}


@pytest.fixture(scope="module", autouse=True)
def stack():
    # twin/ is on the path (tests/conftest.py)
    from pyramid_twin import ibsim  # pylint: disable=import-outside-toplevel
    why = ibsim.missing()
    if why:
        pytest.skip("the real InfiniBand stack is not here: %s" % why)


def _pod(nodes, *faults, **ib_sm):
    pod = {"nodes": nodes, "node_defaults": {"link_layer": "InfiniBand", "rate": 200}, "ib_stack": "ibsim"}
    if ib_sm:
        pod["ib_sm"] = ib_sm
    return {"pod": pod, "faults": list(faults)}


def _record(run, node, check):
    return next(r for r in run.host(node)["checks"] if r["check"] == check)


def _opensm_log(nodes):
    """The opensm log of the ibsim pod of exactly ``nodes`` nodes (its topology names node-00N and not the next)."""
    for net in glob.glob(os.path.join(ROOT, ".twin", "changes", "*", "ibsim", "net")):
        text = open(net, encoding="utf-8").read()
        if '"node-%03d mlx5_0"' % nodes in text and '"node-%03d mlx5_0"' % (nodes + 1) not in text:
            return open(os.path.join(os.path.dirname(net), "opensm.log"), encoding="utf-8").read()
    return ""


def test_a_healthy_pod_on_the_real_stack_raises_no_alarm(validate):
    """Layers 0-3 with the incast, the gate enforced: every check PASS or not applicable (RoCE's), read from the real
    tools; the target's leaf ports waited (PortXmitWait set on ibsim while the senders ran) and stopped with the load."""
    run = validate(_pod(3), cmdline=LAYERS_0_3, **HDR, **INCAST)
    for node in ("node-001", "node-002", "node-003"):
        records = [r for r in run.host(node)["checks"] if r["layer"] <= 3 and not r.get("not_applicable")]
        assert {r["status"] for r in records} == {"PASS"}, (node, run.not_passing(node), run.stdout[-3000:])
    assert "8 rails at 4X 53.125 Gbps a lane" in _record(run, "node-002", "ib_links")["actual"]
    assert _record(run, "node-001", "incast_ib")["status"] == "PASS"
    # what only the real tools print: ibsim 0.10's ports can do 12X, opensm answered as master
    links = run.layer_facts("node-001", 1)["ib_link_info"]["ca_ports"]
    assert {link["could_be"] for link in links.values()} == {"12X"}, links
    assert "Entering MASTER state" in _opensm_log(3)


@pytest.fixture(scope="module")
def faulty(validate):
    faults = [
        {"node": "node-002", "kind": "ib_link", "rail": "mlx5_3", "width": "1X"},  # one lane of four, in the topology
        {"node": "node-003", "kind": "ib_cable_swap", "rails": [6, 7]},  # two cables crossed at the leaves
        # node-003 with the inbox RDMA stack (issue 67): no ibstat, its rails read by `rdma -j link show` and their port
        # GUIDs by sysfs (ports/1/gids/0), by which the InfiniBand checks find them in the subnet read
        {"node": "node-003", "kind": "inbox_rdma"},
        # node-004's own port on mlx5_1 counting symbol errors through the soak (ibsim's PerformanceSet before each
        # read): ibqueryerrors names a CA's port by its port GUID, which on ibsim is not its node GUID
        {"node": "node-004", "kind": "ib_port_errors", "rail": "mlx5_1", "end": "ca", "counts": {"SymbolErrorCounter": 3},
         "per_s": {"SymbolErrorCounter": 40}},
        # the leaf port facing node-001's mlx5_2 waiting for credits with nothing running
        {"node": "node-001", "kind": "ib_port_errors", "rail": "mlx5_2", "per_s": {"PortXmitWait": 500}},
        # the leaf port facing node-003's mlx5_1 with its 16-bit symbol error counter at 65535: it no longer counts
        {"node": "node-003", "kind": "ib_port_errors", "rail": "mlx5_1", "counts": {"SymbolErrorCounter": 65535}},
    ]
    return validate(_pod(4, *faults), cmdline=LAYERS_0_3 + " -e pyramid_enforce_gate=false", **HDR)


def test_a_link_at_one_lane_on_the_real_stack_names_the_rail_and_its_leaf_port(faulty):
    record = _record(faulty, "node-002", "ib_links")
    assert record["status"] == "FAIL" and record["layer"] == 1, (record, faulty.stdout[-3000:])
    assert "mlx5_3: 1X 53.125 Gbps Active/LinkUp to leaf1-r3 port 2" in record["actual"], record
    assert "fewer lanes" in record["cause"]
    assert _record(faulty, "node-001", "ib_links")["status"] == "PASS"


def test_crossed_cables_on_the_real_stack_name_both(faulty):
    record = _record(faulty, "node-003", "ib_cabling")
    assert record["status"] == "FAIL" and record["layer"] == 1, record
    assert "mlx5_6: on leaf1-r7 port 3, planned leaf1-r6 port 3 (there: node-003 mlx5_7)" in record["actual"], record
    assert _record(faulty, "node-003", "ib_links")["status"] == "PASS"


def test_an_inbox_node_s_rails_are_found_in_the_subnet_by_their_sysfs_guids(faulty):
    """node-003 (no ibstat): Layer 0's rail checks PASS on `rdma -j link show` and the kernel's files, and Layer 1's
    InfiniBand checks find its rails by the port GUIDs of their gids/0: its crossed cables FAIL naming them, its links
    PASS, never an ERROR for the GUIDs `rdma link` does not show."""
    layer0 = {r["check"]: r for r in faulty.host("node-003")["checks"] if r["layer"] == 0}
    for check in ("rails_present", "rails_active", "rails_link_layer", "rails_rate", "nic_firmware"):
        assert layer0[check]["status"] == "PASS", (check, layer0[check])
    assert layer0["rails_active"]["command"].startswith("rdma -j link show;"), layer0["rails_active"]
    assert _record(faulty, "node-003", "ib_links")["command"].endswith("/ports/1/gids/0")
    record = _record(faulty, "node-003", "ib_rail_leaves")
    assert record["status"] == "FAIL" and "mlx5_6 on leaf1-r7 port 3, the leaf of mlx5_7" in record["actual"], record
    record = _record(faulty, "node-003", "ib_subnet_manager")
    assert record["status"] == "PASS" and "8 rails configured by it" in record["actual"], record
    assert _record(faulty, "node-003", "ib_congestion_idle")["status"] == "PASS"


def test_symbol_errors_at_a_cas_own_port_are_found_by_its_port_guid(faulty):
    record = _record(faulty, "node-004", "ib_port_errors")
    assert record["status"] == "FAIL" and record["layer"] == 1, (record, faulty.stdout[-3000:])
    assert "node-004 mlx5_1 port 1: SymbolErrorCounter +" in record["actual"], record
    assert _record(faulty, "node-002", "ib_port_errors")["status"] == "PASS"
    record = _record(faulty, "node-003", "ib_port_errors")
    assert record["status"] == "ERROR" and "leaf1-r1 port 3 (node-003 mlx5_1): SymbolErrorCounter 65535, its 16-bit maximum" in (
        record["actual"]), record


def test_a_port_waiting_at_idle_on_the_real_stack_and_the_sm_host_named(faulty):
    record = _record(faulty, "node-001", "ib_congestion_idle")
    assert record["status"] == "FAIL" and record["layer"] == 3, record
    assert "leaf1-r2 port 1" in record["actual"] and "PortXmitWait" in record["actual"], record
    assert _record(faulty, "node-002", "ib_congestion_idle")["status"] == "PASS"
    for node in ("node-001", "node-004"):  # opensm on the SM host's HCA, master through the soak
        record = _record(faulty, node, "ib_subnet_manager")
        assert record["status"] == "PASS" and "(ufm-01 mlx5_0) priority 15, SMINFO_MASTER" in record["actual"], record
        assert _record(faulty, node, "ib_sm_handover")["status"] == "PASS"


def test_a_stopped_sm_and_routes_funnelled_onto_one_spine_on_the_real_stack(validate):
    """opensm routed with spine-01 alone as root (updn, a root GUID file), then stopped: no master answers, and every
    leaf's routes to the others leave by its uplink to spine-01 only."""
    run = validate(_pod(2, state="stopped", roots=["spine-01"]), cmdline="--tags layer2 -e pyramid_enforce_gate=false", **HDR)
    for node in ("node-001", "node-002"):
        record = _record(run, node, "ib_subnet_manager")
        assert record["status"] == "FAIL" and record["layer"] == 2, (node, record, run.stdout[-3000:])
        assert "no master" in (record["actual"] + record["cause"]).lower(), record
        record = _record(run, node, "ib_routing")
        assert record["status"] == "FAIL" and "spine-01" in record["actual"], (node, record)


def test_a_stray_opensm_on_a_node_taking_over_as_master_on_the_real_stack(validate):
    """A second opensm on node-002's mlx5_0 (a reimaged node's, left enabled) at priority 15 over the planned SM host's
    (standing by): every port now under the stray, which sminfo names with the node it runs on."""
    run = validate(_pod(2, node="node-002", rail="mlx5_0"), cmdline="--tags layer2 -e pyramid_enforce_gate=false",
                   pyramid_ib_sm_guids=["0x0c42a10300f00001"], **HDR)
    for node in ("node-001", "node-002"):
        record = _record(run, node, "ib_subnet_manager")
        assert record["status"] == "FAIL" and record["layer"] == 2, (node, record, run.stdout[-3000:])
        assert "SM LID 33 GUID 0xa088c20300000201 (node-002 mlx5_0) priority 15 is not one of pyramid_ib_sm_guids" in (
            record["actual"]), record
        assert "an opensm left enabled on a reimaged node" in record["cause"], record


# Two scalable units of two nodes (pod.ib_fabric), four rails: leaf1-r0..r3 and leaf2-r0..r3, each with ports 33 and 34
# up to spine-01 and spine-02. Two leaf-spine links that every idle read passes: leaf2-r0's uplink to spine-01 is slow
# under load (a quarter of its peer's share), off the paths of the pairs of round 2 (node-001 + node-003 and node-002 +
# node-004 hash their rail-0 flows onto spine-02: fabric_load.pair_spine); leaf2-r1's to spine-01 is a marginal cable,
# on node-001 + node-003's rail-1 path, erring only under traffic. That pair misses while each side passes with a
# known-good partner (the path), and the pod's all-to-all misses while each unit holds alone (the spine layer).
UPLINK_FAULTS = [{"kind": "uplink_slow", "leaf": "leaf2-r0", "spine": "spine-01"},
                 {"kind": "uplink_marginal", "leaf": "leaf2-r1", "spine": "spine-01"}]
SLOW_UPLINKS = {"pod": {"nodes": 4, "rails": 4, "gpus_per_node": 4, "ib_stack": "ibsim",
                        "node_defaults": {"link_layer": "InfiniBand", "rate": 200},
                        "ib_fabric": {"nodes_per_leaf": 2, "uplink_faults": UPLINK_FAULTS}},
                "faults": []}
# spine-01's ports to leaf2-r0 and leaf2-r1: the fifth and sixth leaves it cables (leaf1-r0..r3 first)
SLOW_LINK, MARGINAL_LINK = "leaf2-r0 33 - spine-01 5", "leaf2-r1 33 - spine-01 6"


def test_links_that_fail_only_under_load_are_named_from_the_subnet_readers_counters_holding_no_node(validate):
    """Issue 69 on InfiniBand: the link run makes each missed run again (the pair, then the all-to-all) while the
    subnet's reader reads ibqueryerrors' data and error counters before and after it (the real tools on ibsim, what
    the load put through each port set on it), and names each faulty link on its two switches, devices of the report
    found in the subnet's read; the nodes pass, their misses traced to those links."""
    run = validate(SLOW_UPLINKS, cmdline="--tags layer0,layer1,layer2,layer3,layer5", pyramid_enforce_gate=False,
                   pyramid_scalable_unit_nodes=2, pyramid_gpus_per_node=4, pyramid_rails=["mlx5_%d" % rail for rail in range(4)],
                   pyramid_nccl_expected={"4294967296": 150}, **HDR)
    assert run.report, run.stdout[-3000:]
    for node in ("node-001", "node-002", "node-003", "node-004"):
        record = _record(run, node, "nccl_alltoall_pod")
        assert record["status"] == "PASS" and record.get("retraced_by") == "ib_fabric_link_under_load", (
            record, run.stdout[-4000:])
        assert "traced to links %s, %s" % (SLOW_LINK, MARGINAL_LINK) in record["actual"], record
        assert {r["status"] for r in run.host(node)["checks"] if r["layer"] == 5} <= {"PASS", "SKIP"}, run.not_passing(node)
    for node in ("node-001", "node-003"):  # their pair missed on rail 1's path: traced to the marginal cable
        record = _record(run, node, "nccl_pairs")
        assert record["status"] == "PASS" and record.get("retraced_by") == "ib_pair_link_under_load", record
        assert "the pair's miss is traced to link %s" % MARGINAL_LINK in record["actual"], record
    slow = _record(run, "leaf2-r0", "ib_fabric_link_under_load")
    assert slow["status"] == "FAIL" and SLOW_LINK in slow["actual"] and "of leaf2-r0's 1 other uplinks (under 50%)" in slow["actual"]
    assert "of its leaf's other uplinks' traffic" in slow["cause"], slow
    for check in ("ib_fabric_link_under_load", "ib_pair_link_under_load"):
        marginal = _record(run, "leaf2-r1", check)
        assert marginal["status"] == "FAIL" and MARGINAL_LINK in marginal["actual"], marginal
        assert "SymbolErrorCounter +" in marginal["actual"] and "symbol or receive errors" in marginal["cause"], marginal
    spine = _record(run, "spine-01", "ib_fabric_link_under_load")
    assert spine["status"] == "FAIL" and SLOW_LINK in spine["actual"] and MARGINAL_LINK in spine["actual"], spine
    for switch in ("leaf2-r0", "leaf2-r1", "spine-01"):
        assert run.host(switch)["device"] == "switch" and run.host(switch)["verdict"] == "NO-GO"
    healthy = _record(run, "leaf1-r0", "ib_fabric_link_under_load")
    assert healthy["status"] == "PASS" and "2 links on the paths" in healthy["actual"], healthy
    assert run.host("leaf1-r0")["verdict"] == "GO"
    assert "spine-02" not in {switch for switch in run.report["hosts"] if run.host(switch)["verdict"] == "NO-GO"}
