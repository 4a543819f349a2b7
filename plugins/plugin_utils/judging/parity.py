# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 6, training that computes the right numbers: the same seeded model trained on one GPU and under DDP on every
GPU of the node agree, rank by rank and step by step; FSDP's forward and backward are finite (payloads/parity.py)."""

from __future__ import annotations

from ..core.model import FAIL, PASS, SKIP, counted, verdict
from .registry import judge, summary


def _figure(value):
    return "not finite" if value is None else "%.9g" % value


def _relative(value, reference):
    return abs(value - reference) / max(abs(reference), 1e-12)


def _first_to_diverge(firsts):
    """(the first step any rank diverged at, the ranks that did then) of ``firsts``: rank -> (its first step, what)."""
    step = min(first for first, _said in firsts.values())
    return step, sorted(rank for rank, (first, _said) in firsts.items() if first == step)


def _culprits(run, firsts):
    """The ranks that diverge first are the finding: DDP averages a wrong rank's gradient into every rank's update, so
    from the next step on every rank follows it. The single-GPU run is computed on GPU 0, as rank 0 is: when every rank
    but 0 diverges, GPU 0 computed both wrong alike."""
    if not firsts:
        return []
    hosts = {row["rank"]: row["host"] for row in run["losses"]}
    step, culprits = _first_to_diverge(firsts)
    findings = ["rank %d (%s) step %d: %s" % (rank, hosts[rank], step, firsts[rank][1]) for rank in culprits]
    followers = sorted(set(firsts) - set(culprits))
    if followers:
        findings.append("rank%s %s follow%s from a later step (DDP spreads the first one's gradients)" % (
            "s" if len(followers) > 1 else "", ", ".join(map(str, followers)), "" if len(followers) > 1 else "s"))
    if culprits == list(range(1, run["ranks"])) and run["ranks"] > 2:
        findings.insert(0, "every rank but 0 off the single-GPU run at step %d, which GPU 0 computed as rank 0 did: GPU 0 "
                           "is the likely culprit" % step)
    elif len(culprits) == run["ranks"] and run["ranks"] > 1:
        findings.insert(0, "every rank off at step %d: the gradient all-reduce (or the single-GPU run on GPU 0)" % step)
    return findings


def _culprit_hosts(run, firsts):
    """The hosts of the ranks that diverged first (GPU 0's where every rank but 0 did); none where every rank did (the
    gradient all-reduce itself) or none diverged: a run across nodes blames those hosts alone."""
    if not firsts:
        return []
    hosts = {row["rank"]: row["host"] for row in run["losses"]}
    culprits = _first_to_diverge(firsts)[1]
    if culprits == list(range(1, run["ranks"])) and run["ranks"] > 2:
        culprits = [0]
    elif len(culprits) == run["ranks"]:
        return []
    return sorted({hosts[rank] for rank in culprits})


@judge("training_parity")
def training_parity(facts, expect):
    run, tolerance = facts["training_parity"], expect["pyramid_train_parity_tolerance"]
    expected = ("every rank's DDP loss and final parameters within %g (relative) of the single-GPU run's; FSDP forward and "
                "backward finite" % tolerance)
    if run["ranks"] < 2:
        return verdict(SKIP, expected, "1 rank: DDP on one GPU is the single-GPU run itself, nothing to compare")
    firsts, worst = {}, 0.0  # rank -> (its first divergent step, what it showed)
    for row in run["losses"]:
        if row["rank"] in firsts:
            continue
        if row["ddp_loss"] is None or row["single_loss"] is None:
            firsts[row["rank"]] = (row["step"], "loss not finite (DDP %s, single GPU %s)" % (
                _figure(row["ddp_loss"]), _figure(row["single_loss"])))
            continue
        off = _relative(row["ddp_loss"], row["single_loss"])
        worst = max(worst, off)
        if off > tolerance:
            firsts[row["rank"]] = (row["step"], "DDP loss %.9g, single GPU %.9g (%.2g apart)" % (
                row["ddp_loss"], row["single_loss"], off))
    findings = _culprits(run, firsts)
    culprits = _culprit_hosts(run, firsts)
    for row in run["params"]:
        if row["max_diff"] is None or row["max_diff"] > tolerance * max(row["max_abs"] or 0.0, 1e-12):
            findings.append("rank %d (%s): parameters after %d steps %s from the single-GPU run's (largest %s)" % (
                row["rank"], row["host"], run["steps"], "differ by %.3g" % row["max_diff"] if row["max_diff"] is not None
                else "not finite", row["max_abs"]))
    for row in run["fsdp"]:
        if not row["finite"]:
            findings.append("rank %d (%s): FSDP forward/backward not finite (loss %s)" % (row["rank"], row["host"], _figure(row["loss"])))
    if findings:
        return verdict(FAIL, expected, summary(findings), culprit_hosts=culprits)
    return verdict(PASS, expected, "%s x %s: losses within %.2g of the single-GPU run, parameters within %.2g; FSDP finite" % (
        counted(run["ranks"], "rank"), counted(run["steps"], "step"), worst,
        max(row["max_diff"] / max(row["max_abs"], 1e-12) for row in run["params"])))
