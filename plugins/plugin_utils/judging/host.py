# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 0 judges: host prerequisites (IOMMU, hugepages, RDMA modules and rails, GPUDirect, mlxconfig, firmware, GPUs, topology)."""

from __future__ import annotations

import collections

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, verdict
from .registry import judge, summary as _summary


# --- Layer 0 ----------------------------------------------------------------------------

@judge("iommu_enabled")
def iommu_enabled(facts, expect):
    units = facts["iommu_sysfs"]["units"]
    if units:
        return verdict(PASS, "IOMMU units in /sys/class/iommu", "%s (%s)" % (counted(len(units), "unit"), ", ".join(units[:4])))
    return verdict(FAIL, "IOMMU units in /sys/class/iommu", "none: IOMMU off")


@judge("kernel_params")
def kernel_params(facts, expect):
    mem, args = facts["meminfo"], facts["cmdline"]["args"]
    want_total, want_size = expect["pyramid_hugepages_total"], expect["pyramid_hugepage_size_kb"]
    expected = "HugePages_Total %d x %d kB%s" % (want_total, want_size, ", iommu=pt" if expect["pyramid_iommu_passthrough"] else "")
    actual = "HugePages_Total %d x %d kB, iommu=%s" % (mem["hugepages_total"], mem["hugepagesize_kb"], args.get("iommu", "(unset)"))
    problems = []
    if mem["hugepages_total"] != want_total:
        problems.append("HugePages_Total %d, want %d" % (mem["hugepages_total"], want_total))
    if mem["hugepagesize_kb"] != want_size:
        problems.append("Hugepagesize %d kB, want %d kB" % (mem["hugepagesize_kb"], want_size))
    if expect["pyramid_iommu_passthrough"] and args.get("iommu") != "pt":
        problems.append("iommu=pt missing from /proc/cmdline")
    if problems:
        return verdict(FAIL, expected, actual + " (" + "; ".join(problems) + ")")
    return verdict(PASS, expected, actual)


# What the RDMA modules depend on (modinfo -F depends, Linux 5.15 to 6.8 and MLNX_OFED/DOCA-host): a
# listed module cannot be loaded without these, so a list that shows it without them was cut short
# (lsmod prints the newest module first: a cut loses the oldest, the dependencies).
MODULE_DEPENDS = {
    "mlx5_ib": ("mlx5_core", "ib_uverbs", "ib_core"), "ib_uverbs": ("ib_core",), "ib_umad": ("ib_core",),
    "ib_cm": ("ib_core",), "iw_cm": ("ib_core",), "rdma_cm": ("iw_cm", "ib_core", "ib_cm"),
    "rdma_ucm": ("ib_core", "ib_uverbs", "rdma_cm"), "ib_ipoib": ("ib_cm", "ib_core"),
    "nvidia_peermem": ("nvidia", "ib_core"), "bnxt_re": ("bnxt_en", "ib_uverbs", "ib_core"),
}
# show_initstate's words (kernel/module/sysfs.c): a module with any of them is loaded (or loading, unloading)
MODULE_INITSTATES = ("live", "coming", "going")


def _sysfs_module(facts, name):
    """What /sys/module says of a module the list lacks (catalog source module_sysfs): "live" (or another
    initstate: loaded, so the list is incomplete), "built in" (the directory without initstate: lsmod never
    lists such a module), "absent" (no /sys/module/<name>: not loaded), "unread: why", or None where the source
    was not collected (the list alone decides, as before the cross-check)."""
    sysfs = facts.get("module_sysfs")
    if not isinstance(sysfs, dict) or name not in sysfs:
        return None
    seen = sysfs[name]
    if isinstance(seen, SourceFailure):
        # both ways failed: "no such file" twice is a module not loaded; anything else is a read we lack
        return "absent" if seen.status == "missing" else "unread: " + seen.reason
    if "initstate" in seen:
        return seen["initstate"]
    if "initstate" in seen["entries"]:  # a loadable module whose initstate could not be read, yet is listed
        return "unread: /sys/module/%s lists initstate but it could not be read" % name
    return "built in"


def _modinfo_says(facts, name):
    """What kmod's modinfo (catalog source module_builtin) says of a module: "built in" (filename: (builtin), from the
    kernel's modules.builtin.modinfo), "a .ko file" (a loadable module: not built in), or "unknown: why" (not found,
    which a kernel without its /lib/modules says too; a read that failed; not read)."""
    read = facts.get("module_builtin")
    seen = read.get(name) if isinstance(read, dict) else None
    if seen is None:
        return "unknown: modinfo %s not read" % name
    if isinstance(seen, SourceFailure):
        return "unknown: " + seen.reason
    if not seen["found"]:
        return "unknown: modinfo does not know %s (not in this kernel, or its /lib/modules not installed)" % name
    if seen["name"].replace("-", "_") != name.replace("-", "_"):  # an alias resolved to another module proves nothing of this one
        return "unknown: modinfo %s answered for %s" % (name, seen["name"])
    return "built in" if seen["builtin"] else "a .ko file"


