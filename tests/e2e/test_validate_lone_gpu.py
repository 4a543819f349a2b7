"""A lone GPU box of one GPU on the twin, as inventories/device validates the lent H200 (issue 66): the loads that need two
GPUs (the four other collectives, the P2P test, the parity payload) are decided before they run (no command of theirs on
the node, their records "not applicable" saying why); nothing runs across nodes; the plan lists only what the node would
run and names the benchmark each way it tries; the RDMA stack built into its kernel is proven by what modinfo reads from
the kernel's list of built-in modules, ib_uverbs included (no /sys/module entry of its own), never inferred."""

import json
import os
import shutil
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "twin"))
from pyramid_twin import changes, entry  # noqa: E402  pylint: disable=wrong-import-position

pytestmark = [pytest.mark.twin, pytest.mark.slow]
# the lent H200 as the twin has it: one node, one GPU, its RDMA stack built into the kernel; the gate lifted as in
# inventories/device (group_vars/gpu_nodes/main.yml), so that Layers 5 and 6 run whatever Layer 0 found
SCENARIO = {"pod": {"nodes": 1, "gpus_per_node": 1}, "faults": [{"node": "node-001", "kind": "rdma_built_in"}]}
DEVICE = {"pyramid_gpus_per_node": 1, "pyramid_enforce_gate": False, "pyramid_gpu_nvlinks": 0, "pyramid_soak_seconds": 3}
TWO_GPU_CHECKS = ("nccl_completes", "nccl_correct", "nccl_node_busbw", "nccl_all_gather_correct", "nccl_all_gather_busbw",
                  "nccl_reduce_scatter_correct", "nccl_reduce_scatter_busbw", "nccl_alltoall_correct", "nccl_alltoall_busbw",
                  "nccl_sendrecv_correct", "nccl_sendrecv_busbw", "gpu_p2p", "training_parity")
# the command words of the loads that need two GPUs, as the twin logs each simulated tool it ran
TWO_GPU_LOADS = ("all_gather", "reduce_scatter", "alltoall", "sendrecv", "p2pBandwidthLatencyTest", "p2p_bench", "parity")


def _scenario(tmp_path):
    path = tmp_path / "lone-gpu.yml"
    path.write_text(yaml.safe_dump(SCENARIO))
    with open(str(path), "rb") as handle:
        ran = os.path.join(changes.STATE_DIR, "changes", entry.digest(handle.read()), "ran")
    shutil.rmtree(ran, ignore_errors=True)
    return str(path), os.path.join(ran, "node-001.log")


@pytest.fixture(scope="module")
def lone(validate, tmp_path_factory):
    path, ran = _scenario(tmp_path_factory.mktemp("lone"))
    run = validate(path, **DEVICE)
    with open(ran, encoding="utf-8") as handle:
        commands = handle.read().splitlines()
    with open(os.path.join(run.run_dirs[-1], "devices", "node-001.json"), encoding="utf-8") as handle:
        doc = json.load(handle)
    return run, commands, doc


def test_the_loads_that_need_two_gpus_are_not_run_and_say_why(lone):
    run, commands, doc = lone
    assert run.report is not None, run.stdout[-3000:]
    started = [line for line in commands if any(word in line for word in TWO_GPU_LOADS)]
    assert not started, started
    ran = {name for layer in ("layer5", "layer6") for name in (doc.get("ran") or {}).get(layer, {})}
    assert not ran & {"nccl_node_all_gather", "nccl_node_reduce_scatter", "nccl_node_alltoall", "nccl_node_sendrecv",
                      "gpu_p2p", "training_parity"}, ran
    records = {r["check"]: r for r in run.host("node-001")["checks"]}
    for check in TWO_GPU_CHECKS:
        record = records[check]
        assert record["status"] == "SKIP" and record.get("not_applicable"), record
        assert "needs pyramid_gpus_per_node at least 2, and it is 1 here: its load is not run" in record["actual"], record
    # what one GPU can judge still runs: the NCCL the all-reduce loads, and the training step on its one rank
    assert any(line.startswith("torchrun") and "train_step" in line for line in commands), commands
    assert records["training_stable"]["status"] == "PASS", records["training_stable"]
    assert records["nccl_loaded"]["status"] == "PASS", records["nccl_loaded"]


def test_nothing_runs_across_nodes_and_no_launcher_line_is_named(lone):
    run, commands, _doc = lone
    assert not [line for line in commands if line.startswith(("mpirun", "srun", "ib_write_bw"))], commands
    records = {r["check"]: r for r in run.host("node-001")["checks"]}
    for check in ("nccl_pairs", "nccl_scale", "training_pod", "rdma_write_bw"):
        assert records[check].get("not_applicable") and "only GPU node of this run" in records[check]["actual"], records[check]
    assert records["nccl_pairs"]["command"] == "(none)", records["nccl_pairs"]


def test_the_built_in_rdma_stack_is_proven_by_modinfo(lone):
    run, commands, _doc = lone
    record = {r["check"]: r for r in run.host("node-001")["checks"]}["rdma_modules"]
    assert record["status"] == "PASS", record
    assert "built into the kernel (in /sys/module without initstate, never in lsmod): mlx5_core, mlx5_ib, ib_core" in record["actual"]
    assert "(modinfo: filename (builtin), from the kernel's modules.builtin.modinfo): ib_uverbs" in record["actual"]
    assert "modinfo ib_uverbs" in commands


def test_the_plan_lists_what_the_lone_node_runs_and_the_tools_it_tries(validate, tmp_path):
    path, ran = _scenario(tmp_path)
    run = validate(path, playbook="playbooks/plan.yml", **DEVICE)
    assert run.rc == 0, run.stdout[-3000:]
    assert not os.path.exists(ran)  # the plan runs nothing on the node
    with open(os.path.join(run.run_dirs[-1], "plan.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "mpirun" not in markdown and "srun" not in markdown
    assert "## Layer 5 on the node alone" in markdown and "## Layer 6 on the node alone" in markdown and "round 2" not in markdown
    assert "| nccl_loaded | all_reduce_perf -b 8 -e 4G -f 2 -g 1 \\|\\| torchrun --standalone --nproc_per_node=1" in markdown
    assert "gpu_p2p (not applicable: gpu_p2p needs pyramid_gpus_per_node at least 2, and it is 1 here" in markdown
    assert "nccl_pairs (not applicable: node-001 is the only GPU node of this run" in markdown
