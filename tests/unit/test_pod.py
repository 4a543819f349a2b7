"""run/pod.py: a layer's pod checks judged from the facts each device's layer kept in its results file (what the
action plugin gpufabric.pyramid.judge_pod runs), on a real capture of the built-in NCCL benchmark."""

import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine, layer as _layer, pod as _pod

CATALOG = _catalog.load_catalog()
BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "nccl_tests", "h100_1gpu_builtin_bench_real.raw")


def _run_layer5(run_dir, host, expect, output):
    def collect(planned):
        return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0, "way": 1, "stdout": output, "command": "bench"}
                                         for item in planned}), None
    doc = {"host": host, "results": [], "facts": {}}
    checks = [c for c in _catalog.checks_at(CATALOG, 5, "gpu_node") if c["scope"] != "fabric"]
    _layer.run(host, 5, checks, CATALOG, expect, doc, collect, wait=lambda doc, seconds: 0.0)
    _results.save(run_dir, doc)


def test_the_pod_checks_are_recorded_for_every_judged_host_and_a_blocked_one_is_left_alone(tmp_path):
    run_dir = str(tmp_path)
    expect, errors = _expectations.resolve(CATALOG, {})  # 8 GPUs a node expected: the 1-GPU capture falls short
    assert not errors, errors
    with open(BENCH, encoding="utf-8") as handle:
        output = handle.read()
    for host in ("node-001", "node-002"):
        _run_layer5(run_dir, host, expect, output)
    _results.save(run_dir, {"host": "node-003", "results": [{"layer": 0, "check": "iommu", "status": "FAIL"}], "facts": {}})
    judged, not_passing = _pod.judge_layer(CATALOG, run_dir, 5, ["node-001", "node-002", "node-003"])
    assert judged == 2
    pod = [c["id"] for c in _catalog.checks_at(CATALOG, 5, "gpu_node") if c["scope"] == "pod"]
    for host in ("node-001", "node-002"):
        records = {r["check"]: r for r in _results.load(run_dir, host)["results"]}
        assert set(pod) <= set(records) and all(records[check]["command"] for check in pod)
        assert all(records[check]["status"] == "PASS" or "%s=%s" % (host, records[check]["status"]) in not_passing[check] for check in pod)
    assert not any(r["check"] in pod for r in _results.load(run_dir, "node-003")["results"])
    assert sorted(not_passing["nccl_node_busbw"]) == ["node-001=FAIL", "node-002=FAIL"], not_passing


# A source read on one host for the pod (read_on): InfiniBand's subnet read, iblinkinfo on the reader of ib_fabric_hosts,
# handed by judge_layer to every node's ib_links judge (catalog/infiniband.yml). Real captures: the ibsim subnet and
# each node's ibstat with its own port GUIDs (tests/unit/judge_data/infiniband/layer1_infiniband.py).
IB = {"pyramid_rails": ["mlx5_0", "mlx5_1"], "pyramid_rail_rate_gbps": 200, "pyramid_rdma_link_layer": "infiniband"}
NODES = ("node-001", "node-002", "node-003", "node-004")


def _ib_layer1(run_dir, host, groups, subnet="ibsim_hdr_4_nodes_2_rails", hosts=NODES):
    from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband import layer1_infiniband as _ib  # pylint: disable=import-outside-toplevel
    expect, errors = _expectations.resolve(CATALOG, IB)
    assert not errors, errors
    texts = {"iblinkinfo": _ib.fixture("linux_iblinkinfo", subnet)[1], "ibstat": _ib.ibstat(host)[1]}
    planned_ids = []

    def collect(planned):
        planned_ids.extend(item["id"] for item in planned)
        # a file read (rail_port_guid_sysfs, of the rails `rdma link` read) answers nothing here: these nodes run ibstat
        return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0, "stdout": texts.get(item["ways"][0].get("run", [""])[0], ""),
                                                      "command": " ".join(item["ways"][0].get("run") or [item["ways"][0].get("read", "")])}
                                         for item in planned}), None
    doc = _results.load(run_dir, host)
    checks = _catalog.checks_at(CATALOG, 1, "gpu_node")
    reads_for = _pod.reads_for(host, checks, CATALOG, groups, run_dir, 1, hosts)
    _layer.run(host, 1, checks, CATALOG, expect, doc, collect, wait=lambda doc, seconds: 0.0, reads_for=reads_for)
    _results.save(run_dir, doc)
    return planned_ids


