# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""payloads/parity.py's report: every rank's loss at every step beside the single-GPU run's, every rank's parameters
against the single-GPU run's, FSDP's loss and whether its values were finite, closed by a "done" line naming the ranks
and steps, so a line lost anywhere shows. Lines of other programs (torchrun's warnings) are not the report's."""

from __future__ import annotations

import math
import re

from ._common import fail
from ._registry import parser

_PREFIX = "pyramid-parity "
_STEP = re.compile(r"^pyramid-parity step=(?P<step>\d+) rank=(?P<rank>\d+) host=(?P<host>\S+) single_loss=(?P<single>\S+) "
                   r"ddp_loss=(?P<ddp>\S+)$")
_PARAMS = re.compile(r"^pyramid-parity params rank=(?P<rank>\d+) host=(?P<host>\S+) max_diff=(?P<diff>\S+) max_abs=(?P<abs>\S+)$")
_FSDP = re.compile(r"^pyramid-parity fsdp rank=(?P<rank>\d+) host=(?P<host>\S+) loss=(?P<loss>\S+) finite=(?P<finite>yes|no)$")
_DONE = re.compile(r"^pyramid-parity done ranks=(?P<ranks>\d+) steps=(?P<steps>\d+)$")


def _number(text, what):
    """A figure as %g prints it; nan or inf (a loss that blew up) reads None: the judge says what it means."""
    try:
        value = float(text)
    except ValueError:
        fail("%s is not a number: %r", what, text)
    return value if math.isfinite(value) else None


@parser("training_parity",
        "payloads/parity.py: per rank and step the DDP loss beside the single-GPU loss, the parameters' largest "
        "difference, FSDP's loss and finiteness",
        kind="text",
        foreign_text=True)
def _parity(text):
    steps, params, fsdp, done = {}, {}, {}, None
    for line in text.splitlines():
        if not line.startswith(_PREFIX):
            continue
        if done is not None:
            fail("a report line after the 'done' line: %r", line[:80])
        for pattern, kind in ((_STEP, "step"), (_PARAMS, "params"), (_FSDP, "fsdp"), (_DONE, "done")):
            found = pattern.match(line.rstrip())
            if found:
                break
        else:
            fail("not a line of the parity report: %r", line[:80])
        if kind == "step":
            steps[(int(found.group("step")), int(found.group("rank")))] = {
                "host": found.group("host"), "single_loss": _number(found.group("single"), "single_loss"),
                "ddp_loss": _number(found.group("ddp"), "ddp_loss")}
        elif kind == "params":
            if found.group("diff").startswith("-") or found.group("abs").startswith("-"):  # both are largest absolute values
                fail("a negative largest difference or parameter: %r", line[:80])
            params[int(found.group("rank"))] = {"host": found.group("host"), "max_diff": _number(found.group("diff"), "max_diff"),
                                                "max_abs": _number(found.group("abs"), "max_abs")}
        elif kind == "fsdp":
            loss = _number(found.group("loss"), "FSDP loss")
            fsdp[int(found.group("rank"))] = {"host": found.group("host"), "loss": loss,
                                              "finite": found.group("finite") == "yes" and loss is not None}
        else:
            done = (int(found.group("ranks")), int(found.group("steps")))
    if done is None:
        fail("no 'pyramid-parity done' line: the run died or its report was cut short (%d step lines)", len(steps))
    ranks, count = done
    if ranks * count != len(steps) or ranks != len(params) or ranks != len(fsdp):  # before any set of that size is built
        fail("the 'done' line names %d ranks x %d steps, the report holds %d step lines, %d params and %d fsdp lines",
             ranks, count, len(steps), len(params), len(fsdp))
    wanted = {(step, rank) for step in range(1, count + 1) for rank in range(ranks)}
    if set(steps) != wanted or set(params) != set(range(ranks)) or set(fsdp) != set(range(ranks)):
        fail("the report does not hold every rank's lines: %d of %d step lines, %d and %d of %d params and fsdp lines",
             len(set(steps) & wanted), len(wanted), len(params), len(fsdp), ranks)
    return {"ranks": ranks, "steps": count,
            "losses": [dict(steps[(step, rank)], step=step, rank=rank) for step, rank in sorted(wanted)],
            "params": [dict(params[rank], rank=rank) for rank in range(ranks)],
            "fsdp": [dict(fsdp[rank], rank=rank) for rank in range(ranks)]}
