# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 3 under load on InfiniBand: the induced incast's verdict, one per target (docs/incast.md, issue 36).

InfiniBand has no ECN marks, DCQCN or PFC to count: a link sends only what the other end has credits for, so an incast
shows as PortXmitWait (the ticks a port had data and no credit) on the leaf port facing the target, and nothing is
lost unless a packet waits longer than the head-of-queue lifetime the SM set on that port (PortXmitDiscards). What a
healthy leaf shows: the port waits while the senders run (the load proven), discards nothing, and stops waiting when
they stop. A port still waiting after the load is held by something other than the load: a credit loop (routes that
form a cycle deadlock under load and never drain) or a receiver that stopped returning credits.

Inputs: ibqueryerrors' facts (linux_ibqueryerrors: {"ports": {"<GUID>:<port>": {counter: n}}, "thresholds",
"suppressed"}) read before the senders fire, after they end and once more after that ("settled"), each with the time
it was read; a read that failed is a string saying why: the verdict is then ERROR about the read, never a PASS.
"""

from __future__ import annotations

from ..core.model import BLOCKED, ERROR, FAIL, PASS, SKIP, verdict as verdict_of
from . import incast as _roce
from .infiniband import not_counted, port_counts, stuck
from .registry import judge

LABELS = ("before", "after", "settled")
COUNTERS = ("PortXmitWait", "PortXmitDiscards")  # what the verdict reads: a read that may leave either out proves nothing
CAUSES = {
    "ib_discards": ("Packets discarded at the leaf port under the incast: they waited longer than the head-of-queue "
                    "lifetime the SM set on the port (opensm leaf_head_of_queue_lifetime / head_of_queue_lifetime too "
                    "short for an incast's queueing), or a VL without buffers; every discard is a retry that stalls a "
                    "collective"),
    "ib_wait_after": ("The leaf port kept waiting for credits after the load ended: a credit loop (the SM's routes form a "
                      "cycle that deadlocks under load: a routing engine without deadlock avoidance for this topology) "
                      "or the receiver at its other end stopped returning credits (its HCA hung under the burst)"),
    "no_load": ("The leaf port never waited for credits: the incast did not congest it (senders not running, or their "
                "traffic not through this port)"),
}


class Unreadable(Exception):
    """A read the verdict needs is missing, partial or not a count: the read is at fault, not the fabric."""


def _read(reads, label):
    read = reads.get(label)
    if isinstance(read, str):
        raise Unreadable("ibqueryerrors %s the incast: %s" % (_when(label), read))
    if not isinstance(read, dict) or not isinstance(read.get("ports"), dict):
        raise Unreadable("ibqueryerrors %s the incast: not read" % _when(label))
    return read


def _hidden(read, label):
    """Why a read may leave the verdict's counts out (thresholds, suppressed counters), or None."""
    if read.get("thresholds"):
        return "%s the incast, counts at or under thresholds %s are not listed" % (_when(label), ", ".join(
            "%s %s" % item for item in sorted(read["thresholds"].items())))
    suppressed = sorted(set(read.get("suppressed") or ()) & set(COUNTERS))
    return "%s suppressed %s the incast" % (", ".join(suppressed), _when(label)) if suppressed else None


def _when(label):
    return {"before": "before", "after": "after", "settled": "a little after"}[label]


