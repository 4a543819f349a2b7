"""run/resume.py, its plan (tests/e2e/test_resume.py runs it): which layers of an earlier run a resumed run takes over,
and why not where it takes none."""

import datetime
import json
import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import resume

NOW = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.timezone.utc)
OLD = "20261129T113000Z-abc123"  # 30 minutes before NOW
CATALOG = {"checks": [{"id": "iommu", "layer": 0, "expect": []},
                      {"id": "rails_active", "layer": 0, "expect": ["pyramid_rails"]},
                      {"id": "link_errors", "layer": 1, "expect": ["pyramid_soak_seconds"]},
                      {"id": "rail_ping", "layer": 2, "expect": ["pyramid_rail_address_plan"]},
                      {"id": "nccl_node_busbw", "layer": 5, "expect": ["pyramid_nccl_busbw_min"]}]}
EXPECT = {"pyramid_rails": ["mlx5_0"], "pyramid_soak_seconds": 300, "pyramid_rail_address_plan": "10.5{rail}.0.{node}",
          "pyramid_nccl_busbw_min": 300}


def _record(layer, check, status="PASS", **more):
    return dict({"layer": layer, "check": check, "status": status}, **more)


HEALTHY_LOW = [_record(0, "iommu"), _record(0, "rails_active"), _record(1, "link_errors"), _record(2, "rail_ping")]

# id -> ({host: results there}, {host: expectations now}, age in minutes allowed, layers taken over, words of why)
DATA = {
    "failed at layer 5: 0-4 taken over (3 and 4 have no checks here: nothing recorded, nothing to take)": (
        {"node-001": HEALTHY_LOW + [_record(5, "nccl_node_busbw")],
         "node-002": HEALTHY_LOW + [_record(5, "nccl_node_busbw", "FAIL")]},
        {}, 240, [0, 1, 2], "node-001 did not pass layer 3 there: no record"),
    "a not-applicable SKIP passes its layer": (
        {"node-001": [_record(0, "iommu"), _record(0, "rails_active", "SKIP", not_applicable=True)]},
        {}, 240, [0], "did not pass layer 1"),
    "a SKIP not run (blocked, tags) stops there": (
        {"node-001": [_record(0, "iommu"), _record(1, "link_errors", "SKIP")]},
        {}, 240, [0], "node-001 did not pass layer 1 there: link_errors SKIP"),
    "one node failed layer 0: nothing taken over": (
        {"node-001": HEALTHY_LOW, "node-002": [_record(0, "iommu", "FAIL")] + HEALTHY_LOW[1:]},
        {}, 240, [], "node-002 did not pass layer 0 there: iommu FAIL"),
    "an expectation layer 1 judges changed: layer 0 alone": (
        {"node-001": HEALTHY_LOW}, {"node-001": dict(EXPECT, pyramid_soak_seconds=60)}, 240, [0],
        "node-001's pyramid_soak_seconds changed since that run (layer 1 judges it)"),
    "a Layer 5 threshold changed after the failure: layers below still taken over": (
        {"node-001": HEALTHY_LOW + [_record(5, "nccl_node_busbw", "FAIL")]},
        {"node-001": dict(EXPECT, pyramid_nccl_busbw_min=250)}, 240, [0, 1, 2], "did not pass layer 3"),
    "older than the stated age: nothing": (
        {"node-001": HEALTHY_LOW}, {}, 20, [], "older than pyramid_resume_max_age_minutes (20"),
    "a device of this run not in that run: nothing": (
        {"node-001": HEALTHY_LOW}, {}, 240, [], "has no results of node-009"),
}


@pytest.mark.parametrize("row", sorted(DATA))
def test_resume_plan(row, tmp_path):
    there, now_expect, max_age, layers, words = DATA[row]
    old = tmp_path / OLD
    (old / "devices").mkdir(parents=True)
    for host, records in there.items():
        (old / "devices" / ("%s.json" % host)).write_text(json.dumps({"host": host, "results": records, "expect": EXPECT, "facts": {}}))
    hosts = sorted(there) + (["node-009"] if "node-009" in words else [])
    found = resume.plan(str(old), hosts, lambda host: now_expect.get(host, EXPECT), CATALOG, NOW, max_age)
    assert found["layers"] == layers, found["said"]
    assert words in found["said"]
    if layers:
        for doc in found["docs"].values():
            assert {r["layer"] for r in doc["results"]} <= set(layers)
            assert all(r["reused_from"] == OLD for r in doc["results"])


def test_applied_results_and_marker_are_written(tmp_path):
    old = tmp_path / OLD
    (old / "devices").mkdir(parents=True)
    (old / "devices" / "node-001.json").write_text(json.dumps({"host": "node-001", "results": HEALTHY_LOW, "expect": EXPECT}))
    found = resume.plan(str(old), ["node-001"], lambda host: EXPECT, CATALOG, NOW, 240)
    new = tmp_path / "new"
    (new / "devices").mkdir(parents=True)
    now = dict(EXPECT, pyramid_nccl_busbw_min=250)
    assert resume.open_docs(str(new), {"node-001": now, "sw-1": {"pyramid_switch_ports": []}}, found) == [0, 1, 2]
    assert resume.read_marker(str(new))["layers"] == [0, 1, 2]
    saved = json.loads((new / "devices" / "node-001.json").read_text())
    assert [r["check"] for r in saved["results"]] == ["iommu", "rails_active", "link_errors", "rail_ping"]
    kept = json.loads((new / "expectations.json").read_text())  # every expectation of this run, for the next resume
    assert kept["node-001"] == now and kept["sw-1"] == {"pyramid_switch_ports": []}
    assert not (new / "devices" / "sw-1.json").exists()  # a device's results file is its layers' to start


