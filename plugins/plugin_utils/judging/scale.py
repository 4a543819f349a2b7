# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The all-reduce figures a run across N nodes is held to, by message size: expectations that hold at every scale.

nccl-tests' busbw (algbw x 2(R-1)/R for R ranks, its PERFORMANCE.md) is defined to stay flat in the rank count where
the run is bandwidth-bound, so the platform's figure holds at any N there. Where latency counts it does not: a ring
all-reduce across N nodes takes 2(N-1) steps between nodes, each adding a latency alpha (the alpha-beta model:
time = alpha x steps + size / bandwidth), so busbw at small sizes falls as the pod grows. A table measured at n0 nodes
(a platform's `nodes`, 2 unless it says otherwise) therefore holds, at every size, only up to n0 nodes (fewer nodes,
fewer steps: its figures are a floor there). Above n0 a size is latency-bound when the ring's latency, alpha x 2(N-1),
is more than pyramid_nccl_latency_share of the expected time at that size: then it is judged against the pod's own
latency model (alpha fitted from its pair runs, round 2) or, without one, reported and not judged. alpha for the rule,
where the pod has no model, is the one the table itself implies at its smallest size (the one latency dominates).
"""

from __future__ import annotations

import statistics

# A run's smallest size shows its latency only when the bytes it moves take next to no time: at most this much
LATENCY_PROBE_BYTES = 64 << 10
MEASURED_NODES = 2  # a platform table that does not say: seed 000's tables are 2-server runs


def ring_steps(nodes):
    """Steps between nodes of a ring all-reduce across ``nodes`` nodes: reduce-scatter then all-gather, N-1 each."""
    return 2 * (nodes - 1)


def bus_factor(ranks):
    """nccl-tests' busbw over algbw for all-reduce: 2(R-1)/R."""
    return 2.0 * (ranks - 1) / ranks if ranks > 1 else 1.0


def _time_us(size, busbw, ranks):
    """Microseconds an all-reduce of ``size`` bytes takes at ``busbw`` GB/s on ``ranks`` ranks (1 GB/s = 1000 B/us)."""
    return size * bus_factor(ranks) / (busbw * 1e3)


def run_latency(run, nodes, gpus):
    """alpha (us a ring step) of one all-reduce run across ``nodes`` nodes: its smallest size's time less the time
    that size takes at its largest size's busbw, over the ring's steps; None where the smallest size measured is too
    large to show the latency (over LATENCY_PROBE_BYTES: widen -b down) or a row's time is missing."""
    rows = [row for row in run.get("rows") or [] if row.get("oop_time_us") is not None]
    if nodes < 2 or not rows:
        return None
    small, large = min(rows, key=lambda row: row["size"]), max(rows, key=lambda row: row["size"])
    peak = max(large["oop_busbw"], large["ip_busbw"])
    if small["size"] > LATENCY_PROBE_BYTES or peak <= 0:
        return None
    took = min(value for value in (small["oop_time_us"], small.get("ip_time_us")) if value is not None)
    return max(took - _time_us(small["size"], peak, nodes * gpus), 0.0) / ring_steps(nodes)


def pod_latency(verdicts):
    """The pod's latency model from a round's verdicts: {"alpha_us", "runs"}, the median alpha of its passing runs'
    records (their detail's latency_us_per_step), or None where none passed with one."""
    found = [outcome["detail"]["latency_us_per_step"] for outcome in verdicts.values()
             if outcome.get("status") == "PASS" and (outcome.get("detail") or {}).get("latency_us_per_step") is not None]
    return {"alpha_us": round(statistics.median(found), 2), "runs": len(found)} if found else None


def table_latency(table, measured_nodes, ranks):
    """alpha the table implies at its smallest size (at its own node count and ``ranks`` ranks): that size's time at
    its figure less its time at the table's largest size's figure, over the ring's steps."""
    small, large = min(table), max(table)
    spare = _time_us(small, table[small], ranks) - _time_us(small, table[large], ranks)
    return max(spare, 0.0) / ring_steps(max(measured_nodes, 2))


def by_node_count(table, measured_nodes, nodes, gpus, share, model=None, per_count=None):
    """{size: (figure GB/s or None, how)} for a run across ``nodes`` nodes: ``table`` ({size: busbw}) measured at
    ``measured_nodes``; ``per_count`` ({nodes: {size: busbw}}, baseline.yml's) wins for its own node counts; ``model``
    ({"alpha_us", ...}) is the pod's latency model. None: reported, not judged (``how`` says why)."""
    own = (per_count or {}).get(nodes)
    if own:
        return {size: (want, "measured at %d nodes" % nodes) for size, want in own.items()}
    if nodes <= measured_nodes:
        return {size: (want, "measured at %d nodes" % measured_nodes) for size, want in table.items()}
    ranks = nodes * gpus
    alpha = model["alpha_us"] if model else table_latency(table, measured_nodes, measured_nodes * gpus)
    added = ring_steps(nodes) - ring_steps(measured_nodes)
    figures = {}
    for size, want in table.items():
        expected_us = _time_us(size, want, ranks) + alpha * added
        if alpha * ring_steps(nodes) <= share * expected_us:
            figures[size] = (want, "bandwidth-bound: flat in N")
        elif model:
            figures[size] = (size * bus_factor(ranks) / (expected_us * 1e3),
                             "latency-bound, the pod's model: %g at %d nodes + %d ring steps of %g us" % (
                                 want, measured_nodes, added, model["alpha_us"]))
        else:
            figures[size] = (None, "latency-bound at %d nodes, no model" % nodes)
    return figures
