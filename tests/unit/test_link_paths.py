"""run/link.py's plan: which nodes' miss is retraced, which switches sit on their paths, which links join them."""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import link as _link

RETRACED = {"id": "nccl_alltoall_pod", "layer": 5, "causes": {"spine": "the spine layer", "unit": "the unit", "slow": "slow"}}


def _doc(status, cause, check="nccl_alltoall_pod", layer=5, actual="busbw 20 GB/s"):
    return {"results": [{"check": check, "layer": layer, "status": status, "cause": cause, "actual": actual}]}


def test_only_the_nodes_whose_miss_has_a_retraced_cause_are_taken():
    docs = {"node-001": _doc("FAIL", "the spine layer", actual="first"), "node-002": _doc("FAIL", "the spine layer"),
            "node-003": _doc("FAIL", "the unit"), "node-004": _doc("PASS", None),
            "node-005": _doc("FAIL", "the spine layer", check="nccl_pairs"),  # another check's miss
            "node-006": _doc("FAIL", "the spine layer", layer=6)}
    nodes, missed = _link.missed_nodes(docs, RETRACED, ["spine"])
    assert nodes == ["node-001", "node-002"]
    assert missed == "first"


def test_no_cause_named_takes_no_node():
    assert _link.missed_nodes({"node-001": _doc("FAIL", "the spine layer")}, RETRACED, ["nowhere"]) == ([], None)


PLANS = {
    "leaf-01": [{"port": "Ethernet1", "peer": "node-001", "role": "host"},
                {"port": "Ethernet33", "peer": "spine-01", "peer_port": "Ethernet1", "role": "fabric"},
                {"port": "Ethernet34", "peer": "spine-02", "peer_port": "Ethernet1", "role": "fabric"}],
    "leaf-02": [{"port": "Ethernet1", "peer": "node-009", "role": "host"},
                {"port": "Ethernet33", "peer": "spine-01", "peer_port": "Ethernet2", "role": "fabric"},
                {"port": "Ethernet34", "peer": "spine-02", "peer_port": "Ethernet2", "role": "fabric"}],
    "leaf-03": [{"port": "Ethernet1", "peer": "node-017", "role": "host"},  # no node of the miss behind it
                {"port": "Ethernet33", "peer": "spine-01", "peer_port": "Ethernet3", "role": "fabric"}],
    "spine-01": [{"port": "Ethernet1", "peer": "leaf-01", "peer_port": "Ethernet33", "role": "fabric"}],
    "spine-02": [{"port": "Ethernet1", "peer": "leaf-01", "peer_port": "Ethernet34", "role": "fabric"}],
}


def test_the_paths_are_the_leaves_cabling_the_nodes_and_their_fabric_peers():
    readers, links = _link.paths(PLANS, ["node-001", "node-009"])
    assert readers == ["leaf-01", "leaf-02", "spine-01", "spine-02"]
    assert {"leaf": "leaf-01", "leaf_port": "Ethernet34", "spine": "spine-02", "spine_port": "Ethernet1"} in links
    assert len(links) == 4 and not any(link["leaf"] == "leaf-03" for link in links)


def test_a_leaf_whose_plan_names_no_uplink_is_not_read():
    plans = dict(PLANS, **{"leaf-02": [entry for entry in PLANS["leaf-02"] if entry["role"] == "host"]})
    readers, links = _link.paths(plans, ["node-001", "node-009"])
    assert readers == ["leaf-01", "spine-01", "spine-02"] and {link["leaf"] for link in links} == {"leaf-01"}


def test_a_peer_outside_the_run_is_no_link_to_read():
    plans = {name: plan for name, plan in PLANS.items() if name != "spine-02"}
    readers, links = _link.paths(plans, ["node-001", "node-009"])
    assert readers == ["leaf-01", "leaf-02", "spine-01"]
    assert all(link["spine"] == "spine-01" for link in links)


CHECK = {"sources": ["sw_errors"]}


def test_a_read_that_never_happened_is_a_failure_of_every_source_never_a_window():
    windows = _link._windows(CHECK, {}, {}, None, {"at": 2.0, "raw": {}})  # pylint: disable=protected-access
    assert isinstance(windows["sw_errors"], SourceFailure)
    assert "no before read" in windows["sw_errors"].reason


def test_an_unreachable_switch_is_a_failure_naming_the_read():
    windows = _link._windows(CHECK, {}, {}, {"at": 1.0, "raw": {}}, {"at": 2.0, "raw": {}, "unreachable": "timed out"})  # pylint: disable=protected-access
    assert "unreachable at the after read: timed out" in windows["sw_errors"].reason


