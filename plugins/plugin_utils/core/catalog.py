# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Load and check the check catalog: the one list every part reads.

catalog/checklist.yml is its index: the go/no-go rows in order, the areas in order and the expectations they share.
Each area (catalog/<area>.yml) holds its own sources, checks and expectations; the areas are merged in the index's
order, which is the order a layer runs its checks in and a row lists them. A name two files define, a file the
index does not list and an area that is not there are refused.

Checked here: what the catalog says of itself (fields, rows, sources, expectations, scopes). Whether each parser,
judge and round it names exists is checked by the runner that runs them (run/catalog_references.py, at pre-flight):
this ground floor imports nothing above it.
"""

from __future__ import annotations

import functools
import os
import re

import yaml

CATALOG_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "catalog", "checklist.yml")
# The kinds of run and the fields a check may carry: declared once, in catalog/kinds.yml, beside the index
KINDS_FILE = "kinds.yml"
LAUNCHERS = ("mpirun", "srun")
WAY_KINDS = ("run", "read", "list", "cli", "query")  # query: PromQL, asked of Prometheus by the controller (Layer 7)
DEVICES = ("gpu_node", "switch")
SWITCH_OSES = ("eos", "nxos", "sonic", "cumulus")
# Every task that judges reads the catalog in a fresh worker process (Ansible forks one per host and task), so its
# parse is paid per host per task: libyaml's loader is ten times faster than the pure-Python one (bench/README.md,
# "Where the CPU goes"). PyYAML's wheels carry libyaml; a build without it falls back.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CatalogError(ValueError):
    """The catalog contradicts itself."""


FIELD_TYPES = {"str": str, "int": int, "list": list, "dict": dict, "bool": bool}


@functools.lru_cache(maxsize=4)
def load_declarations(path=CATALOG_PATH):
    """catalog/kinds.yml: {"kind_fields": {key: {"type", "text", "required", "choices"}}, "kinds": {name: declaration},
    "check_fields": {field: {"type", "text", "required"}}}, each kind checked against kind_fields."""
    where = os.path.join(os.path.dirname(os.path.abspath(path)), KINDS_FILE)
    declared = _load(where)
    problems = []
    if set(declared) != {"kind_fields", "kinds", "check_fields"}:
        problems.append("holds kind_fields, kinds and check_fields, nothing else")
    for fields in ("kind_fields", "check_fields"):
        for name, field in (declared.get(fields) or {}).items():
            if not isinstance(field, dict) or field.get("type") not in FIELD_TYPES or not isinstance(field.get("text"), str):
                problems.append("%s %s: a type of %s and a text" % (fields, name, ", ".join(FIELD_TYPES)))
    if not problems:
        for name, kind in (declared.get("kinds") or {}).items():
            problems.extend("kind %s: %s" % (name, problem) for problem in _declared_problems(kind or {}, declared["kind_fields"]))
    if problems or not declared.get("kinds"):
        raise CatalogError("catalog %s: %s" % (where, "; ".join(problems or ["declares no kind"])))
    return declared


def _declared_problems(value, fields):
    """A declaration's keys against its fields (kinds.yml's kind_fields): unknown, of another type, not a choice, missing."""
    problems = ["unknown key %s" % key for key in sorted(set(value) - set(fields))]
    for name, field in fields.items():
        if name not in value:
            if field.get("required"):
                problems.append("missing %s (%s)" % (name, field["text"]))
            continue
        wanted = FIELD_TYPES[field["type"]]
        if not isinstance(value[name], wanted) or wanted is int and isinstance(value[name], bool):
            problems.append("%s is a %s (%s)" % (name, field["type"], field["text"]))
        elif "choices" in field and value[name] not in field["choices"]:
            problems.append("%s is one of %s" % (name, ", ".join(map(str, field["choices"]))))
    return problems


def kinds(path=CATALOG_PATH):
    """Every kind of run, as catalog/kinds.yml declares it: {name: declaration}."""
    return load_declarations(path)["kinds"]


def kind_of(check, path=CATALOG_PATH):
    """The declaration of the check's kind."""
    return kinds(path)[check.get("scope", "host")]


