# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 4 judges: one run of ib_write_bw between two nodes on one rail (judging/rail_rounds.py then
places each miss on a node's rail, the path between two nodes, or the whole rail), and its GPUDirect
run against the host-memory run of the same pair, rail and direction; Layer 2's one ping run on one rail.
Each is called (facts, expect), once per run, by run/rail_mesh.py measured()."""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SourceFailure, verdict
from .registry import judge


@judge("rail_write_bw", scope="rail_mesh")
def rail_write_bw(facts, expect):
    """The client's ib_write_bw average at the largest message size, against pyramid_rdma_gbps_min."""
    wanted = expect["pyramid_rdma_gbps_min"]
    expected = "ib_write_bw average >= %g Gb/s" % wanted
    if isinstance(facts, SourceFailure) or facts is None:
        return verdict(ERROR, expected, facts.reason if facts is not None else "no output was collected")
    gbps = facts["gbps"]
    status = PASS if gbps >= wanted else FAIL
    return verdict(status, expected, "%.1f Gb/s at %d bytes" % (gbps, facts["bytes"]), gbps=gbps)


@judge("rail_gpudirect_bw", scope="rail_mesh")
def rail_gpudirect_bw(facts, expect):
    """One GPUDirect run (--use_cuda: the buffer in the GPU nearest the rail) against the host-memory run
    of the same pair, rail and direction, which run/rail_mesh.py puts in ``facts["host_memory"]``
    ({"gbps": figure or None, "said": what that run said}). Seed 004: GPUDirect within 5-10% of host
    memory, else GPUDirect is the cause. A run that shows no GPU picked did not test GPUDirect: ERROR."""
    tolerance = expect["pyramid_rdma_gpudirect_tolerance_percent"]
    expected = "GPUDirect ib_write_bw within %g%% of the host-memory run" % tolerance
    if isinstance(facts, SourceFailure) or facts is None:
        if facts is not None and (facts.partial or {}).get("memory_type_unsupported"):  # the parser read perftest's refusal
            return verdict(ERROR, expected, "this ib_write_bw has no CUDA support (perftest: Unsupported memory type): build "
                           "perftest with CUDA, or set pyramid_rdma_gpudirect: false")
        return verdict(ERROR, expected, facts.reason if facts is not None else "no output was collected")
    if facts.get("cuda_device") is None:
        return verdict(ERROR, expected, "ib_write_bw did not say which GPU it used (no 'Picking device No.' line): "
                       "not a GPUDirect run")
    host = facts.get("host_memory") or {}
    if host.get("gbps") is None:
        return verdict(ERROR, expected, "%.1f Gb/s from GPU %d, but no host-memory run of this pair and rail to compare "
                       "with (%s)" % (facts["gbps"], facts["cuda_device"], host.get("said") or "not measured"))
    gbps, base = facts["gbps"], host["gbps"]
    share = 100.0 * gbps / base if base else 0.0
    status = PASS if gbps >= base * (1 - tolerance / 100.0) else FAIL
    return verdict(status, expected, "%.1f Gb/s from GPU %d, %.0f%% of host memory's %.1f Gb/s" % (
        gbps, facts["cuda_device"], share, base), gbps=gbps, note="%.0f%% of host memory's %.1f" % (share, base))


rail_gpudirect_bw.baseline = "rail_write_bw"  # judged against that judge's run of the same pair, rail and direction


@judge("rail_ping", scope="rail_mesh")
def rail_ping(facts, expect):
    """One ping run on one rail: no more loss than allowed, an average round trip within the limit.
    A source address not on the host and no route at all are findings (FAIL with their own cause)."""
    loss_max, rtt_max = expect["pyramid_ping_loss_max_percent"], expect["pyramid_ping_rtt_max_ms"]
    expected = "loss <= %g%%, rtt avg <= %g ms" % (loss_max, rtt_max)
    if isinstance(facts, SourceFailure) or facts is None:
        return verdict(ERROR, expected, facts.reason if facts is not None else "no output was collected")
    if facts["source_address_missing"]:
        return verdict(FAIL, expected, "this node has no such source address (bind: Cannot assign requested address)",
                       cause_key="address")
    if facts["no_route"]:
        return verdict(FAIL, expected, "no route (connect: Network is unreachable)", cause_key="no_route")
    said = "%d/%d replies, %g%% loss" % (facts["received"], facts["transmitted"], facts["loss_percent"])
    if facts["rtt_avg_ms"] is not None:
        said += ", rtt avg %.3f ms" % facts["rtt_avg_ms"]
    slow = facts["rtt_avg_ms"] is not None and facts["rtt_avg_ms"] > rtt_max
    status = FAIL if facts["loss_percent"] > loss_max or slow else PASS
    return verdict(status, expected, said, rtt_ms=facts["rtt_avg_ms"], loss_percent=facts["loss_percent"])


def rtt_outliers(runs, expect):
    """Runs whose round trip stands out from the pod's: more than pyramid_ping_rtt_outlier_ratio times
    the median of the passing runs on that rail, and more than pyramid_ping_rtt_outlier_floor_ms above
    it (a few microseconds between a leaf and a spine path are not an outlier). They FAIL, saying both."""
    ratio, floor = expect["pyramid_ping_rtt_outlier_ratio"], expect["pyramid_ping_rtt_outlier_floor_ms"]
    by_rail = {}
    for run in runs:
        if run["status"] == PASS and run.get("rtt_ms") is not None:
            by_rail.setdefault(run["rail"], []).append(run["rtt_ms"])
    for run in runs:
        values = sorted(by_rail.get(run["rail"], []))
        if run["status"] != PASS or run.get("rtt_ms") is None or len(values) < 3:
            continue  # fewer than three passing runs on a rail: no median to stand out from
        median = values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
        if run["rtt_ms"] > ratio * median and run["rtt_ms"] - median > floor:
            run.update(status=FAIL, actual="rtt avg %.3f ms, %.0fx the pod's median %.3f ms on this rail" % (
                run["rtt_ms"], run["rtt_ms"] / median if median else float("inf"), median))
    return runs


rail_ping.relative = rtt_outliers  # judged against the pod once every run is in (run/rail_mesh.measured)
