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
def verdict(group, expect, reads):
    """One record for an incast on InfiniBand: group = {target, senders, ports: [{leaf, port, rail, key}]} (key: the
    leaf port as ibqueryerrors keys it, "<GUID>:<port>"); reads = {"before", "after", "settled": ibqueryerrors facts or
    why not read, "seconds": {"load": before to after, "settle": after to settled}}."""
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


def record(host, check, catalog, expect, outcome, engine):
    """The target's result from verdict()'s outcome, as RoCE's incast records its own (judging/incast.py)."""
    return _roce.record(host, check, catalog, expect, outcome, engine, causes=CAUSES, wanted=expected(expect))
