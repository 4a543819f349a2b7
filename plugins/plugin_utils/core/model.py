# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The core model every stage shares: check statuses, a source that gave no facts, and verdicts."""

from __future__ import annotations

PASS, FAIL, ERROR, SKIP, BLOCKED = "PASS", "FAIL", "ERROR", "SKIP", "BLOCKED"
STATUSES = (PASS, FAIL, ERROR, BLOCKED, SKIP)  # the report's column order


class SourceFailure:
    """A source gave no usable facts: missing tool, timeout, bad exit, unparseable output."""

    def __init__(self, command, reason, status=None, output="", partial=None, ran_on=None):
        self.command = command
        self.reason = reason
        self.status = status  # the collect status: missing, timeout, failed, unreadable, or None (unparseable)
        self.output = output  # what the command printed before it failed, for the report
        self.partial = partial  # facts its parser still read from that output (a hang's last words), or None
        self.ran_on = ran_on  # the host it ran on where that is not the device judged (a read made once for the pod)

    def __repr__(self):
        return "SourceFailure(%r, %r)" % (self.command, self.reason)


def verdict(status, expected, actual, cause=None, command=None, **extra):
    """A judge's verdict on one check. ``cause`` overrides the catalog's for this sub-case; a fabric
    verdict also carries ``cause_key`` (which of the check's ``causes``) and ``by_host``."""
    if status not in STATUSES:
        raise ValueError("unknown status %r" % status)
    result = {"status": status, "expected": expected, "actual": actual}
    if cause:
        result["cause"] = cause
    if command:
        result["command"] = command
    result.update(extra)
    return result


def count_statuses(records):
    """Status -> how many records have it, for every status (0 where none)."""
    counts = dict.fromkeys(STATUSES, 0)
    for record in records:
        counts[record["status"]] = counts.get(record["status"], 0) + 1
    return counts


def percent(fraction):
    """'15%', '29%', '15.5%': a fraction as a percentage, rounded, not cut (0.29 * 100 is 28.999...: "%d" said 28%)."""
    return "%g%%" % round(fraction * 100, 4)


def counted(number, noun, plural=None):
    """'1 GPU', '8 GPUs': a count with its noun in the right number."""
    return "%d %s" % (number, noun if number == 1 else plural or noun + "s")


def named(items, limit=8):
    """'a, b and 3 more': at most ``limit`` names of a line (a plan's hosts, pairs or ports; its JSON has every one)."""
    items = list(items)
    return ", ".join(items[:limit]) + (" and %d more" % (len(items) - limit) if len(items) > limit else "")
