"""Layer 5 and 6 judges of one host as a data table (NCCL all-reduce, a training run), run by test_judge_data.py.

On one host (judging/workload.py): nccl_completes, nccl_correct, nccl_node_busbw (pod) and training_stable. The same
runs across a group of nodes (fabric checks) are fabric/layer5_6.py's rows.

Rows built on tests/unit/parsers/nccl_tests and training_log fixtures use real outputs; rows with
facts put each threshold just inside and just outside: the straggler ratio (0.9 of the pod median),
the expected figure's tolerance (0.15), the CV limit (5%), the warm-up, and the baseline (+10%).
Their facts are built with nccl_training's helpers.
"""

import re

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.workload import robust_cv
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, fixture, failed
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.nccl_training import (
    AT_5, CUT_AT_HALF, CV_49, CV_51, GIB, HOSTS, LAST, STEADY, TRAIN_CMD, as_asked, hang, nccl, nccl_row, steps, train)

SLOW_CAUSE = "Node busbw under the platform's expected figure"


def peak(busbw, ip_busbw=None):
    return {"nccl_node": nccl(nccl_row(1 << 20, 20.0), nccl_row(LAST, busbw, ip_busbw))}


def busbw_pod(*peaks):
    return {host: peak(*value) if isinstance(value, tuple) else peak(value) for host, value in zip(HOSTS, peaks)}


def everyone(status):
    return {host: status for host in HOSTS}


OWN = ["torchrun", "--standalone", "pretrain_gpt.py"]  # pyramid_train_command: your own training command


def megatron(iterations, total, exit_line=None, times=None, exit_iteration=None):
    """A Megatron-LM log's facts: one line per logged iteration (no rank: the last rank prints them) of `total`
    (the M of `iteration N/ M`, --train-iters), and its own `exiting program ...` line if it printed one, with the
    iteration that line names (exiting program at iteration N)."""
    times = times or [100.0] * len(iterations)
    return {"training_node": {"format": "megatron", "timeouts": [], "nan_iterations": 0, "train_iters": total, "exit_line": exit_line,
                              "exit_iteration": exit_iteration,
                              "steps": [{"step": i, "rank": None, "step_time_ms": t, "fwd_ms": None, "loss": 1.0}
                                        for i, t in zip(iterations, times)]}}


def _without_rank(source, rank):
    """A real nccl-tests output with the '#  Rank' line of one rank deleted."""
    parser, text = source
    lines = [line for line in text.splitlines(True) if not re.match(r"^#\s+Rank\s+%d\s" % rank, line)]
    assert len(lines) == len(text.splitlines(True)) - 1
    return parser, "".join(lines)


def _header_damaged_and_cut(source):
    """A real nccl-tests output whose "# nThread" header is garbled and whose 4 GiB and 8 GiB rows are gone."""
    parser, text = source
    lines = [line for line in text.replace("# nThread 1 nGpus", "#  Thr3ad 1 nGpus", 1).splitlines(True)
             if not line.lstrip().startswith(("4294967296 ", "8589934592 "))]
    return parser, "".join(lines)


