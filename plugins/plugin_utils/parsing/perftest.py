# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""perftest (ib_write_bw and its siblings): the parameter block and the bandwidth table.

Real layouts (fixtures in tests/unit/parsers/perftest_ib_write_bw/ say where each comes from):
the parameter block as `Name : value` pairs, two per line or tab-separated in older versions;
`local address:`/`remote address:` lines; the table header
`#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]` (`[MB/sec]` without
--report_gbits, `[MiB/sec]` in newer versions); warnings between the header and the rows
("Conflicting CPU frequency values detected"); several rows with -a. The last row is the largest
message size: the one judged.

A GPUDirect run (--use_cuda=<gpu>, perftest built with CUDA) prints its CUDA preamble before the
header (src/cuda_memory.c: "initializing CUDA", "Listing all CUDA devices in system:", "CUDA device N:
PCIe address is BB:DD", "Picking device No. N", "[pid = P, dev = N] device name = [...]", "creating
CUDA Ctx", then the buffer's allocation; with --use_cuda_bus_id "Picking GPU number N"); `cuda_device`
is the GPU it picked, None for a host-memory run, so a judge can tell that the buffer really was the
GPU's. A perftest built without CUDA refuses the option with " Unsupported memory type".
"""

from __future__ import annotations

import math
import re

from ._common import number
from ._registry import parser

_HEADER = re.compile(r"^\s*#bytes\s+#iterations\s+BW peak\[(?P<unit>[A-Za-z]+/sec)\]\s+BW average\[(?P=unit)\]")
_ROW = re.compile(r"^\s*(?P<bytes>\d+)\s+(?P<iterations>\d+)\s+(?P<peak>\S+)\s+(?P<average>\S+)(?:\s+(?P<rate>\S+))?\s*$")
_PARAM = re.compile(r"([A-Za-z][A-Za-z0-9 .*_/-]*?)\s*:\s*(\S+(?:\[\S*\])?)")
# Gb/sec as printed with --report_gbits; MB/sec is perftest's 2^20 bytes (relabelled MiB/sec later)
_TO_GBPS = {"Gb/sec": 1.0, "MB/sec": 1048576 * 8 / 1e9, "MiB/sec": 1048576 * 8 / 1e9}
_ERROR_WORDS = re.compile(r"Couldn't|Unable to|Failed|failed|not found|No such|Error|error|Unsupported memory type", re.I)
# perftest's CUDA preamble (src/cuda_memory.c; perftest_resources.c before 2023): the GPU the run uses
_CUDA_DEVICE = re.compile(r"^\s*Picking (?:device No\.|GPU number) (\d+)\s*$")


def _number(text, what):
    value = number(text)
    if value is None or not math.isfinite(value) or value < 0:
        raise ValueError("%s %r is not a bandwidth" % (what, text))
    return value


def _parameters(lines):
    found = {}
    for line in lines:
        if line.strip().startswith(("local address", "remote address", "GID:")):
            continue
        for name, value in _PARAM.findall(line):
            found.setdefault(name.strip(), value)
    return found


def _ib_write_bw_partial(text):
    """What a run that printed no table still tells: that this perftest refused --use_cuda (built without CUDA),
    {"memory_type_unsupported": True}, so a judge can say so from facts; else None."""
    if any(line.strip() == "Unsupported memory type" for line in text.splitlines()):
        return {"memory_type_unsupported": True}
    return None


@parser("perftest_ib_write_bw", "ib_write_bw (perftest): the bandwidth table and the test's parameters", kind="text",
        partial=_ib_write_bw_partial)
def ib_write_bw(text):
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if header is None:
        said = [line.strip() for line in lines if _ERROR_WORDS.search(line)]
        raise ValueError("no bandwidth table (#bytes #iterations BW peak ...)%s" % (
            ": perftest said %r" % said[0] if said else ""))
    unit = _HEADER.match(lines[header]).group("unit")
    if unit not in _TO_GBPS:
        raise ValueError("unknown bandwidth unit %r" % unit)
    rows = []
    for line in lines[header + 1:]:
        if set(line.strip()) <= {"-"} and rows:
            break  # the table's closing dashes: what follows is not the table
        match = _ROW.match(line)
        if not match:
            continue  # a warning printed between the header and the row
        average = _number(match.group("average"), "BW average")
        rows.append({"bytes": int(match.group("bytes")), "iterations": int(match.group("iterations")),
                     "bw_peak": _number(match.group("peak"), "BW peak"), "bw_average": average,
                     "gbps": round(average * _TO_GBPS[unit], 3)})
    if not rows:
        raise ValueError("a bandwidth table without a result row (the run was cut short?)")
    params = _parameters(line for line in lines[:header] if not line.startswith("CUDA device "))
    picked = [int(m.group(1)) for m in (_CUDA_DEVICE.match(line) for line in lines[:header]) if m]
    return {"unit": unit, "rows": rows, "gbps": rows[-1]["gbps"], "bytes": rows[-1]["bytes"],
            "device": params.get("Device"), "link_type": params.get("Link type"),
            "gid_index": params.get("GID index"), "connection": params.get("Connection type"),
            "remote_address": any(line.strip().startswith("remote address") for line in lines[:header]),
            "cuda_device": picked[-1] if picked else None}
