"""The straggler hunt's grouping and blame (run/fabric_rounds.py: rounds 2 and 3), with runs decided by a table of bad nodes."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import fabric_rounds as _decide
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import fabric_rounds as _hunt

NODES = ["n%02d" % i for i in range(1, 9)]


class Fabric:
    """Runs groups: a group with a bad node FAILs, a broken pair FAILs together, a scale limit."""

    def __init__(self, bad=(), broken_pairs=(), errors=(), fails_above=None):
        self.bad, self.errors, self.fails_above = set(bad), set(errors), fails_above
        self.broken = {frozenset(pair) for pair in broken_pairs}
        self.calls = []

    def __call__(self, groups):
        self.calls.append([tuple(group) for group in groups])
        used = [node for group in groups for node in group]
        assert len(used) == len(set(used)), "a node ran in two groups at once: %s" % groups
        return [self.outcome(group) for group in groups]

    def outcome(self, group):
        group = tuple(group)
        if self.errors & set(group):
            return {"status": "ERROR", "expected": "e", "actual": "no data", "cause_key": None}
        if self.bad & set(group):
            return {"status": "FAIL", "expected": "e", "actual": "GDR off on %s" % ",".join(sorted(self.bad & set(group))),
                    "cause_key": "gdr_off"}
        if frozenset(group) in self.broken:
            return {"status": "FAIL", "expected": "e", "actual": "slow together", "cause_key": "slow"}
        if self.fails_above and len(group) > self.fails_above:
            return {"status": "FAIL", "expected": "e", "actual": "%d nodes slow" % len(group), "cause_key": "slow"}
        return {"status": "PASS", "expected": "e", "actual": "ok", "cause_key": None}


def statuses(verdicts):
    return {node: verdict["status"] for node, verdict in verdicts.items()}


def test_pairs_cross_the_pod_and_scale_doubles():
    assert _hunt.pair_up(NODES) == ([("n01", "n05"), ("n02", "n06"), ("n03", "n07"), ("n04", "n08")], None)
    assert _hunt.pair_up(NODES[:5])[1] == "n05"
    assert _hunt.scale_sizes(32) == [2, 4, 8, 16, 32]
    assert _hunt.scale_sizes(27) == [2, 4, 8, 16, 27]
    assert _hunt.scale_sizes(2) == [2] and _hunt.scale_sizes(1) == []


def test_a_healthy_fabric_passes_every_node_in_one_round_of_pairs():
    fabric = Fabric()
    assert set(statuses(_hunt.round_pairs(NODES, fabric)).values()) == {"PASS"}
    assert len(fabric.calls) == 1


def test_the_bad_node_is_named_by_a_retest_with_a_known_good_partner():
    fabric = Fabric(bad=["n03"])
    verdicts = _hunt.round_pairs(NODES, fabric)
    assert statuses(verdicts) == dict({node: "PASS" for node in NODES}, n03="FAIL")
    assert verdicts["n03"]["cause_key"] == "gdr_off" and "known-good" in verdicts["n03"]["actual"]
    assert "missed because of n03" in verdicts["n07"]["actual"]
    assert len(fabric.calls) == 2  # the pairs, then both sides of the missed pair at once


def test_a_pair_that_fails_only_together_is_blamed_on_its_path():
    verdicts = _hunt.round_pairs(NODES, Fabric(broken_pairs=[("n02", "n06")]))
    assert statuses(verdicts)["n02"] == statuses(verdicts)["n06"] == "FAIL"
    assert verdicts["n02"]["cause_key"] == "path"
    assert set(statuses(verdicts).values()) - {"FAIL"} == {"PASS"}
    # the run that missed, for the link kind to make again (run/link.py missed_groups)
    assert verdicts["n02"]["detail"] == verdicts["n06"]["detail"] == {"ran_across": ["n02", "n06"]}


def test_a_node_of_a_pair_placed_on_its_path_climbs_on_and_no_other_miss_does():
    """Each side of a pair placed on the path passed with a known-good partner: proven, it goes on to the later rounds
    (the link kind makes the pair's run again after the hunt); any other miss, or a SKIP, stops it."""
    verdicts = _hunt.round_pairs(NODES, Fabric(broken_pairs=[("n02", "n06")]))
    assert _decide.climbs_on(verdicts["n02"]) and _decide.climbs_on(verdicts["n01"])
    bad = _hunt.round_pairs(NODES, Fabric(bad=["n03"]))["n03"]
    assert bad["status"] == "FAIL" and not _decide.climbs_on(bad)
    assert not _decide.climbs_on({"status": "SKIP", "cause_key": None}) and not _decide.climbs_on({})


def test_no_pair_passes_means_no_attribution_and_no_pass():
    verdicts = _hunt.round_pairs(NODES[:5], Fabric(bad=NODES))
    assert statuses(verdicts) == {"n01": "FAIL", "n02": "FAIL", "n03": "FAIL", "n04": "FAIL", "n05": "SKIP"}
    assert "no known-good partner" in verdicts["n01"]["actual"]


def test_the_odd_node_out_is_tested_with_a_known_good_partner():
    verdicts = _hunt.round_pairs(NODES[:5], Fabric(bad=["n05"]))
    assert statuses(verdicts) == {"n01": "PASS", "n02": "PASS", "n03": "PASS", "n04": "PASS", "n05": "FAIL"}


def test_an_error_pair_is_retested_so_only_the_node_without_data_is_error():
    verdicts = _hunt.round_pairs(NODES, Fabric(errors=["n06"]))
    assert statuses(verdicts)["n06"] == "ERROR" and statuses(verdicts)["n02"] == "PASS"


def test_more_suspects_than_good_nodes_are_retested_in_batches():
    fabric = Fabric(bad=["n01", "n02", "n03"])
    verdicts = _hunt.round_pairs(NODES, fabric)  # only n04+n08 pass: two known-good partners for 6 suspects
    assert {node for node, status in statuses(verdicts).items() if status == "FAIL"} == {"n01", "n02", "n03"}
    assert len(fabric.calls) == 4  # pairs, then three batches of two (Fabric asserts no node runs twice at once)


def test_scale_up_stops_at_the_first_size_that_misses_and_names_the_added_nodes():
    verdicts = _hunt.round_scale(NODES, Fabric(fails_above=4))
    assert statuses(verdicts) == dict({n: "PASS" for n in NODES[:4]}, **{n: "FAIL" for n in NODES[4:]})
    assert "first miss at 8 nodes, added n05, n06, n07, n08" in verdicts["n05"]["actual"]
    verdicts = _hunt.round_scale(NODES + ["n09", "n10"], Fabric(fails_above=2))
    assert statuses(verdicts)["n03"] == "FAIL" and statuses(verdicts)["n05"] == "SKIP"
    assert "stopped at 4 nodes" in verdicts["n09"]["actual"]


@pytest.mark.parametrize("round_", [_hunt.round_pairs, _hunt.round_scale])
def test_a_lone_node_is_skipped_not_passed(round_):
    assert statuses(round_(["n01"], Fabric())) == {"n01": "SKIP"}


def test_a_lone_node_of_a_limited_run_pairs_with_a_node_outside_the_run():
    fabric = Fabric()
    assert statuses(_hunt.round_pairs(["n03"], fabric, references=["n01", "n02"])) == {"n03": "PASS"}
    assert fabric.calls == [[("n03", "n01")]]
    verdicts = _hunt.round_scale(["n03"], Fabric(bad=["n03"]), references=["n01"])
    assert statuses(verdicts) == {"n03": "FAIL"} and "outside this run" in verdicts["n03"]["actual"]


def test_references_lend_known_good_partners_when_no_pair_passes():
    verdicts = _hunt.round_pairs(["n01", "n02"], Fabric(bad=["n02"]), references=["n07"])
    assert statuses(verdicts) == {"n01": "PASS", "n02": "FAIL"}


def test_a_miss_with_a_node_outside_the_run_blames_the_node_only_once_the_reference_is_proven():
    # issue 37: nothing stands on a proof that did not happen. Two references: one run of them together proves the one
    # the node missed with, made only because the node missed; then the miss is the node's, with its cause
    fabric = Fabric(bad=["n03"])
    verdicts = _hunt.round_scale(["n03"], fabric, references=["n01", "n02"])
    assert statuses(verdicts) == {"n03": "FAIL"} and verdicts["n03"]["cause_key"] == "gdr_off", verdicts
    assert fabric.calls == [[("n03", "n01")], [("n01", "n02")]]
    # one reference, nobody to prove it with: the node did not pass, and the miss names both sides
    verdicts = _hunt.round_scale(["n03"], Fabric(bad=["n03"]), references=["n01"])
    assert statuses(verdicts) == {"n03": "FAIL"} and verdicts["n03"]["cause_key"] == "unplaced", verdicts
    assert ("with n01 (outside this run, not proven in it: no other node outside the run to prove it with): GDR off on "
            "n03; the miss may be n03's or n01's") == verdicts["n03"]["actual"]
    # a bad reference: the run that should prove it misses too, so the healthy node is not blamed
    fabric = Fabric(bad=["n01"])
    verdicts = _hunt.round_scale(["n03"], fabric, references=["n01", "n02"])
    assert verdicts["n03"]["status"] == "FAIL" and verdicts["n03"]["cause_key"] == "unplaced", verdicts
    assert "with n02 it missed too: GDR off on n01" in verdicts["n03"]["actual"]
    # a pass proves both: no proof run
    fabric = Fabric()
    assert statuses(_hunt.round_scale(["n03"], fabric, references=["n01", "n02"])) == {"n03": "PASS"}
    assert fabric.calls == [[("n03", "n01")]]


def test_a_pair_of_the_run_that_misses_is_retested_with_references_proven_before_blame():
    # both nodes of the run miss together; each is retested with a reference. n01 passes with n07 (n07 proven by it);
    # n02 misses with n08, proven by one run with n07: the miss is n02's
    fabric = Fabric(bad=["n02"])
    verdicts = _hunt.round_pairs(["n01", "n02"], fabric, references=["n07", "n08"])
    assert statuses(verdicts) == {"n01": "PASS", "n02": "FAIL"} and verdicts["n02"]["cause_key"] == "gdr_off", verdicts
    assert fabric.calls[-1] == [("n08", "n07")]
    # n08 bad: n02's miss with it cannot be n02's alone
    verdicts = _hunt.round_pairs(["n01", "n02"], Fabric(bad=["n02", "n08"]), references=["n07", "n08"])
    assert verdicts["n02"]["cause_key"] == "unplaced" and "the miss may be n02's or n08's" in verdicts["n02"]["actual"]


def test_one_run_across_every_node_blames_only_the_nodes_it_traces():
    class Traced(Fabric):
        def outcome(self, group):
            return {"status": "FAIL", "expected": "e", "actual": "rank 18 slow", "cause_key": "slow_rank",
                    "by_host": {"n03": ["slow_rank"]}}
    verdicts = _hunt.round_whole(NODES[:4], Traced())
    assert statuses(verdicts) == {"n01": "PASS", "n02": "PASS", "n03": "FAIL", "n04": "PASS"}
    assert "traced to n03" in verdicts["n01"]["actual"]
    untraced = _hunt.round_whole(NODES[:4], Fabric(fails_above=2))
    assert set(statuses(untraced).values()) == {"FAIL"}
    assert statuses(_hunt.round_whole(NODES[:1], Fabric())) == {"n01": "SKIP"}


def test_a_passing_runs_figures_reach_each_of_its_nodes_a_failed_runs_none():
    """The figures a run measured (its detail: baseline.yml's pod collectives) go to the nodes of a run that passed;
    a node cleared by another's traced miss gets none, even where the judge left a detail on the failed run."""
    detail = {"collective": "all_gather", "nodes": 4, "busbw": {"4294967296": 201.0}}

    class Measured(Fabric):
        def __init__(self, status, by_host=None):
            super().__init__()
            self.status, self.by_host = status, by_host or {}

        def outcome(self, group):
            return {"status": self.status, "expected": "e", "actual": "a", "cause_key": None if self.status == "PASS" else "slow",
                    "by_host": self.by_host, "detail": detail}
    passed = _hunt.round_whole(NODES[:4], Measured("PASS"))
    assert {node: verdict.get("detail") for node, verdict in passed.items()} == dict.fromkeys(NODES[:4], detail)
    traced = _hunt.round_whole(NODES[:4], Measured("FAIL", {"n03": ["slow"]}))
    assert statuses(traced) == {"n01": "PASS", "n02": "PASS", "n03": "FAIL", "n04": "PASS"}
    assert not any("detail" in verdict for verdict in traced.values())


# Round 4: one all-to-all across the pod; a miss no node is traced to runs each scalable unit alone.
UNITS = {node: "su%d" % ((index // 4) + 1) for index, node in enumerate(NODES)}  # n01-n04 su1, n05-n08 su2


class SlowUnits(Fabric):
    """All-to-all: a group slower than the floor when it spans units (a funnelled spine) or holds a slow unit's nodes."""

    def __init__(self, across=False, slow_unit=None, **kwargs):
        super().__init__(**kwargs)
        self.across, self.slow_unit = across, slow_unit

    def outcome(self, group):
        result = super().outcome(group)
        spans = len({UNITS[node] for node in group}) > 1
        if result["status"] == "PASS" and ((self.across and spans) or any(UNITS[node] == self.slow_unit for node in group)):
            return {"status": "FAIL", "expected": "e", "actual": "4 GiB busbw 20.0 GB/s < 45.2", "cause_key": "slow"}
        return result


def test_the_pods_all_to_all_passes_every_node_in_one_run():
    fabric = SlowUnits()
    verdicts = _hunt.round_bisection(NODES, fabric, units=UNITS)
    assert set(statuses(verdicts).values()) == {"PASS"} and len(fabric.calls) == 1
    assert verdicts["n01"]["actual"] == "all 8 nodes (2 scalable units): ok"


def test_a_miss_only_across_units_names_the_spine_layer_not_a_node():
    fabric = SlowUnits(across=True)
    verdicts = _hunt.round_bisection(NODES, fabric, units=UNITS)
    assert set(statuses(verdicts).values()) == {"FAIL"}
    assert {verdict["cause_key"] for verdict in verdicts.values()} == {"spine"}
    assert verdicts["n06"]["actual"].startswith("each scalable unit holds alone (su1 ok; su2 ok), across all 2 units")
    assert fabric.calls == [[tuple(NODES)], [tuple(NODES[:4]), tuple(NODES[4:])]]  # the pod, then both units at once


def test_a_unit_that_misses_alone_is_named_and_the_other_unit_passes():
    verdicts = _hunt.round_bisection(NODES, SlowUnits(slow_unit="su2"), units=UNITS)
    assert statuses(verdicts) == dict({node: "PASS" for node in NODES[:4]}, **{node: "FAIL" for node in NODES[4:]})
    assert verdicts["n05"]["cause_key"] == "unit" and verdicts["n05"]["actual"].startswith("scalable unit su2 alone: across 4 nodes")
    assert "the pod's miss is traced to su2" in verdicts["n02"]["actual"]


def test_a_miss_within_one_unit_names_the_fabric_between_the_nodes():
    verdicts = _hunt.round_bisection(NODES[:4], SlowUnits(slow_unit="su1"), units=UNITS)
    assert set(statuses(verdicts).values()) == {"FAIL"}
    assert {verdict["cause_key"] for verdict in verdicts.values()} == {"bisection"}


def test_a_miss_traced_to_a_node_is_that_nodes_and_no_unit_runs_alone():
    class Traced(Fabric):
        def outcome(self, group):
            return {"status": "FAIL", "expected": "e", "actual": "n03 without GDRDMA", "cause_key": "gdr_off",
                    "by_host": {"n03": ["gdr_off"]}}
    fabric = Traced()
    verdicts = _hunt.round_bisection(NODES, fabric, units=UNITS)
    assert statuses(verdicts) == dict({node: "PASS" for node in NODES}, n03="FAIL")
    assert len(fabric.calls) == 1


def test_a_node_alone_in_its_unit_is_not_run_alone_when_another_unit_misses():
    units = dict(UNITS, n08="su3")
    verdicts = _hunt.round_bisection(NODES, SlowUnits(slow_unit="su1"), units=units)
    assert statuses(verdicts)["n08"] == "SKIP" and "only node of its scalable unit" in verdicts["n08"]["actual"]
    assert {statuses(verdicts)[node] for node in NODES[:4]} == {"FAIL"}
    assert {verdicts[node]["cause_key"] for node in NODES[:4]} == {"unit"}


def test_an_all_to_all_needs_two_nodes_and_a_limited_run_leaves_it_to_the_pod():
    alone = _hunt.round_bisection(["n01"], SlowUnits(), units=UNITS)["n01"]
    assert alone["status"] == "SKIP" and not alone.get("not_applicable")  # not proven: never GO on it
    verdict = _hunt.round_bisection(["n01"], SlowUnits(), ["n02"], units=UNITS)["n01"]  # remediate.yml's --limit rerun
    assert verdict["status"] == "SKIP" and verdict["not_applicable"] and "runs across the whole pod" in verdict["actual"]


def test_a_unit_that_could_not_be_judged_alone_clears_no_other_unit():
    class Unread(SlowUnits):
        def outcome(self, group):
            if len(group) == 4 and UNITS[group[0]] == "su2":
                return {"status": "ERROR", "expected": "e", "actual": "no data", "cause_key": None}
            return super().outcome(group)
    verdicts = _hunt.round_bisection(NODES, Unread(across=True), units=UNITS)
    assert set(statuses(verdicts).values()) == {"ERROR"}
    assert "scalable unit su2 could not be judged alone" in verdicts["n01"]["actual"]


def test_a_node_traced_in_its_units_run_alone_is_blamed_not_the_whole_unit():
    class TracedAlone(SlowUnits):
        def outcome(self, group):
            if len(group) == 4 and UNITS[group[0]] == "su2":
                return {"status": "FAIL", "expected": "e", "actual": "n06 without GDRDMA", "cause_key": "gdr_off",
                        "by_host": {"n06": ["gdr_off"]}}
            return super().outcome(group)
    verdicts = _hunt.round_bisection(NODES, TracedAlone(across=True), units=UNITS)
    assert statuses(verdicts) == dict({node: "PASS" for node in NODES}, n06="FAIL")
    assert verdicts["n06"]["cause_key"] == "gdr_off" and verdicts["n06"]["actual"].startswith("scalable unit su2 alone:")


def test_a_slow_miss_that_nccl_warned_about_still_runs_the_units_alone():
    class Warned(SlowUnits):
        def outcome(self, group):
            result = super().outcome(group)
            return dict(result, cause_key="warning") if result["status"] == "FAIL" else result
    fabric = Warned(across=True)
    verdicts = _hunt.round_bisection(NODES, fabric, units=UNITS)
    assert {verdict["cause_key"] for verdict in verdicts.values()} == {"spine"} and len(fabric.calls) == 2


def test_the_spine_verdict_names_a_unit_of_one_node_that_did_not_run_alone():
    units = dict(UNITS, n08="su3")
    verdicts = _hunt.round_bisection(NODES, SlowUnits(across=True), units=units)
    assert {verdict["cause_key"] for verdict in verdicts.values()} == {"spine"}
    assert "su3 of one node (its all-to-all is round 1's), across all 3 units" in verdicts["n01"]["actual"]


def test_an_error_across_the_pod_is_an_error_for_every_node_never_a_pass():
    verdicts = _hunt.round_bisection(NODES, Fabric(errors=["n02"]), units=UNITS)
    assert set(statuses(verdicts).values()) == {"ERROR"}


def test_a_round_asks_for_its_runs_as_data_and_decides_from_their_outcomes():
    """judging/fabric_rounds.py decides; the runner only runs the groups a round yields and sends their outcomes back."""
    rounds = _decide.round_pairs(NODES[:4])
    assert next(rounds) == [("n01", "n03"), ("n02", "n04")]
    fabric = Fabric(bad=["n03"])
    assert rounds.send([fabric.outcome(pair) for pair in [("n01", "n03"), ("n02", "n04")]]) == [("n01", "n02"), ("n03", "n04")]
    with pytest.raises(StopIteration) as done:
        rounds.send([fabric.outcome(("n01", "n02")), fabric.outcome(("n03", "n04"))])
    assert statuses(done.value.value) == {"n01": "PASS", "n02": "PASS", "n03": "FAIL", "n04": "PASS"}
    assert "missed because of n03" in done.value.value["n01"]["actual"]
