# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plan.md and the plan's summary lines, from the plan that run/plan.py builds (plan.json holds all of it)."""

from __future__ import annotations

import json
import os

SHOWN = 8  # hosts, pairs or addresses named in a line; plan.json has every one


def names(items, limit=SHOWN):
    items = list(items)
    return ", ".join(items[:limit]) + (" and %d more" % (len(items) - limit) if len(items) > limit else "")


def _pairs(pairs, limit=SHOWN):
    return names(["%s <-> %s" % tuple(pair) for pair in pairs], limit)


def _seconds(seconds):
    if not seconds:
        return "-"
    if "about" in seconds:
        return "about %s s" % seconds["about"]
    if "about_per_round" in seconds:
        return "about %s s a round" % seconds["about_per_round"]
    return "at most %s s a run" % seconds["at_most_per_run"]


def layer_rows(plan):
    """(layer, what loads the fabric or the GPUs, how long) for each layer."""
    loads = {}
    for layer in plan["layers"]:
        found = []
        for entries in layer["devices"].values():
            for entry in entries:
                for load in entry.get("loads") or []:
                    if load not in found:
                        found.append(load)
        loads[layer["layer"]] = found
    mesh2, mesh4, fabric, incast = plan["mesh"]["layer 2"], plan["mesh"]["layer 4"], plan["fabric"], plan["incast"]
    soak = plan["soak"]["seconds"]
    if incast.get("off"):
        incast_text = "incast not run: %s" % incast["off"]
    elif incast.get("at_layer3"):  # InfiniBand: the rounds follow from the subnet's read at Layer 3
        incast_text = "incast: %s, its rounds chosen at Layer 3" % incast["load"]
    else:
        incast_text = "incast: %s, %d round(s)" % (incast["load"], len(incast["rounds"]))
    # a mesh without a round (one GPU node) says why, not "0 runs"
    rows = [
        (0, "; ".join(loads[0]) or "none: reads only", "-"),
        (1, "none: counters read twice, the soak apart", "the soak: %s s" % soak),
        (2, "pings: %s" % mesh2["how"] if mesh2.get("rounds") else "none: %s" % mesh2.get("note", "no pair"),
         _seconds(mesh2.get("seconds")) if mesh2.get("rounds") else "-"),
        (3, incast_text, _seconds(incast.get("seconds")) if not incast.get("off") else "-"),
        (4, "; ".join(loads[4]) + (": %d runs in %d round(s)" % (mesh4.get("runs", 0), len(mesh4["rounds"])))
         if mesh4.get("rounds") else "none: %s" % mesh4.get("note", "no pair"), _seconds(mesh4.get("seconds")) if mesh4.get("rounds") else "-"),
        (5, "; ".join(loads[5]) or "none", _seconds((fabric.get("seconds") or {}).get(5))),
        (6, "; ".join(loads[6]) or "none", _seconds((fabric.get("seconds") or {}).get(6))),
        (7, "none: Prometheus queries from the controller", "-"),
    ]
    return rows


