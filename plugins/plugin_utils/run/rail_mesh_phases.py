# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 4's rail mesh, one phase per task (docs/rail-mesh.md; the action plugin gpufabric.pyramid.rail_mesh runs one
phase with an AnsibleStep, run/ansible_step.py; the plan and bookkeeping are run/rail_mesh.py, the rounds and the
blame run/rail_rounds.py)."""

from __future__ import annotations

import hashlib
import re

from ..core import catalog as _catalog, results as _results
from ..judging import JUDGES
from . import rail_mesh as _mesh, rail_rounds as _rounds
from .ansible_step import RunError

SERVERS = "gpufabric.pyramid.rail_servers"
PHASES = ("plan", "serve", "run", "stop", "judge", "verdict")


class RailMeshPhases:
    """A layer's mesh checks for one task: each phase takes the task's result and arguments and returns the result.
    ``step`` is what a phase asks of Ansible (the task's host, the play's groups and forks, expectations, modules,
    reads). ``checks`` is empty where the layer has no mesh check."""

    def __init__(self, step, catalog, layer):
        self._step, self._catalog, self._layer = step, catalog, layer
        self.checks = _catalog.checks_at(catalog, layer, scopes=("mesh",))
        self._check, self._companion = self.choose(self.checks) if self.checks else (None, None)

    @staticmethod
    def choose(checks):
        """The check that plans the rounds, and a companion judged against its runs (a judge with a
        `baseline`: Layer 4's GPUDirect run against the host-memory run), which runs rounds of its own."""
        primary = [c for c in checks if not getattr(JUDGES["mesh"].get(c["judge"]), "baseline", None)] or checks
        return primary[0], next((c for c in checks if c is not primary[0]), None)

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
        order = self._step.groups.get("gpu_nodes") or hosts
        addresses, problems = {}, []
        for node in nodes + ([partner] if partner else []):
            found, problem = _mesh.rail_addresses(order.index(node) + 1 if node in order else 0, expects[node])
            if problem:
                problems.append("%s: %s" % (node, problem))
            addresses[node] = found
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
        again = len(plan.get("gpudirect", {}).get("rounds", []))
        return dict(result, rounds=list(range(len(plan["rounds"]))), nodes=len(nodes), reference=partner or "",
                    servers=_mesh.source_of(self._check, "server") is not None, msg="layer %d %s mesh: %d nodes, %d rounds of %s runs%s" % (
            self._layer, self._check["id"], len(nodes), len(plan["rounds"]) - again,
            "/".join(str(len(r)) for r in plan["rounds"][:len(plan["rounds"]) - again]) or "no",
            ", then %d GPUDirect rounds (%s)" % (again, plan["gpudirect"]["check"]) if again else ""))

    def _host(self, args):
        """The node this task works for: its own host, or the reference partner it is delegated to."""
        return args.get("as_host") or self._step.host

    def _round(self, args):
        plan = _mesh.load_plan(args["run_dir"], self._layer)
        if plan is None:
            raise RunError("no layer %d rail mesh plan in %s (the plan phase did not run)" % (self._layer, args["run_dir"]))
        return plan, int(args["round"])

    def _workdir(self, args, index, side="servers"):
        """Where a node's servers (or background clients) of one round keep their output (same for serve or run
        and stop; named for the node too, so nodes that share a /tmp never stop each other's runs)."""
        return "/tmp/pyramid-rail-mesh-%s-layer%d-round%d-%s%s" % (
            hashlib.sha1(args["run_dir"].encode()).hexdigest()[:10], self._layer, index + 1,
            re.sub(r"[^\w.-]", "_", self._host(args)), "" if side == "servers" else "-" + side)

    def _lifetime(self, plan, expect):
        """How long a server may wait for its client (run/rail_mesh.py server_lifetime): with this run's forks,
        so the waves a pod larger than the forks runs in are counted. It bounds what an interrupted run
        leaves behind."""
        return _mesh.server_lifetime(len(plan["nodes"]), self._step.forks or 5,
                                     plan["expect"].get("pyramid_rdma_duration", 0),
                                     expect["pyramid_rdma_listen_timeout"], expect["pyramid_command_timeout"])

    def _servers_of(self, args, plan, index, expect):
        """The node's servers of a round, and rail_servers' arguments to start them (nothing to start: None)."""
        servers = _mesh.planned(plan, index, self._host(args), "server", self._catalog, expect, self._check, self._companion)
        if not servers:
            return servers, None
        return servers, {"workdir": self._workdir(args, index), "lifetime": self._lifetime(plan, expect),
                         "listen_timeout": expect["pyramid_rdma_listen_timeout"],
                         "servers": [{"id": s["id"], "argv": s["ways"][0]["run"]} for s in servers]}

    def _keep_started(self, args, index, servers, states, lost):
        """Keep what the start of a round's servers said (`stop` reads it); a module run that failed says so for each."""
        host = self._host(args)
        states = states or {
            s["id"]: {"status": "failed", "command": " ".join(s["ways"][0]["run"]), "msg": lost} for s in servers}
        _mesh.save_raw(args["run_dir"], self._layer, index, host, "server_start", states)
        failed = sorted(sid for sid, state in states.items() if state.get("status") != "listening")
        said = "; not listening: %s" % ", ".join(failed) if failed else ""
        return "%d servers listening%s" % (len(states) - len(failed), said)

    def serve(self, result, args):
        plan, index = self._round(args)
        host = self._host(args)
        servers, start = self._servers_of(args, plan, index, self._expect(host))
        if not start:
            return dict(result, msg="%s serves no run in round %d" % (host, index + 1))
        answer = self._step.execute(SERVERS, dict(start, state="started"))
        said = self._keep_started(args, index, servers, answer.get("servers"), answer.get("msg") or "rail_servers failed")
        return dict(result, msg="%s: %s" % (host, said))

    def run(self, result, args):
        plan, index = self._round(args)
        host = self._host(args)
        expect = self._expect(host)
        clients = _mesh.planned(plan, index, host, "client", self._catalog, expect, self._check, self._companion)
        if not clients:
            return dict(result, msg="%s runs no client in round %d" % (host, index + 1))
        if _mesh.source_of(self._check, "server") is not None:
            return self._fire(result, args, plan, index, clients, expect)
        # pings: a few seconds each, run and read in one task
        timeout = plan["expect"].get("pyramid_rdma_duration", 0) + expect["pyramid_command_timeout"]
        raw, unreachable = self._step.collect(clients, timeout, parallel=len(clients))
        if unreachable:
            raw = {c["id"]: {"status": "unreachable", "command": " ".join(c["ways"][0]["run"]),
                             "msg": "host unreachable: %s" % unreachable} for c in clients}
        _mesh.save_raw(args["run_dir"], self._layer, index, host, "client", raw)
        return dict(result, msg="%s: %d clients run in round %d" % (host, len(clients), index + 1))

    def _fire(self, result, args, plan, index, clients, expect):
        """Start the node's ib_write_bw clients of the round in the background and return: every node's
        clients then run at once whatever the forks, and the round lasts one -D, not one per wave of forks
        (docs/scale.md). `stop` waits for them to end and keeps their output."""
        host = self._host(args)
        answer = self._step.execute(SERVERS, {
            "state": "started", "workdir": self._workdir(args, index, "clients"), "lifetime": self._lifetime(plan, expect),
            "listen_timeout": expect["pyramid_rdma_listen_timeout"], "wait_for": "running",
            "servers": [{"id": c["id"], "argv": c["ways"][0]["run"]} for c in clients]})
        lost = answer.get("msg") or "rail_servers failed"
        states = answer.get("servers") or {
            c["id"]: {"status": "failed", "command": " ".join(c["ways"][0]["run"]), "msg": lost} for c in clients}
        _mesh.save_raw(args["run_dir"], self._layer, index, host, "client_start", states)
        return dict(result, msg="%s: %d clients started in round %d" % (host, len(states), index + 1))

    def stop(self, result, args):
        """Wait for the node's background clients to end (their -D and the command timeout at most) and keep their
        output as the round's client reads (a client still running then is killed and reported as hung); then stop
        the node's servers (a server ends when its client is done) and keep theirs; then, with ``next_round``, start
        the node's servers of that round (what `serve` does). One module run for all of it: one SSH round trip per
        node and round, not two."""
        plan, index = self._round(args)
        host = self._host(args)
        clients_started = _mesh.load_raw(args["run_dir"], self._layer, index, host, "client_start")
        servers_started = _mesh.load_raw(args["run_dir"], self._layer, index, host, "server_start")
        following = None if args.get("next_round") in (None, "") else int(args["next_round"])
        next_servers, start = self._servers_of(args, plan, following, self._expect(host)) if following is not None else ([], None)
        duration = plan["expect"].get("pyramid_rdma_duration", 0)
        steps = []
        if clients_started:
            steps.append({"workdir": self._workdir(args, index, "clients"),
                          "grace": duration + self._expect(host)["pyramid_command_timeout"]})
        if servers_started:
            steps.append({"workdir": self._workdir(args, index), "grace": 5})
        if not steps and not start:
            return dict(result, msg="%s had no server and no client in round %d" % (host, index + 1))
        module_args = dict(steps[0], state="stopped", and_then=steps[1:]) if steps else {
            "state": "stopped", "workdir": self._workdir(args, index)}  # nothing of this round here: an empty stop
        if start:
            module_args["then_start"] = start
        answer = self._step.execute(SERVERS, module_args)
        lost = answer.get("msg")
        said = []
        if start:
            said.append("round %d: %s" % (following + 1, self._keep_started(
                args, following, next_servers, answer.get("then_started"), lost or "rail_servers failed")))
        ended = [answer.get("servers") or {}] + list(answer.get("and_then") or [])
        ended += [{}] * (len(steps) - len(ended))  # a module run that failed returns neither
        if clients_started:
            raw = _mesh.client_reads(clients_started, ended.pop(0), lost or "client output lost",
                                     duration, duration + self._expect(host)["pyramid_command_timeout"])
            _mesh.save_raw(args["run_dir"], self._layer, index, host, "client", raw)
        if not servers_started:
            return dict(result, msg="; ".join(["%s had no server in round %d; %d clients ended" % (
                host, index + 1, len(clients_started or {}))] + said))
        ended_servers = ended.pop(0)
        raw = {}
        for sid, state in servers_started.items():  # a server that never listened keeps what its start said
            raw[sid] = state if state.get("status") != "listening" else ended_servers.get(
                sid, {"status": "failed", "command": state.get("command"), "msg": lost or "server output lost"})
        _mesh.save_raw(args["run_dir"], self._layer, index, host, "server", raw)
        return dict(result, msg="; ".join(["%s: %d clients ended, %d servers stopped" % (
            host, len(clients_started or {}), len(raw))] + said))

    def _measured(self, plan, args):
        return _mesh.measured(args["run_dir"], plan, self._check, self._catalog, JUDGES["mesh"][self._check["judge"]], self._expect)

    def _gpudirect(self, plan, args, host_runs):
        """The companion's records (GPUDirect against host memory), one per planned node: placed as the
        host-memory misses are (rail_rounds.blame), or SKIP not applicable where it did not run."""
        companion = self._companion
        runs = _mesh.measured_gpudirect(args["run_dir"], plan, companion, self._catalog, JUDGES["mesh"][companion["judge"]],
                                        self._expect, host_runs)
        records = _mesh.records(companion, self._catalog, plan, _rounds.blame(runs), self._expect, runs)
        for node in plan["nodes"]:
            if node not in records:
                records[node] = _mesh.gpudirect_not_run(companion, self._catalog, plan, node, self._expect(node),
                                                        switched_off="gpudirect" not in plan)
        return records

    def judge(self, result, args):
        plan = _mesh.load_plan(args["run_dir"], self._layer)
        runs = self._measured(plan, args)
        retests = _rounds.plan_retests(runs)
        first = len(plan["rounds"])
        for batch in retests:
            plan["rounds"].append([run for node, partner, rail in batch
                                   for run in _rounds.runs_of([(node, partner)], [rail])])
        _mesh.save_plan(args["run_dir"], plan)
        return dict(result, retest_rounds=list(range(first, len(plan["rounds"]))),
                    msg="rail mesh: %d runs judged, %d missed; %d retest rounds with known-good partners" % (
                        len(runs), sum(1 for r in runs if r["status"] != "PASS"), len(retests)))

    def verdict(self, result, args):
        run_dir = args["run_dir"]
        plan = _mesh.load_plan(run_dir, self._layer)
        hosts = list(args["hosts"])
        runs = self._measured(plan, args)
        verdicts = _rounds.blame(runs)
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
        counts = {}
        for host, record in records.items():
            if host in docs:
                _results.record(docs[host], [record] + ([extra[host]] if host in extra else []))
                _results.save(run_dir, docs[host])
                counts[record["status"]] = counts.get(record["status"], 0) + 1
        return dict(result, counts=counts, msg="layer %d %s: %s" % (self._layer, self._check["id"], ", ".join(
            "%d %s" % (n, s) for s, n in sorted(counts.items()))))
