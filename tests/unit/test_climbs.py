"""core/results.climbs: the one gate of every run across devices (the rail mesh, the incast, the straggler hunt).

Each row: a device's records, the layer of the run and its own checks, and whether the device joins. The last
rows decide issue 34's edge case: a node whose only records are not-applicable SKIPs has proven nothing and does
not join (the rail mesh let it in, the straggler hunt did not); both runs now ask the same function.
"""

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_mesh as _mesh, fabric_runs as _fabric_runs


def _r(layer, check, status, not_applicable=False):
    return dict({"layer": layer, "check": check, "status": status}, **({"not_applicable": True} if not_applicable else {}))


DATA = [
    # name, records, layer, the run's own checks, joins
    ("every layer below passed", [_r(0, "iommu", "PASS"), _r(3, "pfc_idle", "PASS")], 4, {"rdma_write_bw"}, True),
    ("a FAIL below", [_r(0, "iommu", "FAIL"), _r(3, "pfc_idle", "PASS")], 4, {"rdma_write_bw"}, False),
    ("an ERROR below (a read failed)", [_r(0, "iommu", "PASS"), _r(1, "rails_active", "ERROR")], 4, {"rdma_write_bw"}, False),
    ("BLOCKED by a switch at this very layer", [_r(0, "iommu", "PASS"), _r(4, "rdma_write_bw_leaf", "BLOCKED")], 4, {"rdma_write_bw"}, False),
    ("a SKIP that was not run (blocked lower)", [_r(0, "iommu", "PASS"), _r(3, "pfc_idle", "SKIP")], 4, {"rdma_write_bw"}, False),
    ("a failure above the run's layer does not hold it back", [_r(0, "iommu", "PASS"), _r(6, "training_stable", "ERROR")], 5,
     {"nccl_pairs"}, True),
    ("its own check failed in an earlier run: judged anew", [_r(0, "iommu", "PASS"), _r(4, "rdma_write_bw", "FAIL")], 4,
     {"rdma_write_bw"}, True),
    ("a check that does not apply beside a PASS", [_r(0, "iommu", "PASS"), _r(0, "gpu_fabric", "SKIP", True)], 5, {"nccl_pairs"}, True),
    ("no record at all", [], 4, {"rdma_write_bw"}, False),
    ("only not-applicable SKIPs: nothing proven (issue 34)", [_r(0, "gpu_fabric", "SKIP", True), _r(3, "incast_ecn", "SKIP", True)], 4,
     {"rdma_write_bw"}, False),
    ("only its own check: nothing else proven", [_r(4, "rdma_write_bw", "PASS")], 4, {"rdma_write_bw"}, False),
]


@pytest.mark.parametrize("name, records, layer, own, joins", DATA, ids=[row[0] for row in DATA])
def test_climbs(name, records, layer, own, joins):  # pylint: disable=unused-argument
    assert _results.climbs(records, layer, own) is joins


@pytest.mark.parametrize("name, records, layer, own, joins", DATA, ids=[row[0] for row in DATA])
def test_the_mesh_and_the_hunt_agree(name, records, layer, own, joins):  # pylint: disable=unused-argument
    docs = {"node": {"host": "node", "results": records}}
    (check,) = own
    assert _mesh.climbing(docs, layer, check) == _fabric_runs.climbing(docs, layer, own) == (["node"] if joins else [])
