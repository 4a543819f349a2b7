"""The layer gate and the go/no-go report read the results files."""

import json
import xml.etree.ElementTree as ET

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import files as _files, go_no_go as _report

CATALOG = _catalog.load_catalog()
L0 = _catalog.checks_at(CATALOG, 0)
ALL = _catalog.checks_for(CATALOG, "gpu_node")


def _record(host, check, status, layer=0):
    return {"host": host, "layer": layer, "check": check["id"] if isinstance(check, dict) else check,
            "title": "t", "row": check["row"] if isinstance(check, dict) else "links", "status": status,
            "expected": "e", "actual": "a", "command": "c",
            "cause": "why" if status in ("FAIL", "ERROR") else None, "go_back_to": "there" if status == "FAIL" else None}


def _write(run_dir, host, statuses, link_layer="roce"):
    """Every GPU-node check's record as a RoCE node's layers make it (or an InfiniBand node's): the given status, else
    PASS; a check for the other fabric only (its only_if) SKIP not applicable."""
    doc = {"host": host, "results": [], "facts": {}, "expect": {"pyramid_rdma_link_layer": link_layer}}
    records = []
    for check in ALL:
        record = dict(_record(host, check, statuses.get(check["id"], "PASS")), layer=check["layer"])
        if _catalog.not_applicable(check, {"pyramid_rdma_link_layer": link_layer}):
            record.update(status="SKIP", not_applicable=True)
        records.append(record)
    _results.record(doc, records)
    _results.save(str(run_dir), doc)


def test_gate_blocks_above_the_lowest_failing_layer():
    results = [_record("n", "a", "PASS", 0), _record("n", "b", "FAIL", 0), _record("n", "c", "ERROR", 2)]
    assert _results.blocker(results, 0) is None
    assert _results.blocker(results, 1) == (0, ["b"])
    assert _results.blocker(results, 5) == (0, ["b"])
    assert _results.stopped_at(results) == 0
    assert _results.blocker([_record("n", "a", "PASS", 0), _record("n", "s", "SKIP", 1)], 2) is None


def test_rerun_replaces_a_checks_result():
    doc = {"host": "n", "results": [_record("n", "a", "FAIL")]}
    _results.record(doc, [_record("n", "a", "PASS")])
    assert [r["status"] for r in doc["results"]] == ["PASS"]


def test_report_go_only_when_every_check_passes(tmp_path):
    _write(tmp_path, "node-001", {})
    _write(tmp_path, "node-002", {"gpudirect": "FAIL"})
    _write(tmp_path, "node-003", {"rails_present": "ERROR"})
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001", "node-002", "node-003", "node-004"]})
    hosts = report["hosts"]
    assert report["verdict"] == "NO-GO"
    assert hosts["node-001"]["verdict"] == "GO" and hosts["node-001"]["stopped_at"] is None
    assert hosts["node-002"]["verdict"] == "NO-GO" and hosts["node-002"]["stopped_at"] == 0
    assert hosts["node-003"]["verdict"] == "NO-GO"
    # a host without any result (dropped out of the play) is an ERROR, never a pass
    assert {r["status"] for r in hosts["node-004"]["checks"]} == {"ERROR"}
    assert len(hosts["node-004"]["checks"]) == len(ALL)
    rows = {row["row"]: row for row in report["checklist"]}
    assert rows["gpudirect"]["status"] == "fail" and "node-002" in rows["gpudirect"]["failing_hosts"]
    # node-004 left the play before its first check: its every check is an ERROR (go_no_go._missing), so
    # it is a failing host of every row, not a host where the row was merely not run
    assert (rows["iommu"]["status"], rows["iommu"]["failing_hosts"], rows["iommu"]["not_run_hosts"]) == (
        "fail", ["node-004"], [])
    assert rows["rdma_driver"]["failing_hosts"] == ["node-003", "node-004"]
    # the links row: InfiniBand's ib_links does not apply to the RoCE nodes and no switch is in the run; node-004, which
    # left the play before its first check, fails it too (nothing says what its rails are)
    assert (rows["links"]["status"], rows["links"]["failing_hosts"]) == ("fail", ["node-004"])
    _files.write(report)
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved["verdict"] == "NO-GO" and saved["hosts"]["node-002"]["checks"][0]["layer"] == 0
    suite = ET.parse(tmp_path / "junit.xml").getroot()
    # a testcase per check and one per device, its verdict: a NO-GO device's failure names its cause (issue 66)
    assert int(suite.get("tests")) == 4 * len(ALL) + 4
    assert int(suite.get("failures")) == 1 + 3
    verdicts = {case.get("classname"): case for case in suite if case.get("name") == "verdict"}
    assert verdicts["node-002"].find("failure").get("message").startswith("NO-GO: L0 gpudirect FAIL: ")
    assert not list(verdicts["node-001"])  # GO: a passing testcase
    assert "GPUDirect" in (tmp_path / "report.md").read_text()
    text = _report.checklist_text(report)
    assert "[✗] L0  GPUDirect RDMA active  FAILING: node-002" in text


