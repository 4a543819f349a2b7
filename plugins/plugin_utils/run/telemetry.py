# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 7 on every device of the run, from the controller: the logic of the telemetry action, with the
query function passed in so it runs without Ansible in unit tests.

One path, as every check: collect (each distinct query once per run, client.query) -> parse (the
engine's parse stage, parser prometheus_query_vector) -> facts (the series of this device, by
pyramid_telemetry_device_label) -> judge (judging/telemetry.py) -> gate (a device stopped below is
not climbed to Layer 7) -> the device's results file, which the report reads.
"""

from __future__ import annotations

from ..core import catalog as _catalog, results as _results
from . import engine as _engine
from ..core.model import PASS, SourceFailure
from ..judging import unjudged as _unjudged
from ..gate import blocking as _blocking

LAYER = 7


def run(run_dir, devices, catalog, expectations_of, ask):
    """Judge Layer 7 for ``devices`` (device type -> hosts) into their results files; a summary.

    ``expectations_of(host, checks)`` -> (typed expectations, errors); ``ask(url, promql, timeout)`` ->
    a collected answer (client.query)."""
    answers, records = {}, []
    for device, hosts in sorted(devices.items()):
        checks = _catalog.checks_at(catalog, LAYER, device)
        for host in hosts if checks else []:
            doc = _results.load(run_dir, host)
            records.extend(judge_device(host, check, catalog, expectations_of(host, [check]), doc, answers, ask) for check in checks)
    counts = _results.record_each(run_dir, records)
    failing = ["%s %s=%s" % (r["host"], r["check"], r["status"]) for r in records if r["status"] != PASS and not r.get("not_applicable")]
    return {"counts": counts, "not_passing": failing, "queries": len(answers),
            "msg": "layer 7 (telemetry) on %d devices: %s%s" % (
                len(records), ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())) or "nothing to judge",
                " (%s)" % ", ".join(failing[:20]) if failing else "")}


def judge_device(host, check, catalog, expect_and_errors, doc, answers, ask):
    """One device's record for one Layer 7 check."""
    expect, errors = expect_and_errors
    if errors:  # pre-flight refuses these first; a run without pre-flight still never passes on them
        return _engine.record_of(host, check, catalog, expect, _unjudged.no_data("valid expectations", "; ".join(errors)), command="(none)")
    if _catalog.not_applicable(check, expect):
        return _engine.not_applicable_result(host, check, catalog, expect)
    stopped = _gate(doc, check)
    if stopped and expect["pyramid_enforce_gate"]:
        below, failing = stopped
        return _engine.record_of(host, check, catalog, expect, _unjudged.not_run(
            "layer %d passed" % below, "not run: blocked at layer %d (%s)" % (below, ", ".join(failing))), command="(none)")
    if not expect["pyramid_prometheus_url"]:
        return _not_checked(host, check, catalog, expect)
    expect = dict(expect, pyramid_telemetry_device=expect["pyramid_telemetry_device"] or host)
    collected, facts = {}, {}
    for name in check["sources"]:
        facts[name] = {}
        source = catalog["sources"][name]
        items = _engine.foreach_items(_engine.foreach_of(source, expect), expect)
        for planned, item in zip(_engine.reads([name], catalog, expect), items):
            raw, parsed = _answer(planned, expect, answers, ask)
            collected[planned["id"]] = raw
            facts[name][item] = of_device(parsed, expect["pyramid_telemetry_device_label"], expect["pyramid_telemetry_device"])
    return _engine.judge_host(host, check, catalog, facts, expect, collected)


def _gate(doc, check):
    """(lowest failed layer, its checks) when the device stopped below Layer 7, else None."""
    if check["device"] == "switch":  # a switch climbs past failures confined to ports
        return _blocking.climb(doc["results"], LAYER)[0]
    return _results.blocker(doc["results"], LAYER)


def _not_checked(host, check, catalog, expect):
    """No Prometheus to ask: SKIP saying so, never PASS. It holds the device back only when the inventory
    says telemetry is required (pyramid_telemetry_required)."""
    why = "no Prometheus URL (pyramid_prometheus_url) for %s" % host
    record = _engine.record_of(host, check, catalog, expect, _unjudged.not_run("the signals read from Prometheus", "not checked: " + why),
                               command="(none)")
    if not expect["pyramid_telemetry_required"]:
        record["not_applicable"] = True
        record["not_checked"] = "no Prometheus URL (pyramid_prometheus_url)"
    return record


def _answer(planned, expect, answers, ask):
    """(collected answer, parsed facts | SourceFailure) of one planned query; asked and parsed once per run."""
    url, promql = expect["pyramid_prometheus_url"], planned["ways"][0]["query"]
    key = (url, promql, planned["ways"][0]["parser"])
    if key not in answers:
        raw = _engine.answered(planned, ask(url, promql, expect["pyramid_prometheus_timeout"]))
        answers[key] = (raw, _engine.parse_one(raw))
    return answers[key]


def of_device(parsed, label, name):
    """The series of one device: its ``label`` is ``name``, or ``name:port`` (a scrape target)."""
    if isinstance(parsed, SourceFailure):
        return parsed
    return {"series": [item for item in parsed["series"] if names(item["labels"].get(label), name)],
            "evaluated_at": parsed["evaluated_at"]}


def names(value, name):
    if value is None:
        return False
    host, _sep, port = value.rpartition(":")
    return value == name or (host == name and port.isdigit())
