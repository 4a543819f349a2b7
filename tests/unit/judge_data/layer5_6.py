"""Layer 5 and 6 judges as a data table (NCCL all-reduce, a training run), run by test_judge_data.py.

On one host: nccl_completes, nccl_correct, nccl_node_busbw (pod) and training_stable. Across a
group of nodes (fabric checks, judged as the straggler hunt does): nccl_pairs / nccl_scale
(nccl_group) and training_pod (training_group); their rows name the "group" and the nodes the
verdict "blamed" (its by_host).

Rows built on tests/unit/parsers/nccl_tests and training_log fixtures use real outputs; rows with
facts put each threshold just inside and just outside: the straggler ratio (0.9 of the pod median),
the expected figure's tolerance (0.15), the CV limit (5%), the warm-up, and the baseline (+10%).
"""

import collections
import re

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.workload import robust_cv
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.layer0 import CAUSE, fixture, failed

HOSTS = ("node-001", "node-002", "node-003")
PAIR = ["node-001", "node-002"]
DGX_RAILS = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]  # the nccl_tests fixtures' DGX
RAILS = ["mlx5_%d" % index for index in range(8)]  # pyramid_rails by default
GIB = 1 << 30
LAST = 8 * GIB
SLOW_CAUSE = "Node busbw under the platform's expected figure"
NCCL_CMD = "all_reduce_perf -b 8 -e 4G -f 2 -g 8"
TRAIN_CMD = "torchrun --standalone train_step.py"


def nccl_row(size, busbw, ip_busbw=None, oop_wrong=0, ip_wrong=0, algbw=None, ip_algbw=None):
    ip_busbw = busbw if ip_busbw is None else ip_busbw
    algbw = busbw if algbw is None else algbw
    return {"size": size, "count": size // 4, "type": "float", "redop": "sum", "oop_time_us": 100.0, "oop_algbw": algbw,
            "oop_busbw": busbw, "oop_wrong": oop_wrong, "ip_time_us": 100.0, "ip_algbw": algbw if ip_algbw is None else ip_algbw,
            "ip_busbw": ip_busbw, "ip_wrong": ip_wrong}


def nccl(*rows, hosts=("node-001",), gpus=8, oob=0, network="IB", nics=None, gdr=True, warnings=()):
    """nccl_tests facts: rows (default: 1 MiB and 8 GiB at 400 GB/s), gpus ranks on each host, NCCL_DEBUG lines."""
    rows = list(rows) or [nccl_row(1 << 20, 20.0), nccl_row(LAST, 400.0)]
    nics_by_host = {host: list(RAILS if nics is None else nics.get(host, RAILS)) for host in hosts}
    gdr_by_host = {host: gdr if not isinstance(gdr, dict) else gdr.get(host, True) for host in hosts}
    on = [host for host in hosts for device in range(gpus)]
    return {"ranks": [{"rank": index, "host": host, "device": index % gpus} for index, host in enumerate(on)],
            "rows": rows, "out_of_bounds": oob,
            "nccl": {"version": "2.21.5", "network": network, "nics": list(RAILS), "nics_by_host": nics_by_host, "gdr": True,
                     "gdr_evidence": None, "gdr_by_host": gdr_by_host, "transports": [], "warnings": list(warnings)}}


def hang(ranks=(), sizes=(), command=NCCL_CMD):
    """A run killed at the timeout: the ranks (rank, host) and sizes its output still showed."""
    partial = {"ranks": [{"rank": rank, "host": host, "device": rank} for rank, host in ranks], "sizes_done": list(sizes)}
    return SourceFailure(command, "did not finish within 900s (hung?)", "timeout", partial=partial if ranks or sizes else None)


def peak(busbw, ip_busbw=None):
    return {"nccl_node": nccl(nccl_row(1 << 20, 20.0), nccl_row(LAST, busbw, ip_busbw))}


def busbw_pod(*peaks):
    return {host: peak(*value) if isinstance(value, tuple) else peak(value) for host, value in zip(HOSTS, peaks)}


def everyone(status):
    return {host: status for host in HOSTS}


def steps(times, ranks=(0,), first=1, fwd=None, hosts=None):
    """training_log steps: step i (from `first`) of each rank takes times[i] ms (a per-rank list when a dict)."""
    out = []
    for rank in ranks:
        own = times[rank] if isinstance(times, dict) else times
        for index, value in enumerate(own):
            step = {"step": first + index, "rank": rank, "step_time_ms": value, "fwd_ms": None if fwd is None else fwd.get(rank, value / 3),
                    "loss": 1.0}
            if hosts:
                step["host"] = hosts[rank]
            out.append(step)
    return out


