"""validate.yml on the twin: Layer 3 under load, the induced incast (docs/incast.md). Four senders fire
rate-limited ib_write_bw (perftest's --rate_limit_type=SW --rate_limit=120) at one target per leaf; the twin's
leaves and NICs count what its incast physics says (twin/pyramid_twin/incast.py); the verdict names the
target, the leaf and port, the senders and the seed's cause. Nothing is left running.
"""

import glob
import json
import os
import subprocess

import pytest

from ansible_collections.gpufabric.pyramid.tests.e2e.incast_load import INCAST as INCAST_LOAD

pytestmark = [pytest.mark.twin, pytest.mark.slow]

# The fault runs: 6 nodes behind one leaf per rail (8 EOS/SONiC leaves); the incast on every rail at once: node-001 is
# the target of every leaf, node-002 ... node-005 its senders (node-006 is not needed: not applicable). The healthy
# incast is the session's healthy pod's (tests/e2e/conftest.py: 8 nodes behind EOS, NX-OS, SONiC and Cumulus leaves),
# one run where there were two (the suite's budget, issue 33).
FABRIC = {"spines": 2, "nodes_per_leaf": 16, "leaf_os": ["eos", "sonic"], "spine_os": ["eos"]}
NODES = 6
NODES_ON_A_LEAF = ["node-%03d" % i for i in range(1, NODES + 1)]
INCAST = dict(INCAST_LOAD, pyramid_soak_seconds=1, pyramid_rdma_duration=1)
SENDERS = ["node-%03d" % i for i in range(2, 6)]
# A fault's run reads Layer 3 alone, its gate lifted (as remediate.yml's Layer 3 rerun is): the healthy run proves the
# climb from Layer 0, and the layers below add half a minute a run that no test here reads
ONLY_LAYER3 = {"cmdline": "--tags layer3", "pyramid_enforce_gate": False}
# A run that reads the incast's verdicts alone runs its play alone (validate.yml's tag `incast`): Layer 3's idle reads of
# the leaves and the nodes' RoCE checks are read by the runs above
ONLY_THE_INCAST = {"cmdline": "--tags incast", "pyramid_enforce_gate": False}


def _pod(leaf_faults=(), faults=()):
    return {"pod": {"nodes": NODES}, "switches": dict(FABRIC, faults=list(leaf_faults)), "faults": list(faults)}


def _record(run, node, check="incast_ecn"):
    return next(r for r in run.host(node)["checks"] if r["check"] == check)


LEAVES = ["leaf1-r%d" % rail for rail in range(8)]


def _plan(run):
    with open(glob.glob(os.path.join(run.run_dirs[-1], "incast", "plan.json"))[0], encoding="utf-8") as handle:
        return json.load(handle)


def _read_times(run):
    """(the first sender's start, {leaf: when its tail read ended}) of round 1, from the run's files."""
    folder = os.path.join(run.run_dirs[-1], "incast", "round-1")
    fired = []
    for path in glob.glob(os.path.join(folder, "*.fired.json")):
        with open(path, encoding="utf-8") as handle:
            fired.append(json.load(handle)["started"])
    tails = {}
    for path in glob.glob(os.path.join(folder, "leaf*.tail.json")):
        with open(path, encoding="utf-8") as handle:
            tails[os.path.basename(path).split(".")[0]] = json.load(handle)["at"]
    return min(fired), tails


def _nothing_left_running():
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    return [line for line in ps.splitlines() if "ib_write_bw" in line and "--rate_limit" in line]


@pytest.fixture(scope="module")
def healthy(healthy_pod):
    """The session's healthy pod (tests/e2e/conftest.py): 8 nodes, every layer, this incast on the leaves of all four
    platforms (r0 eos, r1 nxos, r2 sonic, r3 cumulus, r4 eos, r5 nxos, r6 sonic, r7 cumulus)."""
    return healthy_pod


