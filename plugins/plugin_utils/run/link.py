# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The link kind (catalog/kinds.yml, ``reads_on: paths``): a missed load run again while the switches on its paths are
read, and the link whose counters show the loss named (judging/link.py). One phase per task (the action
gpufabric.pyramid.link, the role link): plan, read (each switch, before), load (the launcher), read (each switch,
after), judge. Any later kind declared with ``reads_on: paths`` runs here too.

What each check of such a kind says, the runner does, and nothing else: its ``retraces`` names the check whose miss it
follows and the causes of that miss (the nodes whose record of that check holds one of them); that check's first
source is the load, run across those nodes from the launcher as the fabric hunt runs it; the check's own ``sources``
are read on the rail leaves of those nodes and on those leaves' fabric peers (their plans, pyramid_switch_ports), each a
window of the two reads. Its judge (judging/, registered under the kind) gets the windows per switch and the paths
({"links", "nodes", "missed", "rerun"}) and returns a verdict per device; the runner records them: a switch's under
the check, a node's under the check it retraced (a verdict the judge moved off the node replaces the node's).
"""

from __future__ import annotations

import os
import time

from ..core import catalog as _catalog, results as _results
from ..core.model import SourceFailure
from ..judging import JUDGES, unjudged as _unjudged
from . import background as _background, check_mode as _check_mode, engine as _engine, fabric_runs as _fabric_runs


def path_checks(catalog, layer):
    """The checks of ``layer`` whose kind reads the switches on a missed load's paths, in catalog order."""
    return [check for check in catalog["checks"]
            if check["layer"] == layer and _catalog.kind_of(check).get("reads_on") == "paths"]


def files(run_dir, check):
    return _background.RunFiles(os.path.join(run_dir, "link", check["id"]))


def missed_nodes(docs, retraced, cause_keys):
    """The nodes whose record of the retraced check holds one of ``cause_keys``'s causes (the catalog's words for them),
    in the order given, and the first such record's account of the miss."""
    causes = {retraced.get("causes", {}).get(key) for key in cause_keys} - {None}
    nodes, missed = [], None
    for host, doc in docs.items():
        record = next((r for r in doc["results"] if r["check"] == retraced["id"] and r["layer"] == retraced["layer"]), None)
        if record and record["status"] != "PASS" and record.get("cause") in causes:
            nodes.append(host)
            missed = missed or record.get("actual")
    return nodes, missed


def missed_groups(docs, retraced, nodes):
    """The runs to make again across ``nodes`` (missed_nodes'): each node's record of the retraced check may name the
    nodes its missed run ran across (its ``detail.ran_across``: a pair of round 2), each such run made again on its own;
    the nodes whose record names none are one run across them all (the pod's all-to-all), as the miss was."""
    groups, alone = [], []
    for node in nodes:
        record = next(r for r in docs[node]["results"] if r["check"] == retraced["id"] and r["layer"] == retraced["layer"])
        across = (record.get("detail") or {}).get("ran_across")
        if not across:
            alone.append(node)
        elif all(member in nodes for member in across) and not any(node in group for group in groups):
            groups.append(list(across))  # a run some of whose nodes missed for another cause is not this kind's to make
    return groups + ([alone] if len(alone) >= 2 else [])


def paths(plans, nodes):
    """The switches on the nodes' paths and the fabric links among them, from each switch's plan ({switch: entries of
    pyramid_switch_ports}): the leaves cabling a node, then their fabric peers; a link is (leaf, its port, the peer,
    the peer's port)."""
    leaves = [switch for switch, plan in plans.items()
              if any(entry.get("role", "host") == "host" and entry.get("peer") in nodes for entry in plan)]
    links = [{"leaf": leaf, "leaf_port": entry["port"], "spine": entry["peer"], "spine_port": entry.get("peer_port")}
             for leaf in leaves for entry in plans[leaf] if entry.get("role") == "fabric" and entry.get("peer") in plans]
    # a switch that holds no link on the paths (a leaf whose plan names no uplink) has none to read
    readers = [leaf for leaf in leaves if any(link["leaf"] == leaf for link in links)]
    return readers + sorted({link["spine"] for link in links} - set(readers)), links


