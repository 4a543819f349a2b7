# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Expectations are inventory variables; check them all before any host is touched."""

from __future__ import annotations

import difflib
import ipaddress
import math
import re

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

_SPEC_KEYS = ("type", "elements", "choices", "default", "options")
_NUMBER_TYPES = ("int", "float")


# ours: the argument validator does not know them
_GRAMMAR_KEYS = ("pattern", "pattern_name", "key_pattern", "key_pattern_name", "min", "max", "above", "below")


def argument_spec(catalog, names=None):
    spec = {}
    for name, definition in catalog["expectations"].items():
        if names is None or name in names:
            spec[name] = {key: definition[key] for key in _SPEC_KEYS if key in definition and definition[key] is not None}
            if "options" in spec[name]:
                spec[name]["options"] = {field: {key: value for key, value in option.items() if key not in _GRAMMAR_KEYS}
                                         for field, option in spec[name]["options"].items()}
    return spec


def resolve(catalog, raw_values, names=None):
    """Validate inventory values (missing ones take the catalog default).

    Returns (values, errors): typed values, and one message per bad variable.
    """
    spec = argument_spec(catalog, names)
    # plain Python values: the validator's messages then name their types as the inventory knows them (list, not
    # _AnsibleTaggedList)
    given = {name: plain(raw_values[name]) for name in spec if raw_values.get(name) is not None}
    errors = _shape_errors(catalog, given)
    given = {name: value for name, value in given.items() if not any(e.startswith(name + " ") for e in errors)}
    result = ArgumentSpecValidator(spec).validate(given)
    errors += [str(message) for message in result.error_messages]
    values = dict(result.validated_parameters)
    for name, definition in catalog["expectations"].items():
        if name not in spec:
            continue
        value = values.get(name)
        if definition.get("required") and names is not None and not value:  # a device's own set of names
            errors.append("%s is required for this device and is not set" % name)
        if value is None:
            continue
        errors.extend(_range_errors(name, definition, value))
        if definition.get("type") == "list" and not value and definition.get("default"):
            errors.append("%s must not be empty" % name)
        if definition.get("type") == "dict":
            if not isinstance(value, dict):
                continue  # the validator said so
            if definition.get("tables"):  # a figures table per name (pyramid_nccl_collective_busbw: one per collective)
                errors.extend(_tables_errors(name, value, definition["tables"]))
                continue
            if definition.get("floors"):  # a lowest version per name, each with its reason (pyramid_stack_min)
                errors.extend(_floors_errors(name, value, definition["floors"]))
                continue
            for key, item in value.items():
                if definition.get("text_values") and (not isinstance(item, str) or not re.search(r"\d", item)):
                    # a version as a YAML number loses its trailing zeros (2.20 reads 2.2): quoted text only
                    errors.append("%s.%s must be a quoted version with a number in it (\"2.20\", not 2.20), got %r"
                                  % (name, key, plain(item)))
                elif not isinstance(item, (str, int, float)) or isinstance(item, bool):
                    errors.append("%s.%s must be a string or a number, got %r" % (name, key, plain(item)))
                else:
                    value[key] = str(item)
            if definition.get("table"):
                errors.extend(_table_errors(name, value))
            errors.extend(_kept_errors(name, value, definition.get("keeps") or {}))
    # a value already refused is not compared again: its refusal is the message, never a TypeError in a cross-check
    refused = {name for name in values if any(("'%s'" % name) in error or error.startswith(name) for error in errors)}
    errors.extend(_cross_errors({name: value for name, value in values.items() if name not in refused}, catalog["expectations"]))
    return values, errors


