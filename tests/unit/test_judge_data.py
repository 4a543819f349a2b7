"""The judges from data tables (tests/unit/judge_data/<module>/*.py): one generic test runs every row.

Each row goes through the engine's production path: raw tool output through the source's parser
(_engine.parse_one), then check_inputs and the judge (_engine.judge_host / judge_pod), with the
catalog's default expectations and the row's overrides resolved as the inventory would be. A fabric
check (a run across a group of nodes, judged by the straggler hunt) is judged as the hunt does: its
judge gets the run's facts (or SourceFailure), the row's "group" of nodes and the expectations, and
its cause is the check's `causes` entry of the verdict's cause_key; "blamed" lists its by_host keys.
A mesh check (Layer 4) is judged per run, on its client's output, as the rail mesh does before it
places each miss (judging/rail_rounds.py, tested in test_rail_rounds.py).
A counters source's raw output is {"before": output, "after": output, "seconds": s}.

Each table sits under the judging module whose judges its rows test: judge_data/<module>/ holds the rows of
plugins/plugin_utils/judging/<module>.py (the module of the judge its check names, in its check's scope), and
test_every_table_sits_under_the_module_it_tests says where a row filed elsewhere belongs.

"contains" names what a verdict must say; judge_data/<module>/<table>.verdicts.json, beside its table, records what each
row's verdict says word for word (expected, actual, cause, the detail that names the failing ports, an ERROR's command and
whether the check applies), so a change
of wording is a deliberate one: after it,
re-record with write_verdicts() and review the diff.
"""

import collections
import copy
import json
import os

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import judging as _judging
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import incast_reads as _incast_reads
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data import tables as judge_data_tables

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}
ROW_KEYS = {"check", "name", "facts", "raw", "expect", "status", "contains", "group", "blamed", "leaf", "units"}
STATUSES = ("PASS", "FAIL", "ERROR", "SKIP")
# fec_counters' table (judge_data/switch/layer1_fec.py) is being written alongside by another change of issue 12:
# the check is skipped while it has no row at all, and held to PASS/FAIL/ERROR once it has one.
STILL_BEING_ADDED = {"fec_counters"}


TABLES = {name: table.DATA for name, table in judge_data_tables.tables().items()}  # "<module>/<table>": its rows
ROWS = [row for rows in TABLES.values() for row in rows]


def _verdicts_path(table):
    """Where a table's recorded verdicts sit: beside it (expected, actual, cause and detail of every row's verdict, word
    for word, written by write_verdicts)."""
    return os.path.join(os.path.dirname(judge_data_tables.__file__), *table.split("/")) + ".verdicts.json"


def _row_id(row):
    return "%s: %s" % (row["check"], row["name"])


def _expect(row):
    values, errors = _expectations.resolve(CATALOG, row.get("expect", {}))
    assert not errors, errors
    return values


def _parsed(name, value, expect):
    """Facts of one raw output: a text is the source's first way; (parser, text) the way of that parser
    (of the ways of this switch's platform, for a switch source)."""
    parser, text = value if isinstance(value, tuple) else (None, value)
    platform = expect.get("pyramid_switch_os")
    ways = [each["parser"] for each in CATALOG["sources"][name]["ways"] if each.get("platform", platform) == platform]
    return _engine.parse_one({"status": "ok", "stdout": text, "command": name, "parser": parser or ways[0]})


def _source_facts(name, value, expect):
    if _engine.foreach_of(CATALOG["sources"][name], expect):
        return {item: _parsed(name, text, expect) for item, text in value.items()}
    return _parsed(name, value, expect)


def _host_facts(facts, raw, expect):
    facts = copy.deepcopy(facts or {})
    for name, value in (raw or {}).items():
        if CATALOG["sources"][name].get("counters"):  # as run/counters.py windows them
            before, after = _source_facts(name, value["before"], expect), _source_facts(name, value["after"], expect)
            if isinstance(before, SourceFailure):
                facts[name] = SourceFailure(before.command, "at the snapshot: " + before.reason, before.status, before.output)
            elif isinstance(after, SourceFailure):
                facts[name] = after
            else:
                facts[name] = {"before": before, "after": after, "seconds": value["seconds"]}
        elif _engine.foreach_of(CATALOG["sources"][name], expect):
            facts[name] = dict(facts.get(name) or {})
            facts[name].update(_source_facts(name, value, expect))
        else:
            facts[name] = _parsed(name, value, expect)
    return facts


