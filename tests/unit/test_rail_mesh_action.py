"""The rail mesh's phases (run/rail_mesh_phases.py) at Layer 4 without Ansible around them: plan (with its GPUDirect
rounds), every round through the twin's ib_write_bw (as test_rail_mesh_twin_rounds.py), judge and
verdict, which writes one rdma_write_bw and one rdma_gpudirect_bw result per node into the run's
results. What Ansible adds (the phases' order across hosts, the servers' module) is the e2e run's."""

import contextlib
import io

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_mesh as _mesh, rail_mesh_phases as _phases

from ansible_collections.gpufabric.pyramid.tests.unit import test_rail_mesh_twin_rounds as _twin

CATALOG = _catalog.load_catalog()


class _Step:
    """What the phases ask of Ansible, with the expectations given, not templated from task variables."""

    def __init__(self, hosts, expect):
        self.host, self.groups, self.forks, self.expect = hosts[0], {"gpu_nodes": hosts}, None, expect

    def expectations(self, host, catalog, checks, extra=()):  # pylint: disable=unused-argument
        return self.expect


def _validated(tmp_path, nodes, faults="[]", **overrides):
    states = _twin._states(tmp_path, nodes, faults)  # pylint: disable=protected-access
    hosts = sorted(states)
    run_dir = str(tmp_path / "run")
    for host in hosts:  # every node passed the layers below
        _results.save(run_dir, {"host": host, "results": [{"layer": 0, "check": "iommu", "status": "PASS"}], "facts": {}})
    expect, errors = _expectations.resolve(CATALOG, dict({"pyramid_rdma_port_base": _twin.PORT_BASE}, **overrides))
    assert not errors
    phases = _phases.RailMeshPhases(_Step(hosts, expect), CATALOG, {"layer": 4})
    args = {"run_dir": run_dir, "hosts": hosts, "layer": 4}
    planned = phases.plan({}, args)
    plan = _mesh.load_plan(run_dir, 4)
    with contextlib.redirect_stdout(io.StringIO()):
        for index in planned["rounds"]:
            _twin._run_round(run_dir, plan, index, states, expect)  # pylint: disable=protected-access
    judged = phases.judge({}, args)
    assert judged["retest_rounds"] == [], judged
    phases.verdict({}, args)
    docs = {host: _results.load(run_dir, host) for host in hosts}
    return planned, {host: {r["check"]: r for r in doc["results"]} for host, doc in docs.items()}


def test_the_plan_says_its_gpudirect_runs_and_the_verdict_writes_both_checks(tmp_path):
    planned, results = _validated(tmp_path, 4, '[{node: node-003, kind: gdr_bw, factor: 0.6}]')
    assert planned["msg"] == ("layer 4 rdma_write_bw mesh: 4 nodes, 2 rounds of 32/32 runs, "
                              "each then again in GPU memory on its rail (rdma_gpudirect_bw: 32/32 runs)") and planned["rounds"] == [0, 1]
    assert {host: checks["rdma_write_bw"]["status"] for host, checks in results.items()} == dict.fromkeys(results, "PASS")
    gdr = {host: checks["rdma_gpudirect_bw"] for host, checks in results.items()}
    assert gdr["node-003"]["status"] == "FAIL" and "(60% of host memory's 391.6)" in gdr["node-003"]["actual"], gdr["node-003"]
    assert "GPUDirect RDMA path" in gdr["node-003"]["cause"] and gdr["node-003"]["layer"] == 4
    assert all(gdr[host]["status"] == "PASS" for host in gdr if host != "node-003"), gdr


@pytest.mark.parametrize("overrides, words", [
    ({"pyramid_rdma_gpudirect": False}, "not applicable: pyramid_rdma_gpudirect is false"),
    ({"pyramid_rdma_gpudirect_gpus": [-1] * 8}, "not applicable: no GPU near any rail of node-001"),
])
def test_no_gpudirect_round_is_not_applicable_saying_why(tmp_path, overrides, words):
    planned, results = _validated(tmp_path, 2, **overrides)
    assert planned["rounds"] == [0] and "GPUDirect" not in planned["msg"]
    record = results["node-001"]["rdma_gpudirect_bw"]
    assert record["status"] == "SKIP" and record["not_applicable"] and record["actual"].startswith(words), record
    assert results["node-001"]["rdma_write_bw"]["status"] == "PASS"