@functools.lru_cache(maxsize=4)
def load_catalog(path=CATALOG_PATH):
    index = _load(path)
    declared = load_declarations(path)
    unknown = set(index) - {"areas", "rows", "expectations"}
    if unknown:
        raise CatalogError("catalog %s: unknown keys %s (sources and checks live in the areas)" % (path, sorted(unknown)))
    catalog = {"rows": index.get("rows") or [], "sources": {}, "checks": [], "platforms": {},
               "expectations": dict(index.get("expectations") or {})}
    for area_path in _area_paths(path, index.get("areas") or []):
        _merge(catalog, _load(area_path), area_path)
    _derive_sources(catalog)
    _check(catalog, declared)
    for definition in catalog["expectations"].values():  # choices_from: a section's names (the platform tables)
        if definition.get("choices_from"):
            definition["choices"] = sorted(catalog[definition["choices_from"]])
    for check in catalog["checks"]:
        check.setdefault("scope", "host")
        check.setdefault("device", "gpu_node")
        if check["device"] == "switch":
            check.setdefault("platforms", list(SWITCH_OSES))
    return catalog


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=SAFE_LOADER) or {}  # nosec B506: a safe loader, C or Python


# the kinds' names, in catalog/kinds.yml's order (the judges' registry makes one table each)
SCOPES = tuple(kinds())


def _area_paths(path, areas):
    """The index's areas, in its order; a .yml file beside it that it does not list is refused, not ignored."""
    folder = os.path.dirname(os.path.abspath(path))
    if not isinstance(areas, list) or not all(isinstance(name, str) and re.match(r"^[a-z0-9_]+$", name) for name in areas):
        raise CatalogError("catalog %s: areas is a list of file names beside it, without .yml (a-z, 0-9, _)" % path)
    listed = [name + ".yml" for name in areas]
    problems = []
    if len(set(listed)) != len(listed):
        problems.append("an area is listed twice")
    missing = [name for name in listed if not os.path.isfile(os.path.join(folder, name))]
    if missing:
        problems.append("areas not found: %s" % ", ".join(missing))
    unlisted = sorted(name for name in os.listdir(folder)
                      if name.endswith(".yml") and name not in (os.path.basename(path), KINDS_FILE) and name not in listed)
    if unlisted:
        problems.append("files not listed under areas: %s" % ", ".join(unlisted))
    if problems:
        raise CatalogError("catalog %s: %s" % (path, "; ".join(problems)))
    return [os.path.join(folder, name) for name in listed]


def _merge(catalog, area, path):
    """Add an area file's sources, checks, expectations and platforms; a name defined twice is refused."""
    unknown = set(area) - {"sources", "checks", "expectations", "platforms"}
    if unknown:
        where = " (rows live in the index)" if "rows" in unknown else ""
        raise CatalogError("catalog %s: unknown keys %s%s" % (path, sorted(unknown), where))
    for key in ("sources", "expectations", "platforms"):
        twice = sorted(set(area.get(key) or {}) & set(catalog[key]))
        if twice:
            raise CatalogError("catalog %s: %s already defined: %s" % (path, key, ", ".join(twice)))
        catalog[key].update(area.get(key) or {})
    catalog["checks"].extend(area.get("checks") or [])


def _derive_sources(catalog):
    """A source written ``like: <another>`` takes that source's ways with ``words`` changed in each command line: a word
    replaced by a word, or by several (all_reduce_perf -> all_gather_perf; the built-in's script -> the script, --op,
    all_gather). It inherits ``launched`` alone and says its own ``load``; a way it lists itself is refused. One
    collective's launchers are then written once, and a fix to them reaches every collective. Every way must change,
    each word once: a way the words miss (a binary named by its path) would run the base's collective under the
    derived source's name."""
    written = dict(catalog["sources"])  # as the areas say, before any is derived
    for name, source in written.items():
        if "like" not in source:
            continue
        base = written.get(source["like"])
        words = source.get("words")
        if not base or "like" in base or "ways" in source or not isinstance(words, dict) or not words:
            raise CatalogError("source %s: like names a source written out (not itself derived), with words to change and no "
                               "ways of its own" % name)
        if not all(isinstance(new, str) and new or isinstance(new, list) and new and all(isinstance(w, str) and w for w in new)
                   for new in words.values()) or not isinstance(source.get("load"), str):
            raise CatalogError("source %s: each word changes into a word or a list of words, and the source says its own "
                               "load" % name)
        unused = set(words) - {word for way in base["ways"] for word in way.get("run", [])}
        if unused:
            raise CatalogError("source %s: words not in %s's command lines: %s" % (name, source["like"], ", ".join(sorted(unused))))
        ways = []
        for index, way in enumerate(base["ways"]):
            run = way.get("run", [])
            twice = sorted(word for word in words if run.count(word) > 1)
            if twice or not set(words) & set(run):
                raise CatalogError("source %s: %s's way %d %s" % (name, source["like"], index + 1, (
                    "names %s more than once" % ", ".join(twice)) if twice else "holds none of the words to change"))
            ways.append(dict(way, run=_changed(run, words)))
        derived = {key: value for key, value in source.items() if key not in ("like", "words")}
        derived.update(launched=base.get("launched", False), ways=ways)
        catalog["sources"][name] = derived