def _count(read, key, counter, where, label):
    counts = port_counts(read, key)
    if counts is None:
        raise Unreadable("%s: no counters in %s's read %s the incast" % (where, read.get("reader") or "ibqueryerrors", _when(label)))
    if not_counted(read, key, (counter,)):
        raise Unreadable("%s: %s not counted by the port (N/A in %s's read %s the incast)" % (
            where, counter, read.get("reader") or "ibqueryerrors", _when(label)))
    value = counts.get(counter, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Unreadable("%s: %s %r %s the incast is not a count" % (where, counter, value, _when(label)))
    why = stuck(read, key, counter, value)
    if why:
        raise Unreadable("%s: %s %s %s the incast (clear it: perfquery -R -G %s)" % (
            where, counter, why, _when(label), key.replace(":", " ")))
    return value


def _rise(reads, first, last, key, counter, where):
    before, after = _count(reads[first], key, counter, where, first), _count(reads[last], key, counter, where, last)
    if after < before:
        raise Unreadable("%s: %s went from %d to %d (cleared during the incast)" % (where, counter, before, after))
    return after - before


@judge("incast_ib", scope="incast")
def verdict(facts, expect):
    """One target's incast on InfiniBand: facts = {"group": {target, senders, ports: [{leaf, port, rail, key}]} (key:
    the leaf port as ibqueryerrors keys it, "<GUID>:<port>"); "reads": {"before", "after", "settled": ibqueryerrors
    facts or why not read, "seconds": {"load": before to after, "settle": after to settled}}; "failed": {node: its
    runs of this incast that did not end well}}. An incast whose load did not run as planned is not judged (ERROR)."""
    group, failed = facts["group"], facts.get("failed") or {}
    said = [run for node in [group["target"]] + list(group["senders"]) for run in failed.get(node, [])]
    if said:
        return _roce.not_as_planned(group, said)
    return _judged(group, expect, facts["reads"])


def _judged(group, expect, reads):
    """The outcome of one incast's port counters (verdict's facts, taken apart)."""
    target, senders = group["target"], list(group["senders"])
    who = "target %s, senders %s" % (target, ", ".join(senders) or "-")
    try:
        usable = {label: _read(reads, label) for label in LABELS}
        hidden = [_hidden(usable[label], label) for label in LABELS]
        if any(hidden):
            raise Unreadable("the read does not show every count (%s): run ibqueryerrors with --threshold-file /dev/null "
                             "and without -s (the catalog's way does)" % "; ".join(item for item in hidden if item))
        findings = [_port(entry, usable, reads.get("seconds") or {}, expect, target) for entry in group["ports"]]
    except Unreadable as exc:
        return {"status": "ERROR", "target": target, "senders": senders, "cause": None, "msg": "incast at %s: cannot judge: %s" % (who, exc)}
    ports = [dict(entry, cause=f["cause"], msg=f["msg"]) for entry, f in zip(group["ports"], findings)]
    failed = [f for f in findings if f["cause"]]
    if not failed:
        return {"status": "PASS", "target": target, "senders": senders, "cause": None, "ports": ports,
                "msg": "incast at %s: %s" % (who, "; ".join(f["msg"] for f in findings))}
    return {"status": "FAIL", "target": target, "senders": senders, "cause": failed[0]["cause"], "ports": ports,
            "causes": sorted({f["cause"] for f in failed}),
            "msg": "incast at %s: %s" % (who, "; ".join("%s: %s" % (f["msg"], CAUSES[f["cause"]]) for f in failed))}


def _port(entry, reads, seconds, expect, target):
    where = "%s port %s (%s rail %s)" % (entry["leaf"], entry["port"], target, entry["rail"])
    waited = _rise(reads, "before", "after", entry["key"], "PortXmitWait", where)
    discards = _rise(reads, "before", "after", entry["key"], "PortXmitDiscards", where)
    lingering = _rise(reads, "after", "settled", entry["key"], "PortXmitWait", where)
    figures = "PortXmitWait +%d under the load (%s), +%d in the %s after it; PortXmitDiscards +%d" % (
        waited, _seconds(seconds.get("load")), lingering, _seconds(seconds.get("settle")), discards)
    cause = None
    if discards > expect["pyramid_incast_discards_max"]:
        cause = "ib_discards"
    elif lingering > expect["pyramid_ib_xmit_wait_idle_max"]:
        cause = "ib_wait_after"
    elif waited == 0:
        cause = "no_load"
    return {"cause": cause, "msg": "%s: %s" % (where, figures)}


def _seconds(value):
    return "%.1f s" % value if isinstance(value, (int, float)) else "time not read"


def expected(expect):
    """What a passing incast on InfiniBand shows, in the inventory's numbers."""
    return ("the target's leaf port waiting for credits under the load (PortXmitWait rising), PortXmitDiscards rising by at "
            "most %d, PortXmitWait rising by at most %d once the load ended" % (
                expect["pyramid_incast_discards_max"], expect["pyramid_ib_xmit_wait_idle_max"]))


def target_verdict(outcome, expect):
    """The target's verdict from verdict()'s outcome, as RoCE's incast gives its own (judging/incast.py)."""
    return _roce.target_verdict(outcome, expect, causes=CAUSES, wanted=expected(expect))


# --- the nodes that were no target: their rows stand on the incasts at their leaves --------------------------------

LEAF_CAUSES = ("ib_discards", "ib_wait_after")  # the leaf port's own; no_load proves nothing about it


def leaf_outcomes(outcomes):
    """{leaf: [(status, said, cause, target)]}: each leaf port a target's incast loaded, judged on its own figures (a
    target on every rail loads eight leaves: one port's discards are that leaf's, not the other seven's). FAIL where
    the port discarded or kept waiting; ERROR where the incast could not be judged or never loaded the port (not
    proven); PASS otherwise. ``outcomes``: [(group, verdict()'s outcome)]."""
    by_leaf = {}
    for group, outcome in outcomes:
        for port in outcome.get("ports") or [dict(port, cause=None, msg=None) for port in group["ports"]]:
            said = port.get("msg") or "%s port %s (target %s)" % (port["leaf"], port["port"], group["target"])
            if outcome["status"] == ERROR:
                status, cause = ERROR, outcome["msg"]
            elif port.get("cause") in LEAF_CAUSES:
                status, cause = FAIL, CAUSES[port["cause"]]
            elif port.get("cause"):  # no_load: the port never waited, so nothing was proven about it
                status, cause = ERROR, CAUSES[port["cause"]]
            else:
                status, cause = PASS, None
            by_leaf.setdefault(port["leaf"], []).append((status, said, cause, group["target"]))
    return by_leaf


def bystander(host, plan, by_leaf, check_id):
    """The verdict of a node that was no target: its row stands on the incasts at its leaves (leaf_outcomes). Not
    applicable where each of them passed; BLOCKED behind a leaf whose incast failed or could not be judged (as the
    nodes behind a failing RoCE leaf: not failing on its own, not climbing past Layer 3 either); SKIP "not proven"
    where no incast loaded one. ``check_id``: the incast check its blocked_by names."""
    if host not in plan["nodes"]:
        return verdict_of(SKIP, "layers 0-3 passed", "not run: %s did not pass the layers below" % host, command="(none)")
    leaves = (plan.get("node_leaves") or {}).get(host) or []
    failed = [(leaf, entry) for leaf in leaves for entry in by_leaf.get(leaf, []) if entry[0] != PASS]
    if failed:
        return _blocked(failed, check_id)
    unloaded = [leaf for leaf in leaves if leaf not in by_leaf]
    if unloaded or not leaves:
        return verdict_of(SKIP, "its leaves proven by an incast that passed",
                          "not proven: %s" % ("no incast loaded %s" % ", ".join(unloaded) if unloaded else
                                              "none of its rails was found in the subnet's read"), command="(none)")
    return verdict_of(SKIP, "an incast on its leaves",
                      "not applicable: its leaves are proven by the targets' incasts (one target per leaf: %s passed)" % (
                          ", ".join(leaves)), command="(none)", not_applicable=True)


def _blocked(failed, check_id):
    """The BLOCKED verdict of a node behind leaves whose incast did not pass, in gate/blocking.py's shape."""
    failed = sorted(failed, key=lambda item: item[1][0] != FAIL)  # a leaf's own fault named before one not proven
    leaves = list(dict.fromkeys(leaf for leaf, _entry in failed))
    statuses = "/".join(sorted({entry[0] for _leaf, entry in failed}))
    first = failed[0][1]
    return verdict_of(BLOCKED, "every leaf in this host's path passes its incast",
                      "blocked by %s: %s %s (%s)" % (", ".join(leaves), check_id, statuses, "; ".join(
                          dict.fromkeys("target %s" % entry[3] for _leaf, entry in failed))),
                      cause="Not this host: %s %s its incast at target %s (%s)" % (
                          failed[0][0], "fails" if first[0] == FAIL else "could not be proven by", first[3], first[2]),
                      blocked_by=[{"switch": leaf, "check": check_id, "status": "/".join(sorted({e[0] for l, e in failed if l == leaf})),
                                   "ports": []} for leaf in leaves])


def verdicts(outcomes, plan, hosts, expects, check_id):
    """{node: verdict} of an InfiniBand incast: each target's its own incast's (target_verdict), every other node's
    standing on its leaves' incasts (bystander). ``outcomes``: [(group, outcome)] in the plan's order; ``expects``:
    {target: its expectations}."""
    found = {group["target"]: target_verdict(outcome, expects[group["target"]]) for group, outcome in outcomes}
    by_leaf = leaf_outcomes(outcomes)
    for host in hosts:
        if host not in found:
            found[host] = bystander(host, plan, by_leaf, check_id)
    return found
