# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 5 and 6 judges on one host: NCCL all-reduce (nccl-tests) and a training run."""

from __future__ import annotations

import collections
import functools
import math
import statistics

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, percent, verdict
from .registry import judge, summary as _summary


# --- Layer 5: NCCL ------------------------------------------------------------------------

def _ranks_text(ranks):
    by_host = collections.OrderedDict()
    for rank, host in ranks:
        by_host.setdefault(host, []).append(rank)
    return "; ".join("ranks %s on %s" % (",".join(r), h) for h, r in by_host.items())


# The node's nccl-tests tables (Layer 5, round 1): all_reduce_perf's, and the other collectives' (nccl_node_<op>)
COLLECTIVES = {"nccl_node": "all-reduce", "nccl_node_all_gather": "all-gather", "nccl_node_reduce_scatter": "reduce-scatter",
               "nccl_node_alltoall": "all-to-all", "nccl_node_sendrecv": "send/recv"}
# the expected figures of each collective's busbw: all-reduce's own variable (baseline.yml writes it), the others' by name
COLLECTIVE_FIGURES = {"nccl_node_all_gather": "all_gather", "nccl_node_reduce_scatter": "reduce_scatter",
                      "nccl_node_alltoall": "alltoall", "nccl_node_sendrecv": "sendrecv"}


def _table_source(facts):
    """The check's nccl-tests source (each check reads one of COLLECTIVES, beside gpus_found)."""
    return next(name for name in COLLECTIVES if name in facts)


def _expected_figures(source, expect):
    """{size: GB/s} the inventory expects of this collective on one node (empty: the pod median alone judges)."""
    if source == "nccl_node":
        return expect["pyramid_nccl_node_busbw"] or {}
    return (expect["pyramid_nccl_collective_busbw"] or {}).get(COLLECTIVE_FIGURES[source]) or {}


def _unmeasurable(run, expected, expect):
    """A verdict when the run's ranks cannot measure the node's collective, else None.

    A collective of one rank moves nothing (busbw 0, "0 wrong" by construction): it never PASSes. With
    one GPU per node promised it is SKIP saying so; with more promised, fewer ranks than GPUs is a FAIL.
    """
    ranks, want = len(run["ranks"]), expect["pyramid_gpus_per_node"]
    if ranks >= 2 and ranks == want:
        return None
    if want < 2 and ranks < 2:
        return verdict(SKIP, expected, "one GPU per node (pyramid_gpus_per_node %d): a collective needs at least 2 ranks, "
                       "so nothing was measured on this node alone" % want)
    return verdict(FAIL, expected, "%s ran where the inventory promises %s" % (counted(ranks, "rank"), counted(want, "GPU")),
                   cause="GPUs missing from the run: a GPU not visible to CUDA (driver, Xid, CUDA_VISIBLE_DEVICES) or the wrong GPU count in the inventory")


@judge("nccl_completes")
def nccl_completes(facts, expect):  # an exit 1 with a full table is nccl-tests' wrong-results code: nccl_correct's finding
    source = _table_source(facts)
    run = facts[source]
    expected = "%s %s..%s completes within %ds" % (
        COLLECTIVES[source], expect["pyramid_nccl_min_bytes"], expect["pyramid_nccl_max_bytes"], expect["pyramid_nccl_timeout"])
    if isinstance(run, SourceFailure):
        if run.status != "timeout":
            return _failed_run(run, expected, facts, expect)
        seen = run.partial or {"ranks": [], "sizes_done": []}
        ranks = [(str(rank["rank"]), rank["host"]) for rank in seen["ranks"]]
        sizes = seen["sizes_done"]
        return verdict(FAIL, expected, "hung: %s never finished; last size completed: %s" % (
            _ranks_text(ranks) or "no rank reported in", "%d B" % sizes[-1] if sizes else "none"))
    return _unmeasurable(run, expected, expect) or verdict(PASS, expected, "%s up to %d B on %s" % (
        counted(len(run["rows"]), "size"), max(row["size"] for row in run["rows"]), counted(len(run["ranks"]), "rank")))


