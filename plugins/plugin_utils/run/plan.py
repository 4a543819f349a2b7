# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan of a validation run, made before any device is touched (playbooks/plan.yml, issue 37).

From the inventory and the catalog alone: per layer and device the checks that apply (and why the others do not), the
commands each reads with, the load it puts on the fabric or the GPUs; then each kind of run that runs across nodes as
its own planner says it (catalog/kinds.yml ``planned_by``: the rail mesh's pairs, Layer 5's rounds, the incast's targets
and senders, the runs that follow a miss), drawn from the planners the run itself uses, and how long each layer's load
lasts where the inventory says (the soak, ib_write_bw's and the incast's durations) or at most (a timeout). No kind is
named here: a new kind with a planner is planned by its declaration. It is the run in which every device passes the
layers below: a device that fails one is not climbed past it and drops out of the rounds above, so the real rounds can
only be smaller.
"""

from __future__ import annotations

import importlib
import types

from ..core import catalog as _catalog
from . import background as _background
from . import engine as _engine
from . import rail_addresses as _addresses
from . import tiers as _tiers

LAYERS = tuple(range(8))


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
        loads = _catalog.load_of(check, catalog, expect) or _catalog.retraced_load(check)
        if loads:
            entry["loads"] = loads
        groups = sorted({catalog["sources"][name]["read_on"] for name in check["sources"] if catalog["sources"][name].get("read_on")})
        if groups:
            entry["read_on"] = {group: reader_of.get(group) for group in groups}
        entries.append(entry)
    return entries


def kind_runs(pod):
    """Each kind's runs as its own planner says them (catalog/kinds.yml ``planned_by``: a module of run/ whose
    ``plan_sections(pod)`` draws on the same planners its runner uses), in the order of the layers, each kind in the
    declaration's order within a layer: [section], each {"kind", "layer", "title", ...} (catalog/kinds.yml's text of
    planned_by). ``pod``: this run's devices and settings (build)."""
    sections = []
    for name, kind in _catalog.kinds().items():
        checks = [check for check in pod["catalog"]["checks"] if check["scope"] == name]
        if not kind.get("planned_by") or not checks:  # a kind without checks in this catalog runs nothing
            continue
        planner = importlib.import_module("%s.%s" % (__package__, kind["planned_by"]))
        sections += [dict(section, kind=name) for section in planner.plan_sections(types.SimpleNamespace(checks=checks, **pod))]
    return sorted(sections, key=lambda section: section["layer"])


def build(devices, expect_of, catalog, groups, forks):
    """The plan: {"devices", "layers": [{"layer", "devices": {host: [checks]}, ...}], "runs": [each kind's sections],
    "tiers", "soak", "total", "outside"}.

    ``devices``: {device type: hosts} (core/inventory.device_types); ``expect_of(host)``: its typed expectations."""
    nodes = list(devices.get("gpu_node") or [])
    switches = list(devices.get("switch") or [])
    order = list(groups.get("gpu_nodes") or nodes)
    reader_of = readers(groups, nodes, catalog)
    alone = alone_in(nodes, groups)
    addresses = {}
    for node in nodes:
        found, _problem = _addresses.rail_addresses(node, expect_of(node))
        addresses[node] = found  # pre-flight refused a plan with a problem before this runs
    layers = []
    for layer in LAYERS:
        by_host = {}
        for device, hosts in (("gpu_node", nodes), ("switch", switches)):
            for host in hosts:
                by_host[host] = device_checks(device, layer, catalog, expect_of(host), reader_of, alone if device == "gpu_node" else None)
        layers.append({"layer": layer, "devices": by_host})
    first = expect_of(nodes[0]) if nodes else (expect_of(switches[0]) if switches else {})
    # the pod's GPU nodes in inventory order, as the straggler hunt and the meshes place them
    ordered = [node for node in order if node in nodes] + [node for node in nodes if node not in order]
    units = _tiers.units_of(ordered, first["pyramid_scalable_unit_nodes"],
                            {node: expect_of(node).get("pyramid_scalable_unit") for node in nodes}) if nodes else {}
    runs = kind_runs({"nodes": nodes, "switches": switches, "ordered": ordered, "expect_of": expect_of, "first": first,
                      "catalog": catalog, "alone": alone, "addresses": addresses, "units": units})
    plan = {
        "devices": {"gpu_node": nodes, "switch": switches},
        "forks": forks, "waves": _background.waves(len(nodes), forks) if nodes and forks else None,
        "soak": {"seconds": first.get("pyramid_soak_seconds")},
        "addresses": addresses,
        "layers": layers,
        "runs": runs,
        # which switch tiers each run across nodes crosses (issue 72), as each kind's planner says it
        "tiers": {what: said for section in runs for what, said in (section.get("tiers") or {}).items()},
    }
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
    """How long the run takes, as far as the plan can tell (issue 71): the timed loads (the soak, and each kind's
    section that says it is ``timed``: the meshes, the incast) are known; each NCCL and training step of Layers 5 and 6
    (each section's ``steps``) ends when it is done, and at the latest at its timeout. {"timed_seconds", "timed",
    "nccl_steps", "train_steps", "at_most_seconds"}; steps run one after another (the runs of one step side by side)."""
    if not plan["devices"]["gpu_node"] or not first:
        return None
    timed = plan["soak"]["seconds"] or 0
    parts = ["the soak"] if timed else []
    for section in plan["runs"]:
        if section.get("timed"):
            seconds = section.get("seconds") or {}
            timed += seconds.get("about") or seconds.get("about_per_round") or 0
            parts.append(section["timed"])
    nccl = sum((section.get("steps") or {}).get("nccl", 0) for section in plan["runs"])
    train = sum((section.get("steps") or {}).get("train", 0) for section in plan["runs"])
    return {"timed_seconds": timed, "timed": parts, "nccl_steps": nccl, "train_steps": train,
            "at_most_seconds": timed + nccl * first["pyramid_nccl_timeout"] + train * first["pyramid_train_timeout"]}
