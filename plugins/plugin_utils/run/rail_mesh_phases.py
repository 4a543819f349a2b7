# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 4's rail mesh, one phase per task (docs/rail-mesh.md; the action plugin gpufabric.pyramid.rail_mesh runs one
phase with an AnsibleStep, run/ansible_step.py; the plan and bookkeeping are run/rail_mesh.py, the rounds
run/rail_rounds.py; who is to blame, the retests that takes and every verdict, judging/rail_rounds.py)."""

from __future__ import annotations

from ..core import catalog as _catalog, results as _results
from ..core.model import PASS, count_statuses
from ..judging import judge_of, rail_rounds as _judged
from . import background as _background, engine as _engine, rail_addresses as _addresses, rail_mesh as _mesh, rail_rounds as _rounds
from .ansible_step import RunError


class RailMeshPhases:
    """A layer's mesh checks for one task: each phase takes the task's result and arguments and returns the result.
    ``step`` is what a phase asks of Ansible (the task's host, the play's groups and forks, expectations, modules,
    reads). ``checks`` is empty where the layer has no mesh check."""

    NAMES = ("plan", "serve", "run", "stop", "judge", "verdict")
    ARGS = frozenset(("phase", "layer", "run_dir", "round", "next_round", "hosts", "references", "as_host"))

    def __init__(self, step, catalog, args):
        self._step, self._catalog, self._layer = step, catalog, int(args.get("layer", 4))
        self.checks = _catalog.checks_at(catalog, self._layer, scopes=("rail_mesh",))
        self._check, self._companion = _mesh.choose(self.checks) if self.checks else (None, None)

    def idle(self, result):
        """Every phase's result where the layer has no mesh check."""
        return None if self.checks else dict(result, rounds=[], retest_rounds=[], msg="layer %d has no mesh checks" % self._layer)

    def _expect(self, host):
        return self._step.expectations(host, self._catalog, [self._check] + ([self._companion] if self._companion else []))

    def plan(self, result, args):
        run_dir, hosts = args["run_dir"], list(args["hosts"])
        docs = {host: _results.load(run_dir, host) for host in hosts}
        expects = {host: self._expect(host) for host in hosts}
        gated = all(expects[host]["pyramid_enforce_gate"] for host in hosts)
        nodes = _mesh.climbing(docs, self._layer, self._check["id"]) if gated else hosts
        # one node in a --limit'ed run (a reimaged node): a node outside the run is its partner, as in
        # the straggler hunt; its tasks are delegated to it. A bad reference can fail the node, never pass it.
        partner = next(iter(args.get("references") or []), None) if len(nodes) == 1 else None
        if partner:
            expects[partner] = self._expect(partner)
        addresses, problems = {}, []
        for node in nodes + ([partner] if partner else []):
            found, problem = _addresses.rail_addresses(node, expects[node])
            if problem and len(nodes) + bool(partner) > 1:  # a lone node pairs with nobody: its addresses are never used
                problems.append("%s: %s" % (node, problem))
            addresses[node] = found or []
        if problems:
            return dict(result, failed=True, msg="rail address plan: %s" % "; ".join(problems))
        reference = expects[nodes[0]] if nodes else expects[hosts[0]] if hosts else None
        planned_nodes = nodes + ([partner] if partner else [])
        rails = reference["pyramid_rails"] if reference else []
        gpudirect = self._companion is not None and reference is not None and reference.get("pyramid_rdma_gpudirect")
        gpus = {node: _mesh.gpus_of(expects[node], rails) for node in planned_nodes} if gpudirect else None
        plan = _mesh.make_plan(self._layer, self._check, planned_nodes, rails, addresses, reference or {},
                               gpus=gpus, companion=self._companion if gpudirect else None)
        plan["left_out"] = [host for host in hosts if host not in nodes]
        plan["reference"] = partner
        _mesh.save_plan(run_dir, plan)
        again = [sum(1 for run in runs if run.get("gpudirect")) for runs in plan["rounds"]]
        round_seconds = plan["expect"].get("pyramid_rdma_duration", 0) * max([_mesh.in_turn(runs) for runs in plan["rounds"]] or [1])
        return dict(result, rounds=list(range(len(plan["rounds"]))), nodes=len(nodes), reference=partner or "", round_seconds=round_seconds,
                    servers=_mesh.source_of(self._check, "server") is not None, msg="layer %d %s mesh: %d nodes, %d rounds of %s runs%s" % (
            self._layer, self._check["id"], len(nodes), len(plan["rounds"]),
            "/".join(str(len(runs) - gpudirect) for runs, gpudirect in zip(plan["rounds"], again)) or "no",
            ", each then again in GPU memory on its rail (%s: %s runs)" % (plan["gpudirect"]["check"], "/".join(map(str, again)))
            if any(again) else ""))

    def _host(self, args):
        """The node this task works for: its own host, or the reference partner it is delegated to."""
        return args.get("as_host") or self._step.host

    def _round(self, args):
        plan = _mesh.load_plan(args["run_dir"], self._layer)
        if plan is None:
            raise RunError("no layer %d rail mesh plan in %s (the plan phase did not run)" % (self._layer, args["run_dir"]))
        return plan, int(args["round"])

    def _background(self, args):
        return _background.Background(self._step, _mesh.files(args["run_dir"], self._layer), "rail-mesh-layer%d" % self._layer,
                                      args["run_dir"])

    def _lifetime(self, plan, expect):
        """How long a server may wait for its client (run/rail_mesh.py server_lifetime): with this run's forks,
        so the waves a pod larger than the forks runs in are counted, and the runs a rail makes in turn. It bounds
        what an interrupted run leaves behind."""
        return _mesh.server_lifetime(len(plan["nodes"]), self._step.forks or 5,
                                     plan["expect"].get("pyramid_rdma_duration", 0),
                                     expect["pyramid_rdma_listen_timeout"], expect["pyramid_command_timeout"],
                                     in_turn=max([_mesh.in_turn(runs) for runs in plan["rounds"]] or [1]))

    def _servers_of(self, args, plan, index, expect):
        """The node's servers of a round (reads), and rail_servers' arguments to start them (nothing to start: None)."""
        host = self._host(args)
        servers = _mesh.planned(plan, index, host, "server", self._catalog, expect, self._check, self._companion)
        if not servers:
            return servers, None
        return servers, self._background(args).start_arguments(host, index, "servers", servers, self._lifetime(plan, expect),
                                                               expect["pyramid_rdma_listen_timeout"])

    @staticmethod
    def _listening(states, not_running):
        said = "; not listening: %s" % ", ".join(not_running) if not_running else ""
        return "%d servers listening%s" % (len(states) - len(not_running), said)

    def serve(self, result, args):
        plan, index = self._round(args)
        host = self._host(args)
        expect = self._expect(host)
        servers = _mesh.planned(plan, index, host, "server", self._catalog, expect, self._check, self._companion)
        if not servers:
            return dict(result, msg="%s serves no run in round %d" % (host, index + 1))
        background = self._background(args)
        states, not_running = background.start(host, index, "servers", servers, self._lifetime(plan, expect), expect["pyramid_rdma_listen_timeout"])
        return dict(result, msg="%s: %s" % (host, self._listening(states, not_running)))

    def run(self, result, args):
        plan, index = self._round(args)
        host = self._host(args)
        expect = self._expect(host)
        clients = _mesh.planned(plan, index, host, "client", self._catalog, expect, self._check, self._companion)
        if not clients:
            return dict(result, msg="%s runs no client in round %d" % (host, index + 1))
        if _mesh.source_of(self._check, "server") is not None:
            # ib_write_bw: start the node's clients of the round in the background and return: every node's clients
            # then run at once whatever the forks, and the round lasts one -D, not one per wave of forks
            # (docs/scale.md). `stop` waits for them to end and keeps their output.
            states, _not_running = self._background(args).start(host, index, "clients", clients, self._lifetime(plan, expect),
                                                                expect["pyramid_rdma_listen_timeout"], wait_for="running")
            return dict(result, msg="%s: %d clients started in round %d" % (host, len(states), index + 1))
        # pings: a few seconds each, run and read in one task, one per rail at a time (a round of pings to both partners
        # runs in two waves: as many pings at once as a round of one partner ran, where 512 at once on a 16-fork
        # controller starved the twin's pings past their timeout)
        timeout = plan["expect"].get("pyramid_rdma_duration", 0) + expect["pyramid_command_timeout"]
        raw, unreachable = self._step.collect(clients, timeout, parallel=max(1, len(plan["rails"])))
        if unreachable:
            raw = _engine.answers(clients, {c["id"]: {"status": "unreachable", "command": " ".join(c["ways"][0]["run"]),
                                                      "msg": "host unreachable: %s" % unreachable} for c in clients})
        _mesh.save_raw(args["run_dir"], self._layer, index, host, "client", raw)
        return dict(result, msg="%s: %d clients run in round %d" % (host, len(clients), index + 1))

    def stop(self, result, args):
        """Wait for the node's background clients to end (their -D and the command timeout at most) and keep their
        output as the round's client reads (a client still running then is killed and reported as hung); then stop
        the node's servers (a server ends when its client is done) and keep theirs; then, with ``next_round``, start
        the node's servers of that round (what `serve` does). One module run for all of it: one SSH round trip per
        node and round, not two."""
        plan, index = self._round(args)
        host = self._host(args)
        expect = self._expect(host)
        background = self._background(args)
        following = None if args.get("next_round") in (None, "") else int(args["next_round"])
        next_servers, start = self._servers_of(args, plan, following, expect) if following is not None else ([], None)
        duration = plan["expect"].get("pyramid_rdma_duration", 0) * _mesh.in_turn(plan["rounds"][index])
        waited = duration + expect["pyramid_command_timeout"]
        ended, answer = background.stop(host, index, {"clients": waited, "servers": 5}, then_start=start)
        if answer is None:
            return dict(result, msg="%s had no server and no client in round %d" % (host, index + 1))
        lost = answer.get("msg")
        said = []
        if start:
            states, not_running = background.keep_started(host, following, "servers", next_servers, answer.get("then_started"),
                                                          lost or "rail_servers failed")
            said.append("round %d: %s" % (following + 1, self._listening(states, not_running)))
        clients = ended.get("clients")
        if clients:
            _mesh.save_raw(args["run_dir"], self._layer, index, host, "client",
                           _background.client_reads(clients[0], clients[1], lost or "client output lost", duration, waited))
        if "servers" not in ended:
            return dict(result, msg="; ".join(["%s had no server in round %d; %d clients ended" % (
                host, index + 1, len(clients[0]) if clients else 0)] + said))
        raw = _background.server_reads(ended["servers"][0], ended["servers"][1], lost or "server output lost")
        _mesh.save_raw(args["run_dir"], self._layer, index, host, "server", raw)
        return dict(result, msg="; ".join(["%s: %d clients ended, %d servers stopped" % (
            host, len(clients[0]) if clients else 0, len(raw))] + said))

    def _measured(self, plan, args):
        return _mesh.measured(args["run_dir"], plan, self._check, judge_of(self._check), self._expect)

    def _gpudirect(self, plan, args, host_runs):
        """The companion's records (GPUDirect against host memory), one per planned node: placed as the
        host-memory misses are (judging/rail_rounds.py blame), or SKIP not applicable where it did not run."""
        companion = self._companion
        runs = _mesh.measured_gpudirect(args["run_dir"], plan, companion, judge_of(companion),
                                        self._expect, host_runs)
        records = _mesh.records(companion, self._catalog, plan, _judged.blame(runs), self._expect, runs)
        for node in plan["nodes"]:
            if node not in records:
                records[node] = _mesh.gpudirect_not_run(companion, self._catalog, plan, node, self._expect(node),
                                                        switched_off="gpudirect" not in plan)
        return records

    def judge(self, result, args):
        plan = _mesh.load_plan(args["run_dir"], self._layer)
        runs = self._measured(plan, args)
        retests = _judged.plan_retests(runs)
        first = len(plan["rounds"])
        for batch in retests:
            plan["rounds"].append([run for node, partner, rail in batch
                                   for run in _rounds.runs_of([(node, partner)], [rail])])
        _mesh.save_plan(args["run_dir"], plan)
        return dict(result, retest_rounds=list(range(first, len(plan["rounds"]))),
                    msg="rail mesh: %d runs judged, %d missed; %d retest rounds with known-good partners" % (
                        len(runs), len(runs) - count_statuses(runs)[PASS], len(retests)))

    def verdict(self, result, args):
        run_dir = args["run_dir"]
        plan = _mesh.load_plan(run_dir, self._layer)
        hosts = list(args["hosts"])
        runs = self._measured(plan, args)
        verdicts = _judged.blame(runs)
        records = _mesh.records(self._check, self._catalog, plan, verdicts, self._expect, runs)
        docs = {host: _results.load(run_dir, host) for host in hosts}
        records = {host: record for host, record in records.items() if host in hosts}  # not the reference's
        companion = self._companion
        extra = {host: record for host, record in self._gpudirect(plan, args, runs).items() if host in hosts} if companion else {}
        if len(plan["nodes"]) == 1:  # nobody to run with: not applicable on a lone box, else a gap (never a PASS)
            node = plan["nodes"][0]
            alone = len(hosts) == 1 and not args.get("references")
            records = {node: _mesh.lone(self._check, self._catalog, node, self._expect(node), alone=alone)}
            extra = {node: _mesh.lone(companion, self._catalog, node, self._expect(node), alone=alone)} if companion else {}
        records.update(_mesh.left_out(docs, list(records), self._check, self._catalog, self._expect))
        if companion:
            extra.update(_mesh.left_out(docs, list(extra), companion, self._catalog, self._expect))
        records = {host: record for host, record in records.items() if host in docs}
        _results.record_each(run_dir, [found for host, record in records.items() for found in [record] + ([extra[host]] if host in extra else [])])
        counts = {status: count for status, count in count_statuses(records.values()).items() if count}  # the check's, not its companion's
        return dict(result, counts=counts, msg="layer %d %s: %s" % (self._layer, self._check["id"], ", ".join(
            "%d %s" % (n, s) for s, n in sorted(counts.items()))))
