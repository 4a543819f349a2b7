# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 4's rail mesh: which nodes test which on every rail, and who is to blame for a miss.

Every round is a matching: a node has at most one partner, and a pair runs both ways on every rail
at once (each node is server for its partner and client of its partner, on distinct ports). Two
rounds that share no pair give every node two partners, whatever the pod's size; a node's rail
that misses with both is that node's, a miss with one partner only is the path between the two.
Only when that cannot tell (a pod of two, a partner that missed everywhere) does a retest round
pair the suspect with a known-good partner on that rail.

A run is one direction on one rail: {"server", "client", "rail", "gbps" or None, "status", "actual"}.
"""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS


def matching(nodes, avoid=frozenset(), first=None):
    """Pairs (a, b) of distinct nodes, none in ``avoid`` (frozensets), ``first`` matched first.

    Node i is offered node i + n/2 and onwards, so partners are far apart in the inventory (other
    scalable units: their traffic crosses the spines).
    """
    count = len(nodes)
    order = ([first] if first in nodes else []) + [node for node in nodes if node != first]
    taken, pairs = set(), []
    for node in order:
        if node in taken:
            continue
        start = nodes.index(node)
        for step in range(1, count):
            other = nodes[(start + count // 2 + step - 1) % count]
            if other != node and other not in taken and frozenset((node, other)) not in avoid:
                pairs.append((node, other))
                taken.update((node, other))
                break
    return pairs


def plan_rounds(nodes):
    """The two rounds of the mesh: lists of pairs. A pod of two or three has fewer distinct pairs."""
    if len(nodes) < 2:
        return []
    first = matching(nodes)
    left_out = [node for node in nodes if not any(node in pair for pair in first)]
    second = matching(nodes, {frozenset(pair) for pair in first}, left_out[0] if left_out else None)
    return [first] + ([second] if second else [])


def runs_of(pairs, rails):
    """Every directed run of a round: each pair both ways on every rail."""
    return [{"server": server, "client": client, "rail": rail}
            for a, b in pairs for server, client in ((a, b), (b, a)) for rail in rails]


def _worst(statuses):
    return ERROR if ERROR in statuses and FAIL not in statuses else FAIL if FAIL in statuses else PASS


def pair_outcomes(runs):
    """(node, rail) -> {partner: (status, [runs])}: a pair passes on a rail only if both ways pass."""
    pairs = {}
    for run in runs:
        key = frozenset((run["server"], run["client"]))
        pairs.setdefault((key, run["rail"]), []).append(run)
    found = {}
    for (key, rail), both in pairs.items():
        status = PASS if all(r["status"] == PASS for r in both) else \
            FAIL if any(r["status"] == FAIL for r in both) else ERROR
        for node in key:
            (partner,) = key - {node}
            found.setdefault((node, rail), {})[partner] = (status, both)
    return found


def _sound(partner, node, rail, outcomes):
    """The partner passes with someone else on this rail: a miss with it is not its rail's."""
    return any(status == PASS for other, (status, _runs) in outcomes[(partner, rail)].items() if other != node)


def _place(key, outcomes):
    """Whose a node's misses on a rail are, from its partners:

    'own' - it misses with two partners that pass elsewhere; 'path' - with one such partner while it
    passes with another; 'partner' - only with partners that miss elsewhere too, while it passes with
    another; None - nothing tells (a known-good partner must: plan_retests)."""
    node, rail = key
    partners = outcomes[key]
    missed = [p for p, (status, _runs) in partners.items() if status != PASS]
    passes = len(missed) < len(partners)
    sound = [p for p in missed if _sound(p, node, rail, outcomes)]
    if len(sound) >= 2:
        return "own"
    if sound and passes:
        return "path"
    if not sound and passes:
        return "partner"
    return None


def plan_retests(runs, limit_rounds=4):
    """Rounds of (suspect, known-good partner, rail) for the (node, rail) the first rounds cannot place.

    A good node (every pair on that rail passed) lends itself to one suspect per round; nothing is
    retested on a rail where no node is good, and a suspect is retested once.
    """
    outcomes = pair_outcomes(runs)
    good = {}
    for (node, rail), partners in sorted(outcomes.items()):
        if all(status == PASS for status, _runs in partners.values()):
            good.setdefault(rail, []).append(node)
    unplaced = [key for key in sorted(outcomes) if any(s != PASS for s, _r in outcomes[key].values())
                and _place(key, outcomes) is None]
    rounds = []
    while unplaced and len(rounds) < limit_rounds:
        busy, batch, later = set(), [], []
        for node, rail in unplaced:
            free = [g for g in good.get(rail, []) if g != node and g not in outcomes[(node, rail)]]
            partner = next((g for g in free if (g, rail) not in busy), None)
            if partner is None:
                if free:  # every known-good partner on this rail is taken this round
                    later.append((node, rail))
                continue
            busy.add((partner, rail))
            batch.append((node, partner, rail))
        if not batch:
            break
        rounds.append(batch)
        unplaced = later
    return rounds


def blame(runs, rails_of=None):
    """Verdict per (node, rail) from every run it was in: {"status", "actual", "cause_key"}.

    cause_key: "rail" (it misses with two partners or more: this node's rail), "path" (it misses with
    one partner, and each passes with others: the leaf ports, cables or spines between them),
    "whole_rail" (every node misses on this rail: the rail's switches), "unplaced" (it missed with its
    only partner and no known-good partner could tell whose it is).
    """
    outcomes = pair_outcomes(runs)
    by_rail = {}
    for (node, rail), partners in outcomes.items():
        by_rail.setdefault(rail, []).append(all(s != PASS for s, _r in partners.values()))
    verdicts = {}
    for key in sorted(outcomes):
        node, rail = key
        partners = outcomes[key]
        shown = "; ".join(_said(r, node) for _p, (_s, both) in sorted(partners.items()) for r in both)
        missed = [status for status, _runs in partners.values() if status != PASS]
        if not missed:
            verdicts[key] = {"status": PASS, "actual": shown, "cause_key": None}
            continue
        place = _place(key, outcomes)
        # what this node's own misses say: with partners that pass elsewhere where there are any
        sound = [status for partner, (status, _runs) in partners.items()
                 if status != PASS and _sound(partner, node, rail, outcomes)]
        status = _worst(sound or missed)
        if len(by_rail[rail]) > 2 and all(by_rail[rail]):
            verdicts[key] = {"status": status, "actual": shown, "cause_key": "whole_rail"}
        elif place == "own":
            verdicts[key] = {"status": status, "actual": shown, "cause_key": "rail"}
        elif place == "path":
            verdicts[key] = {"status": status, "actual": shown, "cause_key": "path"}
        elif place == "partner":
            verdicts[key] = {"status": PASS, "actual": shown + " (that miss is %s's: it misses with others too)" % ", ".join(
                sorted(p for p, (s, _r) in partners.items() if s != PASS)), "cause_key": None}
        else:
            verdicts[key] = {"status": status, "actual": shown + "; no known-good partner on this rail tells whose",
                             "cause_key": "unplaced"}
    return verdicts


def _said(run, node):
    direction = ("%s <- %s" % (node, run["client"])) if run["server"] == node else ("%s -> %s" % (node, run["server"]))
    if run.get("gbps") is not None:  # a GPUDirect run notes its share of the host-memory run
        return "%s: %.1f Gb/s%s" % (direction, run["gbps"], " (%s)" % run["note"] if run.get("note") else "")
    return "%s: %s" % (direction, run.get("actual") or "no measurement")
