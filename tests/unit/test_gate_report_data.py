"""The layer gate, the switch gate and the go/no-go report as data tables: one row per case.

core/results.py (blocker, stopped_at, record), gate/blocking.py (which hosts a failing switch
blocks) and report/go_no_go.py (the GO/NO-GO decision, the checklist, and what report.md,
junit.xml and the terminal checklist say). The report rows use a small catalog of their own, so
each row names every result it is built from: SKIP never counts as GO, ERROR never is GO, a
not_applicable SKIP is ignored, a BLOCKED record makes the host NO-GO without failing it.
"""

import json
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.gate import blocking as _blocking
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import files as _files, go_no_go as _report


def rec(check, status, layer=0, host="node-001", row=None, **extra):
    record = {"host": host, "layer": layer, "check": check, "title": "%s title" % check, "row": row or check, "status": status,
              "expected": "%s expected" % check, "actual": "%s actual" % check, "command": "%s command" % check,
              "cause": "%s cause" % check if status in ("FAIL", "ERROR") else None,
              "go_back_to": "%s go back" % check if status in ("FAIL", "ERROR") else None}
    record.update(extra)
    return record


# --- core/results.py: the layer gate -----------------------------------------------------------

# name, [(layer, check, status)], layer asked for, blocker(...) wanted, stopped_at wanted
GATE = [
    ("nothing run", [], 1, None, None),
    ("all pass", [(0, "a", "PASS"), (1, "b", "PASS")], 2, None, None),
    ("a FAIL at L0 stops L1", [(0, "a", "PASS"), (0, "b", "FAIL")], 1, (0, ["b"]), 0),
    ("a FAIL at L0 does not stop L0", [(0, "b", "FAIL")], 0, None, 0),
    ("an ERROR stops like a FAIL", [(0, "a", "ERROR")], 1, (0, ["a"]), 0),
    ("a BLOCKED stops like a FAIL", [(1, "link_status", "BLOCKED")], 2, (1, ["link_status"]), 1),
    ("a SKIP does not stop", [(0, "a", "SKIP"), (1, "b", "SKIP")], 5, None, None),
    ("the lowest failing layer is named", [(2, "c", "FAIL"), (0, "b", "ERROR"), (0, "a", "FAIL"), (1, "d", "FAIL")], 5, (0, ["a", "b"]), 0),
    ("one check named once", [(0, "a", "FAIL"), (0, "a", "ERROR")], 1, (0, ["a"]), 0),
    ("a failure above the asked layer does not stop it", [(0, "a", "PASS"), (3, "c", "FAIL")], 3, None, 3),
    ("a failure just below the asked layer stops it", [(2, "c", "FAIL")], 3, (2, ["c"]), 2),
]


@pytest.mark.parametrize("name, rows, layer, blocker, stopped", GATE, ids=[row[0] for row in GATE])
def test_gate(name, rows, layer, blocker, stopped):  # pylint: disable=unused-argument
    records = [rec(check, status, level) for level, check, status in rows]
    assert _results.blocker(records, layer) == blocker
    assert _results.stopped_at(records) == stopped


# name, results before, results recorded, [(layer, check, status)] after
RECORD = [
    ("a re-run replaces the check", [rec("a", "FAIL")], [rec("a", "PASS")], [(0, "a", "PASS")]),
    ("another check is kept", [rec("a", "FAIL"), rec("b", "PASS")], [rec("a", "PASS")], [(0, "b", "PASS"), (0, "a", "PASS")]),
    ("one check at another layer is kept", [rec("a", "FAIL", 5)], [rec("a", "PASS", 6)], [(5, "a", "FAIL"), (6, "a", "PASS")]),
    ("nothing recorded", [rec("a", "FAIL")], [], [(0, "a", "FAIL")]),
]


@pytest.mark.parametrize("name, before, new, after", RECORD, ids=[row[0] for row in RECORD])
def test_record(name, before, new, after):  # pylint: disable=unused-argument
    doc = {"host": "node-001", "results": before}
    _results.record(doc, new)
    assert [(r["layer"], r["check"], r["status"]) for r in doc["results"]] == after


def test_results_file_round_trip(tmp_path):
    assert _results.load(str(tmp_path), "node-009") == {"host": "node-009", "results": [], "facts": {}}
    doc = {"host": "node-001", "results": [rec("a", "PASS")], "facts": {"x": 1}}
    _results.save(str(tmp_path), doc)
    loaded = _results.load(str(tmp_path), "node-001")
    assert sorted(loaded) == ["expect", "facts", "host", "results"] and {key: loaded[key] for key in doc} == doc
    assert sorted(p.name for p in (tmp_path / "devices").iterdir()) == ["node-001.json"]  # no temporary file left behind
    assert (tmp_path / "devices" / "node-001.json").read_text() == json.dumps(loaded, sort_keys=True)
    assert _results.host_path("/run", "leaf1") == "/run/devices/leaf1.json"


# --- gate/blocking.py: a failing switch blocks the hosts behind it --------------------------------

LEAF_PLAN = [{"port": "Ethernet1/1", "peer": "node-001", "role": "host"}, {"port": "Ethernet2/1", "peer": "node-002"},
             {"port": "Ethernet3/1", "peer": "node-003", "role": "host"}, {"port": "Ethernet4/1", "role": "host"},
             {"port": "Ethernet33/1", "peer": "spine-01", "role": "fabric"}, {"port": "Ethernet40/1", "peer": "bmc-01", "role": "mgmt"}]
HOSTS = {"node-001", "node-002", "node-003"}
ALL_HOSTS = [("node-001", ""), ("node-002", ""), ("node-003", "")]


