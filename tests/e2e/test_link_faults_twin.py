"""validate.yml on a twin fabric with two link faults that show only under load (twin/README.md: uplink_slow, uplink_marginal): every
idle read of Layers 1-3 passes on the leaf and the spine of the slow link, and the pod's all-to-all across scalable
units misses while each unit holds alone; the link run (roles/link, catalog/link.yml) runs that all-to-all again while
the rail leaves and spines on its paths are read, and names the slow link on its two switches; the nodes are not held
for it (issue 69). The marginal cable also lies on the path one pair of round 2 hashed a flow onto: that pair misses
while each side passes with a known-good partner, its nodes climb on, its run is made again with the switches read,
and the link its flow took is named: its nodes are not held for it either.
"""

import json
import os
import shutil

import pytest
import yaml

from pyramid_twin import changes, entry, fabric_load, switch_session

pytestmark = [pytest.mark.twin, pytest.mark.slow]

# 4 nodes, 2 to a scalable unit (leaf1-r<r>: node-001, node-002; leaf2-r<r>: node-003, node-004), 2 spines, one
# platform per rail's leaf: r0 eos, r1 nxos, r2 sonic, r3 cumulus, ...; spine-01 EOS, spine-02 NX-OS
FABRIC = {"spines": 2, "nodes_per_leaf": 2, "leaf_os": ["eos", "nxos", "sonic", "cumulus"], "spine_os": ["eos", "nxos"]}
SLOW = {"kind": "uplink_slow", "switch": "leaf1-r0", "peer": "spine-01", "factor": 0.25}
# a marginal cable elsewhere in the same run: leaf2-r1 (NX-OS) to spine-01 (EOS), errors only while traffic crosses it.
MARGINAL = {"kind": "uplink_marginal", "switch": "leaf2-r1", "peer": "spine-01"}
# Round 2's pairs are node-001 + node-003 and node-002 + node-004 (across the units); each hashes its flow on a rail
# onto one spine (fabric_load.pair_spine): node-001 + node-003's rail 1 onto spine-01, through the marginal cable
# (that pair misses), node-002 + node-004's onto spine-02; neither pair's rail 0 takes the slow link (spine-02 both)
PAIR = ["node-001", "node-003"]
NODES = ["node-001", "node-002", "node-003", "node-004"]


def _statuses(run, check):
    return {host: next(r["status"] for r in info["checks"] if r["check"] == check)
            for host, info in run.report["hosts"].items() if check in {r["check"] for r in info["checks"]}}


def _why(run):
    """The play's first failed task and what follows it, or its tail."""
    lines = run.stdout.splitlines()
    failed = [i for i, line in enumerate(lines) if "fatal:" in line or "FAILED!" in line]
    return "\n".join(lines[max(failed[0] - 5, 0):failed[0] + 40]) if failed else run.stdout[-3000:]


@pytest.fixture(scope="module")
def slow_uplink(validate, tmp_path_factory):
    """Layers 1-3 (the switches' idle reads, the soak at the suite's 1 s) and Layer 5 (the straggler hunt's rounds, the
    pod's all-to-all in round 4, then the link run), one run. The scenario's load events cleared first."""
    path = tmp_path_factory.mktemp("link") / "slow-uplink.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 4}, "switches": dict(FABRIC, faults=[SLOW, MARGINAL]), "faults": []}))
    shutil.rmtree(_events_dir(path), ignore_errors=True)
    run = validate(str(path), cmdline="--tags layer1,layer2,layer3,layer5", pyramid_scalable_unit_nodes=2)
    run.scenario_path = path
    return run


def _digest(path):
    with open(path, "rb") as handle:
        return entry.digest(handle.read())


def _events_dir(path):
    return fabric_load.events_dir(_digest(path))


