"""run/layer.py: one layer on one device (run_layer's logic) and the counters snapshot, with a fake collector."""

import copy
import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine, layer as _layer

CATALOG = _catalog.load_catalog()
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers")


def _expect(**overrides):
    values, errors = _expectations.resolve(CATALOG, overrides)
    assert not errors, errors
    return values


def _doc(*results):
    return {"host": "dev", "results": list(results), "facts": {}}


def _result(layer, check, status):
    return {"layer": layer, "check": check, "status": status}


class Collector:
    """Records what was planned; answers every planned id with a failed run, or the device as unreachable."""

    def __init__(self, unreachable=None, stdout=None):
        self.planned, self.unreachable, self.stdout = None, unreachable, stdout

    def __call__(self, planned):
        self.planned = planned
        if self.unreachable:
            return None, self.unreachable
        return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0, "stdout": self.stdout or "", "command": item["id"]}
                                         for item in planned}), None


def _no_wait(doc, seconds):
    return 0.0


def test_a_device_blocked_below_records_skip_for_every_check_and_collects_nothing():
    def collect(planned):
        raise AssertionError("a blocked device is not touched")
    doc = _doc(_result(0, "iommu_enabled", "FAIL"))
    checks = _catalog.checks_at(CATALOG, 1, "gpu_node") or _catalog.checks_at(CATALOG, 5, "gpu_node")
    records, summary = _layer.run("dev", 5, checks, CATALOG, _expect(), doc, collect, wait=_no_wait)
    assert records and {r["status"] for r in records} == {"SKIP"}
    blocked = [r for r in records if not r.get("not_applicable")]  # InfiniBand's ib_links: not applicable on RoCE, blocked or not
    assert blocked and all("blocked at layer 0 (iommu_enabled)" in r["actual"] for r in blocked)
    assert "stopped at layer 0" in summary["msg"] and summary["skipped_checks"] == len(blocked)


def test_without_the_gate_a_blocked_device_is_run_anyway():
    doc = _doc(_result(0, "iommu_enabled", "FAIL"))
    collect = Collector(stdout="garbage")
    records, _summary = _layer.run("dev", 0, _catalog.checks_at(CATALOG, 0, "gpu_node"), CATALOG,
                                   _expect(pyramid_enforce_gate=False), doc, collect, wait=_no_wait)
    # judged, not skipped (a rail read's ERROR folded under rails_present's is a SKIP naming it: run/depends.py)
    assert collect.planned and "SKIP" not in {r["status"] for r in records if not r.get("depends_on") and not r.get("not_applicable")}


def test_an_unreachable_device_is_an_error_for_every_check_naming_why():
    checks = [c for c in _catalog.checks_at(CATALOG, 0, "gpu_node") if c["scope"] == "host"]
    doc = _doc()
    records, summary = _layer.run("dev", 0, checks, CATALOG, _expect(), doc, Collector(unreachable="ssh: connect refused"), wait=_no_wait)
    assert len(records) == len(checks)
    # a check that does not apply to this pod (InfiniBand's on RoCE) says so; every other one is an ERROR
    skipped = [r for r in records if r.get("not_applicable")]
    assert {r["check"] for r in skipped} == {"rails_ib_mtu"} and {r["status"] for r in skipped} == {"SKIP"}
    records = [r for r in records if not r.get("not_applicable")]
    assert {r["status"] for r in records} == {"ERROR"}
    assert all("host unreachable, nothing collected: ssh: connect refused" in r["actual"] for r in records)
    assert doc["facts"]["layer0"]["unreachable"]
    assert summary["counts"]["ERROR"] == len(records)


def test_output_nothing_can_parse_is_an_error_never_a_pass():
    checks = [c for c in _catalog.checks_at(CATALOG, 0, "gpu_node") if c["scope"] == "host"]
    records, _summary = _layer.run("dev", 0, checks, CATALOG, _expect(), _doc(), Collector(stdout="\x00garbage\x00"), wait=_no_wait)
    assert "PASS" not in {r["status"] for r in records}
    assert "ERROR" in {r["status"] for r in records}


