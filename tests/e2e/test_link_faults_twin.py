"""validate.yml on a twin fabric with two link faults that show only under load (twin/README.md: uplink_slow, uplink_marginal): every
idle read of Layers 1-3 passes on the leaf and the spine of the slow link, and the pod's all-to-all across scalable
units misses while each unit holds alone; the link run (roles/link, catalog/link.yml) runs that all-to-all again while
the rail leaves and spines on its paths are read, and names the slow link on its two switches; the nodes are not held
for it (issue 69).
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
SLOW = {"kind": "uplink_slow", "switch": "leaf1-r0", "peer": "spine-02", "factor": 0.25}
# a marginal cable elsewhere in the same run: leaf2-r1 (NX-OS) to spine-01 (EOS), errors only while traffic crosses it
MARGINAL = {"kind": "uplink_marginal", "switch": "leaf2-r1", "peer": "spine-01"}
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
    for name, extra in (("leaf1-r0", {"fec_counters"}), ("spine-02", set()), ("leaf2-r1", set()), ("spine-01", {"fec_counters"})):
        # EOS reads FEC, NX-OS has no way
        statuses = {r["check"]: r["status"] for r in run.host(name)["checks"] if r["layer"] in (1, 2, 3)}
        assert {check: statuses.get(check) for check in idle | extra} == {check: "PASS" for check in idle | extra}, (
            name, run.not_passing(name))
    # the link run: the all-to-all across su1 and su2 again, the rail leaves of the four nodes and both spines read around
    # it; the slow link is named on its two switches, every other switch on the paths carried its share
    named = {name: record for name in switches for record in run.host(name)["checks"] if record["check"] == "fabric_link_under_load"}
    assert sorted(named) == switches, sorted(named)  # every leaf cables a node of the miss; both spines are their peers
    assert {name: record["status"] for name, record in named.items() if record["status"] != "PASS"} == {
        "leaf1-r0": "FAIL", "spine-02": "FAIL", "leaf2-r1": "FAIL", "spine-01": "FAIL"}, {
        name: (r["status"], r["actual"]) for name, r in named.items()}
    leaf = named["leaf1-r0"]
    assert "leaf1-r0 Ethernet" in leaf["actual"] and " - spine-02 Ethernet" in leaf["actual"], leaf["actual"]
    assert "of its peers' median" in leaf["actual"] and leaf["cause"].startswith("A leaf-spine link up at its rated speed"), leaf
    assert leaf["go_back_to"].startswith("Layer 1 for the named link"), leaf
    # the marginal cable: its errors rose under the load only (Layer 1's soak passed on both ends), named on both
    cable = named["leaf2-r1"]
    assert "leaf2-r1 Ethernet" in cable["actual"] and " - spine-01 Ethernet" in cable["actual"] and "under load" in cable["actual"], cable
    assert cable["cause"].startswith("A marginal cable or optic"), cable
    assert "leaf2-r1 Ethernet" in named["spine-01"]["actual"] and "spine-02" not in named["spine-01"]["actual"], named["spine-01"]
    # the nodes: the miss is the link's, not theirs; each record says so and keeps the hunt's account of the miss
    assert _statuses(run, "nccl_alltoall_pod") == {name: "PASS" for name in NODES}
    record = next(r for r in run.host("node-003")["checks"] if r["check"] == "nccl_alltoall_pod")
    assert record["actual"].startswith("the all-to-all's miss is traced to links leaf1-r0 Ethernet"), record
    assert "leaf2-r1 Ethernet" in record["actual"], record
    assert "each scalable unit holds alone (su1 " in record["actual"] and record.get("retraced_by") == "fabric_link_under_load"
    assert {run.host(name)["stopped_at"] for name in NODES} == {None}, [run.host(name)["stopped_at"] for name in NODES]
    # the rings across the same nodes hold: the slow link loads only the all-to-all's bisection
    for check in ("nccl_scale", "nccl_all_gather_pod", "nccl_reduce_scatter_pod"):
        statuses = _statuses(run, check)
        assert statuses and set(statuses.values()) == {"PASS"}, (check, statuses)
    # the twin counted it: each all-to-all across units recorded its load (each unit alone none), and a read of
    # leaf1-r0 after it shows the slow link marking and dropping at its egress, the other uplink clean
    events = fabric_load.load(_events_dir(run.scenario_path))
    assert [event["nodes"] for event in events] == [NODES, NODES], events  # the hunt's round 4, then the link run
    rendered = os.path.join(changes.STATE_DIR, "render", _digest(run.scenario_path), "switches", "leaf1-r0.json")
    with open(rendered, encoding="utf-8") as handle:
        ports = {port["description"].split()[0]: port for port in switch_session.snapshot_now(json.load(handle))["ports"]}
    assert ports["spine-02"]["ecn_marked"]["3"] > 0 and ports["spine-02"]["discards"]["3"] > 0
    assert ports["spine-01"]["ecn_marked"]["3"] == ports["spine-01"]["discards"]["3"] == 0
    assert ports["spine-02"]["out_octets"] * 4 == pytest.approx(ports["spine-01"]["out_octets"], rel=0.01)
