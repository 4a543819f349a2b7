# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the catalog names, found where it runs: every way's parser, every check's judge in its scope's table, every
fabric check's rounds. Pre-flight calls it before any host is touched (core/catalog.py checks the rest)."""

from __future__ import annotations

from .. import judging as _judging, parsing as _parsing
from ..core.catalog import CatalogError
from . import fabric_rounds as _fabric_rounds


def problems(catalog):
    """Every name the catalog gives that nothing registers, as sentences."""
    found = []
    for name, source in catalog["sources"].items():
        for way in source["ways"]:
            if way.get("parser") not in _parsing.PARSERS:
                found.append("source %s: unknown parser %r" % (name, way.get("parser")))
    for check in catalog["checks"]:
        scope = check.get("scope", "host")
        if check.get("judge") not in _judging.JUDGES.get(scope, {}):
            found.append("check %s: unknown %s judge %r" % (check.get("id"), scope, check.get("judge")))
        if scope == "fabric" and check.get("id") not in _fabric_rounds.ROUNDS:
            found.append("check %s: no round of the straggler hunt runs it (run/fabric_rounds.py ROUNDS)" % check.get("id"))
    return found


def check(catalog, path="catalog"):
    """Raise CatalogError naming every name the catalog gives that nothing registers."""
    found = problems(catalog)
    if found:
        raise CatalogError("%s: %s" % (path, "; ".join(found)))
