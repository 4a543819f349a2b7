# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One layer on one device, and the counters snapshot that starts the soak: the logic of run_layer
and counter_snapshot, with the collector passed in so it runs without Ansible in unit tests.

``collect(planned)`` returns (collected, unreachable) as run/ansible_collect.collect does;
``doc`` is the device's results file (core/results.py), updated in place.
"""

from __future__ import annotations

from ..core import catalog as _catalog, results as _results
from . import engine as _engine
from . import counters as _counters
from . import check_mode as _check_mode
from . import depends as _depends
from ..gate import blocking as _blocking
from ..judging import unjudged as _unjudged
from ..core.model import PASS, SKIP, SourceFailure, count_statuses


def split_applicable(host, checks, catalog, expect):
    """(checks to run, SKIP 'not applicable' records of the others)."""
    applicable, inapplicable = [], []
    for check in checks:
        if _catalog.not_applicable(check, expect):
            inapplicable.append(_engine.not_applicable_result(host, check, catalog, expect))
        else:
            applicable.append(check)
    return applicable, inapplicable


def stops_here(doc, layer, on_switch):
    """The checks of ``layer`` that keep the device from climbing past it (its first failing layer is this one), else
    []: a switch's failures confined to ports let it climb, judged without them (gate/blocking.py climb)."""
    if on_switch:
        blocked, _set_aside = _blocking.climb(doc["results"], layer + 1)
    else:
        blocked = _results.blocker(doc["results"], layer + 1)
    return list(blocked[1]) if blocked and blocked[0] == layer else []


def run(host, layer, checks, catalog, expect, doc, collect, wait=_counters.wait, reads_for=(), check_mode=False):
    """Judge ``checks`` of ``layer`` on ``host`` into ``doc``; returns (the layer's records, summary).

    ``reads_for``: the inventory groups this host reads for (run/pod.py reader): a source with ``read_on`` is read on
    that group's reader only (a fabric-wide read such as iblinkinfo, made once for the pod; its pod checks' judge
    hands it to every device).
    ``check_mode``: the checks that load the fabric or the GPUs are not run (SKIP "not run: check mode").
    summary: {"counts", "failing", "soak_waited", "msg"}; counter windows, when any, in summary["counters"].
    """
    on_switch = any(check["device"] == "switch" for check in checks)
    checks, inapplicable = split_applicable(host, checks, catalog, expect)
    if on_switch:  # a switch climbs past failures confined to ports, judged without them
        blocked, set_aside = _blocking.climb(doc["results"], layer)
    else:
        blocked, set_aside = _results.blocker(doc["results"], layer), set()
    if blocked and expect["pyramid_enforce_gate"]:
        below, failing = blocked
        blocked_at = _unjudged.not_run("layer %d passed" % below, "not run: blocked at layer %d (%s)" % (below, ", ".join(failing)))
        records = [_engine.record_of(host, check, catalog, expect, blocked_at) for check in checks]
        _results.record(doc, records + inapplicable)
        why = "layer %d not run: %s stopped at layer %d (%s)" % (layer, host, below, ", ".join(failing))
        if reads_for:  # held back, still the pod's reader (run/pod.py readers): its reads for the pod, kept apart
            pod_checks = _check_mode.split(host, checks, catalog, expect)[0] if check_mode else checks
            why += _read_for_pod(host, layer, pod_checks, catalog, expect, doc, collect, wait, reads_for)
        return records + inapplicable, {"skipped_checks": len(records), "msg": why}
    if check_mode:  # reads only: a check that loads is recorded as not run, with the rest of the layer
        checks, not_run = _check_mode.split(host, checks, catalog, expect)
        # a mesh, incast or fabric check is recorded by its own run (run/ansible_step.py, run/fabric.py)
        on_device = {check["id"] for check in catalog["checks"] if _catalog.kind_of(check)["on_device"]}
        inapplicable += [record for record in not_run if record["check"] in on_device]
    # a kind not run on the device (catalog/kinds.yml on_device: false) is run and recorded by its own runner
    local = [check for check in checks if _catalog.kind_of(check)["on_device"]]
    if not local:
        _results.record(doc, inapplicable)
        return inapplicable, {"msg": "layer %d: no checks to run on %s itself (fabric checks run from the launcher)" % (layer, host)}

    # a source read on one host for the pod (read_on) only where this host is its group's reader
    names = [name for name in _engine.source_names(local) if catalog["sources"][name].get("read_on") in (None,) + tuple(reads_for)]
    counters = [name for name in _counters.source_names(catalog, local) if name in names]
    waited = wait(doc, expect["pyramid_soak_seconds"]) if counters else 0.0
    collected, unreachable = collect(_engine.reads(names, catalog, expect))
    records, summary = [], {"soak_waited": round(waited, 1)}
    judged = _without_ports(expect, set_aside) if set_aside and expect["pyramid_enforce_gate"] else expect
    (doc.get("pod_reads") or {}).pop("layer%d" % layer, None)  # a reader that climbs reads for the pod with its own facts
    if unreachable:
        failure = SourceFailure("ssh %s" % host, unreachable)
        for check in checks:
            records.append(_engine.error_result(host, check, catalog, expect, [
                SourceFailure(_engine.commands_of(check, catalog, expect), "host unreachable, nothing collected: " + unreachable)]))
        doc.setdefault("facts", {})["layer%d" % layer] = _engine.serializable_facts({"unreachable": failure})
    else:
        facts = _engine.parse_sources(names, catalog, collected, expect)
        _counters.windows(facts, counters, doc)
        if counters:
            summary["counters"] = {name: facts[name] for name in counters}
        records = [_set_aside_said(_engine.judge_host(host, check, catalog, facts, judged, collected), expect, judged)
                   for check in local if _catalog.kind_of(check)["judged"] == "device"]
        records = _depends.fold(records, catalog, doc["results"])  # an ERROR of a failed prerequisite's making: SKIP
        doc.setdefault("facts", {})["layer%d" % layer] = _engine.serializable_facts(facts)
        # what ran (the way that answered), for the pod checks judged later from these facts
        doc.setdefault("ran", {})["layer%d" % layer] = {
            sid: {"command": raw.get("command")} for sid, raw in (collected or {}).items() if raw and raw.get("command")}
    doc.setdefault("expect", {}).update(expect)
    records += inapplicable
    _results.record(doc, records)
    counts = {status: n for status, n in count_statuses(records).items() if n}
    failing = ["%s=%s" % (r["check"], r["status"]) for r in records if r["status"] != PASS and not r.get("not_applicable")]
    summary.update(counts=counts, msg="layer %d: %s%s" % (
        layer, ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())), (" (" + ", ".join(failing) + ")") if failing else ""))
    return records, summary