DATA = [
    # --- nccl_completes: the all-reduce finishes; a hang (timeout) is a FAIL naming the silent ranks
    {"check": "nccl_completes", "name": "8 GPUs, 11 sizes", "raw": {"nccl_node": fixture("nccl_tests", "h100_8gpu_single_node")},
     "status": "PASS", "contains": ["11 sizes up to 8589934592 B on 8 ranks"]},
    {"check": "nccl_completes", "name": "wrong results still complete", "raw": {"nccl_node": fixture("nccl_tests", "dgx_h100_wrong_elements")},
     "expect": {"pyramid_gpus_per_node": 2}, "status": "PASS", "contains": ["18 sizes up to 1048576 B on 2 ranks"]},
    {"check": "nccl_completes", "name": "exit 1 with a full table", "facts": {"nccl_node": dict(nccl(), exit_code=1)}, "status": "PASS",
     "contains": ["2 sizes up to 8589934592 B on 8 ranks"]},
    {"check": "nccl_completes", "name": "hung after 1 MiB", "facts": {"nccl_node": hang([(0, "node-001"), (1, "node-001")], [8, 1 << 20])},
     "status": "FAIL", "contains": ["hung: ranks 0,1 on node-001 never finished; last size completed: 1048576 B", CAUSE]},
    {"check": "nccl_completes", "name": "hung on two hosts before any size", "facts": {"nccl_node": hang([(0, "node-001"), (1, "node-002")])},
     "status": "FAIL", "contains": ["ranks 0 on node-001; ranks 1 on node-002 never finished; last size completed: none"]},
    {"check": "nccl_completes", "name": "hung before any rank printed", "facts": {"nccl_node": hang()}, "status": "FAIL",
     "contains": ["hung: no rank reported in never finished; last size completed: none"]},
    {"check": "nccl_completes", "name": "no Avg line: died mid-run", "raw": {"nccl_node": fixture("nccl_tests", "hang_no_avg_line")},
     "status": "ERROR", "contains": ["the run died or hung"]},
    # issue 40: the header damaged, then the largest sizes deleted: no PASS on what is left, judged at a smaller size
    {"check": "nccl_completes", "name": "run header damaged and the two largest sizes deleted: ERROR about the read",
     "raw": {"nccl_node": _header_damaged_and_cut(fixture("nccl_tests", "h100_8gpu_single_node"))},
     "status": "ERROR", "contains": ["no run header (# nThread ... minBytes ... maxBytes ... step: ...) before 9 rows"]},
    # issue 40: a lost '# Rank' line is damage, never "7 ranks ran"
    {"check": "nccl_completes", "name": "the last '# Rank' line lost: ERROR about the read",
     "raw": {"nccl_node": _without_rank(fixture("nccl_tests", "h100_8gpu_single_node"), 7)},
     "status": "ERROR", "contains": ["lists 7 ranks where the header's nThread x nGpus make 8 (a lost '# Rank' line?)"]},
    {"check": "nccl_completes", "name": "a middle '# Rank' line lost: ERROR naming the rank",
     "raw": {"nccl_node": _without_rank(fixture("nccl_tests", "h100_8gpu_single_node"), 3)},
     "status": "ERROR", "contains": ["no '# Rank' line for rank 3 of 0..7 (a lost line?)"]},
    {"check": "nccl_completes", "name": "all_reduce_perf not installed", "facts": {"nccl_node": failed("all_reduce_perf", "command not found", "missing")},
     "status": "ERROR", "contains": ["command not found"]},
    {"check": "nccl_completes", "name": "the expected sizes and timeout", "facts": {"nccl_node": hang()},
     "expect": {"pyramid_nccl_min_bytes": "1M", "pyramid_nccl_max_bytes": "8G", "pyramid_nccl_timeout": 600}, "status": "FAIL",
     "contains": ["hung:"]},

    # --- nccl_correct: #wrong 0 out-of-place and in-place at every size, no out-of-bounds value
    {"check": "nccl_correct", "name": "0 wrong in 11 sizes", "raw": {"nccl_node": fixture("nccl_tests", "h100_8gpu_single_node")},
     "status": "PASS", "contains": ["0 wrong in 11 sizes"]},
    {"check": "nccl_correct", "name": "wrong elements on a DGX", "raw": {"nccl_node": fixture("nccl_tests", "dgx_h100_wrong_elements")},
     "status": "FAIL", "contains": ["524288 B out-of-place: 237858 wrong", "1048576 B in-place: 475920 wrong", "4 out-of-bounds values", CAUSE]},
    {"check": "nccl_correct", "name": "one wrong out-of-place", "facts": {"nccl_node": nccl(nccl_row(LAST, 400.0, oop_wrong=1))},
     "status": "FAIL", "contains": ["8589934592 B out-of-place: 1 wrong"]},
    {"check": "nccl_correct", "name": "one wrong in-place", "facts": {"nccl_node": nccl(nccl_row(LAST, 400.0, ip_wrong=1))},
     "status": "FAIL", "contains": ["8589934592 B in-place: 1 wrong"]},
    {"check": "nccl_correct", "name": "out-of-bounds only", "facts": {"nccl_node": nccl(oob=1)}, "status": "FAIL",
     "contains": ["1 out-of-bounds values"]},
    {"check": "nccl_correct", "name": "wrong beats not validated",
     "facts": {"nccl_node": nccl(nccl_row(1 << 20, 20.0, oop_wrong=None, ip_wrong=None), nccl_row(LAST, 400.0, ip_wrong=3))},
     "status": "FAIL", "contains": ["in-place: 3 wrong"]},
    {"check": "nccl_correct", "name": "run without -c 1", "raw": {"nccl_node": fixture("nccl_tests", "h100_8gpu_check_off_na")},
     "status": "ERROR", "contains": ["results not validated: 8 of 8 results (#wrong N/A: run without -c 1)"]},
    {"check": "nccl_correct", "name": "in-place alone not validated", "facts": {"nccl_node": nccl(nccl_row(LAST, 400.0, ip_wrong=None))},
     "status": "ERROR", "contains": ["results not validated: 1 of 2 results (#wrong N/A"]},
    {"check": "nccl_correct", "name": "hung: nothing to check", "facts": {"nccl_node": hang()}, "status": "ERROR",
     "contains": ["did not finish within 900s"]},

    # --- nccl_node_busbw (pod): peak busbw >= 0.9 of the pod median, and within 15% of pyramid_nccl_node_busbw
    {"check": "nccl_node_busbw", "name": "three equal nodes", "facts": busbw_pod(400.0, 400.0, 400.0), "status": everyone("PASS"),
     "contains": everyone(["400.0 GB/s (100% of median)", "busbw at 8589934592 B >= 90% of the pod median (400.0 GB/s)"])},
    {"check": "nccl_node_busbw", "name": "real single-node run, nothing to compare",
     "raw": {"node-001": {"nccl_node": fixture("nccl_tests", "h100_8gpu_single_node")}},
     "status": {"node-001": "SKIP"}, "contains": {"node-001": ["480.2 GB/s, but nothing to compare it with", "alone in the run: no pod median"]}},
    {"check": "nccl_node_busbw", "name": "real single-node run, expected figure",
     "raw": {"node-001": {"nccl_node": fixture("nccl_tests", "h100_8gpu_single_node")}},
     "expect": {"pyramid_nccl_node_busbw": {str(LAST): 480}}, "status": {"node-001": "PASS"},
     "contains": {"node-001": ["480.2 GB/s", "within 15% of 480 GB/s"]}},
    {"check": "nccl_node_busbw", "name": "straggler just under 90%", "facts": busbw_pod(200.0, 200.0, 179.9),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"}, "contains": {"node-003": ["straggler: 179.9 GB/s (90% of median)", CAUSE]}},
    {"check": "nccl_node_busbw", "name": "exactly 90% passes", "facts": busbw_pod(200.0, 200.0, 180.0), "status": everyone("PASS"),
     "contains": {"node-003": ["180.0 GB/s (90% of median)"]}},
    {"check": "nccl_node_busbw", "name": "the better of out-of-place and in-place", "facts": busbw_pod(200.0, 200.0, (150.0, 199.0)),
     "status": everyone("PASS"), "contains": {"node-003": ["199.0 GB/s"]}},
    {"check": "nccl_node_busbw", "name": "in-place slow too", "facts": busbw_pod(200.0, 200.0, (199.0, 150.0)),
     "status": everyone("PASS"), "contains": {"node-003": ["199.0 GB/s"]}},
    {"check": "nccl_node_busbw", "name": "a stricter ratio", "facts": busbw_pod(200.0, 200.0, 190.0), "expect": {"pyramid_straggler_ratio": 0.96},
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"}, "contains": {"node-003": ["straggler: 190.0 GB/s (95% of median)"]}},
    {"check": "nccl_node_busbw", "name": "within 15% of the expected figure", "facts": busbw_pod(340.0, 340.0, 340.0),
     "expect": {"pyramid_nccl_node_busbw": {str(LAST): 400}}, "status": everyone("PASS"), "contains": everyone(["and within 15% of 400 GB/s"])},
    {"check": "nccl_node_busbw", "name": "every node under the expected figure", "facts": busbw_pod(339.9, 339.9, 339.9),
     "expect": {"pyramid_nccl_node_busbw": {str(LAST): 400}}, "status": everyone("FAIL"),
     "contains": everyone(["below the expected figure: 339.9 GB/s (100% of median)", SLOW_CAUSE])},
    {"check": "nccl_node_busbw", "name": "a looser tolerance", "facts": busbw_pod(330.0, 330.0, 330.0),
     "expect": {"pyramid_nccl_node_busbw": {str(LAST): 400}, "pyramid_nccl_tolerance": 0.2}, "status": everyone("PASS")},
    {"check": "nccl_node_busbw", "name": "a figure for another size is not applied", "facts": busbw_pod(100.0, 100.0, 100.0),
     "expect": {"pyramid_nccl_node_busbw": {str(GIB): 400}}, "status": everyone("PASS")},
    {"check": "nccl_node_busbw", "name": "a straggler is named before the figure", "facts": busbw_pod(400.0, 400.0, 300.0),
     "expect": {"pyramid_nccl_node_busbw": {str(LAST): 400}}, "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL"},
     "contains": {"node-003": ["straggler: 300.0 GB/s (75% of median)"]}},
    {"check": "nccl_node_busbw", "name": "one node hung, the others judged",
     "facts": {"node-001": peak(400.0), "node-002": peak(400.0), "node-003": {"nccl_node": hang()}},
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR"}, "contains": {"node-003": ["did not finish"]}},
    {"check": "nccl_node_busbw", "name": "facts without rows",
     "facts": {"node-001": {"nccl_node": nccl(nccl_row(LAST, 1.0))}, "node-002": {"nccl_node": {"ranks": []}}},
     "status": {"node-001": "ERROR", "node-002": "ERROR"}, "contains": {"node-001": ["facts incomplete for nccl_node_busbw"]}},

    # --- training_stable: no timeout, no crash, >= 3 steps after warm-up, no slow rank, CV < 5%, baseline
    {"check": "training_stable", "name": "H200 x2, two ranks", "raw": {"training_node": fixture("training_log", "pyramid_h200_x2_real")},
     "status": "PASS", "contains": ["over 2 ranks"]},
    {"check": "training_stable", "name": "steady step times", "facts": train(), "status": "PASS",
     "contains": ["CV 0.0% (rank 0), median step 100.0 ms over 2 ranks"]},
    {"check": "training_stable", "name": "CV just under 5%", "facts": train(CV_49), "status": "PASS", "contains": ["CV 4.9%"]},
    {"check": "training_stable", "name": "CV just over 5%", "facts": train(CV_51), "status": "FAIL", "contains": ["CV 5.1%", CAUSE]},
    {"check": "training_stable", "name": "the worst rank's CV", "facts": train({0: STEADY + [100.0], 1: CV_51}), "status": "FAIL",
     "contains": ["CV 5.1% (rank 1)"]},
    {"check": "training_stable", "name": "a looser CV limit", "facts": train(CV_51), "expect": {"pyramid_train_max_cv": 0.06}, "status": "PASS"},
    {"check": "training_stable", "name": "warm-up steps are not judged", "facts": train([900.0] * 5 + [100.0] * 3), "status": "PASS",
     "contains": ["median step 100.0 ms"]},
    {"check": "training_stable", "name": "2 steps after warm-up", "facts": train([100.0] * 7), "status": "ERROR",
     "contains": ["fewer than 3 steps after warm-up: raise pyramid_train_steps"]},
    {"check": "training_stable", "name": "a longer warm-up", "facts": train([900.0] * 7 + [100.0] * 3), "expect": {"pyramid_train_warmup_steps": 7},
     "status": "PASS", "contains": ["median step 100.0 ms"]},
    {"check": "training_stable", "name": "one rank short of steps", "facts": train({0: STEADY, 1: [100.0] * 7}), "status": "ERROR",
     "contains": ["fewer than 3 steps"]},
    {"check": "training_stable", "name": "a real log cut at half with exit 0", "raw": {"training_node": CUT_AT_HALF},
     "expect": {"pyramid_gpus_per_node": 2, "pyramid_train_steps": 12, "pyramid_train_warmup_steps": 2}, "status": "ERROR",
     "contains": ["training log incomplete with exit code 0", "rank 0 reported 6 of 12 steps (last 6)", "cut short"]},
    {"check": "training_stable", "name": "one rank's log where the inventory promises two GPUs",
     "raw": {"training_node": fixture("training_log", "pyramid_h100_1gpu_run01_real")}, "expect": {"pyramid_gpus_per_node": 2},
     "status": "ERROR", "contains": ["1 rank in the log where 2 ranks ran (pyramid_gpus_per_node)"]},
    {"check": "training_stable", "name": "your own command's log with no total and no declared step count", "raw": {"training_node": CUT_AT_HALF},
     "expect": {"pyramid_gpus_per_node": 2, "pyramid_train_warmup_steps": 2, "pyramid_train_command": OWN}, "status": "ERROR",
     "contains": ["no step count declared for your own command: cannot tell a cut log", "declare pyramid_train_command_steps"]},
    {"check": "training_stable", "name": "your own command's log with every declared step",
     "raw": {"training_node": fixture("training_log", "pyramid_h200_x2_real")},
     "expect": {"pyramid_gpus_per_node": 2, "pyramid_train_warmup_steps": 2, "pyramid_train_command": OWN, "pyramid_train_command_steps": 12},
     "status": "PASS", "contains": ["over 2 ranks"]},
    {"check": "training_stable", "name": "your own command's log cut at half with exit 0", "raw": {"training_node": CUT_AT_HALF},
     "expect": {"pyramid_gpus_per_node": 2, "pyramid_train_warmup_steps": 2, "pyramid_train_command": OWN, "pyramid_train_command_steps": 12},
     "status": "ERROR", "contains": ["training log incomplete with exit code 0", "rank 0 reported 6 of 12 steps (last 6; pyramid_train_command_steps)",
                                     "cut short"]},
    {"check": "training_stable", "name": "NaN loss after 3 steps", "raw": {"training_node": fixture("training_log", "pyramid_nan_loss")},
     "status": "ERROR", "contains": ["fewer than 3 steps"]},
    {"check": "training_stable", "name": "forward time of one rank just over 1/0.9",
     "facts": train({0: STEADY, 1: STEADY, 2: STEADY}, ranks=(0, 1, 2), fwd={0: 100.0, 1: 100.0, 2: 111.2}), "status": "FAIL",
     "contains": ["slow rank: rank 2 forward median 111.2 ms (median of ranks 100.0)", CAUSE]},
    {"check": "training_stable", "name": "forward time of one rank just under 1/0.9",
     "facts": train({0: STEADY, 1: STEADY, 2: STEADY}, ranks=(0, 1, 2), fwd={0: 100.0, 1: 100.0, 2: 111.0}), "status": "PASS"},
    {"check": "training_stable", "name": "step time of one rank, no forward times",
     "facts": train({0: STEADY, 1: STEADY, 2: [112.0] * 10}, ranks=(0, 1, 2)), "status": "FAIL",
     "contains": ["slow rank: rank 2 step median 112.0 ms (median of ranks 100.0)"]},
    {"check": "training_stable", "name": "a stricter straggler ratio", "facts": train({0: STEADY, 1: STEADY, 2: [105.0] * 10}, ranks=(0, 1, 2)),
     "expect": {"pyramid_straggler_ratio": 0.96}, "status": "FAIL", "contains": ["rank 2 step median 105.0 ms"]},
    {"check": "training_stable", "name": "a single rank without a rank number", "facts": {"training_node": {
        "format": "pyramid", "timeouts": [], "steps": [dict(step, rank=None) for step in steps(STEADY)]}}, "status": "PASS",
     "contains": ["(rank 0)", "over 1 rank"]},
    {"check": "training_stable", "name": "Megatron-LM run to its --train-iters", "raw": {"training_node": fixture("training_log", "megatron_run_end_real")},
     "expect": {"pyramid_train_command": OWN}, "status": "PASS", "contains": ["(Megatron-LM log)", "median iteration 33783.9 ms"]},
    {"check": "training_stable", "name": "a Megatron-LM excerpt: iteration 185 of 250000, exit 0",
     "raw": {"training_node": fixture("training_log", "megatron_gpt_real")}, "expect": {"pyramid_train_max_cv": 0.5, "pyramid_train_command": OWN},
     "status": "ERROR", "contains": ["Megatron-LM's log stops at iteration 185 of 250000 (--train-iters), with no line of its own", "cut short"]},
    {"check": "training_stable", "name": "Megatron-LM stopped by --exit-interval",
     "facts": megatron(range(1, 21), 100, exit_line="exiting program at iteration 20", exit_iteration=20),
     "expect": {"pyramid_train_command": OWN}, "status": "PASS"},
    {"check": "training_stable", "name": "Megatron-LM's exit line names an iteration its log does not reach",
     "facts": megatron(range(1, 11), 100, exit_line="exiting program at iteration 20", exit_iteration=20),
     "expect": {"pyramid_train_command": OWN}, "status": "ERROR",
     "contains": ["stops at iteration 10, before the iteration 20 its own line names"]},
    {"check": "training_stable", "name": "Megatron-LM every 10 iterations, 105 planned: 100 is its last log",
     "facts": megatron([1] + list(range(10, 101, 10)), 105), "expect": {"pyramid_train_command": OWN}, "status": "PASS"},
    {"check": "training_stable", "name": "Megatron-LM every 10 iterations, cut at 60 of 100",
     "facts": megatron([1] + list(range(10, 61, 10)), 100), "expect": {"pyramid_train_command": OWN}, "status": "ERROR",
     "contains": ["stops at iteration 60 of 100 (--train-iters)"]},
    {"check": "training_stable", "name": "Megatron-LM, a count declared beyond its lines",
     "facts": megatron(range(1, 21), 20), "expect": {"pyramid_train_command": OWN, "pyramid_train_command_steps": 30}, "status": "ERROR",
     "contains": ["the log reported 20 of 30 steps (last 20; pyramid_train_command_steps)"]},
    {"check": "training_stable", "name": "Megatron-LM, unsteady", "facts": megatron(range(1, 12), 11, times=CV_51), "status": "FAIL",
     "contains": ["CV 5.1%, median iteration 100.0 ms (Megatron-LM log)"]},
    {"check": "training_stable", "name": "baseline +10% passes", "facts": train([110.0] * 10), "expect": {"pyramid_train_step_ms_baseline": 100.0},
     "status": "PASS", "contains": ["median step 110.0 ms"]},
    {"check": "training_stable", "name": "baseline +10.5% fails", "facts": train([110.5] * 10), "expect": {"pyramid_train_step_ms_baseline": 100.0},
     "status": "FAIL", "contains": ["median step 110.5 ms over 2 ranks: 10% slower than the baseline 100.0 ms", "within 10% of the baseline 100.0 ms",
                                    "Slower than this pod's baseline"]},
    {"check": "training_stable", "name": "baseline with a wider tolerance", "facts": train([119.0] * 10),
     "expect": {"pyramid_train_step_ms_baseline": 100.0, "pyramid_train_baseline_tolerance": 0.2}, "status": "PASS"},
    {"check": "training_stable", "name": "faster than the baseline", "facts": train([50.0] * 10), "expect": {"pyramid_train_step_ms_baseline": 100.0},
     "status": "PASS"},
    {"check": "training_stable", "name": "NCCL watchdog timeout", "raw": {"training_node": fixture("training_log", "pyramid_h200_x2_watchdog_timeout_real")},
     "status": "FAIL", "contains": ["NCCL timeout: [Rank 0] Watchdog caught collective operation timeout", "one rank stopped answering"]},
    {"check": "training_stable", "name": "hang before the first step", "raw": {"training_node": fixture("training_log", "hang_before_first_step")},
     "status": "FAIL", "contains": ["NCCL timeout:"]},
    {"check": "training_stable", "name": "Timed out, any case", "facts": train(timeouts=["socket Timed Out on rank 3"]), "status": "FAIL",
     "contains": ["NCCL timeout: socket Timed Out on rank 3"]},
    {"check": "training_stable", "name": "a warning that is no timeout", "facts": train(timeouts=["NCCL WARN Call to connect returned Connection refused"]),
     "status": "PASS"},
    {"check": "training_stable", "name": "crashed after step 10", "facts": train(exit_code=1), "status": "FAIL",
     "contains": ["training exited 1 after step 10", "Training run crashed"]},
    {"check": "training_stable", "name": "crashed before any step", "facts": train((), exit_code=1), "status": "FAIL",
     "contains": ["training exited 1 after step 0"]},
    {"check": "training_stable", "name": "killed at the timeout", "facts": {"training_node": hang(command=TRAIN_CMD)}, "status": "FAIL",
     "contains": ["hung: no finish within 900s", "NCCL timeout or hang in the training step"]},
    {"check": "training_stable", "name": "a shorter timeout", "facts": {"training_node": hang(command=TRAIN_CMD)}, "expect": {"pyramid_train_timeout": 300},
     "status": "FAIL", "contains": ["no finish within 300s"]},
    {"check": "training_stable", "name": "a traceback and no step", "raw": {"training_node": fixture("training_log", "traceback_no_steps")},
     "status": "ERROR", "contains": ["no step lines"]},
    {"check": "training_stable", "name": "torchrun not installed", "facts": {"training_node": failed("torchrun", "torchrun: command not found", "missing")},
     "status": "ERROR", "contains": ["torchrun: command not found"]},
]

DATA += [
    # --- a long list is cut after 8 findings
    {"check": "nccl_correct", "name": "wrong at 5 sizes: 8 named and 2 more",
     "facts": {"nccl_node": nccl(*[nccl_row(1 << size, 1.0, oop_wrong=size, ip_wrong=size) for size in range(20, 25)])}, "status": "FAIL",
     "contains": ["8388608 B in-place: 23 wrong; and 2 more"]},
]

DATA += [
    # --- exact boundaries and the rarer inputs
    {"check": "training_stable", "name": "CV exactly at the limit fails", "facts": train(AT_5), "expect": {"pyramid_train_max_cv": robust_cv(AT_5[5:])},
     "status": "FAIL", "contains": ["CV 5.0%"]},
    {"check": "training_stable", "name": "exactly the baseline's tolerance passes", "facts": train([125.0] * 10),
     "expect": {"pyramid_train_step_ms_baseline": 100.0, "pyramid_train_baseline_tolerance": 0.25}, "status": "PASS"},
    {"check": "training_stable", "name": "a long timeout line is cut at 300 characters", "facts": train(timeouts=["NCCL timeout " + "x" * 400]),
     "status": "FAIL", "contains": ["NCCL timeout: NCCL timeout xxx"]},
    {"check": "nccl_node_busbw", "name": "a pod uniformly at 0 GB/s", "facts": busbw_pod(0.0, 0.0, 0.0), "status": everyone("FAIL"),
     "contains": everyone(["nothing moved: 0.0 GB/s"])},
]

DATA += [
    {"check": "nccl_completes", "name": "two ranks where one GPU is promised", "facts": {"nccl_node": nccl(gpus=2)},
     "expect": {"pyramid_gpus_per_node": 1}, "status": "FAIL", "contains": ["2 ranks ran where the inventory promises 1 GPU"]},
    {"check": "nccl_node_busbw", "name": "a pod at 0.5 GB/s moved something", "facts": busbw_pod(0.5, 0.5, 0.5), "status": everyone("PASS"),
     "contains": everyone(["0.5 GB/s (100% of median)"])},
]

DATA += [
    {"check": "training_stable", "name": "a rank exactly at 1/0.8 of the median passes",
     "facts": train({0: STEADY, 1: STEADY, 2: [125.0] * 10}, ranks=(0, 1, 2)),
     "expect": {"pyramid_straggler_ratio": 0.8}, "status": "PASS"},
]


as_asked(DATA)
