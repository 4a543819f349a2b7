# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host parsers: Linux files and the vendor tools of a GPU node (ibstat, lsmod, mlxconfig, nvidia-smi, modinfo)."""

from __future__ import annotations

import os
import re

from ._common import fail, headed_rows, listed, number, only_row, reject_other
from ._registry import parser


@parser("linux_ibstat",
        "ibstat: RDMA CAs, their firmware and per-port state, rate and link layer")
def _ibstat(rows):
    unreadable = _ibstat_panics(row["panic"] for row in rows if row["panic"])
    devices = {}
    for row in (row for row in rows if not row["panic"]):
        name = row["ca"]
        device = devices.setdefault(name, {
            "ca_type": row["ca_type"], "firmware": row["firmware_version"],
            "node_guid": row["node_guid"], "ports": {}, "_expected": row["number_of_ports"],
        })
        needed = ("port", "state", "physical_state", "rate", "link_layer")
        missing = [key for key in needed if not row[key]]
        if missing:
            where = "port %s" % row["port"] if row["port"] else "its first port"
            fail("CA %s is cut short at %s (no %s)", name, where, ", ".join(missing))
        device["ports"][row["port"]] = {
            "state": row["state"], "phys_state": row["physical_state"],
            "rate_gbps": number(row["rate"]), "link_layer": row["link_layer"],
            "port_guid": row["port_guid"],
            # the LID of the subnet manager that configured the port (0: none has); RoCE ports print 0
            "sm_lid": int(row["sm_lid"]) if row["sm_lid"] else None,
        }
    if not devices and not unreadable:
        fail("no CA found")
    for name, device in devices.items():
        if not device["firmware"]:  # ibstat prints it for every CA: a lost line would read as firmware drift to ""
            fail("CA %s has no 'Firmware version:' line (damaged?)", name)
        expected = device.pop("_expected")
        if expected and len(device["ports"]) < int(expected):
            fail("CA %s lists %d of its %s ports", name, len(device["ports"]), expected)
    if unreadable:  # ibstat stopped at that CA: the ones it listed before stand, the rest are unknown
        return {"devices": devices, "unreadable": unreadable}
    return {"devices": devices}


def _ibstat_panics(messages):
    """{CA: message} of ibstat's IBPANIC lines ("stat of IB device 'mlx5_8' failed: ..."); a panic that
    names no CA ("can't list IB device names") leaves nothing to read at all."""
    unreadable = {}
    for message in messages:
        match = re.search(r"IB device '([^']+)'", message)
        if not match:
            fail("ibstat failed: %s", message)
        unreadable[match.group(1)] = message
    return unreadable


def _holders(text):
    # /proc/modules ends the list with "," and prints "-" for none.
    return [name for name in text.split(",") if name and name not in ("-", "[permanent]")]


def _modules(rows):
    return listed("modules", {row["module"]: {"size": int(row["size"]), "used_by": _holders(row["used_by"])} for row in rows},
                  "modules")


@parser("linux_lsmod",
        "lsmod: loaded kernel modules with size and holders")
def _lsmod(rows):
    return _modules(headed_rows(rows, "'Module Size Used by'"))


@parser("linux_proc_modules",
        "/proc/modules: loaded kernel modules with size and holders")
def _proc_modules(rows):
    return _modules(reject_other(rows))


# show_initstate (kernel/module/sysfs.c, Documentation/ABI/testing/sysfs-module): the only words a loadable
# module's /sys/module/<name>/initstate prints, each with a newline.
MODULE_INITSTATES = ("live", "coming", "going")


@parser("linux_sysfs_module_initstate",
        "cat of /sys/module/<name>/initstate: a loaded (loadable) module's state, live, coming or going",
        kind="text")