def test_a_retraces_that_names_no_cause_of_its_check_is_refused_at_pre_flight():
    import copy  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import catalog_references  # pylint: disable=import-outside-toplevel
    catalog = copy.deepcopy(_catalog.load_catalog())
    assert catalog_references.problems(catalog) == []
    check = next(check for check in catalog["checks"] if check.get("retraces"))
    for wrong in ({"check": check["retraces"]["check"], "cause_keys": ["nowhere"]}, {"check": "no_such_check", "cause_keys": []},
                  {"check": "nccl_node_busbw", "cause_keys": []}):  # a node's own run: no launched load to run again
        check["retraces"] = wrong
        assert catalog_references.problems(catalog) == [
            "check %s: retraces names a check judged at its layer or below (%r), causes of that check's (cause_keys) and a "
            "check whose first source is launched" % (check["id"], wrong["check"])]


class _Step:
    host = "leaf-01"

    def __init__(self, plans):
        self.plans = plans

    def expectations(self, host, catalog, checks, extra=()):  # pylint: disable=unused-argument
        return {"pyramid_switch_ports": self.plans.get(host, []), "pyramid_command_timeout": 10, "pyramid_rdma_link_layer": "roce"}

    def collect(self, planned, timeout, parallel=1):
        raise AssertionError("nothing to retrace reads nothing")


def test_a_pod_whose_all_to_all_held_plans_no_read_and_no_load(tmp_path):
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results  # pylint: disable=import-outside-toplevel
    for node in ("node-001", "node-009"):
        _results.save(str(tmp_path), dict(_doc("PASS", None), host=node))
    phases = _link.LinkPhases(_Step(PLANS), _catalog.load_catalog(), {"layer": 5})
    assert phases.checks and phases.idle({}) is None
    planned = phases.plan({}, {"run_dir": str(tmp_path), "hosts": ["node-001", "node-009"], "switches": sorted(PLANS)})
    assert planned["readers"] == [] and "no miss to retrace" in planned["msg"]
    assert [check["id"] for check in phases.checks] == ["fabric_link_under_load", "ib_fabric_link_under_load",
                                                        "ib_pair_link_under_load", "pair_link_under_load"]
    for switch in PLANS:  # nothing to prove on them: neither for nor against GO, and said why
        records = _results.load(str(tmp_path), switch)["results"]
        subnet = [record for record in records if record["check"].startswith("ib_")]
        assert len(subnet) == 2 and all(record["not_applicable"] and "pyramid_rdma_link_layer" in record["actual"]
                                        for record in subnet), subnet
        records = [record for record in records if record not in subnet]  # InfiniBand's: another fabric's check
        assert [record["check"] for record in records] == ["fabric_link_under_load", "pair_link_under_load"]
        assert all(record["status"] == "SKIP" and record["not_applicable"] for record in records), records
        assert [record["actual"] for record in records] == [
            "not applicable: no nccl_alltoall_pod miss placed on spine in this run to retrace",
            "not applicable: no nccl_pairs miss placed on path in this run to retrace"]
    assert phases.read({}, {"run_dir": str(tmp_path), "label": "before"})["msg"] == "leaf-01: not on a path"
    assert phases.load({}, {"run_dir": str(tmp_path)})["msg"] == "no miss to retrace"
    assert phases.judge({}, {"run_dir": str(tmp_path)})["msg"] == "no miss to retrace"


def test_check_mode_plans_as_a_full_run_and_never_runs_the_load_again(tmp_path):
    """--check: a miss taken over from another run (pyramid_resume) would be read around a load: its switches read "not
    run: check mode", every later phase does nothing (the role's tasks skip on no readers)."""
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results  # pylint: disable=import-outside-toplevel
    catalog = _catalog.load_catalog()
    phases = _link.LinkPhases(_Step(PLANS), catalog, {"layer": 5})
    retraced = next(check for check in catalog["checks"] if check["id"] == phases.checks[0]["retraces"]["check"])
    spine = retraced["causes"]["spine"]
    for node in ("node-001", "node-009"):
        _results.save(str(tmp_path), dict(_doc("FAIL", spine, check=retraced["id"], layer=retraced["layer"]), host=node))
    args = {"run_dir": str(tmp_path), "hosts": ["node-001", "node-009"], "switches": sorted(PLANS)}
    planned = phases.check_mode({}, "plan", args)
    assert planned["readers"] == []
    assert _link.files(str(tmp_path), phases.checks[0]).load_plan()["readers"] == []
    statuses = {switch: next(record for record in _results.load(str(tmp_path), switch)["results"]
                             if record["check"] == phases.checks[0]["id"]) for switch in PLANS}
    assert statuses["leaf-03"]["not_applicable"] and statuses["leaf-03"]["status"] == "SKIP"
    for switch in ("leaf-01", "leaf-02", "spine-01", "spine-02"):
        assert statuses[switch]["status"] == "SKIP" and not statuses[switch].get("not_applicable"), statuses[switch]
        assert statuses[switch]["actual"].startswith("not run: check mode: the link run would run"), statuses[switch]
    assert phases.check_mode({}, "load", args)["msg"] == "load: not run: check mode"


