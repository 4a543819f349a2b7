# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verdicts of a check no judge could measure: not run (check mode, a layer below failed, no partner, a lone
node), not applicable to this device, no data (a read lost, no launcher, a judge that raised), or folded under a
prerequisite that failed. The runners record them; they never write a status themselves (issue 69: every status is
decided in judging/, tests/static/test_no_status_decided_in_code.py). None is ever a PASS."""

from __future__ import annotations

from ..core.model import ERROR, SKIP, verdict


def not_run(expected, why, **extra):
    """SKIP: the check was not run here, saying why (a layer below failed, check mode, nobody to run with)."""
    return verdict(SKIP, expected, why, **extra)


def not_applicable(expected, why, **extra):
    """SKIP that counts neither for nor against GO: the check has no meaning on this device."""
    return verdict(SKIP, expected, why, not_applicable=True, **extra)


def no_data(expected, why, **extra):
    """ERROR: the check was due and could not be judged (nothing read, no launcher, a lost answer)."""
    extra.setdefault("cause_key", None)
    return verdict(ERROR, expected, why, **extra)


def judge_raised(judge_name, expected, exc):
    """ERROR naming the exception of a judge that raised on its facts (never a traceback, never a PASS)."""
    return no_data(expected, "facts incomplete for %s: %s: %s" % (judge_name, type(exc).__name__, exc))


def depends_on(record, root, status, said):
    """A dependent's ERROR that is its prerequisite's failure again: SKIP naming the root finding (run/depends.py)."""
    return dict(record, status=SKIP, depends_on=root, depends_on_status=status, depends_on_said=said, unread=record["actual"],
                actual="not judged: depends on %s (%s: %s)" % (root, status, said), cause=None, go_back_to=None)


def not_recorded(has_results):
    """A check due on a device that left no record of it: SKIP "not run in this play" where the device recorded
    others, else ERROR: the device left the play before its first check (report/go_no_go.py)."""
    if has_results:
        return not_run("a result", "not run in this play")
    return no_data("a result", "no results at all: the host left the play before its first check",
                   cause="No data: the playbook failed on this host before any check ran")
