"""Layer 4's GPUDirect run (rdma_gpudirect_bw): the same pairs again with the buffer in the GPU nearest
each rail, each run judged against the host-memory run of the same pair, rail and direction, and each
miss placed on a node's rail as the host-memory misses are (run/rail_mesh.py, judging/rail_rounds.py)."""

import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_addresses as _addresses, rail_mesh as _mesh
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import rail_rounds as _blame
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import JUDGES

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}
HOST, GDR = CHECKS["rdma_write_bw"], CHECKS["rdma_gpudirect_bw"]
PARSER = CATALOG["sources"][GDR["sources"][0]]["ways"][0]["parser"]  # the client's output, as its read names it
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parsers", "perftest_ib_write_bw")


def _expect(**overrides):
    values, errors = _expectations.resolve(CATALOG, overrides)
    assert not errors, errors
    return values


def _plan(nodes, gpus_of=None, **overrides):
    expect = _expect(**overrides)
    addresses = {node: _addresses.rail_addresses(node, expect)[0] for node in nodes}
    gpus = {node: (gpus_of or {}).get(node, _mesh.gpus_of(expect, expect["pyramid_rails"])) for node in nodes}
    return _mesh.make_plan(4, HOST, nodes, expect["pyramid_rails"], addresses, expect, gpus=gpus, companion=GDR), expect


def test_the_gpu_nearest_each_rail_is_gpu_i_unless_the_node_says():
    rails = _expect()["pyramid_rails"]
    assert _mesh.gpus_of(_expect(), rails) == list(range(8))
    assert _mesh.gpus_of(_expect(pyramid_gpus_per_node=4), rails) == [0, 1, 2, 3] + [None] * 4
    assert _mesh.gpus_of(_expect(pyramid_rdma_gpudirect_gpus=[3, 2, 1, 0, -1, 5]), rails) == [3, 2, 1, 0, None, 5, None, None]


def _gpudirect(plan):
    return [(index, run) for index, runs in enumerate(plan["rounds"]) for run in runs if run.get("gpudirect")]


def test_each_round_runs_its_pairs_again_in_gpu_memory_each_client_after_its_host_memory_run():
    # no rounds of their own (they cost every node four module runs): in the same round, on the same rail, after the
    # host-memory run (never beside it: two runs on one rail share its bandwidth), their servers on ports of their own
    nodes = ["node-%03d" % i for i in range(1, 9)]
    plan, expect = _plan(nodes)
    assert len(plan["rounds"]) == 2
    for runs in plan["rounds"]:
        host = [run for run in runs if not run.get("gpudirect")]
        assert len(host) == 4 * 2 * 8 and [dict(run, gpudirect=True) for run in host] == [run for run in runs if run.get("gpudirect")]
    clients = _mesh.planned(plan, 0, "node-001", "client", CATALOG, expect, HOST, GDR)
    by_id = {client["id"]: client for client in clients}
    gdr = [client for client in clients if client["id"].endswith(".gdr")]
    assert len(gdr) == 8 and all(by_id[client["after"]]["id"] == client["id"][:-len(".gdr")] for client in gdr)
    assert not [client for client in clients if not client["id"].endswith(".gdr") and client.get("after")]
    servers = _mesh.planned(plan, 0, "node-001", "server", CATALOG, expect, HOST, GDR)
    ports = [server["ways"][0]["run"][server["ways"][0]["run"].index("-p") + 1] for server in servers]
    assert len(ports) == len(set(ports)) == 16 and not [server for server in servers if server.get("after")]


def test_a_rail_without_a_gpu_at_either_end_is_not_run_in_gpu_memory():
    nodes = ["node-%03d" % i for i in range(1, 5)]
    plan, _e = _plan(nodes, gpus_of={"node-002": [0, 1, 2, 3, 4, 5, 6, None]})
    gdr = [run for _index, run in _gpudirect(plan)]
    assert not [run for run in gdr if run["rail"] == 7 and "node-002" in (run["server"], run["client"])]
    assert [run for run in gdr if run["rail"] == 7]  # the other pairs still run rail 7