@judge("nccl_correct")
def nccl_correct(facts, expect):
    run = facts[_table_source(facts)]
    expected = "#wrong 0 at every size, out-of-place and in-place; 0 out-of-bounds values"
    if isinstance(run, SourceFailure):
        return _not_measured(run, expected, facts, expect)
    wrong, unchecked = [], 0
    for row in run["rows"]:
        for side in ("oop", "ip"):
            value = row["%s_wrong" % side]
            if value is None:
                unchecked += 1
            elif value:
                wrong.append("%d B %s: %d wrong" % (row["size"], "in-place" if side == "ip" else "out-of-place", value))
    if run.get("out_of_bounds"):
        wrong.append("%d out-of-bounds values" % run["out_of_bounds"])
    if wrong:
        return verdict(FAIL, expected, _summary(wrong))
    in_place_unchecked = all(row["ip_wrong"] is None and row["oop_wrong"] is not None for row in run["rows"])
    if unchecked and in_place_unchecked and _table_source(facts) == "nccl_node_alltoall":
        # nccl-tests (2.18) validates alltoall out-of-place only and prints in-place #wrong N/A: what it checked is judged
        return _unmeasurable(run, expected, expect) or verdict(
            PASS, expected, "0 wrong in %s out-of-place; in-place not validated by alltoall_perf (#wrong N/A)" % counted(
                len(run["rows"]), "size"))
    if unchecked:  # how many of the run's results, each size out-of-place and in-place, went unchecked
        return verdict(ERROR, expected, "results not validated: %d of %d results (#wrong N/A: run without -c 1)" % (
            unchecked, 2 * len(run["rows"])))
    return _unmeasurable(run, expected, expect) or verdict(PASS, expected, "0 wrong in %s" % counted(len(run["rows"]), "size"))


@judge("nccl_collective_correct")
def nccl_collective_correct(facts, expect):
    """A collective beside all-reduce in one check: it completes (nccl_completes), then its results are right
    (nccl_correct); the first that does not pass is the verdict."""
    done = nccl_completes(facts, expect)
    return done if done["status"] != PASS else nccl_correct(facts, expect)


def peak_busbw(run):
    """(size, busbw GB/s) at the largest size printed, which is the largest the command asked for (the parser holds
    the rows to the run's header: that size has its row, and no row is of a size not asked), never merely the last
    row: the better of out-of-place and in-place, as NCCL reports both."""
    row = max(run["rows"], key=lambda item: item["size"])
    return row["size"], max(row["oop_busbw"], row["ip_busbw"])


def gpu_shortage(facts, expect):
    """(ranks asked, GPUs found) when the host shows fewer GPUs than the run starts ranks, else None.

    The runs start pyramid_gpus_per_node ranks (-g / --nproc_per_node); the GPUs found are those
    nvidia-smi topo -m lists in this layer (the same read as Layer 0's gpus_present). A rank without a
    GPU dies ("invalid device ordinal"): the run's failure is then this finding, not unreadable output.
    """
    found = facts.get("gpus_found")
    if not isinstance(found, dict) or "gpus" not in found:
        return None  # not read: nothing to say beyond the run's own failure
    want, count = expect["pyramid_gpus_per_node"], len(found["gpus"])
    return (want, count) if count < want else None


def _failed_run(run, expected, facts, expect):
    """The verdict on a run that gave no table: FAIL "2 ranks, 1 GPU" when the host lacks the GPUs the
    run needs; else ERROR with the run's own reason (its exit code and first error line)."""
    shortage = gpu_shortage(facts, expect)
    if shortage:
        want, count = shortage
        said = run.reason[run.reason.index("exit code"):] if "exit code" in run.reason else run.reason
        return verdict(FAIL, expected, "%s, %s: pyramid_gpus_per_node starts %s, nvidia-smi topo -m shows %s; the run failed (%s)" % (
            counted(want, "rank"), counted(count, "GPU"), counted(want, "rank"), counted(count, "GPU"), said),
            cause="More ranks than GPUs on the host: a GPU missing (fell off the bus, driver, CUDA_VISIBLE_DEVICES) or "
                  "pyramid_gpus_per_node wrong in the inventory (Layer 0 gpus_present says which)",
            command=run.command)
    return verdict(ERROR, expected, run.reason, cause="No data from `%s`" % run.command, command=run.command)