def test_a_check_for_other_platforms_is_not_applicable_and_its_sources_are_not_read():
    catalog = copy.deepcopy(CATALOG)
    checks = _catalog.checks_at(catalog, 1, "switch")
    only_eos = next(check for check in checks if set(check["sources"]) - {s for c in checks if c is not check for s in c["sources"]})
    own = set(only_eos["sources"]) - {s for c in checks if c is not only_eos for s in c["sources"]}
    only_eos["platforms"] = ["eos"]
    collect = Collector(stdout="")
    records, summary = _layer.run("leaf", 1, checks, catalog, _expect(pyramid_switch_os="sonic"), _doc(), collect, wait=_no_wait)
    skipped = [r for r in records if r["check"] == only_eos["id"]]
    assert len(skipped) == 1 and skipped[0]["status"] == "SKIP" and skipped[0].get("not_applicable") is True
    assert "not applicable on sonic" in skipped[0]["actual"]
    read = {item["id"].split("[")[0] for item in collect.planned}
    assert read and not read & own
    assert only_eos["id"] + "=SKIP" not in summary["msg"]  # not applicable is not a finding


def test_counter_checks_without_a_snapshot_are_errors_that_say_so():
    checks = [c for c in _catalog.checks_at(CATALOG, 1, "switch") if any(CATALOG["sources"][s].get("counters") for s in c["sources"])]
    assert checks, "layer 1 has counter checks"
    records, summary = _layer.run("leaf", 1, checks, CATALOG, _expect(pyramid_switch_os="eos"), _doc(), Collector(stdout="x"), wait=_no_wait)
    assert {r["status"] for r in records} == {"ERROR"}
    assert any("no snapshot" in r["actual"] for r in records)
    assert set(summary["counters"]) == {s for c in checks for s in c["sources"] if CATALOG["sources"][s].get("counters")}


def test_the_soak_is_waited_only_when_the_layer_reads_counters():
    waited = []

    def wait(doc, seconds):
        waited.append(seconds)
        return 1.5
    layer0 = _catalog.checks_at(CATALOG, 0, "gpu_node")
    _layer.run("dev", 0, layer0, CATALOG, _expect(), _doc(), Collector(stdout="x"), wait=wait)
    assert waited == []
    _records, summary = _layer.run("leaf", 1, _catalog.checks_at(CATALOG, 1, "switch"), CATALOG,
                                   _expect(pyramid_switch_os="eos", pyramid_soak_seconds=7), _doc(), Collector(stdout="x"), wait=wait)
    assert waited == [7] and summary["soak_waited"] == 1.5


def test_a_layer_of_fabric_checks_only_collects_nothing_here():
    fabric = [c for c in CATALOG["checks"] if c["scope"] == "fabric"]
    assert fabric

    def collect(planned):
        raise AssertionError("fabric checks run from the launcher")
    records, summary = _layer.run("dev", fabric[0]["layer"], fabric, CATALOG, _expect(), _doc(), collect, wait=_no_wait)
    assert records == [] and "fabric checks run from the launcher" in summary["msg"]


def test_a_rerun_replaces_the_layer_results_and_keeps_the_others():
    checks = [c for c in _catalog.checks_at(CATALOG, 0, "gpu_node") if c["scope"] == "host"]
    first = checks[0]["id"]
    doc = _doc(_result(0, first, "PASS"), _result(1, "old", "PASS"))
    _layer.run("dev", 0, checks, CATALOG, _expect(), doc, Collector(unreachable="gone"), wait=_no_wait)
    again = [r for r in doc["results"] if r["check"] == first]
    assert len(again) == 1 and again[0]["status"] == "ERROR"
    assert _result(1, "old", "PASS") in doc["results"]


@pytest.mark.parametrize("unreachable", [None, "no route"])
def test_the_snapshot_reads_only_the_counter_sources(unreachable):
    checks = _catalog.checks_for(CATALOG, "switch")
    # a source read once for the pod (read_on) only on its reader, which a switch is not
    counters = {name for check in checks for name in check["sources"]
                if CATALOG["sources"][name].get("counters") and not CATALOG["sources"][name].get("read_on")}
    collect, doc = Collector(unreachable=unreachable, stdout="x"), _doc()
    summary = _layer.snapshot("leaf", checks, CATALOG, _expect(pyramid_switch_os="eos"), doc, collect)
    assert set(summary["snapshot"]) == counters
    assert {item["id"].split("[")[0] for item in collect.planned} <= counters
    assert set(doc["snapshot"]["facts"]) == counters and doc["snapshot"]["at"] > 0
    assert set(summary["no_data"]) == counters  # "x" parses as nothing, unreachable gives nothing
    assert "no data" in summary["msg"]