@pytest.mark.parametrize("overrides, tail", [
    ({}, ["-x", "3", "-p", "18568", "--use_cuda=3"]),  # rail 3's GPUDirect server: base 18515 + 50 + 3
    ({"pyramid_rdma_gpudirect_dmabuf": True}, ["-p", "18568", "--use_cuda=3", "--use_cuda_dmabuf"]),
    ({"pyramid_rdma_link_layer": "infiniband"}, ["-D", "5", "-p", "18568", "--use_cuda=3"]),
])
def test_each_end_of_a_gpudirect_run_uses_its_own_gpu_nearest_the_rail(overrides, tail):
    plan, expect = _plan(["node-001", "node-002"], gpus_of={"node-002": [7, 6, 5, 4, 3, 2, 1, 0]}, **overrides)
    servers = {s["id"]: s["ways"][0]["run"] for s in _mesh.planned(plan, 0, "node-001", "server", CATALOG, expect, HOST, GDR)}
    clients = {c["id"]: c["ways"][0]["run"] for c in _mesh.planned(plan, 0, "node-002", "client", CATALOG, expect, HOST, GDR)}
    assert servers["node-002>node-001@3.gdr"][-len(tail):] == tail
    client = clients["node-002>node-001@3.gdr"]
    assert client[-1] == "10.53.0.1" and "--use_cuda=4" in client  # node-002's GPU nearest rail 3
    assert ("-x" in client) == (overrides.get("pyramid_rdma_link_layer") != "infiniband")
    assert ("--use_cuda_dmabuf" in client) == bool(overrides.get("pyramid_rdma_gpudirect_dmabuf"))
    host = {c["id"]: c["ways"][0]["run"] for c in _mesh.planned(plan, 0, "node-002", "client", CATALOG, expect, HOST, GDR)
            if not c["id"].endswith(".gdr")}
    assert host and not [arg for argv in host.values() for arg in argv if arg.startswith("--use_cuda")]


def _capture(name):
    with open(os.path.join(FIXTURES, name + ".raw"), encoding="utf-8") as handle:
        return handle.read()


def _judged(tmp_path, nodes, slow=(), host_gbps=145.0):
    """Every GPUDirect run measures 140.4 Gb/s (a real H200 capture); the host-memory runs measure
    ``host_gbps``, 300 on a rail of a ``slow`` node (its GPUDirect at 47% of host memory there)."""
    plan, expect = _plan(nodes)
    run_dir = str(tmp_path)
    text = _capture("client_gbits_cuda_dmabuf_a_roce_h200")
    host_runs = []
    for index, runs in enumerate(plan["rounds"]):
        by_client = {}
        for run in (run for run in runs if run.get("gpudirect")):
            by_client.setdefault(run["client"], {})[_mesh.run_id(run)] = {"status": "ok", "stdout": text, "command": "ib_write_bw", "parser": PARSER}
            fast = run["server"] in slow or run["client"] in slow
            host_runs.append(dict(run, gpudirect=None, status="PASS", gbps=300.0 if fast else host_gbps, actual=None))
        for client, raw in by_client.items():
            _mesh.save_raw(run_dir, 4, index, client, "client", raw)
    runs = _mesh.measured_gpudirect(run_dir, plan, GDR, JUDGES["rail_mesh"][GDR["judge"]], lambda host: expect, host_runs)
    return plan, expect, runs


