# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""iputils ping: the statistics block (transmitted, received, errors, loss) and the rtt line.

Real layouts (tests/unit/parsers/linux_ping/ say where each comes from): `N packets transmitted, M
received, [+E errors, ]P% packet loss, time Tms`, then `rtt min/avg/max/mdev = a/b/c/d ms` when
anything came back. A source address that is not on the host (`ping: bind: Cannot assign requested
address`, exit code 2) is a finding about the host's rail address, and `connect: Network is
unreachable` (no route to the target at all) one about routing: facts, not failures.
"""

from __future__ import annotations

import math
import re

from ._registry import parser

_STATS = re.compile(r"^(\d+) packets transmitted, (\d+) received,(?: \+(\d+) errors,)?(?: \+\d+ duplicates,)? ([\d.]+)% packet loss")
_RTT = re.compile(r"^(?:rtt|round-trip) min/avg/max/(?:mdev|stddev) = ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")
_NO_SOURCE = re.compile(r"bind(?: icmp socket)?: Cannot assign requested address")
_NO_ROUTE = re.compile(r"^(?:ping: )?connect: Network is unreachable")


def _finite(text, what):
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError("%s %r is not a number ping prints" % (what, text))
    return value


@parser("linux_ping", "iputils ping: packets sent and received, loss, round-trip times", kind="text")
def ping(text):
    lines = [line.strip() for line in text.splitlines()]
    if any(_NO_SOURCE.search(line) for line in lines):
        return {"source_address_missing": True, "no_route": False, "transmitted": 0, "received": 0, "errors": 0,
                "loss_percent": 100.0, "rtt_avg_ms": None, "rtt_max_ms": None}
    if any(_NO_ROUTE.match(line) for line in lines):
        return {"source_address_missing": False, "no_route": True, "transmitted": 0, "received": 0, "errors": 0,
                "loss_percent": 100.0, "rtt_avg_ms": None, "rtt_max_ms": None}
    stats = [m for m in (_STATS.match(line) for line in lines) if m]
    if len(stats) != 1:
        said = next((line for line in lines if line.startswith("ping:") or "unknown host" in line), None)
        raise ValueError("no ping statistics line%s" % (": ping said %r" % said if said else " (cut short?)"))
    sent, received = int(stats[0].group(1)), int(stats[0].group(2))
    if sent == 0 or received > sent:
        raise ValueError("%d packets transmitted, %d received: not a ping that ran" % (sent, received))
    rtt = [m for m in (_RTT.match(line) for line in lines) if m]
    if received and not rtt:
        raise ValueError("%d replies but no rtt line (cut short?)" % received)
    return {"source_address_missing": False, "no_route": False, "transmitted": sent, "received": received,
            "errors": int(stats[0].group(3) or 0), "loss_percent": _finite(stats[0].group(4), "loss"),
            "rtt_avg_ms": _finite(rtt[0].group(2), "rtt avg") if rtt else None,
            "rtt_max_ms": _finite(rtt[0].group(3), "rtt max") if rtt else None}


# fping (src/fping.c, print_per_system_stats): "<host> : xmt/rcv/%loss = S/R/L%[, outage(ms) = O][, min/avg/max = a/b/c]"
# (-c); "<host> : t1 t2 - t4" (-C, "-" a ping without reply); "xmt/rcv/%return" when duplicates outnumber pings
_FPING_SUMMARY = re.compile(r"^(?P<host>\S+?)\s*: xmt/rcv/%(?P<kind>loss|return) = (?P<sent>\d+)/(?P<received>\d+)/\d+%"
                            r"(?:, outage\(ms\) = \d+)?(?:, min/avg/max = (?P<min>[\d.]+)/(?P<avg>[\d.]+)/(?P<max>[\d.]+))?$")
_FPING_VCOUNT = re.compile(r"^(?P<host>\S+?)\s*:(?P<times>(?: (?:[\d.]+|-))+)$")
_FPING_BIND = re.compile(r"cannot bind source address : Cannot assign requested address")


def _fping_summary(match):
    """(sent, received, rtt avg, rtt max) of a -c summary line."""
    sent, received = int(match.group("sent")), int(match.group("received"))
    if match.group("kind") == "return":
        raise ValueError("%d replies to %d pings (duplicates): not one reply per ping" % (received, sent))
    if received and match.group("avg") is None:
        raise ValueError("%d replies but no min/avg/max (cut short?)" % received)
    if not received:
        return sent, received, None, None
    return sent, received, _finite(match.group("avg"), "rtt avg"), _finite(match.group("max"), "rtt max")


def _fping_vcount(match):
    """(sent, received, rtt avg, rtt max) of a -C line: one round trip (ms) or "-" per ping."""
    times = [None if value == "-" else _finite(value, "round trip") for value in match.group("times").split()]
    replies = [value for value in times if value is not None]
    if not replies:
        return len(times), 0, None, None
    return len(times), len(replies), round(sum(replies) / len(replies), 3), max(replies)


@parser("linux_fping", "fping -c / -C: packets sent and received, loss, round-trip times of one target", kind="text")
def fping(text):
    """fping's per-target summary (stderr, parsed after stdout's per-probe lines) into linux_ping's facts.

    A source address not on the host (-S: "fping: cannot bind source address : Cannot assign requested
    address", exit 4) is a finding, as with ping. fping counting (-c, -C) prints no send error (its
    verbose output is off in count mode), so a rail with no route reads as 100% loss: no_route is
    always False here (ping's `connect: Network is unreachable` tells it apart)."""
    lines = [line.strip() for line in text.splitlines()]
    if any(_FPING_BIND.search(line) for line in lines):
        return {"source_address_missing": True, "no_route": False, "transmitted": 0, "received": 0, "errors": 0,
                "loss_percent": 100.0, "rtt_avg_ms": None, "rtt_max_ms": None}
    summaries = [m for m in (_FPING_SUMMARY.match(line) for line in lines) if m]
    vcounts = [m for m in (_FPING_VCOUNT.match(line) for line in lines) if m] if not summaries else []
    found = summaries or vcounts
    if len(found) != 1:
        said = next((line for line in lines if line.startswith("fping:") or "address not found" in line), None)
        raise ValueError("%d fping summary lines for one target%s" % (
            len(found), ": fping said %r" % said if said else " (cut short?)" if not found else ""))
    if not any(line.strip() == found[0].group(0) and line.endswith("\n") for line in text.splitlines(True)):
        # fping ends its summary line with a newline: without one the line was cut, maybe inside its last number
        raise ValueError("the summary line %r has no newline after it: cut short" % found[0].group(0)[:80])
    sent, received, avg, worst = _fping_summary(found[0]) if summaries else _fping_vcount(found[0])
    if sent == 0 or received > sent:
        raise ValueError("%d pings sent, %d replies: not a ping that ran" % (sent, received))
    return {"source_address_missing": False, "no_route": False, "transmitted": sent, "received": received, "errors": 0,
            "loss_percent": round(100.0 * (sent - received) / sent, 4), "rtt_avg_ms": avg, "rtt_max_ms": worst}
