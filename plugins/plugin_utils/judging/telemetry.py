# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 7: are the golden signals of this device in Prometheus, and fresh?

Facts per source (one per signal): selector -> {"series": [this device's series], "evaluated_at": t}
or a SourceFailure (the query failed). Each series' value is the time of its newest sample (the
query was timestamp(SELECTOR)), so its age is the evaluation time minus the value: Prometheus' own
clock on both sides, whatever the controller's clock says.
"""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SourceFailure, counted, verdict
from .registry import judge, summary

SIGNALS = {
    "telemetry_gpu_activity": "GPU activity",
    "telemetry_gpu_health": "GPU health",
    "telemetry_rdma_throughput": "per-rail RDMA throughput",
    "telemetry_congestion": "congestion",
    "telemetry_link_errors": "link errors",
    "telemetry_switch_throughput": "port throughput",
    "telemetry_switch_congestion": "congestion",
    "telemetry_switch_link_errors": "link errors",
}
# Signals whose series carry one item each: every item the node has must have its own fresh series (issue 40: a
# signal answered for some rails or GPUs only is not "fresh"). node_exporter's infiniband collector labels the RDMA
# device (device="mlx5_0", port="1"); dcgm-exporter labels the GPU by index (gpu="0").
PER_ITEM = {"telemetry_rdma_throughput": "device", "telemetry_link_errors": "device",
            "telemetry_gpu_activity": "gpu", "telemetry_gpu_health": "gpu"}
RAIL_LABEL = "device"
# Signals whose series carry one network interface each, named as the host names it (node_exporter's ethtool collector
# labels the netdev, device="eth3"): those names are not in the inventory, so every rail's interface is proven by
# count, each interface's own series fresh (issue 68: the pause counters of some interfaces missing passed).
PER_INTERFACE = {"telemetry_congestion": "device"}


def _newest(series, label=None, item=None):
    """Time of the newest sample among the series (of one item, by its label), or None when there is none."""
    times = [entry["value"] for entry in series if label is None or entry["labels"].get(label) == item]
    return max(times) if times else None


def _problems(selector, read, max_age, label=None, items=()):
    """What is wrong with one selector's series for this device: [] when fresh. With ``label``, each of ``items``
    needs its own series (when the series carry that label at all: a relabelled exporter is judged as a whole)."""
    series = read["series"]
    if not series:
        return ["missing %s" % selector]
    if label and items and any(label in entry["labels"] for entry in series):
        lacking = [item for item in items if _newest(series, label, item) is None]
        old = ["%s %ds old" % (item, read["evaluated_at"] - _newest(series, label, item)) for item in items
               if item not in lacking and read["evaluated_at"] - _newest(series, label, item) > max_age]
        if not lacking and len(old) == len(items):  # the exporter stopped as a whole: one age says it
            return ["stale %s (newest sample %ds old)" % (selector, read["evaluated_at"] - _newest(series))]
        return (["missing %s for %s" % (selector, ", ".join(lacking))] if lacking else []) + \
            (["stale %s (newest sample: %s)" % (selector, ", ".join(old))] if old else [])
    age = read["evaluated_at"] - _newest(series)
    return ["stale %s (newest sample %ds old)" % (selector, age)] if age > max_age else []


def _interface_problems(selector, read, max_age, label, rails):
    """Each of ``rails`` interfaces needs its own fresh series of ``selector`` (by ``label``): fewer interfaces than
    rails is a rail's interface missing; an interface's series older than ``max_age`` is stale."""
    series = read["series"]
    if not series:
        return ["missing %s" % selector]
    newest = {}
    for entry in series:
        name = entry["labels"].get(label)
        if name is not None:
            newest[name] = max(newest.get(name, entry["value"]), entry["value"])
    problems = []
    if len(newest) < rails:
        problems.append("missing %s for %d of %d rails' interfaces (series for %s)" % (
            selector, rails - len(newest), rails, ", ".join(sorted(newest)[:8]) or "no interface"))
    old = ["%s %ds old" % (name, read["evaluated_at"] - newest[name]) for name in sorted(newest)
           if read["evaluated_at"] - newest[name] > max_age]
    if old and len(old) == len(newest) and not problems:  # the exporter stopped as a whole: one age says it
        return ["stale %s (newest sample %ds old)" % (selector, read["evaluated_at"] - max(newest.values()))]
    return problems + (["stale %s (newest sample: %s)" % (selector, ", ".join(old))] if old else [])


def _items(source, expect):
    """(label, the items a device must have a series of) for one signal."""
    label = PER_ITEM.get(source)
    if label == RAIL_LABEL:
        return label, list(expect.get("pyramid_rails") or [])
    if label == "gpu":
        return label, [str(gpu) for gpu in range(expect.get("pyramid_gpus_per_node") or 0)]
    return None, []


@judge("telemetry_signals")
def telemetry_signals(facts, expect):
    device, max_age = expect["pyramid_telemetry_device"], expect["pyramid_telemetry_max_age_seconds"]
    failed, unread, fresh, oldest, answered = [], [], 0, 0, 0
    for source, reads in facts.items():
        signal = SIGNALS.get(source, source)
        for selector, read in sorted((reads or {}).items()):
            if read is None or isinstance(read, SourceFailure):
                unread.append("%s (%s): %s" % (signal, selector, read.reason if read else "not queried"))
                continue
            answered += 1
            if source in PER_INTERFACE and expect.get("pyramid_rails"):
                problems = _interface_problems(selector, read, max_age, PER_INTERFACE[source], len(expect["pyramid_rails"]))
            else:
                problems = _problems(selector, read, max_age, *_items(source, expect))
            failed.extend("%s: %s" % (signal, problem) for problem in problems)
            if not problems:
                fresh += 1
                oldest = max(oldest, read["evaluated_at"] - _newest(read["series"]))
    expected = "every signal's series for %s in Prometheus (label %s), each with a sample in the last %ds" % (
        device, expect["pyramid_telemetry_device_label"], max_age)
    if failed and answered and not fresh and all(not read["series"] for reads in facts.values() for read in (reads or {}).values()
                                                 if read is not None and not isinstance(read, SourceFailure)):
        # not one series of the device: it is not scraped, or under another name (the label, the name)
        failed = ["no series at all for it (%s=%s or %s:<port>): not scraped, or under another name" % (
            expect["pyramid_telemetry_device_label"], device, device)] + failed
    if failed:
        also = "; not read: %s" % summary(unread, 3) if unread else ""
        return verdict(FAIL, expected, "%s: %s%s" % (device, summary(failed), also),
                       detail={"device": True, "signals": sorted({item.split(":")[0] for item in failed})})
    if unread:
        return verdict(ERROR, expected, "Prometheus could not be read for %s: %s" % (device, summary(unread, 3)),
                       cause="No telemetry data: Prometheus unreachable or its API refused a query (see actual)")
    if not fresh:
        return verdict(ERROR, expected, "no signal configured for %s" % device)
    return verdict(PASS, expected, "%s fresh for %s (oldest newest-sample %ds)" % (counted(fresh, "series selector"), device, oldest))
