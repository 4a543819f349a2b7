"""Layer 5 and 6 judges at their edges: rows from the mutation run of 2026-11-26 (issue 33).

That run found changes to judging/workload.py that no row noticed. Each row below holds the judge to one of
them, with a verdict that is right for the operator:
- nccl_node_busbw: a node whose run failed is judged as such and the nodes after it are still judged; the
  strictest straggler ratio the catalog allows (1.0) is said as 100%.
- training_stable, the log's completeness: a log in Megatron-LM's format is held to its own total whatever
  the inventory says; a step line lost is not made up by a step past pyramid_train_steps; the ranks short of
  steps are named in rank order, three of them; Megatron-LM's log interval is read from the iterations
  logged after the first (every one of them), and the last iteration it must log (--train-iters, or the
  one its own exit line names) is one it would have logged.
- training_stable, the times: sub-millisecond steps are times, inf is not; a step exactly at the median /
  ratio is not a slow one; loose limits (CV 60%, 60% of slow steps, 100% over the baseline) are said as set.
Outputs are the real ones of tests/unit/parsers (a real H100 log with a line deleted, a real 8 x H100
nccl-tests table, a real Megatron-LM excerpt); the rest are facts as the parsers give them, built with the helpers of nccl_training and layer5_6.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.nccl_training import as_asked, hang, train
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.workload.layer5_6 import OWN, busbw_pod, megatron
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.workload.layer6_real_stability import STALLS

H100_8GPU = fixture("nccl_tests", "h100_8gpu_single_node")  # 480.16 GB/s at 8 GiB
OWN_STEPS = {"pyramid_train_command": OWN, "pyramid_train_warmup_steps": 2}
# a line the training_log parser keeps among its "timeouts" (an NCCL WARN, no timeout): with it, the parser
# no longer holds every rank to every step, so the judge's own count is what notices a lost line
IB_WARN = ("node-001:23100:23161 [0] transport/net_ib.cc:2453 NCCL WARN NET/IB: Got completion from peer 10.0.0.12<36473> "
           "with status=4 opcode=0 len=0 vendor err 81 (Send) localGid ::ffff:10.0.0.11 remoteGids::ffff:10.0.0.12 hca mlx5_0")


def _without_step(case, step):
    """A real one-rank log with one step's line deleted."""
    parser, text = fixture("training_log", case)
    lines = [line for line in text.splitlines(True) if " step=%d " % step not in line]
    assert len(lines) == len(text.splitlines(True)) - 1
    return parser, "".join(lines)


