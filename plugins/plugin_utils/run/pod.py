# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A layer's pod-scope checks (firmware drift, stragglers, host and switch agreeing) judged across every device of the
layer, from the facts each device's layer kept in its results file (the action plugin gpufabric.pyramid.judge_pod
calls it)."""

from __future__ import annotations

import os

from ..core import catalog as _catalog, results as _results
from ..core.model import PASS
from ..judging import roce_agree as _agree
from . import engine as _engine


def judge_layer(catalog, run_dir, layer, hosts, device="gpu_node"):
    """Record the pod checks of ``layer`` for ``hosts`` in their results files: (hosts judged, {check: ["host=STATUS"]}
    of the records that did not pass)."""
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
        for host, record in _engine.judge_pod(check, catalog, facts_by_host, expect_by_host, ran_by_host).items():
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
