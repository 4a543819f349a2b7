# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan of a validation run, made before any device is touched (playbooks/plan.yml, issue 37).

From the inventory and the catalog alone: per layer and device the checks that apply (and why the others do not), the
commands each reads with, the load it puts on the fabric or the GPUs; the rail mesh's pairs, Layer 5's rounds, the
incast's targets and senders, each from the planner the run itself uses (rail_rounds, fabric_rounds, incast_reads), and
how long each layer's load lasts where the inventory says (the soak, ib_write_bw's and the incast's durations) or at
most (a timeout). It is the run in which every device passes the layers below: a device that fails one is not climbed
past it and drops out of the rounds above, so the real rounds can only be smaller.
"""

from __future__ import annotations

from ..core import catalog as _catalog
from . import background as _background
from . import engine as _engine
from . import fabric_rounds as _fabric_rounds
from . import incast_plan as _incast_plan
from . import incast_reads as _incast_reads
from . import link as _link
from . import rail_mesh as _mesh
from . import rail_rounds as _rail_rounds
from . import tiers as _tiers

LAYERS = tuple(range(8))
DEVICES = ("gpu_node", "switch")


def readers(groups, hosts, catalog):
    """{group: the host that reads its `read_on` sources for the pod}: its first host in the run, or the first GPU node
    where the inventory has no such group (run/pod.py reader, before any layer has blocked one). The groups are the
    catalog's sources' `read_on`."""
    found = {}
    for group in dict.fromkeys(source["read_on"] for source in catalog["sources"].values() if source.get("read_on")):
        found[group] = next((host for host in list(groups.get(group) or groups.get("gpu_nodes") or []) if host in hosts), None)
    return found


def alone_in(nodes, groups):
    """The one GPU node of a run that names no other anywhere (gpu_nodes outside a --limit are the run's references, as
    roles/layer passes them to the straggler hunt and the rail mesh), else None."""
    references = [host for host in groups.get("gpu_nodes") or [] if host not in nodes]
    return nodes[0] if len(nodes) == 1 and not references else None


def commands(check, catalog, expect):
    """The commands of a check as the device will try them: a source with several ways names each in order (nccl-tests'
    binary, else the built-in benchmark), since the node runs the first that answers."""
    found = []
    for name in check["sources"]:
        ways = _engine.planned_ways(catalog["sources"][name], expect)
        found.append(" || ".join(ways))  # as a shell's "or else": the next way where the one before is missing or fails
    return "; ".join(found)


def device_checks(device, layer, catalog, expect, reader_of, alone=None):
    """The checks of ``layer`` on one device: each with its commands and load, or why it does not apply (``alone``: the
    run's only GPU node, which runs nothing across nodes)."""
    entries = []
    for check in _catalog.checks_at(catalog, layer, device):
        why = _catalog.not_applicable(check, expect)
        if not why and alone and _catalog.kind_of(check)["across_nodes"]:
            why = ("not applicable: %s is the only GPU node of this run and none outside it is named (%s runs across two "
                   "nodes at least)" % (alone, check["id"]))
        if why:
            entries.append({"check": check["id"], "row": check.get("row"), "not_applicable": why})
            continue
        entry = {"check": check["id"], "row": check.get("row"), "scope": check["scope"],
                 "commands": commands(check, catalog, expect)}
        loads = _catalog.load_of(check, catalog, expect) or retraced_loads(check, catalog)
        if loads:
            entry["loads"] = loads
        groups = sorted({catalog["sources"][name]["read_on"] for name in check["sources"] if catalog["sources"][name].get("read_on")})
        if groups:
            entry["read_on"] = {group: reader_of.get(group) for group in groups}
        entries.append(entry)
    return entries


def retraced_loads(check, catalog):
    """A check that follows another's miss (its ``retraces``) reads only, but runs that check's load again where it
    missed: said so, so that the switches it reads show what their run may put on the fabric."""
    if not check.get("retraces"):
        return []
    return ["only where %s misses (%s): its run once more across the same nodes" % (
        check["retraces"]["check"], " or ".join(check["retraces"].get("cause_keys", [])))]


def retraced_rounds(nodes, switches, catalog, alone=None, expect_of=None):
    """The runs that follow a miss (a kind declared ``reads_on: paths``: catalog/kinds.yml), each from its check's
    ``retraces``: the missed load once more across the same nodes while the switches on their paths are read (on
    InfiniBand, the subnet's counters on its reader: run/link.py reads_subnet). None without two GPU nodes, for a check
    of another fabric (its only_if, on the first node's expectations), or without a switch in the run to read where the
    check reads the inventory's switches (the run itself then plans nothing)."""
    if alone or len(nodes) < 2:
        return []
    first = expect_of(nodes[0]) if expect_of else {}
    rounds = []
    for check in catalog["checks"]:
        if _catalog.kind_of(check).get("reads_on") != "paths" or (not _link.reads_subnet(check) and not switches):
            continue
        if expect_of and _catalog.not_applicable({key: value for key, value in check.items() if key != "platforms"}, first):
            continue
        rounds.append({"round": "%s (layer %d)" % (check["scope"], check["layer"]), "runs": 1, "check": check["id"],
                       "what": "%s, while %s are read before and after it (%s)" % (
                           retraced_loads(check, catalog)[0], "the subnet's counters on its reader" if _link.reads_subnet(check)
                           else "the switches on their paths", check["id"])})
    return rounds


def mesh(layer, nodes, expect_of, catalog):
    """The rail mesh of ``layer`` (2: pings, 4: ib_write_bw): its pairs by round, how the rounds run, and for how long."""
    # the layer's first mesh check stands for its pairs (Layer 4's GPUDirect runs the same pairs, after the host memory's)
    check = next(c for c in catalog["checks"] if c["scope"] == "rail_mesh" and c["layer"] == layer)
    if not nodes:
        return {"check": check["id"], "rounds": [], "note": "no GPU node"}
    first = expect_of(nodes[0])
    rails = list(first.get("pyramid_rails") or [])
    rounds = [[list(pair) for pair in pairs] for pairs in _rail_rounds.plan_rounds(nodes)]
    plan = {"check": check["id"], "rails": rails, "rounds": rounds,
            "runs": sum(len(pairs) for pairs in rounds) * 2 * len(rails)}
    if len(nodes) < 2:
        plan["note"] = "one GPU node: no partner in this run (a mesh needs two nodes)"
    if layer == 2:
        plan["how"] = ("every node pings both partners on every rail at once (%d pings each): one module run per node, no "
                       "load" % first["pyramid_ping_count"])
        plan["seconds"] = {"about": first["pyramid_ping_count"]}
        return plan
    in_turn = 1
    if first.get("pyramid_rdma_gpudirect") and any(gpu is not None for gpu in _mesh.gpus_of(first, rails)):
        in_turn = 2
    duration = first["pyramid_rdma_duration"]
    plan["how"] = ("round after round; in a round every pair runs both ways on every rail at once, %d s each run%s; a miss "
                   "that two partners cannot place is retested with a known-good partner (at most 4 more rounds)" % (
                       duration, ", then again in GPU memory (GPUDirect)" if in_turn == 2 else ""))
    plan["seconds"] = {"about": len(rounds) * in_turn * duration}
    return plan


def fabric(nodes, expect_of, alone=None, units=1):
    """Layer 5's rounds across nodes (the straggler hunt) and Layer 6's run across the pod; on a lone node (``alone``) only
    what it runs by itself. ``units``: how many scalable units the nodes sit in (round 4 runs each alone where the pod's
    all-to-all misses: one step more)."""
    if not nodes:
        return {"rounds": [], "note": "no GPU node"}
    first = expect_of(nodes[0])
    if alone:
        one_gpu = first["pyramid_gpus_per_node"] < 2
        rounds = [
            {"round": 1, "what": "all-reduce on the node alone" + (
                ", one rank: read for the NCCL it loads (nccl_loaded); the collectives' checks and the other collectives need "
                "2 GPUs and are not run" if one_gpu else " (its own GPUs), then the other collectives"), "runs": 1},
            {"round": "L6", "what": "the training step on the node" + (
                "; the parity test needs 2 GPUs and is not run" if one_gpu else ", then the parity test"), "runs": 1},
        ]
        return {"rounds": rounds, "launcher": None,
                "note": "%s is the only GPU node of this run and none outside it is named: nothing runs across nodes (no "
                        "pairs, scale-up, pod collectives or training across nodes), so no launcher is used" % alone,
                "seconds": {5: {"at_most_per_run": first["pyramid_nccl_timeout"]},
                            6: {"at_most_per_run": first["pyramid_train_timeout"]}}}
    pairs, odd = _fabric_rounds.pair_up(nodes)
    sizes = _fabric_rounds.scale_sizes(len(nodes))
    rounds = [
        {"round": 1, "what": "all-reduce on every node alone (its own GPUs)", "runs": len(nodes)},
        {"round": 2, "what": "all-reduce on pairs, node i with node i + n/2", "runs": len(pairs),
         "pairs": [list(pair) for pair in pairs] + ([[odd, "(a node that passed)"]] if odd else [])},
        {"round": 3, "what": "all-reduce scaled up, the first N nodes, doubling until it misses", "runs": len(sizes),
         "sizes": sizes},
        {"round": "3+", "what": "all-gather, then reduce-scatter, across every node that held round 3", "runs": 2 if len(nodes) > 1 else 0},
        dict({"round": 4, "what": "all-to-all across every node that held, then each scalable unit alone where it misses",
              "runs": 1 if len(nodes) > 1 else 0}, **({"units_alone": units} if len(nodes) > 1 and units > 1 else {})),
        {"round": "L6", "what": "the training step on every node, then across the pod", "runs": len(nodes) + (1 if len(nodes) > 1 else 0)},
    ]
    return {"rounds": rounds, "launcher": first.get("pyramid_nccl_launcher"),
            "seconds": {5: {"at_most_per_run": first["pyramid_nccl_timeout"]}, 6: {"at_most_per_run": first["pyramid_train_timeout"]}}}


def incast(nodes, switches, expect_of, catalog, addresses):
    """The incast's rounds (targets, senders, the leaf port each target proves), or why it does not run."""
    if not nodes:
        return {"off": "no GPU node"}
    reference = expect_of(nodes[0])
    if not reference["pyramid_incast"]:
        return {"off": "pyramid_incast is false: the row under load is not checked (NO-GO unless waived)"}
    if reference["pyramid_rdma_link_layer"] == "infiniband":
        # the leaves are the subnet's, found in its read at Layer 3 (run/incast_infiniband.py): nothing reads it before
        try:  # the planner's own refusals (two nodes at least, a load that congests the port), before any leaf is known
            checked = _incast_plan.plan(nodes, {}, senders=reference["pyramid_incast_senders"],
                                        rate_gbps=reference["pyramid_incast_rate_gbps"], port_gbps=reference["pyramid_rail_rate_gbps"])
        except _incast_plan.IncastPlanError as exc:
            return {"off": str(exc), "error": True}
        senders = checked["senders"]
        return {"rounds": [], "at_layer3": True, "senders": senders,
                "load": "%d senders x %g Gb/s into one port per leaf of the subnet" % (senders, reference["pyramid_incast_rate_gbps"]),
                "notes": checked["notes"] + [
                    "InfiniBand: one target per leaf, chosen at Layer 3 from the subnet's read (iblinkinfo on the fabric host, "
                    "ib_fabric_hosts); the subnet is not read before, so the rounds are not known here"],
                "seconds": {"about_per_round": reference["pyramid_incast_duration"]}}
    switch_ports = {switch: expect_of(switch).get("pyramid_switch_ports") or [] for switch in switches}
    planned = _incast_reads.make_plan(nodes, switch_ports, reference, addresses, catalog, {node: expect_of(node) for node in nodes})
    if planned.get("error"):
        return {"off": planned["error"], "error": True}
    rounds = [[{"target": group["target"], "senders": group["senders"],
                "ports": ["%s %s (rail %s)" % (port["leaf"], port["port"], port["rail"]) for port in group["ports"]]}
               for group in groups] for groups in planned["rounds"]]
    return {"rounds": rounds, "senders": planned["senders"], "notes": planned.get("notes") or [],
            "load": "%d senders x %g Gb/s into one port per leaf" % (planned["senders"], reference["pyramid_incast_rate_gbps"]),
            "seconds": {"about": len(rounds) * reference["pyramid_incast_duration"]}}


def build(devices, expect_of, catalog, groups, forks):
    """The plan: {"devices", "layers": [{"layer", "devices": {host: [checks]}, ...}], "mesh", "fabric", "incast", "soak"}.

    ``devices``: {device type: hosts} (core/inventory.device_types); ``expect_of(host)``: its typed expectations."""
    nodes = list(devices.get("gpu_node") or [])
    switches = list(devices.get("switch") or [])
    order = list(groups.get("gpu_nodes") or nodes)
    reader_of = readers(groups, nodes, catalog)
    alone = alone_in(nodes, groups)
    addresses = {}
    for node in nodes:
        found, _problem = _mesh.rail_addresses(node, expect_of(node))
        addresses[node] = found  # pre-flight refused a plan with a problem before this runs
    layers = []
    for layer in LAYERS:
        by_host = {}
        for device, hosts in (("gpu_node", nodes), ("switch", switches)):
            for host in hosts:
                by_host[host] = device_checks(device, layer, catalog, expect_of(host), reader_of, alone if device == "gpu_node" else None)
        layers.append({"layer": layer, "devices": by_host})
    first = expect_of(nodes[0]) if nodes else (expect_of(switches[0]) if switches else {})
    plan = {
        "devices": {"gpu_node": nodes, "switch": switches},
        "forks": forks, "waves": _background.waves(len(nodes), forks) if nodes and forks else None,
        "soak": {"seconds": first.get("pyramid_soak_seconds")},
        "addresses": addresses,
        "layers": layers,
        "mesh": {"layer 2": mesh(2, nodes, expect_of, catalog), "layer 4": mesh(4, nodes, expect_of, catalog)},
        "fabric": fabric(nodes, expect_of, alone, len(set(units_of(nodes, order, expect_of).values()))),
        "incast": incast(nodes, switches, expect_of, catalog, addresses),
        "tiers": tiers(nodes, order, expect_of, alone),
    }
    # after the layer's own rounds (Layer 5's hunt), before the next layer's (the training step, "L6")
    rounds = plan["fabric"]["rounds"]
    before = next((index for index, entry in enumerate(rounds) if entry["round"] == "L6"), len(rounds))
    plan["fabric"]["rounds"] = rounds[:before] + retraced_rounds(nodes, switches, catalog, alone, expect_of) + rounds[before:]
    plan["total"] = total(plan, expect_of(nodes[0]) if nodes else None)
    plan["outside"] = outside_partners(nodes, order)
    return plan


def outside_partners(nodes, order):
    """The GPU nodes outside a limited run (--limit, as remediate.yml after a reimage) that its meshes and NCCL rounds
    may load as partners (issue 71): a lone node's partner, a miss's known-good one, in gpu_nodes' order (the roles pass
    them as ``references``). None for a run of the whole pod."""
    outside = [node for node in order if node not in nodes]
    if not nodes or not outside:
        return None
    return {"nodes": outside[:2], "more": max(len(outside) - 2, 0), "needed": len(nodes) < 2}


def total(plan, first):
    """How long the run takes, as far as the plan can tell (issue 71): the timed loads (the soak, the meshes, the
    incast) are known; each NCCL and training step of Layers 5 and 6 ends when it is done, and at the latest at its
    timeout. {"timed_seconds", "nccl_steps", "train_steps", "at_most_seconds"}; steps run one after another (the runs
    of one step side by side: every node alone, every pair)."""
    if not plan["devices"]["gpu_node"] or not first:
        return None
    timed = plan["soak"]["seconds"] or 0
    parts = ["the soak"] if timed else []
    for name, part in (("the ping mesh", plan["mesh"]["layer 2"]), ("the ib_write_bw mesh", plan["mesh"]["layer 4"]),
                       ("the incast", plan["incast"])):
        seconds = part.get("seconds") or {}
        if part.get("rounds") or part.get("at_layer3"):
            timed += seconds.get("about") or seconds.get("about_per_round") or 0
            parts.append(name)
    rounds = plan["fabric"].get("rounds") or []
    # a round's runs side by side (every node alone, every pair) are one step; the scale-up's sizes and the pod's
    # collectives after it (all-gather, then reduce-scatter) run one after another
    nccl = sum(len(r.get("sizes") or []) or (r["runs"] if r["round"] == "3+" else 1 if r["runs"] else 0)
               for r in rounds if r["round"] != "L6") + sum(1 for r in rounds if r.get("units_alone"))
    train = next((min(r["runs"], 2) for r in rounds if r["round"] == "L6"), 0)
    return {"timed_seconds": timed, "timed": parts, "nccl_steps": nccl, "train_steps": train,
            "at_most_seconds": timed + nccl * first["pyramid_nccl_timeout"] + train * first["pyramid_train_timeout"]}


def units_of(nodes, order, expect_of):
    """{node: its scalable unit}, as the straggler hunt places them (run/tiers.py units_of); {} without a node."""
    if not nodes:
        return {}
    pod = [node for node in order if node in nodes] + [node for node in nodes if node not in order]
    return _tiers.units_of(pod, expect_of(nodes[0])["pyramid_scalable_unit_nodes"],
                           {node: expect_of(node).get("pyramid_scalable_unit") for node in nodes})


def tiers(nodes, order, expect_of, alone=None):
    """{what: the sentence of which switch tiers its traffic crosses} for the layers that load between nodes (issue 72):
    a one-unit pod's plan says the spine layer carries no test traffic, so nobody reads the spines as loaded."""
    if len(nodes) < 2 or alone:
        return {}
    pod = [node for node in order if node in nodes] + [node for node in nodes if node not in order]
    units = units_of(nodes, order, expect_of)
    mesh_pairs = [pair for pairs in _rail_rounds.plan_rounds(nodes) for pair in pairs]
    pairs, _odd = _fabric_rounds.pair_up(nodes)
    return {
        "layers 2 and 4 (rail mesh)": _tiers.crossed(units, mesh_pairs)["text"],
        "layer 5 round 2 (pairs)": _tiers.crossed(units, pairs)["text"],
        "layer 5 round 3 (scale-up)": _tiers.crossed(units, [pod[:size] for size in _fabric_rounds.scale_sizes(len(pod))], "ring")["text"],
        "layer 5 round 4 (all-to-all)": _tiers.crossed(units, [pod], "all_to_all")["text"],
    }
