# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pinned software stack (seed 003: "pin the complete software stack"): GPU driver, CUDA runtime, NCCL, kernel,
MLNX_OFED / DOCA-OFED and rdma-core the same on every node, equal to pyramid_stack where the inventory pins them, none
below a floor of pyramid_stack_min; and at Layer 5, the NCCL a run loaded against the NCCL installed."""

from __future__ import annotations

import collections
import re

from ..core.model import ERROR, FAIL, PASS, SKIP, SourceFailure, counted, verdict
from .registry import judge, summary

# The components, in the order the report lists them, with their names in a verdict
COMPONENTS = ("driver", "cuda", "nccl", "kernel", "ofed", "rdma_core")
NAMES = {"driver": "GPU driver", "cuda": "CUDA runtime", "nccl": "NCCL", "kernel": "kernel", "ofed": "OFED",
         "rdma_core": "rdma-core", "nic_firmware": "NIC firmware"}
# pyramid_stack_min may also set a floor under the NIC firmware (pinned by pyramid_nic_firmware, checked by nic_firmware)
FLOORED = COMPONENTS + ("nic_firmware",)
# the package names of catalog/host.yml's stack_packages, by package manager and component, in the order they stand for
# it: Debian's and NVIDIA's apt repositories (libnccl2, libibverbs1), NVIDIA's and DOCA's RPM repositories and RHEL's
# (libnccl, libibverbs: the NCCL installation guide's `yum install libnccl-...`, rdma-core's own spec file)
NCCL_PACKAGES = {"dpkg": ("libnccl2",), "rpm": ("libnccl",)}
RDMA_PACKAGES = {"dpkg": ("rdma-core", "libibverbs1"), "rpm": ("rdma-core", "libibverbs")}  # an image may hold the library alone
TOOL = {"dpkg": "dpkg-query", "rpm": "rpm"}
CUDART = re.compile(r"^cuda-cudart-\d+-\d+$")  # the runtime of CUDA M.m (cuda-cudart-dev-M-m is its headers)
CUDART_PATTERN = "cuda-cudart-[0-9]*"
NOT_INSTALLED = None  # a component proven absent: the package manager named it and found nothing


class Unread:
    """A component whose version this run could not read (the reason says why): never equal to anything."""

    def __init__(self, what, reason):
        self.what = what
        self.reason = reason


class StandIn(str):
    """A component's version read from another package that stands in for it (libibverbs1 for rdma-core, where the
    read proves rdma-core absent: a container image often has its library alone): the version, shown labelled."""

    def __new__(cls, version, package):
        made = str.__new__(cls, version)
        made.package = package
        return made


def _unread_text(unread):
    """Components not read, grouped by their reason: one failed dpkg-query names NCCL, CUDA and rdma-core once."""
    by_reason = collections.OrderedDict()
    for each in unread:
        by_reason.setdefault(each.reason, []).append(each.what)
    return "; ".join("%s (%s)" % (", ".join(whats), reason) for reason, whats in by_reason.items())


def tokens(version):
    """The parts of a version, numbers as numbers: 2.28.3-1+cuda13.0 -> [2, 28, 3, 1, 'cuda13', 0]."""
    return [int(part) if part.isdigit() else part for part in re.split(r"[.\-+~:_]", version) if part]


def matches(version, pinned, component=None):
    """A version is the pinned one where its parts begin with the pin's: 2.28.3-1+cuda13.0 is NCCL 2.28.3 and 2.28. NCCL
    compares NCCL's own x.y.z, so a pin written as the package (2.28.3-1+cuda13.0) or as NCCL's banner (2.28.3+cuda13.0)
    holds for both. A package in another state than installed ("2.28.3-1 (unpacked)") is never the pinned one."""
    if "(" in version:
        return False
    if component == "nccl":
        version, pinned = nccl_release(version) or version, nccl_release(pinned) or pinned
    want = tokens(pinned)
    return bool(want) and tokens(version)[:len(want)] == want


def numbers(version):
    """The numbers of a version from its first digit, for a floor: 5.15.0-119-generic -> (5, 15, 0, 119)."""
    start = re.search(r"\d", version)
    return tuple(int(n) for n in re.findall(r"\d+", version[start.start():])) if start else ()


def below(version, floor):
    return numbers(version) < numbers(floor)


def nccl_release(version):
    """NCCL's own x.y.z in a package version (2.28.3-1+cuda13.0) or in NCCL's banner (2.28.9+cuda13.0)."""
    found = re.match(r"\s*(\d+\.\d+\.\d+)", version or "")
    return found.group(1) if found else None


def _failed(fact):
    if fact is None:  # an optional source not collected at all
        return "not collected"
    return fact.reason if isinstance(fact, SourceFailure) else None


def manager(read):
    """The package manager that answered stack_packages: dpkg (dpkg-query) or rpm (its facts say so)."""
    return read.get("manager", "dpkg") if isinstance(read, dict) else None


def _package(facts, names_by_manager, what):
    """The version of the component's package, ``names[0]`` of the manager that answered; a later name stands in for it
    (StandIn, labelled) only where the read proves every name before it absent; NOT_INSTALLED where the manager proved
    each absent (dpkg-query's "no packages found", rpm's "is not installed")."""
    read = facts["stack_packages"]
    if _failed(read):
        return Unread(what, read.reason)
    names = names_by_manager[manager(read)]
    for index, name in enumerate(names):
        package = read["packages"].get(name)
        if package and package["state"] in ("installed", "triggers-awaited", "triggers-pending"):
            return StandIn(package["version"], name) if index else package["version"]
        if package and package["state"] not in ("not-installed", "config-files"):  # half-installed, unpacked
            return "%s (%s)" % (package["version"], package["state"])
        if not package and name not in read["not_found"]:  # not proven absent: nothing may stand in for it
            return Unread(what, "%s's answer neither lists nor denies %s" % (TOOL[manager(read)], name))
    return NOT_INSTALLED


def _cuda(facts):
    read = facts["stack_packages"]
    if _failed(read):
        return Unread("CUDA runtime", read.reason)
    if manager(read) == "rpm":
        return _cuda_rpm(facts)
    runtimes = sorted(read["packages"][name]["version"] for name in read["installed"] if CUDART.match(name))
    if runtimes:
        return ", ".join(runtimes)  # side by side (12.4 and 13.0): every one is held to the pin and the floor
    if CUDART_PATTERN in read["not_found"]:
        return NOT_INSTALLED
    if any(CUDART.match(name) for name in read["packages"]):
        # a glob's matches have no count: runtimes the database knows, none installed, may be a list cut before the
        # installed one, and dpkg-query's "no packages found" is the one proof of absence
        return Unread("CUDA runtime", "dpkg-query lists %s but none installed: not proven absent" % ", ".join(
            sorted(name for name in read["packages"] if CUDART.match(name))))
    return Unread("CUDA runtime", "dpkg-query's answer neither lists nor denies %s" % CUDART_PATTERN)


def _cuda_rpm(facts):
    """The CUDA runtimes rpm -qa lists (rpm -q takes no pattern: its own read, cuda_runtime_rpm). Its list has no count
    and no trailer, and rpm prints nothing where no name matches: an answer lost on the way reads the same, so none
    listed is not read, never "not installed" (the property suite's empty answer)."""
    read = facts.get("cuda_runtime_rpm")
    if _failed(read):
        return Unread("CUDA runtime", _failed(read))
    runtimes = sorted(read["packages"][name]["version"] for name in read["installed"] if CUDART.match(name))
    if not runtimes:
        return Unread("CUDA runtime", "rpm -qa lists no %s: its list has no count, so none listed is not proven none "
                                      "installed" % CUDART_PATTERN)
    return ", ".join(runtimes)


def distribution(facts):
    """(family, name) of the node's distribution as /etc/os-release says ("rhel", "Rocky Linux 9.4 (Blue Onyx)"), or
    (None, None) where it was not read."""
    read = facts.get("os_release")
    if _failed(read):
        return None, None
    return read["family"], read["pretty_name"]


def _driver(facts):
    read = facts.get("nvidia_module")
    return Unread("GPU driver", read.reason) if _failed(read) else read["version"]


def _ofed(facts):
    read = facts.get("ofed_release")
    if read is None:
        return Unread("OFED", "not collected")
    if isinstance(read, SourceFailure):
        # ofed_info is MLNX_OFED's and DOCA-OFED's own script: without it, neither is installed (the distribution's
        # inbox rdma-core is then the RDMA stack, read as rdma_core)
        return NOT_INSTALLED if read.status == "missing" else Unread("OFED", read.reason)
    return read["release"]


def stack_of(facts):
    """{component: version text, NOT_INSTALLED or Unread} of one node."""
    release = facts["osrelease"]
    return {
        "driver": _driver(facts),
        "cuda": _cuda(facts),
        "nccl": _package(facts, NCCL_PACKAGES, "NCCL"),
        "kernel": Unread("kernel", release.reason) if _failed(release) else release["release"],
        "ofed": _ofed(facts),
        "rdma_core": _package(facts, RDMA_PACKAGES, "rdma-core"),
    }


def _shown(value):
    if isinstance(value, StandIn):
        return "(as %s) %s" % (value.package, value)
    return "not installed" if value is NOT_INSTALLED else value


def _pod_usual(stacks, component, among=None):
    """The pod's version of a component where most nodes read agree (of the hosts ``among`` where given), and how many
    run it; (None, 0) on a tie."""
    counts = collections.Counter(stack[component] for host, stack in stacks.items()
                                 if not isinstance(stack[component], Unread) and (among is None or host in among))
    ranked = counts.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None, 0, counts
    return ranked[0][0], ranked[0][1], counts


def _floor_findings(stack, floors, firmware):
    findings = []
    values = dict(stack, nic_firmware=firmware)
    for component, floor in sorted(floors.items(), key=lambda item: FLOORED.index(item[0])):
        value = values.get(component)
        if value is NOT_INSTALLED or isinstance(value, Unread):
            continue  # not installed: no floor to be under; unread: said once, by the caller
        low = [part.strip() for part in str(value).split(",") if below(part, floor["version"])]
        if low:
            findings.append("%s %s below %s (%s)" % (NAMES[component], ", ".join(low), floor["version"], floor["reason"]))
    return findings


def _firmware(facts, rails):
    """The lowest NIC firmware of the node's declared rails (a floor holds for every rail)."""
    read = facts["ibstat"]
    if _failed(read):
        return Unread("NIC firmware", read.reason)
    versions = [read["devices"][rail].get("firmware") for rail in rails if rail in read["devices"]]
    if None in versions:  # read by `rdma link` (no ibstat): it shows no firmware
        return Unread("NIC firmware", "the rails were read by `rdma link`, which shows no firmware (install infiniband-diags' ibstat)")
    return min(versions, key=numbers) if versions else Unread("NIC firmware", "none of the declared rails in ibstat")


@judge("software_stack", scope="pod")
def software_stack(facts_by_host, expect_by_host):
    stacks = {host: stack_of(facts) for host, facts in facts_by_host.items()}
    usual = {component: _pod_usual(stacks, component) for component in COMPONENTS}
    distros = {host: distribution(facts) for host, facts in facts_by_host.items()}
    verdicts = {}
    for host, stack in stacks.items():
        family, distro = distros[host]
        # a kernel release is its distribution's build (5.14.0-427.13.1.el9_4 is Rocky's, 5.15.0-119-generic Ubuntu's):
        # an unpinned kernel is held to the nodes of the same family; pin it per group (group_vars) to hold it to one
        same_family = [other for other, (other_family, _name) in distros.items() if other_family == family]
        usual["kernel"] = _pod_usual(stacks, "kernel", among=same_family)
        pins, floors = expect_by_host[host]["pyramid_stack"] or {}, expect_by_host[host]["pyramid_stack_min"] or {}
        firmware = _firmware(facts_by_host[host], expect_by_host[host]["pyramid_rails"]) if "nic_firmware" in floors else None
        off, unread, pinned_off = [], [], []
        for component in COMPONENTS:
            value = stack[component]
            if isinstance(value, Unread):
                unread.append(value)
            elif component in pins:
                if value is NOT_INSTALLED or not all(matches(part.strip(), pins[component], component) for part in value.split(",")):
                    pinned_off.append("%s %s, pinned %s" % (NAMES[component], _shown(value), pins[component]))
            else:
                most, count, counts = usual[component]
                if most is None and len(counts) > 1:
                    off.append("%s %s; the pod disagrees: %s" % (NAMES[component], _shown(value), ", ".join(
                        "%s on %d" % (_shown(v), n) for v, n in sorted(counts.items(), key=lambda i: str(i[0])))))
                elif value != most:
                    off.append("%s %s, the pod's %s (%s)" % (NAMES[component], _shown(value), _shown(most), counted(count, "node")))
        if isinstance(firmware, Unread):
            unread.append(firmware)
        low = _floor_findings(stack, floors, firmware)
        expected = "one stack on every node%s%s" % (
            ", pinned: %s" % ", ".join("%s %s" % (NAMES[c], v) for c, v in sorted(pins.items(), key=lambda i: COMPONENTS.index(i[0])))
            if pins else "", ", none below pyramid_stack_min" if floors else "")
        unread_note = ("; not read: %s" % _unread_text(unread) if unread else "") + (" [%s]" % distro if distro else "")
        if low or pinned_off or off:
            cause = None
            if low:
                cause = ("Below the declared floor (pyramid_stack_min): %s. Upgrade before this node runs jobs" % "; ".join(low))
            elif pinned_off:
                cause = ("Not the pinned stack (pyramid_stack): a node imaged or upgraded apart from the pod (install the "
                         "pinned versions; NGC containers carry CUDA and NCCL as one set)")
            verdicts[host] = verdict(FAIL, expected, summary(low + pinned_off + off) + unread_note, cause=cause)
        elif unread:
            verdicts[host] = verdict(ERROR, expected, "not read: %s%s" % (_unread_text(unread), " [%s]" % distro if distro else ""))
        elif len(stacks) == 1 and not pins and not floors:  # held to nothing: no other node, no pin, no floor
            verdicts[host] = verdict(SKIP, expected, "not applicable: nothing to compare: %s is the only node of this run and "
                                     "pyramid_stack pins nothing (read: %s); pin the stack to hold a lone node to it" % (
                                         host, _read_text(stack, distro)), not_applicable=True)
        else:
            verdicts[host] = verdict(PASS, expected, _read_text(stack, distro))
    return verdicts


def _read_text(stack, distro=None):
    return ", ".join(["%s %s" % (NAMES[c], _shown(stack[c])) for c in COMPONENTS] + (["on %s" % distro] if distro else []))


def loaded_nccl(facts):
    """The NCCL a run loaded, as NCCL itself printed it (NCCL_DEBUG=INFO: "NCCL version 2.28.9+cuda13.0")."""
    run = facts["nccl_node"]
    return None if _failed(run) else (run.get("nccl") or {}).get("version")


@judge("nccl_loaded", scope="pod")
def nccl_loaded(facts_by_host, expect_by_host):
    loaded = {host: loaded_nccl(facts) for host, facts in facts_by_host.items()}
    releases = collections.Counter(nccl_release(v) for v in loaded.values() if nccl_release(v))
    verdicts = {}
    for host, version in loaded.items():
        facts, pins = facts_by_host[host], expect_by_host[host]["pyramid_stack"] or {}
        run = facts["nccl_node"]
        if _failed(run):
            verdicts[host] = verdict(ERROR, "the NCCL version the node's all-reduce printed", "no run: %s" % run.reason)
            continue
        release = nccl_release(version)
        if not release:
            verdicts[host] = verdict(ERROR, "the NCCL version the node's all-reduce printed", (
                "the run printed no 'NCCL version' line (NCCL_DEBUG=INFO in pyramid_nccl_env prints it)"))
            continue
        installed = _package(facts, NCCL_PACKAGES, "NCCL")
        package = NCCL_PACKAGES[manager(facts["stack_packages"]) or "dpkg"][0]  # libnccl2, or libnccl on an RPM host
        if isinstance(installed, Unread):  # pinned or not: the cross-check with what is installed is this check's
            verdicts[host] = verdict(ERROR, "NCCL loaded = NCCL installed", "NCCL %s loaded; the NCCL installed not read (%s)" % (
                version, installed.reason))
            continue
        if "nccl" in pins:
            expected = "NCCL %s loaded (pyramid_stack)" % pins["nccl"]
            if not matches(release, pins["nccl"], "nccl"):
                verdicts[host] = verdict(FAIL, expected, "NCCL %s loaded" % version, cause=(
                    "The run loaded another NCCL than the pinned one: a framework's bundled NCCL (PyTorch wheels carry "
                    "nvidia-nccl-cu*), LD_LIBRARY_PATH or a container's; pin and install one NCCL"))
                continue
        elif installed is not NOT_INSTALLED:
            expected = "NCCL loaded = the %s package installed (%s)" % (package, installed)
            if nccl_release(installed) != release:
                verdicts[host] = verdict(FAIL, expected, "NCCL %s loaded, %s %s installed" % (version, package, installed))
                continue
        else:
            expected = "NCCL loaded the same on every node (no %s package here)" % package
        ranked = releases.most_common(2)
        tie = len(ranked) == 2 and ranked[0][1] == ranked[1][1]  # an even split: no node can be called the odd one
        if len(releases) > 1 and (tie or release != ranked[0][0]):
            pod = ("the pod disagrees: %s" % ", ".join("%s on %d" % item for item in sorted(releases.items())) if tie
                   else "the pod's %s (%s)" % (ranked[0][0], counted(ranked[0][1], "node")))
            verdicts[host] = verdict(FAIL, expected, "NCCL %s loaded, %s" % (release, pod),
                                     cause="Another NCCL than the rest of the pod's: NCCL must be one version across a job")
            continue
        beside = ("; %s %s installed (software_stack holds it to the pin)" % (package, installed)
                  if "nccl" in pins and installed is not NOT_INSTALLED else "")
        verdicts[host] = verdict(PASS, expected, "NCCL %s loaded%s" % (version, beside))
    return verdicts
