"""The incast's senders proven again (issue 66: a device is NO-GO for its own findings): which senders another device's
failure left unproven (judging/incast.py sender_state), who stood in their way (standing_in_the_way), and the rounds that
prove them again against a target whose incast passed on leaves that passed (run/incast_plan.py plan_again).

The pods are the twin's rail-optimized fabric as the inventory declares it (test_incast.pod): two scalable units of five
nodes, eight rail leaves each, four senders at 120 Gb/s into 400G ports. The outcomes are judging/incast.py verdict()'s
shape, as the judge data rows (judge_data/incast/layer3_incast.py) and the twin's faults give them."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import incast as _judge, incast_rounds as _rounds
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import incast_phases as _incast_phases, incast_plan as _plan
from ansible_collections.gpufabric.pyramid.tests.unit.test_incast import RAILS, pod
from ansible_collections.gpufabric.pyramid.tests.unit.test_incast_phases import NODES as PHASE_NODES, _Step

NODES, PORTS = pod(10, per_leaf=5)
LEAVES = _plan.leaf_ports(PORTS, RAILS)
NODE_LEAVES = {node: sorted(leaf for leaf, attached in LEAVES.items() if node in attached) for node in NODES}
FIRST = _plan.plan(NODES, LEAVES, senders=4, rate_gbps=120)["rounds"]
UNIT_1, UNIT_2 = NODES[:5], NODES[5:]


def _outcome(group, port_causes=None, deaf=()):
    """verdict()'s outcome of one group: each leaf port's cause from ``port_causes`` ({leaf: cause}), PASS without any."""
    port_causes = port_causes or {}
    ports = [dict(entry, cause=port_causes.get(entry["leaf"]), msg="%s port %s" % (entry["leaf"], entry["port"])) for entry in group["ports"]]
    causes = sorted({c for c in port_causes.values() if c})
    if not causes:
        return {"status": "PASS", "target": group["target"], "senders": group["senders"], "cause": None, "ports": ports, "msg": "passed"}
    return {"status": "FAIL", "target": group["target"], "senders": group["senders"], "cause": causes[0], "ports": ports,
            "causes": causes, "deaf": sorted(deaf), "msg": "failed"}


def _first(faults):
    """The planned round's (group, outcome) pairs, ``faults`` {target: {leaf: cause}}, and each leaf's worst finding."""
    pairs = [(group, _outcome(group, faults.get(group["target"]))) for group in FIRST[0]]
    statuses = {}
    for group, outcome in pairs:
        for entry in outcome["ports"]:
            failed = entry["cause"] in _judge.LEAF_CAUSES
            statuses[entry["leaf"]] = "FAIL" if failed or statuses.get(entry["leaf"]) == "FAIL" else "PASS"
    return pairs, statuses


def _again(faults, nodes=NODES, senders=4, rate=120.0):
    pairs, statuses = _first(faults)
    return _plan.plan_again(pairs, nodes, NODE_LEAVES, statuses, senders, rate, 400.0)


TWO_FAULTY_LEAVES = {"node-006": {"leaf2-r0": "ecn_min_th", "leaf2-r1": "drops"}}


def test_the_planned_round_sends_unit_1_at_unit_2s_target_and_back():
    # the pairing the 32-node pod shows, at 10 nodes: each unit's target gets the other unit's nodes as senders
    assert [(g["target"], g["senders"]) for g in FIRST[0]] == [("node-001", UNIT_2[1:]), ("node-006", UNIT_1[1:])]
    assert len(FIRST) == 1


@pytest.mark.parametrize("outcome, sender, state", [
    ({"status": "PASS"}, "node-002", "reacted"),
    ({"status": "FAIL", "causes": ["pfc_storm"]}, "node-002", "reacted"),  # CNPs flowed: the storm is the target's or leaf's
    ({"status": "FAIL", "causes": ["dcqcn_rp"], "deaf": ["node-003"]}, "node-003", "deaf"),
    ({"status": "FAIL", "causes": ["dcqcn_rp"], "deaf": ["node-003"]}, "node-002", "reacted"),
    ({"status": "FAIL", "causes": ["ecn_min_th"]}, "node-002", "not_measured"),  # the leaf never marked: no CNP anywhere
    ({"status": "FAIL", "causes": ["dcqcn_np"]}, "node-002", "not_measured"),  # the target sent no CNP
    ({"status": "FAIL", "causes": ["drops", "pfc_storm"]}, "node-002", "not_measured"),
    ({"status": "ERROR", "msg": "cannot judge"}, "node-002", "error"),  # nothing says whose run or read failed: its own
    ({"status": "ERROR", "msg": "cannot judge", "own_errors": ["node-002"]}, "node-002", "error"),
    ({"status": "ERROR", "msg": "cannot judge", "own_errors": ["node-003"]}, "node-002", "error_not_own"),
    ({"status": "ERROR", "msg": "cannot judge", "own_errors": []}, "node-002", "error_not_own"),  # a leaf's read was late
])
def test_what_an_incast_proves_of_each_sender(outcome, sender, state):
    assert _judge.sender_state(sender, outcome) == state


def test_the_devices_in_the_way_are_the_failing_leaves_or_the_target():
    group = FIRST[0][1]
    leaves = _judge.standing_in_the_way(group, _outcome(group, TWO_FAULTY_LEAVES["node-006"]))
    assert leaves == [{"device": "leaf2-r0", "check": "incast_leaf", "status": "FAIL", "cause": "ecn_min_th"},
                      {"device": "leaf2-r1", "check": "incast_leaf", "status": "FAIL", "cause": "drops"}]
    assert _judge.said_in_the_way(leaves) == "leaf2-r0 (ecn_min_th), leaf2-r1 (drops)"
    # every leaf marked, the target's NIC sent no CNP: the target stood in the way, not a leaf
    target = _judge.standing_in_the_way(group, _outcome(group, {"leaf2-r%d" % r: "dcqcn_np" for r in range(8)}))
    assert target == [{"device": "node-006", "check": "incast_ecn", "status": "FAIL", "cause": "dcqcn_np"}]
    # nothing congested: no leaf is to blame, the target's incast is named
    quiet = _judge.standing_in_the_way(group, _outcome(group, {"leaf2-r0": "no_load"}))
    assert [item["device"] for item in quiet] == ["node-006"]


def test_the_senders_of_the_failed_unit_are_proven_again_at_the_target_that_passed():
    planned = _again(TWO_FAULTY_LEAVES)
    assert planned["unplaced"] == {}
    (groups,) = planned["rounds"]
    (group,) = groups
    assert group["target"] == "node-001" and sorted(group["senders"]) == UNIT_1[1:]
    assert group["again_for"] == {sender: "node-006" for sender in UNIT_1[1:]}
    assert group["ports"] == FIRST[0][0]["ports"]  # the same leaf ports its first incast proved: every rail of unit 1


def test_nothing_is_run_again_when_every_incast_reached_its_senders():
    assert _again({}) == {"rounds": [], "unplaced": {}}
    # a storm with CNPs flowing, a deaf sender: the senders' records are their own
    assert _again({"node-006": {"leaf2-r0": "pfc_storm"}})["rounds"] == []


def test_a_sender_behind_a_leaf_that_failed_is_not_loaded_again_its_leaf_holds_it_back():
    # node-001's incast fails at leaf1-r3: its senders (unit 2) are spoiled, but unit 2's leaves passed node-006's
    # incast, so they are proven again there; node-006's senders (unit 1, behind leaf1-r3) were reached and passed
    planned = _again({"node-001": {"leaf1-r3": "ecn_min_th"}})
    assert [(g["target"], sorted(g["senders"])) for g in planned["rounds"][0]] == [("node-006", UNIT_2[1:])]
    # both units fail: no healthy target, and every spoiled sender sits behind a failing leaf of its own
    both = _again({"node-001": {"leaf1-r3": "ecn_min_th"}, "node-006": {"leaf2-r0": "ecn_min_th"}})
    assert both["rounds"] == []
    assert both["unplaced"]["node-002"] == "it sits behind leaf1-r3, which did not pass an incast"
    assert both["unplaced"]["node-007"] == "it sits behind leaf2-r0, which did not pass an incast"


def test_with_no_target_that_passed_the_sender_is_not_proven_again_and_says_why():
    # both targets' NICs sent no CNP (dcqcn_np: every leaf marked and passed): every sender is spoiled, no incast passed
    planned = _again({target: {"leaf%d-r%d" % (unit, r): "dcqcn_np" for r in range(8)}
                      for unit, target in ((1, "node-001"), (2, "node-006"))})
    assert planned["rounds"] == []
    assert planned["unplaced"] == {sender: "no incast passed on leaves that passed: no healthy target to prove it again"
                                   for sender in UNIT_1[1:] + UNIT_2[1:]}


def test_too_few_healthy_nodes_to_congest_the_port_is_said_never_a_load_that_proves_nothing():
    # at 60 Gb/s, 4 senders offer 240 Gb/s to a 400G port: no queue builds, so nothing is run again
    pairs, statuses = _first(TWO_FAULTY_LEAVES)
    planned = _plan.plan_again(pairs, NODES, NODE_LEAVES, statuses, 4, 60.0, 400.0)
    assert planned["rounds"] == []
    assert planned["unplaced"]["node-002"] == "too few healthy nodes to congest a target's port beside it (4 x 60 Gb/s <= 400 Gb/s)"


def test_fewer_spoiled_senders_than_k_are_joined_by_healthy_nodes_so_the_port_congests():
    # three scalable units; unit 3's target fails at its leaf, and only three of its senders are in the run (node-005 is
    # not): a healthy node of unit 2 (its incast passed on leaves that passed) sends beside them, so the port congests
    nodes, ports = pod(15, per_leaf=5)
    leaves = _plan.leaf_ports(ports, RAILS)
    node_leaves = {node: sorted(leaf for leaf, attached in leaves.items() if node in attached) for node in nodes}
    planned_first = _plan.plan(nodes, leaves, senders=4, rate_gbps=120)["rounds"][0]
    assert [g["target"] for g in planned_first] == ["node-001", "node-006", "node-011"]
    assert planned_first[2]["senders"] == ["node-002", "node-003", "node-004", "node-005"]
    pairs = [(dict(g, senders=[s for s in g["senders"] if s != "node-005"]),
              _outcome(g, {"leaf3-r0": "ecn_min_th"} if g["target"] == "node-011" else None)) for g in planned_first]
    statuses = {leaf: "FAIL" if leaf == "leaf3-r0" else "PASS" for leaf in leaves}
    planned = _plan.plan_again(pairs, [n for n in nodes if n != "node-005"], node_leaves, statuses, 4, 120.0, 400.0)
    (group,) = planned["rounds"][0]
    assert group["target"] == "node-001" and sorted(group["again_for"]) == ["node-002", "node-003", "node-004"]
    assert group["senders"] == ["node-002", "node-003", "node-004", "node-007"], group  # unit 2's first, across the spines
    assert planned["unplaced"] == {}


# --- the verdicts (judging/incast_rounds.py): the first incast's senders, then the round run again ------------------

CATALOG = _catalog.load_catalog()
EXPECT = _Step().expectations("node-002", CATALOG, [check for check in CATALOG["checks"] if check["id"] == "incast_ecn"])


def _first_records(pairs):
    return {sender: _rounds.sender_verdict(sender, group["target"], outcome, EXPECT) for group, outcome in pairs for sender in group["senders"]}


def test_a_sender_not_proven_again_names_the_devices_in_its_way_and_why():
    pairs, _statuses = _first(TWO_FAULTY_LEAVES)
    records = _first_records(pairs)
    _rounds.hold_by(records, pairs, {"node-002": "no healthy target was free in 4 rounds"})
    record = records["node-002"]
    assert record["status"] == "SKIP" and not record.get("not_applicable"), record  # still never a PASS, never GO
    assert [item["device"] for item in record["held_by"]] == ["leaf2-r0", "leaf2-r1"], record
    assert record["cause"] == ("Not this node: node-006's incast failed at leaf2-r0 (ecn_min_th), leaf2-r1 (drops) before any "
                               "CNP reached its senders; not proven again: no healthy target was free in 4 rounds"), record
    assert record["actual"] == ("not measured: node-006's incast failed at leaf2-r0 (ecn_min_th), leaf2-r1 (drops) before any "
                                "CNP reached its senders; not proven again: no healthy target was free in 4 rounds"), record
    assert records["node-007"]["status"] == "PASS" and "held_by" not in records["node-007"]  # node-001's incast reached it


def test_the_round_run_again_gives_the_spoiled_senders_their_own_records_and_leaves_the_others_theirs():
    pairs, _statuses = _first(TWO_FAULTY_LEAVES)
    records = _first_records(pairs)
    records["node-001"] = {"host": "node-001", "status": "PASS", "actual": "first"}
    _rounds.hold_by(records, pairs, {})
    (again_group,) = _again(TWO_FAULTY_LEAVES)["rounds"][0]
    # in the round run again node-004's DCQCN did not react: a FAIL of its own; the others handled the CNPs
    outcome = dict(_outcome(again_group, {"leaf1-r0": "dcqcn_rp"}, deaf=["node-004"]))
    judged = {sender: _rounds.sender_verdict(sender, "node-001", outcome, EXPECT) for sender in again_group["senders"]}
    judged["node-001"] = {"host": "node-001", "status": "PASS", "actual": "again"}
    _rounds.proven_again(records, pairs, [(again_group, outcome, judged)])
    assert records["node-002"]["status"] == "PASS" and "held_by" not in records["node-002"], records["node-002"]
    assert records["node-002"]["actual"].startswith(
        "proven again at node-001's incast (node-006's, which it sent to first, failed at leaf2-r0 (ecn_min_th), leaf2-r1 "
        "(drops)): sent to node-001's incast and handled its CNPs"), records["node-002"]
    assert records["node-004"]["status"] == "FAIL" and "roce_rp/enable" in records["node-004"]["cause"]
    assert records["node-001"]["actual"] == "first"  # the target keeps the record of the incast that proved it


def test_a_spoiled_sender_not_reached_again_names_both_incasts_in_its_way():
    pairs, _statuses = _first(TWO_FAULTY_LEAVES)
    records = _first_records(pairs)
    (again_group,) = _again(TWO_FAULTY_LEAVES)["rounds"][0]
    outcome = _outcome(again_group, {"leaf1-r5": "ecn_min_th"})  # the second target's leaf failed under this load
    judged = {sender: _rounds.sender_verdict(sender, "node-001", outcome, EXPECT) for sender in again_group["senders"]}
    _rounds.proven_again(records, pairs, [(again_group, outcome, judged)])
    record = records["node-003"]
    assert record["status"] == "SKIP" and [i["device"] for i in record["held_by"]] == ["leaf2-r0", "leaf2-r1", "leaf1-r5"], record
    assert record["cause"] == ("Not this node: the incasts it sent to failed at leaf2-r0 (ecn_min_th), leaf2-r1 (drops), "
                               "leaf1-r5 (ecn_min_th) before any CNP reached it"), record
    assert record["actual"] == "not measured: " + record["cause"][len("Not this node: "):], record


def test_a_leaf_proven_by_its_first_incast_takes_only_its_own_fail_from_a_round_run_again():
    group = FIRST[0][0]
    proven = (group, _outcome(group))
    unjudged = (group, {"status": "ERROR", "msg": "incast at target node-001: cannot judge: a client did not run"})
    found = _rounds.leaf_findings([proven, unjudged], first=1)
    assert {status for status, _actual, _cause in found["leaf1-r0"]} == {"PASS"}  # the ERROR again does not unprove it
    failed = (group, _outcome(group, {"leaf1-r0": "pfc_storm"}))
    found = _rounds.leaf_findings([proven, failed], first=1)
    assert [status for status, _actual, _cause in found["leaf1-r0"]] == ["PASS", "FAIL"]
    assert [status for status, _actual, _cause in found["leaf1-r1"]] == ["PASS"]


@pytest.mark.parametrize("overrides, said", [
    ({"pyramid_incast": False}, "incast: no sender to prove again"),  # off: nothing planned, nothing to run again
    ({"pyramid_incast": True, "pyramid_rdma_link_layer": "infiniband"}, "incast: no sender to prove again"),  # no plan
])
def test_with_no_planned_incast_nothing_runs_again(tmp_path, overrides, said):
    for node in PHASE_NODES:
        _results.save(str(tmp_path), {"host": node, "results": [{"layer": 0, "check": "iommu", "status": "PASS"}], "facts": {}})
    phases = _incast_phases.IncastPhases(_Step(overrides), CATALOG)
    args = {"run_dir": str(tmp_path), "hosts": PHASE_NODES, "switches": []}
    phases.plan({}, args)
    again = phases.again({}, args)
    assert again["rounds"] == [] and again["msg"] == said, again


def test_a_node_reached_by_one_incast_is_not_run_again_for_another_that_failed_before_it():
    # with small leaves a node sends in more than one round: node-002 also sent to node-001's incast, which passed
    pairs, statuses = _first(TWO_FAULTY_LEAVES)
    (first_group, first_outcome), spoiling = pairs
    pairs = [(dict(first_group, senders=first_group["senders"] + ["node-002"]), first_outcome), spoiling]
    planned = _plan.plan_again(pairs, NODES, NODE_LEAVES, statuses, 4, 120.0, 400.0)
    assert sorted(planned["rounds"][0][0]["again_for"]) == ["node-003", "node-004", "node-005"], planned
    # the verdict keeps, of a node's records from several incasts, the one that says most of its own
    records = {}
    for group, outcome in pairs:
        _rounds.merge(records, {s: _rounds.sender_verdict(s, group["target"], outcome, EXPECT) for s in group["senders"]})
    assert records["node-002"]["status"] == "PASS" and records["node-003"]["status"] == "SKIP"


def test_senders_of_an_incast_that_could_not_be_judged_for_anothers_run_or_read_are_proven_again():
    # node-006's incast could not be judged: node-003's client did not run (its own ERROR); the other senders' runs and
    # reads were sound, so they proved nothing either way and are proven again at node-001, whose incast passed
    pairs, _statuses = _first({})
    unjudged = {"status": "ERROR", "cause": None, "own_errors": ["node-003"],
                "msg": "incast at target node-006, senders node-002, node-003, node-004, node-005: cannot judge: the load did "
                       "not run as planned: incast-node-006-r0-from-node-003: exit 1"}
    pairs = [pairs[0], (pairs[1][0], unjudged)]
    statuses = {leaf: "ERROR" if leaf.startswith("leaf2") else "PASS" for leaf in LEAVES}
    # three senders at 120 Gb/s do not congest a 400G port, and no other node is healthy (unit 2 sits behind leaves its
    # incast did not prove, node-003 failed its own run): said, never run; at 140 Gb/s the three of them congest it
    short = _plan.plan_again(pairs, NODES, NODE_LEAVES, statuses, 4, 120.0, 400.0)
    assert short["rounds"] == [] and short["unplaced"]["node-002"].startswith("too few healthy nodes"), short
    planned = _plan.plan_again(pairs, NODES, NODE_LEAVES, statuses, 4, 140.0, 400.0)
    (group,) = planned["rounds"][0]
    assert group["target"] == "node-001" and group["senders"] == ["node-002", "node-004", "node-005"], group
    assert "node-003" not in planned["unplaced"]  # its own ERROR stands: nothing to prove again for another's fault
    assert _judge.standing_in_the_way(pairs[1][0], unjudged) == [
        {"device": "node-003", "check": "incast_ecn", "status": "ERROR", "cause": "its run or read failed"}]
    late = dict(unjudged, own_errors=[])  # a leaf's tail read ended after the window: no node's own failure
    assert [item["device"] for item in _judge.standing_in_the_way(pairs[1][0], late)] == ["node-006"]
    # their first records are ERRORs (no data), held by node-003; of several records the PASS of another incast wins
    record = _rounds.sender_verdict("node-002", "node-006", unjudged, EXPECT)
    assert record["status"] == "ERROR" and record["held_by"][0]["device"] == "node-003", record
    own = _rounds.sender_verdict("node-003", "node-006", unjudged, EXPECT)
    assert own["status"] == "ERROR" and "held_by" not in own
    records = {"node-002": record, "node-003": own}
    passed = _rounds.sender_verdict("node-002", "node-001", pairs[0][1], EXPECT)
    _rounds.merge(records, {"node-002": passed, "node-003": passed})
    assert records["node-002"]["status"] == "PASS" and records["node-003"]["status"] == "ERROR"
    # not proven again (too few healthy nodes): the ERROR of another's says so, in its actual and its cause
    records = _first_records(pairs)
    _rounds.hold_by(records, pairs, short["unplaced"])
    assert records["node-002"]["status"] == "ERROR" and records["node-002"]["cause"].endswith(
        "; not proven again: " + short["unplaced"]["node-002"]), records["node-002"]
    assert "not proven again" not in records["node-003"]["cause"]
