"""The judges from data tables (tests/unit/judge_data/*.py): one generic test runs every row.

Each row goes through the engine's production path: raw tool output through the source's parser
(_engine.parse_one), then check_inputs and the judge (_engine.judge_host / judge_pod), with the
catalog's default expectations and the row's overrides resolved as the inventory would be.
"""

import collections
import copy
import importlib
import pkgutil

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, engine as _engine, expectations as _expectations
from ansible_collections.gpufabric.pyramid.tests.unit import judge_data

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}
ROW_KEYS = {"check", "name", "facts", "raw", "expect", "status", "contains"}
STATUSES = ("PASS", "FAIL", "ERROR", "SKIP")


def _tables():
    for info in sorted(pkgutil.iter_modules(judge_data.__path__), key=lambda found: found.name):
        yield importlib.import_module("%s.%s" % (judge_data.__name__, info.name))


ROWS = [row for table in _tables() for row in table.DATA]


def _row_id(row):
    return "%s: %s" % (row["check"], row["name"])


def _expect(row):
    values, errors = _expectations.resolve(CATALOG, row.get("expect", {}))
    assert not errors, errors
    return values


def _parsed(name, value, expect):
    """Facts of one raw output: a text is the source's first way; (parser, text) the way of that parser."""
    source = CATALOG["sources"][name]
    parser, text = value if isinstance(value, tuple) else (None, value)
    way = [each["parser"] for each in source["ways"]].index(parser) if parser else 0
    return _engine.parse_one({"status": "ok", "stdout": text, "command": name, "way": way}, source, expect)


def _host_facts(facts, raw, expect):
    facts = copy.deepcopy(facts or {})
    for name, value in (raw or {}).items():
        if _engine.foreach_of(CATALOG["sources"][name], expect):
            facts[name] = dict(facts.get(name) or {})
            facts[name].update({item: _parsed(name, text, expect) for item, text in value.items()})
        else:
            facts[name] = _parsed(name, value, expect)
    return facts


def _assert_result(result, check, status, contains):
    said = "%s | %s" % (result["actual"], result["cause"] or "")
    assert result["status"] == status, result
    for part in contains:
        part = check["cause"] if part == "{cause}" else part  # the catalog's cause of the check, not one the judge gave
        assert part in said, "%r not in %r" % (part, said)


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_row(row):
    assert set(row) <= ROW_KEYS and {"check", "name", "status"} <= set(row), sorted(row)
    check = CHECKS[row["check"]]
    expect = _expect(row)
    if check["scope"] == "pod":
        hosts = sorted(set(row.get("facts", {})) | set(row.get("raw", {})))
        facts_by_host = {host: _host_facts(row.get("facts", {}).get(host), row.get("raw", {}).get(host), expect) for host in hosts}
        results = _engine.judge_pod(check, CATALOG, facts_by_host, {host: expect for host in hosts})
        assert sorted(results) == sorted(row["status"])
        for host, status in row["status"].items():
            _assert_result(results[host], check, status, row.get("contains", {}).get(host, []))
    else:
        assert row["status"] in STATUSES
        facts = _host_facts(row.get("facts"), row.get("raw"), expect)
        _assert_result(_engine.judge_host("node-001", check, CATALOG, facts, expect), check, row["status"], row.get("contains", []))


def test_every_layer0_check_has_pass_fail_and_error_rows():
    seen = collections.defaultdict(set)
    for row in ROWS:
        seen[row["check"]].update(row["status"].values() if isinstance(row["status"], dict) else [row["status"]])
    for check in _catalog.checks_at(CATALOG, 0):
        wanted = {"PASS", "FAIL"}
        if not all(CATALOG["sources"][name].get("optional") for name in check["sources"]):
            wanted.add("ERROR")  # a required source that gives nothing is an ERROR, never a PASS
        assert wanted <= seen[check["id"]], "%s: no %s row" % (check["id"], ", ".join(sorted(wanted - seen[check["id"]])))
    assert len({_row_id(row) for row in ROWS}) == len(ROWS), "two rows of one check share a name"
