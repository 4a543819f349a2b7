# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The figures a run measured on its GO nodes, as inventory variables for later runs (baseline.yml)."""

from __future__ import annotations

import statistics

import yaml

from ..core import results as _results
from ..core.model import PASS
from ..judging.workload import COLLECTIVE_FIGURES

HEADER = """# Baseline measured by gpufabric.pyramid, run %(run)s (pod verdict %(verdict)s), on the %(count)d GO nodes.
# To judge later runs against it, copy this file into the inventory (group_vars/gpu_nodes/baseline.yml):
# round 1 then expects every node within pyramid_nccl_tolerance of these busbw figures (all-reduce and the other
# collectives), and the training step
# within pyramid_train_baseline_tolerance of this step time.
"""
ACROSS = """# pyramid_nccl_pod_collective_busbw: this run's all-gather and reduce-scatter across %(nodes)s nodes (those that held
# Layer 5's rounds); a run across far fewer or more nodes may measure another figure (NCCL picks by the node count).
"""
# the pod's own collectives (Layer 5 fabric checks): their figures come from a passing run's record, one run for the pod
POD_COLLECTIVES = {"nccl_all_gather_pod": "all_gather", "nccl_reduce_scatter_pod": "reduce_scatter"}
# all-reduce across nodes (rounds 2 and 3): a passing run's record keeps its busbw at each size of its table and its
# node count (judging/fabric.py nccl_group), pyramid_nccl_scale_busbw's figures by node count
ALL_REDUCE_ACROSS = ("nccl_pairs", "nccl_scale")
SCALE = """# pyramid_nccl_scale_busbw: this run's all-reduce across nodes at each node count it held (%(counts)s), every size of
# the table: the pod's own figures at those counts, latency-bound sizes included (docs/scale.md, "Calibration first").
"""


def _step_median(training, warmup):
    times = [step["step_time_ms"] for step in training.get("steps", []) if step["step"] > warmup]
    return statistics.median(times) if times else None


def _peak(table, into):
    """The largest size's busbw of a node's nccl-tests table (its last row), into {size: [GB/s]}."""
    if (table or {}).get("rows"):
        row = table["rows"][-1]
        into.setdefault(str(row["size"]), []).append(max(row["oop_busbw"], row["ip_busbw"]))


def figures(run_dir, hosts):
    """{"pyramid_nccl_node_busbw": {size: GB/s}, "pyramid_nccl_collective_busbw": {collective: {size: GB/s}},
    "pyramid_nccl_pod_collective_busbw": {collective: {size: GB/s}} (the passing runs across the pod, from their records'
    detail), "pyramid_train_step_ms_baseline": ms}: medians over GO hosts."""
    busbw, collectives, across, steps, counted, by_count = {}, {}, {}, [], 0, {}
    for host in hosts:
        doc = _results.load(run_dir, host)
        results = doc["results"]
        # a GO host: something passed and nothing failed, errored or was blocked (a not-applicable SKIP,
        # say Layer 7 without a Prometheus, does not keep its figures out of the baseline)
        if not any(r["status"] == PASS for r in results) or any(r["status"] in _results.NOT_PASSING for r in results):
            continue
        counted += 1
        facts = doc.get("facts", {})
        _peak(facts.get("layer5", {}).get("nccl_node"), busbw)
        for source, name in COLLECTIVE_FIGURES.items():
            _peak(facts.get("layer5", {}).get(source), collectives.setdefault(name, {}))
        for record in results:
            detail = record.get("detail") or {}
            if record["check"] in POD_COLLECTIVES and record["status"] == PASS and detail.get("busbw"):
                sizes = across.setdefault(POD_COLLECTIVES[record["check"]], {})
                for size, value in detail["busbw"].items():
                    sizes.setdefault((size, detail.get("nodes") or 0), []).append(value)
            if record["check"] in ALL_REDUCE_ACROSS and record["status"] == PASS and detail.get("busbw"):
                sizes = by_count.setdefault(str(detail["nodes"]), {})
                for size, value in detail["busbw"].items():
                    sizes.setdefault(size, []).append(value)
        training = facts.get("layer6", {}).get("training_node") or {}
        median = _step_median(training, doc.get("expect", {}).get("pyramid_train_warmup_steps", 5))
        if median is not None:
            steps.append(median)
    values = {}
    if busbw:
        values["pyramid_nccl_node_busbw"] = {size: round(statistics.median(found), 1) for size, found in busbw.items()}
    found = {name: {size: round(statistics.median(peaks), 1) for size, peaks in sizes.items()}
             for name, sizes in collectives.items() if sizes}
    if found:
        values["pyramid_nccl_collective_busbw"] = found
    # one run across the pod per collective: every GO node that held it carries the same figure (the most nodes' run,
    # should a node hold a smaller one: a --limit run's partner rounds)
    pod = {}
    for name, sizes in across.items():
        most = max(nodes for _size, nodes in sizes)
        pod[name] = {size: round(statistics.median(found), 1) for (size, nodes), found in sizes.items() if nodes == most}
    if pod:
        values["pyramid_nccl_pod_collective_busbw"] = pod
    if by_count:  # every node of a run carries its figures: the median over the runs at that count (the pairs)
        values["pyramid_nccl_scale_busbw"] = {nodes: {size: round(statistics.median(found), 1) for size, found in sizes.items()}
                                              for nodes, sizes in by_count.items()}
    if steps:
        values["pyramid_train_step_ms_baseline"] = round(statistics.median(steps), 1)
    return values, counted


def pod_collective_nodes(run_dir, hosts):
    """How many nodes the passing runs across the pod held (their records' detail), for baseline.yml's comment."""
    counts = {((r.get("detail") or {}).get("nodes") or 0) for host in hosts for r in _results.load(run_dir, host)["results"]
              if r["check"] in POD_COLLECTIVES and r["status"] == PASS}
    return max(counts) if counts else 0


def text(values, counted, run_id, verdict, across_nodes=0):
    header = HEADER % {"run": run_id, "verdict": verdict, "count": counted}
    if "pyramid_nccl_pod_collective_busbw" in values:
        header += ACROSS % {"nodes": across_nodes or "the"}
    if "pyramid_nccl_scale_busbw" in values:
        header += SCALE % {"counts": ", ".join(sorted(values["pyramid_nccl_scale_busbw"], key=int))}
    return header + yaml.safe_dump(values, sort_keys=True)
