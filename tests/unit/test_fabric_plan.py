"""The fabric plan checked as a whole at pre-flight (core/fabric_plan.py, issue 71): the twin's own plans hold together,
and each way a hand-written plan goes wrong is named before any host is touched."""

import copy

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import fabric_plan

from pyramid_twin import switch_model  # twin/ on sys.path: tests/unit/conftest.py

RAILS = ["mlx5_%d" % i for i in range(8)]


def _twin_plan(nodes=8, spines=4):
    """{host: expectations} as the twin's inventory declares them (twin/pyramid_twin/switch_model.inventory_vars)."""
    topo = _topology(nodes, spines)
    expect = {name: switch_model.inventory_vars(topo, name) for name in topo["switches"]}
    names = ["node-%03d" % i for i in range(1, nodes + 1)]
    expect.update({node: {"pyramid_rails": RAILS} for node in names})
    return expect, sorted(topo["switches"]), names


def _topology(nodes, spines):
    scenario = {"pod": {"nodes": nodes, "rails": len(RAILS)},
                "switches": {"spines": spines, "nodes_per_leaf": nodes, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                             "spine_os": ["eos"]}}
    return switch_model.topology(scenario)


def _problems(expect, switches, nodes, every_leaf=True):
    return fabric_plan.problems(switches, nodes, expect.__getitem__, list(expect), every_leaf)


def test_the_twins_plan_holds_together():
    expect, switches, nodes = _twin_plan()
    assert _problems(expect, switches, nodes) == []


def test_a_swapped_uplink_pair_is_named_from_both_ends():
    expect, switches, nodes = _twin_plan()
    leaf = copy.deepcopy(expect["leaf1-r0"])
    uplinks = [entry for entry in leaf["pyramid_switch_ports"] if entry["role"] == "fabric"]
    uplinks[0]["port"], uplinks[1]["port"] = uplinks[1]["port"], uplinks[0]["port"]  # the two cables' plan rows swapped
    expect["leaf1-r0"] = leaf
    found = _problems(expect, switches, nodes)
    for uplink in uplinks[:2]:  # each spine's plan names the other leaf port back
        other = [u for u in uplinks[:2] if u is not uplink][0]["port"]
        assert any(message.startswith("%s %s -> leaf1-r0 %s, but leaf1-r0 %s -> " % (uplink["peer"], uplink["peer_port"], other, other))
                   and "the two ends of a link disagree" in message for message in found), found


def test_a_node_missing_from_the_plan_and_a_rail_planned_twice_are_named():
    expect, switches, nodes = _twin_plan()
    for switch in switches:
        expect[switch] = copy.deepcopy(expect[switch])
        expect[switch]["pyramid_switch_ports"] = [e for e in expect[switch]["pyramid_switch_ports"] if e["peer"] != "node-008"]
    first = next(e for e in expect["leaf1-r1"]["pyramid_switch_ports"] if e["peer"] == "node-002")
    first["peer_port"] = "ens1np0"  # rail 1's port of node-002 typed as rail 0's
    found = _problems(expect, switches, nodes)
    assert "node-008: no switch port of pyramid_switch_ports faces it: its 8 rails are not in the cabling plan" in found[0] or any(
        m.startswith("node-008: no switch port") for m in found), found
    assert any(m.startswith("node-002 ens1np0: planned on leaf1-r0") for m in found), found
    # a run limited to some leaves cannot tell a node's missing rail from the limit: not said; nor can a plan of fewer
    # leaves than rails (a partial inventory, a lab)
    assert not any(m.startswith("node-008") for m in _problems(expect, switches, nodes, every_leaf=False))
    few = ["leaf1-r0", "leaf1-r1", "spine-01"]
    assert not any(m.startswith("node-008") for m in _problems(expect, few, nodes))


def test_a_peer_outside_the_inventory_is_named():
    expect, switches, nodes = _twin_plan()
    expect["leaf1-r3"] = copy.deepcopy(expect["leaf1-r3"])
    expect["leaf1-r3"]["pyramid_switch_ports"][0]["peer"] = "node-0O1"
    found = _problems(expect, switches, nodes)
    assert any("its peer node-0O1 is not a host of the inventory" in m for m in found), found


@pytest.mark.parametrize("change, said", [
    (lambda leaf: leaf.update(pyramid_ecmp_paths=2), "pyramid_ecmp_paths is 2 but the plan gives it 4 uplinks"),
    (lambda leaf: leaf["pyramid_bgp_neighbors"][0].update(address="10.99.0.1"), "BGP neighbour 10.99.0.1 is at the far end of none"),
])
def test_bgp_neighbours_and_ecmp_paths_follow_the_uplinks(change, said):
    expect, switches, nodes = _twin_plan()
    expect["leaf1-r0"] = copy.deepcopy(expect["leaf1-r0"])
    change(expect["leaf1-r0"])
    found = _problems(expect, switches, nodes)
    assert any(said in m for m in found), found


def test_a_spines_routes_have_one_path_whatever_its_ports():
    """The lab's spines (lab/inventory.py) expect every leaf's prefix with one path: the ECMP rule holds the rail leaves
    alone (pre-flight gives them), not a spine whose fabric ports are its downlinks."""
    expect, switches, nodes = _twin_plan()
    expect["spine-01"] = dict(expect["spine-01"], pyramid_ecmp_prefixes=["10.50.0.0/24"], pyramid_ecmp_paths=1)
    leaves = {switch for switch in switches if switch.startswith("leaf")}
    assert fabric_plan.problems(switches, nodes, expect.__getitem__, list(expect), True, leaves) == []
    assert any(m.startswith("spine-01: pyramid_ecmp_paths is 1") for m in _problems(expect, switches, nodes))