def _not_measured(run, expected, facts, expect):
    """nccl_correct / nccl_node_busbw on a failed run: nothing to judge. SKIP when nccl_completes FAILs it
    for too few GPUs (that FAIL keeps the host NO-GO); else the ERROR of the unreadable run."""
    if gpu_shortage(facts, expect):
        want, count = gpu_shortage(facts, expect)
        return verdict(SKIP, expected, "not measured: %s, %s, so the run could not start (nccl_completes FAILs it)" % (
            counted(want, "rank"), counted(count, "GPU")), command=run.command)
    return verdict(ERROR, expected, run.reason, cause="No data from `%s`" % run.command, command=run.command)


@judge("nccl_node_busbw", scope="pod")
def nccl_node_busbw(facts_by_host, expect_by_host):
    verdicts, peaks, source = {}, {}, None
    for host, facts in facts_by_host.items():
        source = _table_source(facts)
        if isinstance(facts[source], SourceFailure):
            verdicts[host] = _not_measured(facts[source], "busbw at the largest size, measured by at least 2 ranks",
                                           facts, expect_by_host[host])
            continue
        size, busbw = peak_busbw(facts[source])
        unmeasurable = _unmeasurable(facts[source], "busbw at %d B measured by at least 2 ranks" % size, expect_by_host[host])
        if unmeasurable:
            verdicts[host] = unmeasurable  # a rank-less figure would drag the pod median down
        else:
            peaks[host] = (size, busbw)
    # one node has no pod to be compared with: only an expected figure can judge it
    pod_median = statistics.median(peak[1] for peak in peaks.values()) if len(peaks) >= 2 else None
    for host, (size, busbw) in peaks.items():
        expect = expect_by_host[host]
        ratio, table = expect["pyramid_straggler_ratio"], _expected_figures(source, expect)
        # the size printed, or the size asked where a collective's count per rank rounded it down (6 ranks: 4 GiB reads
        # 4294967232): the inventory gives figures by the size it asks for
        want = table.get(str(size), table.get(str((facts_by_host[host][source].get("asked") or {}).get("largest"))))
        against = "alone in the run: no pod median"
        if pod_median is not None:
            against = ">= %s of the pod median (%.1f GB/s)" % (percent(ratio), pod_median)
        expected = "busbw at %d B %s%s" % (
            size, against, "" if want is None else " and within %s of %s GB/s" % (percent(expect["pyramid_nccl_tolerance"]), want))
        actual = "%.1f GB/s%s" % (busbw, "" if not pod_median else " (%.0f%% of median)" % (100.0 * busbw / pod_median))
        # the figures judged, for report.html's busbw per node against the pod median
        detail = {"busbw": busbw, "pod_median": pod_median, "size": size, "ratio": ratio}
        if busbw <= 0:
            verdicts[host] = verdict(FAIL, expected, "nothing moved: " + actual, detail=detail)
        elif pod_median is not None and busbw < ratio * pod_median:
            verdicts[host] = verdict(FAIL, expected, "straggler: " + actual, detail=dict(detail, straggler=True))
        elif want is not None and busbw < float(want) * (1 - expect["pyramid_nccl_tolerance"]):
            verdicts[host] = verdict(FAIL, expected, "below the expected figure: " + actual, detail=detail,
                                     cause="Node busbw under the platform's expected figure: NVLink/NVSwitch degraded or GPU clocks throttled")
        elif pod_median is None and want is None:
            verdicts[host] = verdict(SKIP, expected, "%s, but nothing to compare it with: one node in the run and no expected "
                                     "figure for %d B (%s, or baseline.yml of an earlier run)" % (
                                         actual, size, "pyramid_nccl_node_busbw" if source == "nccl_node" else
                                         "pyramid_nccl_collective_busbw[%s]" % COLLECTIVE_FIGURES[source]), detail=detail)
        else:
            verdicts[host] = verdict(PASS, expected, actual, detail=detail)
    return verdicts


