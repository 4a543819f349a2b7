"""The plan of a run (run/plan.py, report/plan_markdown.py) from expectations alone, without Ansible: the meshes' pairs
and Layer 5's rounds are the run's own planners', a lone node has no partner and says so, the incast says why it does
not run, and a check that does not apply says why (tests/e2e/test_validate_plan.py runs plan.yml on the twin)."""

import importlib

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


def _sections(plan, kind, layer=None):
    """The plan's sections of one kind (each kind's planner, catalog/kinds.yml planned_by), of one layer where given."""
    return [section for section in plan["runs"] if section["kind"] == kind and layer in (None, section["layer"])]


def _section(plan, kind, layer=None):
    (section,) = _sections(plan, kind, layer)
    return section


def _rounds(plan, kind, layer=None):
    return [entry for section in _sections(plan, kind, layer) for entry in section["rounds"]]


def test_the_meshes_and_rounds_are_the_runs_own_planners():
    nodes = ["node-%03d" % i for i in range(1, 7)]
    plan = _build(nodes, pyramid_rdma_duration=5)
    pairs = [[list(pair) for pair in round_pairs] for round_pairs in rail_rounds.plan_rounds(nodes)]
    assert [entry["pairs"] for entry in _rounds(plan, "rail_mesh", 2)] == [entry["pairs"] for entry in _rounds(plan, "rail_mesh", 4)] == pairs
    assert _section(plan, "rail_mesh", 4)["runs"] == sum(len(p) for p in pairs) * 2 * 8
    # GPUDirect on by default: each run again in GPU memory, after its host-memory twin
    assert _section(plan, "rail_mesh", 4)["seconds"] == {"about": len(pairs) * 2 * 5}
    rounds = {str(entry["round"]): entry for entry in _rounds(plan, "fabric", 5)}
    assert rounds["2"]["pairs"] == [["node-001", "node-004"], ["node-002", "node-005"], ["node-003", "node-006"]]
    assert rounds["3"]["sizes"] == [2, 4, 6]
    assert _section(plan, "incast")["off"].startswith("pyramid_incast is false")
    # the sections come layer by layer, each kind's as its own planner said them, none named by the plan
    assert [(section["kind"], section["layer"]) for section in plan["runs"]] == [
        ("rail_mesh", 2), ("incast", 3), ("rail_mesh", 4), ("fabric", 5), ("fabric", 6)]


@pytest.mark.parametrize("overrides, off", [
    ({}, "pyramid_incast is false"),
    ({"pyramid_rdma_link_layer": "infiniband"}, "pyramid_incast is false"),
    ({"pyramid_incast": True}, "no switch port of pyramid_switch_ports faces a planned node's rail"),
])
def test_the_incast_says_why_it_does_not_run(overrides, off):
    plan = _build(["node-001", "node-002", "node-003"], **overrides)
    assert off in _section(plan, "incast")["off"], plan["runs"]
    assert "incast not run: %s" % off.split(":")[0] in "\n".join(_markdown.summary(plan))


def test_on_infiniband_the_incast_is_planned_at_layer3_from_the_subnets_read():
    """No subnet read before any load: the plan says how many senders at what rate, and that the rounds come at Layer 3."""
    plan = _build(["node-001", "node-002", "node-003"], pyramid_incast=True, pyramid_rdma_link_layer="infiniband",
                  pyramid_incast_rate_gbps=250)
    incast = _section(plan, "incast")
    assert incast["at_layer3"] and incast["rounds"] == [] and "off" not in incast, incast
    assert "incast: 2 senders x 250 Gb/s into one port per leaf of the subnet, its rounds chosen at Layer 3" in "\n".join(
        _markdown.summary(plan))
    assert "about 30 s a round" in _markdown.markdown(plan)
    # the planner's refusals come before any load on InfiniBand too: 2 x 60 Gb/s cannot congest a 400G port
    plan = _build(["node-001", "node-002", "node-003"], pyramid_incast=True, pyramid_rdma_link_layer="infiniband")
    incast = _section(plan, "incast")
    assert incast["error"] and "does not exceed the target port's 400 Gb/s" in incast["off"], incast


