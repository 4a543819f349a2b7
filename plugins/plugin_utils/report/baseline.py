# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The figures a run measured on its GO nodes, as inventory variables for later runs (baseline.yml)."""

from __future__ import annotations

import statistics

import yaml

from ..core import catalog as _catalog, results as _results
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
# what each check's passing results give (its `baseline:`, catalog/nccl_node.yml, nccl_fabric.yml, training.yml): the node's own figures from its facts
# (the first source the check reads, at its layer), and from a passing run's record across nodes: all-reduce (rounds
# 2 and 3: its busbw at each size of its table and its node count, judging/fabric.py nccl_group, pyramid_nccl_scale_busbw's
# figures by node count), or the pod's own collective of that name (one run for the pod)
NODE_ALL_REDUCE, TRAIN_STEP, ALL_REDUCE = "node_all_reduce", "train_step", "all_reduce"


def _by_baseline(catalog):
    """{baseline name: [the checks that give it]}."""
    found = {}
    for check in (catalog or _catalog.load_catalog())["checks"]:
        if check.get("baseline"):
            found.setdefault(check["baseline"], []).append(check)
    return found


def _pod_collectives(given):
    """{check id: collective} of the runs across the pod whose figures go to pyramid_nccl_pod_collective_busbw."""
    return {check["id"]: name for name, checks in given.items() if name not in (NODE_ALL_REDUCE, TRAIN_STEP, ALL_REDUCE)
            for check in checks}


def _node_facts(facts, checks):
    """The facts of the first source of the first of ``checks`` read at its layer (None where not read)."""
    return next((facts.get("layer%d" % check["layer"], {}).get(check["sources"][0]) for check in checks), None)


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


def figures(run_dir, hosts, catalog=None):
    """{"pyramid_nccl_node_busbw": {size: GB/s}, "pyramid_nccl_collective_busbw": {collective: {size: GB/s}},
    "pyramid_nccl_pod_collective_busbw": {collective: {size: GB/s}} (the passing runs across the pod, from their records'
    detail), "pyramid_train_step_ms_baseline": ms}: medians over GO hosts."""
    busbw, collectives, across, steps, counted, by_count = {}, {}, {}, [], 0, {}
    given = _by_baseline(catalog)
    pod_collectives, all_reduce_across = _pod_collectives(given), {check["id"] for check in given.get(ALL_REDUCE, [])}
    for host in hosts:
        doc = _results.load(run_dir, host)
        results = doc["results"]
        # a GO host: something passed and nothing failed, errored or was blocked (a not-applicable SKIP,
        # say Layer 7 without a Prometheus, does not keep its figures out of the baseline)
        if not any(r["status"] == PASS for r in results) or any(r["status"] in _results.NOT_PASSING for r in results):
            continue
        counted += 1
        facts = doc.get("facts", {})
        _peak(_node_facts(facts, given.get(NODE_ALL_REDUCE, [])), busbw)
        for source, name in COLLECTIVE_FIGURES.items():
            _peak(facts.get("layer5", {}).get(source), collectives.setdefault(name, {}))
        for record in results:
            detail = record.get("detail") or {}
            if record["check"] in pod_collectives and record["status"] == PASS and detail.get("busbw"):
                sizes = across.setdefault(pod_collectives[record["check"]], {})
                for size, value in detail["busbw"].items():
                    sizes.setdefault((size, detail.get("nodes") or 0), []).append(value)
            if record["check"] in all_reduce_across and record["status"] == PASS and detail.get("busbw"):
                sizes = by_count.setdefault(str(detail["nodes"]), {})
                for size, value in detail["busbw"].items():
                    sizes.setdefault(size, []).append(value)
        training = _node_facts(facts, given.get(TRAIN_STEP, [])) or {}
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


def pod_collective_nodes(run_dir, hosts, catalog=None):
    """How many nodes the passing runs across the pod held (their records' detail), for baseline.yml's comment."""
    pod_collectives = _pod_collectives(_by_baseline(catalog))
    counts = {((r.get("detail") or {}).get("nodes") or 0) for host in hosts for r in _results.load(run_dir, host)["results"]
              if r["check"] in pod_collectives and r["status"] == PASS}
    return max(counts) if counts else 0


def text(values, counted, run_id, verdict, across_nodes=0):
    header = HEADER % {"run": run_id, "verdict": verdict, "count": counted}
    if "pyramid_nccl_pod_collective_busbw" in values:
        header += ACROSS % {"nodes": across_nodes or "the"}
    if "pyramid_nccl_scale_busbw" in values:
        header += SCALE % {"counts": ", ".join(sorted(values["pyramid_nccl_scale_busbw"], key=int))}
    return header + yaml.safe_dump(values, sort_keys=True)