def test_each_result_names_the_command_that_actually_ran():
    modules = open(os.path.join(FIXTURES, "linux_proc_modules", "dgx_h100.raw"), encoding="utf-8").read()
    check = next(c for c in _catalog.checks_at(CATALOG, 0, "gpu_node") if c["id"] == "rdma_modules")

    def collect(planned):
        assert [item["id"] for item in planned][0] == "kernel_modules"  # then module_sysfs[<module>], one per module
        return _engine.answers(planned, {"kernel_modules": {"status": "ok", "rc": 0, "way": 1, "stdout": modules, "command": "cat /proc/modules",
                                                            "attempts": ["lsmod: command not found", "cat /proc/modules: ok"]}}), None
    (record,) = _layer.run("dev", 0, [check], CATALOG, _expect(), _doc(), collect, wait=_no_wait)[0]
    # lsmod was absent: the record names what answered (module_sysfs, a foreach source, stays as planned)
    assert record["status"] == "PASS" and record["command"].split("; ")[0] == "cat /proc/modules"


def _switch_failure(layer, check, status, ports=(), device=False):
    return {"layer": layer, "check": check, "status": status, "detail": {"ports": list(ports), "device": device}}


SWITCH_PLAN = [{"port": "Ethernet1", "peer": "node-001", "role": "host"},
               {"port": "Ethernet2", "peer": "node-002", "role": "host"},
               {"port": "Ethernet33", "peer": "spine-01", "role": "fabric"}]


def test_a_switch_climbs_past_a_port_confined_failure_judged_without_that_port():
    judged_plans = []
    doc = _doc(_switch_failure(1, "cabling", "FAIL", ["Ethernet2"]))
    expect = _expect(pyramid_switch_os="eos", pyramid_switch_ports=SWITCH_PLAN)
    records, summary = _layer.run("leaf", 3, _catalog.checks_at(CATALOG, 3, "switch"), CATALOG, expect, doc,
                                  lambda planned: judged_plans.append(planned) or Collector(stdout="garbage")(planned),
                                  wait=_no_wait)
    assert judged_plans, "the switch was read: it climbs"
    assert not any("blocked at layer" in r["actual"] for r in records), summary
    assert all("(without Ethernet2: failed a layer below)" in r["expected"] for r in records if r["status"] != "SKIP")
    # the results file keeps the whole plan (the gate maps every port to its host)
    assert [entry["port"] for entry in doc["expect"]["pyramid_switch_ports"]] == ["Ethernet1", "Ethernet2", "Ethernet33"]


@pytest.mark.parametrize("failure", [_switch_failure(1, "optics_rx", "ERROR", ["Ethernet1"]),
                                     _switch_failure(2, "bgp_sessions", "FAIL", device=True)])
def test_a_switch_stops_below_a_whole_switch_failure(failure):
    def collect(planned):
        raise AssertionError("a stopped switch is not read")
    expect = _expect(pyramid_switch_os="eos", pyramid_switch_ports=SWITCH_PLAN)
    records, summary = _layer.run("leaf", 3, _catalog.checks_at(CATALOG, 3, "switch"), CATALOG, expect,
                                  _doc(failure), collect, wait=_no_wait)
    # a check written for other platforms (pfc_enabled: not on EOS) says so instead
    assert records and all("not run: blocked at layer %d" % failure["layer"] in r["actual"] for r in records
                           if not r.get("not_applicable"))
    assert "stopped at layer %d" % failure["layer"] in summary["msg"]


def test_a_pod_check_names_the_command_that_ran_on_each_host():
    # the layer keeps what ran per source; the pod judge (nccl_node_busbw) reads it back for its records
    bench = open(os.path.join(FIXTURES, "nccl_tests", "h100_1gpu_builtin_bench_real.raw"), encoding="utf-8").read()
    checks = [c for c in _catalog.checks_at(CATALOG, 5, "gpu_node") if c["scope"] != "fabric"]
    ran = "torchrun --standalone --nproc_per_node=8 /tmp/pyramid-x/nccl_bench.py -b 8 -e 4G -f 2"

    def collect(planned):
        return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0, "way": 1, "stdout": bench, "command": ran} for item in planned}), None
    doc = _doc()
    _layer.run("dev", 5, checks, CATALOG, _expect(), doc, collect, wait=_no_wait)
    assert all(entry["command"] == ran for entry in doc["ran"]["layer5"].values())
    pod = next(c for c in checks if c["scope"] == "pod")
    facts = _engine.restore_facts(_engine.serializable_facts(_engine.parse_sources(
        _engine.source_names([pod]), CATALOG, collect(_engine.reads(_engine.source_names([pod]), CATALOG, _expect()))[0], _expect())))
    record = _engine.judge_pod(pod, CATALOG, {"dev": facts}, {"dev": _expect()}, {"dev": doc["ran"]["layer5"]})["dev"]
    assert ran in record["command"], record["command"]