def swrec(check, status, layer=1, ports=None, device=False, detail=True):
    extra = {"detail": {"ports": ports or [], "device": device}} if detail else {}
    return rec(check, status, layer, host="leaf1", **extra)


# name, switch results, layer, hosts asked, {host: [(check, ports)]} wanted
BLOCKERS = [
    ("a failing host port blocks its host", [swrec("link_status", "FAIL", ports=["Ethernet2/1"])], 1, HOSTS,
     {"node-002": [("link_status", ["Ethernet2/1"])]}),
    ("two failing ports, two hosts", [swrec("optics_rx", "FAIL", ports=["Ethernet1/1", "Ethernet3/1"])], 1, HOSTS,
     {"node-001": [("optics_rx", ["Ethernet1/1"])], "node-003": [("optics_rx", ["Ethernet3/1"])]}),
    ("an uplink blocks every host", [swrec("link_errors", "FAIL", ports=["Ethernet33/1"])], 1, HOSTS,
     {host: [("link_errors", [])] for host in HOSTS}),
    ("a host port and an uplink: every host, whole", [swrec("link_errors", "FAIL", ports=["Ethernet1/1", "Ethernet33/1"])], 1, HOSTS,
     {host: [("link_errors", [])] for host in HOSTS}),
    ("a device failure blocks every host", [swrec("bgp_sessions", "FAIL", 2, device=True)], 2, HOSTS,
     {host: [("bgp_sessions", [])] for host in HOSTS}),
    ("a FAIL naming no port blocks every host", [swrec("cabling", "FAIL")], 1, HOSTS, {host: [("cabling", [])] for host in HOSTS}),
    ("a FAIL without detail blocks every host", [swrec("cabling", "FAIL", detail=False)], 1, HOSTS, {host: [("cabling", [])] for host in HOSTS}),
    ("an ERROR naming a port blocks every host", [swrec("optics_rx", "ERROR", ports=["Ethernet1/1"])], 1, HOSTS,
     {host: [("optics_rx", [])] for host in HOSTS}),
    ("a BLOCKED switch record blocks too", [swrec("pfc_idle", "BLOCKED", 3, ports=["Ethernet3/1"])], 3, HOSTS,
     {"node-003": [("pfc_idle", ["Ethernet3/1"])]}),
    ("another layer's failure is not this layer's", [swrec("bgp_sessions", "FAIL", 2, device=True)], 1, HOSTS, {}),
    ("a PASS blocks nobody", [swrec("link_status", "PASS", ports=["Ethernet1/1"])], 1, HOSTS, {}),
    ("a SKIP blocks nobody", [swrec("link_status", "SKIP", device=True)], 1, HOSTS, {}),
    ("a host outside the run is not blocked", [swrec("link_status", "FAIL", device=True)], 1, {"node-001"},
     {"node-001": [("link_status", [])]}),
    ("a port without a peer or a management port blocks nobody", [swrec("link_status", "FAIL", ports=["Ethernet4/1", "Ethernet40/1"])], 1, HOSTS, {}),
    ("two checks on one host", [swrec("link_status", "FAIL", ports=["Ethernet1/1"]), swrec("optics_rx", "FAIL", ports=["Ethernet1/1"])], 1, HOSTS,
     {"node-001": [("link_status", ["Ethernet1/1"]), ("optics_rx", ["Ethernet1/1"])]}),
]


@pytest.mark.parametrize("name, records, layer, hosts, wanted", BLOCKERS, ids=[row[0] for row in BLOCKERS])
def test_blockers(name, records, layer, hosts, wanted):  # pylint: disable=unused-argument
    doc = {"host": "leaf1", "results": records, "expect": {"pyramid_switch_ports": LEAF_PLAN}}
    found = _blocking.blockers(doc, layer, hosts)
    assert {host: [(record["check"], ports) for switch, record, ports in items] for host, items in found.items()} == wanted
    assert all(item[0] == "leaf1" for items in found.values() for item in items)


def test_a_switch_without_a_plan_blocks_nobody():
    assert _blocking.blockers({"host": "spine-01", "results": [swrec("bgp_sessions", "FAIL", 2, device=True)]}, 2, HOSTS) == {}


def test_block_writes_one_blocked_record_per_check(tmp_path):
    run = str(tmp_path)
    for leaf, ports in (("leaf1", ["Ethernet1/1"]), ("leaf2", ["Ethernet1/1"])):
        _results.save(run, {"host": leaf, "results": [swrec("optics_rx", "FAIL", ports=ports), swrec("link_status", "FAIL", device=True)],
                            "expect": {"pyramid_switch_ports": LEAF_PLAN}})
    _results.save(run, {"host": "node-001", "results": [rec("iommu", "PASS")], "facts": {}})
    assert _blocking.block(run, 1, ["leaf1", "leaf2"], ["node-001", "node-002"]) == {"node-001": ["leaf1", "leaf2"], "node-002": ["leaf1", "leaf2"]}
    doc = _results.load(run, "node-001")
    assert [(r["check"], r["status"]) for r in doc["results"]] == [("iommu", "PASS"), ("link_status", "BLOCKED"), ("optics_rx", "BLOCKED")]
    blocked = doc["results"][2]
    assert blocked == {
        "host": "node-001", "layer": 1, "check": "optics_rx", "title": "optics_rx title", "row": "optics_rx", "status": "BLOCKED",
        "expected": "every switch in this host's path passes optics_rx", "actual": "blocked by leaf1 Ethernet1/1, leaf2 Ethernet1/1: optics_rx FAIL",
        "command": "optics_rx command", "cause": "Not this host: leaf1 Ethernet1/1, leaf2 Ethernet1/1 fails optics_rx (optics_rx cause)",
        "go_back_to": "optics_rx go back",
        "blocked_by": [{"switch": "leaf1", "check": "optics_rx", "status": "FAIL", "ports": ["Ethernet1/1"]},
                       {"switch": "leaf2", "check": "optics_rx", "status": "FAIL", "ports": ["Ethernet1/1"]}]}
    assert doc["results"][1]["actual"] == "blocked by leaf1, leaf2: link_status FAIL"
    assert [(r["check"], r["status"]) for r in _results.load(run, "node-002")["results"]] == [("link_status", "BLOCKED")]
    # a re-run of the layer replaces the blocked records, never adds to them
    _blocking.block(run, 1, ["leaf1"], ["node-001"])
    assert [r["actual"] for r in _results.load(run, "node-001")["results"][1:]] == ["blocked by leaf1: link_status FAIL",
                                                                                    "blocked by leaf1 Ethernet1/1: optics_rx FAIL"]
    assert _blocking.block(run, 2, ["leaf1"], ["node-001"]) == {}