def _ib_links(run_dir, host):
    return next(r for r in _results.load(run_dir, host)["results"] if r["check"] == "ib_links")


def test_a_subnet_read_is_made_once_on_its_groups_reader_and_judged_on_every_node(tmp_path):
    run_dir = str(tmp_path)
    groups = {"gpu_nodes": list(NODES), "ib_fabric_hosts": ["node-002"]}
    planned = {host: _ib_layer1(run_dir, host, groups) for host in NODES}
    assert [host for host, ids in planned.items() if "ib_link_info" in ids] == ["node-002"]
    assert all("ibstat" in ids for ids in planned.values())  # each node's own port GUIDs
    judged, not_passing = _pod.judge_layer(CATALOG, run_dir, 1, NODES, groups=groups)
    assert judged == 4 and "ib_links" not in not_passing, not_passing
    for host in NODES:
        record = _ib_links(run_dir, host)
        assert record["status"] == "PASS" and "seen by iblinkinfo on node-002" in record["expected"], record
        assert record["command"] == "iblinkinfo; ibstat; cat /sys/class/infiniband/<pyramid_rails>/ports/1/gids/0"


def test_the_reader_is_the_first_of_its_group_in_the_run_not_held_back_else_the_first_gpu_node(tmp_path):
    def run_dir_with(name, **doc):  # each choice its own run: a run keeps the reader it chose first
        run_dir = str(tmp_path / name)
        _results.save(run_dir, dict({"host": "node-001", "results": [{"layer": 0, "check": "iommu", "status": "FAIL"}], "facts": {}}, **doc))
        return run_dir
    assert _pod.reader("ib_fabric_hosts", {"gpu_nodes": NODES}, run_dir_with("a"), 1, NODES) == "node-002"  # no such group: gpu_nodes
    assert _pod.reader("ib_fabric_hosts", {"gpu_nodes": NODES, "ib_fabric_hosts": ["node-004", "node-003"]}, run_dir_with("b"), 1, NODES) == "node-004"
    assert _pod.reader("ib_fabric_hosts", {"gpu_nodes": NODES, "ib_fabric_hosts": ["mgmt-01"]}, run_dir_with("c"), 1, NODES) is None
    # its gate lifted (a bring-up, pyramid_enforce_gate false), a failure below holds nothing back: every layer runs
    assert _pod.reader("ib_fabric_hosts", {"gpu_nodes": NODES}, run_dir_with("d", expect={"pyramid_enforce_gate": False}), 1, NODES) == "node-001"


def test_a_subnet_read_nobody_made_is_an_error_on_every_node_naming_the_group(tmp_path):
    run_dir = str(tmp_path)
    groups = {"gpu_nodes": NODES, "ib_fabric_hosts": ["mgmt-01"]}  # the reader is not in this run
    for host in NODES[:2]:
        assert "ib_link_info" not in _ib_layer1(run_dir, host, groups, hosts=NODES[:2])
    _pod.judge_layer(CATALOG, run_dir, 1, NODES[:2], groups=groups)
    for host in NODES[:2]:
        record = _ib_links(run_dir, host)
        assert record["status"] == "ERROR" and "no host of ib_fabric_hosts (or of gpu_nodes) is in the run" in record["actual"], record