def test_gpu_soak_snapshot_survives_the_results_file_and_compares_links_by_number():
    """The GPU nodes' snapshot goes through the results file (JSON) between counter_snapshot and Layer 1, so
    nvlink -e's GPU and link numbers come back as strings; the judge must still pair them with the new read."""
    import json
    fixture = os.path.join(FIXTURES, "linux_nvidia_smi_nvlink_e", "a100_535_gpu0_real.raw")
    query = os.path.join(FIXTURES, "linux_nvidia_smi_q", "a100_sxm4_8gpu_535_real.raw")
    clean, smi = open(fixture, encoding="utf-8").read(), open(query, encoding="utf-8").read()
    # the nvlink -e capture lists GPU 0 alone: the node it judges is the 8-GPU capture's GPU 0 (every GPU nvidia-smi -q
    # lists must have its links read)
    head, gpu0 = smi.split("\nGPU 0000")[:2]
    smi = head.replace("Attached GPUs                             : 8", "Attached GPUs                             : 1") + "\nGPU 0000" + gpu0
    checks = [c for c in _catalog.checks_at(CATALOG, 1, "gpu_node") if c["row"] == "gpu_links_soak"]
    assert {c["id"] for c in checks} == {"gpu_pcie_replays_soak", "gpu_nvlink_errors_soak"}

    def reads(nvlink):
        def collect(planned):
            out = {"gpu_query_soak": smi, "gpu_nvlink_errors_soak": nvlink}
            return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0, "stdout": out[item["id"]], "command": item["id"]}
                                             for item in planned}), None
        return collect
    expect = _expect(pyramid_gpu_nvlinks=12)
    for after, status in ((clean, "PASS"), (clean.replace("Link 5: Recovery Errors: 0", "Link 5: Recovery Errors: 1"), "FAIL")):
        doc = _doc()
        summary = _layer.snapshot("node", checks, CATALOG, expect, doc, reads(clean))
        assert set(summary["snapshot"]) == {"gpu_query_soak", "gpu_nvlink_errors_soak"} and not summary["no_data"]
        doc = json.loads(json.dumps(doc))  # the results file between the two tasks
        records = {r["check"]: r for r in _layer.run("node", 1, checks, CATALOG, expect, doc, reads(after), wait=_no_wait)[0]}
        assert records["gpu_nvlink_errors_soak"]["status"] == status, records
        assert records["gpu_pcie_replays_soak"]["status"] == "PASS", records
    assert "GPU 0 (0000:2f:00.0) link 5: +1 recovery" in records["gpu_nvlink_errors_soak"]["actual"]


# stops_here: which checks of this layer keep the device from climbing (run_layer then shows it as failed)
STOPS = [
    ("a node whose own check failed here", False, [_result(0, "iommu", "FAIL"), _result(0, "hugepages", "PASS")], 0, ["iommu"]),
    ("an ERROR stops it too", False, [_result(1, "gpu_soak", "ERROR")], 1, ["gpu_soak"]),
    ("a node that stopped lower: not here", False, [_result(0, "iommu", "FAIL"), _result(1, "gpu_soak", "SKIP")], 1, []),
    ("a node that passed", False, [_result(2, "rail_ping", "PASS")], 2, []),
    ("a SKIP not applicable is no stop", False, [_result(3, "roce_pfc", "SKIP")], 3, []),
    ("a switch's port-confined failure lets it climb", True, [_switch_failure(1, "cabling", "FAIL", ["Ethernet2"])], 1, []),
    ("a switch's whole failure stops it", True, [_switch_failure(2, "bgp_sessions", "FAIL", device=True)], 2, ["bgp_sessions"]),
    ("a switch's read that failed on a port stops it", True, [_switch_failure(1, "optics_rx", "ERROR", ["Ethernet1"])], 1,
     ["optics_rx"]),
]


@pytest.mark.parametrize("name, on_switch, results, layer, wanted", STOPS, ids=[row[0] for row in STOPS])
def test_stops_here(name, on_switch, results, layer, wanted):  # pylint: disable=unused-argument
    assert _layer.stops_here(_doc(*results), layer, on_switch) == wanted
