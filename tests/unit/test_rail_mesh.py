"""run/rail_addresses.py and run/rail_mesh.py: the rail mesh's addresses, commands and ports per round, raw outputs and records."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_addresses as _addresses, rail_mesh as _mesh
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import rail_rounds as _blame
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import JUDGES

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}


def _expect(**overrides):
    values, errors = _expectations.resolve(CATALOG, overrides)
    assert not errors, errors
    return values


def test_the_seed_plan_gives_each_node_one_address_per_rail():
    addresses, problem = _addresses.rail_addresses("node-032", _expect())
    assert problem is None and addresses == ["10.5%d.0.32" % rail for rail in range(8)]
    assert _addresses.rail_addresses("gpu300", _expect())[0][0] == "10.50.1.44"  # 300 = 1 * 256 + 44


@pytest.mark.parametrize("node, number", [("node-047", 47), ("gpu12-r3n5", 5), ("dgx-a100-0112", 112), ("login", None)])
def test_the_plan_reads_the_number_that_ends_the_nodes_name_not_its_place(node, number):
    # issue 71: a node taken out of gpu_nodes renumbered every node after it
    assert _addresses.node_number(node) == number


def test_a_node_whose_name_ends_without_a_number_gives_its_own_addresses():
    addresses, problem = _addresses.rail_addresses("login", _expect())
    assert addresses is None and "no number ends the name 'login'" in problem and "pyramid_rail_addresses" in problem
    assert _addresses.address_plan_problems(["login", "node-002"], ["login", "node-002"], lambda node: _expect())[0].startswith("login: ")
    assert _addresses.address_plan_problems(["gpu-host"], ["gpu-host"], lambda node: _expect()) == []  # one node: no mesh


@pytest.mark.parametrize("overrides, words", [
    ({"pyramid_rail_addresses": ["10.50.0.9"]}, "lists 1 addresses for 8 rails"),
    ({"pyramid_rail_address_plan": "10.5{rail}.0.{node}{oops}"}, "placeholders: rail, node, node_hi, node_lo"),
    ({"pyramid_rail_address_plan": "10.5{rail}.0.{node}00"}, "is not an IP address"),
])
def test_a_plan_that_gives_no_address_is_refused_by_name(overrides, words):
    addresses, problem = _addresses.rail_addresses("node-007", _expect(**overrides))
    assert addresses is None and words in problem


NODES = ["node-001", "node-002", "node-003"]


@pytest.mark.parametrize("own, words", [
    # issue 40: refused in pre-flight (address_plan_problems), not when Layer 2 plans its mesh after the soak
    (["10.50.0.2; reboot"] + ["10.5%d.0.2" % rail for rail in range(1, 8)], "node-002: rail address '10.50.0.2; reboot' is not an IP address"),
    (["-x"] + ["10.5%d.0.2" % rail for rail in range(1, 8)], "node-002: rail address '-x' is not an IP address"),
    ([""] + ["10.5%d.0.2" % rail for rail in range(1, 8)], "node-002: rail address '' is not an IP address"),
    (["10.5%d.0.1" % rail for rail in range(8)], "node-002: rail mlx5_0 address 10.50.0.1 is also node-001's rail mlx5_0"),
    (["10.50.0.2"] * 8, "node-002: rail mlx5_1 address 10.50.0.2 is also node-002's rail mlx5_0"),
])
def test_preflight_refuses_a_rail_address_plan_that_gives_no_address_or_one_twice(own, words):
    expects = {node: _expect() for node in NODES}
    expects["node-002"]["pyramid_rail_addresses"] = own
    assert words in " | ".join(_addresses.address_plan_problems(NODES, NODES, expects.get))


def test_preflight_passes_the_seed_plan_and_skips_a_node_without_a_mesh():
    expects = {node: _expect() for node in NODES}
    assert _addresses.address_plan_problems(NODES, NODES, expects.get) == []
    assert _addresses.address_plan_problems(NODES, NODES, lambda node: {}) == []
    # a plan with no {node}: every node would get the same addresses
    same = {node: _expect(pyramid_rail_address_plan="10.5{rail}.0.9") for node in NODES}
    assert len(_addresses.address_plan_problems(NODES, NODES, same.get)) == 16


def test_a_node_may_give_its_own_addresses():
    own = ["192.0.2.%d" % rail for rail in range(8)]
    assert _addresses.rail_addresses("node-003", _expect(pyramid_rail_addresses=own)) == (own, None)


def _plan(nodes, check="rdma_write_bw", **overrides):
    expect = _expect(**overrides)
    addresses = {node: _addresses.rail_addresses(node, expect)[0] for node in nodes}
    layer = CHECKS[check]["layer"]
    return _mesh.make_plan(layer, CHECKS[check], nodes, expect["pyramid_rails"], addresses, expect), expect


def test_each_server_of_a_node_in_a_round_has_its_own_port_and_its_client_knows_it():
    plan, expect = _plan(["node-001", "node-002", "node-003", "node-004"])
    check = CHECKS["rdma_write_bw"]
    servers = _mesh.planned(plan, 0, "node-001", "server", CATALOG, expect, check)
    ports = [way["ways"][0]["run"][way["ways"][0]["run"].index("-p") + 1] for way in servers]
    assert len(servers) == 8 and ports == [str(18515 + rail) for rail in range(8)]
    partner = next(run["client"] for run in plan["rounds"][0] if run["server"] == "node-001")
    clients = {c["id"]: c["ways"][0]["run"] for c in _mesh.planned(plan, 0, partner, "client", CATALOG, expect, check)}
    argv = clients["%s>node-001@3" % partner]
    assert argv[:3] == ["ib_write_bw", "-d", "mlx5_3"] and argv[-1] == "10.53.0.1" and argv[argv.index("-p") + 1] == "18518"
    assert argv[argv.index("-x") + 1] == "3" and argv[argv.index("-s") + 1] == "1048576"


def test_infiniband_runs_name_no_gid_index():
    plan, expect = _plan(["node-001", "node-002"], pyramid_rdma_link_layer="infiniband")
    (first, *_rest) = _mesh.planned(plan, 0, "node-001", "client", CATALOG, expect, CHECKS["rdma_write_bw"])
    assert "-x" not in first["ways"][0]["run"]


def test_a_ping_pings_the_partners_rail_address_from_its_own_and_needs_no_server():
    plan, expect = _plan(["node-001", "node-002"], check="rail_ping")
    check = CHECKS["rail_ping"]
    assert _mesh.planned(plan, 0, "node-001", "server", CATALOG, expect, check) == []
    pings = {c["id"]: c["ways"] for c in _mesh.planned(plan, 0, "node-001", "client", CATALOG, expect, check)}
    fping, ping = pings["node-001>node-002@5"]  # fping where present, else ping
    assert fping["run"][0] == "fping" and fping["run"][-3:] == ["-S", "10.55.0.1", "10.55.0.2"] and fping["accept_rc"] == [0, 1]
    assert ping["run"][-3:] == ["-I", "10.55.0.1", "10.55.0.2"] and ping["accept_rc"] == [0, 1, 2]


def test_pings_to_both_partners_run_in_one_round_and_ib_write_bw_takes_two():
    # a ping loads nothing: a node pings both partners on every rail in one module run; ib_write_bw's pairs take turns
    nodes = ["node-%03d" % i for i in range(1, 9)]
    pings, _expect_ = _plan(nodes, check="rail_ping")
    bandwidth, _expect_ = _plan(nodes)
    assert len(pings["rounds"]) == 1 and len(bandwidth["rounds"]) == 2
    assert pings["rounds"][0] == bandwidth["rounds"][0] + bandwidth["rounds"][1]
    partners = {run["server"] for run in pings["rounds"][0] if run["client"] == "node-001" and run["rail"] == 0}
    assert len(partners) == 2


def test_records_name_the_failing_rail_its_partner_and_the_cause():
    nodes = ["node-%03d" % i for i in range(1, 9)]
    plan, expect = _plan(nodes)
    check = CHECKS["rdma_write_bw"]
    runs = []
    for round_runs in plan["rounds"]:
        for run in round_runs:
            bad = "node-003" in (run["server"], run["client"]) and run["rail"] == 2
            runs.append(dict(run, status="FAIL" if bad else "PASS", gbps=181.0 if bad else 391.5))
    records = _mesh.records(check, CATALOG, plan, _blame.blame(runs), lambda host: expect, runs)
    record = records["node-003"]
    assert record["status"] == "FAIL" and record["cause"] == check["causes"]["rail"]
    assert record["actual"].startswith("mlx5_2: node-003 ") and "181.0 Gb/s" in record["actual"]
    assert record["detail"]["rails"]["mlx5_2"] == {"status": "FAIL", "cause": "rail", "gbps": 181.0}
    # report.html's figure per rail: a partner of node-003 shows its own passing runs' figure on that rail, not the miss
    partner = next(run["server"] for run in runs if run["client"] == "node-003" and run["rail"] == 2)
    assert records[partner]["detail"]["rails"]["mlx5_2"] == {"status": "PASS", "cause": None, "gbps": 391.5}
    assert all(records[node]["status"] == "PASS" for node in nodes if node != "node-003")


def test_a_node_whose_every_ping_finds_no_source_address_is_the_address_cause():
    nodes = ["node-%03d" % i for i in range(1, 5)]
    plan, expect = _plan(nodes, check="rail_ping")
    check = CHECKS["rail_ping"]
    runs = []
    for round_runs in plan["rounds"]:
        for run in round_runs:
            own = run["client"] == "node-002" and run["rail"] == 1
            to_it = run["server"] == "node-002" and run["rail"] == 1
            runs.append(dict(run, status="FAIL" if own or to_it else "PASS", gbps=None,
                             actual="no such source address" if own else None, finding="address" if own else None))
    records = _mesh.records(check, CATALOG, plan, _blame.blame(runs), lambda host: expect, runs)
    assert records["node-002"]["cause"] == check["causes"]["address"]


def test_the_mesh_judges_are_registered_for_the_mesh_checks():
    assert {CHECKS["rail_ping"]["judge"], CHECKS["rdma_write_bw"]["judge"]} <= set(JUDGES["rail_mesh"])


def test_only_nodes_that_passed_below_and_are_not_blocked_at_this_layer_join():
    def doc(*results):
        return {"results": [{"layer": layer, "check": check, "status": status} for layer, check, status in results]}
    docs = {"good": doc((0, "iommu", "PASS")), "failed_l0": doc((0, "iommu", "FAIL")),
            "blocked_l2": doc((0, "iommu", "PASS"), (2, "bgp_sessions", "BLOCKED")),
            "rerun": doc((0, "iommu", "PASS"), (2, "rail_ping", "FAIL")), "nothing": doc()}
    assert _mesh.climbing(docs, 2, "rail_ping") == ["good", "rerun"]


def test_a_round_trip_that_stands_out_from_the_pods_median_fails_saying_both():
    expect = _expect()
    runs = [{"server": "a%d" % i, "client": "b%d" % i, "rail": 0, "status": "PASS", "rtt_ms": 0.011} for i in range(6)]
    runs += [{"server": "x", "client": "y", "rail": 0, "status": "PASS", "rtt_ms": 0.5},  # under 1 ms, 45x the median
             {"server": "x", "client": "z", "rail": 0, "status": "PASS", "rtt_ms": 0.02},  # 2x the median: not an outlier
             {"server": "p", "client": "q", "rail": 1, "status": "PASS", "rtt_ms": 0.5}]  # alone on its rail: no median
    judged = JUDGES["rail_mesh"]["rail_ping"].relative(runs, expect)
    assert [r["status"] for r in judged] == ["PASS"] * 6 + ["FAIL", "PASS", "PASS"]
    assert judged[6]["actual"] == "rtt avg 0.500 ms, 45x the pod's median 0.011 ms on this rail"
