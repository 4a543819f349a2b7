"""The twin's timing mode: a simulated tool takes the time the real one would (scenario `timing: {factor: F}`).

Without `timing` in the scenario the tools answer at once, as they always have (an incast's paced
ib_write_bw aside: it runs its -D in real time, incast.py). With it:

- a tool that times itself and prints what it took takes that time times the factor: all_reduce_perf
  and the built-in benchmark (nccl-tests' table: per size, the out-of-place and the in-place time in us,
  each run `iters` times, plus `warmup iters` runs of the largest size), the training steps
  (`step_time_ms` of the slowest rank per step; Megatron-LM's `elapsed time per iteration (ms)`), the same
  through mpirun, srun and torchrun across nodes;
- a duration the command line asks for is taken in real time, never scaled (the inventory sets it:
  pyramid_rdma_duration, pyramid_ping_count): ib_write_bw's -D (server and client), ping's
  (count - 1) x -i that iputils prints as `time Nms`, fping's (count - 1) x -p.

The product does not know: it sees the same output, later. The sleep comes before the output is
written (a real tool prints its table at the end of its run). Each wait is recorded in the pod's
.twin/changes/<digest>/timing/ (``record``), for bench/pod_twin.py's critical path; twin/up clears it.
"""

import os
import time

# re, json and incast are imported where the timing mode is on: every tool run imports this module to ask whether it
# is (it is off but in bench/pod_twin.py's runs), and re's import alone was a fifth of a tool run's CPU (the suite's
# budget, issue 33).

# tool -> how its output says what it took: "self" (its own time, scaled) or "asked" (the argv's, real)
SELF_TIMED = ("all_reduce_perf", "torchrun", "mpirun", "srun")
ASKED = ("ib_write_bw", "ping", "fping")

PATTERNS = {
    "nccl_head": r"warmup iters: (\d+) iters: (\d+)",
    "nccl_row": r"^\s*(\d+)\s+(\d+)\s+\S+\s+\S+\s+-?\d+\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+\S+\s+([\d.]+)\s",
    "step": r"\bstep=(\d+) step_time_ms=([\d.]+)",
    "iteration": r"elapsed time per iteration \(ms\): ([\d.]+)",
    "ping_time": r"packets transmitted, .* time (\d+)ms",
    "hosts": r"(?:Rank +\d+ Group +\d+ Pid +\d+ on +|host=)(\S+)",
}


def _pattern(name):
    import re
    return re.compile(PATTERNS[name])  # re caches compiled patterns


def factor(state):
    """The scenario's timing factor, or None when the timing mode is off."""
    timing = state.get("timing")
    return float(timing["factor"]) if timing else None


def nccl_seconds(text):
    """Seconds an nccl-tests table took: sum over sizes of (out-of-place + in-place) x iters, plus the
    warmup's runs of the largest size (nccl-tests warms up with maxBytes). 0 for no table."""
    head = _pattern("nccl_head").search(text)
    rows = [match.groups() for match in map(_pattern("nccl_row").match, text.splitlines()) if match]
    if not head or not rows:
        return 0.0
    warmup, iters = int(head.group(1)), int(head.group(2))
    usec = sum(float(oop) + float(inplace) for _size, _count, oop, inplace in rows) * iters
    usec += float(rows[-1][2]) * warmup
    return usec / 1e6


def train_seconds(text):
    """Seconds a training log's steps took: per step the slowest rank's step_time_ms (DDP waits for it),
    or Megatron-LM's elapsed time per iteration."""
    slowest = {}
    for step, millis in _pattern("step").findall(text):
        slowest[step] = max(slowest.get(step, 0.0), float(millis))
    return (sum(slowest.values()) + sum(float(ms) for ms in _pattern("iteration").findall(text))) / 1e3


def _option(args, name, default):
    return args[args.index(name) + 1] if name in args[:-1] else default


def asked_seconds(tool, args, out):
    """Real seconds the command line asked for (None: nothing asked, or the tool already took it)."""
    if tool == "ib_write_bw":
        if "--rate_limit" in " ".join(args):  # an incast's sender: it runs its -D already (incast.py)
            return None
        return float(_option(args, "-D", 0)) or None
    if tool == "ping":
        match = _pattern("ping_time").search(out)
        return int(match.group(1)) / 1e3 if match else None
    if tool == "fping":
        return max(int(_option(args, "-c", 1)) - 1, 0) * float(_option(args, "-p", 1000)) / 1e3
    return None


def seconds(state, tool, args, result):
    """How long the tool should take before it answers, in the scenario's timing mode (0: at once)."""
    scale = factor(state)
    rc, out = result[:2]
    hung = len(result) > 3 and result[3]
    if scale is None or hung or rc not in (0, 1):
        return 0.0
    if tool in SELF_TIMED:
        return scale * (nccl_seconds(out) + train_seconds(out))
    if tool in ASKED and (rc == 0 or tool != "ib_write_bw"):  # pings that went unanswered took their time too
        return asked_seconds(tool, args, out) or 0.0
    return 0.0


def pause(state, tool, args, result, sleep=time.sleep):
    """Sleep what the tool would have taken; the seconds slept."""
    wait = seconds(state, tool, args, result)
    if wait > 0:
        sleep(wait)
    return wait


def entry(state, tool, result, wait, start):
    """What one wait was: {tool, host, kind (nccl, train, asked), nodes (the hosts its output names), seconds, start}."""
    out = result[1]
    kind = "asked" if tool in ASKED else "train" if train_seconds(out) else "nccl"
    return {"tool": tool, "host": state["hostname"], "kind": kind, "nodes": max(len(set(_pattern("hosts").findall(out))), 1),
            "seconds": wait, "start": start}


def record(timing_dir, item):
    """Keep one wait, in its own file (concurrent tools never write the same one)."""
    from pyramid_twin import incast
    incast.write_own_file(timing_dir, "%s-%s" % (item["host"], item["tool"]), item)


def load(timing_dirs, since=0.0, until=float("inf")):
    """The waits recorded in these directories that started within [since, until]."""
    import json
    found = []
    for timing_dir in timing_dirs:
        for name in sorted(os.listdir(timing_dir)) if os.path.isdir(timing_dir) else []:
            if name.endswith(".json") and not name.startswith("."):
                with open(os.path.join(timing_dir, name), encoding="utf-8") as handle:
                    item = json.load(handle)
                if since <= item["start"] <= until:
                    found.append(item)
    return found