def _pair_doc(cause, ran_across=None):
    record = {"check": "nccl_alltoall_pod", "layer": 5, "status": "FAIL", "cause": cause, "actual": "busbw 20 GB/s"}
    if ran_across:
        record["detail"] = {"ran_across": ran_across}
    return {"results": [record]}


def test_each_missed_run_is_made_again_on_its_own_and_a_miss_of_the_whole_run_once():
    """A pair of round 2 names the run it missed in (detail.ran_across): each such pair is one run again; nodes whose
    record names none (the pod's all-to-all) are one run across them all; a node whose run has no other node: none."""
    docs = {"node-001": _pair_doc("the spine layer", ["node-001", "node-005"]),
            "node-005": _pair_doc("the spine layer", ["node-001", "node-005"]),
            "node-002": _pair_doc("the spine layer", ["node-002", "node-006"]),
            "node-006": _pair_doc("the spine layer", ["node-002", "node-006"]),
            "node-003": _pair_doc("the spine layer"), "node-004": _pair_doc("the spine layer")}
    nodes, _missed = _link.missed_nodes(docs, RETRACED, ["spine"])
    assert _link.missed_groups(docs, RETRACED, nodes) == [["node-001", "node-005"], ["node-002", "node-006"],
                                                          ["node-003", "node-004"]]
    # a pair whose other node's miss is not retraced (another cause): that node alone makes no run
    docs["node-006"] = _pair_doc("the unit", ["node-002", "node-006"])
    docs["node-004"] = _pair_doc("the unit")
    nodes, _missed = _link.missed_nodes(docs, RETRACED, ["spine"])
    assert _link.missed_groups(docs, RETRACED, nodes) == [["node-001", "node-005"]]


class _Launcher(_Step):
    host = "node-001"

    def __init__(self, plans):
        super().__init__(plans)
        self.asked = []

    def expectations(self, host, catalog, checks, extra=()):
        from ansible_collections.gpufabric.pyramid.tests.unit.test_layer import _expect  # pylint: disable=import-outside-toplevel
        return _expect(pyramid_switch_ports=self.plans.get(host, []))

    def collect(self, planned, timeout, parallel=1):
        self.asked.append((planned, parallel))
        return None, "no route to host"


def test_each_missed_run_is_planned_a_round_of_its_own_and_its_load_made_alone(tmp_path):
    """The plan makes each missed pair a round of its own (its nodes, its switches, its miss in its own words); a load
    task for one round runs that pair's run alone from the launcher; a launcher that cannot be reached is that run's
    ERROR, kept for the judge."""
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results  # pylint: disable=import-outside-toplevel
    catalog = _catalog.load_catalog()
    step = _Launcher(PLANS)
    phases = _link.LinkPhases(step, catalog, {"layer": 5})
    check = next(c for c in phases.checks if c["retraces"]["check"] == "nccl_pairs" and c["only_if"]["pyramid_rdma_link_layer"] == "roce")
    retraced = next(c for c in catalog["checks"] if c["id"] == "nccl_pairs")
    path = retraced["causes"]["path"]
    for node, partner, said in (("node-001", "node-009", "with node-009: busbw 80"), ("node-009", "node-001", "with node-001: busbw 80"),
                                ("node-017", "node-025", "with node-025: busbw 90"), ("node-025", "node-017", "x")):
        doc = {"host": node, "results": [{"check": "nccl_pairs", "layer": 5, "status": "FAIL", "cause": path, "actual": said,
                                          "detail": {"ran_across": sorted([node, partner])}}]}
        _results.save(str(tmp_path), doc)
    plans = dict(PLANS, **{"leaf-03": PLANS["leaf-03"] + [{"port": "Ethernet2", "peer": "node-025", "role": "host"}]})
    step.plans = plans
    planned = phases.plan({}, {"run_dir": str(tmp_path), "hosts": ["node-001", "node-009", "node-017", "node-025"],
                               "switches": sorted(plans)})
    rounds = [r for r in planned["rounds"] if r["check"] == check["id"]]
    assert [(r["run"], r["readers"]) for r in rounds] == [(0, ["leaf-01", "leaf-02", "spine-01", "spine-02"]),
                                                          (1, ["leaf-03", "spine-01"])]
    runs = _link.files(str(tmp_path), check).load_plan()["runs"]
    assert [(run["nodes"], run["missed"]) for run in runs] == [(["node-001", "node-009"], "with node-009: busbw 80"),
                                                               (["node-017", "node-025"], "with node-025: busbw 90")]
    said = phases.load({}, {"run_dir": str(tmp_path), "check": check["id"], "run": "1"})["msg"]
    ((asked, parallel),) = step.asked
    assert parallel == 1 and "-H node-017:8,node-025:8 " in " ".join(asked[0]["ways"][0]["run"])
    assert said == "pair_link_under_load: nccl_pairs again across node-017 + node-025: ERROR"
    outcome = _link.files(str(tmp_path), check).load(1, "load", "outcome")
    assert outcome["status"] == "ERROR" and "launcher unreachable" in outcome["actual"]
    assert _link.files(str(tmp_path), check).load(0, "load", "outcome") is None  # the other run: not yet


