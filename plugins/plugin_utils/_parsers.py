# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side parsers: raw command/file text -> typed facts.

Each parser runs a TextFSM template from parsers/textfsm/<name>.textfsm
(except linux_proc_cmdline, parsed in Python) and normalizes the rows.
Output that is empty, unparseable or cut short raises ParseError: a check
must never read a truncated listing as "device absent".

Needs only textfsm and the standard library (no ansible imports), so the
action plugins, the unit tests and the twin can all load it by path.
"""

from __future__ import annotations

import os
import re

try:
    import textfsm
except ImportError as exc:  # a controller dependency: say so when a parser is used, not at import
    textfsm = None
    TEXTFSM_IMPORT_ERROR = exc
else:
    TEXTFSM_IMPORT_ERROR = None

TEMPLATE_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "parsers", "textfsm")

PARSERS = {
    "linux_ibstat": "ibstat: RDMA CAs, their firmware and per-port state, rate and link layer",
    "linux_lsmod": "lsmod: loaded kernel modules with size and holders",
    "linux_proc_modules": "/proc/modules: loaded kernel modules with size and holders",
    "linux_mlxconfig_query": "mlxconfig -d <dev> -e q: firmware parameters (default, current, next boot)",
    "linux_proc_meminfo": "/proc/meminfo: total memory and hugepage pool",
    "linux_proc_cmdline": "/proc/cmdline: kernel boot arguments (Python parser)",
    "linux_sys_class_iommu": "entries of /sys/class/iommu, one per line (empty = no IOMMU units)",
    "linux_proc_osrelease": "/proc/sys/kernel/osrelease: running kernel release",
    "linux_nvidia_smi_topo_m": "nvidia-smi topo -m: GPU<->GPU/NIC link matrix, CPU/NUMA affinity, NIC legend",
    "linux_modinfo": "modinfo nvidia: driver version and license (open vs proprietary kernel module)",
}

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_EMPTY_OK = {"linux_sys_class_iommu"}


class ParseError(Exception):
    """The text is not a complete, recognizable output of the command."""


def template_path(parser):
    return os.path.join(TEMPLATE_DIR, parser + ".textfsm")


def textfsm_rows(parser, text):
    """Raw TextFSM rows as dicts with lowercase keys (what fixtures hold)."""
    with open(template_path(parser), encoding="utf-8") as handle:
        fsm = textfsm.TextFSM(handle)
    return [{key.lower(): value for key, value in row.items()} for row in fsm.ParseTextToDicts(text)]


def parse(parser, text):
    if parser not in PARSERS:
        raise ParseError("unknown parser %r" % parser)
    if text is None:
        text = ""
    text = _ANSI.sub("", text.replace("\r\n", "\n"))
    if not text.strip() and parser not in _EMPTY_OK:
        raise ParseError("%s: empty output" % parser)
    if parser == "linux_proc_cmdline":
        return _cmdline(text)
    if textfsm is None:
        raise ParseError("%s: the textfsm Python package is not installed on the controller (%s)" % (parser, TEXTFSM_IMPORT_ERROR))
    try:
        rows = textfsm_rows(parser, text)
    except textfsm.TextFSMError as exc:
        raise ParseError("%s: %s" % (parser, exc))
    return _NORMALIZERS[parser](rows)


def _fail(parser, msg, *args):
    raise ParseError("%s: %s" % (parser, msg % args if args else msg))


def _reject_other(parser, rows):
    for row in rows:
        if row.get("other"):
            _fail(parser, "unexpected line %r", row["other"])


def _number(text):
    value = float(text)
    return int(value) if value.is_integer() else value


def _ibstat(rows):
    devices = {}
    for row in rows:
        name = row["ca"]
        device = devices.setdefault(name, {
            "ca_type": row["ca_type"], "firmware": row["firmware_version"],
            "node_guid": row["node_guid"], "ports": {}, "_expected": row["number_of_ports"],
        })
        needed = ("port", "state", "physical_state", "rate", "link_layer")
        missing = [key for key in needed if not row[key]]
        if missing:
            where = "port %s" % row["port"] if row["port"] else "its first port"
            _fail("linux_ibstat", "CA %s is cut short at %s (no %s)", name, where, ", ".join(missing))
        device["ports"][row["port"]] = {
            "state": row["state"], "phys_state": row["physical_state"],
            "rate_gbps": _number(row["rate"]), "link_layer": row["link_layer"],
            "port_guid": row["port_guid"],
        }
    if not devices:
        _fail("linux_ibstat", "no CA found")
    for name, device in devices.items():
        expected = device.pop("_expected")
        if expected and len(device["ports"]) < int(expected):
            _fail("linux_ibstat", "CA %s lists %d of its %s ports", name, len(device["ports"]), expected)
    return {"devices": devices}


def _holders(text):
    # /proc/modules ends the list with "," and prints "-" for none.
    return [name for name in text.split(",") if name and name not in ("-", "[permanent]")]


def _modules(parser, rows):
    modules = {}
    for row in rows:
        modules[row["module"]] = {"size": int(row["size"]), "used_by": _holders(row["used_by"])}
    if not modules:
        _fail(parser, "no modules listed")
    return {"modules": modules}


def _lsmod(rows):
    if not rows or not rows[0].get("header"):
        _fail("linux_lsmod", "missing 'Module Size Used by' header")
    _reject_other("linux_lsmod", rows)
    return _modules("linux_lsmod", rows[1:])


def _proc_modules(rows):
    _reject_other("linux_proc_modules", rows)
    return _modules("linux_proc_modules", rows)


def _mlxconfig(rows):
    errors = [row["error"] for row in rows if row["error"]]
    if errors:
        _fail("linux_mlxconfig_query", "mlxconfig error: %s", "; ".join(errors))
    if not rows or not rows[0]["device_type"]:
        _fail("linux_mlxconfig_query", "no device block with a Default/Current/Next Boot header")
    params = {}
    for row in rows[1:]:
        params[row["param"]] = {
            "default": row["default"], "current": row["current"],
            "next_boot": row["next_boot"], "modified": row["modified"] == "*",
        }
    if not params:
        _fail("linux_mlxconfig_query", "no parameters listed")
    return {"device": rows[0]["device"], "device_type": rows[0]["device_type"], "params": params}


def _meminfo(rows):
    _reject_other("linux_proc_meminfo", rows)
    values = {row["key"]: int(row["value"]) for row in rows}
    wanted = {"mem_total_kb": "MemTotal", "hugepages_total": "HugePages_Total",
              "hugepages_free": "HugePages_Free", "hugepagesize_kb": "Hugepagesize"}
    missing = [key for key in wanted.values() if key not in values]
    if missing:
        _fail("linux_proc_meminfo", "missing %s (truncated?)", ", ".join(missing))
    return {fact: values[key] for fact, key in wanted.items()}


# One kernel argument: bare words and "double quoted" runs, as the kernel splits them.
_ARG = re.compile(r'(?:[^\s"]+|"[^"]*")+')


def _cmdline(text):
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        _fail("linux_proc_cmdline", "expected one line, got %d", len(lines))
    pairs = []
    for word in _ARG.findall(lines[0]):
        key, value = word.partition("=")[::2]
        pairs.append([key, value.replace('"', "")])
    return {"raw": lines[0].strip(), "args": dict(pairs), "all": pairs}


def _iommu(rows):
    _reject_other("linux_sys_class_iommu", rows)
    return {"units": sorted(row["unit"] for row in rows)}


def _osrelease(rows):
    _reject_other("linux_proc_osrelease", rows)
    if len(rows) != 1:
        _fail("linux_proc_osrelease", "expected one release, got %d", len(rows))
    release = rows[0]["release"]
    major, minor = re.match(r"(\d+)\.(\d+)", release).groups()
    return {"release": release, "major": int(major), "minor": int(minor)}


_AFFINITY_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")


def _topo(rows):
    parser = "linux_nvidia_smi_topo_m"
    if not rows or not rows[0]["columns"]:
        _fail(parser, "no GPU0 header row")
    header = rows[0]["columns"]
    columns = []
    for token in header.split():
        if token in ("CPU", "NUMA", "GPU"):  # first word of the affinity columns
            break
        columns.append(token)
    present = [name for name in _AFFINITY_COLUMNS if name in header]
    matrix = {row["device"]: row for row in rows[1:] if row["device"]}
    legend = {row["nic"]: row["nic_name"] for row in rows[1:] if row["nic"]}
    gpus, nics = {}, {}
    for name in columns:
        row = matrix.get(name)
        if row is None:
            _fail(parser, "no row for %s (truncated?)", name)
        cells = row["links"].split()
        if len(cells) != len(columns):
            _fail(parser, "%s has %d cells for %d columns", name, len(cells), len(columns))
        if name.startswith("GPU"):
            if "CPU Affinity" in present and not row["cpu_affinity"]:
                _fail(parser, "%s row is cut before its affinity columns", name)
            links = {peer: cell for peer, cell in zip(columns, cells) if peer != name}
            gpus[name] = {"links": links, "cpu_affinity": row["cpu_affinity"] or None,
                          "numa_affinity": row["numa_affinity"] or None}
        elif re.match(r"NIC\d+$", name):
            if name not in legend:
                _fail(parser, "%s is not in the NIC legend (truncated?)", name)
            nics[name] = legend[name]
        else:
            nics[name] = name  # older drivers name NIC columns by device
    if not gpus:
        _fail(parser, "no GPU rows")
    return {"gpus": gpus, "nics": nics}


def _modinfo(rows):
    parser = "linux_modinfo"
    _reject_other(parser, rows)
    fields = {}
    for row in rows:
        fields.setdefault(row["key"], row["value"])
    if "modinfo" in fields:
        _fail(parser, fields["modinfo"])
    missing = [key for key in ("filename", "version", "license") if key not in fields]
    if missing:
        _fail(parser, "missing %s", ", ".join(missing))
    name = fields.get("name") or re.sub(r"\.ko(\.\w+)?$", "", os.path.basename(fields["filename"]))
    license_ = fields["license"]
    return {"name": name, "version": fields["version"], "license": license_,
            "open_kernel_module": "GPL" in license_ or "MIT" in license_}


_NORMALIZERS = {
    "linux_ibstat": _ibstat,
    "linux_lsmod": _lsmod,
    "linux_proc_modules": _proc_modules,
    "linux_mlxconfig_query": _mlxconfig,
    "linux_proc_meminfo": _meminfo,
    "linux_sys_class_iommu": _iommu,
    "linux_proc_osrelease": _osrelease,
    "linux_nvidia_smi_topo_m": _topo,
    "linux_modinfo": _modinfo,
}
