# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one path of every check: collected output -> parser -> facts -> judge -> result."""

from __future__ import annotations

import re

from ..core import catalog as _catalog
from .. import judging as _judges
from ..judging import unjudged as _unjudged
from .. import parsing
from ..core.catalog import WAY_KINDS
from ..core.model import ERROR, PASS, SKIP, SourceFailure
from ansible_collections.gpufabric.pyramid.plugins.module_utils.failure_line import why_failed

PLACEHOLDER = re.compile(r"\{(item|pyramid_\w+|group_\w+)\}")  # {payload:NAME} is left for the collect module
ENV_FLAGS = "{env_flags}"
SPLICE = re.compile(r"^\{\*(pyramid_\w+)\}$")  # an argument that is a whole list expectation, spliced in

NO_DATA_GO_BACK = "Fix data collection on the host (tool installed, host reachable), then re-run"


def foreach_of(source, expect=None):
    """The foreach of a source: its own, or that of the way its platform uses (e.g. a per-port command)."""
    if source.get("foreach"):
        return source["foreach"]
    ways = _ways(source, expect) if expect else []
    return ways[0].get("foreach") if ways else None


def foreach_items(spec, expect):
    """Items of `foreach: VAR` (a list) or `foreach: VAR.FIELD` (that field of each dict of a list)."""
    name, field = (spec.split(".", 1) + [""])[:2]
    return [item[field] if field else item for item in expect[name]]


def _expanded(name, source, expect):
    """(collected id, item) pairs of a source: one per foreach item."""
    spec = foreach_of(source, expect)
    if spec:
        return [("%s[%s]" % (name, item), item) for item in foreach_items(spec, expect)]
    return [(name, None)]


def source_names(checks):
    names = []
    for check in checks:
        names.extend(name for name in check["sources"] if name not in names)
    return names


# What a planned way carries for the controller alone (the parser chosen, whether stderr is parsed too):
# never sent to the host, put on the answer that way gave (see answered), so nothing is chosen twice.
CHOICE = ("parser", "stderr_parsed")


def reads(names, catalog, expect, group=None):
    """The reads of ``names`` on one device, each command once: [{"id", "ways": [...]}], each way the
    command as the collector runs it (``wire``) and the parser chosen for its output (CHOICE).

    ``group`` fills {group_*} placeholders of launched sources (``{"hosts": "a,b", ...}``).
    """
    planned = []
    for name in names:
        source = catalog["sources"][name]
        for collected_id, item in _expanded(name, source, expect):
            ways = []
            for way in _ways(source, expect):
                kind = next(k for k in WAY_KINDS if k in way)
                if kind == "run":
                    value = _argv(way, item, expect, group)
                else:  # a file or directory to read, or one command line of a network OS CLI (network_cli)
                    value = _fill(way[kind], item, expect, group)
                planned_way = {kind: value, "parser": way["parser"]}
                if way.get("stderr"):
                    planned_way["stderr_parsed"] = True
                if way.get("env"):
                    planned_way["env"] = dict(expect[way["env"]])
                if way.get("timeout"):
                    planned_way["timeout"] = expect[way["timeout"]]
                if way.get("accept_rc"):
                    planned_way["accept_rc"] = list(way["accept_rc"])
                ways.append(planned_way)
            planned.append({"id": collected_id, "ways": ways})
    return planned


def wire(planned):
    """The reads as the collector takes them: the commands, without the controller's choice."""
    return [dict(read, ways=[{key: value for key, value in way.items() if key not in CHOICE} for way in read["ways"]])
            for read in planned]


def answers(planned, collected):
    """Each collected answer of ``planned`` with its read's choice (answered); reads with no answer stay out."""
    return {read["id"]: answered(read, collected[read["id"]]) for read in planned if collected.get(read["id"]) is not None}


def answered(read, raw):
    """``raw`` (one collected answer of ``read``) with the choice of the way that gave it: its parser, and whether
    its stderr is parsed too. The answer carries them from then on (saved to a run's files, read in a later phase)."""
    ways, index = read["ways"], raw.get("way", 0)
    if not isinstance(index, int) or not 0 <= index < len(ways):
        return dict(raw)  # a way nobody planned: no parser, so parse_one says so (never another way's parser)
    return dict(raw, **{key: ways[index][key] for key in CHOICE if key in ways[index]})


