"""An InfiniBand pod on the twin (docs/infiniband.md, issue 36): validate.yml reads the subnet once, on its reader, and
judges every node's own rails from it (catalog/infiniband.yml: ib_links, ib_rail_leaves), and the subnet's error
counters read twice a soak apart on the same reader (ib_port_errors).

The runs read Layer 1, their gate lifted (the subnet checks are Layer 1's), the fault pod Layer 0 too: the rails' link
layer and a port that no subnet manager configured, and Layer 2: the subnet manager (ib_subnet_manager: sminfo read
once, each node's ports under the master; ib_sm_handover: sminfo a soak apart, the master restarted between; ib_routing:
every leaf's routes spread over both spines, dump_fts read once). A healthy pod runs every layer: GO. A degraded
link that ibstat stops at Layer 0 is judged at Layer 1 from the fabric's side as well. The SM's own faults (stopped, a
stray one master, routes funnelled onto one spine) are the whole pod's: small pods of their own."""

import json
import os

import pytest

IB = {"link_layer": "InfiniBand"}
# the default NCCL environment (catalog/roce_host.yml pyramid_nccl_env) asking for SHARP, on InfiniBand (no GID index)
COLLNET_ENV = {"NCCL_DEBUG": "INFO", "NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7",
               "NCCL_COLLNET_ENABLE": "1", "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
LAYER1 = "--tags layer1 -e pyramid_enforce_gate=false"
# Layer 3 under load on InfiniBand (catalog/incast.yml incast_ib): node-001 the target of every rail's leaf, the other
# nodes its senders, 5 s windows; their offer must exceed the 400G port (3 nodes: 2 x 250, 4 nodes: 3 x 150)
INCAST = {"pyramid_incast": True, "pyramid_incast_duration": 5, "pyramid_incast_rate_gbps": 250}
# The fault pod reads Layer 0 too (its InfiniBand specifics: the link layer, a port no subnet manager configured)
# and Layer 3, whose RoCE checks (DCQCN, trust, PFC, DSCP, the host/switch agreement, the incast) are not applicable here
LAYERS_0_1 = "--tags layer0,layer1,layer2,layer3 -e pyramid_enforce_gate=false"
FAULTS = [
    {"node": "node-002", "kind": "ib_link", "rail": "mlx5_3", "width": "1X"},  # one lane of four
    # trained, never configured: no subnet manager has reached it (ibstat Initializing/LinkUp)
    {"node": "node-002", "kind": "port_state", "rail": "mlx5_5", "state": "Initializing", "phys_state": "LinkUp"},
    {"node": "node-003", "kind": "ib_cable_swap", "rails": [6, 7]},  # two cables crossed at the leaves
    # symbol errors rising at the leaf port facing node-003's mlx5_1 (a dirty cable), from the soak's first read
    {"node": "node-003", "kind": "ib_port_errors", "rail": "mlx5_1", "counts": {"SymbolErrorCounter": 3},
     "per_s": {"SymbolErrorCounter": 40}},
    # node-004's own port on mlx5_4: a 16-bit symbol error counter stopped at 65535 (nothing learnt from it)
    {"node": "node-004", "kind": "ib_port_errors", "rail": "mlx5_4", "end": "ca", "counts": {"SymbolErrorCounter": 65535}},
    {"node": "node-001", "kind": "ib_port_errors", "rail": "mlx5_0", "counts": {"LinkDownedCounter": 1}},  # old, not rising
    # the leaf port facing node-001's mlx5_2 waiting for credits with nothing running (congestion, not a link error)
    {"node": "node-001", "kind": "ib_port_errors", "rail": "mlx5_2", "per_s": {"PortXmitWait": 500}},
    # node-002's mlx5_6 negotiated 2048 bytes where its port can do 4096 (the leaf port facing it capped lower)
    {"node": "node-002", "kind": "ib_mtu", "rail": "mlx5_6", "mtu": 2048},
    # node-004's mlx5_2 configured by another SM than the master (a second master: another SM_Key, a split subnet)
    {"node": "node-004", "kind": "ib_sm_lid", "rail": "mlx5_2", "lid": 200},
    # under the incast at node-001 (the target), its leaf ports drop what waited past the head-of-queue lifetime
    {"node": "node-001", "kind": "ib_hoq_lifetime_short"},
]


def _pod(nodes, *faults):
    return {"pod": {"nodes": nodes, "node_defaults": IB}, "faults": list(faults)}


def _record(run, node, check):
    return next(r for r in run.host(node)["checks"] if r["check"] == check)


@pytest.fixture(scope="module")
def faulty(validate):
    # and the master SM restarts right after the soak's first sminfo read: the same SM answers at Layer 2, its
    # activity count started over (as opensm's did on ibsim when killed and started again)
    pod = _pod(4, *FAULTS)
    pod["pod"]["ib_sm"] = {"restarts": True}
    return validate(pod, cmdline=LAYERS_0_1, pyramid_rdma_link_layer="infiniband", **INCAST)


def test_a_healthy_infiniband_pod_is_go_every_layer_with_no_false_alarm(validate):
    """Every layer on a healthy InfiniBand pod, no Ethernet switch in the inventory (the subnet is read from a node):
    GO, every check PASS or not applicable (RoCE's), the go-live rows of RoCE (BGP, PFC/ECN) not applicable rather
    than gaps, the subnet manager's rows checked, the SM watched over the soak."""
    pod = _pod(3)
    pod["pod"]["sharp"] = {"state": "up"}  # and SHARP declared, asked for and used
    run = validate(pod, pyramid_rdma_link_layer="infiniband", pyramid_nccl_sharp=True, pyramid_nccl_env=COLLNET_ENV, **INCAST)
    assert run.report["verdict"] == "GO" and run.rc == 0, run.stdout[-3000:]
    assert run.report["unchecked_rows"] == [] and run.report["waived_rows"] == []
    for node in ("node-001", "node-002", "node-003"):
        info = run.host(node)
        assert info["verdict"] == "GO" and {r["status"] for r in info["checks"] if not r.get("not_applicable")} == {"PASS"}, (
            node, run.not_passing(node))
        assert not [r["check"] for r in info["checks"] if r.get("not_applicable") and r["layer"] != 3], node  # RoCE's own
    rows = {row["row"]: row for row in run.report["checklist"]}
    assert {rows[row]["status"] for row in ("subnet_manager", "ib_routing", "ib_congestion_idle", "ib_congestion_load", "links",
                                            "rdma_bw", "nccl", "training")} == {"pass"}
    # the incast: node-001 the target of all eight rail leaves, its leaf ports waiting under the load and not after it
    record = _record(run, "node-001", "incast_ib")
    assert record["status"] == "PASS" and "target node-001, senders node-002, node-003" in record["actual"], record
    assert "leaf1-r7 port 1 (node-001 rail 7): PortXmitWait +" in record["actual"] and "PortXmitDiscards +0" in record["actual"]
    record = _record(run, "node-003", "incast_ib")
    assert record["not_applicable"] and "its leaves are proven by the targets' incasts" in record["actual"], record
    for row in ("bgp_ecmp", "qos_idle", "roce_host", "roce_agree", "qos_load"):
        assert "not applicable: pyramid_rdma_link_layer is infiniband" in rows[row]["why_not"], rows[row]
    record = _record(run, "node-002", "ib_sm_handover")
    assert "SM LID 1 GUID 0x0c42a10300000001 (leaf1-r0) priority 15, master throughout the soak" in record["actual"], record
    for check in ("nccl_pairs", "nccl_scale"):
        assert "SHARP (CollNet connected) on every node" in _record(run, "node-001", check)["actual"]


def test_sharp_declared_but_refused_by_the_aggregation_manager_fails_every_node_at_layer5(validate):
    pod = _pod(2)  # one pair: its two nodes are the run
    pod["pod"]["sharp"] = {"state": "no_job"}
    run = validate(pod, cmdline="--tags layer5 -e pyramid_enforce_gate=false", pyramid_rdma_link_layer="infiniband",
                   pyramid_nccl_sharp=True, pyramid_nccl_env=COLLNET_ENV)
    for node in ("node-001", "node-002"):
        record = _record(run, node, "nccl_pairs")
        assert record["status"] == "FAIL" and record["layer"] == 5, (record, run.stdout[-3000:])
        assert "SHARP declared but not used" in record["actual"] and "Cannot create SHARP job(-11)" in record["actual"], record
        assert "aggregation manager" in record["cause"], record


def test_the_subnet_is_read_once_on_its_reader_and_healthy_nodes_pass(faulty):
    for node in ("node-001", "node-004"):
        for check in ("ib_links", "ib_rail_leaves"):
            record = _record(faulty, node, check)
            assert record["status"] == "PASS", (node, record, faulty.stdout[-3000:])
            assert "seen by iblinkinfo on node-001" in record["expected"]  # the first GPU node: no ib_fabric_hosts group
    assert "8 rails at 4X 106.25 Gbps a lane" in _record(faulty, "node-001", "ib_links")["actual"]
    # iblinkinfo ran on node-001 alone: the other nodes' Layer 1 reads did not include it
    assert "ib_link_info" not in faulty.layer_facts("node-002", 1) and "ib_link_info" in faulty.layer_facts("node-001", 1)


def test_a_link_at_one_lane_names_the_rail_the_leaf_port_and_what_it_could_be(faulty):
    record = _record(faulty, "node-002", "ib_links")
    assert record["status"] == "FAIL" and record["layer"] == 1, record
    assert "mlx5_3: 1X 106.25 Gbps Active/LinkUp to leaf1-r3 port 2 (could be 4X)" in record["actual"]
    assert "fewer lanes" in record["cause"]
    assert _record(faulty, "node-002", "ib_rail_leaves")["status"] == "PASS"


def test_crossed_cables_name_both_rails_where_they_land_and_their_own_leaves(faulty):
    record = _record(faulty, "node-003", "ib_rail_leaves")
    assert record["status"] == "FAIL", record
    assert "mlx5_6 on leaf1-r7 port 3, the leaf of mlx5_7 (3 other nodes' mlx5_7 there); mlx5_6's leaf: leaf1-r6" in record["actual"]
    assert "mlx5_7 on leaf1-r6 port 3" in record["actual"] and "Miscabled" in record["cause"]
    assert _record(faulty, "node-003", "ib_links")["status"] == "PASS"  # every link itself is healthy
    # against the cabling plan the twin's inventory states for each node (pyramid_ib_ports): both cables named, and
    # what sits on each planned port; the healthy nodes' rails each on their planned port
    record = _record(faulty, "node-003", "ib_cabling")
    assert record["status"] == "FAIL" and record["layer"] == 1, record
    assert "mlx5_6: on leaf1-r7 port 3, planned leaf1-r6 port 3 (there: node-003 mlx5_7)" in record["actual"], record
    assert "mlx5_7: on leaf1-r6 port 3, planned leaf1-r7 port 3 (there: node-003 mlx5_6)" in record["actual"], record
    record = _record(faulty, "node-001", "ib_cabling")
    assert record["status"] == "PASS" and record["actual"] == "8 rails each on its planned switch and port", record


def test_layer0_reads_the_rails_on_infiniband_and_names_a_port_no_subnet_manager_configured(faulty):
    record = _record(faulty, "node-001", "rails_link_layer")
    assert record["status"] == "PASS" and record["actual"] == "8 ports on InfiniBand", record
    assert _record(faulty, "node-001", "rails_active")["status"] == "PASS"
    record = _record(faulty, "node-002", "rails_active")
    assert record["status"] == "FAIL" and record["layer"] == 0 and "mlx5_5/1 Initializing/LinkUp" in record["actual"], record
    assert "no subnet manager has configured it" in record["cause"], record
    assert _record(faulty, "node-002", "rails_link_layer")["status"] == "PASS"
    # and a rail that negotiated a smaller MTU than the fabric runs, named with what its port can do
    record = _record(faulty, "node-002", "rails_ib_mtu")
    assert record["status"] == "FAIL" and record["layer"] == 0 and "mlx5_6: active_mtu 2048, max_mtu 4096" in record["actual"], record
    assert "capped lower" in record["cause"] and _record(faulty, "node-001", "rails_ib_mtu")["actual"] == "8 rails at 4096 bytes"
    # the subnet shows that port as ibsim did with OpenSM stopped: trained, Initialize/LinkUp, cabled where it should be
    assert "mlx5_5: 4X 106.25 Gbps Initialize/LinkUp to leaf1-r5 port 2" in _record(faulty, "node-002", "ib_links")["actual"]


def test_a_reader_without_iblinkinfo_is_an_error_on_every_node_never_a_pass(validate):
    run = validate(_pod(3, {"node": "node-001", "kind": "tool_missing", "tool": "iblinkinfo"}), cmdline=LAYER1,
                   pyramid_rdma_link_layer="infiniband")
    for node in ("node-001", "node-002", "node-003"):
        record = _record(run, node, "ib_links")
        assert record["status"] == "ERROR" and "iblinkinfo" in record["actual"], (node, record)


def test_a_roce_pod_has_its_infiniband_checks_not_applicable(healthy_pod):
    record = _record(healthy_pod, "node-001", "ib_links")
    assert record["status"] == "SKIP" and record.get("not_applicable") and "pyramid_rdma_link_layer is roce" in record["actual"]


def test_error_counters_over_the_soak_rising_named_saturated_an_error_old_counts_pass(faulty):
    record = _record(faulty, "node-003", "ib_port_errors")
    assert record["status"] == "FAIL" and record["layer"] == 1, (record, faulty.stdout[-3000:])
    assert "leaf1-r1 port 3 (node-003 mlx5_1): SymbolErrorCounter +" in record["actual"], record
    assert "dirty or damaged cable or transceiver" in record["cause"]
    record = _record(faulty, "node-004", "ib_port_errors")
    assert record["status"] == "ERROR", record  # never a rate from a counter that stopped counting
    assert "node-004 mlx5_4 port 1: SymbolErrorCounter 65535, its 16-bit maximum" in record["actual"], record
    assert "perfquery -R -G" in record["actual"] and "clear the named port's counters" in record["cause"]
    record = _record(faulty, "node-001", "ib_port_errors")
    assert record["status"] == "PASS", record
    assert "leaf1-r0 port 1 (node-001 mlx5_0): LinkDownedCounter 1, not rising" in record["actual"], record
    assert "read by ibqueryerrors on node-001" in record["expected"]
    # read on the reader alone, at the snapshot and at Layer 1: the other nodes read no subnet
    assert "ib_port_counters" in faulty.layer_facts("node-001", 1) and "ib_port_counters" not in faulty.layer_facts("node-003", 1)


def test_roce_checks_are_not_applicable_on_an_infiniband_pod_and_read_nothing(faulty):
    layer3 = [r for r in faulty.host("node-001")["checks"] if r["layer"] == 3 and r["check"] not in ("ib_congestion_idle", "incast_ib")]
    assert {r["check"] for r in layer3} >= {"roce_dcqcn", "roce_trust", "roce_pfc", "roce_dscp", "rail_mtu", "roce_gid",
                                            "nic_counters", "roce_host_switch_agree", "incast_ecn"}, layer3
    for record in layer3:
        assert record["status"] == "SKIP" and record.get("not_applicable"), record
        assert "pyramid_rdma_link_layer is infiniband" in record["actual"], record
    # no netdev ECN, DSCP or PFC read on InfiniBand rails: Layer 3 reads the subnet's counters (on the reader) alone
    # (and each rail's port GUID from sysfs, which ib_congestion_idle reads where `rdma link` read the rails)
    assert set(faulty.layer_facts("node-001", 3)) <= {"ib_port_counters", "ib_link_info", "ibstat", "rail_port_guid_sysfs"}
    assert set(faulty.layer_facts("node-003", 3)) <= {"ibstat", "rail_port_guid_sysfs"}


def test_a_port_waiting_for_credits_at_idle_fails_layer3_naming_it_never_layer1(faulty):
    record = _record(faulty, "node-001", "ib_congestion_idle")
    assert record["status"] == "FAIL" and record["layer"] == 3, (record, faulty.stdout[-3000:])
    assert "leaf1-r2 port 1 (node-001 mlx5_2): PortXmitWait +" in record["actual"] and "waiting for credits" in record["cause"]
    assert _record(faulty, "node-001", "ib_port_errors")["status"] == "PASS"  # congestion is no link error
    assert _record(faulty, "node-004", "ib_congestion_idle")["status"] == "PASS"


def test_one_master_sm_and_a_port_under_another_sm_named_at_layer2(faulty):
    record = _record(faulty, "node-001", "ib_subnet_manager")
    assert record["status"] == "PASS" and record["layer"] == 2, (record, faulty.stdout[-3000:])
    assert "master SM LID 1 GUID 0x0c42a10300000001 (leaf1-r0) priority 15, SMINFO_MASTER; 8 rails" in record["actual"]
    assert "answering sminfo on node-001" in record["expected"]
    record = _record(faulty, "node-004", "ib_subnet_manager")
    assert record["status"] == "FAIL" and "mlx5_2: SM lid 200, not the master's 1" in record["actual"], record
    assert "a second master" in record["cause"]
    # the port no SM configured (Layer 0's finding, the gate lifted here) is under no master either
    assert "mlx5_5: SM lid 0" in _record(faulty, "node-002", "ib_subnet_manager")["actual"]
    # the same master at Layer 2, restarted since the soak's start (its activity count fell): a handover of its own
    for node in ("node-001", "node-003"):
        record = _record(faulty, node, "ib_sm_handover")
        assert record["status"] == "FAIL" and record["layer"] == 2, record
        assert "the master restarted during the soak" in record["actual"] and "its activity count fell from" in record["actual"]
        assert "changed masters during the run" in record["cause"], record
    # sminfo ran on the reader alone; the ping mesh ran beside it (Layer 2's other row)
    assert "ib_sm_info" in faulty.layer_facts("node-001", 2) and "ib_sm_info" not in faulty.layer_facts("node-003", 2)
    assert _record(faulty, "node-001", "rail_ping")["status"] == "PASS"
    # the SM's routes (dump_fts, read on the reader too) spread each leaf over both spines: 7 other leaves' 4 CAs each
    record = _record(faulty, "node-001", "ib_routing")
    assert record["status"] == "PASS" and record["layer"] == 2, record
    assert "leaf1-r0: 28 routes to other leaves' CAs: port 33 (spine-01) 14, port 34 (spine-02) 14" in record["actual"], record


@pytest.mark.parametrize("ib_sm, extra, check, said", [
    ({"state": "stopped"}, {}, "ib_subnet_manager",
     ("no SM answers sminfo on node-001; node-00{n}'s ports name SM LID 1", "No master subnet manager")),
    # an opensm left enabled on node-002 won: every port is configured by it; the plan names the switch's SM
    ({"node": "node-002", "rail": "mlx5_0"}, {"pyramid_ib_sm_guids": ["0x0c42a10300000001"]}, "ib_subnet_manager",
     ("(node-002 mlx5_0) priority 15 is not one of pyramid_ib_sm_guids", "an opensm left enabled on a reimaged node")),
    # seed 004's opening: the SM's routing takes spine-01 alone as its root (updn, a root GUID file naming one spine):
    # every leaf's traffic to the others funnelled onto it, spine-02 idle
    ({"roots": ["spine-01"]}, {}, "ib_routing",
     ("leaf1-r0: 21 routes to other leaves' CAs: port 33 (spine-01) 21, port 34 (spine-02) 0 - funnelled onto spine-01, "
      "spine-02 starved", "Routing funnelled")),
], ids=["stopped", "a stray opensm master", "routes funnelled onto one spine"])
def test_the_subnet_managers_own_faults_fail_every_node_naming_the_sm(validate, ib_sm, extra, check, said):
    run = validate({"pod": {"nodes": 3, "node_defaults": IB, "ib_sm": ib_sm}, "faults": []},
                   cmdline="--tags layer2 -e pyramid_enforce_gate=false", pyramid_rdma_link_layer="infiniband", **extra)
    for number in (1, 2, 3):
        record = _record(run, "node-00%d" % number, check)
        assert record["status"] == "FAIL" and record["layer"] == 2, (record, run.stdout[-3000:])
        assert said[0].format(n=number) in record["actual"] and said[1] in record["cause"], record
    if check == "ib_routing":  # the SM itself is healthy: one master, every port under it
        assert _record(run, "node-001", "ib_subnet_manager")["status"] == "PASS"
        assert "ib_routes" in run.layer_facts("node-001", 2) and "ib_routes" not in run.layer_facts("node-002", 2)


def test_discards_under_the_incast_fail_the_target_naming_its_leaf_ports_and_leave_the_others_not_proven(faulty):
    record = _record(faulty, "node-001", "incast_ib")
    assert record["status"] == "FAIL" and record["layer"] == 3, (record, faulty.stdout[-3000:])
    assert "leaf1-r0 port 1 (node-001 rail 0): PortXmitWait +" in record["actual"] and "PortXmitDiscards +" in record["actual"]
    assert "head-of-queue lifetime" in record["cause"], record
    assert "target node-001, senders node-002, node-003, node-004" in record["actual"]
    # node-001's mlx5_2 leaf port waits at idle too (its fault above): after the load it still does, said beside the discards
    assert "leaf1-r2 port 1 (node-001 rail 2)" in record["actual"]
    for node in ("node-002", "node-004"):  # behind the failing leaves: held back there, not failing on their own
        record = _record(faulty, node, "incast_ib")
        assert record["status"] == "BLOCKED" and record["layer"] == 3, record
        assert record["actual"].startswith("blocked by leaf1-r0, leaf1-r1") and "(target node-001)" in record["actual"], record
        assert record["cause"].startswith("Not this host: leaf1-r0 fails its incast at target node-001 (Packets discarded"), record
        assert faulty.host(node)["verdict"] == "NO-GO"
    assert "L3 by leaf1-r0 incast_ib, leaf1-r1 incast_ib" in faulty.stdout, faulty.stdout[-3000:]
    assert _record(faulty, "node-001", "incast_ecn")["not_applicable"]  # RoCE's


def test_a_target_that_stops_returning_credits_leaves_its_leaf_ports_waiting_after_the_load(validate):
    """Layer 3 and its incast alone (the incast finds the leaves in Layer 3's read of the subnet), the gate lifted."""
    run = validate(_pod(3, {"node": "node-001", "kind": "ib_credit_stall"}), cmdline="--tags layer3 -e pyramid_enforce_gate=false",
                   pyramid_rdma_link_layer="infiniband", **INCAST)
    record = _record(run, "node-001", "incast_ib")
    assert record["status"] == "FAIL", (record, run.stdout[-3000:])
    assert "credit loop" in record["cause"] and "in the" in record["actual"] and "after it" in record["actual"], record
    assert "PortXmitDiscards +0" in record["actual"]


def test_ibdiagnet_where_the_site_runs_it_reads_a_count_past_the_16_bit_maximum_rising(validate):
    """pyramid_ib_counters_reader: ibdiagnet: the subnet's counters from ibdiagnet2.db_csv (payloads/ibdiagnet_read.py on
    the reader), each port's 64-bit counters: a symbol error count past 65535 still rising is a FAIL with its rise, where
    ibqueryerrors' 16-bit read could only say it stopped counting (ERROR); the other nodes pass."""
    fault = {"node": "node-003", "kind": "ib_port_errors", "rail": "mlx5_1", "counts": {"SymbolErrorCounter": 65535},
             "per_s": {"SymbolErrorCounter": 40}}
    run = validate(_pod(3, fault), cmdline=LAYER1, pyramid_rdma_link_layer="infiniband", pyramid_ib_counters_reader="ibdiagnet")
    record = _record(run, "node-003", "ib_port_errors")
    assert record["status"] == "FAIL" and record["layer"] == 1, (record, run.stdout[-3000:])
    assert "leaf1-r1 port 3 (node-003 mlx5_1): SymbolErrorCounter +" in record["actual"] and "(65535 -> " in record["actual"], record
    assert "read by ibdiagnet on node-001" in record["expected"] and "ibdiagnet" in record["command"], record
    for node in ("node-001", "node-002"):
        assert _record(run, node, "ib_port_errors")["status"] == "PASS", run.not_passing(node)
    missing = validate(_pod(2, {"node": "node-001", "kind": "tool_missing", "tool": "ibdiagnet"}), cmdline=LAYER1,
                       pyramid_rdma_link_layer="infiniband", pyramid_ib_counters_reader="ibdiagnet")
    for node in ("node-001", "node-002"):  # chosen and not installed: an ERROR naming it, never ibqueryerrors instead
        record = _record(missing, node, "ib_port_errors")
        assert record["status"] == "ERROR" and "ibdiagnet" in record["actual"], (node, record)
        # the cause names where the read failed (the pod's reader), not each node it was read for
        assert "ibdiagnet` on node-001" in record["cause"] and node in record["cause"], record


def test_the_readers_own_layer1_failure_costs_no_other_node_its_verdict(validate):
    """Issue 66: no ib_fabric_hosts group, so node-001 (the first GPU node) reads the subnet for the pod, and its own
    cables are crossed (Layer 1 FAIL). It stays the pod's reader for the whole run: held back for its own checks at
    Layers 2 and 3, it still reads sminfo, dump_fts, iblinkinfo and ibqueryerrors there, so the soak's start it read
    is compared on every other node (no "no snapshot of ib_sm_watch before the soak"). node-004's own fault at Layer 2
    (a rail configured by another SM) and node-003's at Layer 3 (its leaf port waiting for credits at idle) are found
    there; the healthy nodes pass every layer, the incast among them read on node-001 too, and are GO."""
    run = validate(_pod(6, {"node": "node-001", "kind": "ib_cable_swap", "rails": [6, 7]},
                        {"node": "node-004", "kind": "ib_sm_lid", "rail": "mlx5_2", "lid": 200},
                        {"node": "node-003", "kind": "ib_port_errors", "rail": "mlx5_2", "per_s": {"PortXmitWait": 500}}),
                   pyramid_rdma_link_layer="infiniband", **INCAST)
    with open(os.path.join(run.run_dirs[-1], "pod_readers.json"), encoding="utf-8") as handle:
        assert json.load(handle) == {"ib_fabric_hosts": [{"host": "node-001", "layer": 1}]}, run.stdout[-3000:]
    summary = {node: (info["verdict"], info["stopped_at"], info.get("cause")) for node, info in run.report["hosts"].items()}
    # the reader's own failure, named at its layer, and its NO-GO says so
    record = _record(run, "node-001", "ib_rail_leaves")
    assert record["status"] == "FAIL" and record["layer"] == 1 and "mlx5_6 on leaf1-r7 port 1" in record["actual"], record
    assert run.host("node-001")["verdict"] == "NO-GO" and run.host("node-001")["stopped_at"] == 1, summary
    assert _record(run, "node-001", "ib_sm_handover")["actual"].startswith("not run: blocked at layer 1"), run.host("node-001")
    assert not run.layer_facts("node-001", 2), "a held-back reader's reads for the pod are no facts of its own"
    for node in ("node-002", "node-003", "node-004"):  # judged on node-001's reads, its soak's start
        record = _record(run, node, "ib_sm_handover")
        assert record["status"] == "PASS" and record["layer"] == 2, (node, record, run.stdout[-3000:])
        assert "master throughout the soak" in record["actual"], record
        assert "answering sminfo on node-001" in _record(run, node, "ib_subnet_manager")["expected"]
        assert _record(run, node, "ib_routing")["status"] == "PASS"
    # node-004's own fault at Layer 2, node-003's at Layer 3, from the same reader's reads
    record = _record(run, "node-004", "ib_subnet_manager")
    assert record["status"] == "FAIL" and "mlx5_2: SM lid 200, not the master's 1" in record["actual"], record
    assert run.host("node-004")["stopped_at"] == 2, summary
    record = _record(run, "node-003", "ib_congestion_idle")
    assert "read by ibqueryerrors on node-001" in record["expected"], record
    assert record["status"] == "FAIL" and record["layer"] == 3, (record, summary)
    assert "leaf1-r2 port 3 (node-003 mlx5_2): PortXmitWait +" in record["actual"] and "waiting for credits" in record["cause"]
    # the incast: its fabric reads on node-001 too, which found the leaves in node-001's read of the subnet at Layer 3
    record = _record(run, "node-002", "incast_ib")
    assert record["status"] == "PASS" and "target node-002, senders node-005, node-006" in record["actual"], (record, summary)
    # the healthy nodes (three: the incast's target and senders, pairs for Layers 4 and 5): nothing failing, every
    # layer up to 6 run and passed, GO
    for node in ("node-002", "node-005", "node-006"):
        info = run.host(node)
        assert not [r["check"] for r in info["checks"] if r["status"] in ("FAIL", "ERROR", "BLOCKED")], run.not_passing(node)
        assert {0, 1, 2, 3, 4, 5, 6} <= {r["layer"] for r in info["checks"] if r["status"] == "PASS"}, (node, summary)
        assert info["verdict"] == "GO" and info["stopped_at"] is None, (node, summary)