def test_report_go_for_a_clean_pod(tmp_path):
    _write(tmp_path, "node-001", {})
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001"]})
    # without its switches the pod's switch rows are unchecked: NO-GO until the inventory waives them (issue 37)
    switch_rows = ["bgp_ecmp", "links", "qos_idle"]  # links: InfiniBand's ib_links does not apply to a RoCE node
    assert report["verdict"] == "NO-GO" and sorted(row["row"] for row in report["unchecked_rows"]) == switch_rows
    _write_expect(tmp_path, "node-001", pyramid_waive=[{"row": row, "reason": "switches: the network team's run"} for row in switch_rows])
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001"]})
    assert report["verdict"] == "GO"
    # every row a GPU node check ticks passes; the rows of switch checks only are not covered in a run without switches,
    # nor is the links row: InfiniBand's ib_links does not apply to a RoCE node, and mlxlink's nic_physical_layer proves
    # the NIC's end alone (row_alone: false): the row's links are not checked without the switches
    gpu_rows = {check["row"] for check in ALL if not _catalog.not_applicable(check, {"pyramid_rdma_link_layer": "roce"})
                and check.get("row_alone") is not False}
    assert {row["row"]: row["status"] for row in report["checklist"]} == {
        row["id"]: "pass" if row["id"] in gpu_rows else "not_covered" for row in CATALOG["rows"]}
    assert gpu_rows and set(row["id"] for row in CATALOG["rows"]) - gpu_rows


def test_a_check_not_applicable_on_a_platform_neither_passes_nor_blocks_go(tmp_path):
    switch_checks = _catalog.checks_for(CATALOG, "switch")
    doc = {"host": "leaf1", "results": [], "facts": {}}
    records = [dict(_record("leaf1", c, "PASS"), layer=c["layer"]) for c in switch_checks]
    records[0].update(status="SKIP", not_applicable=True, actual="not applicable on nxos")
    _results.record(doc, records)
    _results.save(str(tmp_path), doc)
    report = _report.build(CATALOG, str(tmp_path), {"switch": ["leaf1"]})
    assert report["hosts"]["leaf1"]["verdict"] == "GO"
    row = next(r for r in report["checklist"] if r["row"] == switch_checks[0]["row"])
    assert row["status"] == "pass" and not row["not_run_hosts"]  # the row's other checks ran and passed
    # a plain SKIP (not run) is still no GO
    records[0].pop("not_applicable")
    _results.record(doc, records)
    _results.save(str(tmp_path), doc)
    assert _report.build(CATALOG, str(tmp_path), {"switch": ["leaf1"]})["hosts"]["leaf1"]["verdict"] == "NO-GO"


def test_a_row_no_device_of_the_run_applies_to_is_not_covered(tmp_path):
    links = [c for c in _catalog.checks_for(CATALOG, "switch") if c["row"] == "links"]
    doc = {"host": "leaf1", "results": [], "facts": {}}
    records = [dict(_record("leaf1", c, "PASS"), layer=c["layer"]) for c in _catalog.checks_for(CATALOG, "switch")]
    for record in records:
        if record["row"] == "links":
            record.update(status="SKIP", not_applicable=True, actual="not applicable on sonic: %s is checked on eos" % record["check"])
    _results.record(doc, records)
    _results.save(str(tmp_path), doc)
    report = _report.build(CATALOG, str(tmp_path), {"switch": ["leaf1"]})
    row = next(r for r in report["checklist"] if r["row"] == "links")
    assert links and row["status"] == "not_covered" and "not applicable" in row["why_not"]