def _changed(words, changes):
    out = []
    for word in words:
        change = changes.get(word, word)
        out.extend(change if isinstance(change, list) else [change])
    return out


def _check(catalog, declared=None):
    declared = declared or load_declarations()
    if not all(isinstance(row, dict) and isinstance(row.get("id"), str) for row in catalog["rows"]):
        raise CatalogError("catalog %s: each row has an id, a title and a layer" % CATALOG_PATH)
    rows = {row["id"] for row in catalog["rows"]}
    problems = []
    layers = [row.get("layer") for row in catalog["rows"]]
    if len(rows) != len(layers) or not all(isinstance(layer, int) for layer in layers) or layers != sorted(layers):
        problems.append("rows: each row has its own id and a layer, top to bottom in layer order")
    for row in catalog["rows"]:
        if set(row) - {"id", "title", "layer", "only_if"}:
            problems.append("row %s: unknown keys %s" % (row["id"], ", ".join(sorted(set(row) - {"id", "title", "layer", "only_if"}))))
        if not isinstance(row.get("only_if", {}), dict) or set(row.get("only_if", {})) - set(catalog["expectations"]):
            problems.append("row %s: only_if maps expectations to the values the row applies to" % row["id"])
    for name, source in catalog["sources"].items():
        for way in source["ways"]:
            kinds = [kind for kind in WAY_KINDS if kind in way]
            if len(kinds) != 1:
                problems.append("source %s: each way needs exactly one of %s" % (name, ", ".join(WAY_KINDS)))
            if source.get("launched") and way.get("launcher") not in LAUNCHERS:
                problems.append("source %s: each way of a launched source names a launcher of %s" % (name, LAUNCHERS))
            if "platform" in way and way["platform"] not in SWITCH_OSES:
                problems.append("source %s: unknown platform %r" % (name, way["platform"]))
            if "cli" in way and "platform" not in way:
                problems.append("source %s: a cli way names its platform" % name)
            if "privileged" in way and (way["privileged"] is not True or "cli" not in way):
                problems.append("source %s: `privileged: true` marks a cli way the switch answers only in its privileged "
                                "(enable) mode" % name)
        if "read_on" in source and (not isinstance(source["read_on"], str) or not source["read_on"]):
            problems.append("source %s: read_on names the inventory group one host of which reads it for the pod" % name)
        if "load" in source and (not isinstance(source["load"], str) or not source["load"].strip()):
            problems.append("source %s: load says in words what it puts on the fabric or the GPUs" % name)
        load_if = source.get("load_if", {})
        if not isinstance(load_if, dict) or "load" not in source and load_if or any(
                key not in catalog["expectations"] or not isinstance(values, list) for key, values in load_if.items()):
            problems.append("source %s: load_if maps expectations to the values that make it a load (beside its load)" % name)
        for expectation in source_expectations(source, catalog):
            if expectation not in catalog["expectations"]:
                problems.append("source %s: %r is not an expectation" % (name, expectation))
    seen = set()
    for check in catalog["checks"]:
        cid = check.get("id")
        problems.extend(_field_problems(check, declared["check_fields"]))
        if cid in seen:
            problems.append("check %s: duplicate id" % cid)
        seen.add(cid)
        if check.get("row") not in rows:
            problems.append("check %s: unknown row %r" % (cid, check.get("row")))
        for source in check.get("sources", []):
            if source not in catalog["sources"]:
                problems.append("check %s: unknown source %r" % (cid, source))
        problems.extend(_depends_problems(check, seen, catalog))
        names_from = check.get("names_from", [])
        if not isinstance(names_from, list) or set(names_from) - set(check.get("sources", [])):
            problems.append("check %s: names_from is a list of the check's own sources (read only to name what it found)" % cid)
        for name in check.get("expect", []):
            if name not in catalog["expectations"]:
                problems.append("check %s: unknown expectation %r" % (cid, name))
        if check.get("device", "gpu_node") not in DEVICES:
            problems.append("check %s: unknown device %r" % (cid, check.get("device")))
        wanted_os = check.get("platforms", SWITCH_OSES)
        if "platforms" in check and (check.get("device") != "switch" or not wanted_os or set(wanted_os) - set(SWITCH_OSES)):
            problems.append("check %s: platforms is a non-empty list of %s, for switch checks" % (cid, ", ".join(SWITCH_OSES)))
        if check.get("device") == "switch":
            # a source read on one host for the pod (read_on: an InfiniBand subnet's switches) is no switch's own read
            for source in [name for name in check.get("sources", []) if "read_on" not in catalog["sources"].get(name, {})]:
                platforms = [way.get("platform") for way in catalog["sources"].get(source, {}).get("ways", [])]
                lacking = [os_name for os_name in wanted_os if os_name not in platforms]
                if lacking:
                    problems.append("check %s: source %s needs a way for %s" % (cid, source, ", ".join(lacking)))
        problems.extend(_kind_problems(check, declared["kinds"], catalog))
        only_if = check.get("only_if", {})
        if not isinstance(only_if, dict) or set(only_if) - set(catalog["expectations"]):
            problems.append("check %s: only_if maps expectations to the values the check applies to" % cid)
        at_least = check.get("at_least", {})
        if not isinstance(at_least, dict) or set(at_least) - set(catalog["expectations"]) or not all(
                isinstance(least, int) and not isinstance(least, bool) for least in at_least.values()):
            problems.append("check %s: at_least maps expectations to the least number the check applies to" % cid)
        for field in ("layer", "title", "cause", "go_back_to"):
            if field not in check:
                problems.append("check %s: missing %s" % (cid, field))
    for name, platform in catalog.get("platforms", {}).items():
        if not platform.get("busbw") or not all(isinstance(k, int) and k > 0 and float(v) > 0
                                                for k, v in platform["busbw"].items()):
            problems.append("platform %s: busbw must map message sizes in bytes to GB/s" % name)
    if problems:
        raise CatalogError("catalog %s: %s" % (CATALOG_PATH, "; ".join(problems)))


