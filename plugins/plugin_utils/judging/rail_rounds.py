# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rail mesh's verdicts across runs (Layer 2's pings, Layer 4's ib_write_bw): who is to blame for a miss, per node
and rail, and each node's one verdict; the retests a miss nothing places still wants, as data; and the verdicts of a
node the mesh could not measure (a lone node, a node left out below, a GPUDirect run with no sound baseline).

Each run was judged alone by its check's judge (judging/rail_mesh.py); run/rail_rounds.py plans the rounds and
run/rail_mesh_phases.py runs them, hands these functions the judged runs and records what they return.

Two rounds that share no pair give every node two partners: a node's rail that misses with both is that node's, a miss
with one partner only is the path between the two. Only when that cannot tell (a pod of two, a partner that missed
everywhere) does a retest round pair the suspect with a known-good partner on that rail (plan_retests).

A run is one direction on one rail: {"server", "client", "rail", "gbps" or None, "status", "actual"}.
"""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, verdict
from ..core.results import NOT_PASSING
from . import registry as _registry, unjudged


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


def blame(runs):
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


def node_verdicts(check, rail_names, verdicts, expect_of, runs=()):
    """One verdict per node from blame()'s per (node, rail): its worst rail, every miss named with rail, partner and
    figure; the cause the check's ``causes`` give for the miss (``cause_key`` beside it), and per rail its status,
    cause and figures for report.html (``detail``). ``rail_names``: the plan's rails, by index; ``expect_of(node)``:
    the node's expectations (what the check wants, in words)."""
    out = {}
    runs_of_node, runs_with = {}, {}
    for run in runs:
        runs_of_node.setdefault(run["client"], []).append(run)
        for end in (run["client"], run["server"]):
            runs_with.setdefault(end, []).append(run)
    by_node = {}
    for (node, rail), outcome in verdicts.items():
        by_node.setdefault(node, {})[rail] = outcome
    for node, rails in by_node.items():
        statuses = [o["status"] for o in rails.values()]
        status = FAIL if FAIL in statuses else ERROR if ERROR in statuses else PASS
        misses = [(rail, o) for rail, o in sorted(rails.items()) if o["status"] != PASS]
        name = rail_names
        if status == PASS:
            mine = runs_with.get(node, [])
            actual = "%d rails, both ways with %s: %s" % (len(rails), " and ".join(_partners(mine, node)), _figure(mine))
            cause_key = None
        else:
            actual = "; ".join("%s: %s" % (name[rail], o["actual"]) for rail, o in misses)
            cause_key = "error" if status == ERROR else next(o["cause_key"] for _rail, o in misses if o["status"] == FAIL)
            own = [r.get("finding") for r in runs_of_node.get(node, []) if r.get("finding")]
            if own and cause_key in ("rail", "whole_rail", "unplaced"):
                cause_key = own[0]  # what the node's own runs found (its address missing, no route at all)
            if len(misses) == len(rails) > 1 and "all_rails" in check.get("causes", {}) and cause_key != "address":
                cause_key = "all_rails"
        out[node] = verdict(status, "%s on every rail (%s), with each partner both ways" % (_wanted(check, expect_of(node)), ", ".join(name)),
                            actual, cause=check.get("causes", {}).get(cause_key) if cause_key else None, cause_key=cause_key,
                            detail={"rails": {name[rail]: dict(_rail_figures(runs_with.get(node, []), rail, o["status"]),
                                                               status=o["status"], cause=o["cause_key"])
                                              for rail, o in sorted(rails.items())}})
    return out


def _rail_figures(runs, rail, status):
    """A node's figures on one rail for report.html (both ends of its runs): the lowest Gb/s, the longest round trip and
    the most loss; on a rail that passed, of its passing runs only (as _figure: a miss that is its partner's is named
    in that partner's result)."""
    mine = [run for run in runs if run["rail"] == rail]
    if status == PASS:
        mine = [run for run in mine if run.get("status") == PASS] or mine
    figures = {}
    for key, pick in (("gbps", min), ("rtt_ms", max), ("loss_percent", max)):
        values = [run[key] for run in mine if run.get(key) is not None]
        if values:
            figures[key] = pick(values)
    return figures


