# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A layer's pod-scope checks (firmware drift, stragglers, host and switch agreeing) judged across every device of the
layer, from the facts each device's layer kept in its results file (the action plugin gpufabric.pyramid.judge_pod
calls it)."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile

from ..core import catalog as _catalog, results as _results
from ..core.model import PASS, SourceFailure
from ..judging import roce_agree as _agree
from . import depends as _depends
from . import engine as _engine


# The pod's readers, remembered for the whole run beside devices/: {group: [{"host", "layer", "why"?}]}, the first
# usable entry reading for the group (a later one only where those before it were lost: unreachable, or out of the run)
READERS_FILE = "pod_readers.json"


def reader(group, groups, run_dir, layer, hosts):
    """The host that reads the sources with ``read_on: group`` at ``layer`` for the whole pod (a fabric-wide read, such
    as iblinkinfo from a host with fabric access), or None (readers() says why)."""
    return readers(group, groups, run_dir, layer, hosts)[0]


def readers(group, groups, run_dir, layer, hosts):
    """(the reader of ``group`` at ``layer``, [(host, why) of the readers before it that were lost]).

    One reader for the whole run: chosen once, at the first layer that reads for the pod (normally the counters'
    snapshot before Layer 1), as the first host of ``group`` in inventory order, or of gpu_nodes where the inventory
    has no such group, that is in the run (``hosts``) and not held back below that layer (with its gate lifted,
    pyramid_enforce_gate false, nothing holds it back). It is remembered in the run directory and keeps reading at
    the layers above even where its own checks hold it back: the soak's start and the later reads are one host's, and
    its own failure costs no other device its verdict. Only a reader lost (unreachable at a layer below ``layer``, or
    not in the run) gives way, to the next host chosen the same way, and the pod checks' ERRORs name it.

    Every process asks under one lock and reads the same answer (Ansible's forks run run_layer in parallel): the
    first to choose writes it, and what decides a change (the layers below ``layer``) is the same for all of them."""
    members = list(groups.get(group) or groups.get("gpu_nodes") or [])
    if not any(host in hosts for host in members):
        return None, []
    os.makedirs(run_dir, exist_ok=True)
    lock = os.open(run_dir, os.O_RDONLY)  # the run directory itself is the lock: no file of its own left behind
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = _load_readers(run_dir)
        chain = kept.setdefault(group, [])
        lost = []
        for entry in chain:
            why = _lost(entry["host"], run_dir, layer, hosts) if entry["host"] in members else "is not in %s" % group
            if why is None:
                return entry["host"], lost
            lost.append((entry["host"], why))
        chosen = next((host for host in members if host in hosts and _lost(host, run_dir, layer, hosts) is None
                       and not _held_back(host, run_dir, layer)), None)
        if chosen is not None:
            chain.append(dict({"host": chosen, "layer": layer}, **({"in_place_of": lost[-1][0], "why": lost[-1][1]} if lost else {})))
            _save_readers(run_dir, kept)
        return chosen, lost
    finally:
        os.close(lock)  # and with it the lock


def lost_said(group, lost):
    """The readers of ``group`` that were lost, in words for an ERROR: '' where none was."""
    return "".join("; %s, the pod's reader of %s before, %s" % (host, group, why) for host, why in lost)


def _held_back(host, run_dir, layer):
    doc = _results.load(run_dir, host)
    return doc.get("expect", {}).get("pyramid_enforce_gate") is not False and _results.blocker(doc["results"], layer) is not None


def _lost(host, run_dir, layer, hosts):
    """Why ``host`` can read for the pod no more at ``layer`` (not in the run, or unreachable at a layer below: the
    same answer for every process asking at ``layer``), else None."""
    if host not in hosts:
        return "is not in the run"
    doc = _results.load(run_dir, host)
    for below in range(layer):
        for kept in ((doc.get("facts") or {}).get("layer%d" % below), ((doc.get("pod_reads") or {}).get("layer%d" % below) or {}).get("facts")):
            failure = (kept or {}).get("unreachable")
            if failure:
                return "unreachable at layer %d (%s)" % (below, _engine.restore_facts(failure).reason)
    return None


