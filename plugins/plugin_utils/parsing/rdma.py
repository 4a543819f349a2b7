# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inbox RDMA stack's views of a host's RDMA ports (issue 67): iproute2's `rdma link` (and its JSON form,
`rdma -j link show`), where rdma-core is installed without infiniband-diags (no ibstat), the sysfs files ibstat reads
what `rdma link` does not show from (a port's rate, its GID 0 and so its port GUID, the device's firmware), and
MLNX_OFED's / DOCA's `ibdev2netdev`, each port's netdev."""

from __future__ import annotations

import re

from ._common import trailerless
from ._registry import parser

# iproute2 rdma/link.c (link_one_show): "link <dev>/<port> " then, for an InfiniBand port only (the kernel's nldev
# fills them where rdma_protocol_ib), "subnet_prefix <p> lid <n> sm_lid <n> lmc <n> ", then "state <STATE>", then
# "physical_state <STATE>" where the kernel reports one (not before its nldev had it), and "netdev <name>" where the
# port has one (an IPoIB netdev only since Linux 6.7). Releases before 5.5 (iproute2 commit b0a688a5, "rdma: Rewrite
# custom JSON and prints logic to use common API") printed "<ifindex>/<port>: <dev>/<port>: " instead of
# "link <dev>/<port> ". Captures: tests/unit/parsers/linux_rdma_link.
_LINK = re.compile(
    r"^(?:link |\d+/\d+: )(?P<device>[A-Za-z0-9_.-]+)/(?P<port>\d+):?\s+"
    r"(?:subnet_prefix (?P<prefix>[0-9a-f:]+) lid (?P<lid>\d+) sm_lid (?P<sm_lid>\d+) lmc (?P<lmc>\d+)\s+)?"
    r"state (?P<state>[A-Z_]+)(?: physical_state (?P<phys>[A-Z_]+))?(?: netdev (?P<netdev>\S+))?\s*$")
# The words iproute2 prints (rdma/link.c, unchanged since its first release, 4.13): link_state_to_str (enum ib_port_state
# of include/rdma/ib_verbs.h, "UNKNOWN" past it) and phys_state_to_str, whose table names the kernel's
# IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING (4) "ARMED" and LINK_ERROR_RECOVERY (6) "LINK_ERROR_RECOVER", and
# Omni-Path's 9 and 11 "OPA_OFFLINE" and "OPA_TEST"
RDMA_STATES = ("NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER", "UNKNOWN")
RDMA_PHYS_STATES = ("NOP", "SLEEP", "POLLING", "DISABLED", "ARMED", "LINK_UP", "LINK_ERROR_RECOVER", "PHY_TEST",
                    "UNKNOWN", "OPA_OFFLINE", "OPA_TEST")
# The state words ibstat prints for the same port (infiniband-diags 44.0), so a judge of ibstat's facts reads these
IBSTAT_STATE = {"DOWN": "Down", "INIT": "Initializing", "ARMED": "Armed", "ACTIVE": "Active",
                "ACTIVE_DEFER": "Active", "NOP": "Down", "UNKNOWN": "Unknown"}
IBSTAT_PHYS = {"SLEEP": "Sleep", "POLLING": "Polling", "DISABLED": "Disabled", "ARMED": "PortConfigurationTraining",
               "LINK_UP": "LinkUp", "LINK_ERROR_RECOVER": "LinkErrorRecovery", "PHY_TEST": "PhyTest",
               "NOP": "NoStateChange", "UNKNOWN": "Unknown", "OPA_OFFLINE": "Offline", "OPA_TEST": "PhyTest"}


@parser("linux_rdma_link",
        "rdma link (iproute2): every RDMA device's ports, their state and physical state, LID and netdev",
        kind="text", empty_ok=True)