@judge("modules_loaded")
def modules_loaded(facts, expect):
    loaded = facts["kernel_modules"]["modules"]
    wanted = expect["pyramid_rdma_modules"]
    expected = "loaded: " + ", ".join(wanted)
    # only the modules the list lacks are looked up in /sys/module: what the list shows stands
    seen = {name: _sysfs_module(facts, name) for name in wanted if name not in loaded}
    live = ["%s (%s)" % (name, state) for name, state in seen.items() if state in MODULE_INITSTATES]
    if live:  # the kernel has it loaded: the list is what is wrong, an ERROR about the read
        return verdict(ERROR, expected, "the module list does not show %s, yet /sys/module/<name>/initstate says loaded: "
                       "the list is incomplete (cut short or damaged)" % ", ".join(live),
                       cause="The module list (`lsmod` or /proc/modules) is incomplete: the kernel's "
                             "/sys/module/<name>/initstate shows modules it does not list")
    unread = {name: state[len("unread: "):] for name, state in seen.items() if state and state.startswith("unread: ")}
    if unread:
        return verdict(ERROR, expected, "the module list does not show %s, and /sys/module could not tell: %s" % (
            ", ".join(unread), "; ".join("%s (%s)" % item for item in unread.items())),
            cause="No data from /sys/module/<name> for the modules the list lacks")
    built_in = [name for name, state in seen.items() if state == "built in"]
    # a module with no /sys/module entry may still be built in (one without parameters or a version has none): only the
    # kernel's own list of its built-in modules, through modinfo, proves it
    listed = [name for name in seen if name not in built_in and _modinfo_says(facts, name) == "built in"]
    absent = [name for name in seen if name not in built_in + listed]
    # a module a built-in one may need, that no read shows: built in or not, the kernel's configuration decides (mlx5_ib
    # built without CONFIG_INFINIBAND_USER_ACCESS needs no ib_uverbs), so it is named as unproven, never inferred
    needers = _built_in_too(built_in + listed, absent)
    unproven = collections.OrderedDict(
        (name, needer) for name, needer in needers.items() if not _modinfo_says(facts, name).startswith("a .ko"))
    missing = [name for name in absent if name not in unproven]
    needed = ["%s (which %s needs)" % (name, ", ".join(sorted(needer for needer in loaded if name in MODULE_DEPENDS.get(needer, ()))))
              for name in missing if any(name in MODULE_DEPENDS.get(needer, ()) for needer in loaded)]
    if needed:  # damaged data is an ERROR about the read, not a FAIL about the host
        return verdict(ERROR, expected, "the module list lacks %s: cut short or damaged" % "; ".join(needed),
                       cause="The module list is incomplete: a module is listed without the modules it depends on")
    also = "; built into the kernel (in /sys/module without initstate, never in lsmod): %s" % ", ".join(built_in) if built_in else ""
    also += "; built into the kernel (modinfo: filename (builtin), from the kernel's modules.builtin.modinfo): %s" % (
        ", ".join(listed)) if listed else ""
    not_proven = "; ".join("%s not proven: not in the module list, no /sys/module/%s, and %s (the built-in %s may need it, as "
                           "the kernel was configured)" % (name, name, _modinfo_says(facts, name)[len("unknown: "):], needer)
                           for name, needer in unproven.items())
    if missing:
        return verdict(FAIL, expected, "not loaded: " + ", ".join(missing) + also + ("; " + not_proven if not_proven else ""))
    if unproven:
        return verdict(ERROR, expected, not_proven + also,
                       cause="No proof that %s is in the kernel: no read shows it (the module list, /sys/module, modinfo's "
                             "list of built-in modules), and a built-in module needing it does not prove it (`modinfo %s` on "
                             "the host, or CONFIG_INFINIBAND_USER_ACCESS in /boot/config-$(uname -r))" % (
                                 ", ".join(unproven), next(iter(unproven))))
    return verdict(PASS, expected, "all loaded" + also)


def _built_in_too(built_in, absent):
    """{module: the built-in module that may need it} of the absent modules a built-in one depends on as a loadable
    module does (modinfo -F depends), and theirs in turn. A built-in module cannot use a loadable one (Kconfig holds a
    `y` option's dependencies at `y`), yet which of them it uses is the kernel's configuration (mlx5_ib's user verbs come
    with CONFIG_INFINIBAND_USER_ACCESS): the modules named here are to be proven, never taken as built in."""
    implied, changed = collections.OrderedDict(), True
    while changed:  # ib_uverbs needed by mlx5_ib, then what ib_uverbs needs in turn
        changed = False
        for name in absent:
            needer = next((other for other in list(built_in) + list(implied) if name in MODULE_DEPENDS.get(other, ())), None)
            if name not in implied and needer:
                implied[name], changed = needer, True
    return implied