def _fabric_result(check, row, expect):
    """The fabric judge's verdict on one run, as the straggler hunt records it."""
    (name,) = check["sources"]
    run = _host_facts(row.get("facts"), row.get("raw"), expect)[name]
    declared = _engine.declared(check, expect)
    if "units" in row:  # each node's scalable unit, as the straggler hunt resolves it for the pod's all-to-all
        declared["scalable_units"] = row["units"]
    outcome = _judging.JUDGES["fabric"][check["judge"]]({"run": run, "group": row["group"], "platforms": CATALOG["platforms"]}, declared)
    assert sorted(outcome["by_host"]) == sorted(row.get("blamed", [])), outcome
    assert outcome["cause_key"] is None or outcome["cause_key"] in check["causes"], outcome
    assert all(key in check["causes"] for keys in outcome["by_host"].values() for key in keys), outcome
    return dict(outcome, cause=check["causes"].get(outcome["cause_key"]) or outcome.get("cause"))  # fabric_runs.record's rule


def _assert_result(result, check, status, contains):
    said = "%s | %s | %s" % (result["actual"], result["cause"] or "", result["expected"])  # "contains" may name any of them
    assert result["status"] == status, result
    for part in contains:
        part = check["cause"] if part == "{cause}" else part  # the catalog's cause of the check, not one the judge gave
        assert part in said, "%r not in %r" % (part, said)


def _results(row):
    """The row's results through the engine: {host: result} of a pod check, {"-": result} otherwise."""
    check = CHECKS[row["check"]]
    expect = _expect(row)
    if check["scope"] == "pod":
        hosts = sorted(set(row.get("facts", {})) | set(row.get("raw", {})))
        facts_by_host = {host: _host_facts(row.get("facts", {}).get(host), row.get("raw", {}).get(host), expect) for host in hosts}
        return _engine.judge_pod(check, CATALOG, facts_by_host, {host: expect for host in hosts})
    if check["scope"] == "fabric":
        return {"-": _fabric_result(check, row, expect)}
    if check["scope"] == "link":  # the link run's windows per switch, with the paths its plan gave (run/link.py)
        outcomes = _engine.run_judge(check, _judging.JUDGES["link"][check["judge"]], row["facts"],
                                     dict(_engine.declared(check, expect), **row["group"]), hosts=sorted(row["status"]))
        return {device: _engine.result(device, check, CATALOG, expect, outcome["status"], outcome["expected"], outcome["actual"],
                                       cause=outcome.get("cause") or check["causes"].get(outcome.get("cause_key")),
                                       command=outcome.get("command"), detail=outcome.get("detail"))
                for device, outcome in outcomes.items()}
    if check["scope"] == "rail_mesh":  # one run between two nodes on one rail, as the rail mesh judges each
        run = _host_facts(row.get("facts"), row.get("raw"), expect)[check["sources"][0]]
        outcome = _engine.run_judge(check, _judging.JUDGES["rail_mesh"][check["judge"]], run, expect)
        return {"-": _engine.result("node-001", check, CATALOG, expect, outcome["status"], outcome["expected"], outcome["actual"])}
    if check["id"] == "incast_ib":  # InfiniBand's: the fabric host's ibqueryerrors reads (judging/incast_infiniband.py)
        reads = {label: _incast_reads.as_input(_parsed("ib_port_counters", value, expect))
                 for label, value in row["raw"]["ib_port_counters"].items()}
        reads["seconds"] = row.get("seconds", {"load": 17.4, "settle": 2.2})
        outcome = _judging.JUDGES["incast"][check["judge"]]({"group": row["group"], "reads": reads}, expect)
        return {"-": _incast_reads.record(row["group"]["target"], check, CATALOG, expect, _judging.incast_infiniband.target_verdict(outcome, expect))}
    if check["scope"] == "incast":  # one target's incast: its leaf's and its NICs' counters (judging/incast.py)
        outcome = _judging.JUDGES["incast"][check["judge"]](dict(row["facts"], group=row["group"]), expect)
        if check["device"] == "switch":  # the same incast's verdict on the leaf (judging/incast_rounds.py)
            ports = outcome.get("ports") or [dict(port, cause=None, msg=None) for port in row["group"]["ports"]]
            findings = [_judging.incast_rounds.leaf_finding(row["group"], outcome, entry) for entry in ports if entry["leaf"] == row["leaf"]]
            return {"-": _incast_reads.record(row["leaf"], check, CATALOG, expect, _judging.incast_rounds.leaf_verdict(row["leaf"], findings))}
        return {"-": _incast_reads.record(row["group"]["target"], check, CATALOG, expect, _judging.incast.target_verdict(outcome, expect))}
    facts = _host_facts(row.get("facts"), row.get("raw"), expect)
    return {"-": _engine.judge_host("node-001", check, CATALOG, facts, expect, _collected(row.get("raw"), expect))}


def _collected(raw, expect):
    """What ran for each raw output given as (parser, text): the command of the way of that parser on this platform, as
    the collector says which way answered (an ERROR names the read it could not use, not the first way planned)."""
    collected = {}
    for name, value in (raw or {}).items():
        source = CATALOG["sources"][name]
        if isinstance(value, tuple) and not source.get("counters") and not _engine.foreach_of(source, expect):
            ways = [way for way in _engine._ways(source, expect) if way["parser"] == value[0]]  # pylint: disable=protected-access
            assert ways, "row feeds %s to %s, whose ways planned here have no such parser" % (value[0], name)
            # the first planned way of that parser (a parser two ways share: the one this expectation plans)
            collected[name] = {"command": _engine._planned_command(dict(source, ways=ways[:1]), expect)}  # pylint: disable=protected-access
    return collected


