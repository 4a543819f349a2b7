"""run/tiers.py: which switch tiers a layer's traffic crossed, from the pod's scalable units and the layer's runs
(issue 72: a one-unit pod's spine layer carries no test traffic; only runs between units load it)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import fabric_rounds as _fabric_rounds, tiers as _tiers
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_rounds as _rail_rounds

NODES = ["node-%03d" % index for index in range(1, 9)]


def test_units_follow_the_inventory_order_unless_a_node_names_its_own():
    assert _tiers.units_of(NODES[:4], 2) == {"node-001": "su1", "node-002": "su1", "node-003": "su2", "node-004": "su2"}
    assert _tiers.units_of(NODES[:3], 2, {"node-001": "hall-b"})["node-001"] == "hall-b"


def test_a_one_unit_pod_loads_its_leaves_only_in_every_layer():
    units = _tiers.units_of(NODES, 32)  # 8 nodes, a unit of 32 (the catalog's default): one unit
    pairs, _odd = _fabric_rounds.pair_up(NODES)
    for runs, pattern in ((pairs, "pairs"), ([tuple(NODES[:size]) for size in _fabric_rounds.scale_sizes(8)], "ring"),
                          ([tuple(NODES)], "all_to_all"),
                          ([pair for rounds in _rail_rounds.plan_rounds(NODES) for pair in rounds], "pairs")):
        said = _tiers.crossed(units, runs, pattern)
        assert said["tiers"] == ["leaf"] and said["spine_between"] == [], (pattern, said)
        assert said["text"] == ("leaf only (su1's rail leaves): the spine layer carried no test traffic "
                                "(the pod has one scalable unit)")


def test_runs_between_units_name_the_units_the_spines_joined():
    units = _tiers.units_of(NODES, 2)  # four units of two
    pairs, _odd = _fabric_rounds.pair_up(NODES)  # node i with node i + 4: su1-su3, su2-su4
    said = _tiers.crossed(units, pairs)
    assert said["tiers"] == ["leaf", "spine"] and said["leaves"] == []
    assert said["spine_between"] == [["su1", "su3"], ["su2", "su4"]]
    assert said["text"] == "leaves and spines: the spine layer carried traffic between su1 and su3, su2 and su4"
    # a ring of the first two nodes stays in su1; of the first four, its neighbours join su1 and su2 (twice)
    assert _tiers.crossed(units, [tuple(NODES[:2])], "ring")["tiers"] == ["leaf"]
    ring = _tiers.crossed(units, [tuple(NODES[:4])], "ring")
    assert ring["spine_between"] == [["su1", "su2"]] and ring["leaves"] == ["su1", "su2"]
    # the all-to-all: every pair of units it spans
    assert len(_tiers.crossed(units, [tuple(NODES)], "all_to_all")["spine_between"]) == 6


def test_two_units_whose_runs_stay_inside_each_say_why_the_spines_were_idle():
    units = _tiers.units_of(NODES[:4], 2)
    said = _tiers.crossed(units, [("node-001", "node-002"), ("node-003", "node-004")])
    assert said["tiers"] == ["leaf"] and said["leaves"] == ["su1", "su2"]
    assert said["text"].endswith("(no run joined nodes of different scalable units)")


def test_no_run_across_nodes_loads_no_tier_and_a_node_without_a_unit_is_not_assumed_on_a_leaf():
    assert _tiers.crossed({"node-001": "su1"}, [("node-001",)])["text"] == "no traffic between nodes: no switch tier loaded"
    said = _tiers.crossed({"node-001": "su1"}, [("node-001", "node-009")])
    assert said["tiers"] == ["leaf", "spine"] and said["spine_between"] == [["node-009 (no unit)", "su1"]]
    with pytest.raises(ValueError):
        _tiers.crossed({}, [], "tree")