def _module_initstate(text):
    if text.strip() and not text.endswith("\n"):  # the kernel ends the word with a newline: without it, cut short
        fail("the output ends inside the word (%r, no newline after it): cut short", text.strip()[:40])
    words = text.split()
    if len(words) != 1 or words[0] not in MODULE_INITSTATES:
        fail("an initstate is one of %s, got %r", ", ".join(MODULE_INITSTATES), text[:60])
    return {"initstate": words[0]}


# mstflint's mlxconfig_ui.cpp prints this note after the table exactly when a row is marked '*' (isParamsDiffer)
_MLX_DIFFER_NOTE = "The '*' shows parameters with next value different from default/current value."
# an enum or boolean value: NAME(n), n its encoding in a firmware field of at most 32 bits
_MLX_ENUM = re.compile(r"^[^()\s]*\((\d{1,10})\)$")
# The Description line (from the firmware's PSID record) names the card's ports: "...; Single-port OSFP; ...",
# "...; Dual-port QSFP112; ..." on ConnectX and BlueField cards. It comes before the table, so a cut table
# cannot change it, unlike "no _P2 row was listed".
_MLX_PORTS = re.compile(r"\b(single|dual|quad)-port\b", re.IGNORECASE)
_MLX_PORT_COUNTS = {"single": 1, "dual": 2, "quad": 4}
_MLX_PSID_LINES = ("Name:", "Description:")


@parser("linux_mlxconfig_query",
        "mlxconfig -d <dev> -e q: firmware parameters (default, current, next boot)",
        with_text=True)
def _mlxconfig(rows, text):
    errors = [row["error"] for row in rows if row["error"]]
    if errors:
        fail("mlxconfig error: %s", "; ".join(errors))
    if not rows or not rows[0]["device_type"]:
        fail("no device block with a Default/Current/Next Boot header")
    # mlxconfig prints the Name and Description lines together, from the card's PSID record (a value may be empty;
    # an older MFT prints neither): one without the other is a line lost, and with the Description line the card's
    # port count, which says whether the _P2 rows count
    shown = [label for label in _MLX_PSID_LINES if re.search(r"(?m)^%s" % re.escape(label), text)]
    if len(shown) == 1:
        fail("the device block shows its %s line without its %s line (a line lost?)", shown[0],
             next(label for label in _MLX_PSID_LINES if label not in shown))
    params = {}
    for row in rows[1:]:
        params[row["param"]] = {
            "default": _mlx_value(row["param"], row["default"]), "current": _mlx_value(row["param"], row["current"]),
            "next_boot": _mlx_value(row["param"], row["next_boot"]), "modified": row["modified"] == "*",
        }
    if not params:
        fail("no parameters listed")
    if any(entry["modified"] for entry in params.values()) and _MLX_DIFFER_NOTE not in text:
        # the table has no trailer of its own; the note is one whenever a row is marked: without it, cut short
        fail("parameters marked '*' but no closing %r line (cut short?)", _MLX_DIFFER_NOTE[:40] + "...")
    return {"device": rows[0]["device"], "device_type": rows[0]["device_type"], "params": params,
            "ports": _mlx_ports(rows[0]["description"])}


def _mlx_ports(description):
    """The card's port count as its Description names it, or None when it names none (or two)."""
    named = {_MLX_PORT_COUNTS[word.lower()] for word in _MLX_PORTS.findall(description or "")}
    return named.pop() if len(named) == 1 else None


def _mlx_value(name, value):
    """A value as mlxconfig prints it; NAME(n) only with an encoding n that fits the 32-bit field."""
    if "(" in value or ")" in value:
        match = _MLX_ENUM.match(value)
        if not match or int(match.group(1)) >= 2 ** 32:
            fail("%s: %r is not a value mlxconfig prints (NAME(n), n a 32-bit encoding)", name, value)
    return value


@parser("linux_proc_meminfo",
        "/proc/meminfo: total memory and hugepage pool")
