# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 6: training logs (the built-in step's pyramid-train records, Megatron-LM's iteration lines)."""

from __future__ import annotations

import math
import re

from ._common import distinct, fail
from ._registry import parser


def _split_pyramid_records(text):
    # Ranks print to one pipe; unbuffered, a record and its newline are two writes, so two records can
    # share a line (seen on a real 2x H200 run).
    return re.sub(r"(?<=[^\n])pyramid-train ", "\npyramid-train ", text)


def _loss(text):
    value = float(text)
    return value if math.isfinite(value) else None  # NaN/inf: counted in nan_iterations


def _each_step_once(steps):
    """A rank reports each step once: the same step of the same rank twice is a repeated line (a log
    copied into itself, a launcher replaying output), and would count as another step time."""
    seen = set()
    for step in steps:
        key = (step["rank"], step.get("host"), step["step"])
        if key in seen:
            fail("step %d of rank %s is printed twice (a repeated line?)", step["step"], step["rank"])
        seen.add(key)


_MEGATRON_TIME = "elapsed time per iteration (ms)"


def _every_iteration_line_read(rows, text):
    """Every line that carries Megatron-LM's iteration time is read as an iteration: one the template does
    not match (a number garbled in its `iteration N/ M` head) would drop that step unseen, since the log
    may hold any other line of the user's program."""
    printed = sum(1 for line in text.splitlines() if _MEGATRON_TIME in line)
    read = sum(1 for row in rows if row["iteration"] and _MEGATRON_TIME in row["megatron"])
    if read < printed:
        fail("%d of the %d lines with Megatron-LM's %r are not iteration lines as it prints them (damaged?)",
             printed - read, printed, _MEGATRON_TIME)


_MEGATRON_TOTAL = re.compile(r"\biteration\s+\d+\s*/\s*(\d+)\s*\|")
# Megatron-LM's own lines when it stops before --train-iters as it was told to (training.py
# checkpoint_and_decide_exit: --exit-interval, --exit-duration-in-mins, the SIGTERM handler), printed by
# print_datetime as "[exiting program at iteration 6000] datetime: ..."
_MEGATRON_EXIT = re.compile(r"exiting program (?:at iteration (\d+)|after [\d.]+ minutes|after receiving SIGTERM)")


def _megatron_plan(text):
    """What a Megatron-LM log says of its own length: the M of `iteration N/ M |` (--train-iters; one value
    per run, so it is read from the lines, not per record), and its line saying why it stopped early, if any.
    Lines that disagree on M are two runs in one log or a damaged number: that is no total to judge by."""
    totals = {int(total) for line in text.splitlines() if _MEGATRON_TIME in line for total in _MEGATRON_TOTAL.findall(line)}
    if len(totals) > 1:
        fail("iteration lines name different totals (%s): two runs in one log, or a damaged number",
             ", ".join(str(total) for total in sorted(totals)))
    stop = _MEGATRON_EXIT.search(text)
    # exit_iteration: the iteration --exit-interval stopped at, which the log must reach (None: another stop, or none)
    return {"train_iters": totals.pop() if totals else None, "exit_line": stop.group(0) if stop else None,
            "exit_iteration": int(stop.group(1)) if stop and stop.group(1) else None}


def _every_rank_every_step(steps):
    """In a run that ended without a timeout, every rank took every step (a training step is a collective
    every rank joins): a rank missing steps that others logged is a log cut short (or lines lost), not a
    faster rank. A run that hung says so (its timeout lines), and its ranks may stop at different steps."""
    taken = {}
    for step in steps:
        if step["rank"] is not None:
            taken.setdefault((step.get("host") or "", step["rank"]), set()).add(step["step"])
    if len(taken) < 2:
        return
    every = set().union(*taken.values())
    short = sorted((rank, sorted(every - done)) for (_host, rank), done in taken.items() if every - done)
    if short:
        rank, missing = short[0]
        fail("rank %s logged no step %s that other ranks logged, and no timeout was printed (the log cut short?)",
             rank, ", ".join(str(step) for step in missing[:4]) + (", ..." if len(missing) > 4 else ""))


def _pyramid_step(record):
    if "\ufffd" in record:  # our own record: bytes that are not text mean it is damaged (a user's print may hold them)
        return fail("bytes that are not UTF-8 text in step line %r", "pyramid-train " + record[:80])
    fields = dict(re.findall(r"(\w+)=(\S+)", record))
    try:
        step = {"step": int(fields["step"]), "rank": int(fields["rank"]), "step_time_ms": float(fields["step_time_ms"]),
                "fwd_ms": float(fields["fwd_ms"]) if "fwd_ms" in fields else None, "loss": _loss(fields["loss"])}
    except (KeyError, ValueError):
        return fail("unparseable step line %r", "pyramid-train " + record)
    if "host" in fields:  # across nodes: which node the rank ran on
        step["host"] = fields["host"]
    return step


def _megatron_step(iteration, record):
    # " consumed samples: 15360 | elapsed time per iteration (ms): 5123.4 | ... | lm loss: 9.876543E+00 | ..."
    fields = {}
    for part in record.split("|"):
        key, sep, value = part.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    if "elapsed time per iteration (ms)" not in fields:
        return None, None
    losses = [key for key in fields if key.endswith("loss") and key != "loss scale"]
    key = "lm loss" if "lm loss" in fields else losses[0] if losses else None
    try:
        step = {"step": int(iteration), "rank": None, "step_time_ms": float(fields["elapsed time per iteration (ms)"]),
                "fwd_ms": None, "loss": _loss(fields[key]) if key else None}
        nan = int(fields["number of nan iterations"]) if "number of nan iterations" in fields else None
    except ValueError:
        return fail("unparseable iteration line %r", "iteration %s/ |%s" % (iteration, record))
    return step, nan


@parser("training_log",
        "Megatron-LM or pyramid-train log: per-step times and losses, NCCL and watchdog timeouts",
        prepare=_split_pyramid_records,
        foreign_text=True,
        with_text=True)
def _training_log(rows, text):
    _every_iteration_line_read(rows, text)
    steps, nan_counts, timeouts, fmt = [], [], [], None
    for row in rows:
        if row["pyramid"]:
            fmt = "pyramid"
            steps.append(_pyramid_step(row["pyramid"]))
        elif row["iteration"]:
            step, nan = _megatron_step(row["iteration"], row["megatron"])
            if step:
                fmt = fmt or "megatron"
                steps.append(step)
            if nan is not None:
                nan_counts.append(nan)
        else:
            timeouts.append(row["timeout"] or row["nccl_warn"])
    if not steps and not timeouts:
        fail("no step lines")
    _each_step_once(steps)
    if not timeouts:
        _every_rank_every_step(steps)
    # ranks interleave their lines in whatever order the pipe delivered them: the facts list each rank's
    # steps in step order, so no judgement depends on how the lines happened to interleave
    steps.sort(key=lambda step: (step.get("host") or "", -1 if step["rank"] is None else step["rank"], step["step"]))
    if fmt == "pyramid":  # steps whose loss is NaN/inf on some rank
        nan_counts = [len({step["step"] for step in steps if step["loss"] is None})]
    facts = {"format": fmt, "steps": steps, "timeouts": distinct(timeouts),
             "nan_iterations": sum(nan_counts) if nan_counts else None}
    if fmt == "megatron":
        facts.update(_megatron_plan(text))
    return facts
