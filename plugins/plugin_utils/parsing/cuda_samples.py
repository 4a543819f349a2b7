# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CUDA samples' p2pBandwidthLatencyTest (and payloads/p2p_bench.py, which prints its layout): the node's GPUs, which
pairs can reach each other's memory, and the unidirectional P2P-enabled bandwidth of every ordered pair.

The sample's printf formats (Samples/5_Domain_Specific/p2pBandwidthLatencyTest): "Device: %d, %s, pciBusID: %x, ...",
"Device=%d %s Access Peer Device=%d", a matrix title, "   D\\D" then "%6d " per column, rows "%6d " then "%6.02f " per
cell; it ends with a "NOTE:" line (the built-in's own), so an answer without it was cut short.
"""

from __future__ import annotations

import re

from ._common import fail
from ._registry import parser

MATRIX_TITLE = "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)"
_DEVICE = re.compile(r"^Device: (?P<index>\d+), (?P<name>.+), pciBusID: (?P<bus>[0-9a-f]+), pciDeviceID: (?P<device>[0-9a-f]+), "
                     r"pciDomainID:(?P<domain>[0-9a-f]+)$")
_CELL = re.compile(r"^\d+\.\d\d$")
_ACCESS = re.compile(r"^Device=(?P<src>\d+) (?P<can>CAN|CANNOT) Access Peer Device=(?P<dst>\d+)$")


def _matrix(lines, start, gpus):
    """The n x n matrix after its title at lines[start]: {(i, j): GB/s}."""
    header = lines[start + 1].split() if start + 1 < len(lines) else []
    if header != ["D\\D"] + [str(j) for j in range(gpus)]:
        fail("the matrix's header names columns %r, not GPUs 0..%d", header[1:], gpus - 1)
    cells = {}
    for i in range(gpus):
        row = lines[start + 2 + i].split() if start + 2 + i < len(lines) else []
        if len(row) != gpus + 1 or row[0] != str(i):
            fail("row %d of the matrix is %r: %d cells expected", i, " ".join(row)[:80], gpus)
        for j, text in enumerate(row[1:]):
            if not _CELL.match(text):  # %6.02f: two decimals always, so a cell cut short shows
                fail("cell %d,%d of the matrix is %r, not a figure with two decimals", i, j, text)
            cells[(i, j)] = float(text)
    return cells


@parser("p2p_bandwidth",
        "p2pBandwidthLatencyTest (CUDA samples) or the built-in payloads/p2p_bench.py: GPUs, peer access and the "
        "unidirectional P2P-enabled bandwidth of every ordered GPU pair",
        kind="text")
def _p2p_bandwidth(text):
    lines = text.splitlines()
    gpus = [match for match in (_DEVICE.match(line) for line in lines) if match]
    if not gpus:
        fail("no 'Device: N, <name>, pciBusID: ...' line: not the P2P bandwidth test's output")
    if [int(match.group("index")) for match in gpus] != list(range(len(gpus))):
        fail("the device lines are not GPUs 0..%d in order: a line lost?", len(gpus) - 1)
    count = len(gpus)
    access = {}
    for match in (_ACCESS.match(line) for line in lines):
        if match:
            access[(int(match.group("src")), int(match.group("dst")))] = match.group("can") == "CAN"
    wanted = {(i, j) for i in range(count) for j in range(count) if i != j}
    if set(access) != wanted:
        fail("peer access is said for %d of the %d ordered pairs of %d GPUs: a line lost?", len(set(access) & wanted), len(wanted), count)
    titles = [index for index, line in enumerate(lines) if line.strip() == MATRIX_TITLE]
    if len(titles) != 1:
        fail("%d '%s' titles: one expected", len(titles), MATRIX_TITLE)
    cells = _matrix(lines, titles[0], count)
    if not any(line.startswith("NOTE:") for line in lines[titles[0] + 2 + count:]):
        fail("no closing 'NOTE:' line after the matrix: the output was cut short")
    return {"gpus": [{"index": int(m.group("index")), "name": m.group("name"), "pci_bus": m.group("bus"),
                      "pci_device": m.group("device"), "pci_domain": m.group("domain")} for m in gpus],
            "pairs": [{"src": i, "dst": j, "gbps": cells[(i, j)], "peer_access": access[(i, j)]} for i, j in sorted(wanted)],
            "local_gbps": [cells[(i, i)] for i in range(count)]}
