# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each area file of the catalog holds its own sources and expectations (issue 69): a maintainer who opens an area
finds there what its checks read, and what another area reads too is found by one rule, written in the index
(catalog/checklist.yml, "Where a declaration lives")."""

from __future__ import annotations

import os
import shutil

import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog

RULE = ("a source or an expectation that the checks of one area read lives in that area's file; one that several "
        "areas read lives in the first of them in the index's `areas` (the lowest layer that reads it), or, for an "
        "expectation, in the index itself, which holds only expectations several areas or no check read")


def _files(index_path):
    """{area: its file's YAML} in the index's order, and the index's own expectations."""
    folder = os.path.dirname(os.path.abspath(index_path))
    with open(index_path, encoding="utf-8") as handle:
        index = yaml.safe_load(handle)
    areas = {}
    for name in index["areas"]:
        with open(os.path.join(folder, name + ".yml"), encoding="utf-8") as handle:
            areas[name] = yaml.safe_load(handle) or {}
    return areas, index.get("expectations") or {}


def _reads(check, catalog, written, by_id):
    """The sources and the expectations a check reads: its sources and those its other keys name (its load's, what
    it reads them as, its tail, where its leaves are placed from, the base of a source written like another, the load
    it retraces), and the expectations it declares, applies by (only_if, at_least) and its sources' commands use."""
    names = list(check.get("sources", [])) + list((check.get("loads") or {}).values()) + list(check.get("read_as") or {})
    names += list(check.get("tail_sources") or []) + list((check.get("leaves_from") or {}).values())
    if check.get("retraces"):
        names += by_id[check["retraces"]["check"]].get("sources", [])  # the missed load, run again
    sources = set(names) | {written[name]["like"] for name in names if "like" in written.get(name, {})}
    expectations = set(check.get("expect", [])) | set(check.get("only_if", {})) | set(check.get("at_least", {}))
    for name in check.get("sources", []):
        expectations |= _catalog.source_expectations(catalog["sources"][name], catalog)
    return {"sources": sources, "expectations": expectations}


def misplaced(index_path=_catalog.CATALOG_PATH):
    """One sentence per source or expectation declared away from where the rule puts it, naming where it belongs."""
    areas, index_expectations = _files(index_path)
    catalog = _catalog.load_catalog(index_path)
    order = list(areas)
    declared = {"sources": {}, "expectations": dict.fromkeys(index_expectations, "checklist"), "platforms": {}}
    area_of = {}
    for area, text in areas.items():
        for key in declared:
            declared[key].update(dict.fromkeys(text.get(key) or {}, area))
        area_of.update((check["id"], area) for check in text.get("checks") or [])
    written = {name: source for text in areas.values() for name, source in (text.get("sources") or {}).items()}
    by_id = {check["id"]: check for check in catalog["checks"]}
    readers = {"sources": {}, "expectations": {}}
    for check in catalog["checks"]:
        for key, names in _reads(check, catalog, written, by_id).items():
            for name in names:
                readers[key].setdefault(name, set()).add(area_of[check["id"]])
    found = []
    for key in ("sources", "expectations"):
        for name, area in declared[key].items():
            reading = sorted(readers[key].get(name, ()), key=order.index)
            if not reading:
                continue  # read by the runner, not by a check (pyramid_scalable_unit): no area owns it
            if area == "checklist" and len(reading) == 1:
                found.append("%s %s is declared in checklist.yml, read only by %s's checks: it belongs in %s.yml" % (
                    key[:-1], name, reading[0], reading[0]))
            elif area != "checklist" and area != reading[0]:
                belongs = "%s.yml" % reading[0] if len(reading) == 1 else "%s.yml, the first of the areas reading it (%s)" % (
                    reading[0], ", ".join(reading))
                found.append("%s %s is declared in %s.yml: it belongs in %s" % (key[:-1], name, area, belongs))
    # the platforms' tables are the choices of pyramid_nccl_platform: beside it
    for name, area in declared["platforms"].items():
        if area != declared["expectations"].get("pyramid_nccl_platform"):
            found.append("platform %s is declared in %s.yml: it belongs beside pyramid_nccl_platform, whose choices the "
                         "platforms are (%s.yml)" % (name, area, declared["expectations"].get("pyramid_nccl_platform")))
    return found


def test_each_area_holds_the_sources_and_expectations_its_checks_read():
    found = misplaced()
    assert not found, "the rule (catalog/checklist.yml, \"Where a declaration lives\"): %s.\n%s" % (RULE, "\n".join(found))


def test_the_rule_is_written_in_the_index():
    with open(_catalog.CATALOG_PATH, encoding="utf-8") as handle:
        assert "Where a declaration lives" in handle.read()


def _moved(tmp_path, key, name, from_area, to_area):
    """A copy of the shipped catalog with one declaration moved from one area's file to another's."""
    folder = tmp_path / "catalog"
    shutil.copytree(os.path.dirname(os.path.abspath(_catalog.CATALOG_PATH)), str(folder))
    texts = {}
    for area in (from_area, to_area):
        with open(folder / (area + ".yml"), encoding="utf-8") as handle:
            texts[area] = yaml.safe_load(handle)
    entry = texts[from_area][key].pop(name)
    texts[to_area].setdefault(key, {})[name] = entry
    for area, text in texts.items():
        (folder / (area + ".yml")).write_text(yaml.safe_dump(text, sort_keys=False), encoding="utf-8")
    return str(folder / "checklist.yml")


def test_a_declaration_one_area_reads_is_named_where_it_lies_and_where_it_belongs(tmp_path):
    """The parity tolerance is read by the training checks alone: moved to host.yml it still loads (one catalog),
    and the test names it, where it lies and where it belongs."""
    moved = _moved(tmp_path, "expectations", "pyramid_train_parity_tolerance", "training", "host")
    assert "pyramid_train_parity_tolerance" in _catalog.load_catalog(moved)["expectations"]
    assert misplaced(moved) == ["expectation pyramid_train_parity_tolerance is declared in host.yml: it belongs in training.yml"]


def test_a_source_several_areas_read_belongs_to_the_first_of_them(tmp_path):
    """ibstat is read at Layer 0 (host), by the InfiniBand subnet's checks and by the incast on InfiniBand: moved up to
    the incast's file it is named, with the first area reading it and every area that does."""
    moved = _moved(tmp_path, "sources", "ibstat", "host", "incast")
    assert misplaced(moved) == ["source ibstat is declared in incast.yml: it belongs in host.yml, the first of the areas "
                                "reading it (host, infiniband, incast, link)"]