def unread_rails(facts, expect):
    """{rail: why} of the declared rails ibstat's answer does not cover although they may be there: the CA
    it could not read (its ibpanic), those after it (ibstat stops at the first failure), and those
    /sys/class/infiniband lists but the answer lacks (cut short). A rail neither ibstat nor sysfs shows
    is absent: rails_present's FAIL, not a read failure."""
    ibstat = facts["ibstat"]
    devices = ibstat["devices"]
    if all(rail in devices for rail in expect["pyramid_rails"]):
        return collections.OrderedDict()  # every rail read: what ibstat could not read is no rail's
    unreadable = ibstat.get("unreadable") or {}
    sysfs = facts.get("rdma_sysfs") or facts.get("rdma_listing")
    listed = sysfs["entries"] if isinstance(sysfs, dict) else None
    stopped = next(iter(unreadable), None)
    if stopped is None and ibstat.get("exit_code"):  # it stopped without saying where (exit 255, no ibpanic line)
        stopped = "an unnamed CA (exit code %d)" % ibstat["exit_code"]
    unread = collections.OrderedDict()
    for rail in expect["pyramid_rails"]:
        if rail in devices:
            continue
        if rail in unreadable:
            unread[rail] = "ibstat: " + unreadable[rail]
        elif listed is not None and rail in listed:
            unread[rail] = ("not listed: ibstat stopped at %s" % stopped if stopped else
                            "in /sys/class/infiniband but not in %s's answer (cut short?)" % rails_read_by(facts))
        elif listed is None and stopped:
            unread[rail] = "not listed: ibstat stopped at %s" % stopped
    return unread


def rails_read_by(facts):
    """The command that read the rails: ibstat, or `rdma link` where ibstat is missing (its facts have no count)."""
    read = facts.get("ibstat")
    return "rdma link" if isinstance(read, dict) and read.get("unverified") else "ibstat"


def _unread_verdict(expected, unread, read_ok, command="ibstat", what=None):
    """ERROR naming the rails ``command`` did not read, with what the read ones showed."""
    return verdict(ERROR, expected, "not read: %s; %s" % (_summary(["%s (%s)" % item for item in unread.items()]), read_ok),
                   cause="No data from %s for %s: %s" % (what or "`%s`" % command, ", ".join(unread), "the tool could not read %s" % (
                       "it" if len(unread) == 1 else "them")), command=command)


def _rails_detail(bad):
    """detail.rails of a rail check: each failing rail with what it showed ({"mlx5_3": {"status": "FAIL", "said": ...}}),
    for report.html's node x rail matrix (a rail of several ports keeps its first)."""
    rails = {}
    for said in bad:
        rails.setdefault(said.split("/", 1)[0].split(" ", 1)[0], {"status": FAIL, "said": said})
    return {"rails": rails}


def _declared_ports(facts, expect):
    """(rail, port facts) for every declared rail ibstat shows; absent rails are rails_present's job."""
    devices = facts["ibstat"]["devices"]
    for rail in expect["pyramid_rails"]:
        if rail in devices:
            for port, port_facts in sorted(devices[rail]["ports"].items()):
                yield "%s/%s" % (rail, port), port_facts


# the RDMA core a ConnectX rail needs in the kernel: without it no rail shows; with it, a rail that does not show is the NIC's
RDMA_CORE = ("mlx5_core", "mlx5_ib", "ib_core")


def rdma_core(facts):
    """(in the kernel, not in it) of RDMA_CORE as this run's module reads show them (the list, /sys/module, modinfo's
    built-in list), or None where they cannot tell: the cause of "no RDMA device" follows what the same run read."""
    modules = facts.get("kernel_modules")
    if not isinstance(modules, dict):
        return None
    inside, outside = [], []
    for name in RDMA_CORE:
        sysfs = _sysfs_module(facts, name) if name not in modules["modules"] else "listed"
        if sysfs in ("listed", "built in") + MODULE_INITSTATES or _modinfo_says(facts, name) == "built in":
            inside.append(name)
        elif sysfs == "absent":
            outside.append(name)
        else:
            return None  # not read, or unreadable: the reads cannot say which it is
    return inside, outside


