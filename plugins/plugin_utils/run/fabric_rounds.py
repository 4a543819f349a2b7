# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The straggler hunt's rounds across the fabric, driven: each round of judging/fabric_rounds.py says which groups of
nodes it wants run next and, from their outcomes, who is to blame; here its runs are handed to ``run`` and its
outcomes back to it, until it returns its verdicts.

``run(groups)`` runs groups of nodes at once (disjoint nodes) and returns one outcome per group:
{"status", "expected", "actual", "cause_key", ...} (judging/fabric.py nccl_group). Verdicts are
{host: {"status", "expected", "actual", "cause_key"}}.
"""

from __future__ import annotations

from ..judging import fabric_rounds as _decide

# Who runs with whom in rounds 2 and 3 (the plan shows the same pairs and sizes, run/plan.py)
pair_up, scale_sizes = _decide.pair_up, _decide.scale_sizes


def drive(rounds, run):
    """The verdicts of a round (a generator of the groups it wants run), each group it asks for run by ``run``."""
    try:
        wanted = next(rounds)
        while True:
            wanted = rounds.send(run(wanted))
    except StopIteration as done:
        return done.value


def _driven(round_):
    def run_round(nodes, run, references=(), **extra):
        return drive(round_(nodes, references, **extra), run)
    run_round.__name__ = run_round.__qualname__ = round_.__name__
    run_round.__doc__ = round_.__doc__
    return run_round


# The rounds of the hunt, by the name a fabric check gives as its `round:` (catalog/nccl_fabric.yml; pre-flight refuses a
# name not here, run/catalog_references.py).
ROUNDS = {name: _driven(round_) for name, round_ in _decide.ROUNDS.items()}
round_pairs, round_scale, round_bisection, round_whole = (ROUNDS[name] for name in ("pairs", "scale", "bisection", "whole"))
# Rounds that are told each node's scalable unit (run/fabric.py resolves pyramid_scalable_unit).
BY_UNIT = {"bisection"}
# The round whose runs fit the pod's latency model (two nodes at a time): the later rounds' latency-bound sizes are
# judged by it (judging/scale.py)
FITS_LATENCY = "pairs"
