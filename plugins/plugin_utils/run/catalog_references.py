# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the catalog names, found where it runs: every way's parser, every check's judge in its scope's table, every
fabric check's rounds. Pre-flight calls it before any host is touched (core/catalog.py checks the rest)."""

from __future__ import annotations

from .. import judging as _judging, parsing as _parsing
from ..core.catalog import CatalogError
from ..report import pictures as _pictures, tiers_loaded as _tiers_loaded
from . import fabric_rounds as _fabric_rounds

# the keys of a check that name sources: those it reads itself (its own `sources`), and those kept from another layer
OWN_SOURCES, KEPT_SOURCES = ("loads", "read_as", "tail_sources"), ("leaves_from",)


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
        if "round" in check and check["round"] not in _fabric_rounds.ROUNDS:
            found.append("check %s: unknown round %r of the straggler hunt (run/fabric_rounds.py ROUNDS: %s)" % (
                check.get("id"), check["round"], ", ".join(_fabric_rounds.ROUNDS)))
        found += _key_problems(check, catalog)
    return found


def _key_problems(check, catalog):
    """The names a check's own keys give (catalog/kinds.yml check_fields) that nothing knows."""
    cid, found = check.get("id"), []
    if "traffic" in check and check["traffic"] not in _tiers_loaded.PATTERNS:
        found.append("check %s: unknown traffic %r (%s)" % (cid, check["traffic"], ", ".join(_tiers_loaded.PATTERNS)))
    picture = check.get("picture") or {}
    if picture and ("name" not in picture or picture.get("figure", _pictures.FIGURES[0]) not in _pictures.FIGURES
                    or picture.get("compared_with", cid) not in {other["id"] for other in catalog["checks"]}):
        found.append("check %s: a picture has a name, a figure of %s where it is drawn by rail, and compares with a check"
                     % (cid, ", ".join(_pictures.FIGURES)))
    for key in OWN_SOURCES + KEPT_SOURCES:
        value = check.get(key) or {}
        names = list(value.values() if key in ("loads", "leaves_from") else value)  # read_as: {source: name}
        wrong = [name for name in names if name not in catalog["sources"] or key in OWN_SOURCES and name not in check["sources"]]
        if wrong:
            found.append("check %s: %s names %s, not a source %s" % (
                cid, key, ", ".join(map(str, wrong)), "it reads" if key in OWN_SOURCES else "of the catalog"))
    return found + _retraces_problems(check, catalog)


def _retraces_problems(check, catalog):
    """``retraces`` (run/link.py): a check judged before it, whose causes hold the keys named, whose load is a
    launched source (run across the nodes from the launcher, as the hunt ran it)."""
    if "retraces" not in check:
        return []
    cid, wanted = check.get("id"), check["retraces"]
    other = next((found for found in catalog["checks"] if found["id"] == wanted.get("check")), None)
    if other is None or other["layer"] > check["layer"] or not set(wanted.get("cause_keys") or ["-"]) <= set(other.get("causes", {})) \
            or not catalog["sources"].get((other.get("sources") or [None])[0], {}).get("launched"):
        return ["check %s: retraces names a check judged at its layer or below (%r), causes of that check's (cause_keys) "
                "and a check whose first source is launched" % (cid, wanted.get("check"))]
    return []


def check(catalog, path="catalog"):
    """Raise CatalogError naming every name the catalog gives that nothing registers."""
    found = problems(catalog)
    if found:
        raise CatalogError("%s: %s" % (path, "; ".join(found)))
