# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU health parsers: nvidia-smi -q (every GPU's PCIe link, clocks, ECC, remapped rows, fabric),
nvidia-smi nvlink -s and -e, a PCIe device's link in sysfs, and dcgmi diag -j
(the kernel log's NVRM Xid lines: kernel_log.py).

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
        if match is None or not match.group(2).strip():  # no key before its colon: damage, the tree under it unplaced
            fail("a line with no key: %r", line.strip()[:120])
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


_REMAPPED_LINES = ("Correctable Error", "Uncorrectable Error", "Pending", "Remapping Failure Occurred")


def _remapped(paths):
    if _value(paths, "Remapped Rows/Pending") is None:
        return None  # not an HBM GPU with a row remapper (or ECC off)
    # nvidia-smi prints the four lines together (each may be N/A): a block without one lost a line, and a lost
    # "Remapping Failure Occurred : Yes" would read as no failure
    lost = [line for line in _REMAPPED_LINES if "Remapped Rows/" + line not in paths]
    if lost:
        fail("the Remapped Rows section lacks its %s line (a line lost?)", ", ".join(lost))
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
    """nvidia-smi prints every GPU in index order and, under each, every link from 0 up (an inactive one too),
    each line ended by a newline (the collect module keeps stdout as printed). So a read is whole only when its
    last line is ended, and a GPU or link out of order, twice, or skipped is a line lost or moved on the way back,
    never a link down (issue 68: such damage read as a device's FAIL). A rate no NVLink runs at is damage too."""
    if text.strip() and not text.endswith("\n"):
        fail("the read ends inside its last line (%r): cut short", text.rsplit("\n", 1)[-1][-60:])
    gpus, current = {}, None
    for line in text.splitlines():
        if not line.strip():
            continue
        gpu, link = _NVLINK_GPU.match(line), _NVLINK_LINK.match(line)
        if gpu:
            index = int(gpu.group(1))
            if gpus and index <= max(gpus):
                fail("GPU %d listed after GPU %d: nvidia-smi lists the GPUs once each, in index order (a line moved or "
                     "repeated)", index, max(gpus))
            current = gpus.setdefault(index, {"name": gpu.group(2), "links": {}})
        elif link and current is not None:
            number, rate = int(link.group(1)), float(link.group(2)) if link.group(2) else None
            if number != len(current["links"]):
                fail("GPU %d: link %d where link %d comes next: nvidia-smi lists every link from 0 in order (a line "
                     "lost, moved or repeated)", max(gpus), number, len(current["links"]))
            if rate is not None and rate > _NVLINK_RATE_MAX:
                fail("GPU %d link %d at %r GB/s: no NVLink runs at that rate (a damaged number)", max(gpus), number,
                     link.group(2))
            current["links"][number] = rate
        else:
            fail("unexpected line %r (not nvidia-smi nvlink -s output?)", line.strip()[:120])
    return {"gpus": gpus}


# The fastest NVLink's per-link rate nvidia-smi prints is 50 GB/s (NVLink 5, Blackwell; H100/H200 print 26.562 and
# A100 25): ten times that is no NVLink, but a number damaged on the way back
_NVLINK_RATE_MAX = 500.0


# nvidia-smi nvlink -e: "\t Link 3: Replay Errors: 0" (NVLink 3/4, drivers 535 to 580 on A100/H100/H200);
# NVLink 5 drivers print other counters per link ("Rx Errors", "Total link recovery events", "FEC Errors - 0",
# "Effective BER": a float); every counter is kept under its own name, the judge picks the ones it reads.
_NVLINK_COUNTER = re.compile(r"^\s+Link (\d+): ([A-Za-z][A-Za-z0-9 ()/-]*?):\s*(\S+)\s*$")
_COUNT = re.compile(r"^\d+$")
_RATE = re.compile(r"^\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$")


def _counter_value(name, value):
    """A counter is a 64-bit count (NVML's unsigned long long); a BER (NVLink 5) a finite rate from 0 to 1."""
    if value in _NA:
        return None
    if "BER" in name:
        if not _RATE.match(value) or not 0 <= float(value) <= 1:
            fail("NVLink %r is %r, not a bit error rate", name, value)
        return float(value)
    if not _COUNT.match(value) or int(value) >= 2 ** 64:
        fail("NVLink counter %r is %r, not a count", name, value)
    return int(value)


@parser("linux_nvidia_smi_nvlink_e",
        "nvidia-smi nvlink -e: per GPU, each NVLink's error counters by name (Replay, Recovery, CRC Errors; "
        "NVLink 5 names kept as printed); empty = no NVLink",
        kind="text", empty_ok=True)
def _nvlink_errors(text):
    gpus, current = {}, None
    for line in text.splitlines():
        if not line.strip():
            continue
        gpu, counter = _NVLINK_GPU.match(line), _NVLINK_COUNTER.match(line)
        if gpu:
            current = gpus.setdefault(int(gpu.group(1)), {"name": gpu.group(2), "links": {}})
        elif counter and current is not None:
            link, name = int(counter.group(1)), counter.group(2)
            current["links"].setdefault(link, {})[name] = _counter_value(name, counter.group(3))
        else:
            fail("unexpected line %r (not nvidia-smi nvlink -e output?)", line.strip()[:120])
    return {"gpus": gpus}


# The kernel's pci_speed_string(): "2.5 GT/s PCIe" ... "64.0 GT/s PCIe" (kernels before 5.x: "8 GT/s",
# without "PCIe"); "Unknown" where the link is down or the speed is not one it knows.
_SPEED = re.compile(r"^(\d+(?:\.\d+)?) GT/s(?: PCIe)?$")
PCIE_GEN = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}


