# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 3 under load: the induced incast, one phase per task (docs/incast.md; roles/incast; the action plugin
gpufabric.pyramid.incast runs one phase with an AnsibleStep, run/ansible_step.py).

plan (controller) -> serve (targets' servers, gpufabric.pyramid.rail_servers) -> read before (nodes; the target
leaves, each its own) -> fire (senders' clients in the background, rail_servers wait_for=running) -> read tail (the
leaves side by side; judged only where it ended before any sender's window could have) -> stop (clients, then
servers, with their output) -> read after -> again (controller: rounds for the senders another device's failure left
unproven, each against a target whose incast passed, run as the rounds above) -> verdict (controller: each target's
incast judged, judging/incast.py; every device's verdict, judging/incast_rounds.py; recorded, run/engine.py record_of).
"""

from __future__ import annotations

import time

from ..core import catalog as _catalog, model as _model, results as _results
from ..gate import blocking as _blocking
from ..judging import judge_of, incast as _judge, incast_infiniband as _ib_judge, incast_rounds as _rounds
from . import background as _background, engine as _engine, incast_infiniband as _ib, incast_plan as _plan, incast_reads as _run
from . import rail_addresses as _addresses, rail_mesh as _mesh
from .ansible_step import RunError

UNTIL = ("tail", "end")
EXTRA = ["pyramid_command_timeout", "pyramid_enforce_gate", "pyramid_rdma_listen_timeout"]

NO_NODE = "no node passed the layers below"


class IncastPhases:
    """The incast's phases for one task: each takes the task's result and arguments and returns the result. ``step``
    is what a phase asks of Ansible (the task's host, the play's groups and forks, expectations, modules, reads)."""

    NAMES = ("plan", "serve", "read", "fire", "wait", "stop", "again", "verdict")
    ARGS = frozenset(("phase", "run_dir", "round", "hosts", "switches", "label", "device", "until"))

    def __init__(self, step, catalog, args=None):  # pylint: disable=unused-argument
        self._step, self._catalog = step, catalog
        # RoCE's incast (ECN, DCQCN, PFC); InfiniBand's (the target's leaf port waits for credits only while the load
        # runs); the same incast's verdict on each leaf that faced a target: the catalog's incast checks
        checks = _run.incast_checks(catalog)
        self._check, self._ib_check, self._leaf_check = checks["roce"], checks["infiniband"], checks["leaf"]
        self.checks = [self._check, self._ib_check]  # the kind's checks (check mode: run/ansible_step.py)

    # --- expectations ------------------------------------------------------------------------------------

    def _expect(self, host):
        return self._step.expectations(host, self._catalog, self.checks, EXTRA)

    def _own(self, expect):
        """The incast check of this node's fabric: RoCE's ECN/DCQCN/PFC, or InfiniBand's credits."""
        return self._ib_check if _run.on_infiniband(expect) else self._check

    def _switch_expect(self, switch):
        return self._step.expectations(switch, self._catalog, _catalog.checks_at(self._catalog, 3, "switch"))

    # --- phases --------------------------------------------------------------------------------------------

    def plan(self, result, args):
        run_dir, hosts, switches = args["run_dir"], list(args["hosts"]), list(args.get("switches") or [])
        if not hosts:
            _run.files(run_dir).save_plan({"off": "no node", "rounds": []})
            return dict(result, rounds=[], leaves=[], msg="incast not run: no node")
        expects = {host: self._expect(host) for host in hosts}
        reference = expects[hosts[0]]  # the run's settings are the first node's (keep them in group_vars/gpu_nodes)
        off = _run.switched_off(reference)  # the plan's own words (run/incast_reads.py plan_sections)
        if off:
            _run.files(run_dir).save_plan({"off": off, "rounds": []})
            return dict(result, rounds=[], leaves=[], fabric_readers=[], msg="incast not run: %s" % off)
        infiniband = _run.on_infiniband(reference)
        docs = {host: _results.load(run_dir, host) for host in hosts}
        gated = all(expects[host]["pyramid_enforce_gate"] for host in hosts)
        nodes = _mesh.climbing(docs, 3, self._own(reference)["id"]) if gated else hosts
        addresses = {}
        for node in nodes:
            found, problem = _addresses.rail_addresses(node, expects[node])
            if problem and len(nodes) > 1:  # a lone node has no sender: its addresses are never used
                return dict(result, failed=True, msg="rail address plan: %s: %s" % (node, problem))
            addresses[node] = found or []
        if not nodes:
            plan = {"error": NO_NODE, "rounds": []}
        elif infiniband:  # the subnet's leaves, as Layer 1 found them; the fabric host reads their counters
            plan = _ib.make_plan(nodes, docs, self._step.groups, run_dir, hosts, reference, addresses, self._catalog, expects)
        else:
            switch_ports = {switch: self._switch_expect(switch).get("pyramid_switch_ports") or [] for switch in switches}
            plan = _run.make_plan(nodes, switch_ports, reference, addresses, self._catalog, expects)
            plan["addresses"] = addresses  # the rounds run again (again) take their commands from the same addresses
        plan.setdefault("rounds", [])
        plan["duration"] = reference["pyramid_incast_duration"]
        plan["tail_seconds"] = round(reference["pyramid_incast_duration"] * reference["pyramid_incast_tail_percent"] / 100.0, 1)
        plan["hosts"] = hosts
        _run.files(run_dir).save_plan(plan)
        if plan.get("error"):
            return dict(result, rounds=[], leaves=[], fabric_readers=[], msg="incast not planned: %s" % plan["error"])
        waves = _run.forks_warning(plan["leaves"], self._step.forks)
        if waves:
            result.setdefault("warnings", []).append(waves)
        return dict(result, rounds=list(range(len(plan["rounds"]))), leaves=plan["leaves"], members=plan["members"],
                    fabric_readers=[plan["fabric_reader"]] if plan.get("fabric_reader") else [],
                    first_wait=max(plan["duration"] - plan["tail_seconds"], 0), tail_wait=plan["tail_seconds"] + 2,
                    msg="incast: %d targets in %d round(s), %d senders each%s" % (
                        sum(len(groups) for groups in plan["rounds"]), len(plan["rounds"]), plan["senders"],
                        "; " + "; ".join(plan["notes"]) if plan.get("notes") else ""))

    def _load_plan(self, args):
        plan = _run.files(args["run_dir"]).load_plan()
        if plan is None:
            raise RunError("no incast plan in %s (the plan phase did not run)" % args["run_dir"])
        return plan, int(args.get("round", 0))

    def _host(self, args):
        return self._step.host

    def _background(self, args):
        return _background.Background(self._step, _run.files(args["run_dir"]), "incast", args["run_dir"])

    def _lifetime(self, plan, expect):
        """How long a server may wait for its sender: the window, the listen wait, twice the command timeout, a
        minute, and the serve, read-before and fire phases across the pod, each in waves of this run's forks
        (run/background.py waves): at 512 nodes and 16 forks the read before alone is 32 waves of node reads."""
        spread = 3 * _background.waves(len(plan.get("hosts") or ()), self._step.forks or 5) * _background.TASK_SLACK_SECONDS
        return int(plan["duration"] + expect["pyramid_rdma_listen_timeout"] + 2 * expect["pyramid_command_timeout"] + 60 + spread)

    def _start(self, result, args, side, wait_for):
        plan, index = self._load_plan(args)
        host = self._host(args)
        runs = plan["commands"][index][side].get(host) if plan["rounds"] else None
        if not runs:
            return dict(result, msg="%s has no incast %s in round %d" % (host, side, index + 1))
        expect = self._expect(host)
        started = time.time()  # a sender's -D window cannot end before this plus the duration (judging/incast.py)
        states, failed = self._background(args).start(host, index, side, runs, self._lifetime(plan, expect),
                                                      expect["pyramid_rdma_listen_timeout"], wait_for=wait_for)
        if side == "clients":
            _run.files(args["run_dir"]).save(index, host, "fired", {"started": started, "running": time.time()})
        said = "; not started: %s" % ", ".join(failed) if failed else ""
        return dict(result, msg="%s: %d %s started%s" % (host, len(states) - len(failed), side, said))

    def serve(self, result, args):
        return self._start(result, args, "servers", "banner")

    def fire(self, result, args):
        return self._start(result, args, "clients", "running")

    def wait(self, result, args):
        """On the controller: sleep until the round's tail read is due, or its senders' windows are over
        (incast_reads.due), counted from when the senders were started - not from when the fire task ended, which
        across many senders and few forks can be most of the window later."""
        until = args.get("until")
        if until not in UNTIL:
            return dict(result, failed=True, msg="until must be one of %s, got %r" % (", ".join(UNTIL), until))
        plan, index = self._load_plan(args)
        fired = [record for record in (_run.files(args["run_dir"]).load(index, sender, "fired")
                                       for sender in _run.round_senders(plan, index)) if record]
        deadline = _run.due(fired, plan["duration"], plan["tail_seconds"], until)
        if deadline is None:
            return dict(result, msg="round %d: no sender fired; nothing to wait for" % (index + 1))
        seconds = max(deadline - time.time(), 0.0)
        time.sleep(seconds)
        return dict(result, waited=round(seconds, 1), msg="round %d: waited %.1f s (%s)" % (
            index + 1, seconds, "the last %g s of the window" % plan["tail_seconds"] if until == "tail" else "every sender's window over"))

    def stop(self, result, args):
        plan, index = self._load_plan(args)
        host = self._host(args)
        command_timeout = self._expect(host)["pyramid_command_timeout"]
        # the clients first (a server ends when its client is done); a sender may still be ending its window (it
        # started a little after the controller's wait began, or the twin commits its counters): the clients get the
        # window on top of the command timeout
        waited = command_timeout + plan["duration"]
        ended, answer = self._background(args).stop(host, index, {"clients": waited, "servers": command_timeout})
        if answer is None:
            return dict(result, msg="%s: nothing to stop" % host)
        said = []
        for side, (started, stopped, lost) in ended.items():
            # a sender's output is never parsed: a run its start did not see running stays what the start said (the load
            # did not run as planned), whatever its end, so the verdict is about the load's counters only where it ran
            raw = _background.server_reads(started, stopped, lost or "output lost")
            _run.files(args["run_dir"]).save(index, host, side, raw)
            said.append("%d %s" % (len(raw), side))
        return dict(result, msg="%s: %s" % (host, ", ".join(said)))

    def read(self, result, args):
        """A node's NIC counters (hw_counters, ethtool -S) at `label`; with ``device: switch`` a leaf's (read_switch);
        with ``device: fabric`` the subnet's port counters on InfiniBand (read_fabric)."""
        if args.get("device") == "switch":
            return self.read_switch(result, args)
        if args.get("device") == "fabric":
            return self.read_fabric(result, args)
        plan, index = self._load_plan(args)
        host = self._host(args)
        if not plan["rounds"] or host not in plan["members"][index]:
            return dict(result, msg="%s is not in incast round %d" % (host, index + 1))
        if plan.get("fabric") == "infiniband":
            return dict(result, msg="%s: InfiniBand, no DCQCN counters on the NICs (the fabric host reads the leaves)" % host)
        expect = self._expect(host)
        planned = _engine.reads(_run.node_sources(self._catalog), self._catalog, expect)
        raw, unreachable = self._step.collect(planned, expect["pyramid_command_timeout"])
        _run.files(args["run_dir"]).save(index, host, args["label"], {"at": time.time(), "raw": raw or {}, "unreachable": unreachable})
        return dict(result, msg="%s: NIC counters read (%s)" % (host, args["label"]))

    def read_switch(self, result, args):
        """A leaf's ECN, PFC and discard counters at `label` (the task runs on the leaf, a host of the play)."""
        _plan, index = self._load_plan(args)
        switch = self._host(args)
        expect = self._switch_expect(switch)
        planned = _engine.reads(_run.switch_sources(self._catalog, args["label"]), self._catalog, expect)
        # through the task's own connection: the switch's settings as this task resolved them
        raw, unreachable = self._step.collect(planned, expect["pyramid_command_timeout"])
        _run.files(args["run_dir"]).save(index, switch, args["label"], {"at": time.time(), "raw": raw or {}, "unreachable": unreachable})
        return dict(result, msg="%s: ECN, PFC and discard counters read (%s)" % (switch, args["label"]))

    def read_fabric(self, result, args):
        """Every port's counters of the subnet (ibqueryerrors) at `label`, on the fabric host the plan named."""
        plan, index = self._load_plan(args)
        host = self._host(args)
        if host != plan.get("fabric_reader") or args.get("label") not in _ib.LABELS:
            return dict(result, msg="%s does not read the subnet for incast round %d at %s" % (host, index + 1, args.get("label")))
        expect = self._step.expectations(host, self._catalog, [self._ib_check])
        if args["label"] == "settled":
            after = _run.files(args["run_dir"]).load(index, host, _ib.read_label("after")) or {}
            time.sleep(max(after.get("at", 0) + _ib.SETTLE_SECONDS - time.time(), 0))
        planned = _engine.reads(_ib.fabric_sources(self._catalog), self._catalog, expect)
        raw, unreachable = self._step.collect(planned, expect["pyramid_command_timeout"])
        _run.files(args["run_dir"]).save(index, host, _ib.read_label(args["label"]), {"at": time.time(), "raw": raw or {}, "unreachable": unreachable})
        return dict(result, msg="%s: the subnet's port counters read (%s)" % (host, args["label"]))

    # --- the senders proven again (issue 66) ----------------------------------------------------------------------

    def again(self, result, args):
        """On the controller, after the planned rounds: their incasts judged (nothing recorded yet), the senders one of
        them failed before any CNP reached (its target's leaf or its target failed: not their finding) are planned into
        rounds of their own, each against a target whose incast passed on leaves that passed (run/incast_plan.py
        plan_again), appended to the plan; the role runs them as the rounds above. ``leaves``: every round's target
        leaves, for round.yml."""
        run_dir = args["run_dir"]
        plan, _index = self._load_plan(args)
        nothing = dict(result, rounds=[], leaves=plan.get("leaves") or [])
        if plan.get("off") or plan.get("error") or plan.get("fabric") == "infiniband" or not plan["rounds"] or "again_from" in plan:
            return dict(nothing, msg="incast: no sender to prove again")
        first = [(group, self._outcome(run_dir, plan, index, group)) for index, groups in enumerate(plan["rounds"]) for group in groups]
        reference = self._expect(plan["hosts"][0])
        planned = _plan.plan_again(first, plan["nodes"], plan.get("node_leaves") or {}, _rounds.leaf_statuses(first), plan["senders"],
                                   reference["pyramid_incast_rate_gbps"], reference["pyramid_rail_rate_gbps"])
        start = len(plan["rounds"])
        plan["again_from"], plan["again_unplaced"] = start, planned["unplaced"]
        if planned["rounds"]:
            members = sorted({n for groups in planned["rounds"] for g in groups for n in [g["target"]] + g["senders"]})
            expects = {node: self._expect(node) for node in members}
            plan["rounds"] += planned["rounds"]
            plan["commands"] += _run.commands(planned["rounds"], self._catalog, expects, plan["addresses"])
            plan["leaves"] += [sorted({p["leaf"] for g in groups for p in g["ports"]}) for groups in planned["rounds"]]
            plan["members"] += [sorted({n for g in groups for n in [g["target"]] + g["senders"]}) for groups in planned["rounds"]]
        _run.files(run_dir).save_plan(plan)
        again = sorted({s for groups in planned["rounds"] for g in groups for s in g["again_for"]})
        said = "incast: %d sender(s) proven again in %d round(s)%s%s" % (
            len(again), len(planned["rounds"]), ": %s" % ", ".join(again) if again else "",
            "; not proven again: %s" % "; ".join("%s (%s)" % item for item in sorted(planned["unplaced"].items()))
            if planned["unplaced"] else "")
        return dict(result, rounds=list(range(start, len(plan["rounds"]))), leaves=plan["leaves"], msg=said)

    # --- the verdict: judging/incast_rounds.py's (RoCE), judging/incast_infiniband.py's, recorded ------------------

    def verdict(self, result, args):
        run_dir = args["run_dir"]
        plan, _index = self._load_plan(args)
        hosts, switches = list(args["hosts"]), list(args.get("switches") or [])
        node_check = None  # the check of the nodes' verdicts: each node's own fabric's, unless the run's fabric says
        verdicts, leaf_verdicts = {}, {}
        if plan.get("off"):  # a not-applicable SKIP that says why: the qos_load row reads "not checked: <why>"
            verdicts = {host: _rounds.switched_off(self._expected(host), plan["off"]) for host in hosts}
            leaf_verdicts = {switch: _rounds.switched_off(_rounds.LEAF_EXPECTED, plan["off"]) for switch in switches}
        elif plan.get("error") == NO_NODE:  # every node stopped below: none of them, nor any leaf, could be loaded
            held_by = _judge.stopped_below({host: _results.load(run_dir, host)["results"] for host in hosts})
            verdicts = {host: _rounds.nobody_climbed(self._expected(host), held_by) for host in hosts}
            for switch in switches:  # a spine, or a leaf facing no node of the run, was never the incast's to load
                faces = any(entry.get("peer") in hosts for entry in self._switch_expect(switch).get("pyramid_switch_ports") or [])
                leaf_verdicts[switch] = (_rounds.nobody_climbed(_rounds.LEAF_EXPECTED, held_by) if faces
                                         else _rounds.leaf_verdict(switch, None))
        elif plan.get("error"):
            verdicts = {host: _rounds.not_planned(self._expected(host), plan["error"]) for host in hosts}
            leaf_verdicts = {switch: _rounds.not_planned(_rounds.LEAF_EXPECTED, plan["error"]) for switch in switches}
        elif plan.get("fabric") == "infiniband":
            node_check = self._ib_check
            verdicts = self._judged_infiniband(run_dir, plan, hosts)
        else:
            node_check = self._check
            first_rounds = plan.get("again_from", len(plan["rounds"]))
            outcomes = [(index, group, self._outcome(run_dir, plan, index, group))
                        for index, groups in enumerate(plan["rounds"]) for group in groups]
            verdicts, leaf_verdicts = _rounds.verdicts([(group, outcome) for index, group, outcome in outcomes if index < first_rounds],
                                                       [(group, outcome) for index, group, outcome in outcomes if index >= first_rounds],
                                                       plan, hosts, switches, {node: self._expect(node) for node in self._judged_nodes(plan, hosts)})
        own = self._recorded(run_dir, verdicts, leaf_verdicts, hosts, node_check)
        counts = {status: count for status, count in _model.count_statuses(own).items() if count}
        return dict(result, counts=counts, msg="incast: %s" % ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())))

    def _recorded(self, run_dir, verdicts, leaf_verdicts, hosts, node_check):
        """Record each device's verdict (core/results.py record_each) and, on a node, the other fabric's incast check as
        not applicable (said as any only_if is); a device stopped below layer 3 is left as the layer role recorded it
        (not run, with the layer that stopped it). The incast's own records, recorded."""
        own, records = [], []
        for device, found in list(verdicts.items()) + list(leaf_verdicts.items()):
            if device not in hosts and device not in leaf_verdicts:
                continue
            switch = device in leaf_verdicts
            if self._held_below(device, _results.load(run_dir, device), switch):
                continue
            if switch:
                check, expect = self._leaf_check, self._switch_expect(device)
            else:
                expect = self._expect(device)
                check = node_check or self._own(expect)
            own.append(_run.record(device, check, self._catalog, expect, found))
            records.append(own[-1])
            if not switch:
                other = self._check if check is self._ib_check else self._ib_check
                records.append(_engine.not_applicable_result(device, other, self._catalog, expect))
        _results.record_each(run_dir, records)
        return own

    def _held_below(self, host, doc, switch):
        """Whether a device stopped below layer 3 (a switch: a whole-switch failure; failures confined to ports climb)."""
        if switch:
            return _blocking.climb(doc["results"], 3)[0] is not None and self._switch_expect(host)["pyramid_enforce_gate"]
        return bool(_results.blocker(doc["results"], 3)) and self._expect(host)["pyramid_enforce_gate"]

    @staticmethod
    def _judged_nodes(plan, hosts):
        """The nodes an incast verdict speaks of: the play's, and every target and sender of the plan's rounds."""
        return list(dict.fromkeys(list(hosts) + [node for groups in plan["rounds"] for group in groups
                                                 for node in [group["target"]] + list(group["senders"])]))

    def _expected(self, host):
        """What a node's incast check expects (incast_ecn's, or incast_ib's on InfiniBand), in its numbers."""
        expect = self._expect(host)
        return _ib_judge.expected(expect) if self._own(expect) is self._ib_check else _judge.expected(expect)

    def _judged_infiniband(self, run_dir, plan, hosts):
        """Every node's incast_ib verdict: each target's own, the others' standing on their leaves' incasts."""
        files, outcomes, expects = _run.files(run_dir), [], {}
        reader_expect = self._step.expectations(plan["fabric_reader"], self._catalog, [self._ib_check])
        for index, groups in enumerate(plan["rounds"]):
            for group in groups:
                expects[group["target"]] = self._expect(group["target"])
                outcomes.append((group, _ib.outcome(files, plan, index, group, self._catalog, self._ib_check, expects[group["target"]],
                                                    reader_expect)))
        return _ib_judge.verdicts(outcomes, plan, hosts, expects, self._ib_check["id"])

    def _outcome(self, run_dir, plan, index, group):
        """The outcome of one target's incast on RoCE: its judge's (judging/incast.py) on the leaves' and the NICs'
        reads, and the runs that did not end well."""
        target, senders = group["target"], group["senders"]
        expect = self._expect(target)
        switch, tail, times = {}, {}, {}
        fired = [_run.files(run_dir).load(index, sender, "fired") for sender in senders]
        for leaf in sorted({p["leaf"] for p in group["ports"]}):
            leaf_expect = self._switch_expect(leaf)
            sides = {}
            for label in _run.LABELS:
                read = _run.files(run_dir).load(index, leaf, label)
                if read:
                    sides[label] = _run.switch_snapshot(read, self._catalog, leaf_expect, _run.switch_sources(self._catalog, label))
                    times[(leaf, label)] = read["at"]
            switch[leaf] = {k: v for k, v in sides.items() if k in ("before", "after")}
            if "tail" in sides and (leaf, "after") in times:
                tail[leaf] = _judge.tail_entry(leaf, sides["tail"], times[(leaf, "tail")], times[(leaf, "after")],
                                               [f for f in fired if f], plan["duration"])
            else:  # the PFC bound needs the read near the end: without it, ERROR about the read (never the whole window)
                tail[leaf] = "%s: its counters were not read near the end of the window (tail)" % leaf
        nic = {}
        for node in [target] + senders:
            node_expect = self._expect(node)
            per_label = {label: _run.nic_snapshot(_run.files(run_dir).load(index, node, label), self._catalog, node_expect)
                         for label in ("before", "after")}
            nic[node] = {rail: {"before": per_label["before"][rail], "after": per_label["after"][rail]} for rail in per_label["before"]}
        facts = {"group": group, "switch": switch, "nic": nic, "seconds": plan["duration"], "tail": tail,
                 "failed": _run.run_failures(_run.files(run_dir), index, group)}
        return judge_of(self._check)(facts, expect)
