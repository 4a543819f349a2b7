# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plan.md and the plan's summary lines, from the plan that run/plan.py builds (plan.json holds all of it)."""

from __future__ import annotations

import json
import os

from ..core.model import named

SHOWN = 8  # hosts or addresses named in a line; plan.json has every one


def _seconds(seconds):
    if not seconds:
        return "-"
    if "about" in seconds:
        return "about %s s" % seconds["about"]
    if "about_per_round" in seconds:
        return "about %s s a round" % seconds["about_per_round"]
    return "at most %s s a run" % seconds["at_most_per_run"]


def layer_rows(plan):
    """(layer, what loads the fabric or the GPUs, how long) for each layer: each kind's sections of the layer say their
    load and duration (run/plan.py runs), else the layer's checks name their loads; the soak is Layer 1's."""
    rows = []
    for layer in plan["layers"]:
        number = layer["layer"]
        sections = [section for section in plan["runs"] if section["layer"] == number]
        loads = []
        for entries in layer["devices"].values():
            for entry in entries:
                loads += [load for load in entry.get("loads") or [] if load not in loads]
        said = [section["load"] for section in sections if section.get("load")]
        seconds = next((section["seconds"] for section in sections if section.get("seconds")), None)
        if number == 1 and not said and not loads:  # the soak: counters read twice, that long apart
            rows.append((number, "none: counters read twice, the soak apart", "the soak: %s s" % plan["soak"]["seconds"]))
            continue
        rows.append((number, "; ".join(said or loads) or "none: reads only", _seconds(seconds)))
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
    for section in plan["runs"]:
        lines += section_lines(section)
    lines += _tier_lines(plan)
    lines += ["## Checks by layer and device", "",
              "`a || b`: the node runs b where a is not on it or fails (nccl-tests' binary, else the built-in benchmark; lsmod, "
              "else /proc/modules): the results name the one that answered.", ""]
    for layer in plan["layers"]:
        lines += ["### Layer %d" % layer["layer"], ""]
        for hosts, entries in groups_of(layer):
            run = [e for e in entries if "not_applicable" not in e]
            lines += ["%s: %d check(s)" % (named(hosts, SHOWN), len(run)), ""]
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


def section_lines(section):
    """One kind's section of the plan, as its planner said it (run/plan.py runs): its title, why it does not run or
    what it notes, its rounds, how they run, and its notes."""
    lines = ["## %s" % section["title"], ""]
    if section.get("off"):
        return lines + ["Not run: %s." % section["off"], ""]
    if section.get("note"):
        lines += [section["note"] + ".", ""]
    rounds = ["- round %s: %s" % (entry["round"], entry["what"]) for entry in section.get("rounds") or []]
    if rounds:
        lines += rounds + [""]
    if section.get("how") and section.get("rounds"):
        lines += [section["how"], ""]
    if section.get("notes"):
        lines += ["- %s" % note for note in section["notes"]] + [""]
    return lines


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
    shown = ", ".join(outside["nodes"]) + (" (then the next of gpu_nodes, %d more)" % outside["more"] if outside["more"] else "")
    when = ("every run across nodes pairs this run's one node with it" if outside["needed"] else
            "a miss that this run's own nodes cannot place is retested with it")
    return ["**Outside this run (--limit):** %s of gpu_nodes may be loaded as partners at Layers 2, 4 and 5 (%s): keep "
            "them idle too, or run the whole pod." % (shown, when), ""]


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