def _ways(source, expect):
    """The ways that apply: a launched source's for the inventory's launcher, and `only_if` ways only
    when the expectations say so, so a user's choice never falls back to another way."""
    ways = source["ways"]
    if source.get("launched"):
        ways = [way for way in ways if way["launcher"] == expect["pyramid_nccl_launcher"]]
    if any("platform" in way for way in ways):  # a switch source: the ways of this switch's platform
        ways = [way for way in ways if way["platform"] == expect.get("pyramid_switch_os")]
    return [way for way in ways if all(_holds(expect.get(name), wanted) for name, wanted in way.get("only_if", {}).items())]


def _holds(value, wanted):
    if isinstance(wanted, bool):  # true: set (non-empty), false: not set
        return bool(value) == wanted
    return str(value) == str(wanted)


def _argv(way, item, expect, group, shown=False):
    argv = []
    for arg in way["run"]:
        if arg == ENV_FLAGS:  # mpirun -x NAME: forward each variable of the run's environment to every rank
            for env_name in sorted(expect[way["env"]]) if way.get("env") else []:
                argv += [way["env_flag"], env_name]
        elif SPLICE.match(str(arg)):
            argv += [str(item) for item in expect[SPLICE.match(arg).group(1)]]
        else:
            argv.append(_fill(arg, item, expect, group, shown))
    return argv


def _fill(text, item, expect, group=None, shown=False):
    """Fill placeholders; a planned command needs every value, a shown one keeps the unknown ones."""
    def value(match):
        key = match.group(1)
        if key == "item":
            return str(item)
        if shown and (key.startswith("group_") and group is None or key.startswith("pyramid_") and key not in expect):
            return match.group(0)
        if key.startswith("group_"):
            return str(group[key[len("group_"):]])
        return str(expect[key])
    return PLACEHOLDER.sub(value, str(text))


def parse_one(raw):
    """Facts of one collected answer (``answered``: it names its parser), or a SourceFailure saying why there are none."""
    if raw is None:
        return SourceFailure("(not collected)", "no output was collected")
    command = raw.get("command", "?")
    parser = raw.get("parser")
    if raw.get("status") != "ok":
        return SourceFailure(command, "; ".join(raw.get("attempts") or [raw.get("msg", "failed")]),
                             status=raw.get("status"), output=raw.get("stdout", ""),
                             partial=parsing.partial(parser, raw.get("stdout", "")))
    if not parser:  # an answer nobody planned a parser for: a defect of the run, never facts
        return SourceFailure(command, "%s: no parser chosen for its output" % command, output=raw.get("stdout", ""))
    text = raw.get("stdout", "")
    if raw.get("stderr_parsed") and raw.get("stderr"):
        text += "\n" + raw["stderr"]  # where the tool names what it could not read (ibstat's ibpanic line)
    try:
        facts = parsing.parse(parser, text)
        if raw.get("rc"):
            facts["exit_code"] = raw["rc"]  # an accepted non-zero exit: the judge decides what it means
        return facts
    except parsing.ParseError as exc:
        why = why_failed(raw.get("stderr"), "")  # a launcher's stderr says which rank failed, and why
        said = "; exit code %d" % raw["rc"] if raw.get("rc") else ""
        said += "; stderr: %s" % why if why else ""
        said += "; %s" % raw["non_text"] if raw.get("non_text") else ""  # bytes that were not text, and where
        return SourceFailure(command, "%s: unparseable output (%s): %s%s" % (command, parser, exc, said),
                             output=raw.get("stdout", ""), partial=parsing.partial(parser, text))


def parse_sources(names, catalog, collected, expect):
    """Source name -> facts | SourceFailure | {item: facts | SourceFailure} for foreach sources."""
    facts = {}
    for name in names:
        source = catalog["sources"][name]
        if foreach_of(source, expect):
            facts[name] = {item: parse_one(collected.get(cid)) for cid, item in _expanded(name, source, expect)}
        else:
            facts[name] = parse_one(collected.get(name))
    return facts


def _planned_command(source, expect):
    """The command of a source's first way as planned; a foreach item and a group's nodes stay placeholders."""
    way = (_ways(source, expect) if expect else source["ways"])[0]
    kind = next(k for k in WAY_KINDS if k in way)
    each = foreach_of(source, expect) if expect else source.get("foreach") or way.get("foreach")
    if kind == "run":
        text = " ".join(_argv(way, "<%s>" % each, expect, None, shown=True) if expect else way["run"])
    elif kind == "cli":
        text = way["cli"]
    else:
        text = "%s %s" % ({"read": "cat", "list": "ls", "query": "promql"}[kind], way[kind])
    return text.replace("{item}", "<%s>" % each) if each else text