def train(times=(100.0,) * 10, ranks=(0, 1), timeouts=(), exit_code=None, fmt="pyramid", **keywords):
    facts = {"format": fmt, "timeouts": list(timeouts), "steps": steps(list(times) if not isinstance(times, dict) else times, ranks, **keywords)}
    if exit_code is not None:
        facts["exit_code"] = exit_code
    return {"training_node": facts}


def fabric_train(times, hosts, **keywords):
    """A training run across nodes: rank r on hosts[r]."""
    return {"training_fabric": train(times, ranks=tuple(range(len(hosts))), hosts=list(hosts), **keywords)["training_node"]}


STEADY = [100.0] * 10
# after 5 warm-up steps, the robust CV (1.4826 MAD / median) of [100-d, 100+d] alternating is 1.4826 d / 100:
# d 3.3 gives 4.9%, d 3.44 gives 5.1%
CV_49 = [100.0] * 5 + [96.7, 103.3] * 3
CV_51 = [100.0] * 5 + [96.56, 103.44] * 3
AT_5 = [100.0] * 5 + [96.6, 103.4] * 3  # 5.04%: a limit set to exactly its CV
EIGHT_TABLE = {"pyramid_nccl_expected": {str(LAST): 400}}


def _cut_at_half(case):
    """A real two-rank log of 12 steps cut, at a line boundary, after both ranks' step 6 (its second half lost)."""
    parser, text = fixture("training_log", case)
    kept = []
    for line in text.splitlines(keepends=True):
        if "step=7 " in line:
            break
        kept.append(line)
    return parser, "".join(kept)


CUT_AT_HALF = _cut_at_half("pyramid_h200_x2_real")
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


SHARP_EXPECT = {"pyramid_rails": DGX_RAILS, "pyramid_nccl_sharp": True, "pyramid_rdma_link_layer": "infiniband"}


