# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judge a layer's pod-scope checks (firmware drift, stragglers) across every device of the layer."""

from __future__ import annotations

import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import PASS
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import roce_agree as _agree


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("layer", "run_dir", "hosts", "device"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        layer, run_dir = int(args["layer"]), args["run_dir"]
        catalog = _catalog.load_catalog()
        checks = [c for c in _catalog.checks_at(catalog, layer, args.get("device", "gpu_node")) if c["scope"] == "pod"]
        docs, facts_by_host, expect_by_host, ran_by_host = {}, {}, {}, {}
        for host in args["hosts"]:
            doc = _results.load(run_dir, host)
            layer_facts = doc.get("facts", {}).get("layer%d" % layer)
            if not layer_facts or "unreachable" in layer_facts:
                continue  # blocked below, or already an ERROR for every check of this layer
            docs[host] = doc
            facts_by_host[host] = _engine.restore_facts(layer_facts)
            expect_by_host[host] = doc["expect"]
            ran_by_host[host] = doc.get("ran", {}).get("layer%d" % layer, {})
        if any(check.get("switch_facts") for check in checks):  # host and switch agree: the cabled ports' facts
            switch_docs = _switch_docs(run_dir, set(args["hosts"]))
            for host, facts in facts_by_host.items():
                facts["cabled_switch_ports"] = _agree.cabled_ports(host, switch_docs)
        summary = {}
        for check in checks:
            for host, record in _engine.judge_pod(check, catalog, facts_by_host, expect_by_host, ran_by_host).items():
                _results.record(docs[host], [record])
                if record["status"] != PASS:
                    summary.setdefault(check["id"], []).append("%s=%s" % (host, record["status"]))
        for doc in docs.values():
            _results.save(run_dir, doc)
        return dict(result, changed=False, judged_hosts=len(docs), not_passing=summary,
                    msg="layer %d pod checks on %d hosts: %s" % (
                        layer, len(docs), "; ".join("%s: %s" % item for item in sorted(summary.items())) or "all PASS"))


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
