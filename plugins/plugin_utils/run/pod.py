# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A layer's pod-scope checks (firmware drift, stragglers, host and switch agreeing) judged across every device of the
layer, from the facts each device's layer kept in its results file (the action plugin gpufabric.pyramid.judge_pod
calls it)."""

from __future__ import annotations

import os

from ..core import catalog as _catalog, results as _results
from ..core.model import PASS, SourceFailure
from ..judging import roce_agree as _agree
from . import depends as _depends
from . import engine as _engine


def reader(group, groups, run_dir, layer, hosts):
    """The host that reads the sources with ``read_on: group`` at ``layer`` for the whole pod (a fabric-wide read, such
    as iblinkinfo from a host with fabric access): the first host of ``group`` in inventory order, or of gpu_nodes where
    the inventory has no such group, that is in the run (``hosts``) and not held back below ``layer`` (with its gate
    lifted, pyramid_enforce_gate false, nothing holds it back: every layer runs). Every device's layer task and the
    pod's judge ask it of the same results files (written by the layers below), so they agree."""
    for host in list(groups.get(group) or groups.get("gpu_nodes") or []):
        if host not in hosts:
            continue
        doc = _results.load(run_dir, host)
        if doc.get("expect", {}).get("pyramid_enforce_gate") is False or _results.blocker(doc["results"], layer) is None:
            return host
    return None


def _groups_read_on(checks, catalog):
    return {catalog["sources"][name]["read_on"] for check in checks for name in check["sources"] if "read_on" in catalog["sources"][name]}


def reads_for(host, checks, catalog, groups, run_dir, layer, hosts):
    """The ``read_on`` groups of the sources of ``checks`` that ``host`` reads for."""
    return {group for group in _groups_read_on(checks, catalog) if reader(group, groups, run_dir, layer, hosts) == host}


def reads_for_checks(host, checks, catalog, groups, run_dir, hosts):
    """The ``read_on`` groups ``host`` reads for, each at the layer of the checks that read it (the counters' snapshot
    covers checks of several layers: each group's reader is the one its check's layer will ask)."""
    found = set()
    for check in checks:
        found |= reads_for(host, [check], catalog, groups, run_dir, check["layer"], hosts)
    return found


def _read_on(check, catalog, run_dir, layer, groups, hosts, facts_by_host, ran_by_host, expect, read_from):
    """Every host's facts for a check that reads a ``read_on`` source: its own, with each such source as its group's
    reader read it (``read_on_host``: {source: reader}, for the judge to name) from ``read_from`` (every host's facts of
    the layer), or a failure naming the group and why nobody read it (never a PASS on a read not made)."""
    shared, ran, where = {}, {}, {}
    for name in check["sources"]:
        group = catalog["sources"][name].get("read_on")
        if not group:
            continue
        host = reader(group, groups, run_dir, layer, hosts)
        read = read_from.get(host)
        planned = _engine.commands_of(dict(check, sources=[name]), catalog, expect)
        if host is None:
            shared[name] = SourceFailure(planned, "read once for the pod on a host of %s: no host of %s (or of gpu_nodes) is in "
                                                  "the run and climbed to layer %d" % (group, group, layer))
        elif read is None or name not in read:
            shared[name] = SourceFailure(planned, "read on %s (the reader of %s for the pod): unreachable at layer %d, or the "
                                                  "layer did not run there" % (host, group, layer))
        else:
            shared[name], where[name] = read[name], host
            if isinstance(read[name], SourceFailure):  # its ERROR names the host where the read failed, not each node
                failed = read[name]
                shared[name] = SourceFailure(failed.command, failed.reason, failed.status, failed.output, failed.partial, ran_on=host)
            if name in (ran_by_host.get(host) or {}):
                ran[name] = ran_by_host[host][name]
    return ({node: dict(facts, read_on_host=where, **shared) for node, facts in facts_by_host.items()},
            {node: dict(ran_by_host.get(node) or {}, **ran) for node in facts_by_host})


def judge_layer(catalog, run_dir, layer, hosts, device="gpu_node", groups=None, check_mode=False):
    """Record the pod checks of ``layer`` for ``hosts`` in their results files: (hosts judged, {check: ["host=STATUS"]}
    of the records that did not pass). ``groups``: the inventory's groups, for the checks read on one host of a group.
    ``check_mode``: a check that loads was not run (its SKIP recorded with the layer, run/layer.py)."""
    checks = [c for c in _catalog.checks_at(catalog, layer, device) if c["scope"] == "pod"]
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
    not_passing = {}
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
                                  expect_by_host[next(iter(applicable))], facts_by_host)
        for host, record in _engine.judge_pod(check, catalog, facts, expect_by_host, ran).items():
            record = _depends.fold([record], catalog, docs[host]["results"])[0]
            _results.record(docs[host], [record])
            if record["status"] != PASS:
                not_passing.setdefault(check["id"], []).append("%s=%s" % (host, record["status"]))
    for doc in docs.values():
        _results.save(run_dir, doc)
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