def _pod_source_names(checks, catalog, reads_for):
    """The ``read_on`` sources of ``checks`` whose group this host reads for."""
    local = [check for check in checks if _catalog.kind_of(check)["on_device"]]
    return [name for name in _engine.source_names(local) if catalog["sources"][name].get("read_on") in tuple(reads_for)]


def _read_for_pod(host, layer, checks, catalog, expect, doc, collect, wait, reads_for):
    """A reader held back at ``layer`` by its own checks still reads its groups' sources for the pod (their counters
    as windows since its snapshot), into doc["pod_reads"], apart from its facts: the pod's judge hands them to every
    node (run/pod.py pod_read) and never judges this host as if it climbed. What it read, in words for the summary."""
    names = _pod_source_names(checks, catalog, reads_for)
    if not names:
        return ""
    counters = [name for name in _counters.source_names(catalog, checks) if name in names]
    if counters:
        wait(doc, expect["pyramid_soak_seconds"])
    collected, unreachable = collect(_engine.reads(names, catalog, expect))
    if unreachable:
        kept = {"facts": {"unreachable": SourceFailure("ssh %s" % host, unreachable)}}
    else:
        facts = _engine.parse_sources(names, catalog, collected, expect)
        _counters.windows(facts, counters, doc)
        kept = {"facts": facts, "ran": {sid: {"command": raw.get("command")} for sid, raw in (collected or {}).items()
                                        if raw and raw.get("command")}}
    doc.setdefault("pod_reads", {})["layer%d" % layer] = _engine.serializable_facts(kept)
    return "; read for the pod (the reader of %s): %s%s" % (", ".join(sorted(reads_for)), ", ".join(names),
                                                            " - unreachable: " + unreachable if unreachable else "")


def _without_ports(expect, ports):
    plan = expect.get("pyramid_switch_ports")
    if not plan:
        return expect
    return dict(expect, pyramid_switch_ports=[entry for entry in plan if entry["port"] not in ports])


def _set_aside_said(record, expect, judged):
    """A verdict judged without some ports says so: they failed below and their hosts are blocked there."""
    left_out = [entry["port"] for entry in expect.get("pyramid_switch_ports") or []
                if entry not in (judged.get("pyramid_switch_ports") or [])]
    if left_out and record["status"] != SKIP:
        record["expected"] = "%s (without %s: failed a layer below)" % (record["expected"], ", ".join(left_out))
    return record


def snapshot(host, checks, catalog, expect, doc, collect, reads_for=()):
    """Read every counters source of ``checks`` once (the start of the soak) into ``doc``; a summary. A source read
    once for the pod (``read_on``) only where this host is its group's reader (``reads_for``, as run() reads it)."""
    names = [name for name in _counters.source_names(catalog, split_applicable(host, checks, catalog, expect)[0])
             if catalog["sources"][name].get("read_on") in (None,) + tuple(reads_for)]
    collected, unreachable = collect(_engine.reads(names, catalog, expect))
    if unreachable:
        facts = {name: SourceFailure("ssh %s" % host, "host unreachable at the snapshot: " + unreachable) for name in names}
    else:
        facts = _engine.parse_sources(names, catalog, collected, expect)
    _counters.take(doc, facts)
    failed = sorted(name for name, value in facts.items() if isinstance(value, SourceFailure))
    return {"snapshot": names, "no_data": failed,
            "msg": "counters snapshot of %s: %d sources%s; the soak starts now" % (
                host, len(names), " (no data: %s)" % ", ".join(failed) if failed else "")}