def test_a_slow_uplink_passes_every_idle_read_and_the_link_run_names_it_holding_no_node(slow_uplink):
    run = slow_uplink
    assert run.report, _why(run)
    switches = sorted(h for h, info in run.report["hosts"].items() if info["device"] == "switch")
    assert len(switches) == 18, run.stdout[-3000:]  # 8 rails x 2 units of leaves, 2 spines
    # every switch's Layers 1-3: nothing fails (the incast, off here, and Layer 7, not run, say so as SKIPs)
    for name in switches:
        statuses = {r["check"]: r["status"] for r in run.host(name)["checks"] if r["layer"] <= 3}
        assert not {"FAIL", "ERROR", "BLOCKED"} & set(statuses.values()), (name, run.not_passing(name))
    # the slow link's two ends: every idle read of it passes (status and speed, errors and FEC over the soak, optics,
    # LLDP, BGP, ECMP, PFC/ECN/discards at idle)
    idle = {"link_status", "link_errors", "optics_rx", "cabling", "bgp_sessions", "ecmp", "pfc_idle", "pfc_enabled",
            "ecn_idle", "discards_idle"}
    for name, extra in (("leaf1-r0", {"fec_counters"}), ("leaf2-r1", set()), ("spine-01", {"fec_counters"})):
        # EOS reads FEC, NX-OS has no way
        statuses = {r["check"]: r["status"] for r in run.host(name)["checks"] if r["layer"] in (1, 2, 3)}
        assert {check: statuses.get(check) for check in idle | extra} == {check: "PASS" for check in idle | extra}, (
            name, run.not_passing(name))
    # the link run: the all-to-all across su1 and su2 again, the rail leaves of the four nodes and both spines read around
    # it; the slow link is named on its two switches, every other switch on the paths carried its share
    named = {name: record for name in switches for record in run.host(name)["checks"] if record["check"] == "fabric_link_under_load"}
    assert sorted(named) == switches, sorted(named)  # every leaf cables a node of the miss; both spines are their peers
    assert {name: record["status"] for name, record in named.items() if record["status"] != "PASS"} == {
        "leaf1-r0": "FAIL", "leaf2-r1": "FAIL", "spine-01": "FAIL"}, {
        name: (r["status"], r["actual"]) for name, r in named.items()}
    leaf = named["leaf1-r0"]
    assert "leaf1-r0 Ethernet" in leaf["actual"] and " - spine-01 Ethernet" in leaf["actual"], leaf["actual"]
    assert "of its peers' median" in leaf["actual"] and leaf["cause"].startswith("A leaf-spine link up at its rated speed"), leaf
    assert leaf["go_back_to"].startswith("Layer 1 for the named link"), leaf
    # the marginal cable: its errors rose under the load only (Layer 1's soak passed on both ends), named on both
    cable = named["leaf2-r1"]
    assert "leaf2-r1 Ethernet" in cable["actual"] and " - spine-01 Ethernet" in cable["actual"] and "under load" in cable["actual"], cable
    assert cable["cause"].startswith("A marginal cable or optic"), cable
    assert "leaf2-r1 Ethernet" in named["spine-01"]["actual"] and "leaf1-r0 Ethernet" in named["spine-01"]["actual"], named["spine-01"]
    # the nodes: the miss is the link's, not theirs; each record says so and keeps the hunt's account of the miss
    assert _statuses(run, "nccl_alltoall_pod") == {name: "PASS" for name in NODES}
    record = next(r for r in run.host("node-003")["checks"] if r["check"] == "nccl_alltoall_pod")
    assert record["actual"].startswith("the all-to-all's miss is traced to links leaf1-r0 Ethernet"), record
    assert "leaf2-r1 Ethernet" in record["actual"], record
    assert "each scalable unit holds alone (su1 " in record["actual"] and record.get("retraced_by") == "fabric_link_under_load"
    assert {run.host(name)["stopped_at"] for name in NODES} == {None}, [run.host(name)["stopped_at"] for name in NODES]
    # the rings across the same nodes hold (node-001 and node-003 climbed on from their pair's miss on the path): the
    # slow link loads only the all-to-all's bisection
    for check in ("nccl_scale", "nccl_all_gather_pod", "nccl_reduce_scatter_pod"):
        statuses = _statuses(run, check)
        assert statuses == {name: "PASS" for name in NODES}, (check, statuses)
    # the twin counted it: each all-to-all across units recorded its load (each unit alone none), and a read of
    # leaf1-r0 after it shows the slow link marking and dropping at its egress, the other uplink clean
    events = fabric_load.load(_events_dir(run.scenario_path))
    # the hunt's round 4, then the link run's
    assert [event["nodes"] for event in events if event.get("kind") != "pair"] == [NODES, NODES], events
    # round 2's pairs (across the units) and the missed pair's run again
    assert sorted(event["nodes"] for event in events if event.get("kind") == "pair") == [
        ["node-001", "node-003"], ["node-001", "node-003"], ["node-002", "node-004"]], events
    rendered = os.path.join(changes.STATE_DIR, "render", _digest(run.scenario_path), "switches", "leaf1-r0.json")
    with open(rendered, encoding="utf-8") as handle:
        ports = {port["description"].split()[0]: port for port in switch_session.snapshot_now(json.load(handle))["ports"]}
    assert ports["spine-01"]["ecn_marked"]["3"] > 0 and ports["spine-01"]["discards"]["3"] > 0
    assert ports["spine-02"]["ecn_marked"]["3"] == ports["spine-02"]["discards"]["3"] == 0
    # a quarter of its peer's share of each all-to-all, and none of the pairs' rail-0 flows (hashed onto spine-02)
    assert ports["spine-01"]["out_octets"] * 4 < ports["spine-02"]["out_octets"]


def test_a_pair_missing_on_a_marginal_cable_climbs_on_and_the_link_its_flow_took_is_named(slow_uplink):
    """Round 2: node-001 + node-003 misses (its rail-1 flow through the marginal cable), each side passes with a
    known-good partner of its own unit: the path, and both climb on through rounds 3 and 4. The link run makes that
    pair's run again while the switches are read: the cable's errors rise under it, the link is named on leaf2-r1 and
    spine-01, every other switch its flows crossed passes, and the pair's nodes are not held for it."""
    run = slow_uplink
    switches = sorted(h for h, info in run.report["hosts"].items() if info["device"] == "switch")
    named = {name: record for name in switches for record in run.host(name)["checks"] if record["check"] == "pair_link_under_load"}
    assert sorted(named) == switches, sorted(named)
    assert {name: record["status"] for name, record in named.items() if record["status"] != "PASS"} == {
        "leaf2-r1": "FAIL", "spine-01": "FAIL"}, {name: (r["status"], r["actual"]) for name, r in named.items()}
    cable = named["leaf2-r1"]
    assert "leaf2-r1 Ethernet" in cable["actual"] and " - spine-01 Ethernet" in cable["actual"] and "under load" in cable["actual"], cable
    assert cable["cause"].startswith("A marginal cable or optic"), cable
    assert "leaf1-r0" not in named["spine-01"]["actual"], named["spine-01"]  # the slow link: no flow of the pair took it
    assert _statuses(run, "nccl_pairs") == {name: "PASS" for name in NODES}
    for node in PAIR:
        record = next(r for r in run.host(node)["checks"] if r["check"] == "nccl_pairs")
        assert record["actual"].startswith("the pair's miss is traced to link leaf2-r1 Ethernet"), record
        assert record.get("retraced_by") == "pair_link_under_load", record
