# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU health parsers: nvidia-smi -q (every GPU's PCIe link, clocks, ECC, remapped rows, fabric),
nvidia-smi nvlink -s, and the kernel log's NVRM Xid lines (dmesg / journalctl -k).

nvidia-smi -q is an indented key/value report whose fields move between driver branches (535 prints
"SRAM Uncorrectable", 550+ splits it into Parity and SEC-DED; "Clocks Throttle Reasons" became
"Clocks Event Reasons"; 580 deprecates "Current" PCIe generation for "Device Current"), so it is read
as a tree of "section/sub/key" paths rather than by a template with fixed lines.
"""

from __future__ import annotations

import re

from ._common import fail
from ._registry import parser

_HEADER = "==============NVSMI LOG=============="
_GPU = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_KEY = re.compile(r"^( *)([^:]+?)\s*(?::\s*(.*?))?\s*$")
_NA = ("N/A", "[N/A]", "Unknown Error", "[Unknown Error]", "Requested functionality has been deprecated")

# Clock event reasons as facts (nvidia-smi -q names; "Clocks Throttle Reasons" before the 530s)
CLOCK_REASONS = {
    "Idle": "idle",
    "Applications Clocks Setting": "applications_clocks_setting",
    "SW Power Cap": "sw_power_cap",
    "HW Slowdown": "hw_slowdown",
    "HW Slowdown/HW Thermal Slowdown": "hw_thermal_slowdown",
    "HW Slowdown/HW Power Brake Slowdown": "hw_power_brake_slowdown",
    "Sync Boost": "sync_boost",
    "SW Thermal Slowdown": "sw_thermal_slowdown",
    "Display Clock Setting": "display_clock_setting",
}


def bus_key(bus_id):
    """'00000000:2F:00.0' or '0000:2f:00' -> '0000:2f:00' (domain:bus:device, as NVRM's Xid lines name a GPU)."""
    domain, bus, device = bus_id.split(".")[0].split(":")
    return "%04x:%s:%s" % (int(domain, 16), bus.lower(), device.lower())


def _blocks(text):
    """(header lines, [(bus id, [lines])]) of an nvidia-smi -q report."""
    lines = text.splitlines()
    if not any(line.strip() == _HEADER for line in lines):
        fail("no NVSMI LOG header (not nvidia-smi -q output?): %r", (text.strip().splitlines() or [""])[0][:120])
    head, gpus = [], []
    for line in lines:
        match = _GPU.match(line)
        if match:
            gpus.append((match.group(1), []))
        elif gpus:
            gpus[-1][1].append(line)
        else:
            head.append(line)
    return head, gpus


def _tree(lines):
    """'Section/Sub/Key' -> value (None for a section heading, the value's text otherwise)."""
    paths, stack = {}, []  # stack: (indent, name)
    for line in lines:
        if not line.strip():
            continue
        match = _KEY.match(line.rstrip())
        indent, key, value = len(match.group(1)), match.group(2).strip(), match.group(3)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, key))
        paths["/".join(name for _indent, name in stack)] = value
    return paths


def _value(paths, path):
    value = paths.get(path)
    return None if value is None or value in _NA or value == "" else value


def _int(paths, path, what):
    value = _value(paths, path)
    if value is None:
        return None
    match = re.match(r"^(\d+)x?$", value)
    if not match:
        fail("%s is %r, not a number", what, value)
    return int(match.group(1))


def _yes(paths, path):
    value = _value(paths, path)
    return None if value is None else value == "Yes"


def _first(paths, *candidates):
    return next((path for path in candidates if path in paths), candidates[0])


def _pcie(paths):
    link = "PCI/GPU Link Info"
    gen = _first(paths, link + "/PCIe Generation", "PCI/PCIe Generation")
    width = _first(paths, link + "/Link Width", "PCI/Link Width")
    current = _int(paths, gen + "/Current", "PCIe generation")
    device_current = _int(paths, gen + "/Device Current", "PCIe device generation")
    return {
        "gen_max": _int(paths, gen + "/Max", "PCIe max generation"),
        # 580 deprecates "Current" for "Device Current" (pcie.link.gen.gpucurrent): read the device's own
        "gen_current": device_current if device_current is not None else current,
        "gen_device_max": _int(paths, gen + "/Device Max", "PCIe device max generation"),
        "gen_host_max": _int(paths, gen + "/Host Max", "PCIe host max generation"),
        "width_max": _int(paths, width + "/Max", "PCIe max width"),
        "width_current": _int(paths, width + "/Current", "PCIe width"),
        "replays": _int(paths, "PCI/Replays Since Reset", "PCIe replays"),
    }


def _clock_events(paths):
    section = _first(paths, "Clocks Event Reasons", "Clocks Throttle Reasons")
    events = {}
    for key, fact in CLOCK_REASONS.items():
        value = _value(paths, section + "/" + key)
        if value is not None:
            events[fact] = value == "Active"
    return events


