"""Layer 5 on one host: a run that cannot measure an all-reduce never PASSes (issue "Truth on real hosts").

One rank moves nothing (busbw 0, "0 wrong" by construction): SKIP saying so when the inventory promises
one GPU per node, FAIL when it promises more. A pod of one node has no median: only an expected figure
can judge it. Outputs are the built-in benchmark's table (payloads/nccl_bench.py's own format
functions), with the values of the real one-rank H100 run the issue reports, and the real 2 x H200 run.
"""

import importlib.util
import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
_SPEC = importlib.util.spec_from_file_location("nccl_bench", os.path.join(ROOT, "payloads", "nccl_bench.py"))
BENCH = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(BENCH)
MIB, GIB = 1 << 20, 1 << 30


def bench_output(ranks, rows, host="h100-1"):
    """The built-in benchmark's output: ``ranks`` rank lines, rows of (size, time us, algbw, busbw)."""
    factor = rows[1][0] // rows[0][0] if len(rows) > 1 else 2  # the -f that asks for exactly these sizes
    lines = ["# nThread 1 nGpus 1 minBytes %d maxBytes %d step: %d(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
             % (rows[0][0], rows[-1][0], factor), "#", "# Using devices"]
    lines += ["#  Rank %2d Group  0 Pid %6d on %10s device %2d [0x%02x] NVIDIA H100 80GB HBM3" % (r, 4242 + r, host, r, 0x18 + r)
              for r in range(ranks)]
    lines += ["#", "#%74s%39s" % ("out-of-place", "in-place"), BENCH.HEADER % BENCH.COLUMNS, (BENCH.HEADER % BENCH.UNITS).rstrip()]
    for size, usec, algbw, busbw in rows:
        side = BENCH.format_side(usec, algbw, busbw, 0)
        lines.append(BENCH.format_row(size, size // 4, side, side))
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %g " % (sum(r[3] for r in rows) / len(rows)), "#"]
    return "\n".join(lines) + "\n"


ONE_RANK = bench_output(1, [(MIB, 26.48, 39.60, 0.0), (256 * MIB, 26.48, 10137.90, 0.0)])  # the one-GPU H100 figures
TWO_RANKS = fixture("nccl_tests", "h200_x2_torch_bench_socket_real")
ONE_GPU = {"pyramid_gpus_per_node": 1}
TWO_GPUS = {"pyramid_gpus_per_node": 2}


def pod(*outputs):
    return {"node-%03d" % (index + 1): {"nccl_node": text} for index, text in enumerate(outputs)}


def node_of(busbw):
    return bench_output(8, [(MIB, 40.0, 26.0, busbw / 10), (GIB, 5000.0, busbw / 1.75, busbw)])


REAL_ONE_RANK = fixture("nccl_tests", "h100_1gpu_builtin_bench_real")  # the built-in benchmark on the lent H100, 2026-11-23

DATA = [
    {"check": "nccl_completes", "name": "a real one-GPU H100 run measures nothing", "raw": {"nccl_node": REAL_ONE_RANK}, "expect": ONE_GPU,
     "status": "SKIP", "contains": ["a collective needs at least 2 ranks"]},
    {"check": "nccl_node_busbw", "name": "a real one-GPU H100 run has no busbw to judge", "raw": pod(REAL_ONE_RANK[1]), "expect": ONE_GPU,
     "status": {"node-001": "SKIP"}},
    {"check": "nccl_completes", "name": "one rank on a one-GPU node measures nothing", "raw": {"nccl_node": ONE_RANK}, "expect": ONE_GPU,
     "status": "SKIP", "contains": ["a collective needs at least 2 ranks", "pyramid_gpus_per_node 1"]},
    {"check": "nccl_completes", "name": "one rank where eight GPUs are promised", "raw": {"nccl_node": ONE_RANK},
     "status": "FAIL", "contains": ["1 rank ran where the inventory promises 8 GPUs", "GPUs missing from the run"]},
    {"check": "nccl_completes", "name": "two ranks where two GPUs are promised", "raw": {"nccl_node": TWO_RANKS}, "expect": TWO_GPUS,
     "status": "PASS", "contains": ["on 2 ranks"]},
    {"check": "nccl_completes", "name": "two ranks where eight GPUs are promised", "raw": {"nccl_node": TWO_RANKS},
     "status": "FAIL", "contains": ["2 ranks ran where the inventory promises 8 GPUs"]},
    {"check": "nccl_correct", "name": "one rank: 0 wrong proves nothing", "raw": {"nccl_node": ONE_RANK}, "expect": ONE_GPU,
     "status": "SKIP", "contains": ["nothing was measured"]},
    {"check": "nccl_correct", "name": "one rank where two GPUs are promised", "raw": {"nccl_node": ONE_RANK}, "expect": TWO_GPUS,
     "status": "FAIL", "contains": ["1 rank ran where the inventory promises 2 GPUs"]},
    {"check": "nccl_correct", "name": "two ranks, 0 wrong", "raw": {"nccl_node": TWO_RANKS}, "expect": TWO_GPUS, "status": "PASS"},
    {"check": "nccl_node_busbw", "name": "one node alone: no median, no expected figure", "raw": pod(node_of(480.0)),
     "status": {"node-001": "SKIP"}, "contains": {"node-001": ["nothing to compare it with", "480.0 GB/s"]}},
    {"check": "nccl_node_busbw", "name": "one node alone, judged by its expected figure", "raw": pod(node_of(480.0)),
     "expect": {"pyramid_nccl_node_busbw": {str(GIB): 470}}, "status": {"node-001": "PASS"}, "contains": {"node-001": ["480.0 GB/s"]}},
    {"check": "nccl_node_busbw", "name": "one node alone, under its expected figure", "raw": pod(node_of(380.0)),
     "expect": {"pyramid_nccl_node_busbw": {str(GIB): 470}}, "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["below the expected figure: 380.0 GB/s", "NVLink/NVSwitch degraded"]}},
    {"check": "nccl_node_busbw", "name": "a one-rank node is failed and left out of the median", "raw": pod(node_of(480.0), node_of(470.0), ONE_RANK),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
     "contains": {"node-001": ["pod median (475.0 GB/s)"], "node-003": ["1 rank ran where the inventory promises 8 GPUs"]}},
    {"check": "nccl_node_busbw", "name": "every node one rank on one-GPU nodes", "raw": pod(ONE_RANK, ONE_RANK), "expect": ONE_GPU,
     "status": {"node-001": "SKIP", "node-002": "SKIP"}},
    {"check": "nccl_node_busbw", "name": "a pod that moved nothing", "raw": pod(node_of(0.0), node_of(0.0)),
     "status": {"node-001": "FAIL", "node-002": "FAIL"}, "contains": {"node-001": ["nothing moved: 0.0 GB/s"]}},
]

# More ranks than GPUs (the lent 1 x H100 with the inventory's 2, gate lifted, 2026-11-23): rank 1 dies with
# "invalid device ordinal". The engine's own reason for that run, word for word from its devices file.
BENCH_2 = "torchrun --standalone --nproc_per_node=2 /tmp/pyramid-hsie2_6a/allreduce_bench.py -b 8 -e 4G -f 2"
TRAIN_2 = "torchrun --standalone --nproc_per_node=2 /tmp/pyramid-72x060es/train_step.py --steps 30"
ORDINAL = "exit code 1; stderr: [rank1]: torch.AcceleratorError: CUDA error: invalid device ordinal (host: localhost)"
BENCH_DIED = SourceFailure(BENCH_2, "%s: unparseable output (nccl_tests): nccl_tests: no result rows; %s" % (BENCH_2, ORDINAL))
TRAIN_DIED = SourceFailure(TRAIN_2, "%s: unparseable output (training_log): training_log: no step lines; %s" % (TRAIN_2, ORDINAL))
ONE_GPU_TOPO = fixture("linux_nvidia_smi_topo_m", "one_gpu")
TWO_GPU_TOPO = fixture("linux_nvidia_smi_topo_m", "h200_x2_nvlink_no_nics_real")

DATA += [
    {"check": "nccl_completes", "name": "2 ranks on a 1-GPU host", "facts": {"nccl_node": BENCH_DIED}, "raw": {"gpus_found": ONE_GPU_TOPO},
     "expect": TWO_GPUS, "status": "FAIL", "contains": ["2 ranks, 1 GPU", "exit code 1", "invalid device ordinal", "More ranks than GPUs"]},
    {"check": "nccl_completes", "name": "a run that died with every GPU there is no data", "facts": {"nccl_node": BENCH_DIED},
     "raw": {"gpus_found": TWO_GPU_TOPO}, "expect": TWO_GPUS, "status": "ERROR", "contains": ["invalid device ordinal", "No data from"]},
    {"check": "nccl_completes", "name": "a run that died, GPUs not read", "facts": {"nccl_node": BENCH_DIED},
     "expect": TWO_GPUS, "status": "ERROR", "contains": ["exit code 1"]},
    {"check": "nccl_correct", "name": "2 ranks on a 1-GPU host: not measured", "facts": {"nccl_node": BENCH_DIED}, "raw": {"gpus_found": ONE_GPU_TOPO},
     "expect": TWO_GPUS, "status": "SKIP", "contains": ["not measured: 2 ranks, 1 GPU"]},
    {"check": "nccl_correct", "name": "a run that died is no data", "facts": {"nccl_node": BENCH_DIED}, "raw": {"gpus_found": TWO_GPU_TOPO},
     "expect": TWO_GPUS, "status": "ERROR", "contains": ["invalid device ordinal"]},
    {"check": "nccl_node_busbw", "name": "2 ranks on a 1-GPU host: no busbw", "facts": {"node-001": {"nccl_node": BENCH_DIED}},
     "raw": {"node-001": {"gpus_found": ONE_GPU_TOPO}}, "expect": TWO_GPUS, "status": {"node-001": "SKIP"},
     "contains": {"node-001": ["not measured: 2 ranks, 1 GPU"]}},
    {"check": "training_stable", "name": "2 ranks on a 1-GPU host", "facts": {"training_node": TRAIN_DIED}, "raw": {"gpus_found": ONE_GPU_TOPO},
     "expect": TWO_GPUS, "status": "FAIL", "contains": ["2 ranks, 1 GPU", "invalid device ordinal"]},
    {"check": "training_stable", "name": "a run that died with every GPU there is no data", "facts": {"training_node": TRAIN_DIED},
     "raw": {"gpus_found": TWO_GPU_TOPO}, "expect": TWO_GPUS, "status": "ERROR", "contains": ["exit code 1"]},
    # damaged tables (issue "Hostile inputs"): judged on the sizes the run asked for, never on what is left
    {"check": "nccl_completes", "name": "rows deleted from a real table", "raw": {"nccl_node": fixture("nccl_tests", "rows_deleted")},
     "expect": TWO_GPUS, "status": "ERROR", "contains": ["2 of the 24 sizes the run asked for", "524288, 1048576"]},
    {"check": "nccl_correct", "name": "#wrong 1e999", "raw": {"nccl_node": fixture("nccl_tests", "wrong_1e999")}, "status": "ERROR",
     "contains": ["#wrong '1e999' is not a count"]},
]