def test_a_healthy_pod_passes_the_incast(healthy):
    record = _record(healthy, "node-001")
    assert record["status"] == "PASS", (record, healthy.stdout[-3000:])
    assert "target node-001, senders %s" % ", ".join(SENDERS) in record["actual"]
    for port in ("leaf1-r0 port Ethernet1/1 (node-001, rail 0)", "leaf1-r1 port Ethernet1/1 (node-001, rail 1)",
                 "leaf1-r2 port Ethernet0 (node-001, rail 2)", "leaf1-r3 port swp1 (node-001, rail 3)"):
        assert port + ": ECN-marked " in record["actual"], (port, record["actual"])  # each platform's port, its counters
    for sender in SENDERS:
        assert _record(healthy, sender)["status"] == "PASS", _record(healthy, sender)
    for bystander in ("node-006", "node-007", "node-008"):  # in no incast group: each of its leaves proven by one
        assert _record(healthy, bystander)["status"] == "SKIP" and _record(healthy, bystander).get("not_applicable")
        assert "%s passed" % ", ".join(LEAVES) in _record(healthy, bystander)["actual"]
    for leaf in LEAVES:  # the incast's verdict on the leaf itself (issue 37)
        record = _record(healthy, leaf, "incast_leaf")
        assert record["status"] == "PASS" and "(target node-001)" not in record["actual"], record
        assert "%s port " % leaf in record["actual"] and "ECN-marked" in record["actual"], record
    spine = _record(healthy, "spine-01", "incast_leaf")
    assert spine["status"] == "SKIP" and spine.get("not_applicable") and "no incast target behind spine-01" in spine["actual"]
    plan = _plan(healthy)
    assert len(plan["rounds"]) == 1 and [g["target"] for g in plan["rounds"][0]] == ["node-001"]
    assert sorted(plan["leaves"][0]) == ["leaf1-r%d" % r for r in range(8)]
    rows = {row["row"]: row for row in healthy.report["checklist"]}
    assert rows["qos_load"]["status"] == "pass"
    assert not _nothing_left_running()


def test_the_leaves_are_read_side_by_side_within_the_window(healthy):
    # the tail reads run as one task over the eight leaves (not one leaf after another), each due at the last 60%
    # of the 15 s window counted from the first sender's start, and all of them ended before any window could
    first, tails = _read_times(healthy)
    assert sorted(tails) == ["leaf1-r%d" % r for r in range(8)]
    assert all(15 * 0.4 <= at - first <= 15 for at in tails.values()), {leaf: round(at - first, 1) for leaf, at in tails.items()}


def test_a_tail_read_after_the_window_is_an_error_about_the_read_never_a_pass(validate):
    # the last 1% of a 5 s window is 0.05 s: no leaf can be read in it; the PFC bound over the last part of the window
    # cannot be judged, so the target is ERROR naming the leaf and what to change, and the senders are not measured.
    # With 6 forks for the 8 target leaves the plan warns before any load that their tail reads come in 2 waves.
    run = validate(_pod(), cmdline="--forks 6 --tags incast", pyramid_enforce_gate=False,
                   **dict(INCAST, pyramid_incast_duration=5, pyramid_incast_tail_percent=1))
    assert "forks 6 < 8 target leaves in an incast round" in " ".join(run.stdout.split()), run.stdout[-3000:]
    record = _record(run, "node-001")
    assert record["status"] == "ERROR", record
    assert "its tail read ended" in record["actual"] and "after the first sender's 5 s window could have ended" in record["actual"], record
    assert "pyramid_incast_tail_percent" in record["actual"], record
    assert all(_record(run, sender)["status"] == "ERROR" for sender in SENDERS)
    # no leaf was proven: each is an ERROR saying so, and node-006, in no incast, is not proven either (never GO)
    for leaf in LEAVES:
        record = _record(run, leaf, "incast_leaf")
        assert record["status"] == "ERROR" and "not proven" in record["actual"], record
    record = _record(run, "node-006")
    assert record["status"] == "SKIP" and not record.get("not_applicable") and "not proven" in record["actual"], record
    assert run.host("node-006")["verdict"] != "GO"
    assert not _nothing_left_running()


def test_off_by_default_the_incast_is_not_checked_and_holds_no_node_back(roce_fabric):
    # the session's RoCE fabric (tests/e2e/conftest.py), run without pyramid_incast: the incast never asked for. Its
    # healthy node-001 climbs past Layer 3 all the same (a GO run whose incast row is waived: test_remediate_node047.py)
    run = roce_fabric
    assert run.host("node-001")["stopped_at"] is None, run.not_passing("node-001")
    for node in ("node-001", "node-004"):
        record = _record(run, node)
        assert record["status"] == "SKIP" and record.get("not_applicable"), record  # never a PASS, never NO-GO by itself
        assert record["actual"] == "not checked: pyramid_incast is false", record
    for leaf in LEAVES:  # nothing loaded the leaves: not applicable, never a PASS
        record = _record(run, leaf, "incast_leaf")
        assert record["status"] == "SKIP" and record.get("not_applicable"), record
    rows = {row["row"]: row for row in run.report["checklist"]}
    assert rows["qos_load"]["status"] == "not_covered" and rows["qos_load"]["why_not"] == "pyramid_incast is false", rows["qos_load"]
    assert not _nothing_left_running()


