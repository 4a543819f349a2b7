"""An incast no GPU node reached (issue 66): every node stopped below Layer 3, so no leaf could be loaded. A leaf is then
not proven, naming the devices that stopped the nodes (held_by), never an ERROR of its own: the faulty leaf that blocks
its unit's nodes is the cause, not the healthy leaf beside it (judging/incast.py stopped_below)."""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import incast


def _blocked(switch, layer=1):
    return {"layer": layer, "check": "link_status", "status": "BLOCKED", "blocked_by": [{"switch": switch, "check": "link_status"}]}


def test_the_leaf_that_blocked_every_node_is_named_once_and_a_node_of_its_own_fault_by_itself():
    held_by = incast.stopped_below({
        "node-001": [{"layer": 0, "check": "iommu", "status": "PASS"}, _blocked("leaf1-r2")],
        "node-002": [_blocked("leaf1-r2")],
        "node-009": [_blocked("leaf2-r5", layer=3)],  # blocked at layer 3 itself: not what stopped it below
        "node-010": [{"layer": 0, "check": "gpudirect", "status": "FAIL"}, _blocked("leaf2-r5", layer=2)],
        "node-011": [{"layer": 2, "check": "rail_ping", "status": "PASS"}]})
    assert held_by == [
        {"device": "leaf1-r2", "check": "link_status", "status": "FAIL", "cause": "blocks node-001 at layer 1"},
        {"device": "node-010", "check": "gpudirect", "status": "FAIL", "cause": "stopped at layer 0"}]
    assert incast.said_in_the_way(held_by) == "leaf1-r2 (blocks node-001 at layer 1), node-010 (stopped at layer 0)"