def _speed(value, what):
    match = _SPEED.match(value)
    if not match:
        if value.startswith("Unknown"):
            return None
        fail("%s is %r, not a PCIe speed (\"32.0 GT/s PCIe\")", what, value)
    gts = float(match.group(1))
    if gts not in PCIE_GEN:
        fail("%s %r is no PCIe generation's rate", what, value)
    return {"gts": gts, "gen": PCIE_GEN[gts]}


# Link widths PCIe defines; 0 where the link is down (current_link_width only)
PCIE_WIDTHS = (1, 2, 4, 8, 12, 16, 32)


def _width(value, what):
    if not value.isdigit() or int(value) not in PCIE_WIDTHS + ((0,) if what.startswith("current") else ()):
        fail("%s is %r, not a PCIe lane count", what, value)
    return int(value)


@parser("linux_sysfs_pcie_link",
        "cat of a PCIe device's sysfs current_link_speed, max_link_speed, current_link_width, max_link_width "
        "(in that order): its link generation and width, current and max",
        kind="text")
def _sysfs_pcie_link(text):
    values = [line.strip() for line in text.splitlines() if line.strip()]
    if len(values) != 4:
        fail("expected 4 lines (current/max link speed, current/max link width), got %d: %r", len(values), values[:4])
    current, top = _speed(values[0], "current_link_speed"), _speed(values[1], "max_link_speed")
    return {"gen_current": current and current["gen"], "gen_max": top and top["gen"],
            "speed_current": values[0], "speed_max": values[1],
            "width_current": _width(values[2], "current_link_width"), "width_max": _width(values[3], "max_link_width")}


# dcgmi diag -j: DCGM 3.x keys its report "DCGM GPU Diagnostic" with "gpu_ids"/"gpu_id" per result; DCGM 4.x
# "DCGM Diagnostic" with "entity_group"/"entity_id" per result and a "test_summary" per test.
_DIAG_ROOTS = ("DCGM GPU Diagnostic", "DCGM Diagnostic")


def _diag_entity(result):
    for key in ("gpu_ids", "gpu_id", "entity_id"):
        if key in result:
            return str(result[key])
    return None


def _diag_result(result):
    if not isinstance(result, dict) or not isinstance(result.get("status"), str):
        fail("a result without a status: %r", result)
    warnings = [w.get("warning") if isinstance(w, dict) else w for w in result.get("warnings") or []]
    return {"gpu": _diag_entity(result), "status": result["status"].capitalize(),
            "warnings": [str(w) for w in warnings if w]}


@parser("linux_dcgmi_diag_json",
        "dcgmi diag -r N -j (DCGM 3.x and 4.x): every test's per-GPU status (Pass, Fail, Warn, Skip) and warnings",
        kind="json")
def _dcgmi_diag(document):
    root = next((document[key] for key in _DIAG_ROOTS if key in document), None)
    if not isinstance(root, dict):
        fail("no %s in the document (not dcgmi diag -j output?)", " / ".join(_DIAG_ROOTS))
    if root.get("runtime_error"):
        fail("dcgmi diag did not run: %s", root["runtime_error"])
    tests = []
    for category in root.get("test_categories") or []:
        for test in category["tests"]:
            if test is None:  # DCGM 3.x prints null between tests
                continue
            tests.append({"category": category["category"], "name": test["name"],
                          "results": [_diag_result(result) for result in test["results"]]})
    if not tests:
        fail("no test results (test_categories empty)")
    return {"version": root.get("version") or (document.get("metadata") or {}).get("version"), "tests": tests}