class LinkPhases:
    """The phases of a link run; ``checks`` empty where the layer has none (every phase then does nothing)."""

    NAMES = ("plan", "read", "load", "judge")
    ARGS = frozenset(("phase", "layer", "run_dir", "hosts", "switches", "label", "check"))

    def __init__(self, step, catalog, args):
        self._step, self._catalog, self._layer = step, catalog, int(args.get("layer", 5))
        # a round's phases (``check``: the role runs one check's read, load, read and judge at a time, so that a read's
        # window holds that check's load alone); the plan, every check of the layer
        self.checks = [check for check in path_checks(catalog, self._layer) if args.get("check") in (None, check["id"])]
        self._by_id = {check["id"]: check for check in catalog["checks"]}

    def idle(self, result):
        return None if self.checks else dict(result, readers=[], rounds=[], msg="layer %d has no check that retraces a miss" % self._layer)

    def _retraced(self, check):
        return self._by_id[check["retraces"]["check"]]

    def plan(self, result, args):
        """Which miss each check follows, across which nodes, and which switches read it: plan.json per check."""
        run_dir = args["run_dir"]
        docs = {host: _results.load(run_dir, host) for host in args.get("hosts") or []}
        switches = list(args.get("switches") or [])
        plans = {switch: self._step.expectations(switch, self._catalog, [], extra=("pyramid_switch_ports",))["pyramid_switch_ports"]
                 for switch in switches}
        readers, said, rounds = set(), [], []
        for check in self.checks:
            nodes, missed = missed_nodes(docs, self._retraced(check), check["retraces"].get("cause_keys", []))
            groups = missed_groups(docs, self._retraced(check), nodes)
            nodes = [node for group in groups for node in group]  # a node whose run has no other node to make it with: none
            on_paths, links = paths(plans, nodes) if nodes else ([], [])
            plan = {"check": check["id"], "nodes": nodes, "groups": groups, "missed": missed, "readers": on_paths, "links": links}
            files(run_dir, check).save_plan(plan)
            readers.update(on_paths)
            # a switch on no path of a miss has nothing to prove here: neither for nor against GO
            _results.record_each(run_dir, [self._off_path(switch, check, nodes) for switch in switches if switch not in on_paths])
            said.append("%s: %s" % (check["id"], "%d nodes, %d switches on their paths" % (len(nodes), len(on_paths))
                                    if on_paths else "no miss to retrace"))
            if on_paths:
                rounds.append({"check": check["id"], "readers": on_paths})
        return dict(result, readers=sorted(readers), rounds=rounds, msg="; ".join(said))

    def check_mode(self, result, phase, args):
        """--check: the plan as in a full run (a switch on no path of a miss: not applicable), but the load is never run
        again: a switch a miss would have read (a miss taken over by -e pyramid_resume) reads "not run: check mode"."""
        if phase != "plan":
            return dict(result, readers=[], rounds=[], msg="%s: %s" % (phase, _check_mode.NOT_RUN))
        planned = self.plan(result, args)
        records = []
        for check in self.checks:
            plan = files(args["run_dir"], check).load_plan() or {}
            for switch in plan.get("readers", []):
                records.append(_engine.record_of(switch, check, self._catalog, {}, _unjudged.not_run(
                    "a miss of %s retraced" % check["retraces"]["check"],
                    "%s: the link run would run %s's load again" % (_check_mode.NOT_RUN, check["retraces"]["check"])), command="(none)"))
            files(args["run_dir"], check).save_plan(dict(plan, readers=[]))
        _results.record_each(args["run_dir"], records)
        return dict(planned, readers=[], rounds=[])

    def _off_path(self, switch, check, nodes):
        retraced = self._retraced(check)
        why = ("not applicable: %s holds no link on the paths of the nodes whose %s missed (%s)" % (switch, retraced["id"], ", ".join(nodes))
               if len(nodes) >= 2 else "not applicable: no %s miss placed on %s in this run to retrace" % (
                   retraced["id"], " or ".join(check["retraces"].get("cause_keys", []))))
        return _engine.record_of(switch, check, self._catalog, {}, _unjudged.not_applicable("a miss of %s to retrace" % retraced["id"], why),
                                 command="(none)")

    def read(self, result, args):
        """This switch's reads of every check that planned it, at ``label`` (before or after the load)."""
        switch, kept = self._step.host, []
        for check in self.checks:
            plan = files(args["run_dir"], check).load_plan() or {}
            if switch not in plan.get("readers", []):
                continue
            expect = self._step.expectations(switch, self._catalog, [check])
            planned = _engine.reads(check["sources"], self._catalog, expect)
            raw, unreachable = self._step.collect(planned, expect["pyramid_command_timeout"])
            files(args["run_dir"], check).save(0, switch, args["label"], {"at": time.time(), "raw": raw or {}, "unreachable": unreachable})
            kept.append(check["id"])
        return dict(result, msg="%s: %s" % (switch, ("read for %s (%s)" % (", ".join(kept), args["label"])) if kept else "not on a path"))

    def load(self, result, args):
        """Each planned check's missed load again, each of its runs across the same nodes as the miss (at once: their
        nodes are disjoint), from the launcher (the task's host); their outcomes as the retraced check's own judge
        reads them."""
        said = []
        for check in self.checks:
            run_files = files(args["run_dir"], check)
            plan = run_files.load_plan() or {}
            if not plan.get("readers"):
                continue
            retraced = self._retraced(check)
            groups = plan.get("groups") or [plan["nodes"]]
            expect = self._step.expectations(groups[0][0], self._catalog, [retraced])
            name = retraced["sources"][0]
            planned = [dict(item, id="%s[%d]" % (name, index)) for index, group in enumerate(groups)
                       for item in _engine.reads([name], self._catalog, expect,
                                                 group=_fabric_runs.group_context(group, expect["pyramid_gpus_per_node"]))]
            started = time.time()
            collected, unreachable = self._step.collect(planned, expect["pyramid_command_timeout"], parallel=len(planned))
            outcomes, raws = [], []
            for index, group in enumerate(groups):
                raw = None if unreachable else (collected or {}).get("%s[%d]" % (name, index))
                facts = (SourceFailure("ssh %s" % self._step.host, "launcher unreachable: %s" % unreachable) if unreachable
                         else _engine.parse_one(raw))
                outcomes.append(_engine.run_judge(retraced, JUDGES[retraced["scope"]][retraced["judge"]],
                                                  _fabric_runs.judged_facts(facts, group, self._catalog), _engine.declared(retraced, expect)))
                raws.append(raw)
            actual = outcomes[0]["actual"] if len(groups) == 1 else "; ".join(
                "%s: %s" % (" + ".join(group), outcome["actual"]) for group, outcome in zip(groups, outcomes))
            statuses = [outcome["status"] for outcome in outcomes]
            run_files.save(0, "load", "outcome", {"started": started, "ended": time.time(), "actual": actual, "statuses": statuses,
                                                  "raw": raws[0] if len(groups) == 1 else raws})
            said.append("%s: %s again across %s: %s" % (check["id"], retraced["id"], " and ".join(
                "%d nodes" % len(group) for group in groups), ", ".join(statuses)))
        return dict(result, msg="; ".join(said) or "no miss to retrace")

    def judge(self, result, args):
        """Each planned check's judge on the windows of its reads; its verdicts recorded, a switch's under the check,
        a node's under the check it retraced."""
        run_dir, counts = args["run_dir"], {}
        for check in self.checks:
            run_files = files(run_dir, check)
            plan = run_files.load_plan() or {}
            if not plan.get("readers"):
                continue
            facts, expects = {}, {}
            for switch in plan["readers"]:
                expects[switch] = self._step.expectations(switch, self._catalog, [check])
                facts[switch] = _windows(check, self._catalog, expects[switch], run_files.load(0, switch, "before"),
                                         run_files.load(0, switch, "after"))
            load = run_files.load(0, "load", "outcome") or {}
            expect = dict(_engine.declared(check, expects[plan["readers"][0]]), links=plan["links"], nodes=plan["nodes"],
                          missed=plan["missed"], rerun=load.get("actual") or "the load did not run")
            verdicts = _engine.run_judge(check, JUDGES[check["scope"]][check["judge"]], facts, expect,
                                         hosts=plan["readers"] + plan["nodes"])
            self._record(run_dir, check, verdicts, expects, counts)
        return dict(result, counts=counts, msg=", ".join("%s %d" % item for item in sorted(counts.items())) or "no miss to retrace")

    def _record(self, run_dir, check, verdicts, expects, counts):
        """The judge's verdicts as records: a switch's under the check, a node's under the check it retraced."""
        retraced, records = self._retraced(check), []
        for device, outcome in verdicts.items():
            own = check if device in expects else retraced
            record = _engine.result(device, own, self._catalog, expects.get(device) or {}, outcome["status"], outcome["expected"],
                                    outcome["actual"], cause=outcome.get("cause") or own.get("causes", {}).get(outcome.get("cause_key")),
                                    command=outcome.get("command") or ("(see %s)" % check["id"] if own is retraced else None),
                                    detail=outcome.get("detail"))
            if outcome.get("not_applicable"):  # a switch none of the re-run's flows crossed: neither for nor against GO
                record["not_applicable"] = True
            if own is retraced:
                record["retraced_by"] = check["id"]
            records.append(record)
            key = "%s=%s" % (own["id"], outcome["status"])
            counts[key] = counts.get(key, 0) + 1
        _results.record_each(run_dir, records)


def _windows(check, catalog, expect, before, after):
    """Each of the check's sources as a window of the two reads ({"before", "after", "seconds"}), or SourceFailure
    naming the read that failed or never happened."""
    out = {}
    for read, label in ((before, "before"), (after, "after")):
        if not read:
            return {name: SourceFailure("(%s read)" % label, "no %s read of this switch: its read task did not run" % label)
                    for name in check["sources"]}
        if read.get("unreachable"):
            return {name: SourceFailure("ssh", "unreachable at the %s read: %s" % (label, read["unreachable"]))
                    for name in check["sources"]}
    parsed = [_engine.parse_sources(check["sources"], catalog, read["raw"], expect) for read in (before, after)]
    for name in check["sources"]:
        first, last = parsed[0].get(name), parsed[1].get(name)
        failed = next((found for found in (first, last) if isinstance(found, SourceFailure) or found is None), False)
        if failed is not False:
            out[name] = failed if failed is not None else SourceFailure("(read)", "%s was not read" % name)
        else:
            out[name] = {"before": first, "after": last, "seconds": int(round(after["at"] - before["at"]))}
    return out