def test_a_node_blocked_by_the_subnet_read_fails_alone_and_a_roce_node_is_not_applicable(tmp_path):
    run_dir = str(tmp_path)
    groups = {"gpu_nodes": NODES}
    for host in NODES:
        _ib_layer1(run_dir, host, groups, subnet="ibsim_rail_at_1x")
    _judged, not_passing = _pod.judge_layer(CATALOG, run_dir, 1, NODES, groups=groups)
    assert sorted(not_passing["ib_links"]) == ["node-002=ERROR", "node-003=FAIL"]
    assert "leaf-r0 port 3" in _ib_links(run_dir, "node-003")["actual"]
    # the same check on a RoCE pod: SKIP not applicable, recorded with the layer, never judged across the pod
    expect, _errors = _expectations.resolve(CATALOG, {})
    record = next(r for r in _layer.split_applicable("node-009", _catalog.checks_at(CATALOG, 1, "gpu_node"), CATALOG, expect)[1]
                  if r["check"] == "ib_links")
    assert record["status"] == "SKIP" and record["not_applicable"] and "pyramid_rdma_link_layer is roce" in record["actual"]


def test_a_pod_counter_read_is_snapshotted_and_read_again_on_its_reader_alone_and_judged_on_every_node(tmp_path):
    """ib_port_counters (ibqueryerrors, read_on ib_fabric_hosts, counters: true): the soak's two reads on the reader
    only (counter_snapshot's reads_for_checks, then Layer 1's reads_for), the window handed to every node's judge.
    Real ibsim captures a soak apart: leaf-r0 port 2 (node-002 mlx5_0) symbol errors 5 -> 40."""
    from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband import layer1_infiniband as _ib  # pylint: disable=import-outside-toplevel
    run_dir, groups = str(tmp_path), {"gpu_nodes": list(NODES), "ib_fabric_hosts": ["node-003"]}
    expect, errors = _expectations.resolve(CATALOG, IB)
    assert not errors, errors
    reads = {}

    def collect_for(host, counts):
        def collect(planned):
            texts = {"iblinkinfo": _ib.HEALTHY[1], "ibstat": _ib.ibstat(host)[1], "ibqueryerrors": counts}
            reads.setdefault(host, []).extend(item["id"] for item in planned)
            return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0,  # a file read (its GUIDs): nothing
                                                          "command": " ".join(item["ways"][0].get("run") or ["cat"]),
                                                          "stdout": texts.get(item["ways"][0].get("run", [""])[0], "")}
                                             for item in planned}), None
        return collect
    checks = _catalog.checks_for(CATALOG, "gpu_node")
    for host in NODES:
        doc = _results.load(run_dir, host)
        _layer.snapshot(host, checks, CATALOG, expect, doc, collect_for(host, _ib.COUNTS["old"][1]),
                        reads_for=_pod.reads_for_checks(host, checks, CATALOG, groups, run_dir, NODES))
        _results.save(run_dir, doc)
    assert [host for host, ids in reads.items() if "ib_port_counters" in ids] == ["node-003"]
    reads.clear()
    layer1 = _catalog.checks_at(CATALOG, 1, "gpu_node")
    for host in NODES:
        doc = _results.load(run_dir, host)
        _layer.run(host, 1, layer1, CATALOG, expect, doc, collect_for(host, _ib.COUNTS["rising"][1]), wait=lambda doc, seconds: 0.0,
                   reads_for=_pod.reads_for(host, layer1, CATALOG, groups, run_dir, 1, NODES))
        _results.save(run_dir, doc)
    assert [host for host, ids in reads.items() if "ib_port_counters" in ids] == ["node-003"]
    _pod.judge_layer(CATALOG, run_dir, 1, NODES, groups=groups)
    records = {host: next(r for r in _results.load(run_dir, host)["results"] if r["check"] == "ib_port_errors") for host in NODES}
    assert {host: r["status"] for host, r in records.items()} == {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS",
                                                                  "node-004": "PASS"}, records
    assert "leaf-r0 port 2 (node-002 mlx5_0): SymbolErrorCounter +35" in records["node-002"]["actual"]
    assert "read by ibqueryerrors on node-003" in records["node-001"]["expected"]