def test_a_lone_node_has_no_partner_and_says_so():
    plan = _build(["node-001"])
    mesh = _section(plan, "rail_mesh", 4)
    assert mesh["rounds"] == [] and mesh["runs"] == 0 and "a mesh needs two nodes" in mesh["note"]
    markdown = _markdown.markdown(plan)
    assert "one GPU node: no partner in this run" in markdown and "| 4 |" in markdown


def test_a_check_that_does_not_apply_says_why_and_a_load_is_named():
    plan = _build(["node-001", "node-002"])
    layer1 = {e["check"]: e for e in next(l for l in plan["layers"] if l["layer"] == 1)["devices"]["node-001"]}
    assert "pyramid_rdma_link_layer is roce" in layer1["ib_links"]["not_applicable"]
    layer4 = {e["check"]: e for e in next(l for l in plan["layers"] if l["layer"] == 4)["devices"]["node-001"]}
    assert layer4["rdma_write_bw"]["loads"] and "ib_write_bw" in layer4["rdma_write_bw"]["commands"]


def test_a_lone_node_of_one_gpu_is_planned_with_what_it_runs_alone_and_the_tool_it_tries():
    """Issue 66: no round across nodes and no mpirun line for the only node of a run; the checks that need two GPUs say so
    before any load; a source with several ways names each in the order the node tries them."""
    plan = _build(["gpu-host"], pyramid_gpus_per_node=1)
    layer = {n: {e["check"]: e for e in l["devices"]["gpu-host"]} for n, l in ((l["layer"], l) for l in plan["layers"])}
    for check in ("nccl_pairs", "nccl_scale", "nccl_alltoall_pod", "training_pod", "rail_ping", "rdma_write_bw", "incast_ecn"):
        entry = next(layer[n][check] for n in layer if check in layer[n])
        assert "gpu-host is the only GPU node of this run" in entry["not_applicable"], entry
    for check in ("nccl_completes", "nccl_all_gather_correct", "gpu_p2p", "training_parity"):
        entry = next(layer[n][check] for n in layer if check in layer[n])
        assert "needs pyramid_gpus_per_node at least 2, and it is 1 here" in entry["not_applicable"], entry
    assert layer[5]["nccl_loaded"]["commands"].startswith(
        "all_reduce_perf -b 8 -e 4G -f 2 -g 1 || torchrun --standalone --nproc_per_node=1 {payload:nccl_bench.py}")
    assert [(section["layer"], len(section["rounds"])) for section in _sections(plan, "fabric")] == [(5, 1), (6, 1)]
    assert _section(plan, "fabric", 5)["launcher"] is None
    markdown = _markdown.markdown(plan)
    assert "mpirun" not in markdown and "srun" not in markdown
    assert "## Layer 5 on the node alone" in markdown and "| 4 | none: one GPU node" in markdown
    # the same node in a --limit'ed run of a pod: the others are its references, so its runs across nodes stay planned
    plan = _plan.build({"gpu_node": ["node-001"]}, _expect_of(), CATALOG, {"gpu_nodes": ["node-001", "node-002"]}, 16)
    layer5 = {e["check"]: e for e in next(l for l in plan["layers"] if l["layer"] == 5)["devices"]["node-001"]}
    assert "not_applicable" not in layer5["nccl_pairs"] and "mpirun" in layer5["nccl_pairs"]["commands"]


def test_a_one_unit_pod_says_the_spine_layer_carries_no_test_traffic():
    """issue 72: same-rail traffic of one scalable unit turns around in its leaves; only runs between units load the
    spines, and the plan says which."""
    nodes = ["node-%03d" % i for i in range(1, 9)]
    one_unit = _build(nodes)["tiers"]
    assert set(one_unit) == {"layers 2 and 4 (rail mesh)", "layer 5 round 2 (pairs)", "layer 5 round 3 (scale-up)",
                             "layer 5 round 4 (all-to-all)"}
    assert all("the spine layer carried no test traffic (the pod has one scalable unit)" in said for said in one_unit.values())
    two_units = _build(nodes, pyramid_scalable_unit_nodes=4)
    assert two_units["tiers"]["layer 5 round 4 (all-to-all)"] == "leaves and spines: the spine layer carried traffic between su1 and su2"
    assert two_units["tiers"]["layer 5 round 2 (pairs)"].startswith("leaves and spines")  # node i with node i + n/2: across units
    text = _markdown.markdown(two_units)
    assert "## Switch tiers the traffic crosses" in text and "reported, not judged" in text
    assert _build(nodes[:1])["tiers"] == {}  # a lone node loads no switch tier between nodes