DATA = [
    # a failed first node must not stop the judge before the nodes after it
    {"check": "nccl_node_busbw", "name": "the first node hung, the two after it still judged",
     "facts": {"node-001": {"nccl_node": hang()}}, "raw": {"node-002": {"nccl_node": H100_8GPU}, "node-003": {"nccl_node": H100_8GPU}},
     "status": {"node-001": "ERROR", "node-002": "PASS", "node-003": "PASS"},
     "contains": {"node-001": ["did not finish within 900s"], "node-002": ["480.2 GB/s (100% of median)"],
                  "node-003": ["480.2 GB/s (100% of median)"]}},
    {"check": "nccl_node_busbw", "name": "ratio 1.0, the catalog's strictest: a node under the median is a straggler",
     "facts": busbw_pod(400.0, 400.0, 396.0), "expect": {"pyramid_straggler_ratio": 1.0},
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
     "contains": {"node-001": ["busbw at 8589934592 B >= 100% of the pod median (400.0 GB/s)"],
                  "node-003": [">= 100% of the pod median", "straggler: 396.0 GB/s (99% of median)"]}},

    # the built-in never prints Megatron-LM's lines: such a log is your own command's, held to its --train-iters
    {"check": "training_stable", "name": "a cut Megatron-LM log with pyramid_train_command unset: still held to its total",
     "raw": {"training_node": fixture("training_log", "megatron_gpt_real")}, "expect": {"pyramid_train_max_cv": 0.5},
     "status": "ERROR", "contains": ["Megatron-LM's log stops at iteration 185 of 250000 (--train-iters)", "cut short"]},
    # steps 1, 2, 4..30 of a run asked for 29: the lost step 3 is not made up by step 30
    {"check": "training_stable", "name": "a step line lost, a step past pyramid_train_steps: incomplete",
     "raw": {"training_node": _without_step("pyramid_h100_1gpu_run01_real", 3)},
     "expect": {"pyramid_gpus_per_node": 1, "pyramid_train_steps": 29}, "status": "ERROR",
     "contains": ["training log incomplete with exit code 0: rank 0 reported 29 of 29 steps (last 30)", "not complete"]},
    {"check": "training_stable", "name": "eight ranks cut at step 8 of 10: the first three named",
     "facts": train([100.0] * 8, ranks=tuple(range(8))), "expect": {"pyramid_gpus_per_node": 8, "pyramid_train_steps": 10},
     "status": "ERROR", "contains": ["rank 0 reported 8 of 10 steps (last 8); rank 1 reported 8 of 10 steps (last 8); "
                                     "rank 2 reported 8 of 10 steps (last 8) (cut short?)"]},
    {"check": "training_stable", "name": "your own command, rank 0's last line lost after an NCCL WARN: ranks named in rank order",
     "facts": train({0: [100.0] * 5, 1: [100.0] * 6}, timeouts=[IB_WARN]),
     "expect": dict(OWN_STEPS, pyramid_gpus_per_node=2, pyramid_train_command_steps=12), "status": "ERROR",
     "contains": ["rank 0 reported 5 of 12 steps (last 5; pyramid_train_command_steps); "
                  "rank 1 reported 6 of 12 steps (last 6; pyramid_train_command_steps)"]},
    {"check": "training_stable", "name": "your own command, five ranks short of the declared count: the first three named",
     "facts": train([100.0] * 8, ranks=tuple(range(5))),
     "expect": dict(OWN_STEPS, pyramid_gpus_per_node=5, pyramid_train_command_steps=10), "status": "ERROR",
     "contains": ["rank 2 reported 8 of 10 steps (last 8; pyramid_train_command_steps) (cut short?)"]},

    # --log-interval 10: iterations 10, 20, 30 logged; the interval is 10 (not 30, nor 1)
    {"check": "training_stable", "name": "Megatron-LM every 10 iterations, cut at 30 of 50",
     "facts": megatron([10, 20, 30], 50), "expect": {"pyramid_train_command": OWN}, "status": "ERROR",
     "contains": ["Megatron-LM's log stops at iteration 30 of 50 (--train-iters)"]},
    {"check": "training_stable", "name": "Megatron-LM every 10 iterations, 35 planned: 30 is its last log",
     "facts": megatron([10, 20, 30], 35), "expect": {"pyramid_train_command": OWN}, "status": "PASS",
     "contains": ["median iteration 100.0 ms (Megatron-LM log)"]},
    # Megatron-LM logs iteration N before it exits there, and logs --train-iters when the interval divides it
    {"check": "training_stable", "name": "Megatron-LM's exit line names iteration 20, its log stops at 19",
     "facts": megatron(range(1, 20), 100, exit_line="exiting program at iteration 20", exit_iteration=20), "expect": {"pyramid_train_command": OWN},
     "status": "ERROR", "contains": ["stops at iteration 19, before the iteration 20 its own line names"]},
    {"check": "training_stable", "name": "Megatron-LM every 10 iterations, 100 planned, its log stops at 90",
     "facts": megatron(range(10, 91, 10), 100), "expect": {"pyramid_train_command": OWN}, "status": "ERROR",
     "contains": ["stops at iteration 90 of 100 (--train-iters)"]},

    # a real 2 x H200 run of a small all-reduce loop printed 0.065 ms steps: times, judged as such
    {"check": "training_stable", "name": "sub-millisecond steps are times",
     "facts": train([0.229] + [0.066, 0.065] * 5), "status": "PASS", "contains": ["median step 0.1 ms over 2 ranks"]},
    {"check": "training_stable", "name": "inf step times are no data", "facts": train([100.0] * 5 + [float("inf")] * 5), "status": "ERROR",
     "contains": ["not positive finite numbers (inf"]},
    # 125.0 ms is exactly the median / 0.8: not slower than it
    {"check": "training_stable", "name": "steps exactly at the median / ratio are not slow steps",
     "facts": train([100.0] * 5 + [100.0, 100.0, 100.0, 125.0] * 5), "expect": {"pyramid_straggler_ratio": 0.8}, "status": "PASS",
     "contains": ["CV 0.0% (rank 0), median step 100.0 ms over 2 ranks"]},
    {"check": "training_stable", "name": "a loose CV limit of 60%, still exceeded",
     "facts": train([100.0] * 5 + [40.0, 160.0] * 3), "expect": {"pyramid_train_max_cv": 0.6}, "status": "FAIL",
     "contains": ["step-time CV < 60% (robust", "CV 89.0% (rank 0)"]},
    {"check": "training_stable", "name": "a slow-step share of 60%: a stall every fourth step passes",
     "facts": train(STALLS), "expect": {"pyramid_train_max_spike_fraction": 0.6}, "status": "PASS",
     "contains": ["at most 60% of steps slower than the median / 0.90", "5 of 20 steps slower"]},
    {"check": "training_stable", "name": "a baseline tolerance of 100%: 2.5 times the baseline fails",
     "facts": train([250.0] * 10), "expect": {"pyramid_train_step_ms_baseline": 100.0, "pyramid_train_baseline_tolerance": 1.0},
     "status": "FAIL", "contains": ["median step within 100% of the baseline 100.0 ms", "150% slower than the baseline 100.0 ms"]},
]
as_asked(DATA)
