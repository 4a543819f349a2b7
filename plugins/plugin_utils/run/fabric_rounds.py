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

from ..core.model import named
from ..judging import fabric_rounds as _decide
from . import tiers as _tiers

# Who runs with whom in rounds 2 and 3 (the plan shows the same pairs and sizes: plan_sections)
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


def plan_sections(pod):
    """The plan's sections of the fabric kind (catalog/kinds.yml planned_by; run/plan.py): Layer 5's rounds across
    nodes (the straggler hunt, its pairs and sizes from pair_up and scale_sizes) and Layer 6's run across the pod, each
    with its NCCL or training steps for the run's at-most total; on a lone node (``pod.alone``) only what it runs by
    itself, and why nothing runs across nodes."""
    # the hunt's layer (its NCCL rounds) and the training step's above it, as the kind's checks sit in the catalog
    layers = sorted({check["layer"] for check in pod.checks})
    if len(layers) != 2:
        raise ValueError("the fabric kind's checks sit at layers %s: its plan has the hunt's layer and the training "
                         "step's above it" % layers)
    hunt, train = layers
    if not pod.nodes:
        return [{"layer": hunt, "title": "Layer %d across nodes" % hunt, "note": "no GPU node", "rounds": []}]
    first = pod.first
    timeouts = {hunt: {"at_most_per_run": first["pyramid_nccl_timeout"]}, train: {"at_most_per_run": first["pyramid_train_timeout"]}}
    if pod.alone:
        one_gpu = first["pyramid_gpus_per_node"] < 2
        note = ("%s is the only GPU node of this run and none outside it is named: nothing runs across nodes (no pairs, "
                "scale-up, pod collectives or training across nodes), so no launcher is used" % pod.alone)
        return [
            {"layer": hunt, "title": "Layer %d on the node alone" % hunt, "note": note, "launcher": None, "seconds": timeouts[hunt],
             "steps": {"nccl": 1}, "rounds": [{"round": 1, "runs": 1, "what": "all-reduce on the node alone" + (
                 ", one rank: read for the NCCL it loads (nccl_loaded); the collectives' checks and the other collectives "
                 "need 2 GPUs and are not run" if one_gpu else " (its own GPUs), then the other collectives") + ", 1 run(s)"}]},
            {"layer": train, "title": "Layer %d on the node alone" % train, "seconds": timeouts[train], "steps": {"train": 1},
             "rounds": [{"round": 1, "runs": 1, "what": "the training step on the node" + (
                 "; the parity test needs 2 GPUs and is not run" if one_gpu else ", then the parity test") + ", 1 run(s)"}]}]
    nodes, ordered = pod.nodes, pod.ordered
    pairs, odd = pair_up(nodes)
    sizes = scale_sizes(len(nodes))
    units = len(set(pod.units.values()))
    shown = [list(pair) for pair in pairs] + ([[odd, "(a node that passed)"]] if odd else [])
    across = len(nodes) > 1  # a --limit'ed run's one node runs its pairs with references, no pod collective
    rounds = [
        {"round": 1, "what": "all-reduce on every node alone (its own GPUs)", "runs": len(nodes)},
        {"round": 2, "what": "all-reduce on pairs, node i with node i + n/2", "runs": len(pairs), "pairs": shown},
        {"round": 3, "what": "all-reduce scaled up, the first N nodes, doubling until it misses", "runs": len(sizes), "sizes": sizes},
        {"round": "3+", "what": "all-gather, then reduce-scatter, across every node that held round 3", "runs": 2 if across else 0},
        dict({"round": 4, "what": "all-to-all across every node that held, then each scalable unit alone where it misses",
              "runs": 1 if across else 0}, **({"units_alone": units} if across and units > 1 else {})),
    ]
    # a round's runs side by side (every node alone, every pair) are one step; the scale-up's sizes and the pod's
    # collectives after it (all-gather, then reduce-scatter) one after another; the units alone one step more
    steps = sum(len(entry.get("sizes") or []) or (entry["runs"] if entry["round"] == "3+" else min(entry["runs"], 1))
                for entry in rounds) + sum(1 for entry in rounds if entry.get("units_alone"))
    for entry in rounds:  # said in one line, the data kept beside it for plan.json
        entry["what"] += ", %d run(s)" % entry["runs"] + (
            ": " + named(["%s <-> %s" % tuple(pair) for pair in entry["pairs"]]) if entry.get("pairs") else
            ": sizes %s" % entry["sizes"] if entry.get("sizes") else "") + (
            "; where it misses, its %d scalable units alone, side by side (one step more)" % entry["units_alone"]
            if entry.get("units_alone") else "")
    launcher = first.get("pyramid_nccl_launcher")
    tiers = {
        "layer %d round 2 (pairs)" % hunt: _tiers.crossed(pod.units, pairs)["text"],
        "layer %d round 3 (scale-up)" % hunt: _tiers.crossed(pod.units, [ordered[:size] for size in sizes], "ring")["text"],
        "layer %d round 4 (all-to-all)" % hunt: _tiers.crossed(pod.units, [ordered], "all_to_all")["text"],
    }
    return [
        {"layer": hunt, "title": "Layer %d across nodes: the straggler hunt (launcher: %s)" % (hunt, launcher), "launcher": launcher,
         "rounds": rounds, "seconds": timeouts[hunt], "steps": {"nccl": steps}, "tiers": tiers if across else {}},
        {"layer": train, "title": "Layer %d across nodes (launcher: %s)" % (train, launcher), "seconds": timeouts[train],
         "steps": {"train": 2 if across else 1}, "rounds": [{
             "round": 1, "what": "the training step on every node, then across the pod, %d run(s)" % (len(nodes) + int(across)),
             "runs": len(nodes) + int(across)}]},
    ]
