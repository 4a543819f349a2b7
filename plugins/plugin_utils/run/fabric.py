# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A layer's fabric checks (the straggler hunt), run from the launcher host and recorded per node: the logic of the
gpufabric.pyramid.fabric action, which hands it an AnsibleStep (run/ansible_step.py). The rounds are
judging/fabric_rounds.py (who runs, who is to blame, who is left out), driven by run/fabric_rounds.py; the bookkeeping
run/fabric_runs.py; here the runs are planned, collected, judged, and the verdicts recorded."""

from __future__ import annotations

from ..core import catalog as _catalog, results as _results
from ..core.model import PASS, SourceFailure
from ..judging import judge_of, fabric_rounds as _decide
from . import check_mode as _check_mode
from . import engine as _engine, fabric_rounds as _rounds, fabric_runs as _fabric_runs
from ..judging import scale as _scale


def run(step, catalog, layer, run_dir, hosts, launcher, references, check_mode=False, pod_order=None):
    """Every fabric check of the layer, in catalog order (a node that misses one climbs to no later one); the task's
    result fields. ``check_mode``: no run; each climbing node's fabric checks that load read "not run: check mode".
    ``pod_order``: the pod's GPU nodes in inventory order, which places a node without pyramid_scalable_unit."""
    checks = _catalog.checks_at(catalog, layer, scopes=("fabric",))
    if not checks:
        return {"msg": "layer %d has no fabric checks" % layer}
    expect = step.expectations(step.host, catalog, checks)
    docs = _load(run_dir, hosts)
    if check_mode and _check_mode.loads(checks, catalog, expect):  # the node's own runs were not made either: every node
        counts = _check_mode.record_not_run(run_dir, list(docs), checks, catalog, lambda host: step.expectations(host, catalog, checks),
                                            references=references)
        return {"counts": counts, "runs": 0, "msg": "layer %d fabric checks: %s on %d nodes" % (layer, _check_mode.NOT_RUN, len(docs))}
    nodes = _fabric_runs.climbing(docs, layer, {check["id"] for check in checks})
    log = _fabric_runs.RunLog(run_dir, layer)
    counts, latency = {}, None
    for check in checks:
        partners = _fabric_runs.references_for(nodes, references)
        # the pod's latency model, fitted from the pair runs (round 2): round 3's latency-bound sizes are judged by it
        check_expect, by_unit = (dict(expect, latency_model=latency) if latency else expect), {}
        if check["round"] in _rounds.BY_UNIT:
            units = _fabric_runs.scalable_units(nodes, pod_order or list(docs), expect["pyramid_scalable_unit_nodes"],
                                                lambda host: step.expectations(host, catalog, [], extra=("pyramid_scalable_unit",)))
            check_expect, by_unit = dict(check_expect, scalable_units=units), {"units": units}
        verdicts = (_decide.lone_node(list(docs), references)
                    or _decide.launcher_missing(nodes, partners, launcher, expect)
                    or _rounds.ROUNDS[check["round"]](list(nodes), _group_runner(step, check, catalog, check_expect, launcher, log),
                                                      partners, **by_unit))
        verdicts.update(_decide.left_out(docs, verdicts, check, layer))
        _fabric_runs.record(run_dir, verdicts, check, catalog, expect, counts)
        docs = _load(run_dir, hosts)  # this check's records: the next check's left-out nodes name them
        nodes = [node for node in nodes if _decide.climbs_on(verdicts.get(node, {}))]
        latency = latency or (_scale.pod_latency(verdicts) if check["round"] == _rounds.FITS_LATENCY else None)
    return {"counts": counts, "runs": log.count, "msg": "layer %d fabric checks: %s (%d runs from %s; logs in %s)" % (
        layer, ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())), log.count, launcher or "no launcher", log.directory)}


def _load(run_dir, hosts):
    return {host: _results.load(run_dir, host) for host in hosts}


def _group_runner(step, check, catalog, expect, launcher, log):
    """run(groups) for the rounds: each group's run started at once from the launcher, one outcome per group."""
    name, judge = check["sources"][0], judge_of(check)

    def run_groups(groups):
        planned = []
        for index, group in enumerate(groups):
            context = _fabric_runs.group_context(group, expect["pyramid_gpus_per_node"])
            planned.extend(dict(item, id="%s[%d]" % (name, index)) for item in _engine.reads([name], catalog, expect, group=context))
        collected, unreachable = step.collect(planned, expect["pyramid_command_timeout"], parallel=len(planned))
        outcomes = []
        for index, group in enumerate(groups):
            raw = None if unreachable else collected.get("%s[%d]" % (name, index))
            facts = (SourceFailure("ssh %s" % launcher, "launcher unreachable: %s" % unreachable) if unreachable
                     else _engine.parse_one(raw))
            declared = _engine.declared(check, expect)
            for resolved in ("scalable_units", "latency_model"):  # not inventory variables: resolved by the hunt
                if resolved in expect:
                    declared[resolved] = expect[resolved]
            outcome = _engine.run_judge(check, judge, _fabric_runs.judged_facts(facts, group, catalog), declared)
            if outcome.get("figures") and outcome["status"] == PASS:  # a passing all-reduce's figures: its record keeps them
                outcome["detail"] = outcome.pop("figures")
            outcome["command"] = " ".join(planned[index]["ways"][0]["run"])  # as planned: a script stays {payload_source:..}
            outcome["actual"] = "%s [log: %s]" % (outcome["actual"], log.write(check["id"], group, raw))
            outcomes.append(outcome)
        return outcomes
    return run_groups