def rdma_link(text):
    """{"devices": {device: {"ports": {"<n>": {"state", "phys_state" (ibstat's words: Active, LinkUp...),
    "rdma_state", "rdma_phys_state" (as printed: ACTIVE, LINK_UP...; both physical states None where the kernel
    reports none), "link_layer" ("InfiniBand" where the port
    shows its subnet prefix and LIDs, which the kernel's nldev gives a port of the InfiniBand protocol alone; else
    "Ethernet", the link layer ibstat shows a RoCE or iWARP port on), "lid", "sm_lid", "netdev"}}}}}, marked unverified (the list
    has no count or trailer). No line at all is no RDMA device (what `rdma link` prints then); a line that is no
    link line (an error, a line cut short), a state word iproute2 does not print, or a port listed twice: not a
    read. A line wrapped at the tab before "state" (an IB port with its netdev, as a mail client showed it) is
    read as the one line it is."""
    devices, count = {}, 0
    for number, line in enumerate(_unwrapped(text), 1):
        if not line.strip():
            continue
        match = _LINK.match(line.strip())
        if not match:
            raise ValueError("line %d is no `rdma link` line: %r" % (number, line[:120]))
        lids = (int(match.group("lid")), int(match.group("sm_lid"))) if match.group("prefix") is not None else None
        _add_port(devices, "line %d" % number, match.group("device"), match.group("port"), match.group("state"),
                  match.group("phys"), lids, match.group("netdev"))
        count += 1
    return trailerless({"devices": devices, "ports": count})


def _add_port(devices, where, device, port, state, phys, lids, netdev):
    """One port of `rdma link` in either form, in ibstat's words; ``lids`` (lid, sm_lid) of an InfiniBand port (the
    kernel's nldev gives a subnet prefix and LIDs to a port of the InfiniBand protocol alone), None of another."""
    if state not in RDMA_STATES or phys not in RDMA_PHYS_STATES + (None,):
        raise ValueError("%s: state %s%s: not iproute2's words" % (where, state, " physical_state %s" % phys if phys else ""))
    ports = devices.setdefault(device, {"ports": {}})["ports"]
    if port in ports:
        raise ValueError("%s: %s/%s listed twice" % (where, device, port))
    ports[port] = {
        "state": IBSTAT_STATE[state], "phys_state": IBSTAT_PHYS.get(phys), "rdma_state": state, "rdma_phys_state": phys,
        "link_layer": "InfiniBand" if lids else "Ethernet", "lid": lids[0] if lids else None,
        "sm_lid": lids[1] if lids else None, "netdev": netdev}


# `rdma -j link show` (iproute2's -j, in every release since the rdma tool's first, 4.13: commit 7fc75744 "rdma: Add
# json output to link object"): a JSON array of an object per port, "[]" where there is no RDMA device. The keys are
# the text form's words: "ifindex", "ifname", "port", then for an InfiniBand port "subnet_prefix", "lid", "sm_lid",
# "lmc", then "state", "physical_state" (where the kernel reports one), "netdev" and "netdev_index" (where the port has
# one; since 4.18), "caps" with -d. Before 5.5 (commit b0a688a5) "ifname" was "<dev>/<port>" and came after "port";
# since, it is the device alone. Cases: tests/unit/parsers/linux_rdma_link_json.
_JSON_KEYS = {"ifindex", "ifname", "port", "subnet_prefix", "lid", "sm_lid", "lmc", "state", "physical_state", "netdev",
              "netdev_index", "caps"}


@parser("linux_rdma_link_json",
        "rdma -j link show (iproute2's JSON): every RDMA device's ports, their state and physical state, LID and netdev",
        kind="json")
