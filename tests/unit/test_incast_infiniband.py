"""The incast on InfiniBand (judging/incast_infiniband.py, recorded by run/incast_phases.py): what the nodes that were
no target read, from the verdicts of the targets' incasts at their leaves. The verdict itself is judge data
(judge_data/incast_infiniband/layer3_infiniband_incast.py); the whole run is tests/e2e/test_validate_infiniband.py's."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import incast_infiniband as _ib_judge
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import incast_reads as _incast_reads

CATALOG = _catalog.load_catalog()
CHECK = next(check for check in CATALOG["checks"] if check["id"] == "incast_ib")
LEAVES_FROM = CHECK["leaves_from"]  # the sources that place each rail on its leaf (catalog/incast.yml)
EXPECT = _expectations.resolve(CATALOG, {"pyramid_rdma_link_layer": "infiniband", "pyramid_incast": True})[0]
PLAN = {"nodes": ["node-001", "node-002", "node-003"],
        "node_leaves": {"node-001": ["leaf1-r0", "leaf1-r1"], "node-002": ["leaf1-r0", "leaf1-r1"], "node-003": ["leaf1-r0", "leaf1-r1"]}}
GROUP = {"target": "node-001", "senders": ["node-002"],
         "ports": [{"leaf": "leaf1-r0", "port": 1, "rail": 0, "key": "0x1:1"}, {"leaf": "leaf1-r1", "port": 1, "rail": 1, "key": "0x2:1"}]}


def _outcome(status, causes=()):
    ports = [dict(port, cause=(causes[0] if causes else None), msg="%s port 1 (node-001 rail %d): figures" % (port["leaf"], port["rail"]))
             for port in GROUP["ports"]]
    return {"status": status, "causes": list(causes), "ports": ports, "msg": "incast at target node-001: figures"}


def _bystander(host, plan, by_leaf):
    """A node that was no target, as the verdict phase records it: its verdict (bystander), through run/engine.py record_of."""
    return _incast_reads.record(host, CHECK, CATALOG, EXPECT, _ib_judge.bystander(host, plan, by_leaf, CHECK["id"]))


@pytest.mark.parametrize("outcome, status, said", [
    (_outcome("PASS"), "SKIP", "not applicable: its leaves are proven by the targets' incasts (one target per leaf: leaf1-r0, leaf1-r1 passed)"),
    (_outcome("FAIL", ["ib_discards"]), "BLOCKED", "blocked by leaf1-r0, leaf1-r1: incast_ib FAIL (target node-001)"),
    ({"status": "ERROR", "msg": "incast at target node-001: cannot judge: ibqueryerrors after the incast: not read"}, "BLOCKED",
     "blocked by leaf1-r0, leaf1-r1: incast_ib ERROR (target node-001)"),
])
def test_a_node_that_was_no_target_stands_on_its_leaves_incasts(outcome, status, said):
    record = _bystander("node-003", PLAN, _ib_judge.leaf_outcomes([(GROUP, outcome)]))
    assert record["status"] == status and record["actual"] == said, record
    assert record.get("not_applicable", False) is (outcome["status"] == "PASS")
    if status == "BLOCKED":  # held back at Layer 3 as the nodes behind a failing RoCE leaf, in the report's shape
        assert record["layer"] == 3 and [b["switch"] for b in record["blocked_by"]] == ["leaf1-r0", "leaf1-r1"], record
        assert record["cause"].startswith("Not this host: leaf1-r0 "), record
    if outcome["status"] == "FAIL":
        assert "head-of-queue lifetime" in record["cause"], record


def test_a_leaf_no_incast_loaded_leaves_its_nodes_not_proven_and_a_node_below_layer3_not_run():
    record = _bystander("node-003", PLAN, {})
    assert record["status"] == "SKIP" and not record.get("not_applicable") and record["actual"] == "not proven: no incast loaded leaf1-r0, leaf1-r1"
    record = _bystander("node-009", PLAN, {})
    assert record["status"] == "SKIP" and record["actual"] == "not run: node-009 did not pass the layers below"


def test_one_leaf_port_failing_blocks_the_nodes_behind_that_leaf_alone_and_a_port_never_loaded_is_not_proven():
    """A target on every rail loads all its leaves: each port is judged on its own figures, not the target's outcome."""
    outcome = _outcome("FAIL", ["ib_discards"])
    outcome["ports"][0]["cause"] = None  # leaf1-r0 passed; leaf1-r1 discarded
    by_leaf = _ib_judge.leaf_outcomes([(GROUP, outcome)])
    assert [entry[0] for entry in by_leaf["leaf1-r0"]] == ["PASS"] and [entry[0] for entry in by_leaf["leaf1-r1"]] == ["FAIL"]
    plan = dict(PLAN, node_leaves=dict(PLAN["node_leaves"], **{"node-003": ["leaf1-r0"], "node-002": ["leaf1-r1"]}))
    assert _bystander("node-003", plan, by_leaf)["not_applicable"]
    record = _bystander("node-002", plan, by_leaf)
    assert record["status"] == "BLOCKED" and record["actual"] == "blocked by leaf1-r1: incast_ib FAIL (target node-001)", record
    outcome["ports"][1]["cause"] = "no_load"  # leaf1-r1's port never waited: nothing proven there, not a fault of it
    outcome["causes"] = ["no_load"]
    record = _bystander("node-002", plan, _ib_judge.leaf_outcomes([(GROUP, outcome)]))
    assert record["status"] == "BLOCKED" and "incast_ib ERROR" in record["actual"], record
    assert record["cause"].startswith("Not this host: leaf1-r1 could not be proven by its incast at target node-001 (The leaf port never waited"), record


