# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 0 GPU health judges (catalog/gpu_health.yml): Xid, ECC, row remapping, PCIe link and replays,
NVLink state and error counters, the rail NICs' PCIe links, fabric manager, clock events, DCGM's diagnostic.
Every finding names the GPU by its nvidia-smi index and bus id (a NIC by its rail)."""

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
    # the GPU list only names the GPU of an Xid: read it only when there is one to name
    names = {} if not log["xids"] or isinstance(query, SourceFailure) else {
        bus_key(gpu["bus_id"]): gpu_name(gpu) for gpu in query["gpus"]}
    found = collections.OrderedDict()  # (gpu, code) -> count
    for xid in log["xids"]:
        key = (names.get(xid["pci"], "GPU at %s" % xid["pci"]), xid["code"])
        found[key] = found.get(key, 0) + 1
    fatal = ["%s: Xid %d%s" % (gpu, code, " x%d" % n if n > 1 else "") for (gpu, code), n in found.items() if code in drain]
    other = ["%s: Xid %d%s" % (gpu, code, " x%d" % n if n > 1 else "") for (gpu, code), n in found.items() if code not in drain]
    reported = "reported (not drain codes): %s" % _summary(other) if other else ""
    if fatal:
        return verdict(FAIL, expected, _summary(fatal) + ("; also " + reported if other else ""))
    unproven = log.get("unverified")
    if unproven:  # "no drain-class Xid" rests on what the log does not hold: only a log proven whole since boot says it
        return verdict(ERROR, expected, "no drain-class Xid in %s%s, but %s" % (
            counted(log["lines"], "kernel log line"), "; " + reported if other else "", unproven),
            cause="The kernel log cannot prove it holds every line since boot, so no Xid in it proves nothing: "
                  "read the host's journal (journalctl -k -b) for Xids; dmesg --json (util-linux 2.38+) or "
                  "journalctl let the check prove it, a reboot starts a log that reaches back to boot")
    if other:
        return verdict(PASS, expected, "no drain-class Xid; " + reported)
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


def _unreporting(gpus, reporting, what):
    """The GPUs of a node that do not report ``what`` where others of the same node do: one node's GPUs are one
    model on one driver, so a GPU without the field its neighbours print is a damaged read, never a pass."""
    indices = {gpu["index"] for gpu in reporting}
    return ["%s: no %s reported, where %s of %d do" % (gpu_name(gpu), what, len(reporting), len(gpus))
            for gpu in gpus if gpu["index"] not in indices]


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
    unread = _unreporting(gpus, with_remapper, "remapped rows")
    if failed:
        return verdict(FAIL, expected, _summary(failed + pending + unread),
                       cause="Row remapping failed: the GPU has no spare rows left for a failing HBM row (RMA criterion once "
                             "NVIDIA's field diagnostic confirms it)")
    if pending:
        return verdict(FAIL, expected, _summary(pending + unread))
    if unread:
        return verdict(ERROR, expected, "remapped rows unread: " + _summary(unread))
    return verdict(PASS, expected, "%s: no remap pending or failed" % counted(len(with_remapper), "GPU"))


@judge("gpu_pcie_link")
def gpu_pcie_link(facts, expect):
    """Width is judged always. Generation only in P0: the driver lowers the link generation with the
    performance state (nvidia-smi: "These may be reduced when the GPU is not in use"); a datacenter GPU
    in persistence mode idles in P0 at its full generation (the real H100 and A100 captures). Replays are
    judged as a count since reset: Layer 0 reads once, a rise over a soak needs two reads."""
    most = expect["pyramid_gpu_pcie_replays_max"]
    expected = "every GPU at its maximum PCIe width, and generation when in P0; at most %d PCIe replays since reset" % most
    bad, noted, unknown, replaying, gpus = [], [], [], [], _each_gpu(facts)
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
        if (pcie["replays"] or 0) > most:
            replaying.append("%s: %d PCIe replays since reset" % (name, pcie["replays"]))
    if bad:
        return verdict(FAIL, expected, _summary(bad + replaying + noted))
    if replaying:
        return verdict(FAIL, expected, _summary(replaying + noted),
                       cause="PCIe replays on a GPU's link: packets resent after link CRC errors (a marginal slot, riser, "
                             "retimer or cable), the link trained at full rate but is not clean")
    if unknown:
        return verdict(ERROR, expected, "PCIe link generation or width not reported for " + _summary(unknown))
    links = sorted({"Gen%d x%d" % (gpu["pcie"]["gen_current"], gpu["pcie"]["width_current"]) for gpu in gpus})
    replays = sum(gpu["pcie"]["replays"] or 0 for gpu in gpus)
    return verdict(PASS, expected, "%s at %s%s; %d PCIe replays since reset" % (
        counted(len(gpus), "GPU"), "/".join(links), "" if not noted else " (" + _summary(noted) + ")", replays))


@judge("gpu_nvlink")
def gpu_nvlink(facts, expect):
    # judges_failures (for gpu_topology, read only when nvlink -s is empty): a failure of the two sources the
    # verdict rests on is the engine's no-data ERROR, word for word
    failed = [facts[name] for name in ("gpu_nvlink", "gpu_query") if isinstance(facts[name], SourceFailure)]
    if failed:
        return verdict(ERROR, "parseable output from every source of gpu_nvlink", "; ".join(f.reason for f in failed),
                       cause="No data from %s" % ", ".join("`%s`" % f.command for f in failed),
                       command="; ".join(f.command for f in failed))
    want = expect["pyramid_gpu_nvlinks"]
    expected = "%s per GPU up at one rate" % counted(want, "NVLink")
    if want == 0:
        return _not_applicable(expected, "pyramid_gpu_nvlinks is 0 (GPUs without NVLink)")
    status = facts["gpu_nvlink"]["gpus"]
    cut = _nvlink_cut(status, _each_gpu(facts))
    if cut:
        return verdict(ERROR, expected, cut, cause="The NVLink read is incomplete (cut short on the way back): no link is "
                       "judged missing on a read that stops early; read `nvidia-smi nvlink -s` on the node")
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
    if bad and not status:
        return _nvlink_none(facts["gpu_topology"], expected, _summary(bad))
    if bad:
        return verdict(FAIL, expected, _summary(bad))
    return verdict(PASS, expected, "%s x %s at %s GB/s" % (counted(len(status), "GPU"), counted(want, "link"), top))


TOPO_COMMAND = "nvidia-smi topo -m"


def _nvlink_none(topology, expected, missing):
    """nvidia-smi nvlink -s printed no GPU at all: the real answer of GPUs without NVLink, and also a read cut
    before its first line. nvidia-smi topo -m, an independent read of the same driver, tells them apart: NV#
    between two GPUs there means the GPUs have NVLink and the empty listing was cut. Read only here, so a
    damaged topo -m never touches a verdict that does not rest on it."""
    if isinstance(topology, SourceFailure):
        return verdict(ERROR, expected, "nvidia-smi nvlink -s printed nothing and the cross-check could not be read: %s"
                       % topology.reason, cause="No data from `%s` (read because `nvidia-smi nvlink -s` printed nothing: "
                       "no NVLink, or a read cut before its first line)" % topology.command, command=topology.command)
    gpus = topology["gpus"]
    nvlinked = sorted(name for name, gpu in gpus.items()
                      if any(peer in gpus and str(kind).startswith("NV") for peer, kind in gpu["links"].items()))
    if nvlinked:
        return verdict(ERROR, expected, "nvidia-smi nvlink -s printed nothing, yet %s shows NVLink between the GPUs (%s): "
                       "the read was cut" % (TOPO_COMMAND, _summary(nvlinked, 3)),
                       cause="The NVLink read is incomplete (cut before its first line): no link is judged missing on "
                       "it; read `nvidia-smi nvlink -s` on the node", command="nvidia-smi nvlink -s; %s" % TOPO_COMMAND)
    if len(gpus) < 2:
        return verdict(FAIL, expected, "%s (%s lists %s: no GPU pair to show NVLink between)" % (
            missing, TOPO_COMMAND, counted(len(gpus), "GPU")))
    return verdict(FAIL, expected, "%s (%s confirms: no NVLink between its %d GPUs)" % (missing, TOPO_COMMAND, len(gpus)))


def _nvlink_cut(status, gpus):
    """Why `nvidia-smi nvlink -s` stopped early, or None. It prints every GPU the driver has, in index order,
    each with a line for every link (an inactive one too), and no trailer: a listing that names some GPUs
    but not all, or whose last GPU shows fewer links than every GPU before it, is a read cut short. (An
    empty one is the answer of GPUs without NVLink, or a cut before the first line: _nvlink_none asks
    nvidia-smi topo -m which.)"""
    if not status:
        return None
    listed = list(status)
    missing = [gpu_name(gpu) for gpu in gpus if gpu["index"] not in status]
    if missing:
        return "nvidia-smi nvlink -s lists %d of the %d GPUs (no %s): cut short" % (
            len(listed), len(gpus), _summary(missing, 3))
    before = [len(status[index]["links"]) for index in listed[:-1]]
    last = len(status[listed[-1]]["links"])
    if before and last < min(before):
        return "the last GPU nvidia-smi nvlink -s lists (GPU %s) shows %d links, every GPU before it %d or more: cut short" % (
            listed[-1], last, min(before))
    return None


@judge("gpu_fabric")
def gpu_fabric(facts, expect):
    expected = "Fabric State Completed, Status Success on every GPU"
    gpus = _each_gpu(facts)
    reporting = [gpu for gpu in gpus if gpu["fabric"] is not None]
    if not reporting:
        return _not_applicable(expected, "no GPU reports a fabric state (no NVSwitch fabric, or a GPU before Hopper)")
    bad = ["%s: State %s, Status %s" % (gpu_name(gpu), gpu["fabric"]["state"], gpu["fabric"]["status"] or "N/A")
           for gpu in reporting if gpu["fabric"]["state"] != "Completed" or gpu["fabric"]["status"] != "Success"]
    unread = _unreporting(gpus, reporting, "fabric state")
    if bad:
        return verdict(FAIL, expected, _summary(bad + unread))
    if unread:
        return verdict(ERROR, expected, "fabric state unread: " + _summary(unread))
    return verdict(PASS, expected, "%s: fabric Completed/Success" % counted(len(reporting), "GPU"))


@judge("gpu_clocks")
def gpu_clocks(facts, expect):
    failing = expect["pyramid_gpu_clock_events_fail"]
    expected = "none of %s active" % ", ".join(failing)
    bad, unknown, gpus = [], [], _each_gpu(facts)
    for gpu in gpus:
        events = gpu["clock_events"]
        active = [reason for reason in failing if events.get(reason)]
        if active:
            bad.append("%s: %s active" % (gpu_name(gpu), ", ".join(active)))
        # proof, not absence: every reason judged must be read (nvidia-smi -q prints them all since the 400s); a
        # damaged "HW Slowdown" line loses the thermal slowdown nested under it, and its absence is no "Not Active"
        missing = [reason for reason in failing if reason not in events]
        if missing:
            unknown.append("%s: %s not reported" % (gpu_name(gpu), ", ".join(missing)))
    if bad:
        return verdict(FAIL, expected, _summary(bad) + ("; unread: " + _summary(unknown) if unknown else ""))
    if unknown:
        return verdict(ERROR, expected, "clock event reasons unread: " + _summary(unknown))
    return verdict(PASS, expected, "%s: no slowdown active" % counted(len(gpus), "GPU"))


# nvidia-smi nvlink -e counter names: NVLink 3/4 (A100, H100, H200 on drivers 535 to 580) and NVLink 5
# (Blackwell drivers name a link's recoveries "Total link recovery events" and print no CRC counter).
NVLINK_RECOVERY = ("Recovery Errors", "Total link recovery events")
NVLINK_CRC = ("CRC Errors",)
NVLINK_REPLAY = ("Replay Errors",)


def _counted(counters, names):
    """The sum of the named counters a link reports, or None when it reports none of them."""
    values = [counters[name] for name in names if counters.get(name) is not None]
    return sum(values) if values else None


def _link_errors(links, recovery_max, crc_max):
    """(problems, replays, unread) of one GPU's links: problems over the allowances, and the links whose
    counters are not all there (no recovery counter, or fewer counters than the GPU's other links: cut short)."""
    problems, unread, replays = [], [], 0
    names = max((set(counters) for counters in links.values()), key=len, default=set())
    for link, counters in sorted(links.items()):
        recovery, crc = _counted(counters, NVLINK_RECOVERY), _counted(counters, NVLINK_CRC)
        replays += _counted(counters, NVLINK_REPLAY) or 0
        if recovery is None or set(counters) != names:
            unread.append(link)
        found = []
        if recovery is not None and recovery > recovery_max:
            found.append("%d recovery" % recovery)
        if crc is not None and crc > crc_max:
            found.append("%d CRC" % crc)
        if found:
            problems.append("link %d %s" % (link, ", ".join(found)))
    return problems, replays, unread


@judge("gpu_nvlink_errors")
def gpu_nvlink_errors(facts, expect):
    """Recovery and CRC errors since the counters were reset (a driver load, nvidia-smi nvlink -r): Layer 0
    reads once. Replays are the link correcting CRC errors and are reported, not judged. A GPU must list the
    counters of as many links as pyramid_gpu_nvlinks: fewer is a read cut short (gpu_nvlink judges links that
    are missing), never a PASS."""
    want, recovery_max = expect["pyramid_gpu_nvlinks"], expect["pyramid_gpu_nvlink_recovery_max"]
    crc_max = expect["pyramid_gpu_nvlink_crc_max"]
    expected = "at most %d NVLink recovery and %d CRC errors per link since reset" % (recovery_max, crc_max)
    if want == 0:
        return _not_applicable(expected, "pyramid_gpu_nvlinks is 0 (GPUs without NVLink)")
    status = facts["gpu_nvlink_errors"]["gpus"]
    bad, unknown, replays, links = [], [], 0, 0
    for gpu in _each_gpu(facts):
        counters = status.get(gpu["index"], {}).get("links", {})
        problems, replayed, unread = _link_errors(counters, recovery_max, crc_max)
        replays, links = replays + replayed, links + len(counters)
        if problems:
            bad.append("%s: %s" % (gpu_name(gpu), ", ".join(problems)))
        if len(counters) < want:
            unknown.append("%s: counters of %d of %d links" % (gpu_name(gpu), len(counters), want))
        elif unread:
            unknown.append("%s: link %s without all its counters" % (gpu_name(gpu), ", ".join(str(link) for link in unread)))
    if bad:
        return verdict(FAIL, expected, _summary(bad + unknown))
    if unknown:
        return verdict(ERROR, expected, "NVLink error counters not read completely: " + _summary(unknown))
    return verdict(PASS, expected, "%s, %s: no recovery or CRC errors over the allowance; %d replays (reported)" % (
        counted(len(status), "GPU"), counted(links, "link"), replays))


@judge("nic_pcie_link")
def nic_pcie_link(facts, expect):
    """The rail NIC's link as the kernel trained it. A rail the host does not list in /sys/class/infiniband is
    rails_present's finding, not judged here."""
    expected = "every rail NIC at its maximum PCIe width and speed"
    listed, links = facts["rdma_sysfs"]["entries"], facts["rail_pcie_link"]
    bad, unknown, good = [], [], []
    for rail in expect["pyramid_rails"]:
        if rail not in listed:
            continue
        link = links.get(rail)
        if isinstance(link, SourceFailure) or link is None:
            unknown.append("%s: %s" % (rail, link.reason if link is not None else "not read"))
            continue
        if link["gen_current"] is None or link["gen_max"] is None:
            unknown.append("%s: link speed %s of %s" % (rail, link["speed_current"], link["speed_max"]))
            continue
        if link["width_current"] > link["width_max"] or link["gen_current"] > link["gen_max"]:
            unknown.append("%s: current link x%d %s above its max x%d %s" % (
                rail, link["width_current"], link["speed_current"], link["width_max"], link["speed_max"]))
            continue
        found = []
        if link["width_current"] < link["width_max"]:
            found.append("x%d of x%d" % (link["width_current"], link["width_max"]))
        if link["gen_current"] < link["gen_max"]:
            found.append("Gen%d of Gen%d (%s of %s)" % (link["gen_current"], link["gen_max"], link["speed_current"], link["speed_max"]))
        if found:
            bad.append("%s: %s" % (rail, ", ".join(found)))
        else:
            good.append("Gen%d x%d" % (link["gen_current"], link["width_current"]))
    if bad:
        return verdict(FAIL, expected, _summary(bad + unknown))
    if unknown:
        return verdict(ERROR, expected, "PCIe link not read for " + _summary(unknown))
    if not good:
        return _not_applicable(expected, "no declared rail is listed in /sys/class/infiniband")
    return verdict(PASS, expected, "%s at %s" % (counted(len(good), "rail NIC"), "/".join(sorted(set(good)))))


def _gpus_of(result):
    return "GPU %s" % result["gpu"] if result["gpu"] is not None and "," not in result["gpu"] else "all GPUs"


@judge("gpu_dcgm_diag")
def gpu_dcgm_diag(facts, expect):
    """Any test result other than Pass or Skip fails (Fail, Warn); a node without dcgmi is not applicable.
    dcgmi hung or printing something else is an ERROR about the read."""
    level = expect["pyramid_dcgm_diag_level"]
    expected = "dcgmi diag -r %d: every test Pass (or Skip) on every GPU" % level
    diag = facts["dcgm_diag"]
    if diag is None or isinstance(diag, SourceFailure) and diag.status == "missing":
        return _not_applicable(expected, "DCGM is not installed (no dcgmi)")
    if isinstance(diag, SourceFailure):
        return verdict(ERROR, expected, diag.reason, cause="No data from `%s`" % diag.command, command=diag.command)
    failed, passed, skipped = [], 0, 0
    for test in diag["tests"]:
        for result in test["results"]:
            if result["status"] == "Pass":
                passed += 1
            elif result["status"] in ("Skip", "Skipped"):
                skipped += 1
            else:
                why = "; ".join(result["warnings"])
                failed.append("%s on %s: %s%s" % (test["name"], _gpus_of(result), result["status"], ": " + why if why else ""))
    if failed:
        return verdict(FAIL, expected, _summary(failed))
    if not passed:
        return verdict(ERROR, expected, "dcgmi diag passed no test (%d skipped): nothing was established" % skipped)
    return verdict(PASS, expected, "DCGM %s, level %d: %s passed%s" % (
        diag["version"] or "(version not reported)", level, counted(passed, "result"),
        ", %d skipped" % skipped if skipped else ""))
