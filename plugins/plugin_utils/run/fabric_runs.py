# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The straggler hunt's bookkeeping: who climbs into a round, what a group's run is told and its judge is handed,
every run's raw output kept, and the hunt's verdicts recorded as results per node.

The rounds themselves (who runs with whom, who is to blame, who is left out and why) are judging/fabric_rounds.py,
driven by fabric_rounds.py; fabric.py plans, collects (from the launcher host, through the action's
AnsibleStep) and judges the runs.
"""

from __future__ import annotations

import os
import re

from . import engine as _engine
from ..core import results as _results
from ..core.secrets import mask_text


def climbing(docs, layer, fabric_ids):
    """Nodes with nothing failing or skipped up to this layer (round 1 included), in inventory order: the gate of
    every run across devices (core/results.climbs)."""
    return [host for host, doc in docs.items() if _results.climbs(doc["results"], layer, fabric_ids)]


def references_for(nodes, references):
    """Reference nodes (outside this run, a --limit'ed run after a reimage) that are not climbing here."""
    return [host for host in references or [] if host not in nodes]


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


def judged_facts(run, group, catalog):
    """What a fabric judge is handed for one run across ``group`` (judging/fabric.py): the run's facts, its nodes, and
    the catalog's platforms whose busbw tables an all-reduce is held to."""
    return {"run": run, "group": list(group), "platforms": catalog["platforms"]}


def record(run_dir, verdicts, check, catalog, expect, counts):
    """Each node's verdict of ``check`` into its results file (core/results.record_each); ``counts`` ("check=STATUS" ->
    nodes) updated."""
    records = []
    for host, outcome in verdicts.items():
        # the catalog's cause for the finding, else the judge's own (an ERROR's: what could not be read or told)
        cause = check.get("causes", {}).get(outcome.get("cause_key")) or outcome.get("cause")
        # a run that does not apply here started nothing: no command to name (not its planned mpirun line)
        records.append(_engine.record_of(host, check, catalog, expect, dict(outcome, cause=cause),
                                         command=outcome.get("command") or ("(none)" if outcome.get("not_applicable") else None)))
    counts.update({"%s=%s" % (check["id"], status): count for status, count in _results.record_each(run_dir, records).items()})


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