# --- report/go_no_go.py --------------------------------------------------------------------------

CATALOG = {
    "rows": [{"id": "kernel", "title": "Kernel set up", "layer": 0}, {"id": "nics", "title": "NICs up", "layer": 0},
             {"id": "links", "title": "Switch links", "layer": 1}, {"id": "nccl", "title": "NCCL", "layer": 5},
             {"id": "future", "title": "Not written yet", "layer": 4}],
    "checks": [{"id": "iommu", "layer": 0, "row": "kernel", "title": "IOMMU", "device": "gpu_node"},
               {"id": "rails", "layer": 0, "row": "nics", "title": "Rails", "device": "gpu_node"},
               {"id": "nccl_correct", "layer": 5, "row": "nccl", "title": "NCCL correct", "device": "gpu_node"},
               {"id": "link_status", "layer": 1, "row": "links", "title": "Links", "device": "switch"}],
}
GPU_CHECKS = [("iommu", 0, "kernel"), ("rails", 0, "nics"), ("nccl_correct", 5, "nccl")]


def gpu(host, **statuses):
    """A GPU node's results: every GPU check PASS unless statuses says otherwise (None: not recorded)."""
    return [rec(check, statuses.get(check, "PASS"), layer, host=host, row=row) for check, layer, row in GPU_CHECKS
            if statuses.get(check, "PASS") is not None]


def not_applicable(check, layer, row, host):
    return rec(check, "SKIP", layer, host=host, row=row, not_applicable=True, actual="not applicable on sonic: %s is checked on eos" % check)


def blocked(host, switches=(("leaf1", ["Ethernet1/1"]),)):
    return rec("link_status", "BLOCKED", 1, host=host, row="links", actual="blocked by leaf1 Ethernet1/1: link_status FAIL",
               blocked_by=[{"switch": switch, "check": "link_status", "status": "FAIL", "ports": ports} for switch, ports in switches])