def test_the_plan_says_the_pod_must_be_idle_and_how_long_the_run_takes():
    """Issue 71: the load is said first, and the run's total: the timed loads, then Layers 5 and 6 bounded by their
    timeouts (each step ends when done; the plan cannot know sooner)."""
    nodes = ["node-%03d" % i for i in range(1, 33)]
    plan = _build(nodes, pyramid_rdma_duration=5, pyramid_soak_seconds=300, pyramid_ping_count=10)
    mesh_rounds = len(rail_rounds.plan_rounds(nodes))
    # the soak, the pings, ib_write_bw in host then GPU memory; the incast is off by default
    assert plan["total"]["timed_seconds"] == 300 + 10 + mesh_rounds * 2 * 5
    # round 1, round 2, five sizes (2 ... 32), all-gather and reduce-scatter, all-to-all; each node then the pod
    assert (plan["total"]["nccl_steps"], plan["total"]["train_steps"]) == (1 + 1 + 5 + 2 + 1, 2)
    assert plan["total"]["at_most_seconds"] == plan["total"]["timed_seconds"] + 10 * 900 + 2 * _expect_of()(None)["pyramid_train_timeout"]
    text = _markdown.markdown(plan)
    assert text.index("**The pod must be idle.**") < text.index("## Load and duration by layer")
    assert plan["total"]["timed"] == ["the soak", "the ping mesh", "the ib_write_bw mesh"]
    assert "**Total time:** the timed loads (the soak, the ping mesh, the ib_write_bw mesh) take about %d min" % round(
        plan["total"]["timed_seconds"] / 60.0) in text, text[:1500]
    assert "Layers 5 and 6 add 10 NCCL step(s) and 2 training step(s)" in text
    assert any(line.startswith("Total time: ") for line in _markdown.summary(plan))


def test_a_run_that_follows_a_miss_is_planned_from_its_retraces_with_the_switches_it_reads():
    """Issue 69: a check of a kind declared `reads_on: paths` (the link) runs its retraced check's load once more where
    that check missed: the plan says so from the catalog's `retraces`, in the rounds (counted in the total, before
    Layer 6) and on each switch that would read it; with no switch to read, or one node, nothing of it is planned."""
    nodes = ["node-%03d" % i for i in range(1, 9)]
    follows = [check for check in CATALOG["checks"] if _catalog.kind_of(check).get("reads_on") == "paths"
               and "infiniband" not in str(check.get("only_if"))]  # a RoCE pod: InfiniBand's is another fabric's
    assert follows, "the catalog has no check that follows a miss"
    plan = _plan.build({"gpu_node": nodes, "switch": ["leaf1-r0"]}, _expect_of(pyramid_switch_os="eos"), CATALOG,
                       {"gpu_nodes": nodes}, 16)
    named = _rounds(plan, "link", 5)
    assert [entry["check"] for entry in named] == [check["id"] for check in follows]
    for check, entry in zip(follows, named):
        assert entry["what"].startswith("only where %s misses (%s): its run once more across the same nodes" % (
            check["retraces"]["check"], " or ".join(check["retraces"]["cause_keys"]))), entry
    # after the hunt's rounds of Layer 5, before Layer 6's training step
    assert [(section["kind"], section["layer"]) for section in plan["runs"]][-3:] == [("fabric", 5), ("link", 5), ("fabric", 6)]
    assert plan["total"]["nccl_steps"] == _build(nodes)["total"]["nccl_steps"] + len(follows)
    on_switch = {entry["check"]: entry for entry in plan["layers"][5]["devices"]["leaf1-r0"]}
    for check, entry in zip(follows, named):
        assert on_switch[check["id"]]["loads"] == [entry["what"].split(", while")[0]], on_switch[check["id"]]
    text = _markdown.markdown(plan)
    assert "## After a miss at layer 5: the link named" in text and "- round 1: %s" % named[0]["what"] in text
    assert not _sections(_build(nodes), "link")  # no switch in the run
    lone = _plan.build({"gpu_node": nodes[:1], "switch": ["leaf1-r0"]}, _expect_of(), CATALOG, {"gpu_nodes": nodes[:1]}, 16)
    assert not _sections(lone, "link")