def no_rdma_device_cause(facts, what):
    """The cause of ``what`` (no RDMA rails, no GPUDirect RDMA) on a host showing no RDMA device, as the run's module reads
    tell it: the NIC where the RDMA core is in the kernel, the driver where it is not, both where they cannot tell."""
    core = rdma_core(facts)
    if core and not core[1]:
        return ("%s, though the RDMA core is in the kernel (%s loaded or built in): no ConnectX NIC on the host's PCIe bus, "
                "or its driver not bound to it (lspci -d 15b3:; dmesg | grep mlx5)" % (what, ", ".join(core[0])))
    if core:
        return ("%s: the RDMA core is not in the kernel (%s neither loaded nor built in): the NIC driver (MLNX_OFED / "
                "DOCA-host or the distribution's mlx5) not installed or not loaded, or no ConnectX NIC in the host" % (
                    what, ", ".join(core[1])))
    return "%s: RDMA core (ib_core/mlx5_ib) not loaded or no ConnectX NICs in the host (the module reads could not tell which)" % what


@judge("rails_present")
def rails_present(facts, expect):
    expected = "%s: %s" % (counted(len(expect["pyramid_rails"]), "rail"), ", ".join(expect["pyramid_rails"]))
    ibstat, sysfs = facts["ibstat"], facts["rdma_sysfs"]
    if isinstance(ibstat, SourceFailure):
        # No ibstat: only an empty or absent /sys/class/infiniband proves there is nothing to see.
        if isinstance(sysfs, SourceFailure) and sysfs.status == "missing" or \
                not isinstance(sysfs, SourceFailure) and not sysfs["entries"]:
            return verdict(FAIL, expected, "no RDMA devices on this host (/sys/class/infiniband %s; %s)" % (
                "absent" if isinstance(sysfs, SourceFailure) else "empty", ibstat.reason),
                cause=no_rdma_device_cause(facts, "No RDMA rails"))
        tried = "`ibstat`" + (" nor `%s`" % ibstat.command if ibstat.command != "ibstat" else "")  # rdma link where ibstat is missing
        return verdict(ERROR, expected, ibstat.reason, cause="No data from %s" % tried, command=ibstat.command)
    devices, unread = ibstat["devices"], unread_rails(facts, expect)
    missing = [rail for rail in expect["pyramid_rails"] if rail not in devices and rail not in unread]
    if missing:
        return verdict(FAIL, expected, "missing: " + ", ".join(missing), detail=_rails_detail("%s missing" % rail for rail in missing))
    present = counted(len([rail for rail in expect["pyramid_rails"] if rail in devices]), "rail")
    if unread:
        return _unread_verdict(expected, unread, "%s present" % present, rails_read_by(facts))
    return verdict(PASS, expected, "%s present" % present)


# An InfiniBand port whose link trained (LinkUp) but that no subnet manager has configured: Initializing until an SM
# assigns its LID, Armed until the SM activates it (the state words of infiniband-diags 44.0's ibstat binary; iblinkinfo
# shows such a port as Initialize/LinkUp: a real ibsim capture with OpenSM stopped, docs/infiniband.md). A cable is not
# its cause.
WAITING_FOR_SM = ("Initializing", "Armed")


@judge("rails_active")
def rails_active(facts, expect):
    bad, count, waiting = [], 0, 0
    for name, port in _declared_ports(facts, expect):
        count += 1
        # `rdma link` on a kernel whose nldev reports no physical state: the logical state alone (Active needs a link up)
        if port["state"] != "Active" or port["phys_state"] not in ("LinkUp",) + ((None,) if "rdma_state" in port else ()):
            bad.append("%s %s/%s" % (name, port["state"], port["phys_state"]))
            waiting += port["state"] in WAITING_FOR_SM and port["phys_state"] == "LinkUp"
    if bad:
        # every bad port trained and waits for a subnet manager: the SM, not the cables (a mix keeps the cable cause)
        return verdict(FAIL, "every rail port Active/LinkUp", _summary(bad), cause_key="no_sm" if waiting == len(bad) else None,
                       detail=_rails_detail(bad))
    unread = unread_rails(facts, expect)
    if unread:
        return _unread_verdict("every rail port Active/LinkUp", unread, "%s Active/LinkUp" % counted(count, "port"),
                               rails_read_by(facts))
    return verdict(PASS, "every rail port Active/LinkUp", "%s Active/LinkUp" % counted(count, "port"))


# ibstat's "Link layer" for each pyramid_rdma_link_layer (older libibumad prints "IB" for InfiniBand)
LINK_LAYERS = {"roce": ("Ethernet",), "infiniband": ("InfiniBand", "IB")}