def _field_problems(check, fields):
    """A check's keys against catalog/kinds.yml's check_fields: unknown keys, values of another type, required ones
    missing (layer, title, cause and go_back_to are named one by one below, as they always were)."""
    fields = {name: dict(field, required=False) if name in ("layer", "title", "cause", "go_back_to") else field
              for name, field in fields.items()}
    return ["check %s: %s" % (check.get("id"), problem) for problem in _declared_problems(check, fields)]


def _kind_problems(check, declared, catalog):
    """What the check's kind allows it to read (catalog/kinds.yml): launched sources only, a source read for the pod,
    how many sources, the keys the kind needs."""
    cid, scope = check.get("id"), check.get("scope", "host")
    kind = declared.get(scope)
    if kind is None:
        return ["check %s: unknown scope %r (a kind of catalog/kinds.yml: %s)" % (cid, scope, ", ".join(declared))]
    sources = [catalog["sources"].get(name, {}) for name in check.get("sources", [])]
    problems = []
    if kind.get("launched_only") and not all(source.get("launched") for source in sources):
        problems.append("check %s: a %s check reads launched sources only" % (cid, scope))
    if not kind.get("read_on") and any("read_on" in source for source in sources):
        problems.append("check %s: a source read on one host for the pod (read_on) is read by %s checks only" % (
            cid, " and ".join(name for name, other in declared.items() if other.get("read_on"))))
    least, most = (kind.get("sources") or [0, len(sources)])[:2]
    if not least <= len(sources) <= most:
        problems.append("check %s: a %s check reads %d to %d sources" % (cid, scope, least, most))
    missing = [key for key in kind.get("keys", []) if key not in check]
    if missing:
        problems.append("check %s: a %s check names its %s" % (cid, scope, ", ".join(missing)))
    return problems


def checks_at(catalog, layer, device="gpu_node", scopes=SCOPES):
    return [c for c in catalog["checks"] if c["layer"] == layer and c["device"] == device and c["scope"] in scopes]


