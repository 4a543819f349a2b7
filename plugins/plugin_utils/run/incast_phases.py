# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 3 under load: the induced incast, one phase per task (docs/incast.md; roles/incast; the action plugin
gpufabric.pyramid.incast runs one phase with an AnsibleStep, run/ansible_step.py).

plan (controller) -> serve (targets' servers, gpufabric.pyramid.rail_servers) -> read before (nodes; the target
leaves, each its own) -> fire (senders' clients in the background, rail_servers wait_for=running) -> read tail (the
leaves side by side; judged only where it ended before any sender's window could have) -> stop (clients, then
servers, with their output) -> read after -> again (controller: rounds for the senders another device's failure left
unproven, each against a target whose incast passed, run as the rounds above) -> verdict (controller, judging/incast.py).
"""

from __future__ import annotations

import time

from ..core import catalog as _catalog, results as _results
from ..gate import blocking as _blocking
from ..core.model import ERROR, FAIL, PASS, SKIP
from ..judging import JUDGES, incast as _judge, incast_infiniband as _ib_judge
from . import background as _background, engine as _engine, incast_infiniband as _ib, incast_plan as _plan, incast_reads as _run
from . import rail_mesh as _mesh
from .ansible_step import RunError

UNTIL = ("tail", "end")
EXTRA = ["pyramid_command_timeout", "pyramid_enforce_gate", "pyramid_rdma_listen_timeout"]

LEAF_EXPECTED = "under an incast at a target behind it: ECN marks, PFC only a blip at the end, no drops"
_ORDER = (FAIL, ERROR, SKIP, PASS)  # a leaf's worst finding first: its own fault, then a port not proven


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
        return self._ib_check if expect["pyramid_rdma_link_layer"] == "infiniband" else self._check

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
        if not reference["pyramid_incast"]:
            _run.files(run_dir).save_plan({"off": "pyramid_incast is false", "rounds": []})
            return dict(result, rounds=[], leaves=[], fabric_readers=[], msg="incast not run: pyramid_incast is false")
        infiniband = reference["pyramid_rdma_link_layer"] == "infiniband"
        docs = {host: _results.load(run_dir, host) for host in hosts}
        gated = all(expects[host]["pyramid_enforce_gate"] for host in hosts)
        nodes = _mesh.climbing(docs, 3, self._own(reference)["id"]) if gated else hosts
        addresses = {}
        for node in nodes:
            found, problem = _mesh.rail_addresses(node, expects[node])
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
        first = [(group, self._judged(run_dir, plan, index, group)[1]) for index, groups in enumerate(plan["rounds"]) for group in groups]
        statuses = {leaf: sorted((item[0] for item in found), key=_ORDER.index)[0] for leaf, found in leaf_findings(first).items()}
        reference = self._expect(plan["hosts"][0])
        planned = _plan.plan_again(first, plan["nodes"], plan.get("node_leaves") or {}, statuses, plan["senders"],
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

    def _hold_by(self, records, outcomes, unplaced):
        """A sender an incast failed before it reached: its record names the devices that stood in its way (held_by,
        its cause), and why it was not proven again where it was not (the rounds run again replace it where it was)."""
        for group, outcome in outcomes:
            for sender in group["senders"]:
                state, record = _judge.sender_state(sender, outcome), records[sender]
                if state == "error_not_own" and record["status"] == ERROR and sender in unplaced and "not proven again" not in record["cause"]:
                    record.update(actual="%s; not proven again: %s" % (record["actual"], unplaced[sender]),
                                  cause="%s; not proven again: %s" % (record["cause"], unplaced[sender]))
                if state != "not_measured" or record["status"] != SKIP or "held_by" in record:
                    continue
                held_by = _judge.standing_in_the_way(group, outcome)
                said = "%s's incast failed at %s before any CNP reached its senders%s" % (
                    group["target"], _judge.said_in_the_way(held_by),
                    "; not proven again: %s" % unplaced[sender] if sender in unplaced else "")
                # the actual is what the device's cause shows (report/go_no_go.py cause_of): it names them too
                records[sender].update(held_by=held_by, actual="not measured: " + said, cause="Not this node: " + said)

    def _proven_again(self, records, outcomes, again):
        """The rounds run again: each sender proven again takes its record from there, saying which incast it was
        proven again at and why; the target and the healthy senders beside it keep theirs, unless that incast found a
        FAIL of their own (a NIC whose DCQCN did not react)."""
        first = {sender: (group, outcome) for group, outcome in outcomes for sender in group["senders"]
                 if _judge.sender_state(sender, outcome) in _judge.SPOILED}
        for group, outcome, judged in again:
            for node, record in judged.items():
                if node in group.get("again_for", {}):
                    spoiled_group, spoiled = first[node]
                    held_by = _judge.standing_in_the_way(spoiled_group, spoiled)
                    record = dict(record, actual="proven again at %s's incast (%s's, which it sent to first, failed at %s): %s" % (
                        group["target"], spoiled_group["target"], _judge.said_in_the_way(held_by), record["actual"]))
                    if record["status"] == SKIP:  # not measured again: the second target's incast stood in its way too
                        held_by = held_by + _judge.standing_in_the_way(group, outcome)
                        said = "the incasts it sent to failed at %s before any CNP reached it" % _judge.said_in_the_way(held_by)
                        record.update(held_by=held_by, actual="not measured: " + said, cause="Not this node: " + said)
                    records[node] = record
                elif record["status"] == FAIL and records.get(node, {}).get("status") != FAIL:
                    records[node] = dict(record, actual="in an incast run again at %s: %s" % (group["target"], record["actual"]))

    # --- the verdict -------------------------------------------------------------------------------------------

    def verdict(self, result, args):
        run_dir = args["run_dir"]
        plan, _index = self._load_plan(args)
        hosts, switches = list(args["hosts"]), list(args.get("switches") or [])
        records, leaf_records = {}, {}
        if plan.get("off"):  # a not-applicable SKIP that says why: the qos_load row reads "not checked: <why>"
            for host in hosts:
                records[host] = self._off(host, plan["off"])
            for switch in switches:
                leaf_records[switch] = self._off(switch, plan["off"], self._leaf_check)
        elif plan.get("error") == NO_NODE:  # every node stopped below: none of them, nor any leaf, could be loaded
            held_by = _judge.stopped_below({host: _results.load(run_dir, host)["results"] for host in hosts})
            for host in hosts:
                records[host] = self._nobody_climbed(host, held_by)
            for switch in switches:  # a spine, or a leaf facing no node of the run, was never the incast's to load
                faces = any(entry.get("peer") in hosts for entry in self._switch_expect(switch).get("pyramid_switch_ports") or [])
                leaf_records[switch] = (self._nobody_climbed(switch, held_by, self._leaf_check) if faces
                                        else leaf_record(switch, None, self._leaf_check, self._catalog, self._switch_expect(switch)))
        elif plan.get("error"):
            for host in hosts:
                records[host] = self._no_run(host, plan)
            for switch in switches:
                leaf_records[switch] = self._no_run(switch, plan, self._leaf_check)
        elif plan.get("fabric") == "infiniband":
            records = self._judged_infiniband(run_dir, plan, hosts)
        else:
            outcomes, again = [], []
            first_rounds = plan.get("again_from", len(plan["rounds"]))
            for index, groups in enumerate(plan["rounds"]):
                for group in groups:
                    judged, outcome = self._judged(run_dir, plan, index, group)
                    if index < first_rounds:
                        _merge(records, judged)
                        outcomes.append((group, outcome))
                    else:
                        again.append((group, outcome, judged))
            self._hold_by(records, outcomes, plan.get("again_unplaced") or {})
            self._proven_again(records, outcomes, again)
            leaf_records = self._leaves(switches, outcomes + [(group, outcome) for group, outcome, _judged in again], len(outcomes))
            for host in hosts:
                if host not in records:
                    records[host] = self._not_in_incast(host, plan, leaf_records)
        counts = {}
        for host, record in list(records.items()) + list(leaf_records.items()):
            if host not in hosts and host not in leaf_records:
                continue
            doc = _results.load(run_dir, host)
            if self._held_below(host, doc, host in leaf_records):
                continue  # blocked below: the layer role already recorded this check as not run, with the layer that stopped it
            both = [record]
            if host not in leaf_records:  # the other fabric's incast check: not applicable here, said as any only_if is
                expect = self._expect(host)
                other = self._check if record["check"] == self._ib_check["id"] else self._ib_check
                both.append(_engine.not_applicable_result(host, other, self._catalog, expect))
            _results.record(doc, both)
            _results.save(run_dir, doc)
            counts[record["status"]] = counts.get(record["status"], 0) + 1
        return dict(result, counts=counts, msg="incast: %s" % ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())))

    def _held_below(self, host, doc, switch):
        """Whether a device stopped below layer 3 (a switch: a whole-switch failure; failures confined to ports climb)."""
        if switch:
            return _blocking.climb(doc["results"], 3)[0] is not None and self._switch_expect(host)["pyramid_enforce_gate"]
        return bool(_results.blocker(doc["results"], 3)) and self._expect(host)["pyramid_enforce_gate"]

    # --- the leaves' side --------------------------------------------------------------------------------------

    def _leaves(self, switches, outcomes, first=None):
        """Each switch's incast_leaf record: the findings at the ports it turned to the targets (worst first), or not
        applicable where it faced none (a spine, a leaf with no target behind it). The outcomes after the ``first`` are
        the rounds run again: a leaf already proven by its target's incast takes only a FAIL of its own from them (an
        incast run again that could not be judged does not unprove what the first one proved)."""
        by_leaf = leaf_findings(outcomes, first)
        return {switch: leaf_record(switch, by_leaf.get(switch), self._leaf_check, self._catalog, self._switch_expect(switch))
                for switch in switches}

    def _off(self, host, why, check=None):
        """The incast switched off (pyramid_incast false, no node): SKIP, never PASS; it holds no node back, as
        telemetry without a Prometheus URL (the report's row says "not checked: <why>")."""
        check, expect, expected = self._judged_as(host, check)
        record = _engine.result(host, check, self._catalog, expect, SKIP, expected, "not checked: %s" % why, command="(none)")
        record["not_applicable"] = True
        record["not_checked"] = why
        return record

    def _nobody_climbed(self, host, held_by, check=None):
        """No GPU node reached the incast: a device it would have loaded is not proven, and names the devices whose
        failures stopped every node below (held_by), never an ERROR of its own (nothing of its own failed to read)."""
        check, expect, expected = self._judged_as(host, check)
        said = "no GPU node reached layer 3 to load it (%s)" % (_judge.said_in_the_way(held_by[:8]) or "none in the run")
        record = _engine.result(host, check, self._catalog, expect, SKIP, expected, "not measured: " + said,
                                cause="Not this device: " + said, command="(none)")
        record["held_by"] = held_by
        return record

    def _no_run(self, host, plan, check=None):
        check, expect, expected = self._judged_as(host, check)
        return _engine.result(host, check, self._catalog, expect, ERROR, expected,
                              "incast not planned: %s" % plan["error"], cause="No data: the incast could not be planned: %s" % plan["error"],
                              command="(none)")

    def _judged_as(self, host, check):
        """(check, expectations, expected text) of a node's incast record (incast_ecn, or incast_ib on InfiniBand), or
        of a switch's incast_leaf."""
        if check is self._leaf_check:
            return check, self._switch_expect(host), LEAF_EXPECTED
        expect = self._expect(host)
        if self._own(expect) is self._ib_check:
            return self._ib_check, expect, _ib_judge.expected(expect)
        return self._check, expect, _judge.expected(expect)

    def _judged_infiniband(self, run_dir, plan, hosts):
        """Every node's incast_ib record: each target's own verdict, the others' standing on their leaves' incasts."""
        files, records, outcomes = _run.files(run_dir), {}, []
        reader_expect = self._step.expectations(plan["fabric_reader"], self._catalog, [self._ib_check])
        for index, groups in enumerate(plan["rounds"]):
            for group in groups:
                expect = self._expect(group["target"])
                records[group["target"]], outcome = _ib.judged(files, plan, index, group, self._catalog, self._ib_check, expect, reader_expect)
                outcomes.append((group, outcome))
        by_leaf = _ib.leaf_outcomes(outcomes)
        for host in hosts:
            if host not in records:
                records[host] = _ib.bystander(host, plan, by_leaf, self._ib_check, self._catalog, self._expect(host))
        return records

    def _not_in_incast(self, host, plan, leaf_records):
        """A node in no incast group: its row stands on the incasts that proved its leaves, so it is not applicable
        only where each of its leaves passed one; a leaf that failed, could not be judged or was not in the run leaves
        the row not proven (SKIP, never GO)."""
        expect = self._expect(host)
        if host not in plan["nodes"]:
            return _engine.result(host, self._check, self._catalog, expect, SKIP, "layers 0-3 passed",
                                  "not run: %s did not pass the layers below" % host, command="(none)")
        leaves = (plan.get("node_leaves") or {}).get(host) or []
        unproven = ["%s %s" % (leaf, leaf_records[leaf]["status"]) if leaf in leaf_records else "%s not in this run" % leaf
                    for leaf in leaves if leaf not in leaf_records or leaf_records[leaf]["status"] != PASS]
        if unproven:
            return _engine.result(host, self._check, self._catalog, expect, SKIP, "its leaves proven by an incast that passed",
                                  "not proven: its leaves' incasts did not pass (%s)" % ", ".join(unproven), command="(none)")
        record = _engine.result(host, self._check, self._catalog, expect, SKIP, "an incast on its leaves",
                                "not applicable: its leaves are proven by the targets' incasts (one target per leaf%s)" % (
                                    ": %s passed" % ", ".join(leaves) if leaves else ""), command="(none)")
        record["not_applicable"] = True
        return record

    def _judged(self, run_dir, plan, index, group):
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
        failed = _run.group_failures(_run.files(run_dir), index, group)
        if failed:
            outcome = {"status": ERROR, "cause": None, "msg": "incast at target %s, senders %s: cannot judge: the load did not run as planned: %s" % (
                target, ", ".join(senders), "; ".join(failed))}
        else:
            outcome = JUDGES["incast"][self._check["judge"]](group, expect, switch, nic, plan["duration"], tail)
        if outcome["status"] == ERROR:  # whose own run or read failed: a sender with none is proven again (again)
            outcome["own_errors"] = _own_errors(_run.files(run_dir), index, group, nic)
        records = {target: _judge.record(target, self._check, self._catalog, expect, outcome, _engine)}
        for sender in senders:
            records[sender] = self._sender(sender, target, outcome)
        return records, outcome

    def _sender(self, sender, target, outcome):
        """A sender's own record: FAIL where its DCQCN did not react; PASS where it did (CNPs handled); else
        not measured (the incast failed before any CNP reached the senders): never a PASS it did not show."""
        expect = self._expect(sender)
        command = _engine.commands_of(self._check, self._catalog, expect)
        state = _judge.sender_state(sender, outcome)
        if state == "deaf":
            return _engine.result(sender, self._check, self._catalog, expect, FAIL, _judge.expected(expect), outcome["msg"],
                                  cause=_judge.CAUSES["dcqcn_rp"], command=command)
        if state in ("error", "error_not_own"):
            record = _engine.result(sender, self._check, self._catalog, expect, ERROR, _judge.expected(expect), outcome["msg"],
                                    cause="No data: %s" % outcome["msg"], command=command)
            if state == "error_not_own":  # not its run nor its read: another's (proven again where a target passed)
                record["held_by"] = _judge.standing_in_the_way({"target": target}, outcome)
            return record
        if state == "reacted":
            said = "sent to %s's incast and handled its CNPs (%s%s)" % (
                target, outcome["status"], ": that miss is %s's or its leaf's" % target if outcome["status"] == FAIL else "")
            return _engine.result(sender, self._check, self._catalog, expect, PASS, "its NIC handles CNPs (rp_cnp_handled rises)",
                                  said, command=command)
        return _engine.result(sender, self._check, self._catalog, expect, SKIP, "its NIC handles CNPs (rp_cnp_handled rises)",
                              "not measured: %s's incast failed before CNPs reached the senders (%s)" % (target, ", ".join(outcome["causes"])),
                              command=command)


def _rank(record):
    """A node in several incasts of the planned rounds: its own finding first (FAIL, an ERROR of its own run or read), then
    a PASS, then what another device left unproven (an ERROR of another's, a SKIP: not measured there)."""
    if record["status"] == ERROR:
        return 3 if record.get("held_by") else 1
    return {FAIL: 0, PASS: 2}.get(record["status"], 4)


def _merge(records, judged):
    """Add one incast's records: a node already recorded there (a sender in another round, a target that also sent)
    keeps the record that says more of its own (_rank)."""
    for node, record in judged.items():
        if node not in records or _rank(record) < _rank(records[node]):
            records[node] = record


def _own_errors(run_files, index, group, nic):
    """The nodes of an incast that could not be judged whose own run (a sender's client, the target's servers) or own
    NIC read failed: the others proved nothing of theirs either way."""
    failed = [node for node in group["senders"] if _run.failed_runs(run_files.load(index, node, "clients"))]
    if _run.failed_runs(run_files.load(index, group["target"], "servers")):
        failed.append(group["target"])
    unread = [node for node, rails in sorted(nic.items())
              if any(isinstance(side, str) for sides in rails.values() for side in sides.values())]
    return sorted(set(failed) | set(unread))


def leaf_findings(outcomes, first=None):
    """{leaf: [leaf_finding]} of every port the incasts faced; the outcomes after the ``first`` (the rounds run again)
    give a leaf their FAILs only."""
    by_leaf = {}
    for position, (group, outcome) in enumerate(outcomes):
        for entry in outcome.get("ports") or [dict(port, cause=None, msg=None) for port in group["ports"]]:
            found = leaf_finding(group, outcome, entry)
            if first is None or position < first or found[0] == FAIL:
                by_leaf.setdefault(entry["leaf"], []).append(found)
    return by_leaf


def leaf_finding(group, outcome, entry):
    """(status, actual, cause) of one leaf port under one target's incast (``outcome``: judging/incast.py's verdict,
    ``entry``: one of its ports, with that port's own cause and figures)."""
    where = "%s port %s (target %s)" % (entry["leaf"], entry["port"], group["target"])
    if outcome["status"] == ERROR:
        return ERROR, "%s: not proven: %s" % (where, outcome["msg"]), "No data: the incast that would prove this leaf could not be judged"
    if entry.get("cause") in _judge.LEAF_CAUSES:
        return FAIL, entry["msg"], _judge.CAUSES[entry["cause"]]
    if entry.get("cause") == "no_load":
        return ERROR, "%s: not proven: %s" % (where, entry["msg"]), _judge.CAUSES["no_load"]
    said = entry.get("msg") or where
    if entry.get("cause"):  # the NICs' DCQCN: the leaf marked ECN and held PFC
        said += " (the miss is the NICs': %s)" % entry["cause"]
    return PASS, said, None


def leaf_record(switch, findings, check, catalog, expect):
    """The switch's incast_leaf record from its findings (leaf_finding, any number of targets' incasts): the worst
    status, every finding said; not applicable where it faced no target."""
    if not findings:
        record = _engine.result(switch, check, catalog, expect, SKIP, LEAF_EXPECTED,
                                "not applicable: no incast target behind %s (the incast loads the leaf ports that face "
                                "its targets)" % switch, command="(none)")
        record["not_applicable"] = True
        return record
    findings = sorted(findings, key=lambda item: _ORDER.index(item[0]))
    status = findings[0][0]
    causes = [cause for item_status, _actual, cause in findings if item_status == status and cause]
    return _engine.result(switch, check, catalog, expect, status, LEAF_EXPECTED, "; ".join(actual for _status, actual, _cause in findings),
                          cause="; ".join(dict.fromkeys(causes)) or None, command=_engine.commands_of(check, catalog, expect))
