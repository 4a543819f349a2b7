# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The straggler hunt's bookkeeping: who climbs into a round, what a group's run is told, who is
left out and why, every run's raw output kept, and the hunt's verdicts as results per node.

The rounds themselves (who runs with whom, who is to blame) are fabric_rounds.py; straggler_hunt.py plans,
collects (from the launcher host, through the action's AnsibleStep) and judges the runs.
"""

from __future__ import annotations

import os
import re

from . import engine as _engine
from ..core import results as _results
from ..core.model import ERROR, SKIP, verdict
from ..core.secrets import mask_text


def climbing(docs, layer, fabric_ids):
    """Nodes with nothing failing or skipped up to this layer (round 1 included), in inventory order: the gate of
    every run across devices (core/results.climbs)."""
    return [host for host, doc in docs.items() if _results.climbs(doc["results"], layer, fabric_ids)]


def references_for(nodes, references):
    """Reference nodes (outside this run, a --limit'ed run after a reimage) that are not climbing here."""
    return [host for host in references or [] if host not in nodes]


def launcher_missing(nodes, references, launcher, expect):
    """ERROR verdicts for every node when a run across nodes is due but no launcher host exists; else None."""
    if (len(nodes) >= 2 or (nodes and references)) and not launcher:
        why = "no launcher host: add one to the inventory group `launcher` (it starts %s)" % expect["pyramid_nccl_launcher"]
        return {node: verdict(ERROR, "a launcher host", why, cause_key=None) for node in nodes}
    return None


def lone_node(hosts, references):
    """SKIP 'not applicable' for the one GPU node of a run with no other node anywhere to run with; else None.

    A lone GPU box has no fabric to judge: pairs, scale-up and a pod-wide step need two nodes.
    """
    if len(hosts) != 1 or references:
        return None
    why = ("not applicable: %s is the only GPU node of this run and none outside it is named "
           "(a run across nodes needs two; give a launcher group and more nodes to check the fabric)" % hosts[0])
    outcome = verdict(SKIP, "a run across nodes", why, cause_key=None)
    outcome["not_applicable"] = True
    return {hosts[0]: outcome}


def scalable_units(nodes, pod_order, per_unit, expectations_of):
    """{node: its scalable unit}: the node's pyramid_scalable_unit where the inventory names one, else su<k> by its
    place among the pod's GPU nodes in inventory order, ``per_unit`` nodes to a unit (the nodes a set of rail leaves
    serves). ``expectations_of(node)``: the node's typed expectations."""
    units = {}
    for node in nodes:
        named = expectations_of(node)["pyramid_scalable_unit"]
        if named:
            units[node] = str(named)
        else:
            units[node] = ("su%d" % (pod_order.index(node) // per_unit + 1) if node in pod_order
                           else "%s (not in gpu_nodes)" % node)  # a unit of its own: placed nowhere, run with no one
    return units


def group_context(group, gpus_per_node):
    """What a group's command line may name: {hosts}, {size}, {first}, {ranks}, {slots}."""
    return {"hosts": ",".join(group), "size": len(group), "first": group[0], "ranks": len(group) * gpus_per_node,
            "slots": ",".join("%s:%d" % (node, gpus_per_node) for node in group)}


def left_out(docs, verdicts, check, layer):
    """SKIP, saying why, for nodes left out of a round (a lower layer's gate already said so for blocked ones)."""
    skipped = {}
    for host, doc in docs.items():
        if host in verdicts or any(r["check"] == check["id"] and r["layer"] == layer for r in doc["results"]):
            continue
        failing = sorted({"%s=%s" % (r["check"], r["status"]) for r in doc["results"]
                          if r["layer"] <= layer and not r.get("not_applicable")
                          and (r["status"] in _results.NOT_PASSING or r["status"] == SKIP)})
        skipped[host] = verdict(SKIP, "a node that passed the rounds before",
                                "not in this round: %s" % (", ".join(failing) or "no results below"), cause_key=None)
    return skipped


def record(docs, verdicts, check, catalog, expect, counts):
    """Each node's verdict of ``check`` into its results file; ``counts`` ("check=STATUS" -> nodes) updated."""
    for host, outcome in verdicts.items():
        result = _engine.result(
            host, check, catalog, expect, outcome["status"], outcome["expected"], outcome["actual"],
            # the catalog's cause for the finding, else the judge's own (an ERROR's: what could not be read or told)
            cause=check.get("causes", {}).get(outcome["cause_key"]) or outcome.get("cause"),
            # a run that does not apply here started nothing: no command to name (not its planned mpirun line)
            command=outcome.get("command") or ("(none)" if outcome.get("not_applicable") else None), detail=outcome.get("detail"))
        if outcome.get("not_applicable"):
            result["not_applicable"] = True
        _results.record(docs[host], [result])
        key = "%s=%s" % (check["id"], outcome["status"])
        counts[key] = counts.get(key, 0) + 1


class RunLog:
    """Every run's raw output in the run directory (hunt/), so nothing the launcher printed is lost."""

    def __init__(self, run_dir, layer):
        self.directory = os.path.join(run_dir, "hunt")
        self.count = 0
        self.layer = layer

    def write(self, check_id, group, raw):
        """Write one run's command, status and output; the log's path relative to the run directory."""
        os.makedirs(self.directory, exist_ok=True)
        self.count += 1
        nodes = "+".join(group) if len(group) <= 4 else "%d-nodes" % len(group)
        name = "%s-%03d-%s.log" % (check_id, self.count, re.sub(r"[^\w.-]", "_", nodes))
        raw = raw or {}
        with open(os.path.join(self.directory, name), "w", encoding="utf-8") as handle:
            handle.write("$ %s\n" % mask_text(raw.get("command") or "(not run)"))
            handle.write("# status: %s, rc: %s\n" % (raw.get("status"), raw.get("rc")))
            handle.write("# nodes: %s\n" % ",".join(group))  # the report says which switch tiers the run loaded from these
            handle.write(mask_text(raw.get("stdout", "")))  # NCCL prints its environment at NCCL_DEBUG=INFO
            if raw.get("stderr"):
                handle.write("\n# stderr\n" + mask_text(raw["stderr"]))
        return os.path.join("hunt", name)
