"""Layer 5 on one host: a run that cannot measure an all-reduce never PASSes (issue "Truth on real hosts").

One rank moves nothing (busbw 0, "0 wrong" by construction): SKIP saying so when the inventory promises
one GPU per node, FAIL when it promises more. A pod of one node has no median: only an expected figure
can judge it. Outputs are the built-in benchmark's table (payloads/allreduce_bench.py's own format
functions), with the values of the real one-rank H100 run the issue reports, and the real 2 x H200 run.
"""

import importlib.util
import os

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.layer0 import fixture

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_SPEC = importlib.util.spec_from_file_location("allreduce_bench", os.path.join(ROOT, "payloads", "allreduce_bench.py"))
BENCH = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(BENCH)
MIB, GIB = 1 << 20, 1 << 30


def bench_output(ranks, rows, host="h100-1"):
    """The built-in benchmark's output: ``ranks`` rank lines, rows of (size, time us, algbw, busbw)."""
    lines = ["# nThread 1 nGpus 1 minBytes %d maxBytes %d step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
             % (rows[0][0], rows[-1][0]), "#", "# Using devices"]
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
     "status": "SKIP", "contains": ["an all-reduce needs at least 2 ranks"]},
    {"check": "nccl_node_busbw", "name": "a real one-GPU H100 run has no busbw to judge", "raw": pod(REAL_ONE_RANK[1]), "expect": ONE_GPU,
     "status": {"node-001": "SKIP"}},
    {"check": "nccl_completes", "name": "one rank on a one-GPU node measures nothing", "raw": {"nccl_node": ONE_RANK}, "expect": ONE_GPU,
     "status": "SKIP", "contains": ["an all-reduce needs at least 2 ranks", "pyramid_gpus_per_node 1"]},
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