def test_on_infiniband_a_miss_is_retraced_on_the_subnets_reader_without_any_switch_in_the_run():
    """Issue 69: the InfiniBand checks of the link kind read the subnet on its reader, so the plan names their runs on
    a pod with no switch host; RoCE's, which read the inventory's switches, are not planned there."""
    nodes = ["node-%03d" % i for i in range(1, 5)]
    rounds = _rounds(_build(nodes, pyramid_rdma_link_layer="infiniband"), "link")
    assert [entry["check"] for entry in rounds] == ["ib_fabric_link_under_load", "ib_pair_link_under_load"]
    assert all("while the subnet's counters on its reader are read before and after it" in entry["what"] for entry in rounds)
    assert not _sections(_build(nodes), "link")  # RoCE without switches


def test_the_all_to_alls_units_alone_count_in_the_total_where_the_pod_has_several():
    """Round 4 runs each scalable unit alone, side by side, where the pod's all-to-all misses: one step more in the
    at-most total where there are units to run alone, none on a one-unit pod."""
    nodes = ["node-%03d" % i for i in range(1, 9)]
    one_unit, two_units = _build(nodes), _build(nodes, pyramid_scalable_unit_nodes=4)
    assert two_units["total"]["nccl_steps"] == one_unit["total"]["nccl_steps"] + 1
    (four,) = [entry for entry in _rounds(two_units, "fabric") if entry["round"] == 4]
    assert four["units_alone"] == 2 and not [entry for entry in _rounds(one_unit, "fabric") if entry.get("units_alone")]
    assert "where it misses, its 2 scalable units alone, side by side (one step more)" in _markdown.markdown(two_units)


def test_a_plan_without_gpu_nodes_has_no_total():
    plan = _plan.build({"switch": ["leaf1-r0"]}, _expect_of(), CATALOG, {}, 16)
    assert plan["total"] is None and "Total time" not in _markdown.markdown(plan)


def test_a_limited_run_names_the_nodes_outside_it_that_it_may_load():
    """Issue 71: `--limit node-047` loads a partner outside the limit; the plan names it before anything runs."""
    pod = ["node-%03d" % i for i in range(45, 50)]
    plan = _plan.build({"gpu_node": ["node-047"]}, _expect_of(), CATALOG, {"gpu_nodes": pod}, 16)
    assert plan["outside"] == {"nodes": ["node-045", "node-046"], "more": 2, "needed": True}
    text = _markdown.markdown(plan)
    assert "**Outside this run (--limit):** node-045, node-046 (then the next of gpu_nodes, 2 more) of gpu_nodes may be " \
           "loaded as partners at Layers 2, 4 and 5 (every run across nodes pairs this run's one node with it)" in text
    assert _build(pod)["outside"] is None


def test_each_kind_is_planned_by_its_declaration_alone(monkeypatch):
    """Issue 69: the plan names no kind; it asks each kind that declares a planner (catalog/kinds.yml planned_by) for
    its sections. A kind whose declaration loses its planner drops out of the plan; one that names another planner is
    planned by that one, its sections filed under the kind."""
    nodes = ["node-%03d" % i for i in range(1, 5)]
    kinds = {name: dict(kind) for name, kind in _catalog.kinds().items()}
    declared = {name for name, kind in kinds.items() if kind.get("planned_by")}
    assert {section["kind"] for section in _build(nodes)["runs"]} <= declared
    del kinds["incast"]["planned_by"]
    kinds["link"]["planned_by"] = "rail_mesh"  # the link's checks, drawn by the mesh's planner: a declaration, no code
    monkeypatch.setattr(_catalog, "kinds", lambda *args: kinds)
    plan = _build(nodes)
    assert not _sections(plan, "incast") and "## The incast" not in _markdown.markdown(plan)
    assert [section["title"] for section in _sections(plan, "link")] == ["The rail mesh, layer 5 (fabric_link_under_load)"]


def test_every_declared_planner_is_a_module_of_run_with_plan_sections():
    """A misspelled planned_by would only show when a plan is made: every declaration's planner imports and plans."""
    for name, kind in _catalog.kinds().items():
        if kind.get("planned_by"):
            module = importlib.import_module("%s.%s" % (_plan.__package__, kind["planned_by"]))
            assert callable(getattr(module, "plan_sections", None)), "kind %s: %s has no plan_sections" % (name, kind["planned_by"])