def _meminfo(rows):
    reject_other(rows)
    values = {row["key"]: int(row["value"]) for row in rows}
    wanted = {"mem_total_kb": "MemTotal", "hugepages_total": "HugePages_Total",
              "hugepages_free": "HugePages_Free", "hugepagesize_kb": "Hugepagesize"}
    missing = [key for key in wanted.values() if key not in values]
    if missing:
        fail("missing %s (truncated?)", ", ".join(missing))
    return {fact: values[key] for fact, key in wanted.items()}


# One kernel argument: bare words and "double quoted" runs, as the kernel splits them.
_ARG = re.compile(r'(?:[^\s"]+|"[^"]*")+')


@parser("linux_proc_cmdline",
        "/proc/cmdline: kernel boot arguments",
        kind="text")
def _cmdline(text):
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        fail("expected one line, got %d", len(lines))
    pairs = []
    for word in _ARG.findall(lines[0]):
        key, value = word.partition("=")[::2]
        pairs.append([key, value.replace('"', "")])
    return {"raw": lines[0].strip(), "args": dict(pairs), "all": pairs}


@parser("linux_sys_class_iommu",
        "entries of /sys/class/iommu, one per line (empty = no IOMMU units)",
        empty_ok=True)
def _iommu(rows):
    reject_other(rows)
    return {"units": sorted(row["unit"] for row in rows)}


@parser("linux_proc_osrelease",
        "/proc/sys/kernel/osrelease: running kernel release")
def _osrelease(rows):
    release = only_row(rows, "release")["release"]
    major, minor = re.match(r"(\d+)\.(\d+)", release).groups()
    return {"release": release, "major": int(major), "minor": int(minor)}


_AFFINITY_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")


def _in_print_order(columns):
    """nvidia-smi prints GPU0..GPUn-1, then NIC0..NICm-1: a header out of that order is damaged, and its
    cells would be read under the wrong peers."""
    for prefix in ("GPU", "NIC"):
        numbered = [name for name in columns if re.match(prefix + r"\d+$", name)]
        if numbered != ["%s%d" % (prefix, index) for index in range(len(numbered))]:
            fail("the header's %s columns are not %s0..%s%d in order: %s", prefix, prefix, prefix, len(numbered) - 1, " ".join(numbered))


_LEGEND_LINE = re.compile(r"^\s+NIC\d+:\s")


@parser("linux_nvidia_smi_topo_m",
        "nvidia-smi topo -m: GPU<->GPU/NIC link matrix, CPU/NUMA affinity, NIC legend",
        with_text=True)
def _topo(rows, text):
    # the NIC legend ends the output: a read cut inside its last line ("NIC7: mlx5_") names a NIC that is not there,
    # and the rail it is would read as missing from the topology (a FAIL on a damaged read)
    last = text.rstrip("\n").rsplit("\n", 1)[-1]
    if _LEGEND_LINE.match(last) and not text.endswith("\n"):
        fail("the NIC legend's last line %r has no line end: cut short", last.strip())
    if not rows or not rows[0]["columns"]:
        fail("no GPU0 header row")
    header = rows[0]["columns"]
    columns = []
    for token in header.split():
        if token in ("CPU", "NUMA", "GPU"):  # first word of the affinity columns
            break
        columns.append(token)
    _in_print_order(columns)
    present = [name for name in _AFFINITY_COLUMNS if name in header]
    matrix = {row["device"]: row for row in rows[1:] if row["device"]}
    legend = {row["nic"]: row["nic_name"] for row in rows[1:] if row["nic"]}
    gpus, nics = {}, {}
    for name in columns:
        row = matrix.get(name)
        if row is None:
            fail("no row for %s (truncated?)", name)
        cells = row["links"].split()
        if len(cells) != len(columns):
            fail("%s has %d cells for %d columns", name, len(cells), len(columns))
        if cells[columns.index(name)] != "X":  # nvidia-smi marks a device's own column X: cells moved otherwise
            fail("%s's own column holds %r, not X", name, cells[columns.index(name)])
        if name.startswith("GPU"):
            if "CPU Affinity" in present and not row["cpu_affinity"]:
                fail("%s row is cut before its affinity columns", name)
            links = {peer: cell for peer, cell in zip(columns, cells) if peer != name}
            gpus[name] = {"links": links, "cpu_affinity": row["cpu_affinity"] or None,
                          "numa_affinity": row["numa_affinity"] or None}
        elif re.match(r"NIC\d+$", name):
            if name not in legend:
                fail("%s is not in the NIC legend (truncated?)", name)
            nics[name] = legend[name]
        else:
            nics[name] = name  # older drivers name NIC columns by device
    if not gpus:
        fail("no GPU rows")
    return {"gpus": gpus, "nics": nics}


