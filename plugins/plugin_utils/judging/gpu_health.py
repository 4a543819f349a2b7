# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 0 GPU health judges (catalog/gpu_health.yml): Xid, ECC, row remapping, PCIe link, NVLink,
fabric manager, clock events. Every finding names the GPU by its nvidia-smi index and bus id."""

from __future__ import annotations

import collections

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, verdict
from ..parsing.nvidia_smi import bus_key
from .registry import judge, summary as _summary


def gpu_name(gpu):
    """'GPU 3 (0000:5d:00.0)': the index nvidia-smi and CUDA use, and the bus id the kernel log uses."""
    domain, bus, rest = gpu["bus_id"].split(":")
    return "GPU %d (%04x:%s:%s)" % (gpu["index"], int(domain, 16), bus.lower(), rest.lower())


def _not_applicable(expected, why):
    """SKIP that does not count against GO (record key not_applicable, as for a switch platform)."""
    return verdict(SKIP, expected, "not applicable: " + why, not_applicable=True)


@judge("gpu_xid")
def gpu_xid(facts, expect):
    drain = expect["pyramid_gpu_xid_drain_codes"]
    expected = "no Xid of %s since boot" % ", ".join(str(code) for code in drain)
    log, query = facts["kernel_log"], facts["gpu_query"]
    if isinstance(log, SourceFailure):
        return verdict(ERROR, expected, log.reason, cause="No data from `%s`" % log.command, command=log.command)
    names = {} if isinstance(query, SourceFailure) else {bus_key(gpu["bus_id"]): gpu_name(gpu) for gpu in query["gpus"]}
    found = collections.OrderedDict()  # (gpu, code) -> count
    for xid in log["xids"]:
        key = (names.get(xid["pci"], "GPU at %s" % xid["pci"]), xid["code"])
        found[key] = found.get(key, 0) + 1
    fatal = ["%s: Xid %d%s" % (gpu, code, " x%d" % n if n > 1 else "") for (gpu, code), n in found.items() if code in drain]
    other = ["%s: Xid %d%s" % (gpu, code, " x%d" % n if n > 1 else "") for (gpu, code), n in found.items() if code not in drain]
    reported = "; also reported (not drain codes): %s" % _summary(other) if other else ""
    if fatal:
        return verdict(FAIL, expected, _summary(fatal) + reported)
    if other:
        return verdict(PASS, expected, "no drain-class Xid; reported (not drain codes): %s" % _summary(other))
    return verdict(PASS, expected, "no Xid in %s since boot" % counted(log["lines"], "kernel log line"))


def _each_gpu(facts):
    gpus = facts["gpu_query"]["gpus"]
    if not gpus:
        raise ValueError("nvidia-smi -q listed no GPU")
    return gpus


@judge("gpu_ecc")
def gpu_ecc(facts, expect):
    most = expect["pyramid_gpu_ecc_uncorrectable_max"]
    expected = "ECC enabled, at most %d uncorrectable ECC errors (volatile and aggregate) per GPU" % most
    bad, unknown, gpus = [], [], _each_gpu(facts)
    for gpu in gpus:
        ecc = gpu["ecc"]
        if ecc["mode"] != "Enabled":
            bad.append("%s: ECC %s" % (gpu_name(gpu), ecc["mode"] or "not reported"))
            continue
        if ecc["volatile_uncorrectable"] is None or ecc["aggregate_uncorrectable"] is None:
            unknown.append(gpu_name(gpu))
            continue
        if ecc["volatile_uncorrectable"] > most or ecc["aggregate_uncorrectable"] > most:
            bad.append("%s: %d uncorrectable volatile, %d aggregate" % (
                gpu_name(gpu), ecc["volatile_uncorrectable"], ecc["aggregate_uncorrectable"]))
    if bad:
        return verdict(FAIL, expected, _summary(bad))
    if unknown:
        return verdict(ERROR, expected, "ECC enabled but no uncorrectable error counts reported for " + _summary(unknown))
    return verdict(PASS, expected, "%s: ECC on, no uncorrectable errors" % counted(len(gpus), "GPU"))


@judge("gpu_row_remap")
def gpu_row_remap(facts, expect):
    expected = "no row remapping pending or failed on any GPU"
    gpus = _each_gpu(facts)
    with_remapper = [gpu for gpu in gpus if gpu["remapped_rows"] is not None]
    if not with_remapper:
        return _not_applicable(expected, "no GPU reports remapped rows (no HBM row remapper: pre-Ampere or not HBM)")
    failed = ["%s: remapping failure occurred" % gpu_name(gpu) for gpu in with_remapper if gpu["remapped_rows"]["failure"]]
    pending = ["%s: remapping pending (%d uncorrectable, %d correctable rows remapped)" % (
        gpu_name(gpu), gpu["remapped_rows"]["uncorrectable"] or 0, gpu["remapped_rows"]["correctable"] or 0)
        for gpu in with_remapper if gpu["remapped_rows"]["pending"]]
    if failed:
        return verdict(FAIL, expected, _summary(failed + pending),
                       cause="Row remapping failed: the GPU has no spare rows left for a failing HBM row (RMA criterion once "
                             "NVIDIA's field diagnostic confirms it)")
    if pending:
        return verdict(FAIL, expected, _summary(pending))
    return verdict(PASS, expected, "%s: no remap pending or failed" % counted(len(with_remapper), "GPU"))


@judge("gpu_pcie_link")
def gpu_pcie_link(facts, expect):
    """Width is judged always. Generation only in P0: the driver lowers the link generation with the
    performance state (nvidia-smi: "These may be reduced when the GPU is not in use"); a datacenter GPU
    in persistence mode idles in P0 at its full generation (the real H100 and A100 captures)."""
    expected = "every GPU at its maximum PCIe width, and generation when in P0"
    bad, noted, unknown, gpus = [], [], [], _each_gpu(facts)
    for gpu in gpus:
        pcie, name = gpu["pcie"], gpu_name(gpu)
        if None in (pcie["width_current"], pcie["width_max"], pcie["gen_current"], pcie["gen_max"]):
            unknown.append(name)
            continue
        if pcie["width_current"] < pcie["width_max"]:
            bad.append("%s: x%d of x%d" % (name, pcie["width_current"], pcie["width_max"]))
        if pcie["gen_current"] < pcie["gen_max"]:
            where = "Gen%d of Gen%d" % (pcie["gen_current"], pcie["gen_max"])
            if gpu["performance_state"] == "P0":
                bad.append("%s: %s in P0" % (name, where))
            else:
                noted.append("%s: %s in %s (not judged outside P0)" % (name, where, gpu["performance_state"]))
    if bad:
        return verdict(FAIL, expected, _summary(bad + noted))
    if unknown:
        return verdict(ERROR, expected, "PCIe link generation or width not reported for " + _summary(unknown))
    links = sorted({"Gen%d x%d" % (gpu["pcie"]["gen_current"], gpu["pcie"]["width_current"]) for gpu in gpus})
    replays = sum(gpu["pcie"]["replays"] or 0 for gpu in gpus)
    return verdict(PASS, expected, "%s at %s%s; %d PCIe replays since reset%s" % (
        counted(len(gpus), "GPU"), "/".join(links), "" if not noted else " (" + _summary(noted) + ")", replays,
        "" if not noted else ""))


@judge("gpu_nvlink")
def gpu_nvlink(facts, expect):
    want = expect["pyramid_gpu_nvlinks"]
    expected = "%s per GPU up at one rate" % counted(want, "NVLink")
    if want == 0:
        return _not_applicable(expected, "pyramid_gpu_nvlinks is 0 (GPUs without NVLink)")
    status = facts["gpu_nvlink"]["gpus"]
    rates = [rate for gpu in status.values() for rate in gpu["links"].values() if rate is not None]
    top = max(rates) if rates else None
    bad = []
    for gpu in _each_gpu(facts):
        links = status.get(gpu["index"], {}).get("links", {})
        down = sorted(link for link, rate in links.items() if rate is None)
        slow = sorted(link for link, rate in links.items() if rate is not None and rate < top)
        problems = []
        if len(links) < want:
            problems.append("%d of %d links listed" % (len(links), want))
        if down:
            problems.append("link %s inactive" % ", ".join(str(link) for link in down))
        if slow:
            problems.append("link %s below %s GB/s" % (", ".join(str(link) for link in slow), top))
        if problems:
            bad.append("%s: %s" % (gpu_name(gpu), ", ".join(problems)))
    if bad:
        return verdict(FAIL, expected, _summary(bad))
    return verdict(PASS, expected, "%s x %s at %s GB/s" % (counted(len(status), "GPU"), counted(want, "link"), top))


@judge("gpu_fabric")
def gpu_fabric(facts, expect):
    expected = "Fabric State Completed, Status Success on every GPU"
    gpus = _each_gpu(facts)
    reporting = [gpu for gpu in gpus if gpu["fabric"] is not None]
    if not reporting:
        return _not_applicable(expected, "no GPU reports a fabric state (no NVSwitch fabric, or a GPU before Hopper)")
    bad = ["%s: State %s, Status %s" % (gpu_name(gpu), gpu["fabric"]["state"], gpu["fabric"]["status"] or "N/A")
           for gpu in reporting if gpu["fabric"]["state"] != "Completed" or gpu["fabric"]["status"] != "Success"]
    if bad:
        return verdict(FAIL, expected, _summary(bad))
    return verdict(PASS, expected, "%s: fabric Completed/Success" % counted(len(reporting), "GPU"))


@judge("gpu_clocks")
def gpu_clocks(facts, expect):
    failing = expect["pyramid_gpu_clock_events_fail"]
    expected = "none of %s active" % ", ".join(failing)
    bad, unknown, gpus = [], [], _each_gpu(facts)
    for gpu in gpus:
        events = gpu["clock_events"]
        if not events:
            unknown.append(gpu_name(gpu))
            continue
        active = [reason for reason in failing if events.get(reason)]
        if active:
            bad.append("%s: %s active" % (gpu_name(gpu), ", ".join(active)))
    if bad:
        return verdict(FAIL, expected, _summary(bad))
    if unknown:
        return verdict(ERROR, expected, "no clock event reasons reported for " + _summary(unknown))
    return verdict(PASS, expected, "%s: no slowdown active" % counted(len(gpus), "GPU"))