def not_applicable(check, expect):
    """Why a check does not apply to this device (a switch platform it was not written for, an expectation outside the
    values of its only_if: an InfiniBand check on a RoCE pod), else None."""
    platform = expect.get("pyramid_switch_os")
    if "platforms" in check and platform not in check["platforms"]:
        return "not applicable on %s: %s is checked on %s" % (platform, check["id"], ", ".join(check["platforms"]))
    for name, wanted in sorted(check.get("only_if", {}).items()):
        wanted = wanted if isinstance(wanted, list) else [wanted]
        if expect.get(name) not in wanted:
            return "not applicable: %s is %s (%s is checked where it is %s)" % (name, expect.get(name), check["id"], " or ".join(map(str, wanted)))
    for name, least in sorted(check.get("at_least", {}).items()):
        # decided before the check's load runs: a load of one GPU (one rank, no pair) measures nothing it could judge
        if isinstance(expect.get(name), int) and expect[name] < least:
            return "not applicable: %s needs %s at least %d, and it is %s here: its load is not run" % (
                check["id"], name, least, expect[name])
    return None


def _depends_problems(check, seen, catalog):
    """depends_on: checks of the same device, at a lower layer or earlier in the same one (judged before it)."""
    depends = check.get("depends_on", [])
    if not isinstance(depends, list):
        return ["check %s: depends_on is a list of check ids" % check.get("id")]
    by_id = {other.get("id"): other for other in catalog["checks"]}
    problems = []
    for name in depends:
        other = by_id.get(name)
        if other is None or other.get("device") != check.get("device") or other.get("layer", 99) > check.get("layer", -1) or (
                other.get("layer") == check.get("layer") and name not in seen - {check.get("id")}):
            problems.append("check %s: depends_on %r is no check of its device judged before it (a lower layer, or "
                            "earlier in its own)" % (check.get("id"), name))
    return problems


def load_of(check, catalog, expect):
    """What the check's sources put on the fabric or the GPUs (each source's ``load``, where its ``load_if`` holds for
    these expectations): a check with any is not run in check mode. A check that does not apply here (its only_if)
    runs nothing, so loads nothing."""
    if not_applicable(check, expect):
        return []
    loads = []
    for name in check.get("sources", []):
        source = catalog["sources"][name]
        if source.get("load") and source["load"] not in loads and all(
                expect.get(key) in values for key, values in source.get("load_if", {}).items()):
            loads.append(source["load"])
    return loads


def retraced_load(check):
    """What a check that follows another's miss (its ``retraces``) loads: none of its own sources, but that check's run
    once more where it missed, across the same nodes; [] for any other check. Said so (the plan's Load column of every
    switch that would read it, and the link kind's own plan), so that nobody reads such a switch as never loaded."""
    if not check.get("retraces"):
        return []
    return ["only where %s misses (%s): its run once more across the same nodes" % (
        check["retraces"]["check"], " or ".join(check["retraces"].get("cause_keys", [])))]


def checks_for(catalog, device="gpu_node"):
    return [c for c in catalog["checks"] if c["device"] == device]


def expectation_names(checks, catalog):
    """Every expectation the checks read, their sources' commands use, and those the catalog declares read on every
    device (`read_on_every_device`: the gate, the report, the hand-over) or with a kind of source (`read_with_sources`)."""
    names = {name for name, definition in catalog["expectations"].items() if definition.get("read_on_every_device")}
    for check in checks:
        names.update(check.get("expect", []))
        names.update(check.get("only_if", {}))
        names.update(check.get("at_least", {}))
        for source in check["sources"]:
            names.update(source_expectations(catalog["sources"][source], catalog))
    return sorted(names)


def source_expectations(source, catalog):
    """The expectations a source's commands use, and those declared `read_with_sources` one of its (or its ways') keys."""
    names = set(source.get("load_if", {}))  # check mode decides with them (core/catalog.load_of)
    for spec in [source.get("foreach")] + [way.get("foreach") for way in source["ways"]]:
        if spec:
            names.add(spec.partition(".")[0])
    names.update(name for name, definition in catalog["expectations"].items() if definition.get("read_with_sources") and (
        source.get(definition["read_with_sources"]) or any(definition["read_with_sources"] in way for way in source["ways"])))
    for way in source["ways"]:
        names.update(way[key] for key in ("env", "timeout") if way.get(key))
        names.update(way.get("only_if", {}))
        for arg in way.get("run", []):
            names.update(re.findall(r"\{\*?(pyramid_\w+)\}", str(arg)))
    return names