def test_a_run_not_resumed_still_keeps_every_expectation_and_no_marker(tmp_path):
    (tmp_path / "devices").mkdir()
    assert resume.open_docs(str(tmp_path), {"node-001": EXPECT}) == []
    assert json.loads((tmp_path / "expectations.json").read_text())["node-001"] == EXPECT
    assert resume.read_marker(str(tmp_path)) is None


def test_the_kept_expectations_are_compared_where_a_results_file_lacks_them(tmp_path):
    # a mesh's pyramid_ping_count is read by the rail mesh's own run, never written into the results file's `expect`
    catalog = {"checks": [{"id": "iommu", "layer": 0, "expect": []}, {"id": "rail_ping", "layer": 1, "expect": ["pyramid_ping_count"]}]}
    old = tmp_path / OLD
    (old / "devices").mkdir(parents=True)
    (old / "devices" / "node-001.json").write_text(json.dumps({"host": "node-001", "expect": {},
                                                               "results": [_record(0, "iommu"), _record(1, "rail_ping")]}))
    (old / "expectations.json").write_text(json.dumps({"node-001": {"pyramid_ping_count": 5}}))
    same = resume.plan(str(old), ["node-001"], lambda host: {"pyramid_ping_count": 5}, catalog, NOW, 240)
    other = resume.plan(str(old), ["node-001"], lambda host: {"pyramid_ping_count": 10}, catalog, NOW, 240)
    assert same["layers"] == [0, 1] and other["layers"] == [0] and "pyramid_ping_count changed" in other["said"]
    assert "expect_then" not in same["docs"]["node-001"]


@pytest.mark.parametrize("variables, words", [
    ({"pyramid_resume": "/nonexistent/run"}, "is not a directory"),
    ({"pyramid_resume": "/tmp", "pyramid_resume_max_age_minutes": "soon"}, "must be a positive number"),
    ({"pyramid_resume": "/tmp", "pyramid_resume_max_age_minutes": 0}, "must be a positive number"),
])
def test_bad_resume_variables_stop_preflight(variables, words):
    found, problem = resume.from_variables(variables, ["node-001"], lambda host: EXPECT, CATALOG, NOW)
    assert found is None and words in problem


def test_no_resume_asked_is_nothing():
    assert resume.from_variables({}, ["node-001"], lambda host: EXPECT, CATALOG, NOW) == (None, None)


def test_a_directory_that_is_not_a_run_is_said(tmp_path):
    found, problem = resume.from_variables({"pyramid_resume": str(tmp_path)}, ["node-001"], lambda host: EXPECT, CATALOG, NOW)
    assert problem is None and found["layers"] == [] and "not a run directory" in found["said"]
    assert os.path.isdir(str(tmp_path))


def _found_run(tmp_path, status):
    """A run whose nodes passed every layer here, Layer 5 with its all-to-all traced to an InfiniBand link, and that
    link's switch, found in the subnet's read, with ``status`` at Layer 5."""
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results  # pylint: disable=import-outside-toplevel
    old = tmp_path / OLD
    (old / "devices").mkdir(parents=True)
    (old / "devices" / "node-001.json").write_text(json.dumps({"host": "node-001", "expect": EXPECT, "facts": {}, "results": [
        _record(0, "iommu"), _record(0, "rails_active")] + [_record(layer, "x") for layer in (1, 2, 3, 4)] + [_record(5, "nccl_node_busbw")]}))
    _results.record_each(str(old), [dict(_record(5, "ib_fabric_link_under_load", status), host="leaf2-r0")])
    _results.add_found(str(old), ["leaf2-r0"], "the subnet read on node-001")
    return old


def test_a_layer_a_switch_found_in_a_read_failed_is_not_taken_over(tmp_path):
    """Issue 69: an InfiniBand switch the link run named is no inventory host, yet its FAIL at Layer 5 keeps that layer
    from being taken over (the nodes passed it, their miss traced to its link: taken over alone, the pod would be GO);
    the layers it holds no record of are not its to stop."""
    found = resume.plan(str(_found_run(tmp_path, "FAIL")), ["node-001"], lambda host: EXPECT, CATALOG, NOW, 240)
    assert found["layers"] == [0, 1, 2, 3, 4] and "leaf2-r0 did not pass layer 5 there: ib_fabric_link_under_load FAIL" in found["said"]
    assert found["found_devices"] == {}  # nothing of it taken over (its only records are Layer 5's)


def test_a_switch_found_in_a_read_comes_with_the_layer_taken_over(tmp_path):
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results  # pylint: disable=import-outside-toplevel
    catalog = {"checks": [check for check in CATALOG["checks"] if check["layer"] in (0, 5)]
               + [{"id": "ib_fabric_link_under_load", "layer": 5, "expect": []}]}
    old = _found_run(tmp_path, "PASS")
    found = resume.plan(str(old), ["node-001"], lambda host: EXPECT, catalog, NOW, 240)
    assert found["layers"] == [0, 1, 2, 3, 4, 5] and found["found_devices"] == {"leaf2-r0": "the subnet read on node-001"}
    new = tmp_path / "new"
    (new / "devices").mkdir(parents=True)
    resume.open_docs(str(new), {"node-001": EXPECT}, found)
    assert _results.found_devices(str(new)) == {"leaf2-r0": "the subnet read on node-001"}
    assert [r["check"] for r in _results.load(str(new), "leaf2-r0")["results"]] == ["ib_fabric_link_under_load"]