def rdma_link_json(document):
    """The facts of linux_rdma_link, from the JSON form: a document that is no list of port objects, a port without its
    device, port number or state, a key or a state word iproute2 does not print, or a port listed twice: not a read.
    "[]" is no RDMA device, as an empty `rdma link` is."""
    if not isinstance(document, list):
        raise ValueError("not a JSON array of ports: %s" % type(document).__name__)
    devices = {}
    for number, entry in enumerate(document, 1):
        if not isinstance(entry, dict) or not {"ifname", "port", "state"} <= set(entry):
            raise ValueError("entry %d is no port of `rdma -j link show` (ifname, port, state): %r" % (number, entry))
        unknown = sorted(set(entry) - _JSON_KEYS)
        if unknown:
            raise ValueError("entry %d: keys iproute2's rdma link does not print: %s" % (number, ", ".join(unknown)))
        device, _sep, port = str(entry["ifname"]).partition("/")
        if port and port != str(entry["port"]):  # before 5.5: "mlx5_0/1" beside "port": 1
            raise ValueError("entry %d: ifname %s beside port %s" % (number, entry["ifname"], entry["port"]))
        infiniband = "subnet_prefix" in entry
        if infiniband and not {"lid", "sm_lid"} <= set(entry):
            raise ValueError("entry %d: %s/%s has a subnet prefix and no LID or SM LID" % (number, device, entry["port"]))
        _add_port(devices, "entry %d" % number, device, str(int(entry["port"])), entry["state"], entry.get("physical_state"),
                  (int(entry["lid"]), int(entry["sm_lid"])) if infiniband else None, entry.get("netdev"))
    return trailerless({"devices": devices, "ports": len(document)})


def _unwrapped(text):
    """The lines, an indented "state ..." line joined to the link line it continues."""
    lines = []
    for line in (text or "").splitlines():
        if line[:1] in (" ", "\t") and line.strip().startswith("state ") and lines and lines[-1].strip():
            lines[-1] = lines[-1].rstrip() + " " + line.strip()
        else:
            lines.append(line)
    return lines


# ibdev2netdev (MLNX_OFED, DOCA-Host: a shell script over sysfs): "<device> port <n> ==> <netdev> (Up|Down)", the
# netdev's operstate; with -v each line opens with the PCI address, the board's part and name, its firmware and the
# RDMA port's state ("port 1 (ACTIVE) ==> ib0 (Up)", "(DOWN  )" padded). Captures: tests/unit/parsers/linux_ibdev2netdev.
_PLAIN = re.compile(r"^(?P<device>[A-Za-z0-9_.-]+) port (?P<port>\d+) ==> (?P<netdev>\S+) \((?P<oper>Up|Down)\)$")
_VERBOSE = re.compile(r"^(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) (?P<device>[A-Za-z0-9_.-]+) "
                      r"\((?P<part>[^)]*)\)(?P<board>.*?) fw (?P<fw>\S+) port (?P<port>\d+) \((?P<state>[A-Z_]+)\s*\) "
                      r"==> (?P<netdev>\S+) \((?P<oper>Up|Down)\)$")


@parser("linux_ibdev2netdev",
        "ibdev2netdev (MLNX_OFED / DOCA): each RDMA device's port and the netdev it carries, Up or Down",
        kind="text", empty_ok=True)
def ibdev2netdev(text):
    """{"devices": {device: {"ports": {"<n>": {"netdev", "netdev_up" (its operstate Up), "state" (the RDMA port's,
    with -v: ACTIVE, DOWN... else None), "pci", "firmware" (with -v, else None)}}}}, marked unverified (no count or
    trailer). No line at all is no RDMA device; any other line, or a port listed twice, is not a read."""
    devices, count = {}, 0
    for number, line in enumerate((text or "").splitlines(), 1):
        if not line.strip():
            continue
        match = _PLAIN.match(line.strip()) or _VERBOSE.match(line.strip())
        if not match:
            raise ValueError("line %d is no ibdev2netdev line: %r" % (number, line[:120]))
        fields = match.groupdict()
        ports = devices.setdefault(fields["device"], {"ports": {}})["ports"]
        if fields["port"] in ports:
            raise ValueError("line %d: %s port %s listed twice" % (number, fields["device"], fields["port"]))
        ports[fields["port"]] = {"netdev": fields["netdev"], "netdev_up": fields["oper"] == "Up",
                                 "state": fields.get("state"), "pci": fields.get("pci"), "firmware": fields.get("fw")}
        count += 1
    return trailerless({"devices": devices, "ports": count})