def planned_ways(source, expect):
    """Each way of a source that applies for these expectations, as its planned command, in the order the node tries
    them (the first that answers is the one used: nccl-tests where built, else the built-in benchmark)."""
    return [_planned_command(dict(source, ways=[way]), expect) for way in _ways(source, expect)]


def commands_of(check, catalog, expect, collected=None):
    """The commands a check read: what ran where the collector says so (the way that answered: the
    built-in benchmark instead of all_reduce_perf, /proc/modules instead of lsmod), else as planned."""
    commands = []
    for name in check["sources"]:
        source = catalog["sources"][name]
        raw = (collected or {}).get(name)
        ran = raw.get("command") if raw and not foreach_of(source, expect) else None
        commands.append(ran or _planned_command(source, expect))
    return "; ".join(commands)


def check_inputs(check, catalog, facts, expect=None):
    """The facts a check's judge reads, or the failures that stop it from judging."""
    inputs, failures = {}, []
    for name in check["sources"]:
        # a source the judge reads only to word what it found (names_from) never stops it: not read is as optional
        optional = catalog["sources"][name].get("optional", False) or name in check.get("names_from", ())
        if name not in facts and optional:
            inputs[name] = None  # an optional source nobody read (facts from another layer's plan): missing
            continue
        value = facts[name]
        if isinstance(value, SourceFailure):
            if check.get("judges_failures"):
                inputs[name] = value  # this judge reads failures itself (a hang is a FAIL, not missing data)
            elif optional:
                inputs[name] = None
            else:
                failures.append(value)
            continue
        if isinstance(value, dict) and foreach_of(catalog["sources"][name], expect):
            if all(isinstance(item, SourceFailure) for item in value.values()) and value and not optional:
                # every item failed: no data at all (the tool is missing, say); judge nothing
                first = next(iter(value.values()))
                failures.append(SourceFailure(first.command, first.reason))
                continue
        inputs[name] = value
    if "read_on_host" in facts:  # where each source read once for the pod was read (run/pod.py), for the judge to name
        inputs["read_on_host"] = facts["read_on_host"]
    if check.get("switch_facts"):  # the cabled switch ports' facts, put beside the host's by judge_pod (roce_agree.py)
        inputs["cabled_switch_ports"] = facts.get("cabled_switch_ports")
        if not inputs["cabled_switch_ports"]:
            # no switch port cabled to this host in the run (a lone GPU box): nothing to agree with, so the judge says
            # not applicable; the host's own reads that failed are their own checks' ERRORs, not this one's
            failures = []
    return inputs, failures


def result(host, check, catalog, expect, status, expected, actual, cause=None, command=None, detail=None):
    record = {
        "host": host,
        "layer": check["layer"],
        "check": check["id"],
        "title": check["title"],
        "row": check["row"],
        "status": status,
        "expected": expected,
        "actual": actual,
        "command": command or commands_of(check, catalog, expect),
        "cause": None,
        "go_back_to": None,
    }
    if status == ERROR:
        record["cause"] = cause or "No data: the check could not be judged"
        if host not in record["cause"]:
            record["cause"] += " on %s" % host
        record["go_back_to"] = NO_DATA_GO_BACK
    elif status not in (PASS, SKIP):
        record["cause"] = cause or check["cause"]
        record["go_back_to"] = check["go_back_to"]
    if detail:
        record["detail"] = detail
    return record


def record_of(host, check, catalog, expect, outcome, command=None):
    """The record of a verdict decided in judging/ (a judge's, or judging/unjudged.py's for a check not measured)."""
    record = result(host, check, catalog, expect, outcome["status"], outcome["expected"], outcome["actual"],
                    cause=outcome.get("cause"), command=command or outcome.get("command"), detail=outcome.get("detail"))
    if outcome.get("not_applicable"):
        record["not_applicable"] = True
    return record


def not_applicable_result(host, check, catalog, expect):
    """SKIP for a check this device's platform has no way for, or whose only_if this device is outside; it does not
    count against GO."""
    wanted = ("a device of %s" % ", ".join(check["platforms"]) if "platforms" in check else
              "; ".join("%s %s" % (name, " or ".join(map(str, value if isinstance(value, list) else [value])))
                        for name, value in sorted(check.get("only_if", {}).items())) or
              "; ".join("%s at least %d" % item for item in sorted(check.get("at_least", {}).items())))
    return record_of(host, check, catalog, expect, _unjudged.not_applicable(wanted, _catalog.not_applicable(check, expect)),
                     command="(none)")


def expected_of_error(check, expect):
    return "parseable output from every source of %s" % check["id"]