# --- Layer 6: a real training step ------------------------------------------------------------

def _log_incomplete(run, expect):
    """Why the log is not the whole run, or None: a log cut at a step boundary with exit code 0 reads as a
    shorter healthy run, so every log is held to a count of steps it must show. The built-in step's count
    is the inventory's (pyramid_train_steps, which it was told to run); your own command's is what its
    log prints (Megatron-LM's `iteration N/ M`) or what the inventory declares for it
    (pyramid_train_command_steps)."""
    if expect.get("pyramid_train_command") or run.get("format") == "megatron":  # the built-in never prints Megatron-LM's
        return _own_log_incomplete(run, expect)
    return _builtin_log_incomplete(run, expect)


def _builtin_log_incomplete(run, expect):
    """The built-in step starts pyramid_gpus_per_node ranks on each node (training_node: one node;
    training_pod: every node of the group, its ranks naming their node) that each print every one of
    pyramid_train_steps steps; a log cut before its end (or before the NCCL watchdog's line) with exit
    code 0 would otherwise be judged on what is left."""
    want_gpus, want_steps = expect.get("pyramid_gpus_per_node"), expect.get("pyramid_train_steps")
    if run.get("format") != "pyramid" or not want_gpus or not want_steps:
        return None
    steps_by_rank = _steps_by_rank(run)
    # ranks on each node the log names: the group's size is not among this judge's inputs, but a cut takes the
    # log's tail, which the steps of every rank (interleaved from step 1 on) show; a node none of whose lines
    # came back at all is not told here
    nodes = len({step.get("host") for step in run["steps"]})
    want_ranks = want_gpus * max(nodes, 1)
    problems = []
    if len(steps_by_rank) < want_ranks:
        problems.append("%s in the log where %s ran (pyramid_gpus_per_node%s)" % (
            counted(len(steps_by_rank), "rank"), counted(want_ranks, "rank"),
            " on each of %d nodes" % nodes if nodes > 1 else ""))
    short = ["rank %s reported %d of %d steps (last %d)" % (rank, len(steps), want_steps, max(steps))
             for rank, steps in sorted(steps_by_rank.items()) if len(steps & set(range(1, want_steps + 1))) < want_steps]
    problems.extend(short[:3])
    return _incomplete(run, problems)


def _steps_by_rank(run):
    steps_by_rank = collections.defaultdict(set)
    for step in run["steps"]:
        steps_by_rank[step["rank"]].add(step["step"])
    return steps_by_rank


def _incomplete(run, problems):
    if not problems:
        return None
    return "training log incomplete with exit code %s: %s (cut short?)" % (run.get("exit_code", 0), "; ".join(problems))


_UNDECLARED = ("no step count declared for your own command: cannot tell a cut log (its log prints no total; "
               "set pyramid_train_command_steps to the step lines each rank prints)")


def _own_log_incomplete(run, expect):
    """Your own command (pyramid_train_command): a Megatron-LM log prints its total (M of `iteration N/ M`,
    --train-iters); a log that prints none is held to pyramid_train_command_steps, the step lines each of
    its ranks must show. Without either, a cut log cannot be told from a shorter run: that is said, never
    passed."""
    declared = expect.get("pyramid_train_command_steps") or 0
    problems = []
    if run.get("format") == "megatron" and run.get("train_iters"):
        problems.extend(_megatron_short(run))
    elif not declared:
        return _UNDECLARED
    if declared:
        problems.extend(["%s reported %d of %d steps (last %d; pyramid_train_command_steps)" % (
            "the log" if rank is None else "rank %s" % rank, len(steps), declared, max(steps))
            for rank, steps in sorted(_steps_by_rank(run).items(), key=lambda item: str(item[0])) if len(steps) < declared][:3])
    return _incomplete(run, problems)


