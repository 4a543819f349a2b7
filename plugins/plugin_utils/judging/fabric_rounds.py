# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The straggler hunt's decisions: which groups of nodes run next, and who is to blame for a miss (issue 69: every
status is decided in judging/; run/fabric_rounds.py drives these rounds, run/fabric.py launches the runs).

Round 1 (every node alone) is the layer's own checks. Round 2 pairs the nodes across the pod;
when a pair misses, each side is retested with a known-good partner, so the bad node is named.
Round 3 scales up 2 -> 4 -> 8 -> ... -> every node, and stops at the first size that misses.

``references`` are nodes outside this run (a --limit'ed run after a reimage): partners when no node
of the run can be one. A run that passes with one proves both; a miss with one is the node's only
once the reference is proven: by a run of this hunt that passed with it, else by one run with another
node outside the run, made only when a miss needs it. An unproven reference's miss names both
("unplaced"): nothing here blames a node on a partner nobody proved.

Each round is a generator: it yields the groups it wants run next (disjoint nodes, run at once), is sent one outcome
per group ({"status", "expected", "actual", "cause_key", ...}: judging/fabric.py nccl_group's) and returns the
verdicts {host: {"status", "expected", "actual", "cause_key"}}. What the next runs are depends only on the outcomes
sent so far: the rounds decide, the runner only runs what they ask.
"""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SKIP, verdict
from ..core.results import NOT_PASSING
from . import registry as _registry


def pair_up(nodes):
    """Node i with node i + n/2: partners far apart in the pod, so pairs cross the fabric."""
    half = len(nodes) // 2
    return [(nodes[i], nodes[i + half]) for i in range(half)], (nodes[-1] if len(nodes) % 2 else None)


def scale_sizes(count):
    sizes, size = [], 2
    while size < count:
        sizes.append(size)
        size *= 2
    return sizes + [count] if count >= 2 else []


def _verdict(status, outcome, actual, cause_key=None):
    # a run's figures go only to the nodes of a run that passed (a node cleared by another's miss gets none)
    extra = {"detail": outcome["detail"]} if outcome.get("detail") and status == PASS and outcome["status"] == PASS else {}
    return verdict(status, outcome["expected"], actual, cause=outcome.get("cause"), command=outcome.get("command"),
                   cause_key=cause_key, **extra)


def _skip_all(nodes, why):
    return {node: verdict(SKIP, "a run across nodes", why, cause_key=None) for node in nodes}


def round_pairs(nodes, references=()):
    if len(nodes) < 2 and not references:
        return _skip_all(nodes, "pairs need two nodes that passed round 1 (or nodes outside the run to pair with)")
    pairs, odd = pair_up(nodes)
    verdicts, good, suspects, first = {}, [], [], {}
    for pair, outcome in zip(pairs, (yield pairs) if pairs else []):
        for node in pair:
            first[node] = (pair, outcome)
        if outcome["status"] == PASS:
            good.extend(pair)
            for node in pair:
                verdicts[node] = _verdict(PASS, outcome, "with %s: %s" % (_other(pair, node), outcome["actual"]))
        else:  # FAIL or ERROR: a known-good partner tells which side
            suspects.extend(pair)
    if odd:
        suspects.append(odd)
    if not good and not references:
        return dict(verdicts, **_unattributed(suspects, odd, first))
    lent = not good
    good = good or list(references)
    retests = yield from _retest(suspects, good)
    proven = _Prover(references, [partner for partner, outcome in retests.values() if outcome["status"] == PASS])
    for node in suspects:
        partner, outcome = retests[node]
        if outcome["status"] != PASS and lent:
            held, why = yield from proven.prove(partner)
            if not held:
                verdicts[node] = _unplaced(outcome, node, partner, why)
                continue
        if outcome["status"] != PASS or node == odd:
            verdicts[node] = _verdict(outcome["status"], outcome, "with known-good %s: %s" % (partner, outcome["actual"]),
                                      outcome["cause_key"])
            continue
        pair, missed = first[node]
        other = _other(pair, node)
        if retests[other][1]["status"] == PASS:  # each side is fine with others: not with each other
            verdicts[node] = _verdict(missed["status"], missed, "with %s: %s; yet each passes with a known-good partner "
                                      "(%s with %s)" % (other, missed["actual"], node, partner),
                                      "path" if missed["status"] == FAIL else None)
            # which run missed: the link kind makes that very run again while the switches on its paths are read
            verdicts[node]["detail"] = {"ran_across": list(pair)}
        else:
            verdicts[node] = _verdict(PASS, outcome, "with known-good %s: %s (the pair with %s missed because of %s)" % (
                partner, outcome["actual"], other, other))
    return verdicts


class _Prover:
    """``prove(reference)`` (a generator: it may yield one run) returns (True, None) or (False, why). A reference is
    proven by a run of this hunt that passed with it (``passed``), else by one run with another node outside the run,
    made once and only when asked."""

    def __init__(self, references, passed=()):
        self.references, self.proven, self.tried = references, set(passed), {}

    def prove(self, reference):
        if reference in self.proven:
            return True, None
        others = sorted((other for other in self.references if other != reference), key=lambda other: other not in self.proven)
        if not others:
            return False, "no other node outside the run to prove it with"
        pair = (reference, others[0])
        if pair not in self.tried:
            self.tried[pair] = (yield [pair])[0]
        if self.tried[pair]["status"] == PASS:
            self.proven.update(pair)
            return True, None
        return False, "with %s it missed too: %s" % (others[0], self.tried[pair]["actual"])


def _unplaced(outcome, node, reference, why):
    """A miss with a node outside the run that no run proved: the node did not pass, but whose the miss is, is unknown."""
    return _verdict(outcome["status"], outcome, "with %s (outside this run, not proven in it: %s): %s; the miss may be %s's "
                    "or %s's" % (reference, why, outcome["actual"], node, reference), "unplaced")


def _unattributed(suspects, odd, first):
    """No pair passed: nobody can lend a known-good partner, so every pair keeps its own verdict."""
    verdicts = {}
    for node in suspects:
        if node == odd:
            verdicts[node] = verdict(SKIP, "a run with a known-good partner",
                                     "odd one out, and no pair passed to lend a known-good partner", cause_key=None)
            continue
        pair, outcome = first[node]
        verdicts[node] = _verdict(outcome["status"], outcome, "with %s: %s; no pair passed, so no known-good partner "
                                  "tells which side" % (_other(pair, node), outcome["actual"]), outcome["cause_key"])
    return verdicts


def _retest(suspects, good):
    """Each suspect with a known-good partner; a good node is in one run at a time."""
    retests, queue = {}, list(suspects)
    while queue:
        batch, queue = queue[:len(good)], queue[len(good):]
        groups = [(node, good[index]) for index, node in enumerate(batch)]
        for (node, partner), outcome in zip(groups, (yield groups)):
            retests[node] = (partner, outcome)
    return retests


def _other(pair, node):
    return pair[1] if pair[0] == node else pair[0]


def round_scale(nodes, references=()):
    if len(nodes) == 1 and references:  # one node in this run: at scale, it joins a node outside the run
        outcome = (yield [(nodes[0], references[0])])[0]
        proven, why = (yield from _Prover(references).prove(references[0])) if outcome["status"] != PASS else (True, None)
        if not proven:
            return {nodes[0]: _unplaced(outcome, nodes[0], references[0], why)}
        return {nodes[0]: _verdict(outcome["status"], outcome, "with %s (outside this run): %s" % (
            references[0], outcome["actual"]), outcome["cause_key"])}
    if len(nodes) < 2:
        return _skip_all(nodes, "scale-up needs two nodes that passed round 2")
    verdicts, passed, last = {}, 0, None
    for size in scale_sizes(len(nodes)):
        group = tuple(nodes[:size])
        outcome = (yield [group])[0]
        if outcome["status"] == PASS:
            passed, last = size, outcome
            continue
        added = nodes[passed:size]
        for node in nodes[:passed]:
            verdicts[node] = _verdict(PASS, last, "holds up to %d nodes (%s); stopped at %d" % (passed, last["actual"], size))
        for node in added:
            verdicts[node] = _verdict(outcome["status"], outcome, "first miss at %d nodes, added %s: %s" % (
                size, _names(added), outcome["actual"]), outcome["cause_key"])
        verdicts.update(_skip_all(nodes[size:], "scale-up stopped at %d nodes" % size))
        return verdicts
    for node in nodes:
        verdicts[node] = _verdict(PASS, last, "all %d nodes: %s" % (len(nodes), last["actual"]))
    return verdicts


def _names(nodes, limit=6):
    text = ", ".join(nodes[:limit])
    return text + (" and %d more" % (len(nodes) - limit) if len(nodes) > limit else "")


def round_whole(nodes, references=()):
    """One run across every node; a miss traced to some nodes fails them, an untraced miss fails all."""
    if len(nodes) < 2:
        if nodes and references:
            return (yield from round_scale(nodes, references))
        return _skip_all(nodes, "a run across nodes needs two nodes that passed alone")
    return whole(nodes, (yield [tuple(nodes)])[0])


def whole(nodes, outcome):
    """The verdicts of one run across ``nodes`` (two or more): a miss traced to some nodes (its ``by_host``) fails them
    and clears the others; an untraced miss fails all."""
    blamed = set(outcome.get("by_host") or {})
    verdicts = {}
    for node in nodes:
        if outcome["status"] == PASS:
            verdicts[node] = _verdict(PASS, outcome, "all %d nodes: %s" % (len(nodes), outcome["actual"]))
        elif blamed and node not in blamed:
            verdicts[node] = _verdict(PASS, outcome, "across %d nodes the miss is traced to %s: %s" % (
                len(nodes), _names(sorted(blamed)), outcome["actual"]))
        else:
            verdicts[node] = _verdict(outcome["status"], outcome, "across %d nodes: %s" % (len(nodes), outcome["actual"]),
                                      outcome["cause_key"])
    return verdicts


def round_bisection(nodes, references=(), units=None):
    """One all-to-all across every node that passed the rounds before: the run that loads the spine layer's bisection,
    which a ring (each node talking to two neighbours) never does. Where it misses and no node is traced, each scalable
    unit (``units``: {node: unit}) of two nodes or more runs alone, all at once: a unit that misses alone is to blame;
    when every unit holds alone, the shortfall is the spine layer between them, never a node."""
    if len(nodes) < 2:
        if nodes and references:  # a --limit'ed rerun (remediate.yml): the pod's all-to-all is a run of the pod
            outcome = verdict(SKIP, "an all-to-all across the pod", "not applicable: the pod's all-to-all runs across the "
                              "whole pod; this run has one node (%s), proven with nodes outside it in rounds 2 and 3" % nodes[0],
                              cause_key=None)
            outcome["not_applicable"] = True
            return {nodes[0]: outcome}
        return _skip_all(nodes, "an all-to-all across nodes needs two nodes that passed the rounds before")
    units = units or {}
    outcome = (yield [tuple(nodes)])[0]
    count = len({units.get(node) for node in nodes})
    if outcome["status"] == PASS:
        return {node: _verdict(PASS, outcome, "all %d nodes (%d scalable unit%s): %s" % (
            len(nodes), count, "" if count == 1 else "s", outcome["actual"])) for node in nodes}
    if outcome.get("by_host") or outcome["status"] != FAIL or outcome["cause_key"] not in ("slow", "warning"):
        return whole(nodes, outcome)  # a hang, wrong results, a node's NICs: round_whole's blame
    members = {}
    for node in nodes:
        members.setdefault(units.get(node), []).append(node)
    groups = [tuple(group) for group in members.values() if len(group) >= 2]
    if count < 2 or not groups:
        return {node: _verdict(FAIL, outcome, "across %d nodes, each of which passed alone and in pairs: %s" % (
            len(nodes), outcome["actual"]), "bisection") for node in nodes}
    return _units_alone(nodes, units, groups, outcome, count, (yield groups))


def _unit_names(groups, units):
    return ", ".join(str(units.get(group[0])) for group in groups)


def _units_alone(nodes, units, groups, outcome, count, results):
    """Each unit's all-to-all alone (``results``, one per group), side by side, after the pod's missed with no node
    traced: who is to blame."""
    alone = dict(zip(groups, results))
    failed = [group for group, result in alone.items() if result["status"] == FAIL]
    unread = [group for group, result in alone.items() if result["status"] not in (PASS, FAIL)]
    verdicts = {}
    for group, result in alone.items():
        unit = units.get(group[0])
        if result["status"] == FAIL:
            traced = whole(list(group), result)  # a node of the unit, else the unit
            for node, found in traced.items():
                key = "unit" if found["cause_key"] in ("slow", "warning") and not result.get("by_host") else found["cause_key"]
                verdicts[node] = dict(found, actual="scalable unit %s alone: %s" % (unit, found["actual"]), cause_key=key)
        elif unread or result["status"] != PASS:  # a unit not read proves nothing: nobody is cleared on it
            why = "the pod's all-to-all missed (%s) and scalable unit%s %s could not be judged alone" % (
                outcome["actual"], "" if len(unread) == 1 else "s", _unit_names(unread, units))
            verdicts.update({node: verdict(ERROR, outcome["expected"], why, cause_key=None, command=outcome.get("command"))
                             for node in group})
        else:
            text = "scalable unit %s holds alone (%s); the pod's miss is traced to %s" % (
                unit, result["actual"], _unit_names(failed, units))
            verdicts.update({node: _verdict(PASS, result, text) for node in group})
    if failed or unread:
        verdicts.update(_skip_all([node for node in nodes if node not in verdicts],
                                  "the only node of its scalable unit in this run: not run alone"))
        return verdicts
    held = "; ".join("%s %s" % (units.get(group[0]), result["actual"].split(" [log")[0]) for group, result in alone.items())
    single = sorted({str(units.get(node)) for node in nodes} - {str(units.get(group[0])) for group in groups})
    return {node: _verdict(FAIL, outcome, "each scalable unit holds alone (%s)%s, across all %d units the all-to-all "
                           "misses: %s" % (held, "; %s of one node (its all-to-all is round 1's)" % ", ".join(single) if single else "",
                                           count, outcome["actual"]), "spine") for node in nodes}


# The rounds, by the name a fabric check gives as its `round:` (catalog/nccl_fabric.yml).
ROUNDS = {"pairs": round_pairs, "scale": round_scale, "bisection": round_bisection, "whole": round_whole}


# Before any round: who has nobody to run with, no launcher to start the run, or was left out of it.

def launcher_missing(nodes, references, launcher, expect):
    """ERROR verdicts for every node when a run across nodes is due but no launcher host exists; else None."""
    if (len(nodes) >= 2 or (nodes and references)) and not launcher:
        why = "no launcher host: add one to the inventory group `launcher` (it starts %s)" % expect["pyramid_nccl_launcher"]
        return {node: verdict(ERROR, "a launcher host", why, cause_key=None) for node in nodes}
    return None


def lone_node(hosts, references):
    """SKIP 'not applicable' for the one GPU node of a run with no other node anywhere to run with; else None.

    A lone GPU box has no fabric to judge: pairs, scale-up and a pod-wide step need two nodes.
    """
    if len(hosts) != 1 or references:
        return None
    why = ("not applicable: %s is the only GPU node of this run and none outside it is named "
           "(a run across nodes needs two; give a launcher group and more nodes to check the fabric)" % hosts[0])
    outcome = verdict(SKIP, "a run across nodes", why, cause_key=None)
    outcome["not_applicable"] = True
    return {hosts[0]: outcome}


@_registry.alone("fabric")
def on_a_lone_box(_check, node):
    """A fabric check on a lone GPU box: not applicable, in lone_node's words (its record runs no command)."""
    return dict(lone_node([node], None)[node], command="(none)")


def climbs_on(outcome):
    """Whether a node goes on to the layer's next fabric check: it passed this one, or its miss was placed on the path
    between it and its partner (each side passed with a known-good partner: the node itself is proven, and the link
    kind makes that pair's run again after the hunt, naming the link; catalog/link.yml). Held back for a link, the
    node's later rounds would be left unrun and the node never GO, whatever the link run finds."""
    return outcome.get("status") == PASS or outcome.get("cause_key") == "path"


def left_out(docs, verdicts, check, layer):
    """SKIP, saying why, for nodes left out of a round (a lower layer's gate already said so for blocked ones)."""
    skipped = {}
    for host, doc in docs.items():
        if host in verdicts or any(r["check"] == check["id"] and r["layer"] == layer for r in doc["results"]):
            continue
        failing = sorted({"%s=%s" % (r["check"], r["status"]) for r in doc["results"]
                          if r["layer"] <= layer and not r.get("not_applicable")
                          and (r["status"] in NOT_PASSING or r["status"] == SKIP)})
        skipped[host] = verdict(SKIP, "a node that passed the rounds before",
                                "not in this round: %s" % (", ".join(failing) or "no results below"), cause_key=None)
    return skipped
