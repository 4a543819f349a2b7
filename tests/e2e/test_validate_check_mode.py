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


def test_check_mode_on_a_lone_gpu_box_reads_what_does_not_apply_as_the_full_run(validate):
    """Issue 66: on the only GPU node of a run the rail mesh and the runs across nodes do not apply, under --check as in
    the full run ("-" with why, never "not run: check mode"); a row is [✗] only for a FAIL or ERROR of its own; the node,
    NO-GO with no finding, names the check it was not proven by in report.md."""
    run = validate({"pod": {"nodes": 1}, "faults": []}, cmdline="--check")
    rows = {row["row"]: row for row in run.report["checklist"]}
    for row in ("rail_ping", "rdma_bw", "alltoall_pod"):
        assert rows[row]["status"] == "not_covered" and rows[row]["why_not"].startswith(
            "not applicable: this node is the only GPU node of this run"), rows[row]
    assert not [row["row"] for row in rows.values() if row["status"] == "fail"], rows
    assert rows["nccl"]["status"] == "not_run" and rows["nccl"]["not_run_why"]["node-001"].startswith("nccl_completes: not run: check mode")
    cause = run.host("node-001")["cause"]
    assert cause["status"] == "SKIP" and "not run: check mode" in cause["text"], cause
    with open(os.path.join(run.run_dirs[-1], "report.md"), encoding="utf-8") as handle:
        assert any(line.startswith("| node-001 | gpu_node | NO-GO |") and line.rstrip("\n").endswith(" | %s |" % cause["text"])
                   for line in handle)