def test_a_check_missing_from_a_host_with_results_is_not_run_and_a_host_without_any_is_failing(tmp_path):
    doc = {"host": "node-001", "results": [], "facts": {}}
    _results.record(doc, [dict(_record("node-001", c, "PASS"), layer=c["layer"]) for c in ALL if c["row"] != "iommu"])
    _results.save(str(tmp_path), doc)
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001", "node-002"]})
    iommu = {check["id"] for check in ALL if check["row"] == "iommu"}
    assert iommu and {r["check"]: r["status"] for r in report["hosts"]["node-001"]["checks"] if r["row"] == "iommu"} == \
        dict.fromkeys(iommu, "SKIP")
    assert {r["status"] for r in report["hosts"]["node-002"]["checks"]} == {"ERROR"}
    row = next(r for r in report["checklist"] if r["row"] == "iommu")
    assert (row["status"], row["failing_hosts"], row["not_run_hosts"]) == ("fail", ["node-002"], ["node-001"])
    assert report["hosts"]["node-001"]["verdict"] == "NO-GO"


def test_a_host_run_with_the_gate_lifted_is_not_said_to_have_stopped(tmp_path):
    _write(tmp_path, "node-001", {"gpudirect": "FAIL"})
    lifted = {"host": "node-002", "results": [], "facts": {}, "expect": {"pyramid_enforce_gate": False}}
    _results.record(lifted, [dict(_record("node-002", c, "FAIL" if c["id"] == "gpudirect" else "PASS"), layer=c["layer"]) for c in ALL])
    _results.save(str(tmp_path), lifted)
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001", "node-002"]})
    assert report["hosts"]["node-001"]["gate_lifted"] is False and report["hosts"]["node-002"]["gate_lifted"] is True
    text = _report.checklist_text(report)
    assert "Stopped (not climbed past the failing layer): node-001@L0\n" in text + "\n"
    assert "First failing layer (gate lifted: the layers above ran anyway): node-002@L0" in text


def test_junit_stays_valid_xml_when_a_tool_printed_control_characters(tmp_path):
    _write(tmp_path, "node-001", {"gpudirect": "ERROR"})
    doc = _results.load(str(tmp_path), "node-001")
    for record in doc["results"]:
        if record["check"] == "gpudirect":
            record["actual"] = "exited 1: \x1b[31mERROR\x1b[0m bad byte \x00\x07\x1b here \ud800"
    _results.save(str(tmp_path), doc)
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001"]})
    suite = ET.fromstring(_report.junit(report).split("?>", 1)[1])
    (error,) = suite.iter("error")
    assert error.get("message") == "exited 1: ERROR bad byte ??? here ?"


def _switch(run_dir, host, switch_only):
    """A switch whose every check passed, its expectations saying whether the run is declared switch-only."""
    doc = {"host": host, "results": [], "facts": {}, "expect": {"pyramid_switch_only": switch_only}}
    _results.record(doc, [dict(_record(host, check, "PASS"), layer=check["layer"]) for check in _catalog.checks_for(CATALOG, "switch")])
    _results.save(str(run_dir), doc)


def test_a_run_without_any_gpu_node_is_no_go_unless_declared_switch_only(tmp_path):
    _switch(tmp_path / "a", "leaf1", switch_only=False)
    report = _report.build(CATALOG, str(tmp_path / "a"), {"switch": ["leaf1"]})
    assert report["summary"]["go"] == 1 and report["verdict"] == "NO-GO"  # the switch is GO, the pod is not
    assert "no GPU node in this run" in report["no_gpu_node"] and "pyramid_switch_only: true" in report["no_gpu_node"]
    assert "NO-GO: no GPU node in this run" in _report.checklist_text(report) and "NO-GO: no GPU node" in _report.markdown(report)
    _switch(tmp_path / "b", "leaf1", switch_only=True)
    declared = _report.build(CATALOG, str(tmp_path / "b"), {"switch": ["leaf1"]})
    assert declared["verdict"] == "GO" and declared["no_gpu_node"] is None


