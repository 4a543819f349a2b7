"""validate.yml --check on the twin (issue 37): every read runs and is judged, and nothing that loads the fabric or the
GPUs starts. The twin keeps the command line of every simulated tool it ran (.twin/changes/<digest>/ran/<host>.log):
no ping, fping, ib_write_bw, all_reduce_perf, torchrun, mpirun or srun among them. Each check that would have loaded
reads SKIP "not run: check mode" naming the load; the pod is never GO, and the report says why."""

import json
import os
import shutil
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "twin"))
from pyramid_twin import changes, entry  # noqa: E402  pylint: disable=wrong-import-position

pytestmark = [pytest.mark.slow]
LOAD_TOOLS = {"ping", "fping", "ib_write_bw", "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf",
              "sendrecv_perf", "p2pBandwidthLatencyTest", "torchrun", "mpirun", "srun"}
# a healthy pod of 4 nodes (no switch: their reads are not what is proven here), DCGM at level 2 (minutes of stress)
SCENARIO = {"pod": {"nodes": 4}, "faults": []}


def _ran(scenario_path):
    """{host: [command lines]} of the simulated tools the twin ran for this scenario."""
    with open(scenario_path, "rb") as handle:
        folder = os.path.join(changes.STATE_DIR, "changes", entry.digest(handle.read()), "ran")
    return {name[:-len(".log")]: open(os.path.join(folder, name), encoding="utf-8").read().splitlines()
            for name in sorted(os.listdir(folder))} if os.path.isdir(folder) else {}


def test_check_mode_reads_and_judges_and_starts_no_load(validate, tmp_path):
    path = tmp_path / "check-mode.yml"
    path.write_text(yaml.safe_dump(SCENARIO))
    with open(path, "rb") as handle:
        shutil.rmtree(os.path.join(changes.STATE_DIR, "changes", entry.digest(handle.read()), "ran"), ignore_errors=True)
    run = validate(str(path), cmdline="--check", pyramid_dcgm_diag_level=2, pyramid_drain="kubernetes")
    ran = _ran(str(path))
    # NO-GO by what check mode did not run is no finding: no node is handed to the scheduler, and kubectl never ran
    with open(os.path.join(run.run_dirs[-1], "drain.json"), encoding="utf-8") as handle:
        drain = json.load(handle)
    assert (drain["check_mode"], drain["drained"], drain["commands"], drain["done"]) == (True, {}, [], []), drain
    assert not [line for lines in ran.values() for line in lines if line.startswith("kubectl")]
    assert set(ran) == {"node-001", "node-002", "node-003", "node-004"}, ran  # the reads ran on every node
    started = sorted({line for lines in ran.values() for line in lines if line.split()[0] in LOAD_TOOLS or line.startswith("dcgmi diag")})
    assert not started, started
    for node in ran:
        records = {r["check"]: r for r in run.host(node)["checks"]}
        assert records["rails_active"]["status"] == "PASS" and records["mlxconfig"]["status"] == "PASS"  # read and judged
        not_run = {check for check, r in records.items() if r["status"] == "SKIP" and r["actual"].startswith("not run: check mode")}
        assert not_run == {"gpu_dcgm_diag", "rail_ping", "rdma_write_bw", "rdma_gpudirect_bw", "nccl_completes", "nccl_correct",
                           "nccl_node_busbw", "nccl_loaded", "gpu_p2p", "nccl_pairs", "nccl_scale", "nccl_all_gather_pod",
                           "nccl_reduce_scatter_pod", "nccl_alltoall_pod", "training_stable",
                           "training_parity", "training_pod", "training_parity_pod"} | {
                               "nccl_%s_%s" % (op, kind) for op in ("all_gather", "reduce_scatter", "alltoall", "sendrecv")
                               for kind in ("correct", "busbw")}, not_run
        assert "(it puts load on the fabric or the GPUs: ib_write_bw at line rate on every rail" in records["rdma_write_bw"]["actual"]
        assert run.host(node)["verdict"] == "NO-GO" and all(
            r["status"] in ("PASS", "SKIP") for r in records.values()), [r for r in records.values() if r["status"] not in ("PASS", "SKIP")]
    assert run.report["verdict"] == "NO-GO" and run.report["check_mode_not_run"] == 4 * 26
    assert "Check mode (--check): 104 checks that load the fabric or the GPUs were not run" in run.stdout
