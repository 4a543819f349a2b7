# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judges: compare normalized facts with expectations, one verdict per check.

A host judge (scope "host", a switch's checks included) gets ``facts`` (source id -> parsed facts; for a ``foreach`` source a dict
item -> facts or SourceFailure; None for an optional source that failed) and ``expect``
(expectation name -> typed value) and returns a Verdict. A pod judge gets those per host
and returns a Verdict per host. Judges never see raw text and never pass on missing data.
"""

from __future__ import annotations

from ..core.catalog import SCOPES

# scope -> judge name -> function. A check's `judge` is looked up in its own scope's table (the catalog's scope:
# host, pod, fabric, rail_mesh, incast, link), so two scopes may not confuse one judge for another.
JUDGES = {scope: {} for scope in SCOPES}
# scope -> the verdict a check of that kind gets on a lone GPU box (the run's only GPU node, none outside it named):
# what the kind's runner says there, so that check mode says it in the same words without naming the kind
ALONE = {}


def judge(name, scope="host"):
    """Register a judge under its catalog name, in the scope whose runner calls it."""
    if scope not in JUDGES:
        raise ValueError("judge %s: unknown scope %r (one of %s)" % (name, scope, ", ".join(SCOPES)))

    def register(function):
        if name in JUDGES[scope]:
            raise ValueError("judge %s: registered twice in scope %s" % (name, scope))
        JUDGES[scope][name] = function
        return function
    return register


def judge_of(check):
    """The judge of a catalog check, from its own kind's table: a runner asks for it by the check, never by a kind's name."""
    return JUDGES[check.get("scope", "host")][check["judge"]]


def alone(scope):
    """Register the verdict of a check of ``scope``'s kind on a lone GPU box: function(check, node) -> verdict."""
    if scope not in JUDGES:
        raise ValueError("alone: unknown scope %r (one of %s)" % (scope, ", ".join(SCOPES)))

    def register(function):
        if scope in ALONE:
            raise ValueError("alone: registered twice in scope %s" % scope)
        ALONE[scope] = function
        return function
    return register


def summary(problems, limit=8):
    text = "; ".join(problems[:limit])
    if len(problems) > limit:
        text += "; and %d more" % (len(problems) - limit)
    return text