@pytest.fixture(scope="module")
def switch_faults(validate):
    # ECN min_th too high on rail 0's leaf (EOS), headroom short on rail 1's (SONiC), ECN off on rail 2's (EOS). ECN off
    # shows in EOS's configuration at idle (roce_port_qos) and would hold every node behind that leaf at Layer 3: the
    # gate is lifted so the incast still proves what it does under load (and Layer 3 is read alone: ONLY_LAYER3).
    return validate(_pod([{"switch": "leaf1-r0", "kind": "ecn_min_th_high"}, {"switch": "leaf1-r1", "kind": "headroom_short"},
                          {"switch": "leaf1-r2", "kind": "ecn_off"}]), **dict(INCAST, **ONLY_LAYER3))


def test_switch_faults_are_caught_with_their_causes_and_both_ends_named(switch_faults):
    record = _record(switch_faults, "node-001")
    assert record["status"] == "FAIL", (record, switch_faults.stdout[-3000:])
    said = record["actual"]
    assert "leaf1-r0 port Ethernet1/1 (node-001, rail 0): ECN-marked 0" in said
    assert "min_th of the RoCE queue is too high" in record["cause"]
    assert "leaf1-r1 port Ethernet0 (node-001, rail 1)" in said and "headroom underprovisioned" in record["cause"]
    assert "leaf1-r2 port Ethernet1/1 (node-001, rail 2): ECN-marked 0" in said  # EOS leaves number their ports alike
    for sender in SENDERS:  # no CNP reached them on the faulty rails: not measured, not passed
        assert _record(switch_faults, sender)["status"] == "SKIP", _record(switch_faults, sender)
    # the faulty leaves fail the incast themselves, with their own causes; the healthy ones pass it (issue 37)
    for leaf, cause in (("leaf1-r0", "min_th of the RoCE queue is too high"), ("leaf1-r1", "headroom underprovisioned"),
                        ("leaf1-r2", "min_th of the RoCE queue is too high")):
        record = _record(switch_faults, leaf, "incast_leaf")
        assert record["status"] == "FAIL" and cause in record["cause"] and record["layer"] == 3, record
        assert switch_faults.host(leaf)["verdict"] == "NO-GO"
    assert _record(switch_faults, "leaf1-r3", "incast_leaf")["status"] == "PASS"
    # node-006 sent nothing and was no target: its leaves were not proven, and the failing leaves block it at Layer 3
    record = _record(switch_faults, "node-006")
    assert record["status"] == "SKIP" and not record.get("not_applicable"), record
    assert "not proven" in record["actual"] and "leaf1-r0 FAIL" in record["actual"], record
    blocked = _record(switch_faults, "node-006", "incast_leaf")
    assert blocked["status"] == "BLOCKED" and {b["switch"] for b in blocked["blocked_by"]} == {"leaf1-r0", "leaf1-r1", "leaf1-r2"}, blocked
    assert switch_faults.host("node-006")["verdict"] != "GO"
    assert not _nothing_left_running()


def test_ecn_off_on_an_eos_leaf_is_seen_at_idle_in_its_configuration_too(switch_faults):
    idle = next(r for r in switch_faults.host("leaf1-r2")["checks"] if r["check"] == "roce_port_qos")
    assert idle["status"] == "ERROR" and idle["layer"] == 3, idle  # the stanza has no trailer: not a FAIL, never a PASS
    assert "no random-detect ecn on tx-queue 3" in idle["actual"] and "in the stanza as read" in idle["actual"], idle
    assert len(idle["detail"]["ports"]) == len(NODES_ON_A_LEAF), idle  # every host port of the leaf: each stanza said so
    healthy = next(r for r in switch_faults.host("leaf1-r0")["checks"] if r["check"] == "roce_port_qos")
    assert healthy["status"] == "PASS", healthy  # min_th too high: ECN is configured, only the incast tells


@pytest.fixture(scope="module")
def dcqcn_off(validate):
    # node-001 reimaged with DCQCN off (seed 001's node-047); the gate off so the incast still runs with it as target
    return validate(_pod(faults=[{"node": "node-001", "kind": "dcqcn_off"}]), **dict(INCAST, **ONLY_LAYER3))


def test_dcqcn_off_on_the_target_storms_and_marks_without_cnps(dcqcn_off):
    assert dcqcn_off.not_passing("node-001")["roce_dcqcn"]["status"] == "FAIL"  # the host check sees it first
    record = _record(dcqcn_off, "node-001")
    assert record["status"] == "FAIL", (record, dcqcn_off.stdout[-3000:])
    assert "roce_np/enable" in record["cause"] and "CNPs sent by node-001 0" in record["actual"]
    # the leaves marked ECN: the miss is the target NIC's, not theirs
    leaf = _record(dcqcn_off, "leaf1-r0", "incast_leaf")
    assert leaf["status"] == "PASS" and "the miss is the NICs': dcqcn_np" in leaf["actual"], leaf