def groups_of(layer):
    """[(hosts, entries)] of one layer: hosts with the same checks and commands together, in inventory order."""
    grouped = {}
    for host, entries in layer["devices"].items():
        grouped.setdefault(json.dumps(entries, sort_keys=True), (entries, []))[1].append(host)
    return [(hosts, entries) for entries, hosts in grouped.values()]


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(plan):
    nodes, switches = plan["devices"]["gpu_node"], plan["devices"]["switch"]
    lines = ["# Validation plan", "",
             "Pre-flight passed for %d GPU nodes and %d switches; nothing was run on any of them. This is the run in which "
             "every device passes the layers below: a device that fails a layer is not climbed past it and drops out of "
             "the rounds above, so the real rounds can only be smaller." % (len(nodes), len(switches)), ""]
    if nodes:  # said first: Layers 3 to 6 load what a job would use, at line rate (issue 71)
        lines += ["**The pod must be idle.** Layers 3 to 6 load every rail and GPU of these nodes at line rate (the incast, "
                  "ib_write_bw, NCCL, a training step): a job running on them would be slowed and would spoil the figures. "
                  "Drain them in the scheduler first.", ""]
    lines += total_lines(plan) + outside_lines(plan)
    if plan.get("waves") and plan["waves"] > 1:
        lines += ["Each per-node task runs in %d waves (forks %s for %d GPU nodes): the durations below are per wave." % (
            plan["waves"], plan["forks"], len(nodes)), ""]
    lines += ["## Load and duration by layer", "", "| Layer | Load on the fabric or the GPUs | How long |", "|---|---|---|"]
    lines += ["| %d | %s | %s |" % (layer, _cell(load), _cell(how)) for layer, load, how in layer_rows(plan)]
    lines += [""]
    lines += _mesh_lines(plan) + _fabric_lines(plan) + _tier_lines(plan) + _incast_lines(plan)
    lines += ["## Checks by layer and device", "",
              "`a || b`: the node runs b where a is not on it or fails (nccl-tests' binary, else the built-in benchmark; lsmod, "
              "else /proc/modules): the results name the one that answered.", ""]
    for layer in plan["layers"]:
        lines += ["### Layer %d" % layer["layer"], ""]
        for hosts, entries in groups_of(layer):
            run = [e for e in entries if "not_applicable" not in e]
            lines += ["%s: %d check(s)" % (names(hosts), len(run)), ""]
            if run:
                lines += ["| Check | Commands | Load |", "|---|---|---|"]
                for entry in run:
                    where = "".join(" (read on %s for the pod)" % (reader or "no host of %s" % group)
                                    for group, reader in sorted((entry.get("read_on") or {}).items()))
                    lines.append("| %s | %s%s | %s |" % (entry["check"], _cell(entry["commands"]), where,
                                                         _cell("; ".join(entry.get("loads") or [])) or "-"))
                lines.append("")
            skipped = [e for e in entries if "not_applicable" in e]
            if skipped:
                lines += ["Not applicable: %s" % "; ".join("%s (%s)" % (e["check"], e["not_applicable"]) for e in skipped), ""]
    if plan["addresses"]:
        shown = list(plan["addresses"].items())[:SHOWN]
        lines += ["## Rail addresses", ""] + ["- %s: %s" % (node, ", ".join(map(str, found or []))) for node, found in shown]
        if len(plan["addresses"]) > SHOWN:
            lines.append("- ... and %d more nodes (plan.json)" % (len(plan["addresses"]) - SHOWN))
        lines.append("")
    return "\n".join(lines)


def _mesh_lines(plan):
    lines = []
    for key in ("layer 2", "layer 4"):
        mesh = plan["mesh"][key]
        lines += ["## The rail mesh, %s (%s)" % (key, mesh["check"]), ""]
        if mesh.get("note"):
            lines += [mesh["note"], ""]
        for index, pairs in enumerate(mesh["rounds"], 1):
            lines.append("- round %d: %d pairs: %s" % (index, len(pairs), _pairs(pairs)))
        if mesh.get("how") and mesh["rounds"]:
            lines += ["", "%s. %d runs on %d rails." % (mesh["how"][0].upper() + mesh["how"][1:], mesh["runs"], len(mesh["rails"]))]
        lines.append("")
    return lines


def _fabric_lines(plan):
    fabric = plan["fabric"]
    if fabric.get("note") and fabric["rounds"]:  # a lone node: what it runs by itself, and why nothing runs across nodes
        lines = ["## Layers 5 and 6 on the node alone", "", fabric["note"] + ".", ""]
    else:
        lines = ["## Layers 5 and 6 across nodes (launcher: %s)" % fabric.get("launcher"), ""]
    for entry in fabric["rounds"]:
        extra = ": " + _pairs(entry["pairs"]) if entry.get("pairs") else ": sizes %s" % entry["sizes"] if entry.get("sizes") else ""
        if entry.get("units_alone"):
            extra += "; where it misses, its %d scalable units alone, side by side (one step more)" % entry["units_alone"]
        lines.append("- round %s: %s, %d run(s)%s" % (entry["round"], entry["what"], entry["runs"], extra))
    return lines + [""]