@judge("rails_link_layer")
def rails_link_layer(facts, expect):
    """Every rail port on the fabric's link layer: a VPI ConnectX port left in InfiniBand mode on a RoCE pod (or in
    Ethernet on an InfiniBand one) trains and reads Active on its own, and then reaches no one on the fabric."""
    wanted = LINK_LAYERS[expect["pyramid_rdma_link_layer"]]
    expected = "every rail port's link layer %s (pyramid_rdma_link_layer %s)" % (wanted[0], expect["pyramid_rdma_link_layer"])
    bad, count = [], 0
    for name, port in _declared_ports(facts, expect):
        count += 1
        if port["link_layer"] not in wanted:
            bad.append("%s %s" % (name, port["link_layer"]))
    if bad:
        return verdict(FAIL, expected, _summary(bad), detail=_rails_detail(bad))
    unread = unread_rails(facts, expect)
    said = "%s on %s" % (counted(count, "port"), wanted[0])
    if unread:
        return _unread_verdict(expected, unread, said, rails_read_by(facts))
    return verdict(PASS, expected, said)


def _sysfs_of(facts, source, rail, key):
    """(``key`` of a rail's sysfs read, None), or (None, why not): rail_rate_sysfs and rail_fw_sysfs, for a rail `rdma link`
    read, which shows neither."""
    read = (facts.get(source) or {}).get(rail)
    if read is None or isinstance(read, SourceFailure):
        return None, "%s not read by `rdma link`, and %s" % (
            key.replace("_gbps", ""), read.reason if read is not None else "%s: not collected" % source)
    return read[key], None


@judge("rails_rate")
def rails_rate(facts, expect):
    want = expect["pyramid_rail_rate_gbps"]
    bad, count, unread_rates = [], 0, collections.OrderedDict()
    for name, port in _declared_ports(facts, expect):
        # ibstat shows each port's Rate; `rdma link` none: the kernel's own (ports/1/rate, what ibstat reads) stands in
        rate, why = (port["rate_gbps"], None) if "rate_gbps" in port else _sysfs_of(
            facts, "rail_rate_sysfs", name.split("/")[0], "rate_gbps")
        if why:
            unread_rates[name] = why
            continue
        count += 1
        if rate != want:
            bad.append("%s at %sG" % (name, rate))
    if bad:
        return verdict(FAIL, "every rail port at %dG" % want, _summary(bad), detail=_rails_detail(bad))
    unread = unread_rails(facts, expect)
    unread.update(unread_rates)
    if unread:
        by = rails_read_by(facts)
        return _unread_verdict("every rail port at %dG" % want, unread, "%s at %dG" % (counted(count, "port"), want), by,
                               "`rdma link` and the kernel's ports/1/rate" if by == "rdma link" else None)
    return verdict(PASS, "every rail port at %dG" % want, "%s at %dG" % (counted(count, "port"), want))


PEERMEM_MODULES = ("nvidia_peermem", "amd_peer_mem")
DMABUF_MIN_KERNEL = (5, 12)
# The collect statuses of nvidia_module that are the host's own answer "no NVIDIA module": its ways ran and
# said so (/proc/driver/nvidia/version absent, then modinfo absent, or exiting 1: "Module nvidia not found").
# Any other failure (a timeout, output cut, garbled or not modinfo's) leaves the module unknown, not absent.
NVIDIA_ABSENT = ("missing", "failed")
GPUDIRECT_REQUIRED = ("rdma_sysfs", "kernel_modules", "osrelease")


@judge("gpudirect")
def gpudirect(facts, expect):
    """GPUDirect RDMA needs an RDMA device to reach, then a path from the GPU driver to it. The check reads
    its sources' failures itself (judges_failures): the optional nvidia_module's, to tell a read that failed
    from a driver that is absent (gpudirect_path); the others' are an ERROR, as the engine makes them."""
    accepted = expect["pyramid_gpudirect_paths"]
    failed = [facts[name] for name in GPUDIRECT_REQUIRED if isinstance(facts[name], SourceFailure)]
    if failed:
        return verdict(ERROR, "parseable output from every source of gpudirect", "; ".join(failure.reason for failure in failed),
                       cause="No data from %s" % ", ".join("`%s`" % failure.command for failure in failed),
                       command="; ".join(failure.command for failure in failed))
    devices = facts["rdma_sysfs"]["entries"]
    if not devices:
        return verdict(FAIL, gpudirect_expected(accepted),
                       "no RDMA device in /sys/class/infiniband: no GPUDirect RDMA to speak of",
                       cause=no_rdma_device_cause(facts, "No RDMA NIC visible to the kernel, so GPUDirect RDMA has nothing to reach"),
                       # nvidia_peermem is not what is missing here: the NIC is, and rails_present says why
                       go_back_to="Layer 0: rails_present first (the NIC seen on the PCIe bus, mlx5_core bound to it, the RDMA core loaded); "
                                  "GPUDirect RDMA is judged once the host shows an RDMA device")
    return gpudirect_path(facts, accepted)


def gpudirect_expected(accepted):
    return "GPUDirect RDMA path active: " + " or ".join(
        {"peermem": "nvidia_peermem loaded", "dmabuf": "DMA-BUF (open kernel module, kernel >= 5.12)"}[p] for p in accepted)