def test_a_node_whose_rails_rdma_link_read_finds_its_leaves_by_the_sysfs_port_guids():
    # issue 67: a node without ibstat (rails read by `rdma link`, no GUIDs) stands on the same leaves in the incast's
    # plan as when ibstat read it, its port GUIDs from rail_port_guid_sysfs kept at Layer 3
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine, incast_infiniband as _incast_ib
    from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband import layer2_infiniband_routing as _routing
    from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband import layer3_infiniband_congestion as _congestion

    catalog = _catalog.load_catalog()
    expect, errors = _expectations.resolve(catalog, dict(_routing.IB))
    assert not errors, errors
    subnet = parsing.parse(*_routing.SUBNET)
    expects = {node: expect for node in _routing.NODES}

    def docs(inbox):
        found = {}
        for node in _routing.NODES:
            parser, text = _congestion.ibstat_node_guids(node)
            ibstat = parsing.parse(parser, text)
            layer3 = {"ibstat": ibstat}
            if node in inbox:  # as the rdma link read gives it: no port GUID; the kernel's GID 0 gives it instead
                layer3["rail_port_guid_sysfs"] = {name: {"port_guid": device["ports"]["1"]["port_guid"]}
                                                  for name, device in ibstat["devices"].items()}
                bare = {name: {key: value for key, value in device["ports"]["1"].items() if key != "port_guid"}
                        for name, device in ibstat["devices"].items()}
                layer3["ibstat"] = dict(ibstat, devices={name: dict(device, ports={"1": bare[name]})
                                                         for name, device in ibstat["devices"].items()})
            found[node] = {"facts": {"layer3": _engine.serializable_facts(layer3)}}
        return found

    with_ibstat = _incast_ib._leaves(list(_routing.NODES), docs(()), subnet, -1, expects, LEAVES_FROM)  # pylint: disable=protected-access
    inbox = _incast_ib._leaves(list(_routing.NODES), docs({_routing.NODES[0]}), subnet, -1, expects, LEAVES_FROM)  # pylint: disable=protected-access
    assert with_ibstat[0] and not with_ibstat[2]
    assert inbox == with_ibstat
