"""Issue 66: a check that needs two GPUs (two ranks, a GPU pair) is decided before its load runs. On a node of one GPU
the collectives, the P2P test and the parity payload are not started (no read planned), and their records say why."""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine, layer as _layer

CATALOG = _catalog.load_catalog()
# the sources whose only readers need two GPUs: their loads must not start on one
TWO_GPU_LOADS = {5: {"nccl_node_all_gather", "nccl_node_reduce_scatter", "nccl_node_alltoall", "nccl_node_sendrecv", "gpu_p2p"},
                 6: {"training_parity"}}
TWO_GPU_CHECKS = {5: {"nccl_completes", "nccl_correct", "nccl_node_busbw", "nccl_all_gather_correct", "nccl_all_gather_busbw",
                      "nccl_reduce_scatter_correct", "nccl_reduce_scatter_busbw", "nccl_alltoall_correct", "nccl_alltoall_busbw",
                      "nccl_sendrecv_correct", "nccl_sendrecv_busbw", "gpu_p2p"},
                  6: {"training_parity"}}


def _expect(**overrides):
    values, errors = _expectations.resolve(CATALOG, overrides)
    assert not errors, errors
    return values


class Collector:
    """Records the reads planned; every one answers with empty output (what it says does not matter here)."""

    def __init__(self):
        self.planned = []

    def __call__(self, planned):
        self.planned = planned
        return _engine.answers(planned, {item["id"]: {"status": "ok", "rc": 0, "stdout": "", "command": item["id"]}
                                         for item in planned}), None


def _run(layer, gpus):
    collect = Collector()
    doc = {"host": "gpu-host", "results": [], "facts": {}}
    checks = _catalog.checks_at(CATALOG, layer, "gpu_node")
    records, _summary = _layer.run("gpu-host", layer, checks, CATALOG, _expect(pyramid_gpus_per_node=gpus), doc, collect,
                                   wait=lambda doc, seconds: 0.0)
    return {item["id"] for item in collect.planned}, {record["check"]: record for record in records}


def test_on_one_gpu_the_loads_that_need_two_are_not_started_and_say_why():
    for layer in (5, 6):
        read, records = _run(layer, 1)
        assert not read & TWO_GPU_LOADS[layer], read & TWO_GPU_LOADS[layer]
        for check in TWO_GPU_CHECKS[layer]:
            record = records[check]
            assert record["status"] == "SKIP" and record["not_applicable"] is True, record
            assert record["actual"] == ("not applicable: %s needs pyramid_gpus_per_node at least 2, and it is 1 here: its load "
                                        "is not run" % check)
            assert record["expected"] == "pyramid_gpus_per_node at least 2" and record["command"] == "(none)"


def test_on_one_gpu_the_all_reduce_still_runs_for_the_nccl_it_loads_and_training_still_runs():
    read5, records5 = _run(5, 1)
    read6, records6 = _run(6, 1)
    assert "nccl_node" in read5  # nccl_loaded judges the NCCL version that run loads: a load with something to judge
    assert "nccl_loaded" not in records5 or not records5["nccl_loaded"].get("not_applicable")
    assert "training_node" in read6 and not records6["training_stable"].get("not_applicable")


def test_on_two_gpus_every_load_runs():
    for layer in (5, 6):
        read, records = _run(layer, 2)
        assert TWO_GPU_LOADS[layer] <= read
        assert not any(records[check].get("not_applicable") for check in TWO_GPU_CHECKS[layer] if check in records)


def test_the_plan_says_the_same_before_anything_runs():
    one, two = _expect(pyramid_gpus_per_node=1), _expect(pyramid_gpus_per_node=8)
    for layer in (5, 6):
        for check in _catalog.checks_at(CATALOG, layer, "gpu_node"):
            assert bool(_catalog.not_applicable(check, one)) == (check["id"] in TWO_GPU_CHECKS[layer] or
                                                                 bool(_catalog.not_applicable(check, two)))
            if check["id"] in TWO_GPU_CHECKS[layer]:
                assert not _catalog.load_of(check, CATALOG, one) and _catalog.load_of(check, CATALOG, two)


def test_the_catalog_refuses_an_at_least_that_is_not_a_number(edited_catalog):
    with pytest.raises(_catalog.CatalogError, match="at_least maps expectations"):
        edited_catalog("at_least: {pyramid_gpus_per_node: 2}  # one GPU has no pair",
                       "at_least: {pyramid_gpus_per_node: two}  # one GPU has no pair")