def gpudirect_path(facts, accepted):
    """The GPU driver's path to an RDMA NIC (kernel_modules, nvidia_module, osrelease): PASS with
    detail.path peermem or dmabuf, else FAIL saying what is missing, or ERROR where the verdict would
    rest on an nvidia_module read that failed. The lsmod module reads it too."""
    expected = gpudirect_expected(accepted)
    loaded = facts["kernel_modules"]["modules"]
    peer = [name for name in PEERMEM_MODULES if name in loaded]
    # the list lacks nvidia_peermem: what /sys/module says of it (peermem_sysfs), where it was read
    read = facts.get("peermem_sysfs")  # None where it was not collected: the list alone decides, as before it
    sysfs = _sysfs_module({"module_sysfs": {"nvidia_peermem": read}}, "nvidia_peermem") if read is not None and not peer else None
    if sysfs in MODULE_INITSTATES:  # the kernel has it loaded: the list is what is wrong, an ERROR about the read
        return verdict(ERROR, expected, "the module list does not show nvidia_peermem, yet /sys/module/nvidia_peermem/initstate "
                       "says %s: the list is incomplete (cut short or damaged)" % sysfs,
                       cause="The module list (`lsmod` or /proc/modules) is incomplete: the kernel's "
                             "/sys/module/nvidia_peermem/initstate shows a module it does not list")
    if sysfs == "built in":  # /sys/module/nvidia_peermem without initstate: in the kernel, never in lsmod
        peer = ["nvidia_peermem (built in)"]
    if peer and "peermem" in accepted:
        return verdict(PASS, expected, "path peermem: %s loaded" % peer[0], detail={"path": "peermem"})
    peermem = ("%s loaded, but only DMA-BUF is accepted (pyramid_gpudirect_paths)" % peer[0] if peer
               else "nvidia_peermem not loaded")
    nvidia, release = facts.get("nvidia_module"), facts["osrelease"]
    kernel_ok = (release["major"], release["minor"]) >= DMABUF_MIN_KERNEL
    if isinstance(nvidia, SourceFailure) and nvidia.status not in NVIDIA_ABSENT:
        if "dmabuf" in accepted and kernel_ok:  # only the module's flavour decides: a failed read cannot
            return verdict(ERROR, expected, "%s; DMA-BUF not known: %s" % (peermem, nvidia.reason),
                           cause="No data from `%s`: without the NVIDIA kernel module's flavour (open or proprietary), "
                                 "DMA-BUF on Linux %s can be neither proven nor ruled out" % (nvidia.command, release["release"]),
                           command=nvidia.command)
        return _peermem_unknown(sysfs, accepted, expected) or verdict(FAIL, expected, "%s; no DMA-BUF: %s" % (
            peermem, "not accepted (pyramid_gpudirect_paths)" if "dmabuf" not in accepted
            else "Linux %s is before %d.%d" % ((release["release"],) + DMABUF_MIN_KERNEL)))
    if nvidia is None or isinstance(nvidia, SourceFailure):
        dmabuf = "DMA-BUF unknown (modinfo nvidia gave nothing: is the NVIDIA driver installed?)"
    else:
        if nvidia["open_kernel_module"] and kernel_ok and "dmabuf" in accepted:
            return verdict(PASS, expected, "path dmabuf: open kernel module %s on Linux %s (%s)" % (
                nvidia["version"], release["release"], peermem), detail={"path": "dmabuf"})
        dmabuf = "no DMA-BUF: %s kernel module %s on Linux %s" % (
            "open" if nvidia["open_kernel_module"] else "proprietary", nvidia["version"], release["release"])
    return _peermem_unknown(sysfs, accepted, expected) or verdict(FAIL, expected, "%s; %s" % (peermem, dmabuf))


def _peermem_unknown(sysfs, accepted, expected):
    """An ERROR where a FAIL would rest on "nvidia_peermem not loaded" that neither the module list nor /sys/module
    could confirm (the list lacks it, /sys/module could not be read); None otherwise."""
    if "peermem" in accepted and sysfs and sysfs.startswith("unread: "):
        return verdict(ERROR, expected, "the module list does not show nvidia_peermem, and /sys/module could not tell: %s"
                       % sysfs[len("unread: "):], cause="No data from /sys/module/nvidia_peermem for the module the list lacks")
    return None


