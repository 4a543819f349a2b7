"""A failing switch blocks the hosts behind it at that layer; the report shows them as blocked."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.gate import blocking as _blocking
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import go_no_go as _report

CATALOG = _catalog.load_catalog()
PLAN = [{"port": "Ethernet1/1", "peer": "node-001", "role": "host"},
        {"port": "Ethernet2/1", "peer": "node-002", "role": "host"},
        {"port": "Ethernet33/1", "peer": "spine-01", "role": "fabric"}]


def _switch(run_dir, name, records, plan=None):
    doc = {"host": name, "results": records, "facts": {}, "expect": {"pyramid_switch_ports": plan or PLAN}}
    _results.save(run_dir, doc)


def _failure(check, layer, ports=(), device=False, status="FAIL"):
    return {"host": "leaf1-r0", "layer": layer, "check": check, "title": check, "row": "links", "status": status,
            "expected": "e", "actual": "a", "command": "show x", "cause": "bad optic", "go_back_to": "Layer 1",
            "detail": {"ports": list(ports), "device": device}}


def _host(run_dir, name):
    _results.save(run_dir, {"host": name, "results": [], "facts": {}})


def test_failing_host_port_blocks_only_that_host(tmp_path):
    run_dir = str(tmp_path)
    _switch(run_dir, "leaf1-r0", [_failure("link_errors", 1, ["Ethernet2/1"])])
    blocked = _blocking.block(run_dir, 1, ["leaf1-r0"], ["node-001", "node-002"])
    assert blocked == {"node-002": ["leaf1-r0"]}
    record = _results.load(run_dir, "node-002")["results"][0]
    assert record["status"] == "BLOCKED" and record["layer"] == 1 and record["check"] == "link_errors"
    assert record["actual"] == "blocked by leaf1-r0 Ethernet2/1: link_errors FAIL"
    assert record["blocked_by"] == [{"switch": "leaf1-r0", "check": "link_errors", "status": "FAIL", "ports": ["Ethernet2/1"]}]
    assert _results.blocker(_results.load(run_dir, "node-002")["results"], 5) == (1, ["link_errors"])


def test_device_failure_uplink_or_error_blocks_every_host_of_the_leaf(tmp_path):
    run_dir = str(tmp_path)
    hosts = ["node-001", "node-002"]
    for records in ([_failure("bgp_sessions", 2, device=True)], [_failure("link_status", 2, ["Ethernet33/1"])],
                    [_failure("cabling", 2, status="ERROR")]):
        _switch(run_dir, "leaf1-r0", records)
        assert _blocking.block(run_dir, 2, ["leaf1-r0"], hosts) == {h: ["leaf1-r0"] for h in hosts}


def test_two_switches_failing_one_check_are_each_named_with_their_own_status(tmp_path):
    # node-001 behind a FAIL on leaf1-r0's port and an ERROR of leaf1-r1's whole read of the same check: each entry of
    # blocked_by keeps its own switch's status (the first one's was given to both)
    run_dir = str(tmp_path)
    _switch(run_dir, "leaf1-r0", [_failure("roce_port_qos", 3, ["Ethernet1/1"])])
    _switch(run_dir, "leaf1-r1", [dict(_failure("roce_port_qos", 3, ["Ethernet1/1"], status="ERROR"), host="leaf1-r1")])
    _blocking.block(run_dir, 3, ["leaf1-r0", "leaf1-r1"], ["node-001"])
    record = _results.load(run_dir, "node-001")["results"][0]
    assert record["blocked_by"] == [{"switch": "leaf1-r0", "check": "roce_port_qos", "status": "FAIL", "ports": ["Ethernet1/1"]},
                                    {"switch": "leaf1-r1", "check": "roce_port_qos", "status": "ERROR", "ports": []}]
    assert record["actual"] == "blocked by leaf1-r0 Ethernet1/1, leaf1-r1: roce_port_qos ERROR/FAIL"


def test_passing_switch_blocks_nobody(tmp_path):
    run_dir = str(tmp_path)
    _switch(run_dir, "leaf1-r0", [dict(_failure("bgp_sessions", 2), status="PASS")])
    assert _blocking.block(run_dir, 2, ["leaf1-r0"], ["node-001", "node-002"]) == {}


def test_a_whole_spine_failure_blocks_the_hosts_of_every_leaf_it_serves(tmp_path):
    # every path between leaves may hash through any spine: nobody validated this one above its failure
    run_dir = str(tmp_path)
    spine_plan = [{"port": "Ethernet1/1", "peer": "leaf1-r0", "role": "fabric"},
                  {"port": "Ethernet2/1", "peer": "leaf2-r0", "role": "fabric"}]
    _switch(run_dir, "spine-01", [_failure("bgp_sessions", 2, device=True)], spine_plan)
    _switch(run_dir, "leaf1-r0", [dict(_failure("bgp_sessions", 2), status="PASS")])
    _switch(run_dir, "leaf2-r0", [], [{"port": "Ethernet1/1", "peer": "node-003", "role": "host"}])
    hosts = ["node-001", "node-002", "node-003"]
    assert _blocking.block(run_dir, 2, ["spine-01", "leaf1-r0", "leaf2-r0"], hosts) == {h: ["spine-01"] for h in hosts}
    assert _results.load(run_dir, "node-003")["results"][0]["actual"] == "blocked by spine-01: bgp_sessions FAIL"


def test_a_failing_spine_port_blocks_the_hosts_of_the_leaf_at_its_far_end(tmp_path):
    run_dir = str(tmp_path)
    spine_plan = [{"port": "Ethernet1/1", "peer": "leaf1-r0", "role": "fabric"},
                  {"port": "Ethernet2/1", "peer": "leaf2-r0", "role": "fabric"}]
    _switch(run_dir, "spine-01", [_failure("link_errors", 1, ["Ethernet2/1"])], spine_plan)
    _switch(run_dir, "leaf1-r0", [])
    _switch(run_dir, "leaf2-r0", [], [{"port": "Ethernet1/1", "peer": "node-003", "role": "host"}])
    blocked = _blocking.block(run_dir, 1, ["spine-01", "leaf1-r0", "leaf2-r0"], ["node-001", "node-002", "node-003"])
    assert blocked == {"node-003": ["spine-01"]}
    assert _results.load(run_dir, "node-003")["results"][0]["actual"] == "blocked by spine-01 Ethernet2/1: link_errors FAIL"


def test_a_spine_serving_every_rail_leaf_of_a_host_is_named_once(tmp_path):
    # rail-optimized: node-001 sits behind both rail leaves, and spine-01 serves both: one entry, not one per leaf
    # (the report's "L3 by spine-02 ecn_idle, spine-02 ecn_idle, ..." of a real run, eight times over)
    run_dir = str(tmp_path)
    spine_plan = [{"port": "Ethernet1/1", "peer": "leaf1-r0", "role": "fabric"},
                  {"port": "Ethernet2/1", "peer": "leaf1-r1", "role": "fabric"}]
    for leaf in ("leaf1-r0", "leaf1-r1"):
        _switch(run_dir, leaf, [], [{"port": "Ethernet1/1", "peer": "node-001", "role": "host"}])
    for records, layer, ports in (([_failure("ecn_idle", 3, device=True)], 3, []),
                                  ([_failure("link_errors", 1, ["Ethernet1/1", "Ethernet2/1"])], 1, ["Ethernet1/1", "Ethernet2/1"])):
        _switch(run_dir, "spine-01", records, spine_plan)
        _results.save(run_dir, {"host": "node-001", "results": [], "facts": {}})
        _blocking.block(run_dir, layer, ["spine-01", "leaf1-r0", "leaf1-r1"], ["node-001"])
        record = _results.load(run_dir, "node-001")["results"][0]
        assert record["blocked_by"] == [{"switch": "spine-01", "check": records[0]["check"], "status": "FAIL", "ports": ports}]


CLIMBS = [
    # name, switch results, layer, wanted (stop, ports set aside)
    ("nothing failed", [], 2, (None, set())),
    ("a host port failed L1: climbs, that port set aside", [_failure("cabling", 1, ["Ethernet2/1"])], 2, (None, {"Ethernet2/1"})),
    ("ports of two L1 checks and an L2 one: all set aside at L3",
     [_failure("cabling", 1, ["Ethernet2/1"]), _failure("optics_rx", 1, ["Ethernet1/1"]), _failure("link_status", 2, ["Ethernet33/1"])],
     3, (None, {"Ethernet1/1", "Ethernet2/1", "Ethernet33/1"})),
    ("a device-level failure stops it", [_failure("bgp_sessions", 2, device=True)], 3, ((2, ["bgp_sessions"]), set())),
    ("an ERROR naming a port stops it (the read failed)", [_failure("optics_rx", 1, ["Ethernet1/1"], status="ERROR")], 2,
     ((1, ["optics_rx"]), set())),
    ("a FAIL naming no port stops it", [_failure("cabling", 1)], 2, ((1, ["cabling"]), set())),
    ("whole at L2 and ports at L1: stops at L2", [_failure("cabling", 1, ["Ethernet2/1"]), _failure("ecmp", 2, device=True)], 3,
     ((2, ["ecmp"]), set())),
    ("this layer's own failure is not below it", [_failure("bgp_sessions", 2, device=True)], 2, (None, set())),
]


@pytest.mark.parametrize("name, records, layer, wanted", CLIMBS, ids=[row[0] for row in CLIMBS])
def test_climb(name, records, layer, wanted):  # pylint: disable=unused-argument
    assert _blocking.climb(records, layer) == wanted


def test_report_shows_blocked_host_apart_from_failing_switch(tmp_path):
    run_dir = str(tmp_path)
    switch_checks = _catalog.checks_for(CATALOG, "switch")
    records = []
    for check in switch_checks:
        record = _failure(check["id"], check["layer"], ["Ethernet2/1"]) if check["id"] == "link_errors" else \
            dict(_failure(check["id"], check["layer"]), status="PASS", cause=None)
        records.append(dict(record, row=check["row"]))
    _switch(run_dir, "leaf1-r0", records)
    for node in ("node-001", "node-002"):
        _results.save(run_dir, {"host": node, "facts": {}, "results": [
            {"host": node, "layer": c["layer"], "check": c["id"], "title": "t", "row": c["row"], "status": "PASS",
             "expected": "e", "actual": "a", "command": "c", "cause": None, "go_back_to": None}
            for c in _catalog.checks_for(CATALOG, "gpu_node")]})
    _blocking.block(run_dir, 1, ["leaf1-r0"], ["node-001", "node-002"])
    report = _report.build(CATALOG, run_dir, {"gpu_node": ["node-001", "node-002"], "switch": ["leaf1-r0"]})
    assert report["hosts"]["node-001"]["verdict"] == "GO"
    assert report["hosts"]["node-002"]["verdict"] == "NO-GO" and report["hosts"]["node-002"]["stopped_at"] == 1
    links = next(row for row in report["checklist"] if row["row"] == "links")
    assert links["failing_hosts"] == ["leaf1-r0"] and links["blocked_hosts"] == ["node-002"]
    text = _report.checklist_text(report)
    assert "BLOCKED: node-002" in text and "L1 by leaf1-r0 link_errors Ethernet2/1: node-002" in text
    assert "| L1 | leaf1-r0 link_errors Ethernet2/1 | node-002 |" in _report.markdown(report)
    assert 'name="L1.link_errors"><skipped' in _report.junit(report).replace("\n", "")


def test_rows_of_an_absent_device_type_are_not_checked_never_passed(tmp_path):
    run_dir = str(tmp_path)
    # a RoCE node without its switches: the links row's one GPU-node check (InfiniBand's ib_links) does not apply
    _results.save(run_dir, {"host": "node-001", "facts": {}, "results": [
        {"host": "node-001", "layer": 1, "check": check, "title": "t", "row": "links", "status": "SKIP", "not_applicable": True,
         "expected": "e", "actual": "not applicable: pyramid_rdma_link_layer is roce", "command": "(none)", "cause": None, "go_back_to": None}
        for check in ("ib_links", "ib_rail_leaves", "ib_cabling", "ib_port_errors")] + [
        # the node's own end of each rail (mlxlink) passed: the row still needs its switches
        {"host": "node-001", "layer": 1, "check": "nic_physical_layer", "title": "t", "row": "links", "status": "PASS",
         "expected": "e", "actual": "a", "command": "mlxlink", "cause": None, "go_back_to": None}]})
    report = _report.build(CATALOG, run_dir, {"gpu_node": ["node-001"]})
    links = next(row for row in report["checklist"] if row["row"] == "links")
    # the records' own reason (issue 66), then the devices missing
    assert links["status"] == "not_covered" and links["why_not"] == "not applicable: pyramid_rdma_link_layer is roce; no switch in this run"
    # the NIC's end failing (nic_physical_layer, row_alone: false) fails the row, naming the node, switches or not
    doc = _results.load(run_dir, "node-001")
    doc["results"][-1] = dict(doc["results"][-1], status="FAIL", actual="mlx5_3: raw BER 3E-6")
    _results.save(run_dir, doc)
    failing = next(row for row in _report.build(CATALOG, run_dir, {"gpu_node": ["node-001"]})["checklist"] if row["row"] == "links")
    assert failing["status"] == "fail" and failing["failing_hosts"] == ["node-001"], failing
    doc["results"][-1] = dict(doc["results"][-1], status="PASS")
    _results.save(run_dir, doc)
    # a gap (its switches not in the run): "[ ]" and "not checked", never "-"
    assert "[ ] L1  Links up at rated speed, clean  (not checked: not applicable: pyramid_rdma_link_layer is roce; no switch in this run)" \
        in _report.checklist_text(report)