def _write_expect(run_dir, host, **expect):
    doc = _results.load(str(run_dir), host)
    doc["expect"] = dict(doc.get("expect") or {}, **expect)
    _results.save(str(run_dir), doc)


def test_one_unchecked_go_live_row_is_a_no_go_unless_waived_with_its_reason(tmp_path):
    """Seed 000: "one unchecked row is a no-go". A RoCE pod's nodes all GO, run without its switches and without the
    incast: the switch rows and the incast's row were not checked for reasons of the run's; the InfiniBand rows are
    not applicable (no gap). Waived, with reasons, the pod is GO and the report says what was waived and why."""
    incast = next(check for check in ALL if check["id"] == "incast_ecn")
    _write(tmp_path, "node-001", {})
    doc = _results.load(str(tmp_path), "node-001")
    _results.record(doc, [dict(_record("node-001", incast, "SKIP"), layer=3, not_applicable=True, not_checked="pyramid_incast is false")])
    _results.save(str(tmp_path), doc)
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001"]})
    assert report["summary"]["go"] == 1 and report["verdict"] == "NO-GO"
    gaps = {row["row"]: row["why_not"] for row in report["unchecked_rows"]}
    assert gaps["qos_load"] == "pyramid_incast is false" and gaps["bgp_ecmp"] == "no switch in this run", gaps
    assert "subnet_manager" not in gaps  # an InfiniBand row on a RoCE pod: not applicable, nothing left unchecked
    text = _report.checklist_text(report)
    assert "NO-GO: go-live row not checked: No PFC storms under load (pyramid_incast is false)" in text
    waive = [{"row": row, "reason": "switches validated by the network team's run 42"} for row in gaps]
    waive[gaps and list(gaps).index("qos_load")] = {"row": "qos_load", "reason": "incast scheduled for the maintenance window"}
    _write_expect(tmp_path, "node-001", pyramid_waive=waive)
    waived = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001"]})
    assert waived["verdict"] == "GO" and waived["unchecked_rows"] == []
    assert {row["row"]: row["reason"] for row in waived["waived_rows"]}["qos_load"] == "incast scheduled for the maintenance window"
    assert "WAIVED: No PFC storms under load: incast scheduled for the maintenance window" in _report.checklist_text(waived)
    assert "- WAIVED: No PFC storms under load" in _report.markdown(waived)


def test_an_infiniband_pod_without_switches_is_go_its_roce_rows_not_applicable_not_gaps(tmp_path):
    """An InfiniBand pod has no BGP, PFC or ECN (issue 36): run without Ethernet switches (its subnet is read from a
    host), every node GO, the RoCE rows read not applicable, neither a gap (NO-GO) nor a pass; its own rows checked.
    One RoCE node in the run keeps the RoCE rows: they apply to it, and without switches they are gaps again."""
    for node in ("node-001", "node-002"):
        _write(tmp_path, node, {}, link_layer="infiniband")
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001", "node-002"]})
    assert report["verdict"] == "GO" and report["unchecked_rows"] == [], report["unchecked_rows"]
    rows = {row["row"]: row for row in report["checklist"]}
    for row in ("bgp_ecmp", "qos_idle", "roce_host", "roce_agree", "qos_load"):
        assert rows[row]["status"] == "not_covered", rows[row]
        assert rows[row]["why_not"] == ("not applicable: pyramid_rdma_link_layer is infiniband (the row is checked where "
                                        "it is roce)"), rows[row]
    assert rows["subnet_manager"]["status"] == rows["ib_routing"]["status"] == rows["links"]["status"] == "pass"
    # not applicable reads "-" with why, never "[ ]" as a gap (issue 66)
    assert "[-] L2  BGP up, ECMP balanced  (not applicable: pyramid_rdma_link_layer is infiniband" in \
        _report.checklist_text(report)
    _write(tmp_path, "node-003", {})  # a RoCE node beside them
    mixed = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["node-001", "node-002", "node-003"]})
    assert mixed["verdict"] == "NO-GO" and "bgp_ecmp" in {row["row"] for row in mixed["unchecked_rows"]}