def _partners(runs, node):
    return sorted({run["server"] if run["client"] == node else run["client"] for run in runs})


def _figure(runs):
    """The worst figure of a node's passing runs: the lowest Gb/s, or the longest round trip (a miss
    that is its partner's is named in that partner's result, not as this node's figure)."""
    measured_runs = [run for run in runs if run.get("gbps") is not None]
    measured_runs = [run for run in measured_runs if run.get("status") == PASS] or measured_runs
    if measured_runs:
        lowest = min(measured_runs, key=lambda run: run["gbps"])
        return "lowest %.1f Gb/s%s" % (lowest["gbps"], " (%s)" % lowest["note"] if lowest.get("note") else "")
    rtts = [run["rtt_ms"] for run in runs if run.get("rtt_ms") is not None]
    return "longest rtt avg %.3f ms" % max(rtts) if rtts else "no figure"


def _wanted(check, expect):
    """What the check expects, in words: its `wanted`, the inventory's figures filled in (catalog/rail_mesh.yml)."""
    return check["wanted"].format_map(expect)


def gpudirect_not_compared(plan, node, switched_off):
    """SKIP, neither for nor against GO, for a node with no GPUDirect run judged: switched off, no GPU
    near any rail (the check does not apply to it), or every host-memory run it was in missed (its
    GPUDirect runs had nothing sound to be compared with: rdma_write_bw's finding stands)."""
    planned = any(run.get("gpudirect") and node in (run["server"], run["client"]) for runs in plan.get("rounds", []) for run in runs)
    if planned and not switched_off:
        return unjudged.not_run("a GPU near each rail", "not compared: every host-memory run of %s missed (rdma_write_bw's "
                                "finding), so its GPUDirect runs have no sound baseline" % node)
    why = ("not applicable: pyramid_rdma_gpudirect is false" if switched_off else
           "not applicable: no GPU near any rail of %s (pyramid_rdma_gpudirect_gpus, pyramid_gpus_per_node)" % node)
    return unjudged.not_applicable("a GPU near each rail", why)


def left_below(results, check):
    """SKIP for a node that stopped below the check's layer, or was blocked at it by a switch (``results``: its
    results so far), in the gate's own words: "not run: blocked at layer N (checks)"."""
    layer = check["layer"]
    failing = [r for r in results if r["layer"] <= layer and r["check"] != check["id"] and r["status"] in NOT_PASSING]
    if failing:
        lowest = min(r["layer"] for r in failing)
        why = "not run: blocked at layer %d (%s)" % (lowest, ", ".join(sorted({r["check"] for r in failing if r["layer"] == lowest})))
    else:
        why = "not run: no results below layer %d" % layer
    return unjudged.not_run("a node that passed every layer below %d" % layer, why)


@_registry.alone("rail_mesh")
def on_a_lone_box(check, node):
    """A mesh check on a lone GPU box: not applicable (no_partner's words, as the mesh's run says it)."""
    return no_partner(check, node, True)


def no_partner(check, node, alone):
    """The only node that reached the check's layer: no partner to run with. On a lone GPU box (the only node
    of the run, ``alone``) the check does not apply; in a pod whose other nodes stopped below, it is a gap: SKIP,
    never a PASS."""
    if alone:
        return unjudged.not_applicable("a partner node on every rail", "not applicable: %s is the only GPU node of this run, "
                                       "and %s needs a partner on the other end of each rail" % (node, check["id"]))
    return unjudged.not_run("a partner node on every rail", "no partner: every other node stopped below layer %d, so no rail "
                            "of %s was measured" % (check["layer"], node))