def test_a_switch_on_the_paths_of_several_runs_keeps_the_verdict_that_says_most():
    """judging/link.py merged: a node keeps its run's verdict; a switch crossed by two runs FAILs with every link named
    where either named one, else ERRORs where either could not measure it, else PASSes."""
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import link as _judge  # pylint: disable=import-outside-toplevel

    def said(status, actual, links=()):
        out = {"status": status, "expected": "e", "actual": actual}
        if links:
            out["detail"] = {"links": [{"leaf": "leaf-01", "leaf_port": port, "spine": "spine-01", "spine_port": "E9"}
                                       for port in links], "ports": list(links), "blocks_hosts": False}
        return out
    merged = _judge.merged([
        {"leaf-01": said("FAIL", "first", ["E1"]), "spine-01": said("PASS", "ok"), "node-001": said("PASS", "traced")},
        {"leaf-01": said("FAIL", "second", ["E2", "E1"]), "spine-01": said("ERROR", "not read"), "node-017": said("FAIL", "path")},
        {"leaf-01": said("PASS", "fine"), "spine-02": said("SKIP", "not applicable")}])
    assert merged["leaf-01"]["status"] == "FAIL" and merged["leaf-01"]["actual"] == "first; second"
    # a link two runs named is named once
    assert merged["leaf-01"]["detail"]["ports"] == ["E1", "E2"] and len(merged["leaf-01"]["detail"]["links"]) == 2
    assert merged["spine-01"]["status"] == "ERROR" and merged["spine-02"]["status"] == "SKIP"
    assert merged["node-001"]["actual"] == "traced" and merged["node-017"]["status"] == "FAIL"


def catalog_first_source(catalog, check):
    return next(c for c in catalog["checks"] if c["id"] == check["retraces"]["check"])["sources"][0]


class _SubnetStep:
    """An InfiniBand pod's task: no switch host, the link layer InfiniBand, four rails a node."""
    host = "localhost"
    groups = {"gpu_nodes": ["node-001", "node-002"]}

    def expectations(self, host, catalog, checks, extra=()):  # pylint: disable=unused-argument
        return {"pyramid_rdma_link_layer": "infiniband", "pyramid_rails": ["mlx5_0"], "pyramid_command_timeout": 10}


def test_on_infiniband_a_miss_whose_subnet_read_was_not_kept_is_not_made_again_and_says_why(tmp_path):
    """Issue 69: the InfiniBand checks find the paths in the subnet's read kept at Layer 3 (the reader's iblinkinfo, the
    nodes' ibstat); a run that did not keep it (--tags layer5) makes no run again, says so in the plan, and leaves the
    nodes' miss where the hunt put it (the spine layer), never a PASS; RoCE's checks plan nothing without a switch."""
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results  # pylint: disable=import-outside-toplevel
    catalog = _catalog.load_catalog()
    spine = next(check for check in catalog["checks"] if check["id"] == "nccl_alltoall_pod")["causes"]["spine"]
    for node in ("node-001", "node-002"):
        _results.save(str(tmp_path), dict(_doc("FAIL", spine), host=node))
    phases = _link.LinkPhases(_SubnetStep(), catalog, {"layer": 5})
    planned = phases.plan({}, {"run_dir": str(tmp_path), "hosts": ["node-001", "node-002"], "switches": []})
    assert planned["rounds"] == [] and planned["readers"] == []
    assert ("ib_fabric_link_under_load: no run made again; no ib_link_info kept on node-001 below layer 5 (the paths are "
            "found in it: run Layer 3 with it)") in planned["msg"], planned["msg"]
    assert "fabric_link_under_load: not applicable: pyramid_rdma_link_layer is infiniband" in planned["msg"]  # RoCE's
    record = _results.load(str(tmp_path), "node-001")["results"][0]
    assert record["status"] == "FAIL" and record["cause"] == spine and "retraced_by" not in record