def _megatron_short(run):
    """Megatron-LM logs every --log-interval iterations (and the first of each launch), so the run reached
    --train-iters when the next log would pass it: the interval is the common divisor of the iterations
    logged after the first. A log short of that ended early: without Megatron-LM's own line saying why
    (--exit-interval, --exit-duration-in-mins, SIGTERM: `exiting program ...`) it was cut or stopped."""
    logged = sorted({step["step"] for step in run["steps"]})
    # two logged iterations after the first at least: one alone is its own divisor, which would excuse any gap
    interval = functools.reduce(math.gcd, logged[1:]) if len(logged) > 2 else 1
    stop = run.get("exit_line")
    if stop:  # stopped as told; `at iteration N` (exit_iteration) also says which iteration the log must reach
        named = run.get("exit_iteration")
        if named is not None and logged[-1] + interval <= named:
            return ["Megatron-LM's log stops at iteration %d, before the iteration %d its own line names (%r)" % (
                logged[-1], named, stop)]
        return []
    total = run["train_iters"]
    if logged[-1] + interval > total:
        return []
    return ["Megatron-LM's log stops at iteration %d of %d (--train-iters), with no line of its own saying why it stopped "
            "(exiting program ...)" % (logged[-1], total)]


def robust_cv(times):
    """Step-time spread that one hiccup does not swing: 1.4826 x the median absolute deviation over the
    median (for normally spread times it equals the plain CV). On a healthy H100, 7 of 12 real runs
    had a plain CV of 5-16% from one to three GC/launch hiccups among 25 steps; this read 0.6-1.1%."""
    median = statistics.median(times)
    return 1.4826 * statistics.median(abs(t - median) for t in times) / median