def _said(results):
    """What a verdict says: expected, actual, cause and detail; for an ERROR also the command it names (an ERROR names
    the read it could not use), and a check that does not apply says so (not_applicable)."""
    return {host: [result["expected"], result["actual"], result["cause"], result.get("detail")]
            + ([result.get("command")] if result["status"] == "ERROR" else [])
            + (["not applicable"] if result.get("not_applicable") else [])
            for host, result in sorted(results.items())}


def _recorded():
    recorded = {}
    for table in TABLES:
        try:
            with open(_verdicts_path(table), encoding="utf-8") as handle:
                recorded.update(json.load(handle))
        except FileNotFoundError:
            continue  # a table not recorded yet: its rows are judged by "contains" alone
    return recorded


RECORDED = _recorded()


def write_verdicts():
    """Record what every row's verdict says (after a deliberate change of a judge's wording), from the repository root:
    .venv/bin/python -c 'import sys; sys.path[:0] = [".collections", "twin"]
    from ansible_collections.gpufabric.pyramid.tests.unit.test_judge_data import write_verdicts; write_verdicts()'"""
    for table, rows in TABLES.items():
        said = {_row_id(row): _said(_results(row)) for row in rows}
        with open(_verdicts_path(table), "w", encoding="utf-8") as handle:
            json.dump(said, handle, indent=1, sort_keys=True, ensure_ascii=False)
            handle.write("\n")


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_row(row):
    assert set(row) <= ROW_KEYS and {"check", "name", "status"} <= set(row), sorted(row)
    check = CHECKS[row["check"]]
    results = _results(row)
    if _catalog.kind_of(check)["judged"] == "pod":  # a verdict per device
        assert sorted(results) == sorted(row["status"])
        for host, status in row["status"].items():
            _assert_result(results[host], check, status, row.get("contains", {}).get(host, []))
    else:
        assert row["status"] in STATUSES
        _assert_result(results["-"], check, row["status"], row.get("contains", []))
    if _row_id(row) in RECORDED:  # the whole wording, as recorded: a row added since is judged by "contains" alone
        assert _said(results) == RECORDED[_row_id(row)]


def test_every_check_has_pass_fail_and_error_rows():
    seen = collections.defaultdict(set)
    for row in ROWS:
        seen[row["check"]].update(row["status"].values() if isinstance(row["status"], dict) else [row["status"]])
    for check in CATALOG["checks"]:
        if check["id"] in STILL_BEING_ADDED and not seen[check["id"]]:
            continue
        wanted = {"PASS", "FAIL"}
        if not all(CATALOG["sources"][name].get("optional") for name in check["sources"]):
            wanted.add("ERROR")  # a required source that gives nothing is an ERROR, never a PASS
        assert wanted <= seen[check["id"]], "%s: no %s row" % (check["id"], ", ".join(sorted(wanted - seen[check["id"]])))
    assert len({_row_id(row) for row in ROWS}) == len(ROWS), "two rows of one check share a name"


def _judging_module(check):
    """The judging module (judging/<module>.py) of the judge a catalog check names, in its own scope's table."""
    judge = _judging.JUDGES.get(check["scope"], {}).get(check["judge"])
    return judge.__module__.rsplit(".", 1)[1] if judge else None


def test_every_table_sits_under_the_module_it_tests():
    misplaced = []
    for table, rows in TABLES.items():
        folder, _slash, name = table.rpartition("/")
        for row in rows:
            module = _judging_module(CHECKS[row["check"]])
            if module is None:
                check = CHECKS[row["check"]]
                misplaced.append("judge_data/%s.py: %r: no judge %r in scope %s" % (table, _row_id(row), check["judge"], check["scope"]))
            elif module != folder:
                misplaced.append("judge_data/%s.py: %r tests judging/%s.py: it belongs under judge_data/%s/ (as %s/%s.py)"
                                 % (table, _row_id(row), module, module, module, name))
    assert not misplaced, "\n".join(misplaced)


def test_the_registry_refuses_an_unknown_scope_and_a_judge_registered_twice():
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import registry  # pylint: disable=import-outside-toplevel
    with pytest.raises(ValueError) as refused:
        registry.judge("rails_active", scope="nowhere")
    assert str(refused.value) == "judge rails_active: unknown scope 'nowhere' (one of %s)" % ", ".join(_catalog.SCOPES)
    first = registry.JUDGES["host"]["rails_active"]
    with pytest.raises(ValueError) as twice:
        registry.judge("rails_active", scope="host")(lambda facts, expect: None)
    assert str(twice.value) == "judge rails_active: registered twice in scope host"
    assert registry.JUDGES["host"]["rails_active"] is first
