# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 4's bookkeeping: the mesh's plan in the run directory, each run's command, port and
addresses, the raw outputs of servers and clients, each run judged, and the verdicts recorded as one result per node.

The rounds (who runs with whom) are rail_rounds.py; who is to blame, and each node's verdict, judging/rail_rounds.py
decides. The phases (rail_mesh_phases.py, run by the action plugin rail_mesh one per task) start servers, run clients
and stop servers on each host, so Ansible's linear strategy starts every server of a round before any client.
"""

from __future__ import annotations

import os

from . import background as _background, engine as _engine, tiers as _tiers
from ..core import catalog as _catalog, results as _results
from ..core.model import ERROR, PASS, SourceFailure, named
from ..judging import judge_of, rail_rounds as _judged
from . import rail_rounds as _rounds


def mesh_dir(run_dir, layer):
    return os.path.join(run_dir, "mesh", "layer%d" % layer)


def server_lifetime(nodes, forks, duration, listen_timeout, command_timeout, in_turn=1):
    """How long a server of a round may wait for its client before coreutils timeout ends it: the serve, run
    (the clients start in the background) and stop phases across the pod, each in waves of forks, the runs'
    ``duration`` (``in_turn`` runs one after the other on a rail: a GPUDirect server waits out the host-memory run
    before its own), the listen wait and twice the client's command timeout. A round after the first starts its
    servers in the stop of the round before (rail_servers' then_start), so a server started in the first wave
    also waits out the later waves of that stop, each as long as a hung client's runs and command
    timeout. Ansible's waves are what grows with the pod: at 512 nodes and 16 forks each phase is 32 waves
    (forks that cover the GPU nodes, as the pre-flight advises, make one)."""
    wave_count = _background.waves(nodes, forks)
    runs = in_turn * duration
    return 3 * wave_count * _background.TASK_SLACK_SECONDS + wave_count * (runs + command_timeout) + runs + listen_timeout + 2 * command_timeout


def files(run_dir, layer):
    """The mesh's run files (run/background.py RunFiles): its plan, and each node's starts, ends and reads per round."""
    return _background.RunFiles(mesh_dir(run_dir, layer))


def load_plan(run_dir, layer):
    return files(run_dir, layer).load_plan()


def save_plan(run_dir, plan):
    files(run_dir, plan["layer"]).save_plan(plan)


def climbing(docs, layer, check_id):
    """Nodes that passed every layer below ``layer``, and this layer so far (a switch in their path that
    failed it blocks them), in inventory order: the gate of every run across devices (core/results.climbs)."""
    return [host for host, doc in docs.items() if _results.climbs(doc["results"], layer, {check_id})]


# The settings every run of a round shares (client and server must agree): the first planned node's.
SHARED = ("pyramid_rdma_message_size", "pyramid_rdma_duration", "pyramid_rdma_gid_index", "pyramid_rdma_link_layer",
          "pyramid_rdma_port_base", "pyramid_ping_count", "pyramid_rails", "pyramid_rdma_gpudirect_dmabuf")


def gpus_of(expect, rails):
    """The GPU nearest each rail of a node (--use_cuda=<index>), None where it has none: its own
    pyramid_rdma_gpudirect_gpus (a negative index: none), else GPU i for rail i among its
    pyramid_gpus_per_node GPUs (the layout Layer 0's gpu_nic_affinity holds it to)."""
    own = expect.get("pyramid_rdma_gpudirect_gpus") or []
    if own:
        return [own[rail] if rail < len(own) and own[rail] >= 0 else None for rail in range(len(rails))]
    count = expect.get("pyramid_gpus_per_node", 0)
    return [rail if rail < count else None for rail in range(len(rails))]


# A GPUDirect server listens this far above its rail's host-memory server (both listen through the round); the
# incast's ports sit above both (run/incast_reads.py PORT_OFFSET).
GPUDIRECT_PORT_OFFSET = 50


def gpudirect_runs(runs, gpus):
    """A round's GPUDirect runs: each of its runs again with the buffer in the GPU nearest its rail at both ends, for
    the runs whose two nodes have one there (so each has its host-memory twin, which it runs right after)."""
    return [dict(run, gpudirect=True) for run in runs
            if gpus[run["server"]][run["rail"]] is not None and gpus[run["client"]][run["rail"]] is not None]


def make_plan(layer, check, nodes, rails, addresses, expect, gpus=None, companion=None):
    """The plan: nodes, rails, addresses and the first two rounds (every run of each); with a companion
    check (rdma_gpudirect_bw) and each node's GPU per rail, each round's runs again in GPU memory, in the same round:
    on each rail the GPUDirect run follows its host-memory twin (never beside it), so a round costs each node no
    module run more (they were rounds of their own, four module runs per node more). A check whose runs need no server
    (Layer 2's pings) runs both rounds' runs as one: a ping loads nothing, so a node pings both partners at once, in
    one module run where two rounds took two."""
    rounds = [_rounds.runs_of(pairs, list(range(len(rails)))) for pairs in _rounds.plan_rounds(nodes)]
    if rounds and source_of(check, "server") is None:
        rounds = [[run for runs in rounds for run in runs]]
    plan = {"layer": layer, "check": check["id"], "nodes": nodes, "rails": list(rails), "addresses": addresses,
            "rounds": rounds, "expect": {name: expect[name] for name in SHARED if name in expect}}
    if companion is not None and gpus is not None:
        plan["gpudirect"] = {"check": companion["id"], "gpus": gpus}
        plan["rounds"] = [runs + gpudirect_runs(runs, gpus) for runs in rounds]
    return plan


def in_turn(runs):
    """How many runs a rail of this round runs one after the other: 2 where GPUDirect runs follow host memory's."""
    return 2 if any(run.get("gpudirect") for run in runs) else 1


def port_of(run, base):
    """Rail i's server listens on ``base`` + i (its GPUDirect server on ``base`` + GPUDIRECT_PORT_OFFSET + i): a node
    serves one run per rail in a round, and a retest on a rail meets the same port (a stale server holding it is found
    again, not dodged)."""
    return base + run["rail"] + (GPUDIRECT_PORT_OFFSET if run.get("gpudirect") else 0)


def run_id(run):
    return "%s>%s@%d%s" % (run["client"], run["server"], run["rail"], ".gdr" if run.get("gpudirect") else "")


def host_memory_twin(run):
    """The host-memory run a GPUDirect run follows on its rail."""
    return {key: value for key, value in run.items() if key != "gpudirect"}


def choose(checks):
    """The check of a layer's mesh that plans the rounds, and a companion judged against its runs (a judge with a
    `baseline`: Layer 4's GPUDirect run against the host-memory run), which runs rounds of its own."""
    primary = [c for c in checks if not getattr(judge_of(c), "baseline", None)] or checks
    return primary[0], next((c for c in checks if c is not primary[0]), None)


def source_of(check, side):
    """The check's client source (judged) or server source (None when its runs need no server)."""
    sources = check["sources"]
    return sources[0] if side == "client" else (sources[1] if len(sources) > 1 else None)


def planned(plan, round_index, host, side, catalog, expect, check, companion=None):
    """The reads (engine.reads: id, ways, each way's parser) of ``host``'s servers or clients in a round (a GPUDirect
    run's from the companion check's sources, with this host's GPU nearest each rail; its client ``after`` the
    host-memory client of its rail)."""
    items = []
    for run in (run for run in plan["rounds"][round_index] if run[side] == host):
        name = source_of(companion if run.get("gpudirect") else check, side)
        if name is None:
            continue
        group = {"device": plan["rails"][run["rail"]], "server": plan["addresses"][run["server"]][run["rail"]],
                 "source": plan["addresses"][run["client"]][run["rail"]],
                 "port": port_of(run, plan["expect"].get("pyramid_rdma_port_base", 0))}
        if run.get("gpudirect"):
            group["gpu"] = plan["gpudirect"]["gpus"][host][run["rail"]]
        item = _engine.reads([name], {"sources": {name: catalog["sources"][name]}}, dict(expect, **plan["expect"]), group=group)[0]
        item = dict(item, id=run_id(run))
        if run.get("gpudirect") and side == "client":  # after its host-memory twin on the rail, never beside it
            item["after"] = run_id(host_memory_twin(run))
        items.append(item)
    return items


def save_raw(run_dir, layer, round_index, host, side, raw):
    files(run_dir, layer).save(round_index, host, side, raw)


def load_raw(run_dir, layer, round_index, host, side):
    return files(run_dir, layer).load(round_index, host, side)


def measured(run_dir, plan, check, judge, expect_of):
    """Every run of the judged rounds with its status, Gb/s and what was seen (for judging/rail_rounds.py blame)."""
    runs, layer = [], plan["layer"]
    for index, round_runs in enumerate(plan["rounds"]):
        for run in round_runs:
            if run.get("gpudirect"):
                continue  # judged against these runs by measured_gpudirect
            rid = run_id(run)
            client = (load_raw(run_dir, layer, index, run["client"], "client") or {}).get(rid)
            server = (load_raw(run_dir, layer, index, run["server"], "server") or {}).get(rid)
            expect = dict(expect_of(run["client"]), **plan["expect"])
            facts = _engine.parse_one(client)
            if isinstance(facts, SourceFailure) and server and server.get("status") in ("failed", "killed"):
                facts = SourceFailure(server.get("command", "?"), "server: %s; client: %s" % (server.get("msg"), facts.reason))
            outcome = _engine.run_judge(check, judge, facts, expect)
            runs.append(dict(run, status=outcome["status"], gbps=outcome.get("gbps"), rtt_ms=outcome.get("rtt_ms"),
                             loss_percent=outcome.get("loss_percent"),
                             actual=outcome["actual"] if outcome["status"] == ERROR or outcome.get("gbps") is None else None,
                             finding=outcome.get("cause_key"), command=(client or {}).get("command")))
    relative = getattr(judge, "relative", None)  # a judge that also compares each run with the pod's
    if relative and runs:
        runs = relative(runs, dict(expect_of(runs[0]["client"]), **plan["expect"]))
    return runs


def measured_gpudirect(run_dir, plan, companion, judge, expect_of, host_runs):
    """Every GPUDirect run, judged against the host-memory run of the same pair, rail and direction
    (``host_runs``: measured()'s runs), in measured()'s shape."""
    twins = {(run["server"], run["client"], run["rail"]): run for run in host_runs}
    runs, layer = [], plan["layer"]
    for index, round_runs in enumerate(plan["rounds"]):
        for run in (run for run in round_runs if run.get("gpudirect")):
            rid = run_id(run)
            client = (load_raw(run_dir, layer, index, run["client"], "client") or {}).get(rid)
            server = (load_raw(run_dir, layer, index, run["server"], "server") or {}).get(rid)
            expect = dict(expect_of(run["client"]), **plan["expect"])
            facts = _engine.parse_one(client)
            if isinstance(facts, SourceFailure) and server and server.get("status") in ("failed", "killed"):
                facts = SourceFailure(server.get("command", "?"), "server: %s; client: %s" % (server.get("msg"), facts.reason),
                                      output="%s\n%s" % (server.get("stdout") or "", facts.output or ""))
            twin = twins.get((run["server"], run["client"], run["rail"])) or {}
            if twin.get("status") not in (None, PASS):
                # that pair's host-memory run missed: rdma_write_bw's finding. A GPUDirect run against a failed
                # or slow baseline proves nothing either way (a partner's slow rail would hide a slow GPU path)
                continue
            if not isinstance(facts, SourceFailure):
                facts = dict(facts, host_memory={"gbps": twin.get("gbps"), "said": twin.get("actual") or twin.get("status")})
            outcome = _engine.run_judge(companion, judge, facts, expect)
            runs.append(dict({key: run[key] for key in ("server", "client", "rail")}, status=outcome["status"],
                             gbps=outcome.get("gbps"), note=outcome.get("note"), finding=None,
                             actual=outcome["actual"] if outcome.get("gbps") is None else None,
                             command=(client or {}).get("command")))
    return runs


def gpudirect_not_run(check, catalog, plan, node, expect, switched_off):
    """The record of a node with no GPUDirect run judged (judging/rail_rounds.py gpudirect_not_compared says why)."""
    return _engine.record_of(node, check, catalog, expect, _judged.gpudirect_not_compared(plan, node, switched_off))


def records(check, catalog, plan, verdicts, expect_of, runs=()):
    """One result per node, as judging/rail_rounds.py node_verdicts decides it from blame()'s ``verdicts``."""
    return {node: _engine.record_of(node, check, catalog, expect_of(node), outcome)
            for node, outcome in _judged.node_verdicts(check, plan["rails"], verdicts, expect_of, runs).items()}


def left_out(docs, nodes, check, catalog, expect_of):
    """The records of the nodes outside ``nodes`` that stopped below the check's layer, or were blocked at it by a
    switch (judging/rail_rounds.py left_below)."""
    return {host: _engine.record_of(host, check, catalog, expect_of(host), _judged.left_below(doc["results"], check))
            for host, doc in docs.items() if host not in nodes}


def lone(check, catalog, node, expect, alone):
    """The record of the only node that reached the check's layer: no partner to run with (judging/rail_rounds.py
    no_partner: not applicable on a lone GPU box, else a gap, never a PASS)."""
    return _engine.record_of(node, check, catalog, expect, _judged.no_partner(check, node, alone))


def plan_sections(pod):
    """The plan's sections of the rail mesh (catalog/kinds.yml planned_by; run/plan.py): one per layer it runs at
    (2: pings, 4: ib_write_bw), its pairs by round from the run's own planner (rail_rounds.plan_rounds), how the rounds
    run and for how long. A layer's pairs are its primary check's, as the runner chooses it (choose: Layer 4's GPUDirect
    companion runs the same pairs, after the host memory's)."""
    layers = sorted({check["layer"] for check in pod.checks})
    sections = [_layer_plan(pod, *choose([check for check in pod.checks if check["layer"] == layer])) for layer in layers]
    if sections and sections[0]["rounds"] and not pod.alone:  # the same pairs at every layer: their tiers said once
        pairs = [pair for entry in sections[0]["rounds"] for pair in entry["pairs"]]
        sections[0]["tiers"] = {"layers %s (rail mesh)" % " and ".join(map(str, layers)): _tiers.crossed(pod.units, pairs)["text"]}
    return sections


def _layer_plan(pod, check, companion):
    section = {"layer": check["layer"], "title": "The rail mesh, layer %d (%s)" % (check["layer"], check["id"]),
               "check": check["id"], "rounds": []}
    if not pod.nodes:
        return dict(section, note="no GPU node", load="none: no GPU node")
    first = pod.first
    rails = list(first.get("pyramid_rails") or [])
    rounds = [[list(pair) for pair in pairs] for pairs in _rounds.plan_rounds(pod.nodes)]
    if len(pod.nodes) < 2:
        note = "one GPU node: no partner in this run (a mesh needs two nodes)"
        return dict(section, rails=rails, runs=0, note=note, load="none: %s" % note)
    runs = sum(len(pairs) for pairs in rounds) * 2 * len(rails)
    section.update(rails=rails, runs=runs, rounds=[
        {"round": index, "what": "%d pairs: %s" % (len(pairs), named(["%s <-> %s" % tuple(pair) for pair in pairs])), "pairs": pairs}
        for index, pairs in enumerate(rounds, 1)])
    loads = [load for layer_check in pod.checks if layer_check["layer"] == check["layer"]
             for load in _catalog.load_of(layer_check, pod.catalog, first)]
    if source_of(check, "server") is None:  # pings: every node at once, no server, no load
        how = ("every node pings both partners on every rail at once (%d pings each): one module run per node, no "
               "load" % first["pyramid_ping_count"])
        return dict(section, how="%s. %d runs on %d rails." % (how[0].upper() + how[1:], runs, len(rails)), load="pings: %s" % how,
                    seconds={"about": first["pyramid_ping_count"]}, timed="the ping mesh")
    # a companion (GPUDirect) runs each pair again where the run's settings let it, as the runner plans it
    in_turn = 2 if companion and first.get("pyramid_rdma_gpudirect") and any(gpu is not None for gpu in gpus_of(first, rails)) else 1
    duration = first["pyramid_rdma_duration"]
    how = ("round after round; in a round every pair runs both ways on every rail at once, %d s each run%s; a miss that two "
           "partners cannot place is retested with a known-good partner (at most 4 more rounds)" % (
               duration, ", then again in GPU memory (GPUDirect)" if in_turn == 2 else ""))
    return dict(section, how="%s. %d runs on %d rails." % (how[0].upper() + how[1:], runs, len(rails)),
                load="%s: %d runs in %d round(s)" % ("; ".join(dict.fromkeys(loads)), runs, len(rounds)),
                seconds={"about": len(rounds) * in_turn * duration}, timed="the ib_write_bw mesh")