@judge("mlxconfig")
def mlxconfig(facts, expect):
    desired = expect["pyramid_mlxconfig"]
    wrong, pending = collections.OrderedDict(), collections.OrderedDict()
    errors, checked, single, applies = [], 0, [], set()
    for rail in expect["pyramid_rails"]:
        queried = facts["mlxconfig"].get(rail)
        # a NIC that answered mlxconfig is there, whatever ibstat's read says: ibstat (and the rails it
        # could not read) is asked only about a rail whose query failed, to tell an absent rail from a failed read
        if (isinstance(queried, SourceFailure) or queried is None) and _absent(facts, expect, rail):
            continue  # an absent rail is rails_present's finding, not a firmware one
        if isinstance(queried, SourceFailure) or queried is None:
            errors.append("%s: %s" % (rail, queried.reason if queried is not None else "not queried"))
            continue
        checked += 1
        params, applicable = queried["params"], mlx_applicable(desired, queried)
        applies.update(applicable)
        if len(applicable) < len(desired):
            single.append(rail)
        for name, want in sorted(applicable.items()):
            if name not in params:
                errors.append("%s: %s not reported by mlxconfig%s" % (rail, name, _port_unknown(name, queried)))
                continue
            now, later = params[name]["current"], params[name]["next_boot"]
            key = "%s=%s (next boot %s)" % (name, now, later)
            if not mlx_equal(now, want) and mlx_equal(later, want):
                pending.setdefault(key, []).append(rail)
            elif not mlx_equal(now, want) or not mlx_equal(later, want):
                wrong.setdefault(key, []).append(rail)
    expected = _mlx_expected(desired, applies if checked else set(desired))
    if wrong:
        return verdict(FAIL, expected, _grouped(wrong))
    if errors:
        return verdict(ERROR, expected, _summary(errors))
    if pending:
        return verdict(FAIL, expected, _grouped(pending),
                       cause="mlxconfig set but not yet active: needs mlxfwreset or a reboot")
    singles = sorted(set(single))
    note = " (single-port by mlxconfig's Description, no port 2 to set: %s)" % ", ".join(singles) if singles else ""
    return verdict(PASS, expected, "%s as desired%s" % (counted(checked, "rail"), note))


def _mlx_expected(desired, applies):
    """What every rail should show: the parameters that apply to at least one of the NICs read, and those that
    apply to none named apart (a single-port card has no _P2 parameter to show)."""
    said = "on every rail, current and next boot: " + ", ".join("%s=%s" % (name, desired[name]) for name in sorted(applies))
    others = sorted(set(desired) - set(applies))
    return said + ("; not %s: no such port on these cards (mlxconfig's Description)" % ", ".join(others) if others else "")


def _absent(facts, expect, rail):
    """Whether ibstat's answer shows the rail absent (neither listed nor unread: not a failed read)."""
    return rail not in facts["ibstat"]["devices"] and rail not in unread_rails(facts, expect)


def mlx_port(name):
    """The port an mlxconfig parameter belongs to (LINK_TYPE_P2 -> 2), or None for a NIC-wide one."""
    head, _sep, number = name.rpartition("_P")
    return int(number) if head and number.isdigit() else None


def mlx_applicable(desired, queried):
    """The desired parameters that apply to one NIC: a _P<n> parameter only where the card has port n. The
    port count is the one the card's Description names (the parsed `ports`), read before the table: the
    absence of _P2 rows is no proof, a read cut before them looks the same. Unnamed: every parameter applies."""
    ports = queried.get("ports")
    return {name: want for name, want in desired.items() if ports is None or (mlx_port(name) or 1) <= ports}


def _port_unknown(name, queried):
    """Why a missing port parameter is not taken for a card without that port: its Description names no count."""
    port = mlx_port(name)
    if queried.get("ports") is not None or not port or port < 2:
        return ""
    return (" (its Description names no port count: a card without port %d, or a read cut short; on single-port "
            "cards leave _P%d parameters out of pyramid_mlxconfig)" % (port, port))


def _grouped(findings):
    return "; ".join("%s on %s" % (key, ", ".join(rails)) for key, rails in findings.items())


def mlx_value(text):
    """mlxconfig prints enums as NAME(n) and booleans as True(1): compare by the number."""
    text = str(text).strip()
    if text.endswith(")") and "(" in text:
        return text[text.rindex("(") + 1:-1]
    return {"true": "1", "false": "0"}.get(text.lower(), text)


def _mlx_forms(text):
    """The ways one mlxconfig value may be written: NAME(n) is both NAME and n; True is 1; 0x10 is 16."""
    text = str(text).strip()
    forms = {mlx_value(text).lower()}
    if text.endswith(")") and "(" in text:
        forms.add(text[:text.rindex("(")].strip().lower())
    for form in list(forms):
        try:
            forms.add(str(int(form, 0)))
        except ValueError:
            pass
    return forms


def mlx_equal(read, desired):
    """A read value and a desired one are the same setting written either way (DISABLED(0) = DISABLED = 0,
    True(1) = True = 1): the desired value goes through the same normalizer as the read one."""
    return bool(_mlx_forms(read) & _mlx_forms(desired))