@parser("linux_modinfo",
        "modinfo nvidia: driver version and license (open vs proprietary kernel module)")
def _modinfo(rows):
    fields = {}
    for row in reject_other(rows):
        fields.setdefault(row["key"], row["value"])
    if "modinfo" in fields:
        fail(fields["modinfo"])
    missing = [key for key in ("filename", "version", "license") if key not in fields]
    if missing:
        fail("missing %s", ", ".join(missing))
    name = fields.get("name") or re.sub(r"\.ko(\.\w+)?$", "", os.path.basename(fields["filename"]))
    license_ = fields["license"]
    return {"name": name, "version": fields["version"], "license": license_,
            "open_kernel_module": "GPL" in license_ or "MIT" in license_}


# kmod's modinfo (tools/modinfo.c): "name:" then "filename:" set to "(builtin)" for a module the kernel has built in
# (read from /lib/modules/$(uname -r)/modules.builtin.modinfo, or modules.builtin before Linux 5.2), else the .ko's
# path; "modinfo: ERROR: Module X not found." where kmod knows it neither way
_MODINFO_FIELD = re.compile(r"^([A-Za-z_]\w*):\s*(.*)$")
_MODINFO_NOT_FOUND = re.compile(r"^modinfo: ERROR: Module (\S+) not found\.$")


@parser("linux_modinfo_where",
        "modinfo <module>: whether the kernel has the module built in (filename: (builtin)), as a .ko file, or not at all",
        kind="text")
def _modinfo_where(text):
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        fail("no output")
    missing = [_MODINFO_NOT_FOUND.match(line.strip()) for line in lines]
    if all(missing):
        if len(lines) != 1:
            fail("more than one module not found: %s", ", ".join(found.group(1) for found in missing))
        return {"name": missing[0].group(1), "found": False}
    fields = {}
    for line in lines:
        if line[0] in " \t":
            continue  # a signature's continuation line
        match = _MODINFO_FIELD.match(line)
        if not match or match.group(1) == "modinfo":
            fail("not a modinfo field: %r", line[:80])
        fields.setdefault(match.group(1), match.group(2).strip())
    if not fields.get("filename"):
        fail("no filename: line (cut short?)")
    builtin = fields["filename"] == "(builtin)"
    if builtin and not fields.get("name"):
        fail("a built-in module without its name: line")
    if not builtin and not re.search(r"\.ko(\.\w+)?$", fields["filename"]):
        fail("filename %r is neither (builtin) nor a .ko file", fields["filename"])
    name = fields.get("name") or re.sub(r"\.ko(\.\w+)?$", "", os.path.basename(fields["filename"])).replace("-", "_")
    return {"name": name, "found": True, "builtin": builtin, "filename": fields["filename"]}


@parser("linux_proc_driver_nvidia_version",
        "/proc/driver/nvidia/version: loaded driver version, open vs proprietary kernel module")
def _driver_version(rows):
    line = only_row(rows, "NVRM version line")
    return {"name": "nvidia", "version": line["version"], "license": None,
            "open_kernel_module": line["flavour"].startswith("Open Kernel Module")}


@parser("linux_dir_listing",
        "entries of a directory, one per line (empty = none), e.g. /sys/class/infiniband",
        empty_ok=True)
def _dir_listing(rows):
    reject_other(rows)
    return {"entries": [row["entry"] for row in rows if row["entry"]]}
