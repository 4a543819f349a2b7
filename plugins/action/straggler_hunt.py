# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a layer's fabric checks (the straggler hunt) from the launcher host, and record them per node."""

from __future__ import annotations

import os
import re

from ansible.plugins.action import ActionBase

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, engine as _engine, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.collect import source_action as _collector
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.hunt import rounds as _hunt
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.registry import FABRIC_JUDGES
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import ERROR, PASS, SKIP, SourceFailure, verdict
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # connects only through _execute_module, so failures are caught here
    _VALID_ARGS = frozenset(("layer", "run_dir", "hosts", "launcher", "references"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        layer, run_dir, launcher = int(args["layer"]), args["run_dir"], args.get("launcher") or ""
        catalog = _catalog.load_catalog()
        checks = _catalog.checks_at(catalog, layer, scopes=("fabric",))
        if not checks:
            return dict(result, changed=False, msg="layer %d has no fabric checks" % layer)
        expect, errors = host_expectations(self._templar, task_vars, catalog, checks)
        if errors:
            return dict(result, failed=True, msg="invalid expectations: %s" % "; ".join(errors))
        docs = {host: _results.load(run_dir, host) for host in args["hosts"]}
        nodes = _climbing(docs, layer, {check["id"] for check in checks})
        log = _RunLog(run_dir, layer)
        counts = {}
        for check in checks:
            verdicts = self._round(check, catalog, expect, nodes, launcher, task_vars, log)
            verdicts.update(_not_climbing(docs, verdicts, check, layer))
            for host, verdict in verdicts.items():
                _results.record(docs[host], [_engine.result(
                    host, check, catalog, expect, verdict["status"], verdict["expected"], verdict["actual"],
                    cause=check.get("causes", {}).get(verdict["cause_key"]), command=verdict.get("command"))])
                key = "%s=%s" % (check["id"], verdict["status"])
                counts[key] = counts.get(key, 0) + 1
            nodes = [node for node in nodes if verdicts.get(node, {}).get("status") == PASS]
        for doc in docs.values():
            _results.save(run_dir, doc)
        return dict(result, changed=False, counts=counts, runs=log.count,
                    msg="layer %d fabric checks: %s (%d runs from %s; logs in %s)" % (
                        layer, ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())), log.count,
                        launcher or "no launcher", log.directory))

    def _round(self, check, catalog, expect, nodes, launcher, task_vars, log):
        """Verdicts of one fabric check for the nodes still climbing; the others are told why not."""
        verdicts = {}
        references = [host for host in self._task.args.get("references") or [] if host not in nodes]
        if (len(nodes) >= 2 or (nodes and references)) and not launcher:
            why = "no launcher host: add one to the inventory group `launcher` (it starts %s)" % expect["pyramid_nccl_launcher"]
            return {node: verdict(ERROR, "a launcher host", why, cause_key=None) for node in nodes}
        name, judge = check["sources"][0], FABRIC_JUDGES[check["judge"]]

        def run(groups):
            planned = []
            for index, group in enumerate(groups):
                context = {"hosts": ",".join(group), "size": len(group), "first": group[0],
                           "ranks": len(group) * expect["pyramid_gpus_per_node"],
                           "slots": ",".join("%s:%d" % (node, expect["pyramid_gpus_per_node"]) for node in group)}
                for item in _engine.plan([name], catalog, expect, group=context):
                    planned.append(dict(item, id="%s[%d]" % (name, index)))
            collected, unreachable = _collector.collect(self, planned, expect["pyramid_command_timeout"], task_vars,
                                                        parallel=len(planned))
            outcomes = []
            for index, group in enumerate(groups):
                raw = None if unreachable else collected.get("%s[%d]" % (name, index))
                facts = (SourceFailure("ssh %s" % launcher, "launcher unreachable: %s" % unreachable) if unreachable
                         else _engine.parse_one(raw, catalog["sources"][name], expect))
                outcome = judge(facts, list(group), _engine.declared(check, expect), catalog)
                outcome["command"] = " ".join(planned[index]["ways"][0]["run"])  # as planned: a script stays {payload_source:..}
                outcome["actual"] = "%s [log: %s]" % (outcome["actual"], log.write(check["id"], group, raw))
                outcomes.append(outcome)
            return outcomes

        verdicts.update(_hunt.ROUNDS[check["id"]](list(nodes), run, references))
        return verdicts


def _climbing(docs, layer, fabric_ids):
    """Nodes with nothing failing up to this layer (round 1 included), in inventory order."""
    nodes = []
    for host, doc in docs.items():
        earlier = [r for r in doc["results"] if r["layer"] <= layer and r["check"] not in fabric_ids]
        if earlier and not any(r["status"] in _results.NOT_PASSING or r["status"] == SKIP for r in earlier):
            nodes.append(host)
    return nodes


def _not_climbing(docs, verdicts, check, layer):
    """SKIP, saying why, for nodes left out of a round (a lower layer's gate already said so for blocked ones)."""
    skipped = {}
    for host, doc in docs.items():
        if host in verdicts or any(r["check"] == check["id"] and r["layer"] == layer for r in doc["results"]):
            continue
        failing = sorted({"%s=%s" % (r["check"], r["status"]) for r in doc["results"]
                          if r["layer"] <= layer and r["status"] in _results.NOT_PASSING})
        skipped[host] = verdict(SKIP, "a node that passed the rounds before",
                                "not in this round: %s" % (", ".join(failing) or "no results below"), cause_key=None)
    return skipped


class _RunLog:
    """Every run's raw output in the run directory (hunt/), so nothing the launcher printed is lost."""

    def __init__(self, run_dir, layer):
        self.directory = os.path.join(run_dir, "hunt")
        self.count = 0
        self.layer = layer

    def write(self, check_id, group, raw):
        os.makedirs(self.directory, exist_ok=True)
        self.count += 1
        nodes = "+".join(group) if len(group) <= 4 else "%d-nodes" % len(group)
        name = "%s-%03d-%s.log" % (check_id, self.count, re.sub(r"[^\w.-]", "_", nodes))
        with open(os.path.join(self.directory, name), "w", encoding="utf-8") as handle:
            handle.write("$ %s\n" % ((raw or {}).get("command") or "(not run)"))
            handle.write("# status: %s, rc: %s\n" % ((raw or {}).get("status"), (raw or {}).get("rc")))
            handle.write((raw or {}).get("stdout", ""))
            if (raw or {}).get("stderr"):
                handle.write("\n# stderr\n" + raw["stderr"])
        return os.path.join("hunt", name)