@judge("firmware_consistent", scope="pod")
def firmware_consistent(facts_by_host, expect_by_host):
    versions, unread = {}, {}
    for host, facts in facts_by_host.items():
        rails = expect_by_host[host]["pyramid_rails"]
        devices = facts["ibstat"]["devices"]
        versions[host], unread[host] = {}, unread_rails(facts, expect_by_host[host])
        for rail in rails:
            if rail not in devices:
                continue
            firmware, why = (devices[rail]["firmware"], None) if "firmware" in devices[rail] else _sysfs_of(
                facts, "rail_fw_sysfs", rail, "firmware")
            if why:  # read by `rdma link`, which shows no firmware, and the kernel's fw_ver not read either
                unread[host][rail] = why
            else:
                versions[host][rail] = firmware
    counts = collections.Counter(v for per_host in versions.values() for v in per_host.values())
    majority = counts.most_common(1)[0][0] if counts else None
    verdicts = {}
    for host, per_host in versions.items():
        want = expect_by_host[host]["pyramid_nic_firmware"] or majority
        source = "pyramid_nic_firmware" if expect_by_host[host]["pyramid_nic_firmware"] else "the pod's majority"
        expected = "firmware %s on every rail (%s)" % (want, source)
        off = ["%s %s" % (rail, version) for rail, version in sorted(per_host.items()) if version != want]
        if off:
            verdicts[host] = verdict(FAIL, expected, _summary(off))
        elif unread[host]:
            by = rails_read_by(facts_by_host[host])
            verdicts[host] = _unread_verdict(expected, unread[host], "%s on %s" % (counted(len(per_host), "rail"), want), by,
                                             "`rdma link` and the kernel's fw_ver" if by == "rdma link" else None)
        elif not per_host:  # no rail read: nothing was compared, whatever the others run
            verdicts[host] = verdict(SKIP, expected, "no rail to compare: none of %s in ibstat (rails_present says why)"
                                     % counted(len(expect_by_host[host]["pyramid_rails"]), "declared rail"))
        else:
            verdicts[host] = verdict(PASS, expected, "%s on %s" % (counted(len(per_host), "rail"), want))
    return verdicts


@judge("gpus_present")
def gpus_present(facts, expect):
    gpus = sorted(facts["gpu_topology"]["gpus"])
    want = expect["pyramid_gpus_per_node"]
    expected = "%s in nvidia-smi topo -m" % counted(want, "GPU")
    links = sorted({link for info in facts["gpu_topology"]["gpus"].values()
                    for peer, link in info["links"].items() if peer.startswith("GPU")})
    between = " linked by %s" % "/".join(links) if links else ""
    if len(gpus) != want:
        return verdict(FAIL, expected, "%s%s: %s" % (counted(len(gpus), "GPU"), between, ", ".join(gpus) or "none"))
    return verdict(PASS, expected, "%s%s" % (counted(len(gpus), "GPU"), between))


# nvidia-smi topo -m paths past NCCL's default GPUDirect RDMA limit (ncclTopoCheckGdr: netGdrLevel = PATH_PXB)
BEYOND_GDR_LEVEL = ("PHB", "NODE", "SYS")


@judge("gpu_nic_affinity")
def gpu_nic_affinity(facts, expect):
    topo, rails, allowed = facts["gpu_topology"], expect["pyramid_rails"], expect["pyramid_gpu_nic_paths"]
    nic_by_device = {device: nic for nic, device in topo["nics"].items()}
    expected = "GPU i to rail i via %s" % "/".join(allowed)
    present = facts["ibstat"]["devices"]
    bad, missing, count = [], [], 0
    for gpu, info in sorted(topo["gpus"].items(), key=lambda item: int(item[0][3:])):
        index = int(gpu[3:])
        if index >= len(rails):
            continue
        nic = nic_by_device.get(rails[index])
        if nic is None:
            if rails[index] in present:  # an absent rail is rails_present's finding
                missing.append(rails[index])
            continue
        count += 1
        path = info["links"].get(nic)
        if path not in allowed:
            bad.append("%s-%s(%s) %s" % (gpu, nic, rails[index], path))
    if bad:
        far = [pair for pair in bad if pair.rsplit(" ", 1)[-1] in BEYOND_GDR_LEVEL]
        why = "; NCCL uses GPUDirect RDMA only up to PXB unless NCCL_NET_GDR_LEVEL says otherwise" if far else ""
        return verdict(FAIL, expected, _summary(bad) + why)
    if missing:
        return verdict(FAIL, expected, "rail NICs not in the topology: " + ", ".join(missing),
                       cause="Rail NIC not visible to the GPU driver's topology: NIC missing or not bound")
    return verdict(PASS, expected, "%d GPU-rail pairs within %s" % (count, "/".join(allowed)))