# name, devices, {host: results (None: no results file)}, verdict, {host: (verdict, stopped_at)}, {row: (status, failing, blocked, not run)}
REPORTS = [
    ("every check passes: GO", {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001")}, "GO", {"node-001": ("GO", None)},
     {"kernel": ("pass", [], [], []), "nics": ("pass", [], [], []), "links": ("not_covered", [], [], []), "nccl": ("pass", [], [], []),
      "future": ("not_covered", [], [], [])}),
    ("a FAIL is NO-GO", {"gpu_node": ["node-001", "node-002"]}, {"node-001": gpu("node-001"), "node-002": gpu("node-002", rails="FAIL")},
     "NO-GO", {"node-001": ("GO", None), "node-002": ("NO-GO", 0)}, {"nics": ("fail", ["node-002"], [], []), "kernel": ("pass", [], [], [])}),
    ("an ERROR is never GO", {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001", nccl_correct="ERROR")}, "NO-GO", {"node-001": ("NO-GO", 5)},
     {"nccl": ("fail", ["node-001"], [], [])}),
    # a SKIP leaves its row not run on the device, never failed: [✗] is for a FAIL or ERROR of the row's own (issue 66)
    ("a SKIP is not GO", {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001", nccl_correct="SKIP")}, "NO-GO", {"node-001": ("NO-GO", None)},
     {"nccl": ("not_run", [], [], ["node-001"])}),
    ("a check not run is a SKIP, not GO", {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001", nccl_correct=None)}, "NO-GO",
     {"node-001": ("NO-GO", None)}, {"nccl": ("not_run", [], [], ["node-001"])}),
    ("a host without results is an ERROR on every check", {"gpu_node": ["node-001", "node-002"]}, {"node-001": gpu("node-001"), "node-002": None},
     "NO-GO", {"node-001": ("GO", None), "node-002": ("NO-GO", 0)},
     {"kernel": ("fail", ["node-002"], [], []), "nccl": ("fail", ["node-002"], [], [])}),
    ("a not applicable SKIP is ignored", {"gpu_node": ["node-001"]},
     {"node-001": gpu("node-001", rails=None) + [not_applicable("rails", 0, "nics", "node-001")]}, "GO", {"node-001": ("GO", None)},
     {"nics": ("not_covered", [], [], []), "kernel": ("pass", [], [], [])}),
    ("a host blocked by a switch is NO-GO, not failing", {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001") + [blocked("node-001")]},
     "NO-GO", {"node-001": ("NO-GO", 1)}, {"links": ("not_covered", [], [], []), "kernel": ("pass", [], [], [])}),
    ("a failing switch and the host it blocks", {"gpu_node": ["node-001"], "switch": ["leaf1"]},
     {"node-001": gpu("node-001") + [blocked("node-001")], "leaf1": [rec("link_status", "FAIL", 1, host="leaf1", row="links")]},
     "NO-GO", {"node-001": ("NO-GO", 1), "leaf1": ("NO-GO", 1)}, {"links": ("fail", ["leaf1"], ["node-001"], [])}),
    ("a passing switch in the run", {"gpu_node": ["node-001"], "switch": ["leaf1"]},
     {"node-001": gpu("node-001"), "leaf1": [rec("link_status", "PASS", 1, host="leaf1", row="links")]},
     "GO", {"node-001": ("GO", None), "leaf1": ("GO", None)}, {"links": ("pass", [], [], []), "future": ("not_covered", [], [], [])}),
    # the switch is GO; the pod is not, in a run without GPU nodes that does not declare pyramid_switch_only
    ("a switch check not applicable to its platform", {"switch": ["leaf1"]},
     {"leaf1": [not_applicable("link_status", 1, "links", "leaf1")]}, "NO-GO", {"leaf1": ("GO", None)},
     {"links": ("not_covered", [], [], []), "kernel": ("not_covered", [], [], [])}),
    ("a FAIL beats a BLOCKED in the checklist", {"gpu_node": ["node-001"]},
     {"node-001": gpu("node-001", iommu="FAIL") + [rec("extra", "BLOCKED", 0, row="kernel", blocked_by=[])]}, "NO-GO", {"node-001": ("NO-GO", 0)},
     {"kernel": ("fail", ["node-001"], [], [])}),
    ("a BLOCKED beats a SKIP in the checklist", {"gpu_node": ["node-001"]},
     {"node-001": gpu("node-001", iommu="SKIP") + [rec("extra", "BLOCKED", 0, row="kernel", blocked_by=[])]}, "NO-GO", {"node-001": ("NO-GO", 0)},
     {"kernel": ("fail", [], ["node-001"], [])}),
    ("an empty run is NO-GO", {"gpu_node": []}, {}, "NO-GO", {}, {"kernel": ("not_covered", [], [], []), "links": ("not_covered", [], [], [])}),
    ("a stray result of another check is ignored", {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001") + [rec("old_check", "FAIL", 0)]},
     "GO", {"node-001": ("GO", None)}, {"kernel": ("pass", [], [], [])}),
]


# These rows judge the hosts; the go-live rows a run leaves unchecked (the switch links of a run of GPU nodes) are
# waived here and have tests of their own (test_gate_and_report.py, test_not_checked_rows_say_why_each).
WAIVED = ({"row": "links", "reason": "the switches are another run's"},)


def build(tmp_path, devices, docs, waive=WAIVED):
    for host, results in docs.items():
        if results is not None:
            _results.save(str(tmp_path), {"host": host, "results": results, "facts": {}, "expect": {"pyramid_waive": list(waive)}})
    return _report.build(CATALOG, str(tmp_path), devices)


@pytest.mark.parametrize("name, devices, docs, verdict, hosts, rows", REPORTS, ids=[row[0] for row in REPORTS])
def test_report(tmp_path, name, devices, docs, verdict, hosts, rows):  # pylint: disable=unused-argument,too-many-arguments
    report = build(tmp_path, devices, docs)
    assert report["verdict"] == verdict
    assert {host: (info["verdict"], info["stopped_at"]) for host, info in report["hosts"].items()} == hosts
    checklist = {row["row"]: row for row in report["checklist"]}
    for row, (status, failing, blocked_hosts, not_run) in rows.items():
        assert (checklist[row]["status"], checklist[row]["failing_hosts"], checklist[row]["blocked_hosts"], checklist[row]["not_run_hosts"]) == (
            status, failing, blocked_hosts, not_run), row
    assert [(row["row"], row["title"], row["layer"], row["checks"]) for row in report["checklist"]] == [
        ("kernel", "Kernel set up", 0, ["iommu"]), ("nics", "NICs up", 0, ["rails"]), ("links", "Switch links", 1, ["link_status"]),
        ("nccl", "NCCL", 5, ["nccl_correct"]), ("future", "Not written yet", 4, [])]
    go = sum(1 for info in report["hosts"].values() if info["verdict"] == "GO")
    assert report["summary"]["hosts"] == len(hosts) and report["summary"]["go"] == go and report["summary"]["no_go"] == len(hosts) - go
    assert report["schema_version"] == 1 and report["run_dir"] == str(tmp_path) and report["layers_in_catalog"] == [0, 1, 5]


# name, row id, why_not wanted
NOT_COVERED = [("no catalog check yet", "future", "no catalog check yet"), ("no switch in the run", "links", "no switch in this run")]


@pytest.mark.parametrize("name, row, why", NOT_COVERED, ids=[row[0] for row in NOT_COVERED])
def test_why_a_row_is_not_covered(tmp_path, name, row, why):  # pylint: disable=unused-argument
    report = build(tmp_path, {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001")})
    assert {r["row"]: r.get("why_not") for r in report["checklist"]}[row] == why


def test_a_row_of_two_device_types_names_both(tmp_path):
    catalog = {"rows": [{"id": "mixed", "title": "Both", "layer": 0}],
               "checks": [{"id": "a", "layer": 0, "row": "mixed", "title": "A", "device": "switch"},
                          {"id": "b", "layer": 0, "row": "mixed", "title": "B", "device": "gpu_node"}]}
    report = _report.build(catalog, str(tmp_path), {"dpu": ["dpu-01"]})
    assert (report["checklist"][0]["status"], report["checklist"][0]["why_not"]) == ("not_covered", "no gpu_node or switch in this run")


def test_not_applicable_why_not(tmp_path):
    report = build(tmp_path, {"switch": ["leaf1"]}, {"leaf1": [not_applicable("link_status", 1, "links", "leaf1")]})
    # the records' own reason, the check's name taken out (issue 66)
    assert {r["row"]: r.get("why_not") for r in report["checklist"]}["links"] == "not applicable on sonic: the check is checked on eos"
    assert {r["row"]: r.get("why_not") for r in report["checklist"]}["kernel"] == "no gpu_node in this run"


def test_missing_records(tmp_path):
    report = build(tmp_path, {"gpu_node": ["node-001", "node-002"]}, {"node-001": gpu("node-001", nccl_correct=None), "node-002": None})
    skipped = report["hosts"]["node-001"]["checks"][-1]
    assert skipped == {"host": "node-001", "layer": 5, "check": "nccl_correct", "title": "NCCL correct", "row": "nccl", "status": "SKIP",
                       "expected": "a result", "actual": "not run in this play", "command": None, "cause": None, "go_back_to": None,
                       "not_read": False}
    error = report["hosts"]["node-002"]["checks"][0]
    assert error == {"host": "node-002", "layer": 0, "check": "iommu", "title": "IOMMU", "row": "kernel", "status": "ERROR", "expected": "a result",
                     "actual": "no results at all: the host left the play before its first check", "command": None,
                     "cause": "No data: the playbook failed on this host before any check ran",
                     "go_back_to": "Read the play output for this host, then re-run", "not_read": True}
    assert [r["layer"] for r in report["hosts"]["node-001"]["checks"]] == [0, 0, 5]
    assert report["summary"]["checks"] == {"PASS": 2, "SKIP": 1, "ERROR": 3}


def test_outputs_of_a_no_go_run(tmp_path):
    docs = {"node-001": gpu("node-001", rails="FAIL"), "node-002": gpu("node-002", nccl_correct="ERROR") + [blocked("node-002")],
            "node-003": gpu("node-003", iommu="SKIP"), "leaf1": [rec("link_status", "FAIL", 1, host="leaf1", row="links")]}
    report = build(tmp_path, {"gpu_node": ["node-001", "node-002", "node-003"], "switch": ["leaf1"]}, docs, waive=[])
    report["generated_at"] = "2026-11-23T00:00:00+00:00"
    text = _report.checklist_text(report).splitlines()
    assert text[:8] == [
        "GO/NO-GO: NO-GO  (0 of 4 hosts GO)", "",
        "[ ] L0  Kernel set up  NOT RUN: node-003 (iommu: iommu actual)",
        "[✗] L0  NICs up  FAILING: node-001",
        "[✗] L1  Switch links  FAILING: leaf1  BLOCKED: node-002",
        "[✗] L5  NCCL  FAILING: node-002",
        "[ ] L4  Not written yet  (not checked: no catalog check yet)", ""]
    assert text[8:21] == [
        "Why (likely cause -> go back to):",  # by layer first, what to fix first (issue 71)
        "  node-001 L0 rails FAIL: rails actual", "      cause: rails cause", "      go back to: rails go back",
        "  leaf1 L1 link_status FAIL: link_status actual", "      cause: link_status cause", "      go back to: link_status go back",
        "  node-002 L5 nccl_correct ERROR: nccl_correct actual", "      cause: nccl_correct cause", "      go back to: nccl_correct go back", "",
        "Blocked by a switch in their path (not failing on their own):", "  L1 by leaf1 link_status Ethernet1/1: node-002"]
    # node-003 is NO-GO with no finding: its cause is the check it was not proven by (issue 66)
    assert text[21:] == ["", "NO-GO without a failure of their own (a check not proven):",
                         "  node-003: L0 iommu not proven (SKIP): iommu actual",
                         "", "Stopped (not climbed past the failing layer): leaf1@L1, node-001@L0, node-002@L1", "",
                         "Reports: %s/report.html  report.md  report.json  junit.xml" % tmp_path]
    markdown = _report.markdown(report).splitlines()
    assert markdown[:3] == ["# Go/no-go: NO-GO", "", "0 of 4 hosts GO. Generated 2026-11-23T00:00:00+00:00. Layers in the catalog: L0, L1, L5."]
    assert "| [✗] | L1 | Switch links | leaf1 (link_status) | node-002 |  |" in markdown
    assert "| [ ] | L4 | Not written yet *(not checked: no catalog check yet)* |  |  |  |" in markdown
    assert "| [ ] | L0 | Kernel set up |  |  | node-003 (iommu: iommu actual) |" in markdown
    assert "| node-001 | L0 | rails | FAIL | rails expected | rails actual | rails cause | rails go back |" in markdown
    assert "| L1 | leaf1 link_status Ethernet1/1 | node-002 |" in markdown
    # every device not GO names its cause: its first FAIL, ERROR or BLOCKED, else the check not proven (issue 66)
    assert "| node-002 | gpu_node | NO-GO | L1 | 2 | 0 | 1 | 1 | 0 | L1 link_status BLOCKED: blocked by leaf1 Ethernet1/1: link_status FAIL |" \
        in markdown
    assert "| node-003 | gpu_node | NO-GO |  | 2 | 0 | 0 | 0 | 1 | L0 iommu not proven (SKIP): iommu actual |" in markdown
    assert "| leaf1 | switch | NO-GO | L1 | 0 | 1 | 0 | 0 | 0 | L1 link_status FAIL: link_status cause |" in markdown
    assert _report.markdown(report).endswith("|\n")
    suite = ET.fromstring(_report.junit(report).split("?>", 1)[1])
    assert (suite.get("name"), suite.get("timestamp")) == ("gpufabric.pyramid", "2026-11-23T00:00:00+00:00")
    # a testcase per check and one per device, its verdict: failed with its cause, skipped where a switch blocked it
    assert {key: suite.get(key) for key in ("tests", "failures", "errors", "skipped")} == {"tests": "15", "failures": "5", "errors": "1", "skipped": "3"}
    cases = {(case.get("classname"), case.get("name")): case for case in suite}
    failure = cases[("node-001", "L0.rails")].find("failure")
    assert failure.get("message") == "rails actual"
    assert failure.text == "expected: rails expected\nactual: rails actual\ncommand: rails command\ncause: rails cause\ngo back to: rails go back"
    assert cases[("node-002", "L5.nccl_correct")].find("error").get("message") == "nccl_correct actual"
    assert cases[("node-002", "L1.link_status")].find("skipped").get("message") == "blocked by leaf1 Ethernet1/1: link_status FAIL"
    assert cases[("node-003", "L0.iommu")].find("skipped") is not None
    assert list(cases[("node-001", "L0.iommu")]) == []
    assert cases[("node-003", "verdict")].find("failure").get("message") == "NO-GO: L0 iommu not proven (SKIP): iommu actual"
    assert cases[("node-002", "verdict")].find("skipped").get("message") == (
        "NO-GO BLOCKED: L1 link_status BLOCKED: blocked by leaf1 Ethernet1/1: link_status FAIL")
    assert cases[("node-001", "verdict")].find("failure").get("message") == "NO-GO: L0 rails FAIL: rails cause"
    _files.write(report)
    assert json.loads((tmp_path / "report.json").read_text())["verdict"] == "NO-GO"
    assert (tmp_path / "report.md").read_text() == _report.markdown(report)
    assert (tmp_path / "junit.xml").read_text() == _report.junit(report)


def test_outputs_of_a_go_run(tmp_path):
    report = build(tmp_path, {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001")})
    text = _report.checklist_text(report)
    assert text.splitlines()[:5] == ["GO/NO-GO: GO  (1 of 1 hosts GO)", "WAIVED: Switch links: the switches are another run's", "",
                                     "[✓] L0  Kernel set up", "[✓] L0  NICs up"]
    assert "Why (likely" not in text and "Blocked by" not in text and "Stopped" not in text
    assert "[ ] L1  Switch links  (not checked: no switch in this run)" in text
    markdown = _report.markdown(report)
    assert "## Failures and their likely causes\n\nNone.\n" in markdown and "## Blocked by" not in markdown
    assert "| node-001 | gpu_node | GO |  | 3 | 0 | 0 | 0 | 0 |  |" in markdown


def _distinct(docs):
    """Each finding its own actual text: identical findings on three devices or more are one entry (grouped())."""
    for number, record in enumerate(record for records in docs.values() for record in records):
        if record["status"] in ("FAIL", "ERROR"):
            record["actual"] = "%s actual (%d)" % (record["check"], number)
    return docs


def test_long_lists_are_cut(tmp_path):
    hosts = ["node-%03d" % index for index in range(1, 46)]
    # node-001..013 blocked by leaf1, each later node by a leaf of its own: 33 (layer, switch) groups
    switch = {host: "leaf1" if index < 13 else "leaf%02d" % (index + 1) for index, host in enumerate(hosts)}
    docs = {host: gpu(host, rails="FAIL") + [blocked(host, ((switch[host], ["Ethernet1/1"]),))] for host in hosts}
    report = build(tmp_path, {"gpu_node": hosts}, _distinct(docs))
    text = _report.checklist_text(report).splitlines()
    assert "[✗] L0  NICs up  FAILING: node-001, node-002, node-003, node-004, node-005, node-006 +39 more" in text
    assert sum(1 for line in text if line.startswith("  node-")) == 40
    assert "  ... 5 more in report.md" in text
    assert "  L1 by leaf1 link_status Ethernet1/1: %s +1 more" % ", ".join(hosts[:12]) in text
    assert sum(1 for line in text if line.startswith("  L1 by ")) == 20
    assert text[-3].endswith("node-020@L0 ...")
    assert "node-021@L0" not in text[-3]
    markdown = _report.markdown(report)
    assert markdown.count("| rails | FAIL |") == 45
    assert markdown.count("| L1 | leaf") == 33


def test_short_lists_are_whole(tmp_path):
    hosts = ["node-%03d" % index for index in range(1, 21)]
    report = build(tmp_path, {"gpu_node": hosts}, {host: gpu(host, rails="FAIL") + [blocked(host)] for host in hosts[:12]} | {
        host: gpu(host) for host in hosts[12:]})
    text = _report.checklist_text(report).splitlines()
    assert "  L1 by leaf1 link_status Ethernet1/1: %s" % ", ".join(hosts[:12]) in text
    assert text[-3] == "Stopped (not climbed past the failing layer): " + ", ".join("%s@L0" % host for host in hosts[:12])
    assert not any("more in report.md" in line for line in text)
    report = build(tmp_path, {"gpu_node": hosts[:6]}, {})
    assert "[✗] L0  NICs up  FAILING: %s" % ", ".join(hosts[:6]) in _report.checklist_text(report).splitlines()
    report = build(tmp_path, {"gpu_node": hosts[:20]}, _distinct({host: gpu(host, rails="FAIL", iommu="FAIL") for host in hosts[:20]}))
    text = _report.checklist_text(report).splitlines()  # 40 problems, 20 stopped hosts: every one shown
    assert text[-3] == "Stopped (not climbed past the failing layer): " + ", ".join("%s@L0" % host for host in hosts[:20])
    assert sum(1 for line in text if line.startswith("  node-")) == 40 and not any("more in report.md" in line for line in text)


def test_cells_escape_pipes_and_newlines(tmp_path):
    report = build(tmp_path, {"gpu_node": ["node-001"]}, {"node-001": gpu("node-001", rails="FAIL")})
    report["hosts"]["node-001"]["checks"][1]["actual"] = "a | b\nc"
    assert "| a \\| b c |" in _report.markdown(report)


def test_just_over_the_cut(tmp_path):
    hosts = ["node-%03d" % index for index in range(1, 22)]
    docs = _distinct({host: gpu(host, rails="FAIL", iommu="FAIL" if index < 20 else "PASS") for index, host in enumerate(hosts)})
    text = _report.checklist_text(build(tmp_path, {"gpu_node": hosts}, docs)).splitlines()  # 41 problems, 21 stopped hosts
    assert "  ... 1 more in report.md" in text
    assert text[-3].endswith("node-020@L0 ...")


def test_several_failing_and_blocked_hosts_in_markdown(tmp_path):
    two_switches = (("leaf1", ["Ethernet1/1", "Ethernet2/1"]), ("leaf2", []))
    docs = {"node-001": gpu("node-001", rails="FAIL") + [blocked("node-001", two_switches)],
            "node-002": gpu("node-002", rails="ERROR", iommu="SKIP") + [blocked("node-002", two_switches)],
            "node-003": gpu("node-003", iommu="SKIP")}
    docs["node-001"][1]["go_back_to"] = None
    report = build(tmp_path, {"gpu_node": ["node-001", "node-002", "node-003"]}, docs)
    report["generated_at"] = "2026-11-23T00:00:00+00:00"
    assert "  L1 by leaf1 link_status Ethernet1/1/Ethernet2/1, leaf2 link_status: node-001, node-002" in _report.checklist_text(report).splitlines()
    assert _report.markdown(report) == "\n".join([
        "# Go/no-go: NO-GO", "", "0 of 3 hosts GO. Generated 2026-11-23T00:00:00+00:00. Layers in the catalog: L0, L1, L5.", "",
        "- WAIVED: Switch links: the switches are another run's", "",
        "## Checklist", "", "| | Layer | Check | Failing devices | Blocked by a switch | Not run |", "|---|---|---|---|---|---|",
        "| [ ] | L0 | Kernel set up |  |  | node-002, node-003 (iommu: iommu actual) |",
        "| [✗] | L0 | NICs up | node-001 (rails), node-002 (rails) |  |  |",
        "| [ ] | L1 | Switch links *(not checked: no switch in this run)* |  |  |  |",
        "| [✓] | L5 | NCCL |  |  |  |",
        "| [ ] | L4 | Not written yet *(not checked: no catalog check yet)* |  |  |  |", "",
        "## Failures and their likely causes", "",
        "| Host | Layer | Check | Status | Expected | Actual | Likely cause | Go back to |", "|---|---|---|---|---|---|---|---|",
        "| node-001 | L0 | rails | FAIL | rails expected | rails actual | rails cause |  |",
        "| node-002 | L0 | rails | ERROR | rails expected | rails actual | rails cause | rails go back |", "",
        "## Blocked by a switch in their path", "", "| Layer | Blocked by | Hosts |", "|---|---|---|",
        "| L1 | leaf1 link_status Ethernet1/1/Ethernet2/1, leaf2 link_status | node-001, node-002 |", "",
        "## Devices", "", "| Device | Type | Verdict | Stopped at | PASS | FAIL | ERROR | BLOCKED | SKIP | Cause |",
        "|---|---|---|---|---|---|---|---|---|---|",
        "| node-001 | gpu_node | NO-GO | L0 | 2 | 1 | 0 | 1 | 0 | L0 rails FAIL: rails cause |",
        "| node-002 | gpu_node | NO-GO | L0 | 1 | 0 | 1 | 1 | 1 | L0 rails ERROR: rails cause |",
        "| node-003 | gpu_node | NO-GO |  | 2 | 0 | 0 | 0 | 1 | L0 iommu not proven (SKIP): iommu actual |"]) + "\n"
    suite = ET.fromstring(_report.junit(report).split("?>", 1)[1])
    assert suite.tag == "testsuite" and {case.tag for case in suite} == {"testcase"}
    docs["node-003"] = gpu("node-003", nccl_correct="ERROR")
    report = build(tmp_path, {"gpu_node": ["node-001", "node-002", "node-003"]}, docs)
    suite = ET.fromstring(_report.junit(report).split("?>", 1)[1])
    assert (suite.get("errors"), suite.get("failures")) == ("2", "4")  # node-001's rails FAIL, and three NO-GO verdicts
    error = [case for case in suite if case.get("classname") == "node-003" and case.get("name") == "L5.nccl_correct"][0].find("error")
    assert error.text.startswith("expected: nccl_correct expected\nactual: nccl_correct actual\n")
    _files.write(report)
    assert (tmp_path / "report.json").read_text() == json.dumps(report, indent=2, sort_keys=True)


def test_only_host_ports_block_and_a_device_failure_blocks_all():
    plan = [{"port": "Ethernet1/1", "peer": "node-001"}, {"port": "Ethernet2/1", "peer": "node-002", "role": "host"},
            {"port": "Ethernet48/1", "peer": "node-003", "role": "mgmt"}]
    doc = {"host": "leaf1", "expect": {"pyramid_switch_ports": plan}, "results": [swrec("link_status", "FAIL", ports=["Ethernet48/1"])]}
    assert _blocking.blockers(doc, 1, HOSTS) == {}
    doc["results"] = [swrec("link_status", "FAIL", ports=["Ethernet1/1"], device=True)]
    found = _blocking.blockers(doc, 1, HOSTS)
    assert {host: [item[2] for item in items] for host, items in found.items()} == {"node-001": [[]], "node-002": [[]]}


def test_two_hosts_blocked_by_a_failing_switch_in_markdown(tmp_path):
    docs = {"node-001": gpu("node-001") + [blocked("node-001")], "node-002": gpu("node-002") + [blocked("node-002")],
            "leaf1": [rec("link_status", "FAIL", 1, host="leaf1", row="links")]}
    report = build(tmp_path, {"gpu_node": ["node-001", "node-002"], "switch": ["leaf1"]}, docs)
    assert "| [✗] | L1 | Switch links | leaf1 (link_status) | node-001, node-002 |  |" in _report.markdown(report).splitlines()


def test_not_checked_rows_say_why_each(tmp_path):
    """A row none of whose checks could measure says why, from its own records only: each reason once, sorted,
    joined (2026-11-26 mutation run, issue 33). Telemetry without a Prometheus URL on a node and a switch gives one
    reason; the load row's incast, off on InfiniBand rails, and its Prometheus-read check give two, both named."""
    catalog = {"rows": [{"id": "load", "title": "QoS under load", "layer": 3}, {"id": "telemetry", "title": "Telemetry", "layer": 7}],
               "checks": [{"id": "incast", "layer": 3, "row": "load", "title": "Incast", "device": "gpu_node"},
                          {"id": "ecn_load_signals", "layer": 3, "row": "load", "title": "ECN marks under load", "device": "gpu_node"},
                          {"id": "telemetry_signals", "layer": 7, "row": "telemetry", "title": "Telemetry", "device": "gpu_node"},
                          {"id": "switch_telemetry_signals", "layer": 7, "row": "telemetry", "title": "Switch telemetry", "device": "switch"}]}
    no_url = "no Prometheus URL (pyramid_prometheus_url)"

    def off(check, layer, row, host, why):
        return dict(not_applicable(check, layer, row, host), not_checked=why)

    docs = {"node-001": [off("incast", 3, "load", "node-001", "InfiniBand rails: no ECN or PFC to prove"),
                         off("ecn_load_signals", 3, "load", "node-001", no_url),
                         off("telemetry_signals", 7, "telemetry", "node-001", no_url)],
            "leaf1": [off("switch_telemetry_signals", 7, "telemetry", "leaf1", no_url)]}
    for host, results in docs.items():
        _results.save(str(tmp_path), {"host": host, "results": results, "facts": {}})
    report = _report.build(catalog, str(tmp_path), {"gpu_node": ["node-001"], "switch": ["leaf1"]})
    assert {r["row"]: (r["status"], r.get("why_not")) for r in report["checklist"]} == {
        "load": ("not_covered", "InfiniBand rails: no ECN or PFC to prove; " + no_url),
        "telemetry": ("not_covered", no_url)}
    # the node and the switch are GO; the pod is not: one unchecked go-live row is a no-go (issue 37)
    assert report["summary"]["go"] == 2 and report["verdict"] == "NO-GO"
    assert [(row["row"], row["why_not"]) for row in report["unchecked_rows"]] == [
        ("load", "InfiniBand rails: no ECN or PFC to prove; " + no_url), ("telemetry", no_url)]


def test_what_to_fix_first_comes_first_and_one_finding_on_many_devices_is_one_entry(tmp_path):
    """Issue 71: a leaf that blocks many nodes before a node's own finding at the same layer, layers in order, and the
    same finding on twelve nodes one entry naming them (not twelve rows)."""
    hosts = ["node-%03d" % index for index in range(1, 15)]
    docs = {host: gpu(host, rails="FAIL") for host in hosts[:12]}
    for host in hosts[:12]:
        docs[host][1]["actual"] = "mlx5_3 at 200G on %s" % host
    docs.update({host: gpu(host) + [blocked(host, (("leaf9", ["Ethernet1/1"]),))] for host in hosts[12:]})
    docs["node-013"][0] = rec("iommu", "FAIL", 0, host="node-013", actual="iommu off")
    docs["leaf1"] = [rec("link_status", "FAIL", 1, host="leaf1", row="links", actual="one port down")]
    docs["leaf9"] = [rec("link_status", "FAIL", 1, host="leaf9", row="links", actual="uplink down")]
    report = build(tmp_path, {"gpu_node": hosts, "switch": ["leaf1", "leaf9"]}, docs)
    order = [(r["host"], r["check"]) for r in _report.problems(report)]
    assert order[0] == ("node-013", "iommu") and order[-2:] == [("leaf9", "link_status"), ("leaf1", "link_status")], order
    text = _report.checklist_text(report).splitlines()
    start = text.index("Why (likely cause -> go back to):")
    assert text[start + 1] == "  node-013 L0 iommu FAIL: iommu off"
    assert text[start + 4] == "  12 devices: %s L0 rails FAIL: mlx5_3 at 200G on node-001" % ", ".join(hosts[:12])
    assert text[start + 7] == "  leaf9 L1 link_status FAIL: uplink down"  # blocks two nodes: before leaf1, which blocks none
    markdown = _report.markdown(report)
    assert markdown.count("| rails | FAIL |") == 1 and "| 12 devices: node-001, node-002" in markdown