def _tier_lines(plan):
    """Which switch tiers each run across nodes loads (run/tiers.py), and what its figures are held to on new hardware."""
    tiers = plan.get("tiers") or {}
    if not tiers:
        return []
    lines = ["## Switch tiers the traffic crosses", ""]
    lines += ["- %s: %s" % (what, said) for what, said in tiers.items()]
    return lines + ["", "On new hardware without a baseline, the figures of runs across nodes are judged against the platform's "
                        "table (`pyramid_nccl_platform`) only at the node counts and sizes it covers; a latency-bound size at a "
                        "larger node count is reported, not judged, unless the pod's own pair runs give a latency model. Keep "
                        "the GO run's `baseline.yml` in the inventory: it becomes the pod's own table by node count "
                        "(docs/nccl-tests.md, \"Calibration first\").", ""]


def _incast_lines(plan):
    incast = plan["incast"]
    lines = ["## The incast (layer 3 under load)", ""]
    if incast.get("off"):
        return lines + ["Not run: %s." % incast["off"], ""]
    for index, groups in enumerate(incast["rounds"], 1):
        lines.append("- round %d: %s" % (index, "; ".join(
            "%s <- %s (%s)" % (group["target"], names(group["senders"], 4), ", ".join(group["ports"])) for group in groups)))
    lines += ["- %s" % note for note in incast.get("notes") or []]
    return lines + [""]


def _minutes(seconds):
    return "%d s" % seconds if seconds < 120 else "%.0f min" % (seconds / 60.0)


def total_lines(plan):
    """The run's total time, as far as the plan can tell: the timed loads, then Layers 5 and 6 bounded by their timeouts."""
    found = plan.get("total")
    if not found:
        return []
    steps = []
    if found["nccl_steps"]:
        steps.append("%d NCCL step(s)" % found["nccl_steps"])
    if found["train_steps"]:
        steps.append("%d training step(s)" % found["train_steps"])
    timed = found.get("timed") or []
    text = "**Total time:** the timed loads (%s) take about %s" % (
        ", ".join(timed) if timed else "none in this run", _minutes(found["timed_seconds"]))
    if steps:
        text += ("; Layers 5 and 6 add %s, one after another, each ending when done and at the latest at its timeout "
                 "(pyramid_nccl_timeout, pyramid_train_timeout): at most %s in all" % (" and ".join(steps), _minutes(found["at_most_seconds"])))
    return [text + ". The reads of Layers 0, 1 and 7 add about a minute per wave of forks.", ""]


def outside_lines(plan):
    """The nodes outside a limited run that it may load: asked for before the run, as they must be idle too."""
    outside = plan.get("outside")
    if not outside:
        return []
    named = ", ".join(outside["nodes"]) + (" (then the next of gpu_nodes, %d more)" % outside["more"] if outside["more"] else "")
    when = ("every run across nodes pairs this run's one node with it" if outside["needed"] else
            "a miss that this run's own nodes cannot place is retested with it")
    return ["**Outside this run (--limit):** %s of gpu_nodes may be loaded as partners at Layers 2, 4 and 5 (%s): keep "
            "them idle too, or run the whole pod." % (named, when), ""]


def summary(plan):
    """The lines the play prints: devices, each layer's load and duration, where the files are."""
    nodes, switches = plan["devices"]["gpu_node"], plan["devices"]["switch"]
    lines = ["plan: %d GPU nodes, %d switches; nothing run" % (len(nodes), len(switches))]
    for layer, load, how in layer_rows(plan):
        checks = sum(1 for entries in next(l for l in plan["layers"] if l["layer"] == layer)["devices"].values()
                     for entry in entries if "not_applicable" not in entry)
        lines.append("layer %d: %d checks across the devices; %s; %s" % (layer, checks, load, how))
    lines += [line.replace("**", "") for line in total_lines(plan) + outside_lines(plan) if line]
    return lines


def write(run_dir, plan):
    """plan.json and plan.md in ``run_dir``; their paths."""
    paths = {"json": os.path.join(run_dir, "plan.json"), "md": os.path.join(run_dir, "plan.md")}
    with open(paths["json"], "w", encoding="utf-8") as handle:
        json.dump(plan, handle, indent=1, sort_keys=True)
    with open(paths["md"], "w", encoding="utf-8") as handle:
        handle.write(markdown(plan) + "\n")
    return paths