def plain(value):
    """The value as plain Python for a message: Ansible hands variables in its own types (_AnsibleTaggedList, a
    tagged str), whose names mean nothing to the person who typed the value."""
    if isinstance(value, dict):
        return {plain(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    for kind in (bool, str, int, float):
        if isinstance(value, kind):
            return kind(value)
    return value


def kind_of(value):
    """What the value is, in the inventory's words (a list, a mapping, text, a number, true/false)."""
    for kind, name in ((bool, "true/false"), (dict, "a mapping"), ((list, tuple), "a list"), (str, "text"), ((int, float), "a number")):
        if isinstance(value, kind):
            return name
    return "a value of another kind"


def _shape_errors(catalog, given):
    """What the argument validator would convert or crash on: a bool for a number (True is not a GPU
    count), a list or a string for a mapping, a line break in any text (it would type a second command
    into a switch's CLI)."""
    errors = []
    for name, value in given.items():
        kind = catalog["expectations"][name].get("type")
        if kind in _NUMBER_TYPES and isinstance(value, bool):
            errors.append("%s must be a number, got %r" % (name, plain(value)))
        elif kind == "dict" and not isinstance(value, dict):
            errors.append("%s must be a mapping (name: value), got %s %r" % (name, kind_of(value), plain(value)))
        elif any("\n" in text or "\r" in text for text in _texts(value)):
            errors.append("%s must not contain a line break" % name)
    return errors


def _texts(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(key)
            yield from _texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)


def _range_errors(name, definition, value):
    """Numbers finite and within the catalog's min/max; text matching the catalog's pattern."""
    errors = []
    if isinstance(value, float) and not math.isfinite(value):
        return ["%s must be a finite number, got %s" % (name, value)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "min" in definition and value < definition["min"]:
            errors.append("%s must be at least %s, got %s" % (name, definition["min"], value))
        if "max" in definition and value > definition["max"]:
            errors.append("%s must be at most %s, got %s" % (name, definition["max"], value))
        # exclusive bounds: a tolerance of 1 (100%) or a straggler ratio of 0 would make their check unable to fail
        if "above" in definition and value <= definition["above"]:
            errors.append("%s must be above %s, got %s" % (name, definition["above"], value))
        if "below" in definition and value >= definition["below"]:
            errors.append("%s must be below %s, got %s" % (name, definition["below"], value))
    if isinstance(value, list) and definition.get("elements") in ("int", "float"):  # min/max bound each element
        bounds = {key: definition[key] for key in ("min", "max", "above", "below") if key in definition}
        for item in value:
            errors.extend(_range_errors(name, bounds, item))
    if definition.get("pattern"):
        grammar = re.compile(definition["pattern"])
        for text in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            if isinstance(text, str) and not grammar.fullmatch(text):
                errors.append("%s: %r is not a valid %s" % (name, text, definition.get("pattern_name", "value")))
    if definition.get("key_pattern") and isinstance(value, dict):
        grammar = re.compile(definition["key_pattern"])
        errors.extend("%s: %r is not a valid %s" % (name, key, definition.get("key_pattern_name", "name"))
                      for key in value if not grammar.fullmatch(str(key)))
    for field, option in (definition.get("options") or {}).items():
        for item in value if isinstance(value, list) else []:
            if isinstance(item, dict) and item.get(field) is not None:
                errors.extend(_range_errors("%s.%s" % (name, field), option, item[field]))
    return errors


def _cross_errors(values, expectations):
    """What no single variable's type says, as each area's catalog declares it beside the expectation (``less_than``,
    ``set_only_with``, ``entries_are``, ``unique``, ``true_only_where``): this module holds the rules' grammar, never
    an area's variable names."""
    errors = []
    for name, definition in expectations.items():
        value = values.get(name)
        if value is None:
            continue
        for rule, check in _CROSS_RULES.items():
            if rule in definition:
                errors.extend(check(name, value, definition[rule], values))
    return errors


def _less_than(name, value, other, values):
    high = values.get(other)
    return ["%s (%s) must be below %s (%s)" % (name, value, other, high)] if _number(value) and _number(high) and value >= high else []


def _set_only_with(name, value, rule, values):
    # a count for a command that is not set would be silently unused
    other = rule["expectation"]
    if value and other in values and not values[other]:
        return ["%s (%s) is set but %s is empty: %s" % (name, value, other, rule["why"])]
    return []


def _entries_are(name, value, rule, values):  # pylint: disable=unused-argument
    key, kind = next(iter(rule.items())) if isinstance(rule, dict) else (None, rule)
    errors = []
    for entry in value or []:
        item = entry[key] if key else entry
        if not _ENTRY_KINDS[kind][0](item):
            errors.append("%s: %r is not %s" % (name, item, _ENTRY_KINDS[kind][1]))
    return errors


def _unique(name, value, rule, values):  # pylint: disable=unused-argument
    seen, twice = set(), set()
    for entry in value or []:  # linear: a 40,000-port plan is checked at once
        (twice if entry[rule["key"]] in seen else seen).add(entry[rule["key"]])
    return ["%s: %s: %s" % (name, rule["said"], ", ".join(sorted(twice)))] if twice else []


def _true_only_where(name, value, rule, values):
    other = rule["expectation"]
    if value is True and values.get(other) not in [None] + list(rule["values"]):
        return ["%s is true but %s is %s: %s" % (name, other, values[other], rule["why"])]
    return []


def _is_prefix(text):
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return True


def _kept_errors(name, value, keeps):
    """A dict given in the inventory replaces the catalog's default whole: the entries the judges read (``keeps``:
    {key: {value, why}}) must be in it, or every run that reads them would be an ERROR found at its layer, late."""
    errors = []
    for key, rule in sorted(keeps.items()):
        if str(value.get(key, "")).strip().upper() != str(rule["value"]).upper():
            errors.append("%s has no %s=%s (%s): a %s you set replaces the default whole; keep %s: %s beside your own "
                          "entries" % (name, key, rule["value"], rule["why"], name, key, rule["value"]))
    return errors


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_ip(text):
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _tables_errors(name, tables, names):
    """Figures tables by name: each name one of ``names``, each value a table (_table_errors), its figures made
    strings as a plain table's are."""
    errors = []
    for key, table in tables.items():
        if names == "node_counts" and (not str(key).isdigit() or int(key) < 2):  # pyramid_nccl_scale_busbw: nodes
            errors.append("%s: key %r must be a node count (2 or more)" % (name, plain(key)))
        elif names != "node_counts" and key not in names:
            near = difflib.get_close_matches(str(key), names, n=1, cutoff=0.6)
            errors.append("%s: key %r is none of %s%s" % (name, plain(key), ", ".join(names),
                                                          "; did you mean %s?" % near[0] if near else ""))
        elif not isinstance(table, dict):
            errors.append("%s.%s must be a table of message size in bytes -> GB/s, got %r" % (name, key, plain(table)))
        else:
            bad = [size for size, item in table.items() if not isinstance(item, (str, int, float)) or isinstance(item, bool)]
            if bad:
                errors.append("%s.%s.%s must be a string or a number, got %r" % (name, key, bad[0], plain(table[bad[0]])))
                continue
            tables[key] = {size: str(item) for size, item in table.items()}
            errors.extend(_table_errors("%s.%s" % (name, key), tables[key]))
    return errors


def _floors_errors(name, floors, names):
    """Lowest versions by name: each name one of ``names``, each value {version, reason}, both text, the version with
    a number in it (what a read version is compared with), the reason the words a FAIL gives."""
    errors = []
    for key, floor in floors.items():
        if key not in names:
            near = difflib.get_close_matches(str(key), names, n=1, cutoff=0.6)
            errors.append("%s: key %r is none of %s%s" % (name, plain(key), ", ".join(names),
                                                          "; did you mean %s?" % near[0] if near else ""))
            continue
        if not isinstance(floor, dict) or set(floor) != {"version", "reason"}:
            errors.append("%s.%s must be a mapping of version and reason (why nothing older may run), got %r"
                          % (name, key, plain(floor)))
            continue
        for field in ("version", "reason"):
            if not isinstance(floor[field], str) or not floor[field].strip():  # 2.20 as a number would read 2.2
                errors.append("%s.%s.%s must be quoted text, got %r" % (name, key, field, plain(floor[field])))
        if isinstance(floor["version"], str) and not re.search(r"\d", floor["version"]):
            errors.append("%s.%s.version has no number to compare with: %r" % (name, key, floor["version"]))
    return errors


def _table_errors(name, table):
    """A figures table: message size in bytes -> GB/s."""
    errors = []
    for key, item in table.items():
        try:
            figure = float(item)
        except (TypeError, ValueError):
            figure = -1.0
        if not math.isfinite(figure):
            figure = -1.0
        if not str(key).isdigit() or int(key) <= 0:
            errors.append("%s: key %r must be a message size in bytes" % (name, key))
        if figure <= 0:
            errors.append("%s.%s must be a positive figure in GB/s, got %r" % (name, key, plain(item)))
    return errors


# the rules an area's expectation may declare (catalog/<area>.yml), and the kinds of entry ``entries_are`` knows
_ENTRY_KINDS = {"ip_address": (_is_ip, "an IP address"), "prefix": (_is_prefix, "a prefix")}
_CROSS_RULES = {"less_than": _less_than, "set_only_with": _set_only_with, "entries_are": _entries_are, "unique": _unique,
                "true_only_where": _true_only_where}
