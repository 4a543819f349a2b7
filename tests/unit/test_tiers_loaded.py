"""What the report says of the switch tiers a run's traffic crossed (report/tiers_loaded.py, issue 72), from a run
directory as a run leaves it: the rail mesh's plan files and the launcher's logs, each naming its nodes."""

import json
import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import tiers_loaded
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_mesh, fabric_runs

UNITS = {"node-001": "su1", "node-002": "su1", "node-003": "su2", "node-004": "su2"}


def _mesh(run_dir, layer, pairs):
    rail_mesh.save_plan(str(run_dir), {"layer": layer, "rounds": [[{"client": a, "server": b, "rail": 0} for a, b in pairs]]})


def test_a_run_within_one_unit_loads_no_spine_and_a_run_between_units_names_them(tmp_path):
    _mesh(tmp_path, 2, [("node-001", "node-002"), ("node-003", "node-004")])
    _mesh(tmp_path, 4, [("node-001", "node-003")])
    log = fabric_runs.RunLog(str(tmp_path), 5)
    log.write("nccl_pairs", ["node-001", "node-002"], {"command": "mpirun", "status": "ok", "rc": 0, "stdout": ""})
    log.write("nccl_alltoall_pod", list(UNITS), {"command": "mpirun", "status": "ok", "rc": 0, "stdout": ""})
    log.write("nccl_node", ["node-001"], {"command": "all_reduce_perf", "status": "ok", "rc": 0, "stdout": ""})  # one node
    said = dict(tiers_loaded.loaded(str(tmp_path), UNITS))
    assert said == {
        "Layer 2 ping mesh": "leaf only (su1, su2's rail leaves): the spine layer carried no test traffic (no run joined nodes "
                             "of different scalable units)",
        "Layer 4 ib_write_bw": "leaves and spines: the spine layer carried traffic between su1 and su2",
        "Layers 5-6 runs on node pairs": "leaf only (su1's rail leaves): the spine layer carried no test traffic (no run "
                                         "joined nodes of different scalable units)",
        "Layer 5 all-to-all across the pod": "leaves and spines: the spine layer carried traffic between su1 and su2"}


def test_nothing_ran_between_nodes_nothing_is_said(tmp_path):
    assert tiers_loaded.loaded(str(tmp_path), UNITS) == []
    os.makedirs(tmp_path / "hunt")
    (tmp_path / "hunt" / "nccl_pairs-001-old.log").write_text("$ mpirun\n# status: ok, rc: 0\ntable\n")  # an older log: no nodes
    assert tiers_loaded.loaded(str(tmp_path), UNITS) == []
    json.dumps(tiers_loaded.loaded(str(tmp_path), UNITS))