def error_result(host, check, catalog, expect, failures):
    reason = "; ".join(failure.reason for failure in failures)
    elsewhere = sorted({f.ran_on for f in failures if getattr(f, "ran_on", None) and f.ran_on != host})
    where = "%s (read there once for the pod, %s among the nodes judged by it)" % (", ".join(elsewhere), host) if elsewhere else host
    return record_of(host, check, catalog, expect, _unjudged.no_data(
        expected_of_error(check, expect), reason, cause="No data from %s on %s" % (", ".join("`%s`" % f.command for f in failures), where)),
        command="; ".join(f.command for f in failures))


def declared(check, expect):
    """The expectations a check declares (its `expect`): all its judge may read. A judge reading another
    one fails on it (an ERROR naming it, and the judge's data-table tests catch it before it ships)."""
    return {name: expect[name] for name in check.get("expect", []) if name in expect}


def run_judge(check, function, *args, hosts=None):
    """The judge's outcome (a pod judge's: per host of ``hosts``); a judge that raises (facts without what
    it reads, a NaN it cannot order, a bug) is an ERROR for this check naming the exception, for every
    host it judged: never a traceback that loses the layer, never a PASS."""
    try:
        return function(*args)
    except Exception as exc:  # pylint: disable=broad-exception-caught
        failed = _unjudged.judge_raised(check["judge"], expected_of_error(check, None), exc)
        return failed if hosts is None else {host: dict(failed) for host in hosts}


def judge_host(host, check, catalog, facts, expect, collected=None):
    """A host check's result; ``collected`` (the raw runs) names the commands that actually ran."""
    inputs, failures = check_inputs(check, catalog, facts, expect)
    if failures:
        return error_result(host, check, catalog, expect, failures)
    outcome = run_judge(check, _judges.judge_of(check), inputs, declared(check, expect))
    cause = outcome.get("cause") or check.get("causes", {}).get(outcome.get("cause_key"))
    record = result(host, check, catalog, expect, outcome["status"], outcome["expected"], outcome["actual"],
                    cause=cause, command=outcome.get("command") or commands_of(check, catalog, expect, collected),
                    detail=outcome.get("detail"))
    if outcome.get("go_back_to") and record["go_back_to"]:  # a finding whose way back is not the check's usual one
        record["go_back_to"] = outcome["go_back_to"]
    if outcome["status"] == SKIP and outcome.get("not_applicable"):
        record["not_applicable"] = True  # e.g. no NVSwitch fabric on this host: neither for nor against GO
    return record


def judge_pod(check, catalog, facts_by_host, expect_by_host, ran_by_host=None):
    """Results per host of a pod-scope check; hosts whose sources failed get an ERROR.

    ``ran_by_host``: host -> {source id: {"command": what ran}} (results.ran), so each result names
    the command that answered on that host, not the one planned."""
    results, judged = {}, {}
    for host, facts in facts_by_host.items():
        inputs, failures = check_inputs(check, catalog, facts, expect_by_host[host])
        if failures:
            results[host] = error_result(host, check, catalog, expect_by_host[host], failures)
        else:
            judged[host] = inputs
    if judged:
        outcomes = run_judge(check, _judges.judge_of(check), judged, {h: declared(check, expect_by_host[h]) for h in judged},
                             hosts=judged)
        for host, outcome in outcomes.items():
            ran = commands_of(check, catalog, expect_by_host[host], (ran_by_host or {}).get(host))
            results[host] = result(host, check, catalog, expect_by_host[host], outcome["status"], outcome["expected"],
                                   outcome["actual"], cause=outcome.get("cause"), command=ran, detail=outcome.get("detail"))
            if outcome["status"] == SKIP and outcome.get("not_applicable"):
                results[host]["not_applicable"] = True  # neither for nor against GO, as a host check's
    return results


def serializable_facts(value):
    """Facts as JSON: failures become {"error": ...} so pod judges and reports can read them back."""
    if isinstance(value, SourceFailure):
        return {"__source_failure__": True, "command": value.command, "reason": value.reason,
                "status": value.status, "output": value.output[-4000:], "partial": value.partial}
    if isinstance(value, dict):
        return {key: serializable_facts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [serializable_facts(item) for item in value]
    return value


def restore_facts(value):
    if isinstance(value, dict):
        if value.get("__source_failure__"):
            return SourceFailure(value["command"], value["reason"], value.get("status"), value.get("output", ""),
                                 value.get("partial"))
        return {key: restore_facts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [restore_facts(item) for item in value]
    return value