# The kernel's own record of an RDMA port's rate (drivers/infiniband/core/sysfs.c rate_show: "%d%s Gb/sec (%dX%s)\n",
# the rate's ".5" for SDR/DDR lanes, the width, then " SDR".. " XDR" where the speed has a name), what ibstat's Rate is
# read from: "400 Gb/sec (4X NDR)" (an NDR port, or a 400GbE RoCE port), "100 Gb/sec (2X NDR)" (100GbE on a ConnectX-7).
_SYSFS_RATE = re.compile(r"^(?P<gbps>\d+(?:\.5)?) Gb/sec \((?P<width>\d+)X(?: (?P<speed>[A-Z]+))?\)$")


@parser("linux_sysfs_ib_rate",
        "/sys/class/infiniband/<dev>/ports/1/rate: the port's rate in Gb/s, its width and lane speed",
        kind="text")
def sysfs_ib_rate(text):
    """{"rate_gbps" (an int, 2.5 for SDR 1X: ibstat's Rate), "width" ("4X"), "speed" ("NDR" or None)}; one line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    match = _SYSFS_RATE.match(lines[0]) if len(lines) == 1 else None
    if not match:
        raise ValueError("not one line '<n> Gb/sec (<w>X <speed>)' of ports/1/rate: %r" % text[:80])
    gbps = float(match.group("gbps"))
    return {"rate_gbps": int(gbps) if gbps.is_integer() else gbps, "width": match.group("width") + "X",
            "speed": match.group("speed")}


# drivers/infiniband/core/sysfs.c fw_ver_show (ib_get_device_fw_str): the firmware as the driver formats it, for mlx5
# "%d.%d.%04d" (28.39.1002), what ibstat's "Firmware version" is read from
_FW_VER = re.compile(r"^\d+\.\d+\.\d+$")


@parser("linux_sysfs_fw_ver",
        "/sys/class/infiniband/<dev>/fw_ver: the RDMA device's firmware version",
        kind="text")
def sysfs_fw_ver(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1 or not _FW_VER.match(lines[0]):
        raise ValueError("not one firmware version line (28.39.1002) of fw_ver: %r" % text[:80])
    return {"firmware": lines[0]}


# drivers/infiniband/core/sysfs.c show_port_gid: a GID as "%pI6" (eight groups of four hex digits, never shortened).
# GID 0 of an InfiniBand port is its subnet prefix then its port GUID (the interface id): libibumad's umad_get_port
# reads ports/<n>/gids/0 for the "Port GUID" ibstat prints, so this is that GUID where ibstat is not installed.
_SYSFS_GID = re.compile(r"^(?P<prefix>(?:[0-9a-f]{4}:){3}[0-9a-f]{4}):(?P<guid>(?:[0-9a-f]{4}:){3}[0-9a-f]{4})$")


@parser("linux_sysfs_ib_gid",
        "/sys/class/infiniband/<dev>/ports/1/gids/0: the port's GID 0, its subnet prefix and port GUID",
        kind="text")
def sysfs_ib_gid(text):
    """{"port_guid" ("0x0c42a10300f00001", as ibstat prints it), "subnet_prefix" ("fe80:0000:0000:0000")}; one line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    match = _SYSFS_GID.match(lines[0].lower()) if len(lines) == 1 else None
    if not match:
        raise ValueError("not one GID line (fe80:0000:0000:0000:0c42:a103:00f0:0001) of ports/1/gids/0: %r" % text[:80])
    return {"port_guid": "0x" + match.group("guid").replace(":", ""), "subnet_prefix": match.group("prefix")}
