# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a layer's fabric checks (the straggler hunt) from the launcher host, and record them per node.

The rounds are hunt/rounds.py, the bookkeeping hunt/straggler.py; here only the runs are collected.
"""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.collect import source_action as _collector
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, engine as _engine, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import PASS, SourceFailure
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.hunt import rounds as _rounds, straggler as _straggler
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.registry import FABRIC_JUDGES


class ActionModule(EngineAction):
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
        nodes = _straggler.climbing(docs, layer, {check["id"] for check in checks})
        log = _straggler.RunLog(run_dir, layer)
        counts = {}
        for check in checks:
            references = _straggler.references_for(nodes, args.get("references"))
            verdicts = (_straggler.lone_node(list(docs), args.get("references"))
                        or _straggler.launcher_missing(nodes, references, launcher, expect)
                        or _rounds.ROUNDS[check["id"]](list(nodes), self._runner(check, catalog, expect, launcher, task_vars, log),
                                                       references))
            verdicts.update(_straggler.left_out(docs, verdicts, check, layer))
            _straggler.record(docs, verdicts, check, catalog, expect, counts)
            nodes = [node for node in nodes if verdicts.get(node, {}).get("status") == PASS]
        for doc in docs.values():
            _results.save(run_dir, doc)
        return dict(result, changed=False, counts=counts, runs=log.count,
                    msg="layer %d fabric checks: %s (%d runs from %s; logs in %s)" % (
                        layer, ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())), log.count,
                        launcher or "no launcher", log.directory))

    def _runner(self, check, catalog, expect, launcher, task_vars, log):
        """run(groups) for the rounds: each group's run started at once from the launcher, one outcome per group."""
        name, judge = check["sources"][0], FABRIC_JUDGES[check["judge"]]

        def run(groups):
            planned = []
            for index, group in enumerate(groups):
                context = _straggler.group_context(group, expect["pyramid_gpus_per_node"])
                planned.extend(dict(item, id="%s[%d]" % (name, index)) for item in _engine.plan([name], catalog, expect, group=context))
            collected, unreachable = _collector.collect(self, planned, expect["pyramid_command_timeout"], task_vars,
                                                        parallel=len(planned))
            outcomes = []
            for index, group in enumerate(groups):
                raw = None if unreachable else collected.get("%s[%d]" % (name, index))
                facts = (SourceFailure("ssh %s" % launcher, "launcher unreachable: %s" % unreachable) if unreachable
                         else _engine.parse_one(raw, catalog["sources"][name], expect))
                outcome = _engine.run_judge(check, judge, facts, list(group), _engine.declared(check, expect), catalog)
                outcome["command"] = " ".join(planned[index]["ways"][0]["run"])  # as planned: a script stays {payload_source:..}
                outcome["actual"] = "%s [log: %s]" % (outcome["actual"], log.write(check["id"], group, raw))
                outcomes.append(outcome)
            return outcomes
        return run