def test_a_node_whose_gpudirect_runs_miss_with_every_partner_is_named_with_the_gpudirect_cause(tmp_path):
    nodes = ["node-%03d" % i for i in range(1, 9)]
    plan, expect, runs = _judged(tmp_path, nodes, slow=("node-003",))
    assert len(runs) == 2 * 4 * 2 * 8  # 2 rounds of 4 pairs, both ways, 8 rails
    assert {run["status"] for run in runs} == {"PASS", "FAIL"}
    records = _mesh.records(GDR, CATALOG, plan, _blame.blame(runs), lambda host: expect, runs)
    record = records["node-003"]
    assert record["status"] == "FAIL" and record["check"] == "rdma_gpudirect_bw" and record["layer"] == 4
    assert record["cause"] == GDR["causes"]["rail"]
    assert "GPUDirect RDMA path (nvidia_peermem / dma-buf, PCIe ACS/IOMMU, GPU-NIC affinity)" in record["cause"]
    assert record["actual"].startswith("mlx5_0: node-003 ") and "140.4 Gb/s (47% of host memory's 300.0)" in record["actual"]
    assert all(records[node]["status"] == "PASS" for node in nodes if node != "node-003"), records
    assert "lowest 140.4 Gb/s (97% of host memory's 145.0)" in records["node-001"]["actual"]


def _one_gpudirect_run_collected(tmp_path, host_runs):
    """Four nodes' plan with the first GPUDirect run's client output saved, measured against ``host_runs``
    (given the planned run, so a test can build its host-memory twin): (plan, expect, run, runs)."""
    plan, expect = _plan(["node-%03d" % i for i in range(1, 5)])
    index, run = _gpudirect(plan)[0]
    _mesh.save_raw(str(tmp_path), 4, index, run["client"], "client", {_mesh.run_id(run): {
        "status": "ok", "stdout": _capture("client_gbits_cuda_dmabuf_a_roce_h200"), "command": "ib_write_bw", "parser": PARSER}})
    runs = _mesh.measured_gpudirect(str(tmp_path), plan, GDR, JUDGES["rail_mesh"][GDR["judge"]], lambda host: expect,
                                    host_runs(run))
    return plan, expect, run, [r for r in runs if (r["server"], r["client"], r["rail"]) == (run["server"], run["client"], run["rail"])], runs


def test_a_gpudirect_run_without_its_host_memory_twin_is_an_error_not_a_pass(tmp_path):
    _plan_, _expect, _run, (first,), runs = _one_gpudirect_run_collected(tmp_path, lambda run: [])
    assert first["status"] == "ERROR" and "no host-memory run of this pair and rail" in first["actual"]
    assert {r["status"] for r in runs if r is not first} == {"ERROR"}  # nothing collected: never a PASS


def test_a_pair_whose_host_memory_run_missed_is_not_compared(tmp_path):
    """A failed or slow host-memory run is rdma_write_bw's finding; a GPUDirect run against it proves
    nothing (a partner's slow rail hides a slow GPU path), and its partner is not blamed for it."""
    plan, expect, run, mine, _runs = _one_gpudirect_run_collected(tmp_path, lambda run: [
        dict(run, gpudirect=None, status="ERROR", gbps=None, actual="Couldn't connect to 10.50.0.3:18515")])
    assert not mine
    skipped = _mesh.gpudirect_not_run(GDR, CATALOG, plan, run["client"], expect, switched_off=False)
    assert skipped["status"] == "SKIP" and not skipped.get("not_applicable") and "rdma_write_bw's finding" in skipped["actual"]


def test_a_node_with_no_gpudirect_run_is_not_applicable_saying_why():
    expect = _expect()
    off = _mesh.gpudirect_not_run(GDR, CATALOG, {}, "node-001", expect, switched_off=True)
    assert off["status"] == "SKIP" and off["not_applicable"] and "pyramid_rdma_gpudirect is false" in off["actual"]
    none = _mesh.gpudirect_not_run(GDR, CATALOG, {}, "node-001", expect, switched_off=False)
    assert "no GPU near any rail of node-001" in none["actual"]


def test_the_gpudirect_judge_is_judged_against_the_host_memory_judge():
    assert JUDGES["rail_mesh"][GDR["judge"]].baseline == HOST["judge"] and not hasattr(JUDGES["rail_mesh"][HOST["judge"]], "baseline")