def with_sharp(**lines_by_host):
    """The real 2-node run (h100_2node_ib_8nics_gdrdma, NCCL 2.21.5) with CollNet lines after each node's version line,
    in the formats of tests/unit/parsers/nccl_debug/sharp_*: "asked" (NCCL_COLLNET_ENABLE=1), "channel" (CollNet
    channels, printed before the setup check), "connected" (NCCL 2.21's lines after it), "refused" (the plugin's error
    and NCCL's fallback, NVIDIA/nccl-tests#311)."""
    texts = {"asked": "NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.",
             "channel": "NCCL INFO CollNet 00/0 : {rank} [receive] via COLLNET/SHARP/0/GDRDMA",
             "connected": "NCCL INFO Connected collnet + chain\n{prefix} NCCL INFO rank {rank} Connected CollNet comm "
                          "0x5581c0e4a3b0 nRanks 16",
             "refused": "sharp_plugin.c:365 NCCL WARN NET/IB : SHARP coll init error: Cannot create SHARP job(-11)\n"
                        "{prefix} transport.cc:384 NCCL WARN Cannot initialize CollNet, using point-to-point network instead"}
    parser, text = fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")
    for host, kinds in lines_by_host.items():
        host, pid, rank = host.replace("_", "-"), {"node_001": 23100, "node_002": 23108}[host], {"node_001": 0, "node_002": 8}[host]
        prefix = "%s:%d:%d [0]" % (host, pid, pid + 40)
        version = "%s:%d:%d [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n" % (host, pid, pid)
        added = "".join("%s %s\n" % (prefix, texts[kind].format(prefix=prefix, rank=rank)) for kind in kinds)
        text = text.replace(version, version + added, 1)
    return parser, text


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

    # --- nccl_alltoall_pod (fabric): busbw at the largest size >= 64 MiB at least 70% of the NIC-bound ceiling
    # (8 x 400G over 8 GPUs: 50 GB/s a GPU; 16 ranks on a pair: 50 x 15/8 = 93.75, floor 65.625), x the bisection
    # across scalable units; in-place #wrong N/A is nccl-tests' own for alltoall
    {"check": "nccl_alltoall_pod", "name": "a pair at 70% of its ceiling, in-place not validated (alltoall_perf's N/A)",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(1 << 20, 5.0, ip_wrong=None), nccl_row(4 * GIB, 65.7, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "PASS", "contains": ["4 GiB busbw 65.7 GB/s; 8 rails, GDRDMA on 2 nodes", "at least 65.6 GB/s"]},
    {"check": "nccl_alltoall_pod", "name": "a pair just under 70%",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 65.5, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["4 GiB busbw 65.5 GB/s < 65.6", "below the fabric's floor"]},
    {"check": "nccl_alltoall_pod", "name": "across two units of a 2:1 spine layer, half the floor holds",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 33.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "units": {"node-001": "su1", "node-002": "su2"}, "expect": {"pyramid_fabric_bisection": 0.5},
     "status": "PASS",
     "contains": ["2 scalable units", "at least 32.8 GB/s", "x 0.50: 100% of a node's traffic crosses the spine layer, whose bisection is 0.5"]},
    {"check": "nccl_alltoall_pod", "name": "in-place not validated and far better than out-of-place: out-of-place judged",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 20.0, 99.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["4 GiB busbw 20.0 GB/s < 65.6"]},
    {"check": "nccl_alltoall_pod", "name": "a 1% short size from nccl-tests' per-rank rounding is judged",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row((64 << 20) - 96, 70.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "PASS", "contains": ["busbw 70.0 GB/s"]},
    {"check": "nccl_alltoall_pod", "name": "out-of-bounds values are wrong results",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 80.0, ip_wrong=None), hosts=PAIR, oob=12)},
     "group": PAIR, "status": "FAIL", "contains": ["12 out-of-bounds values", "Wrong all-to-all results"]},
    {"check": "nccl_alltoall_pod", "name": "the largest size is 32 MiB: not judged",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(32 << 20, 80.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "ERROR", "contains": ["no size of 64 MiB or more was measured: widen -e"]},
    {"check": "nccl_alltoall_pod", "name": "out-of-place not validated either",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 80.0, oop_wrong=None, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "ERROR", "contains": ["results not validated (#wrong N/A)"]},
    {"check": "nccl_alltoall_pod", "name": "node-002 without GDRDMA", "blamed": ["node-002"],
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 40.0, ip_wrong=None), hosts=PAIR, gdr={"node-002": False})},
     "group": PAIR, "status": "FAIL", "contains": ["node-002: network channels without GDRDMA", "GPUDirect RDMA off on this node"]},
    {"check": "nccl_alltoall_pod", "name": "wrong results out-of-place",
     "facts": {"nccl_fabric_alltoall": nccl(nccl_row(4 * GIB, 80.0, oop_wrong=3, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["wrong results at 4 GiB", "Wrong all-to-all results across nodes"]},
    {"check": "nccl_alltoall_pod", "name": "hung, node-002 silent",
     "facts": {"nccl_fabric_alltoall": hang([(0, "node-001")], command="alltoall_perf -b 8 -e 4G -f 2 -g 1")}, "group": PAIR,
     "status": "FAIL", "contains": ["nodes whose ranks never reported: node-002", "NCCL hang in the all-to-all across the pod"]},
    {"check": "nccl_alltoall_pod", "name": "mpirun not installed",
     "facts": {"nccl_fabric_alltoall": failed("mpirun", "mpirun: command not found", "missing")},
     "group": PAIR, "status": "ERROR", "contains": ["mpirun: command not found"]},

    # --- nccl_all_gather_pod / nccl_reduce_scatter_pod (fabric): hang, #wrong, rails and GDRDMA as for all-reduce; busbw
    # judged only against pyramid_nccl_pod_collective_busbw (never all-reduce's figure: NVIDIA/nccl#1218), with the
    # gather collectives' algbw = busbw x n/(n-1)
    {"check": "nccl_all_gather_pod", "name": "no declared figure: correct, every rail, GDRDMA; busbw said, not judged",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(1 << 20, 20.0), nccl_row(4 * GIB, 180.0, algbw=192.0), hosts=PAIR)},
     "group": PAIR, "status": "PASS",
     "contains": ["4 GiB busbw 180.0 algbw 192.0 GB/s (busbw not judged: no pyramid_nccl_pod_collective_busbw[all_gather])",
                  "8 rails, GDRDMA on 2 nodes", "judged only against pyramid_nccl_pod_collective_busbw[all_gather]"]},
    {"check": "nccl_all_gather_pod", "name": "a declared figure met, algbw held to busbw x 16/15",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 300.0, algbw=320.0), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_pod_collective_busbw": {"all_gather": {str(4 * GIB): 340}}}, "status": "PASS",
     "contains": ["within 15% of pyramid_nccl_pod_collective_busbw[all_gather] (4 GiB 340 GB/s)"]},
    {"check": "nccl_all_gather_pod", "name": "busbw met but algbw short of busbw x 16/15: slow",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 300.0, algbw=300.0), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_pod_collective_busbw": {"all_gather": {str(4 * GIB): 340}}}, "status": "FAIL",
     "contains": ["algbw 300.0 < 308.3 GB/s", "All-gather across the pod below its declared figure"]},
    {"check": "nccl_reduce_scatter_pod", "name": "below the declared figure",
     "facts": {"nccl_fabric_reduce_scatter": nccl(nccl_row(4 * GIB, 150.0, algbw=160.0), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_pod_collective_busbw": {"reduce_scatter": {str(4 * GIB): 200}}}, "status": "FAIL",
     "contains": ["4 GiB busbw 150.0 < 170.0", "Reduce-scatter across the pod below its declared figure"]},
    {"check": "nccl_reduce_scatter_pod", "name": "another collective's figure is not this one's: said, not judged",
     "facts": {"nccl_fabric_reduce_scatter": nccl(nccl_row(4 * GIB, 150.0, algbw=160.0), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_pod_collective_busbw": {"all_gather": {str(4 * GIB): 200}}}, "status": "PASS",
     "contains": ["busbw not judged: no pyramid_nccl_pod_collective_busbw[reduce_scatter]"]},
    {"check": "nccl_reduce_scatter_pod", "name": "wrong results in-place",
     "facts": {"nccl_fabric_reduce_scatter": nccl(nccl_row(4 * GIB, 180.0, ip_wrong=12), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["wrong results at 4 GiB", "Wrong reduce-scatter results across nodes"]},
    {"check": "nccl_reduce_scatter_pod", "name": "#wrong N/A: not validated, never a pass",
     "facts": {"nccl_fabric_reduce_scatter": nccl(nccl_row(4 * GIB, 180.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "status": "ERROR", "contains": ["results not validated (#wrong N/A)"]},
    {"check": "nccl_all_gather_pod", "name": "node-002 without GDRDMA", "blamed": ["node-002"],
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 90.0), hosts=PAIR, gdr={"node-002": False})},
     "group": PAIR, "status": "FAIL", "contains": ["node-002: network channels without GDRDMA", "GPUDirect RDMA off on this node"]},
    {"check": "nccl_all_gather_pod", "name": "wrong results and node-002 without GDRDMA: no node is cleared on its strength",
     "blamed": [], "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 90.0, oop_wrong=5), hosts=PAIR, gdr={"node-002": False})},
     "group": PAIR, "status": "FAIL", "contains": ["wrong results at 4 GiB", "Wrong all-gather results across nodes"]},
    {"check": "nccl_all_gather_pod", "name": "24 ranks print 4 GiB as 4294967040 (16 bytes a rank): the declared 4 GiB is judged",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB - 16 * 24, 150.0, algbw=156.5), hosts=HOSTS)},
     "group": list(HOSTS), "expect": {"pyramid_nccl_pod_collective_busbw": {"all_gather": {str(4 * GIB): 200}}}, "status": "FAIL",
     "contains": ["at 1 of 1 sizes, 4 GiB busbw 150.0 < 170.0, algbw 156.5 < 177.4 GB/s"]},
    {"check": "nccl_all_gather_pod", "name": "node-001 on two rails of eight", "blamed": ["node-001"],
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 90.0), hosts=PAIR, nics={"node-001": ["mlx5_0", "mlx5_1"]})},
     "group": PAIR, "status": "FAIL", "contains": ["NCCL used fewer NICs than the rails on this node"]},
    {"check": "nccl_all_gather_pod", "name": "hung, node-002 silent",
     "facts": {"nccl_fabric_all_gather": hang([(0, "node-001")], command="all_gather_perf -b 8 -e 4G -f 2 -g 1")}, "group": PAIR,
     "status": "FAIL", "contains": ["nodes whose ranks never reported: node-002", "NCCL hang in the all-gather across the pod"]},
    {"check": "nccl_all_gather_pod", "name": "a 16-rank table with 8 ranks: a hang, not a pass",
     "facts": {"nccl_fabric_all_gather": nccl(nccl_row(4 * GIB, 180.0), hosts=["node-001"])},
     "group": PAIR, "status": "FAIL", "contains": ["8 of 16 ranks joined"]},
    {"check": "nccl_all_gather_pod", "name": "no row at all",
     "facts": {"nccl_fabric_all_gather": dict(nccl(nccl_row(4 * GIB, 180.0), hosts=PAIR), rows=[])},
     "group": PAIR, "status": "ERROR", "contains": ["no size was measured"]},
    {"check": "nccl_reduce_scatter_pod", "name": "srun not installed",
     "facts": {"nccl_fabric_reduce_scatter": failed("srun", "srun: command not found", "missing")},
     "group": PAIR, "status": "ERROR", "contains": ["srun: command not found"]},

    # --- nccl_pairs / nccl_scale (fabric): busbw and algbw within 15% of the table, every rail, GDRDMA, #wrong 0, no hang
    {"check": "nccl_pairs", "name": "8 rails with GDRDMA", "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")},
     "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "PASS", "contains": ["4 GiB busbw", "8 rails, GDRDMA on 2 nodes"]},
    {"check": "nccl_pairs", "name": "SHARP declared, CollNet connected on both nodes (edited: NCCL 2.21's lines added): PASS saying so",
     "raw": {"nccl_fabric": with_sharp(node_001=["asked", "channel", "connected"], node_002=["asked", "channel", "connected"])},
     "group": PAIR, "expect": SHARP_EXPECT, "status": "PASS",
     "contains": ["8 rails, GDRDMA on 2 nodes, SHARP (CollNet connected) on every node", "SHARP in use (CollNet connected) on every node"]},
    {"check": "nccl_pairs", "name": "SHARP declared, the run never asked for it (no NCCL_COLLNET_ENABLE): FAIL on both, saying how to ask",
     "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")},
     "group": PAIR, "expect": SHARP_EXPECT, "status": "FAIL", "blamed": PAIR,
     "contains": ["SHARP declared but not used on node-001, node-002: NCCL was not asked to use it", "NCCL_COLLNET_ENABLE=1 in "
                  "pyramid_nccl_env", "the aggregation manager"]},
    {"check": "nccl_pairs", "name": "SHARP asked for, the aggregation manager refused the job on node-002 (edited: #311's lines): FAIL on both, naming it",
     "raw": {"nccl_fabric": with_sharp(node_001=["asked", "channel"], node_002=["asked", "channel", "refused"])},
     "group": PAIR, "expect": SHARP_EXPECT, "status": "FAIL", "blamed": PAIR,
     "contains": ["SHARP declared but not used on node-001, node-002: node-002: NET/IB : SHARP coll init error: Cannot create SHARP job(-11)"]},
    {"check": "nccl_pairs", "name": "SHARP asked for, CollNet channels printed but only node-001 connected (edited): FAIL blaming node-002",
     "raw": {"nccl_fabric": with_sharp(node_001=["asked", "channel", "connected"], node_002=["asked", "channel"])},
     "group": PAIR, "expect": SHARP_EXPECT, "status": "FAIL", "blamed": ["node-002"],
     "contains": ["SHARP declared but not used on node-002: asked for (NCCL_COLLNET_ENABLE=1) but no 'Connected CollNet' line"]},
    {"check": "nccl_pairs", "name": "GPUDirect off on both", "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_gdr_disabled")},
     "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "FAIL", "blamed": PAIR,
     "contains": ["node-001: network channels without GDRDMA", "GPUDirect RDMA off on this node"]},
    {"check": "nccl_pairs", "name": "NCCL_IB_HCA=mlx5_0", "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_ib_hca_only_mlx5_0")},
     "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "FAIL", "blamed": PAIR,
     "contains": ["node-001 used 1 of 8 rails (mlx5_0)", "NCCL used fewer NICs than the rails"]},
    {"check": "nccl_pairs", "name": "TCP socket fallback", "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_socket_fallback")},
     "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "FAIL", "blamed": PAIR,
     "contains": ["NCCL fell back to TCP sockets (NET/Socket)"]},
    {"check": "nccl_pairs", "name": "wrong results", "raw": {"nccl_fabric": fixture("nccl_tests", "dgx_h100_wrong_elements")},
     "group": ["dgx-a01", "dgx-h01"], "expect": {"pyramid_gpus_per_node": 1}, "status": "FAIL",
     "contains": ["wrong results at 512 KiB, 1 MiB", "Wrong all-reduce results across nodes"]},
    {"check": "nccl_pairs", "name": "no NCCL_DEBUG lines, bandwidth fine",
     "raw": {"nccl_fabric": fixture("nccl_tests", "nccl_tests_2_18_mpirun_two_nodes_real")},
     "group": PAIR, "expect": {"pyramid_nccl_expected": {"8589934592": 35}}, "status": "ERROR",
     "contains": ["no NCCL_DEBUG=INFO network lines: set NCCL_DEBUG=INFO in pyramid_nccl_env"]},
    {"check": "nccl_pairs", "name": "no NCCL_DEBUG lines, slow and a warning", "raw": {"nccl_fabric": fixture("nccl_tests", "warn_inside_row")},
     "group": ["ztan-mig-235z", "ztan-mig-gq73"], "status": "FAIL",
     "contains": ["NCCL WARN: socketStartConnect", "no NCCL_DEBUG=INFO network lines", "Below the expected figure and NCCL warned"]},
    {"check": "nccl_pairs", "name": "hung, node-002 silent", "facts": {"nccl_fabric": hang([(0, "node-001")])}, "group": PAIR, "status": "FAIL",
     "contains": ["did not finish within the timeout (hung); nodes whose ranks never reported: node-002", "NCCL hang across nodes"]},
    {"check": "nccl_pairs", "name": "hung, short names printed", "facts": {"nccl_fabric": hang([(0, "node-001"), (8, "node-002")])},
     "group": ["node-001.pod1.example", "node-002.pod1.example"], "status": "FAIL", "contains": ["every node's ranks started, none finished"]},
    {"check": "nccl_pairs", "name": "mpirun not installed", "facts": {"nccl_fabric": failed("mpirun", "mpirun: command not found", "missing")},
     "group": PAIR, "status": "ERROR", "contains": ["mpirun: command not found"]},
    {"check": "nccl_pairs", "name": "at 85% of the figure", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 340.0, algbw=181.34), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "PASS", "contains": ["8 GiB busbw 340.0 algbw 181.3 GB/s"]},
    {"check": "nccl_pairs", "name": "busbw just under 85%", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 339.9, algbw=181.34), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL",
     "contains": ["below 85% of the expected figure at 1 of 1 sizes, 8 GiB busbw 339.9 < 340.0, algbw 181.3 < 181.3 GB/s",
                  "Below the expected figure with every rail and GPUDirect on"]},
    {"check": "nccl_pairs", "name": "algbw under its share", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 340.0, algbw=181.0), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "contains": ["algbw 181.0 < 181.3 GB/s"]},
    {"check": "nccl_pairs", "name": "in-place is the better side",
     "facts": {"nccl_fabric": nccl(nccl_row(LAST, 300.0, 340.0, algbw=100.0, ip_algbw=181.34), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "PASS"},
    {"check": "nccl_pairs", "name": "platform table, slow at 2 of 3 sizes",
     "facts": {"nccl_fabric": nccl(nccl_row(1 << 20, 50.0, algbw=50.0), nccl_row(GIB, 100.0, algbw=100.0), nccl_row(4 * GIB, 100.0, algbw=100.0), hosts=PAIR)},
     "group": PAIR, "status": "FAIL", "contains": ["at 2 of 3 sizes, 4 GiB busbw 100.0 < 280.5"]},
    {"check": "nccl_pairs", "name": "no size of the table measured", "facts": {"nccl_fabric": nccl(nccl_row(12345, 1.0), hosts=PAIR)}, "group": PAIR,
     "status": "ERROR", "contains": ["no size of the expected table was measured (1 MiB, 64 MiB, 1 GiB, 4 GiB): widen -b/-e"]},
    {"check": "nccl_pairs", "name": "a node printed no NET/IB line", "facts": {"nccl_fabric": dict(nccl(hosts=["node-001"]), ranks=nccl(hosts=PAIR)["ranks"])},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "ERROR", "contains": ["node-002 printed no 'NET/IB : Using' line"]},
    {"check": "nccl_pairs", "name": "GDRDMA unknown on a node",
     "facts": {"nccl_fabric": nccl(hosts=PAIR, gdr={"node-002": None})}, "group": PAIR, "expect": EIGHT_TABLE, "status": "ERROR",
     "contains": ["node-002 printed no network channel (GDRDMA unknown)"]},
    {"check": "nccl_pairs", "name": "GDRDMA off on one node", "facts": {"nccl_fabric": nccl(hosts=PAIR, gdr={"node-002": False})}, "group": PAIR,
     "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-002"], "contains": ["node-002: network channels without GDRDMA"]},
    {"check": "nccl_pairs", "name": "one rail unused on one node", "facts": {"nccl_fabric": nccl(hosts=PAIR, nics={"node-001": RAILS[:7]})},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-001"], "contains": ["node-001 used 7 of 8 rails"]},
    {"check": "nccl_pairs", "name": "a node used no rail", "facts": {"nccl_fabric": nccl(hosts=PAIR, nics={"node-001": []})},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-001"], "contains": ["node-001 used 0 of 8 rails (none)"]},
    {"check": "nccl_pairs", "name": "FQDN inventory names, short names printed", "facts": {"nccl_fabric": nccl(hosts=PAIR, gdr={"node-002": False})},
     "group": ["node-001.pod1.example", "node-002.pod1.example"], "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-002.pod1.example"]},
    {"check": "nccl_pairs", "name": "a node's ranks missing", "facts": {"nccl_fabric": nccl(hosts=PAIR, gpus=4)}, "group": PAIR,
     "expect": EIGHT_TABLE, "status": "FAIL", "contains": ["8 of 16 ranks joined", "NCCL hang across nodes"]},
    {"check": "nccl_pairs", "name": "a hang is named before wrong results",
     "facts": {"nccl_fabric": nccl(nccl_row(LAST, 400.0, oop_wrong=2), hosts=PAIR, gpus=4)}, "group": PAIR, "expect": EIGHT_TABLE,
     "status": "FAIL", "contains": ["8 of 16 ranks joined; wrong results at 8 GiB", "NCCL hang across nodes"]},
    {"check": "nccl_pairs", "name": "results not validated", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 400.0, ip_wrong=None), hosts=PAIR)},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "ERROR", "contains": ["results not validated (#wrong N/A)"]},
    {"check": "nccl_pairs", "name": "a slow run with a warning blames the warning",
     "facts": {"nccl_fabric": nccl(nccl_row(LAST, 100.0), hosts=PAIR, warnings=["NCCL WARN skipping topology file " + "x" * 300])},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "contains": ["NCCL WARN: NCCL WARN skipping topology file", "NCCL warned"]},
    {"check": "nccl_pairs", "name": "a warning on a fast run is no finding",
     "facts": {"nccl_fabric": nccl(hosts=PAIR, warnings=["NCCL WARN skipping topology file"])}, "group": PAIR, "expect": EIGHT_TABLE, "status": "PASS"},
    {"check": "nccl_pairs", "name": "one GPU per node", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 340.0, algbw=340.0), hosts=["node-001"], gpus=1)},
     "group": ["node-001"], "expect": dict(EIGHT_TABLE, pyramid_gpus_per_node=1), "status": "PASS"},
    {"check": "nccl_scale", "name": "4 nodes at the figure",
     "facts": {"nccl_fabric": nccl(nccl_row(LAST, 400.0, algbw=206.5), hosts=list(HOSTS) + ["node-004"])},
     "group": list(HOSTS) + ["node-004"], "expect": EIGHT_TABLE, "status": "PASS", "contains": ["8 GiB busbw 400.0 algbw 206.5 GB/s"]},
    {"check": "nccl_scale", "name": "4 nodes under the figure", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 300.0), hosts=list(HOSTS) + ["node-004"])},
     "group": list(HOSTS) + ["node-004"], "expect": EIGHT_TABLE, "status": "FAIL", "contains": ["spine/ECMP oversubscription"]},
    {"check": "nccl_scale", "name": "hung at scale", "facts": {"nccl_fabric": hang()}, "group": list(HOSTS), "status": "FAIL",
     "contains": ["nodes whose ranks never reported: node-001, node-002, node-003", "NCCL hang at this scale"]},
    {"check": "nccl_scale", "name": "srun failed", "facts": {"nccl_fabric": failed("srun", "srun: error: Unable to allocate resources")},
     "group": list(HOSTS), "expect": {"pyramid_nccl_launcher": "srun"}, "status": "ERROR", "contains": ["Unable to allocate"]},

    # --- training_pod (fabric): training_stable across nodes; a slow rank is traced to its node
    {"check": "training_pod", "name": "two nodes, steady", "facts": fabric_train(STEADY, PAIR), "group": PAIR, "status": "PASS",
     "contains": ["CV 0.0%"]},
    {"check": "training_pod", "name": "real run across two ranks", "raw": {"training_fabric": fixture("training_log", "pyramid_h200_x2_mpirun_torchrun_real")},
     "group": ["vm"], "status": "PASS"},
    {"check": "training_pod", "name": "slow rank on node-003", "facts": fabric_train({0: STEADY, 1: STEADY, 2: [120.0] * 10}, HOSTS), "group": list(HOSTS),
     "status": "FAIL", "blamed": ["node-003"], "contains": ["slow rank: rank 2 (node-003) step median 120.0 ms", "One rank slower than the others"]},
    {"check": "training_pod", "name": "slow rank, node unknown",
     "facts": {"training_fabric": train({0: STEADY, 1: STEADY, 2: [120.0] * 10}, ranks=(0, 1, 2))["training_node"]},
     "group": list(HOSTS), "status": "FAIL", "contains": ["rank 2 (node unknown) step median"]},
    {"check": "training_pod", "name": "NCCL timeout across nodes",
     "facts": fabric_train(STEADY, PAIR, timeouts=["Watchdog caught collective operation timeout"]),
     "group": PAIR, "status": "FAIL", "contains": ["NCCL timeout across nodes"]},
    {"check": "training_pod", "name": "hung across nodes", "facts": {"training_fabric": hang(command=TRAIN_CMD)}, "group": PAIR, "status": "FAIL",
     "contains": ["hung: no finish", "NCCL timeout across nodes"]},
    {"check": "training_pod", "name": "unsteady across nodes", "facts": fabric_train(CV_51, PAIR), "group": PAIR, "status": "FAIL",
     "contains": ["2 nodes:", "Step time varies across nodes"]},
    {"check": "training_pod", "name": "crashed across nodes", "facts": fabric_train(STEADY, PAIR, exit_code=1), "group": PAIR, "status": "FAIL",
     "contains": ["training exited 1", "Step time varies across nodes"]},
    {"check": "training_pod", "name": "too few steps", "facts": fabric_train([100.0] * 6, PAIR), "group": PAIR, "status": "ERROR",
     "contains": ["fewer than 3 steps"]},
    {"check": "training_pod", "name": "a real log cut at half with exit 0", "raw": {"training_fabric": CUT_AT_HALF}, "group": ["vm"],
     "expect": {"pyramid_gpus_per_node": 2, "pyramid_train_steps": 12, "pyramid_train_warmup_steps": 2}, "status": "ERROR",
     "contains": ["training log incomplete with exit code 0", "rank 0 reported 6 of 12 steps (last 6)", "cut short"]},
    {"check": "training_pod", "name": "two nodes, a rank's last steps missing with exit 0",
     "facts": fabric_train({0: STEADY, 1: [100.0] * 8}, PAIR), "group": PAIR, "expect": {"pyramid_train_steps": 10},
     "status": "ERROR", "contains": ["rank 1 reported 8 of 10 steps (last 8)", "The training log is not complete"]},
    {"check": "training_pod", "name": "two nodes, a node's second GPU missing from the log",
     "facts": fabric_train(STEADY, PAIR), "group": PAIR, "expect": {"pyramid_gpus_per_node": 2},
     "status": "ERROR", "contains": ["2 ranks in the log where 4 ranks ran (pyramid_gpus_per_node on each of 2 nodes)"]},
    {"check": "training_pod", "name": "launcher failed", "facts": {"training_fabric": failed("mpirun", "mpirun: command not found", "missing")},
     "group": PAIR, "status": "ERROR", "contains": ["mpirun: command not found"]},
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
    {"check": "nccl_pairs", "name": "a size that is no whole KiB", "facts": {"nccl_fabric": nccl(nccl_row(1536, 10.0, algbw=5.34), hosts=PAIR)},
     "group": PAIR, "expect": {"pyramid_nccl_expected": {"1536": 10}}, "status": "PASS", "contains": ["1536 B busbw 10.0 algbw 5.3 GB/s", "(1536 B 10 GB/s)"]},
    {"check": "nccl_pairs", "name": "rails printed, no network channel at all",
     "facts": {"nccl_fabric": dict(nccl(hosts=PAIR), nccl=dict(nccl(hosts=PAIR)["nccl"], gdr_by_host={}))}, "group": PAIR, "expect": EIGHT_TABLE,
     "status": "ERROR", "contains": ["node-001 printed no network channel (GDRDMA unknown); node-002 printed no network channel"]},
    {"check": "nccl_pairs", "name": "channels printed, no NET/IB line",
     "facts": {"nccl_fabric": dict(nccl(hosts=PAIR), nccl=dict(nccl(hosts=PAIR)["nccl"], nics_by_host={}))},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "ERROR", "contains": ["node-001 printed no 'NET/IB : Using' line"]},
    {"check": "nccl_pairs", "name": "no NCCL facts at all", "facts": {"nccl_fabric": dict(nccl(hosts=PAIR), nccl=None)}, "group": PAIR,
     "expect": EIGHT_TABLE, "status": "ERROR", "contains": ["no NCCL_DEBUG=INFO network lines"]},
]
DATA += [
    {"check": "nccl_pairs", "name": "FQDN printed, short inventory names",
     "facts": {"nccl_fabric": nccl(hosts=["node-001.pod1.example", "node-002.pod1.example"], gdr={"node-002.pod1.example": False})},
     "group": PAIR, "expect": EIGHT_TABLE, "status": "FAIL", "blamed": ["node-002"], "contains": ["node-002: network channels without GDRDMA"]},
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


def as_asked(rows):
    """training_stable and training_pod rows of the built-in step judge the run they show as a whole one:
    the inventory asks for its ranks and steps (pyramid_gpus_per_node on each node, pyramid_train_steps:
    the built-in's log must hold every rank's every step), unless the row sets them itself to judge a log
    that lost some."""
    sources = {"training_stable": "training_node", "training_pod": "training_fabric"}
    for row in rows:
        if row["check"] not in sources:
            continue
        source = sources[row["check"]]
        run = (row.get("facts") or {}).get(source)
        if source in (row.get("raw") or {}):
            try:
                run = parsing.parse("training_log", row["raw"][source][1])
            except parsing.ParseError:
                continue
        if not isinstance(run, dict) or run.get("format") != "pyramid" or not run["steps"]:
            continue
        expect = row.setdefault("expect", {})
        ranks_by_node = collections.Counter(host for host, _rank in {(step.get("host"), step["rank"]) for step in run["steps"]})
        expect.setdefault("pyramid_gpus_per_node", max(ranks_by_node.values()))
        expect.setdefault("pyramid_train_steps", max(4, max(step["step"] for step in run["steps"])))
    return rows


as_asked(DATA)