@judge("training_stable")
def training_stable(facts, expect):
    run = facts["training_node"]
    warmup, max_cv, slow = expect["pyramid_train_warmup_steps"], expect["pyramid_train_max_cv"], expect["pyramid_straggler_ratio"]
    max_spikes = expect["pyramid_train_max_spike_fraction"]
    expected = ("step-time CV < %.0f%% (robust: 1.4826 MAD / median) after %d warm-up steps, at most %.0f%% of steps slower than "
                "the median / %.2f, no NCCL timeout, no rank slower than the others" % (max_cv * 100, warmup, max_spikes * 100, slow))
    if isinstance(run, SourceFailure):
        if run.status != "timeout":
            return _failed_run(run, expected, facts, expect)
        return verdict(FAIL, expected, "hung: no finish within %ds" % expect["pyramid_train_timeout"],
                       cause="NCCL timeout or hang in the training step: one rank stopped answering", finding="hung")
    timeouts = [line for line in run["timeouts"] if "timeout" in line.lower() or "timed out" in line.lower()]
    if timeouts:
        return verdict(FAIL, expected, "NCCL timeout: " + timeouts[0][:300],
                       cause="NCCL timeout in the training step: one rank stopped answering", finding="timeout")
    if run.get("exit_code"):
        last = max((step["step"] for step in run["steps"]), default=0)
        return verdict(FAIL, expected, "training exited %d after step %d" % (run["exit_code"], last),
                       cause="Training run crashed: read the ranks' log (Xid, OOM, NCCL error)")
    by_rank, fwd_by_rank = collections.defaultdict(list), collections.defaultdict(list)
    for step in run["steps"]:
        if step["step"] > warmup:
            rank = step["rank"] if step["rank"] is not None else 0
            by_rank[rank].append(step["step_time_ms"])
            if step.get("fwd_ms") is not None:
                fwd_by_rank[rank].append(step["fwd_ms"])
    if not by_rank or min(len(times) for times in by_rank.values()) < 3:
        return verdict(ERROR, expected, "fewer than 3 steps after warm-up: raise pyramid_train_steps")
    incomplete = _log_incomplete(run, expect)
    if incomplete == _UNDECLARED:
        return verdict(ERROR, expected, incomplete, cause="The inventory does not say how many steps your own training "
                       "command logs, and its log does not say either: declare pyramid_train_command_steps")
    if incomplete:
        return verdict(ERROR, expected, incomplete, cause="The training log is not complete: cut short on the way back, "
                       "or a rank's lines lost; a log without every rank's every step cannot prove a stable run")
    odd = [t for times in list(by_rank.values()) + list(fwd_by_rank.values()) for t in times if not 0 < t < float("inf")]
    if odd:  # NaN, inf, 0 or negative: the log's timing is broken, not the training
        return verdict(ERROR, expected, "step times that are not positive finite numbers (%s): the log's timing cannot be judged"
                       % ", ".join(str(t) for t in odd[:3]))
    # DDP makes every rank wait for the slowest, so a slow rank shows in its own forward time.
    per_rank = fwd_by_rank or by_rank
    medians = {rank: statistics.median(times) for rank, times in per_rank.items()}
    overall = statistics.median(medians.values())
    slow_ranks = [rank for rank, value in sorted(medians.items()) if value > overall / slow]
    laggards = ["rank %s %s median %.1f ms (median of ranks %.1f)" % (rank, "forward" if fwd_by_rank else "step", medians[rank], overall)
                for rank in slow_ranks]
    # each rank's median (forward where logged) against the median of ranks: report.html's step-time spread
    detail = {"timed": "forward" if fwd_by_rank else "step", "rank_ms": {str(rank): round(value, 3) for rank, value in sorted(medians.items())},
              "median_ms": round(overall, 3), "slow_ranks": slow_ranks, "ratio": slow, "max_cv": max_cv}
    worst_rank, worst_cv = max(((rank, robust_cv(times)) for rank, times in by_rank.items()), key=lambda item: item[1])
    if laggards:  # slow_ranks: for a run across nodes to name each rank's node (fabric.training_group)
        return verdict(FAIL, expected, "slow rank: " + _summary(laggards), finding="slow_rank", slow_ranks=slow_ranks,
                       detail=dict(detail, cv=round(worst_cv, 4)))  # report.html's CV column for this node too
    step_median = statistics.median(t for times in by_rank.values() for t in times)
    spikes = {rank: [t for t in times if t > statistics.median(times) / slow] for rank, times in by_rank.items()}
    spiky_rank = max(by_rank, key=lambda rank: len(spikes[rank]) / len(by_rank[rank]))
    share = len(spikes[spiky_rank]) / len(by_rank[spiky_rank])
    spiked = "; %s of %d steps slower than the median / %.2f (max %.1f ms, rank %s)" % (
        len(spikes[spiky_rank]), len(by_rank[spiky_rank]), slow, max(spikes[spiky_rank]), spiky_rank) if spikes[spiky_rank] else ""
    if run.get("format") == "megatron":  # one line per iteration, for the whole job
        actual = "CV %.1f%%, median iteration %.1f ms (Megatron-LM log)%s" % (worst_cv * 100, step_median, spiked)
    else:
        actual = "CV %.1f%% (rank %s), median step %.1f ms over %s%s" % (
            worst_cv * 100, worst_rank, step_median, counted(len(by_rank), "rank"), spiked)
    if worst_cv >= max_cv:
        return verdict(FAIL, expected, actual, detail=dict(detail, cv=round(worst_cv, 4)))
    if share > max_spikes:
        return verdict(FAIL, expected, "too many slow steps: " + actual,
                       cause="Steps stall again and again: CPU contention, a data-loader or checkpoint stall, or throttling",
                       detail=dict(detail, cv=round(worst_cv, 4)))
    baseline, tolerance = expect.get("pyramid_train_step_ms_baseline") or 0, expect.get("pyramid_train_baseline_tolerance", 0.1)
    if baseline and step_median > baseline * (1 + tolerance):
        return verdict(FAIL, expected + "; median step within %s of the baseline %.1f ms" % (percent(tolerance), baseline),
                       "%s: %.0f%% slower than the baseline %.1f ms" % (actual, 100.0 * (step_median / baseline - 1), baseline),
                       cause="Slower than this pod's baseline: driver/NCCL/firmware changed, GPU clocks throttled, or the fabric",
                       detail=dict(detail, cv=round(worst_cv, 4)))
    return verdict(PASS, expected, actual, detail=dict(detail, cv=round(worst_cv, 4)))
