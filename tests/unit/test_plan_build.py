"""The plan of a run (run/plan.py, report/plan_markdown.py) from expectations alone, without Ansible: the meshes' pairs
and Layer 5's rounds are the run's own planners', a lone node has no partner and says so, the incast says why it does
not run, and a check that does not apply says why (tests/e2e/test_validate_plan.py runs plan.yml on the twin)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import plan_markdown as _markdown
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import plan as _plan, rail_rounds

CATALOG = _catalog.load_catalog()
NAMES = sorted(CATALOG["expectations"])


def _expect_of(**overrides):
    expect, errors = _expectations.resolve(CATALOG, overrides, NAMES)
    # every expectation of the catalog, as the plan action resolves them: a switch's own required ones are a GPU node's
    # defaults (pre-flight validated each device's own set)
    assert all("is required for this device" in error for error in errors), errors
    return lambda host: expect


def _build(nodes, **overrides):
    return _plan.build({"gpu_node": nodes}, _expect_of(**overrides), CATALOG, {"gpu_nodes": nodes}, 16)


def test_the_meshes_and_rounds_are_the_runs_own_planners():
    nodes = ["node-%03d" % i for i in range(1, 7)]
    plan = _build(nodes, pyramid_rdma_duration=5)
    pairs = [[list(pair) for pair in round_pairs] for round_pairs in rail_rounds.plan_rounds(nodes)]
    assert plan["mesh"]["layer 2"]["rounds"] == plan["mesh"]["layer 4"]["rounds"] == pairs
    assert plan["mesh"]["layer 4"]["runs"] == sum(len(p) for p in pairs) * 2 * 8
    # GPUDirect on by default: each run again in GPU memory, after its host-memory twin
    assert plan["mesh"]["layer 4"]["seconds"] == {"about": len(pairs) * 2 * 5}
    rounds = {str(entry["round"]): entry for entry in plan["fabric"]["rounds"]}
    assert rounds["2"]["pairs"] == [["node-001", "node-004"], ["node-002", "node-005"], ["node-003", "node-006"]]
    assert rounds["3"]["sizes"] == [2, 4, 6]
    assert plan["incast"]["off"].startswith("pyramid_incast is false")


@pytest.mark.parametrize("overrides, off", [
    ({}, "pyramid_incast is false"),
    ({"pyramid_rdma_link_layer": "infiniband"}, "pyramid_incast is false"),
    ({"pyramid_incast": True}, "no switch port of pyramid_switch_ports faces a planned node's rail"),
])
def test_the_incast_says_why_it_does_not_run(overrides, off):
    plan = _build(["node-001", "node-002", "node-003"], **overrides)
    assert off in plan["incast"]["off"], plan["incast"]
    assert "incast not run: %s" % off.split(":")[0] in "\n".join(_markdown.summary(plan))


def test_on_infiniband_the_incast_is_planned_at_layer3_from_the_subnets_read():
    """No subnet read before any load: the plan says how many senders at what rate, and that the rounds come at Layer 3."""
    plan = _build(["node-001", "node-002", "node-003"], pyramid_incast=True, pyramid_rdma_link_layer="infiniband",
                  pyramid_incast_rate_gbps=250)
    assert plan["incast"]["at_layer3"] and plan["incast"]["rounds"] == [] and "off" not in plan["incast"], plan["incast"]
    assert "incast: 2 senders x 250 Gb/s into one port per leaf of the subnet, its rounds chosen at Layer 3" in "\n".join(
        _markdown.summary(plan))
    assert "about 30 s a round" in _markdown.markdown(plan)
    # the planner's refusals come before any load on InfiniBand too: 2 x 60 Gb/s cannot congest a 400G port
    plan = _build(["node-001", "node-002", "node-003"], pyramid_incast=True, pyramid_rdma_link_layer="infiniband")
    assert plan["incast"]["error"] and "does not exceed the target port's 400 Gb/s" in plan["incast"]["off"], plan["incast"]


def test_a_lone_node_has_no_partner_and_says_so():
    plan = _build(["node-001"])
    mesh = plan["mesh"]["layer 4"]
    assert mesh["rounds"] == [] and mesh["runs"] == 0 and "a mesh needs two nodes" in mesh["note"]
    markdown = _markdown.markdown(plan)
    assert "one GPU node: no partner in this run" in markdown and "| 4 |" in markdown


def test_a_check_that_does_not_apply_says_why_and_a_load_is_named():
    plan = _build(["node-001", "node-002"])
    layer1 = {e["check"]: e for e in next(l for l in plan["layers"] if l["layer"] == 1)["devices"]["node-001"]}
    assert "pyramid_rdma_link_layer is roce" in layer1["ib_links"]["not_applicable"]
    layer4 = {e["check"]: e for e in next(l for l in plan["layers"] if l["layer"] == 4)["devices"]["node-001"]}
    assert layer4["rdma_write_bw"]["loads"] and "ib_write_bw" in layer4["rdma_write_bw"]["commands"]