def _uncorrectable(paths, scope):
    """Uncorrectable ECC errors of one scope (Volatile, Aggregate), summed over SRAM/DRAM, or None (N/A)."""
    base = "ECC Errors/" + scope
    if base + "/Double Bit/Total" in paths:  # Volta and older: Single Bit / Double Bit
        return _int(paths, base + "/Double Bit/Total", "%s double bit ECC errors" % scope)
    counts = [_int(paths, path, path) for path in paths
              if path.startswith(base + "/") and "Uncorrectable" in path and path.count("/") == 2]
    counts = [count for count in counts if count is not None]
    return sum(counts) if counts else None


def _remapped(paths):
    if _value(paths, "Remapped Rows/Pending") is None:
        return None  # not an HBM GPU with a row remapper (or ECC off)
    return {
        "correctable": _int(paths, "Remapped Rows/Correctable Error", "remapped rows"),
        "uncorrectable": _int(paths, "Remapped Rows/Uncorrectable Error", "remapped rows"),
        "pending": _yes(paths, "Remapped Rows/Pending"),
        "failure": _yes(paths, "Remapped Rows/Remapping Failure Occurred"),
    }


def _gpu(index, bus_id, lines):
    paths = _tree(lines)
    if "Processes" not in paths:  # -q prints Processes near the end of every GPU: a block without it was cut
        fail("GPU %s (%s) is cut short (no Processes line)", index, bus_id)
    if not any(path.startswith("PCI/") for path in paths):
        fail("GPU %s (%s) has no PCI section", index, bus_id)
    fabric_state = _value(paths, "Fabric/State")
    return {
        "index": index,
        "bus_id": bus_id,
        "name": _value(paths, "Product Name"),
        "performance_state": _value(paths, "Performance State"),
        "pcie": _pcie(paths),
        "clock_events": _clock_events(paths),
        "ecc": {"mode": _value(paths, "ECC Mode/Current"),
                "volatile_uncorrectable": _uncorrectable(paths, "Volatile"),
                "aggregate_uncorrectable": _uncorrectable(paths, "Aggregate")},
        "remapped_rows": _remapped(paths),
        "fabric": None if fabric_state is None else {"state": fabric_state, "status": _value(paths, "Fabric/Status")},
    }


@parser("linux_nvidia_smi_q",
        "nvidia-smi -q: per GPU (index, bus id) PCIe link, performance state, clock event reasons, ECC, remapped rows, fabric state",
        kind="text")
def _nvidia_smi_q(text):
    head, blocks = _blocks(text)
    header = _tree(head)
    attached = _int(header, "Attached GPUs", "Attached GPUs")
    if not blocks:
        fail("no GPU block (Attached GPUs: %s)", attached)
    if attached is not None and attached != len(blocks):
        fail("%d GPU blocks for %d attached GPUs (cut short?)", len(blocks), attached)
    return {"driver": _value(header, "Driver Version"),
            "gpus": [_gpu(index, bus_id, lines) for index, (bus_id, lines) in enumerate(blocks)]}


_NVLINK_GPU = re.compile(r"^GPU (\d+): (.+?)(?: \(UUID: [^)]*\))?\s*$")
_NVLINK_LINK = re.compile(r"^\s+Link (\d+): (?:([\d.]+) GB/s|<inactive>)\s*$")


@parser("linux_nvidia_smi_nvlink_s",
        "nvidia-smi nvlink -s: per GPU, each NVLink's rate in GB/s (None = inactive); empty = no NVLink",
        kind="text", empty_ok=True)
def _nvlink_status(text):
    gpus, current = {}, None
    for line in text.splitlines():
        if not line.strip():
            continue
        gpu, link = _NVLINK_GPU.match(line), _NVLINK_LINK.match(line)
        if gpu:
            current = gpus.setdefault(int(gpu.group(1)), {"name": gpu.group(2), "links": {}})
        elif link and current is not None:
            current["links"][int(link.group(1))] = float(link.group(2)) if link.group(2) else None
        else:
            fail("unexpected line %r (not nvidia-smi nvlink -s output?)", line.strip()[:120])
    return {"gpus": gpus}


# dmesg: "[  123.456789] NVRM: ..."; journalctl -k: "Nov 24 00:20:38 host kernel: NVRM: ..."
_KERNEL_LINE = re.compile(r"^(?:\[\s*\d+\.\d+\]|\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ kernel: )")
_XID = re.compile(r"NVRM: Xid \(PCI:([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.[0-7])?\): (\d+),\s*(.*)$")


@parser("linux_dmesg_xid",
        "dmesg / journalctl -k: the NVRM Xid events since boot (GPU bus id, Xid code, message)",
        kind="text")
def _kernel_log_xid(text):
    lines = [line for line in text.splitlines() if line.strip()]
    if not any(_KERNEL_LINE.match(line) for line in lines):
        fail("no kernel log line (not dmesg output?): %r", lines[0][:120])
    xids = []
    for line in lines:
        match = _XID.search(line)
        if match:
            xids.append({"pci": bus_key(match.group(1)), "code": int(match.group(2)), "message": match.group(3).strip()})
    return {"lines": len(lines), "xids": xids}
