"""The incast's phases (run/incast_phases.py) without Ansible: a fake step answers what a phase asks of Ansible
(the task's host, the play's groups, the hosts' expectations), so the plan phase's decisions and the verdict phase's
records are tested here; the phases' order across hosts and the servers' module are the e2e run's
(tests/e2e/test_validate_incast.py)."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import incast_phases as _phases
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_step import RunError

CATALOG = _catalog.load_catalog()
NODES = ["node-001", "node-002", "node-003"]


class _Step:
    """The task's host is the first node; every host's expectations are the catalog's defaults and ``overrides``;
    a host named in ``refused`` has an expectation pre-flight would refuse."""

    def __init__(self, overrides=None, refused=()):
        self.host, self.groups, self.forks, self.refused = NODES[0], {"gpu_nodes": NODES}, None, refused
        self.overrides = overrides or {"pyramid_incast": True}

    def expectations(self, host, catalog, checks, extra=()):
        if host in self.refused:
            raise RunError("%s: invalid expectations: pyramid_incast_duration: not a number" % host)
        names = sorted(set(_catalog.expectation_names(checks, catalog)) | set(extra))
        expect, errors = _expectations.resolve(catalog, self.overrides, names)
        assert not errors, errors
        return expect


def _run(tmp_path, step, below="PASS", check="incast_ecn"):
    run_dir = str(tmp_path)
    for node in NODES:  # each node's record below Layer 3 under load
        _results.save(run_dir, {"host": node, "results": [{"layer": 0, "check": "iommu", "status": below}], "facts": {}})
    phases = _phases.IncastPhases(step, CATALOG)
    args = {"run_dir": run_dir, "hosts": NODES, "switches": []}
    planned = phases.plan({}, args)
    verdict = phases.verdict({}, args)
    records = {node: [r for r in _results.load(run_dir, node)["results"] if r["check"] == check] for node in NODES}
    return planned, verdict, records


@pytest.mark.parametrize("overrides, check, other", [
    ({"pyramid_incast": False}, "incast_ecn", "incast_ib"),
    ({"pyramid_incast": False, "pyramid_rdma_link_layer": "infiniband"}, "incast_ib", "incast_ecn"),
])
def test_an_incast_switched_off_is_a_not_applicable_skip_on_every_node_saying_why(tmp_path, overrides, check, other):
    """Off: the fabric's own incast check reads "not checked" (its row a gap unless waived), the other fabric's check
    not applicable as any only_if says it."""
    planned, verdict, records = _run(tmp_path, _Step(overrides), check=check)
    assert planned["rounds"] == [] and planned["msg"] == "incast not run: pyramid_incast is false"
    assert verdict["counts"] == {"SKIP": 3}
    for node, (record,) in records.items():
        assert record["status"] == "SKIP" and record["not_applicable"] and record["actual"] == "not checked: pyramid_incast is false", node
        assert record["not_checked"] == "pyramid_incast is false"
        (skipped,) = [r for r in _results.load(str(tmp_path), node)["results"] if r["check"] == other]
        assert skipped["not_applicable"] and skipped["actual"].startswith("not applicable: pyramid_rdma_link_layer is "), skipped


def test_an_infiniband_incast_without_the_subnet_read_at_layer3_is_an_error_on_every_node(tmp_path):
    """The leaves are found from Layer 3's iblinkinfo on the fabric host: without it nothing is planned, nothing passes."""
    planned, verdict, records = _run(tmp_path, _Step({"pyramid_incast": True, "pyramid_rdma_link_layer": "infiniband"}),
                                     check="incast_ib")
    assert planned["rounds"] == [] and planned["msg"].startswith(
        "incast not planned: the subnet's read at Layer 3 (iblinkinfo on node-001) is not usable"), planned
    assert verdict["counts"] == {"ERROR": 3}
    for node, (record,) in records.items():
        assert record["status"] == "ERROR" and "iblinkinfo on node-001" in record["actual"], (node, record)


def test_with_no_node_through_the_layers_below_nothing_runs_and_nothing_passes(tmp_path):
    planned, verdict, records = _run(tmp_path, _Step(), below="FAIL")
    assert planned["rounds"] == [] and planned["msg"] == "incast not planned: no node passed the layers below"
    assert verdict["counts"] == {}  # every node blocked below: the layer role records it as not run, not this phase
    assert records == {node: [] for node in NODES}


def test_an_expectation_refused_on_a_host_fails_the_task_naming_it(tmp_path):
    with pytest.raises(RunError, match="node-002: invalid expectations"):
        _run(tmp_path, _Step(refused={"node-002"}))


def test_a_phase_with_no_plan_on_disk_says_the_plan_phase_did_not_run(tmp_path):
    phases = _phases.IncastPhases(_Step(), CATALOG)
    with pytest.raises(RunError, match="no incast plan in .* \\(the plan phase did not run\\)"):
        phases.serve({}, {"run_dir": str(tmp_path), "round": 0})