def test_a_waiver_must_name_a_row_and_give_a_reason():
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import inventory as _inventory  # pylint: disable=import-outside-toplevel
    found = _inventory.bad_waivers({"node-001": {"pyramid_waive": [{"row": "qos_lod", "reason": "x"}, {"row": "telemetry", "reason": " "}]}},
                                   CATALOG)
    assert found[0].startswith("node-001: pyramid_waive row 'qos_lod' is no row of the checklist; did you mean qos_load?")
    assert found[1] == "node-001: pyramid_waive row telemetry has no reason: say why the pod goes live without it"


def test_a_lone_node_without_switches_reads_the_pod_all_to_all_row_not_applicable_not_a_gap(tmp_path):
    """The pod all-to-all's row holds the link run's switch check (catalog/link.yml, `retraces`), which only follows a
    miss of the nodes' all-to-all: it proves nothing of the row alone, so a run without switches is no gap in that row
    (found on the lent H200: one node, no switch, the row read "not checked: no switch in this run", a NO-GO)."""
    alltoall = next(check for check in ALL if check.get("row") == "alltoall_pod")
    _write(tmp_path, "gpu-host", {})
    doc = _results.load(str(tmp_path), "gpu-host")
    for record in doc["results"]:
        if record["check"] == alltoall["id"]:
            record.update(status="SKIP", not_applicable=True, actual="not applicable: gpu-host is the only GPU node of this run")
    _results.save(str(tmp_path), doc)
    report = _report.build(CATALOG, str(tmp_path), {"gpu_node": ["gpu-host"]})
    row = next(row for row in report["checklist"] if row["row"] == "alltoall_pod")
    assert row["status"] == "not_covered" and "no switch" not in row["why_not"], row
    assert "alltoall_pod" not in {unchecked["row"] for unchecked in report["unchecked_rows"]}, report["unchecked_rows"]


def test_a_switch_found_in_the_subnets_read_is_a_device_judged_on_its_own_records(tmp_path):
    """Issue 69: an InfiniBand switch the link kind named (core/results.add_found) is a device of the report, judged on
    the records it holds (the catalog's other switch checks never ran on it: no inventory host), by any name its fabric
    gives it: a node description's ';', ':' and '/' stay in its name, its file's name keeps what a file name can."""
    run_dir = str(tmp_path)
    _write(run_dir, "node-001", {}, link_layer="infiniband")
    check = next(c for c in CATALOG["checks"] if c["id"] == "ib_fabric_link_under_load")
    named = "MF0;sw-ib01:MQM9700/U1"
    _results.record_each(run_dir, [dict(_record(named, check, "FAIL"), layer=5), dict(_record("spine-02", check, "PASS"), layer=5)])
    _results.add_found(run_dir, [named, "spine-02"], "the subnet read on node-001")
    assert _results.found_devices(run_dir) == {named: "the subnet read on node-001", "spine-02": "the subnet read on node-001"}
    assert _results.load(run_dir, named)["host"] == named and "/" not in _results.host_path(run_dir, named).rsplit("devices/", 1)[1]
    assert _results.host_path(run_dir, "sw ib01") != _results.host_path(run_dir, "sw;ib01")  # not one file for two
    assert _results.host_path(run_dir, "node-001").endswith("/devices/node-001.json")  # an inventory name as it is
    report = _report.build(CATALOG, run_dir, {"gpu_node": ["node-001"]})
    assert report["hosts"][named]["device"] == "switch" and report["hosts"][named]["verdict"] == "NO-GO"
    assert [r["check"] for r in report["hosts"][named]["checks"]] == ["ib_fabric_link_under_load"]
    assert report["hosts"]["spine-02"]["verdict"] == "GO"  # its one record passed: nothing else was its to run
    assert report["verdict"] == "NO-GO"
