# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 1 on the GPU nodes: the GPUs' own links over the soak (catalog/gpu_health.yml). The PCIe replay and
NVLink error counters are read at the start of the soak (counter_snapshot, before the switches' Layer 1) and
again after it; a counter that rises on an idle node is a link going bad now, even when its count since
reset is still small (Layer 0's gpu_pcie_link and gpu_nvlink_errors judge that count).

Each source reaches the judge as {"before": facts, "after": facts, "seconds": s}. The snapshot went through
the results file (JSON), so its GPU and link keys are strings there: both reads are keyed by str()."""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, counted, verdict
from .gpu_health import NVLINK_CRC, NVLINK_RECOVERY, _counted, _not_applicable, gpu_name
from .registry import judge, summary as _summary

_BACKWARDS = "went from %d to %d (the GPU or its counters were reset during the soak)"


def _by_bus(query):
    return {gpu["bus_id"]: gpu for gpu in query["gpus"]}


@judge("gpu_pcie_replays_soak")
def gpu_pcie_replays_soak(facts, expect):
    """PCIe replays per minute over the soak, per GPU, against DCGM's limit (8 a minute). A GPU listed at the
    snapshot and missing now fell off the bus during the soak: a FAIL. A counter that went backwards, or a GPU
    without a count in either read, is not compared (ERROR): a window never passes on missing data."""
    window, most = facts["gpu_query_soak"], expect["pyramid_gpu_pcie_replays_per_minute_max"]
    seconds = max(window["seconds"], 1)
    expected = "at most %d PCIe replays a minute per GPU over the %ds soak" % (most, window["seconds"])
    before, after = _by_bus(window["before"]), _by_bus(window["after"])
    bad, unread, rising = [], [], 0
    for bus_id, old in before.items():
        new = after.get(bus_id)
        if new is None:
            bad.append("%s: listed at the snapshot, gone from nvidia-smi now (fell off the bus?)" % gpu_name(old))
            continue
        first, last = old["pcie"]["replays"], new["pcie"]["replays"]
        if first is None or last is None:
            unread.append("%s: no replay count %s" % (gpu_name(new), "at the snapshot" if first is None else "now"))
        elif last < first:
            unread.append("%s: replays %s" % (gpu_name(new), _BACKWARDS % (first, last)))
        elif (last - first) * 60.0 / seconds > most:
            bad.append("%s: +%d PCIe replays in %ds (%.1f a minute)" % (gpu_name(new), last - first, seconds,
                                                                        (last - first) * 60.0 / seconds))
        else:
            rising += last - first
    unread += ["%s: not listed at the snapshot" % gpu_name(gpu) for bus_id, gpu in after.items() if bus_id not in before]
    if bad:
        return verdict(FAIL, expected, _summary(bad + unread))
    if unread:
        return verdict(ERROR, expected, "PCIe replays not compared across the soak: " + _summary(unread),
                       cause="PCIe replay counters could not be compared across the soak (a failed read, or a GPU reset)")
    if not before:
        raise ValueError("nvidia-smi -q listed no GPU")
    return verdict(PASS, expected, "%s: %d PCIe replays in %ds" % (counted(len(before), "GPU"), rising, seconds))


def _links(read):
    """{gpu index: {link: counters}} with string keys (the snapshot's came back from JSON)."""
    return {str(index): {str(link): counters for link, counters in gpu["links"].items()}
            for index, gpu in read["gpus"].items()}


def _link_rise(old, new, recovery_most, crc_per_second, seconds):
    """(problem, unread) of one link over the soak; each None or a text."""
    rises = []
    for label, names in (("recovery", NVLINK_RECOVERY), ("CRC", NVLINK_CRC)):
        first, last = _counted(old, names), _counted(new, names)
        if first is None and last is None and label == "CRC":
            continue  # NVLink 5 prints no CRC counter; recovery is required (gpu_nvlink_errors says the same)
        if first is None or last is None:
            return None, "%s not read %s" % (label, "at the snapshot" if first is None else "now")
        if last < first:
            return None, "%s %s" % (label, _BACKWARDS % (first, last))
        rises.append((label, last - first))
    found = ["+%d %s" % (rise, label) for label, rise in rises
             if rise > (recovery_most if label == "recovery" else crc_per_second * seconds)]
    return (", ".join(found) or None), None


@judge("gpu_nvlink_errors_soak")
def gpu_nvlink_errors_soak(facts, expect):
    """NVLink recovery errors (any, by default) and CRC errors (over DCGM's 100 a second) that rise over the
    soak, per GPU and link. Every link listed at either read must be listed at both."""
    if expect["pyramid_gpu_nvlinks"] == 0:
        return _not_applicable("no NVLink error rising over the soak", "pyramid_gpu_nvlinks is 0 (GPUs without NVLink)")
    window = facts["gpu_nvlink_errors_soak"]
    seconds = max(window["seconds"], 1)
    recovery_most, crc_per_second = (expect["pyramid_gpu_nvlink_recoveries_soak_max"],
                                     expect["pyramid_gpu_nvlink_crc_per_second_max"])
    expected = "at most %d NVLink recovery errors per link and %g CRC errors a second over the %ds soak" % (
        recovery_most, crc_per_second, window["seconds"])
    before, after = _links(window["before"]), _links(window["after"])
    names = {str(gpu["index"]): gpu_name(gpu) for gpu in facts["gpu_query_soak"]["after"]["gpus"]}
    bad, unread, links = [], [], 0
    for index in sorted(set(before) | set(after), key=int):
        old_links, new_links = before.get(index, {}), after.get(index, {})
        for link in sorted(set(old_links) | set(new_links), key=int):
            where = "%s link %s" % (names.get(index, "GPU %s" % index), link)
            if link not in old_links or link not in new_links:
                unread.append("%s: not listed %s" % (where, "at the snapshot" if link not in old_links else "now"))
                continue
            links += 1
            problem, missing = _link_rise(old_links[link], new_links[link], recovery_most, crc_per_second, seconds)
            if problem:
                bad.append("%s: %s in %ds" % (where, problem, seconds))
            if missing:
                unread.append("%s: %s" % (where, missing))
    # proof, not absence: every GPU nvidia-smi -q lists has its links in both reads (a read that lists GPU 0 alone
    # says nothing of the other seven)
    uncovered = []
    for index, name in sorted(names.items(), key=lambda item: int(item[0])):
        compared = len(set(before.get(index, {})) & set(after.get(index, {})))
        if index not in before and index not in after:
            uncovered.append("%s: not listed at either read" % name)
        elif compared < expect["pyramid_gpu_nvlinks"] and not any(said.startswith(name + " link") for said in unread):
            uncovered.append("%s: counters of %d of %d links at both reads" % (name, compared, expect["pyramid_gpu_nvlinks"]))
    if bad:
        return verdict(FAIL, expected, _summary(bad + unread + uncovered))
    if unread:
        return verdict(ERROR, expected, "NVLink error counters not compared across the soak: " + _summary(unread + uncovered),
                       cause="NVLink error counters could not be compared across the soak (a link missing from a read, "
                             "or counters reset with nvidia-smi nvlink -r)")
    if not links:
        return verdict(ERROR, expected, "nvidia-smi nvlink -e listed no link at either read, where %s per GPU are "
                                        "expected" % counted(expect["pyramid_gpu_nvlinks"], "NVLink"))
    if uncovered:
        return verdict(ERROR, expected, "NVLink error counters not read for every GPU: " + _summary(uncovered),
                       cause="nvidia-smi nvlink -e did not list every GPU's links (a read cut short): no GPU passes unread")
    return verdict(PASS, expected, "%s over %ds: no recovery, CRC under the allowance" % (counted(links, "link"), seconds))