@pytest.fixture(scope="module")
def deaf_sender(validate):
    return validate(_pod(faults=[{"node": "node-004", "kind": "dcqcn_off"}]), **dict(INCAST, **ONLY_THE_INCAST))


def test_a_sender_with_dcqcn_off_is_named(deaf_sender):
    record = _record(deaf_sender, "node-001")
    assert record["status"] == "FAIL" and "no CNP handled on node-004" in record["actual"], record
    assert _record(deaf_sender, "node-004")["status"] == "FAIL"
    assert "roce_rp/enable" in _record(deaf_sender, "node-004")["cause"]
    assert _record(deaf_sender, "node-003")["status"] == "PASS"


# Issue 66: two scalable units of five nodes, two faulty leaves in the second (ECN min_th too high on rail 0's EOS leaf,
# headroom short on rail 1's SONiC leaf: both seen only under load). The planned round sends unit 2's nodes at unit 1's
# target (node-001) and unit 1's at unit 2's (node-006), whose incast fails at the faulty leaves before any CNP reaches
# its senders: node-002 ... node-005 proved nothing of their own there, so a round runs again with them at node-001,
# whose incast passed on leaves that passed. Every layer, one run: the healthy unit climbs to Layers 4-6.
TWO_UNITS = {"pod": {"nodes": 10}, "switches": {"spines": 2, "nodes_per_leaf": 5, "leaf_os": ["eos", "sonic"], "spine_os": ["eos"],
                                                "faults": [{"switch": "leaf2-r0", "kind": "ecn_min_th_high"},
                                                           {"switch": "leaf2-r1", "kind": "headroom_short"}]},
             "faults": []}
UNIT_1, UNIT_2 = ["node-%03d" % i for i in range(1, 6)], ["node-%03d" % i for i in range(6, 11)]


@pytest.fixture(scope="module")
def two_units(validate):
    # sixteen target leaves in the planned round (two units' eight rails) read their tail side by side, half of them
    # EOS over network_cli: on a busy two-core controller they ended 13 s after they were due (CI's run: later than a
    # 15 s window allows, an ERROR about the read, as it should be). An 88% tail of a 25 s window is due 3 s in and
    # leaves them 22 s.
    return validate(TWO_UNITS, pyramid_scalable_unit_nodes=5,
                    **dict(INCAST, pyramid_incast_duration=25, pyramid_incast_tail_percent=88))


def test_senders_an_incast_failed_before_are_proven_again_with_a_healthy_target(two_units):
    run = two_units
    plan = _plan(run)
    assert [[(g["target"], g["senders"]) for g in groups] for groups in plan["rounds"]] == [
        [("node-001", UNIT_2[1:]), ("node-006", UNIT_1[1:])], [("node-001", UNIT_1[1:])]], (
            plan.get("again_unplaced"), _record(run, "node-006"), _record(run, "node-002"))
    assert plan["again_from"] == 1 and plan["again_unplaced"] == {}
    for sender in UNIT_1[1:]:
        record = _record(run, sender)
        assert record["status"] == "PASS", (record, run.stdout[-3000:])
        assert record["actual"].startswith("proven again at node-001's incast (node-006's, which it sent to first, failed at "
                                           "leaf2-r0 (ecn_min_th), leaf2-r1 (drops)): sent to node-001's incast"), record
    assert _record(run, "node-001")["status"] == "PASS"
    # the faulty leaves and every node behind them: not GO, each with its own cause or the leaf that blocks it
    for leaf, cause in (("leaf2-r0", "min_th of the RoCE queue is too high"), ("leaf2-r1", "headroom underprovisioned")):
        record = _record(run, leaf, "incast_leaf")
        assert record["status"] == "FAIL" and cause in record["cause"], record
        assert run.host(leaf)["verdict"] == "NO-GO"
    for node in UNIT_2:
        assert run.host(node)["verdict"] == "NO-GO"
        blocked = _record(run, node, "incast_leaf")
        assert blocked["status"] == "BLOCKED" and {b["switch"] for b in blocked["blocked_by"]} == {"leaf2-r0", "leaf2-r1"}, blocked
    # the healthy unit: GO, every layer up to 6 judged on it
    for node in UNIT_1:
        assert run.host(node)["verdict"] == "GO", (node, run.not_passing(node))
        layers = {r["layer"] for r in run.host(node)["checks"] if r["status"] == "PASS"}
        assert {4, 5, 6} <= layers, (node, sorted(layers))
    for leaf in ("leaf1-r%d" % r for r in range(8)):
        assert _record(run, leaf, "incast_leaf")["status"] == "PASS"
    assert not _nothing_left_running()
