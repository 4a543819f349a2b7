# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The link kind (catalog/kinds.yml, ``reads_on: paths``): a missed load run again while the switches on its paths are
read, and the link whose counters show the loss named (judging/link.py). One phase per task (the action
gpufabric.pyramid.link, the role link): plan; then, for each run to make again (the pod's all-to-all; each missed
pair, one after the other, so that a window holds one run's traffic), read (each switch, before), load (the
launcher), read (each switch, after); then judge. Any later kind declared with ``reads_on: paths`` runs here too.

What each check of such a kind says, the runner does, and nothing else: its ``retraces`` names the check whose miss it
follows and the causes of that miss (the nodes whose record of that check holds one of them); that check's first
source is the load, run across those nodes from the launcher as the fabric hunt runs it; the check's own ``sources``
are read on the rail leaves of those nodes and on those leaves' fabric peers (their plans, pyramid_switch_ports), each a
window of the two reads. Its judge (judging/, registered under the kind) gets, per run, the windows per switch and the
paths ({"links", "nodes", "missed", "rerun"}) and returns a verdict per device; the runner records them (a switch on
the paths of several runs: judging/link.py merged says its one verdict): a switch's under the check, a node's under
the check it retraced (a verdict the judge moved off the node replaces the node's).
"""

from __future__ import annotations

import os
import time

from ..core import catalog as _catalog, results as _results
from ..core.model import SourceFailure
from ..judging import judge_of, link as _link_judging, link_infiniband as _subnet, unjudged as _unjudged
from . import background as _background, check_mode as _check_mode, engine as _engine, fabric_runs as _fabric_runs, pod as _pod


def path_checks(catalog, layer):
    """The checks of ``layer`` whose kind reads the switches on a missed load's paths, in catalog order."""
    return [check for check in catalog["checks"]
            if check["layer"] == layer and _catalog.kind_of(check).get("reads_on") == "paths"]


def reads_subnet(check):
    """Whether the check reads the switches' counters whole on one host (its ``leaves_from``: InfiniBand, whose
    switches are no hosts of the run, named as the subnet names them) rather than on each switch on the paths."""
    return "leaves_from" in check


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
    ARGS = frozenset(("phase", "layer", "run_dir", "hosts", "switches", "label", "check", "run"))

    def __init__(self, step, catalog, args):
        self._step, self._catalog, self._layer = step, catalog, int(args.get("layer", 5))
        # a round's phases (``check`` and ``run``: the role reads, loads and reads again for one run at a time, so that
        # a read's window holds that run's load alone); the plan and the judge, every check of the layer
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
            retraced = self._retraced(check)
            # its only_if (the fabric it reads: RoCE's switches, InfiniBand's subnet), as the pod's nodes say it
            probe = (list(docs) or switches or [None])[0]
            where = _catalog.not_applicable({"id": check["id"], "only_if": check["only_if"]}, self._step.expectations(
                probe, self._catalog, [], extra=tuple(check["only_if"]))) if probe and check.get("only_if") else None
            if where:  # another fabric's check (its only_if): neither for nor against GO on any switch
                _results.record_each(run_dir, [_engine.record_of(switch, check, self._catalog, {}, _unjudged.not_applicable(
                    "; ".join("%s %s" % item for item in sorted(check.get("only_if", {}).items())), where), command="(none)")
                    for switch in switches])
                said.append("%s: %s" % (check["id"], where))
                continue
            nodes, missed = missed_nodes(docs, retraced, check["retraces"].get("cause_keys", []))
            runs, unplaced = [], []
            for group in missed_groups(docs, retraced, nodes):
                if reads_subnet(check):
                    on_paths, links, why = self._subnet_paths(check, docs, args, group)
                    unplaced += [why] if why else []
                else:
                    on_paths, links = paths(plans, group)
                if on_paths:
                    runs.append({"nodes": group, "missed": missed_nodes({node: docs[node] for node in group}, retraced,
                                                                        check["retraces"].get("cause_keys", []))[1],
                                 "readers": on_paths, "links": links})
            on_paths = sorted({switch for run in runs for switch in run["readers"]})
            nodes = [node for run in runs for node in run["nodes"]]  # a node whose run has no other node to make it with: none
            files(run_dir, check).save_plan({"check": check["id"], "nodes": nodes, "missed": missed, "readers": on_paths, "runs": runs})
            readers.update(on_paths)
            # a switch on no path of a miss has nothing to prove here: neither for nor against GO
            _results.record_each(run_dir, [self._off_path(switch, check, nodes) for switch in switches if switch not in on_paths])
            said.append("%s: %s%s" % (check["id"], "%d run(s) across %d nodes, %d switches on their paths" % (
                len(runs), len(nodes), len(on_paths)) if runs else "no miss to retrace" if not unplaced else "no run made again",
                "".join("; %s" % why for why in unplaced)))
            # one round per run made again: its switches read around its load alone
            rounds.extend({"check": check["id"], "run": index, "readers": run["readers"]} for index, run in enumerate(runs))
        return dict(result, readers=sorted(readers), rounds=rounds, msg="; ".join(said))

    def _subnet_paths(self, check, docs, args, nodes):
        """([the subnet's reader], its fabric links on the nodes' paths, why a rail or the run was not placed, or None)
        for a check that reads the subnet whole on one host (its sources' ``read_on``: InfiniBand), the leaves found as
        its ``leaves_from`` says (the nodes' own reads and the reader's, kept at the layers below). Not placed, the
        run is not made again: its nodes keep the miss where the hunt put it, never a PASS."""
        group = self._catalog["sources"][check["sources"][0]]["read_on"]
        reader = _pod.reader(group, self._step.groups, args["run_dir"], self._layer, list(args.get("hosts") or []))
        if reader is None:
            return [], [], "no host of %s (or of gpu_nodes) in the run reads the subnet" % group
        kept = {node: _kept(docs[node], check["leaves_from"]["node"], self._layer) for node in nodes}
        subnet = _kept(docs.get(reader) or _results.load(args["run_dir"], reader), check["leaves_from"]["subnet"], self._layer,
                       pod_read=True)
        if not isinstance(subnet, dict) or "switches" not in subnet:
            return [], [], "no %s kept on %s below layer %d (the paths are found in it: run Layer 3 with it)" % (
                check["leaves_from"]["subnet"], reader, self._layer)
        rails = {node: self._step.expectations(node, self._catalog, [check])["pyramid_rails"] for node in nodes}
        links, unseen = _subnet.subnet_paths(kept, subnet, rails)
        if unseen:  # a path left out may hold the link: judged without it, "no link shows the loss" would not be true
            return [], [], "%s not made again: not placed in the subnet's read: %s" % (" + ".join(nodes), "; ".join(unseen[:3]))
        return ([reader], links, None) if links else ([], [], "no fabric link on the paths of %s" % ", ".join(nodes))

    def check_mode(self, result, phase, args):
        """--check: the plan as in a full run (a switch on no path of a miss: not applicable), but the load is never run
        again: a switch a miss would have read (a miss taken over by -e pyramid_resume) reads "not run: check mode"."""
        if phase != "plan":
            return dict(result, readers=[], rounds=[], msg="%s: %s" % (phase, _check_mode.NOT_RUN))
        planned = self.plan(result, args)
        records = []
        for check in self.checks:
            plan = files(args["run_dir"], check).load_plan() or {}
            for switch in [] if reads_subnet(check) else plan.get("readers", []):  # a subnet's reader is no switch
                records.append(_engine.record_of(switch, check, self._catalog, {}, _unjudged.not_run(
                    "a miss of %s retraced" % check["retraces"]["check"],
                    "%s: the link run would run %s's load again" % (_check_mode.NOT_RUN, check["retraces"]["check"])), command="(none)"))
            files(args["run_dir"], check).save_plan(dict(plan, readers=[], runs=[]))
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
            for index, run in self._runs(args, check):
                if switch not in run["readers"]:
                    continue
                expect = self._step.expectations(switch, self._catalog, [check])
                planned = _engine.reads(check["sources"], self._catalog, expect)
                raw, unreachable = self._step.collect(planned, expect["pyramid_command_timeout"])
                read = {"at": time.time(), "raw": raw or {}, "unreachable": unreachable}
                files(args["run_dir"], check).save(index, switch, args["label"], read)
                kept.append(check["id"])
        return dict(result, msg="%s: %s" % (switch, ("read for %s (%s)" % (", ".join(kept), args["label"])) if kept else "not on a path"))

    def _runs(self, args, check):
        """(index, run) of the check's planned runs: the task's ``run`` alone where it names one (a round of the role)."""
        runs = enumerate((files(args["run_dir"], check).load_plan() or {}).get("runs") or [])
        wanted = None if args.get("run") is None else int(args["run"])
        return [(index, run) for index, run in runs if wanted in (None, index)]

    def load(self, result, args):
        """Each planned run's missed load again across the same nodes as the miss, from the launcher (the task's host),
        its outcome as the retraced check's own judge reads it."""
        said = []
        for check in self.checks:
            retraced = self._retraced(check)
            for index, run in self._runs(args, check):
                nodes = run["nodes"]
                expect = self._step.expectations(nodes[0], self._catalog, [retraced])
                name = retraced["sources"][0]
                planned = _engine.reads([name], self._catalog, expect, group=_fabric_runs.group_context(nodes, expect["pyramid_gpus_per_node"]))
                started = time.time()
                collected, unreachable = self._step.collect(planned, expect["pyramid_command_timeout"])
                raw = None if unreachable else (collected or {}).get(name)
                facts = (SourceFailure("ssh %s" % self._step.host, "launcher unreachable: %s" % unreachable) if unreachable
                         else _engine.parse_one(raw))
                outcome = _engine.run_judge(retraced, judge_of(retraced),
                                            _fabric_runs.judged_facts(facts, nodes, self._catalog), _engine.declared(retraced, expect))
                files(args["run_dir"], check).save(index, "load", "outcome", {"started": started, "ended": time.time(),
                                                                              "status": outcome["status"], "actual": outcome["actual"], "raw": raw})
                said.append("%s: %s again across %s: %s" % (check["id"], retraced["id"], " + ".join(nodes), outcome["status"]))
        return dict(result, msg="; ".join(said) or "no miss to retrace")

    def judge(self, result, args):
        """Each planned check's judge on the windows of its reads; its verdicts recorded, a switch's under the check,
        a node's under the check it retraced."""
        run_dir, counts = args["run_dir"], {}
        for check in self.checks:
            run_files, judged, expects, nodes, readers = files(run_dir, check), [], {}, set(), set()
            for index, run in self._runs(dict(args, run=None), check):
                nodes.update(run["nodes"])
                readers.update(run["readers"])
                facts = {}
                for switch in run["readers"]:
                    expects[switch] = self._step.expectations(switch, self._catalog, [check])
                    facts[switch] = _windows(check, self._catalog, expects[switch], run_files.load(index, switch, "before"),
                                             run_files.load(index, switch, "after"))
                load = run_files.load(index, "load", "outcome") or {}
                expect = dict(_engine.declared(check, expects[run["readers"][0]]), links=run["links"], nodes=run["nodes"],
                              missed=run["missed"], rerun=load.get("actual") or "the load did not run")
                # a subnet's reader reads for the nodes and is judged as none of the switches it read
                judged.append(_engine.run_judge(check, judge_of(check), facts, expect,
                                                hosts=([] if reads_subnet(check) else run["readers"]) + run["nodes"]))
            if judged:  # a switch on the paths of several runs: judging/link.py says its one verdict
                verdicts = _link_judging.merged(judged)
                self._record(run_dir, check, verdicts, (expects, nodes), counts)
                if reads_subnet(check):  # its switches are the subnet's, found in the read: devices of the run from now on
                    _results.add_found(run_dir, sorted(set(verdicts) - nodes), "the subnet read on %s" % ", ".join(sorted(readers)))
        return dict(result, counts=counts, msg=", ".join("%s %d" % item for item in sorted(counts.items())) or "no miss to retrace")

    def _record(self, run_dir, check, verdicts, expects_nodes, counts):
        """The judge's verdicts as records: a switch's under the check, a node's under the check it retraced (its cause
        the retraced check's words, or the link check's where the judge placed the miss on a link: InfiniBand's)."""
        (expects, nodes), retraced, records = expects_nodes, self._retraced(check), []
        for device, outcome in verdicts.items():
            own = retraced if device in nodes else check
            key = outcome.get("cause_key")
            record = _engine.result(device, own, self._catalog, expects.get(device) or {}, outcome["status"], outcome["expected"],
                                    outcome["actual"], cause=outcome.get("cause") or own.get("causes", {}).get(key)
                                    or check.get("causes", {}).get(key),
                                    command=outcome.get("command") or ("(see %s)" % check["id"] if own is retraced else None),
                                    detail=outcome.get("detail"))
            if outcome.get("not_applicable"):  # a switch none of the re-run's flows crossed: neither for nor against GO
                record["not_applicable"] = True
            if own is retraced:
                record["retraced_by"] = check["id"]
            records.append(record)
            tally = "%s=%s" % (own["id"], outcome["status"])
            counts[tally] = counts.get(tally, 0) + 1
        _results.record_each(run_dir, records)


def _kept(doc, source, layer, pod_read=False):
    """The facts a device kept, at the newest layer below ``layer`` that read ``source`` ({source: facts, and the
    rails' sysfs GUIDs beside a node's ibstat}); ``pod_read``: what it read for the pod (run/pod.py read_in)."""
    for below in range(layer - 1, -1, -1):
        facts = _pod.read_in(doc, below)[0] if pod_read else _engine.restore_facts((doc.get("facts") or {}).get("layer%d" % below) or {})
        if isinstance(facts, dict) and source in facts:
            return facts[source] if pod_read else facts
    return None


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


def plan_sections(pod):
    """The plan's sections of the runs that follow a miss (catalog/kinds.yml planned_by; run/plan.py), each check's from
    its ``retraces``: the missed load once more across the same nodes while the switches on their paths are read (on
    InfiniBand, the subnet's counters on its reader: reads_subnet), one NCCL step each at most. Nothing without two GPU
    nodes, for a check of another fabric (its only_if, on the first node's expectations), or without a switch in the
    run to read where the check reads the inventory's switches (the run itself then makes nothing)."""
    if pod.alone or len(pod.nodes) < 2:
        return []
    by_layer = {}
    for check in pod.checks:
        if not reads_subnet(check) and not pod.switches:
            continue
        if _catalog.not_applicable({key: value for key, value in check.items() if key != "platforms"}, pod.first):
            continue
        rounds = by_layer.setdefault(check["layer"], [])
        rounds.append({
            "round": len(rounds) + 1, "runs": 1, "check": check["id"],
            "what": "%s, while %s are read before and after it (%s), 1 run(s)" % (
                _catalog.retraced_load(check)[0], "the subnet's counters on its reader" if reads_subnet(check)
                else "the switches on their paths", check["id"])})
    return [{"layer": layer, "title": "After a miss at layer %d: the link named" % layer, "rounds": rounds,
             "steps": {"nccl": len(rounds)}} for layer, rounds in sorted(by_layer.items())]