def _load_readers(run_dir):
    try:
        with open(os.path.join(run_dir, READERS_FILE), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {}


def _save_readers(run_dir, kept):
    handle, tmp = tempfile.mkstemp(dir=run_dir, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(kept, out, indent=2, sort_keys=True)
    os.replace(tmp, os.path.join(run_dir, READERS_FILE))  # atomic: a process reading without the lock sees it whole


def pod_read(run_dir, host, layer):
    """What ``host`` read for the pod at ``layer``: (facts, ran), facts None where it did not read. A reader held back
    at the layer keeps its pod reads apart from its own facts (run/layer.py run: its own checks are SKIP, never judged
    as if it climbed); one that climbed read them with its own."""
    return read_in(_results.load(run_dir, host), layer)


def read_in(doc, layer):
    """pod_read of a results file already loaded."""
    kept = (doc.get("pod_reads") or {}).get("layer%d" % layer)
    if kept is not None:
        return _engine.restore_facts(kept.get("facts") or {}), kept.get("ran") or {}
    facts = (doc.get("facts") or {}).get("layer%d" % layer)
    if facts is None:
        return None, {}
    return _engine.restore_facts(facts), (doc.get("ran") or {}).get("layer%d" % layer) or {}


def _groups_read_on(checks, catalog):
    return {catalog["sources"][name]["read_on"] for check in checks for name in check["sources"] if "read_on" in catalog["sources"][name]}


def reads_for(host, checks, catalog, groups, run_dir, layer, hosts):
    """The ``read_on`` groups of the sources of ``checks`` that ``host`` reads for."""
    return {group for group in _groups_read_on(checks, catalog) if reader(group, groups, run_dir, layer, hosts) == host}


def reads_for_checks(host, checks, catalog, groups, run_dir, hosts):
    """The ``read_on`` groups ``host`` reads for, asked at the layer of each check that reads it (the counters'
    snapshot covers checks of several layers). Normally the first to ask: the group's reader is chosen here, for the
    whole run (readers)."""
    found = set()
    for check in checks:
        found |= reads_for(host, [check], catalog, groups, run_dir, check["layer"], hosts)
    return found


def _read_on(check, catalog, run_dir, layer, groups, hosts, facts_by_host, ran_by_host, expect):
    """Every host's facts for a check that reads a ``read_on`` source: its own, with each such source as its group's
    reader read it (``read_on_host``: {source: reader}, for the judge to name; pod_read: also a reader its own checks
    held back), or a failure naming the group, the reader and why nothing was read (never a PASS on a read not made).
    A reader that took over from a lost one says so in each failure: the lost one is the cause (its soak's start, say)."""
    shared, ran, where = {}, {}, {}
    for name in check["sources"]:
        group = catalog["sources"][name].get("read_on")
        if not group:
            continue
        host, lost = readers(group, groups, run_dir, layer, hosts)
        read, read_ran = pod_read(run_dir, host, layer) if host else (None, {})
        planned = _engine.commands_of(dict(check, sources=[name]), catalog, expect)
        before = lost_said(group, lost)
        if host is None:
            shared[name] = SourceFailure(planned, "read once for the pod on a host of %s: no host of %s (or of gpu_nodes) is in "
                                                  "the run and climbed to layer %d%s" % (group, group, layer, before))
        elif read is not None and "unreachable" in read:
            shared[name] = SourceFailure(planned, "read on %s (the reader of %s for the pod): unreachable at layer %d (%s)%s" % (
                host, group, layer, read["unreachable"].reason, before), ran_on=host)
        elif read is None or name not in read:
            shared[name] = SourceFailure(planned, "read on %s (the reader of %s for the pod): unreachable at layer %d, or the "
                                                  "layer did not run there%s" % (host, group, layer, before))
        else:
            shared[name], where[name] = read[name], host
            if isinstance(read[name], SourceFailure):  # its ERROR names the host where the read failed, not each node
                failed = read[name]
                shared[name] = SourceFailure(failed.command, failed.reason + before, failed.status, failed.output, failed.partial,
                                             ran_on=host)
            if name in read_ran:
                ran[name] = read_ran[name]
    return ({node: dict(facts, read_on_host=where, **shared) for node, facts in facts_by_host.items()},
            {node: dict(ran_by_host.get(node) or {}, **ran) for node in facts_by_host})


def judge_layer(catalog, run_dir, layer, hosts, device="gpu_node", groups=None, check_mode=False):
    """Record the pod checks of ``layer`` for ``hosts`` in their results files: (hosts judged, {check: ["host=STATUS"]}
    of the records that did not pass). ``groups``: the inventory's groups, for the checks read on one host of a group.
    ``check_mode``: a check that loads was not run (its SKIP recorded with the layer, run/layer.py)."""
    checks = [c for c in _catalog.checks_at(catalog, layer, device) if _catalog.kind_of(c)["on_device"] and _catalog.kind_of(c)["judged"] == "pod"]
    docs, facts_by_host, expect_by_host, ran_by_host = {}, {}, {}, {}
    for host in hosts:
        doc = _results.load(run_dir, host)
        layer_facts = doc.get("facts", {}).get("layer%d" % layer)
        if not layer_facts or "unreachable" in layer_facts:
            continue  # blocked below, or already an ERROR for every check of this layer
        docs[host] = doc
        facts_by_host[host] = _engine.restore_facts(layer_facts)
        expect_by_host[host] = doc["expect"]
        ran_by_host[host] = doc.get("ran", {}).get("layer%d" % layer, {})
    if any(check.get("switch_facts") for check in checks):  # host and switch agree: the cabled ports' facts
        switch_docs = _switch_docs(run_dir, set(hosts))
        for host, facts in facts_by_host.items():
            facts["cabled_switch_ports"] = _agree.cabled_ports(host, switch_docs)
    not_passing, recorded = {}, {host: [] for host in docs}
    for check in checks:
        applicable = {host: facts for host, facts in facts_by_host.items() if not _catalog.not_applicable(check, expect_by_host[host])}
        if check_mode:
            applicable = {host: facts for host, facts in applicable.items()
                          if not _catalog.load_of(check, catalog, expect_by_host[host])}
        if not applicable:
            continue  # its SKIP "not applicable" (or "not run: check mode") was recorded with the layer (run/layer.py)
        facts, ran = applicable, ran_by_host
        if any("read_on" in catalog["sources"][name] for name in check["sources"]):
            facts, ran = _read_on(check, catalog, run_dir, layer, groups or {}, hosts, applicable, ran_by_host,
                                  expect_by_host[next(iter(applicable))])
        for host, record in _engine.judge_pod(check, catalog, facts, expect_by_host, ran).items():
            record = _depends.fold([record], catalog, docs[host]["results"] + recorded[host])[0]
            recorded[host].append(record)
            if record["status"] != PASS:
                not_passing.setdefault(check["id"], []).append("%s=%s" % (host, record["status"]))
    _results.record_each(run_dir, [record for host in docs for record in recorded[host]])
    return len(docs), not_passing


def _switch_docs(run_dir, nodes):
    """The results files of this run's switches (those that declare a cabling plan), facts restored."""
    folder = os.path.join(run_dir, "devices")
    docs = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        host = name[:-len(".json")]
        if not name.endswith(".json") or host in nodes:
            continue
        doc = _results.load(run_dir, host)
        if (doc.get("expect") or {}).get("pyramid_switch_ports"):
            docs.append(dict(doc, facts=_engine.restore_facts(doc.get("facts") or {})))
    return docs
