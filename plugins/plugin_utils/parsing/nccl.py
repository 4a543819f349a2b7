# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 5: nccl-tests' <collective>_perf tables (and the built-in benchmark, which prints the same) and NCCL_DEBUG lines."""

from __future__ import annotations

import bisect
import math
import re

from ._common import distinct, fail
from ._registry import parser, table_rows


# Open MPI's --tag-output prefix, "[1,0]<stdout>:".
_MPI_TAG = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>: ?", re.M)
# NCCL_DEBUG messages (src/debug.cc) go to the same stdout as the table, so one can land inside a
# row. A WARN brings its own leading newline (and from NCCL 2.26 a "[date time] " stamp); an INFO
# cut into a row starts right after the row's last digit, hence the host starting with a letter.
_NCCL_WARN_LINE = re.compile(r"\n(?:\[[^\]\n]*\] )?[^\s:]+:\d+:\d+ \[-?\d+\] \S+:\d+ (?:\(\S+\) )?NCCL WARN [^\n]*\n?")
# The host is bounded (a DNS name is at most 253 characters) and cannot start inside a word, so a long
# line of word characters costs linear time, not quadratic (30 kB of letters took 11 s unbounded).
_HOST = r"(?<![A-Za-z_.-])[A-Za-z][\w.-]{0,252}"
_NCCL_LINE = re.compile(
    r"(?:^[^\S\n]*[^\s:]+|" + _HOST + r"):\d+:\d+ \[-?\d+\] (?:\S+:\d+ (?:\(\S+\) )?)?NCCL (?:INFO|WARN|TRACE)[^\n]*(?:\n|$)",
    re.M)


# Slurm's srun --label: "%*d: " (the task id, right-aligned to the widest id) before every line.
_SRUN_LABEL = re.compile(r"^ *\d+:(?: |$)", re.M)


def _drop_launcher_labels(text):
    """Open MPI's tags wherever they are; srun's labels only when every line has one (a labelled run)."""
    text = _MPI_TAG.sub("", text)
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and all(_SRUN_LABEL.match(line) for line in lines):
        text = _SRUN_LABEL.sub("", text)
    return text


def _drop_nccl_debug(text):
    text = _drop_launcher_labels(text)
    return _NCCL_LINE.sub("", _NCCL_WARN_LINE.sub("", text))


# "#  Rank  0 Group  0 Pid   4242 on   node-005 device  0 [0x18] NVIDIA H100" and a result row's first columns
_RANK_LINE = re.compile(r"#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)")
_TABLE_ROW = re.compile(r"^\s*(\d+)\s+\d+\s+\w+\s+\w+\s+-?\d+\s", re.M)


def _nccl_tests_partial(text):
    """A run that hung or died: the ranks that reported in, and the sizes it completed."""
    text = _drop_nccl_debug(text)
    return {"ranks": [{"rank": int(match.group(1)), "host": match.group(2), "device": int(match.group(3))}
                      for match in _RANK_LINE.finditer(text)],
            "sizes_done": [int(size) for size in _TABLE_ROW.findall(text)]}


# The run's own header echoes -b/-e/-f (or -i): "# nThread 1 nGpus 8 minBytes 8 maxBytes 4294967296 step: 2(factor) ..."
_HEADER = re.compile(r"^#\s+nThread\s+\d+\s+nGpus\s+\d+\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)\s+step:\s+(\d+)\((factor|bytes)\)", re.M)
_MAX_SIZES = 100000  # a table longer than this was not asked for by a validation run: its sizes are not listed one by one


def _sizes_asked(text):
    """What the command asked for, from the run's header: -b, -e, -f or -i (by factor or bytes), how many sizes
    that makes and the largest (the one busbw is judged at); None for a table without that header (damage)."""
    match = _HEADER.search(_drop_launcher_labels(text))
    if not match:
        return None
    low, high, step, by = int(match.group(1)), int(match.group(2)), int(match.group(3)), match.group(4)
    sizes, size = [], low
    while size <= high and len(sizes) < _MAX_SIZES and (size > 0 or not sizes):
        sizes.append(size)
        grown = size * step if by == "factor" else size + step
        if grown <= size:  # a factor of 1 or a step of 0: nccl-tests runs the one size
            break
        size = grown
    if not sizes:  # minBytes above maxBytes: nccl-tests refuses that, so the header is damaged
        fail("the header asks for no size (minBytes %d above maxBytes %d)", low, high)
    return {"min_bytes": low, "max_bytes": high, "step": step, "by": by, "sizes": len(sizes), "largest": sizes[-1], "_sizes": sizes}


# Lines nccl-tests prints once, known by their first words: each must read whole, or the run's header
# (the sizes asked) or its verdict on the results (out of bounds) would quietly go unread.
_KNOWN_LINES = (
    (re.compile(r"^#\s+nThread\b"), _HEADER, "the run's header"),
    (re.compile(r"^#\s+Out of bounds values\b"), re.compile(r"^#\s+Out of bounds values\s*:\s*\d+\s+(?:OK|FAILED)\s*$"),
     "the out-of-bounds summary"),
)


def _known_lines_whole(text):
    for line in _drop_launcher_labels(text).splitlines():
        for starts, whole, what in _KNOWN_LINES:
            if starts.match(line) and not whole.match(line):
                fail("%s is not as nccl-tests prints it (damaged?): %r", what, line.strip()[:160])


# bytes of one element of nccl-tests' data types (-d; the built-in benchmark prints float)
# (src/common.cu test_typenames: f8e4m3 and f8e5m2 where NCCL has FP8; char and int in old releases)
_ELEMENT_BYTES = {"int8": 1, "uint8": 1, "char": 1, "half": 2, "bfloat16": 2, "f8e4m3": 1, "f8e5m2": 1, "float": 4,
                  "int32": 4, "uint32": 4, "int": 4, "double": 8, "int64": 8, "uint64": 8}


def _rounding(results, ranks):
    """How far below a size asked its row's size may be. nccl-tests rounds a size down to whole elements (-b 1 with
    float prints 0): 8 bytes. all_gather, reduce_scatter and alltoall move a count per rank rounded down to 16 bytes
    (src/<op>.cu GetCollByteCount), so their row's size (count x ranks x element) may be 16 bytes x ranks below: their
    count is per rank, all_reduce's and sendrecv's is the size's. Every row of a table follows one of the two relations
    (a row that follows neither, or a table that mixes them, is damage, which would otherwise widen the slack); with one
    rank, where the two cannot be told apart, 16 bytes."""
    world = len(ranks)
    if world <= 1:
        return 16
    relations = set()
    for row in results:
        element = _ELEMENT_BYTES.get(row["type"])
        if element is None:
            continue  # a type this parser does not size: its rows keep the 8-byte slack
        if row["size"] == row["count"] * element * world and row["count"]:
            relations.add("per_rank")
        elif row["size"] == row["count"] * element:
            relations.add("whole" if row["count"] else "empty")
        else:
            fail("row of size %d has count %d: neither the size's elements nor a count per rank of %d ranks (the row "
                 "garbled?)", row["size"], row["count"], world)
    if {"per_rank", "whole"} <= relations:
        fail("the table mixes counts per rank and counts of the whole size (rows garbled?)")
    return 16 * world if "per_rank" in relations else 8


def _every_size_asked(asked, results, slack=8):
    """Every size the header asked for has its row: a table with rows deleted or garbled away is not a
    complete answer. A row's size may be below the size asked by less than ``slack`` (_rounding)."""
    sizes = sorted(asked.pop("_sizes"))
    printed = sorted({row["size"] for row in results})
    missing = []
    for size in sizes:
        below = bisect.bisect_right(printed, size)  # the largest printed size not above this one
        if not below or printed[below - 1] <= size - slack:
            missing.append(size)
    if missing:
        fail("%d of the %d sizes the run asked for (minBytes %d maxBytes %d step %d(%s)) have no row: %s (rows cut or garbled?)",
             len(missing), asked["sizes"], asked["min_bytes"], asked["max_bytes"], asked["step"], asked["by"],
             ", ".join(str(size) for size in missing[:4]) + (", ..." if len(missing) > 4 else ""))
    # the other way round: a row the header did not ask for (beyond maxBytes, or between two sizes) means the header
    # or the row is damaged, and the largest size asked, the one busbw is judged at, cannot be trusted
    stray = [size for size in printed
             if bisect.bisect_left(sizes, size) == len(sizes) or sizes[bisect.bisect_left(sizes, size)] - size >= slack]
    if stray:
        fail("rows of sizes the run did not ask for (minBytes %d maxBytes %d step %d(%s)): %s (the header or the rows damaged?)",
             asked["min_bytes"], asked["max_bytes"], asked["step"], asked["by"], ", ".join(str(size) for size in stray[:4]))
    # and one row per size asked, of each data type and reduction run: a size that rounds down to 0 (an all-gather's small
    # sizes) still prints its row, so a row lost there shows in the count, not in the sizes
    groups = {}
    for row in results:
        groups[(row["type"], row["redop"])] = groups.get((row["type"], row["redop"]), 0) + 1
    for (kind, redop), count in sorted(groups.items()):
        if count != len(sizes):
            fail("%d rows of %s %s for the %d sizes the run asked for (minBytes %d maxBytes %d step %d(%s)): rows cut, "
                 "garbled or repeated", count, kind, redop, len(sizes), asked["min_bytes"], asked["max_bytes"], asked["step"],
                 asked["by"])


def _sizes_in_order(results, slack=8):
    """nccl-tests runs the sizes of one data type and reduction from the smallest up: a row out of that
    order is a moved or garbled line. Sizes under ``slack`` bytes may repeat (rounded down to 0 elements)."""
    last = {}
    for row in results:
        key = (row["type"], row["redop"])
        if row["size"] < last.get(key, 0) or row["size"] == last.get(key) and row["size"] >= slack:
            fail("size %d after size %d (%s %s): rows out of the order nccl-tests prints them", row["size"], last[key], *key)
        last[key] = row["size"]


def _no_size_twice(results, slack=8):
    """One row per size: a second row of the same size is a repeated line, not a measurement. Only sizes below the
    rounding (_rounding) may repeat: nccl-tests rounds them down to 0."""
    seen = set()
    for row in results:
        if row["size"] >= slack and row["size"] in seen:
            fail("size %d has two rows (a repeated line?)", row["size"])
        seen.add(row["size"])


_THREADS_GPUS = re.compile(r"^#\s+nThread\s+(\d+)\s+nGpus\s+(\d+)\b", re.M)


def _every_rank_listed(ranks, text):
    """The '#  Rank' lines are whole: numbered 0..N-1 without a gap, and each process lists nThread x nGpus of them (the
    header's own count). A lost line would otherwise read as a rank that never ran ("7 ranks ran"): a device verdict
    on a damaged read."""
    if not ranks:
        return
    numbers = sorted({rank["rank"] for rank in ranks})
    if numbers[-1] >= len(numbers):  # not 0..N-1: the first numbers missing, found without listing a damaged huge range
        gaps, expected = [], 0
        for number in numbers:
            while expected < number and len(gaps) < 4:
                gaps.append(expected)
                expected += 1
            expected = number + 1
        fail("no '# Rank' line for rank %s of 0..%d (a lost line?)", ", ".join(str(rank) for rank in gaps), numbers[-1])
    header = _THREADS_GPUS.search(_drop_launcher_labels(text))
    if not header:
        return  # no header: _nccl_tests says so
    each = int(header.group(1)) * int(header.group(2))
    listed = {}
    for rank in ranks:
        listed[(rank["host"], rank["pid"])] = listed.get((rank["host"], rank["pid"]), 0) + 1
    short = sorted((host, pid, count) for (host, pid), count in listed.items() if count != each)
    if short:
        host, pid, count = short[0]
        fail("process %d on %s lists %d ranks where the header's nThread x nGpus make %d (a lost '# Rank' line?)",
             pid, host, count, each)


def _wrong(text):
    """#wrong as nccl-tests prints it ("%6g": 1e+06 wrong elements); N/A when results were not checked."""
    if text == "N/A":
        return None
    value = float(text)
    if not math.isfinite(value):  # 1e999: no count of elements, a damaged row
        fail("#wrong %r is not a count", text)
    return int(value)


def _measured(text, column):
    value = float(text)
    if not math.isfinite(value):  # inf GB/s would pass every straggler and figure test
        fail("%s %r is not a finite number", column, text)
    return value


@parser("nccl_tests",
        "nccl-tests <collective>_perf (or the built-in torch benchmark): ranks, result table, average busbw, NCCL_DEBUG lines",
        prepare=_drop_nccl_debug,
        with_text=True,
        partial=_nccl_tests_partial)
def _nccl_tests(rows, text):
    failures = [row["failure"] for row in rows if row["failure"]]
    why = " (%s)" % failures[0] if failures else ""
    bad = [row["bad_row"] for row in rows if row["bad_row"]]
    if bad:
        fail("unparseable row %r", bad[0])
    ranks = []
    for row in rows:
        if row["rank"]:
            rank = int(row["rank"])
            if any(seen["rank"] == rank for seen in ranks):
                # nccl-tests built without MPI under mpirun: every process runs (and prints) its own test
                fail("rank %d is listed twice: several independent runs in one output", rank)
            ranks.append({"rank": rank, "host": row["host"], "pid": int(row["pid"]), "device": int(row["device"]),
                          "bus_id": row["bus_id"], "gpu": row["gpu"]})
    _every_rank_listed(ranks, text)
    results = []
    for row in rows:
        if row["size"]:
            result = {"size": int(row["size"]), "count": int(row["count"]), "type": row["type"], "redop": row["redop"]}
            for side in ("oop", "ip"):
                result.update({side + "_time_us": _measured(row[side + "_time"], "time"),
                               side + "_algbw": _measured(row[side + "_algbw"], "algbw"),
                               side + "_busbw": _measured(row[side + "_busbw"], "busbw"), side + "_wrong": _wrong(row[side + "_wrong"])})
            results.append(result)
    if not results:
        fail("no result rows%s", why)
    slack = _rounding(results, ranks)
    _no_size_twice(results, slack)
    _sizes_in_order(results, slack)
    average = [row["avg_busbw"] for row in rows if row["avg_busbw"]]
    if not average:
        fail("no '# Avg bus bandwidth' line after %d rows: the run died or hung%s", len(results), why)
    _known_lines_whole(text)
    asked = _sizes_asked(text)
    if asked is None:  # nccl-tests (and the built-in benchmark) print it first: without it no size is proven asked
        fail("no run header (# nThread ... minBytes ... maxBytes ... step: ...) before %d rows: the sizes asked cannot be "
             "held to the rows printed (the header damaged or cut?)", len(results))
    _every_size_asked(asked, results, slack)
    ngpus = [row["ngpus"] for row in rows if row["ngpus"]]
    bounds = [row["out_of_bounds"] for row in rows if row["out_of_bounds"]]
    if not bounds:  # common.cu prints it right before '# Avg bus bandwidth', whether or not -c checked the data
        fail("no '# Out of bounds values' line before '# Avg bus bandwidth': the data check's verdict lost (a line lost?)")
    return {"ranks": ranks, "n_gpus": int(ngpus[0]) if ngpus else None, "rows": results, "asked": asked,
            "avg_busbw": float(average[0]), "out_of_bounds": int(bounds[0]),
            "nccl": _nccl_debug(table_rows("nccl_debug", text))}  # the NCCL_DEBUG lines interleaved with the table


# "Channel 00/0 : 1[1] -> 8[0] [receive] via NET/IB/0(8)/GDRDMA" (src/transport.cc)
_VIA = re.compile(r"Channel \d+(?:/\d+)? : .* via (\S.*?)\s*$")
# NET/<name>/<dev>[(<proxy dev>)][/GDRDMA][/Shared]; a plugin's name may hold spaces
_NET_VIA = re.compile(r"NET/(.+?)/\d+(?:\(\d+\))?(?:/|$)")


def _transport(via):
    if via.startswith("NET/"):
        match = _NET_VIA.match(via)
        name = match.group(1) if match else via.split("/")[1]
        return "NET/%s%s" % (name, "/GDRDMA" if "/GDRDMA" in via else "")
    return "/".join(via.split("/")[:2])  # P2P/CUMEM/read -> P2P/CUMEM


def _network(infos):
    for message in infos:
        match = re.match(r"Using network (.+)", message)
        if match:
            name = match.group(1)  # IB, IBext_v8 (the RDMA/SHARP plugin), Socket, or another plugin's name
            return "IB" if name.startswith("IB") else name
    if any(re.match(r"NET/IB : Using \[\d", message) for message in infos):
        return "IB"
    if any(message.startswith("NET/Socket : Using") for message in infos):
        return "Socket"
    return None


def _gdr(infos, channels):
    """GPUDirect RDMA: the network channels say whether it is used; else the NICs' capability lines."""
    net = [(message, via) for message, via in channels if via.startswith("NET/")]
    if net:
        plain = [message for message, via in net if "/GDRDMA" not in via]
        return (False, plain[0]) if plain else (True, net[0][0])
    # "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'" (graph/topo.cc), "GPU Direct RDMA Disabled for
    # GPU 0 / HCA 0 (distance 8 > 5)" (graph/paths.cc), "(nvidia-peermem) enabled" (RDMA/SHARP plugin)
    lines = [message for message in infos if "GPU Direct RDMA" in message]
    off = [message for message in lines if "Disabled" in message]
    on = [message for message in lines if "Enabled" in message or "enabled" in message]
    if off:
        return False, off[0]
    if on:
        return True, on[0]
    return None, None


# CollNet (IB SHARP through the NCCL RDMA/SHARP plugin). Asked for: "NCCL_COLLNET_ENABLE set by environment to 1."
# (src/param.cc; 2.24+ without the stop). Its channels ("CollNet 00/0 : 0 [receive] via COLLNET/SHARP/1/GDRDMA") are
# printed before NCCL checks the setup across ranks, so they also appear in runs that then fell back: only the lines
# printed after that check prove it connected - "rank 3 Connected CollNet comm 0x... nRanks 16" and "Connected collnet
# + chain" (src/init.cc, 2.10-2.21), "Connected Collnet Chains [0] ..." (src/transport/coll_net.cc, 2.22+, printed
# when an operation first picks CollNet). Why not: NCCL's fallback and the plugin's own errors (sharp_plugin.c).
_COLLNET_CONNECTED = re.compile(r"^(?:rank \d+ Connected CollNet\b|Connected collnet \+ chain|Connected Collnet Chains\b)")
_COLLNET_REFUSED = ("Cannot initialize CollNet", "SHARP coll init error", "SHARP group create", "fallback to non-sharp",
                    "disabling CollNet", "CollNet is not supported", "SHARP: Set to disable")
_COLLNET_PLUGIN = re.compile(r"^NET/Plugin: Loaded coll(?:net)? plugin (.+?) \(v\d+\)$")
_COLLNET_ASKED = re.compile(r"^NCCL_COLLNET_ENABLE set by environment to (\S+?)\.?$")


def _collnet(rows):
    """What the log says of CollNet: the plugin named when it loaded (NCCL before 2.24 names it only when an older
    interface loaded), whether NCCL_COLLNET_ENABLE asked for it, the hosts whose ranks connected it, and why not."""
    plugin, asked, connected, refused = None, None, [], []
    for row in rows:
        message = row["info"] or row["warn"]
        if not message:
            continue
        if _COLLNET_PLUGIN.match(message):
            plugin = _COLLNET_PLUGIN.match(message).group(1)
        elif _COLLNET_ASKED.match(message):
            asked = _COLLNET_ASKED.match(message).group(1) not in ("0", "")
        elif row["info"] and _COLLNET_CONNECTED.match(message):
            connected.append(row["host"])
        elif any(text in message for text in _COLLNET_REFUSED):
            refused.append((row["host"], message))
    return {"plugin": plugin, "asked": asked, "connected_hosts": distinct(connected),
            "refused": [{"host": host, "message": message} for host, message in refused]}


@parser("nccl_debug",
        "NCCL_DEBUG=INFO/WARN lines of any program: version, network, NICs, GPUDirect RDMA, transports, CollNet "
        "(SHARP), warnings",
        empty_ok=True)
def _nccl_debug(rows):
    infos = [row["info"] for row in rows if row["info"]]
    channels = []
    for message in infos:
        match = _VIA.match(message)
        if match:
            channels.append((message, match.group(1)))
    nics, nics_by_host = [], {}
    for row in rows:
        message = row["info"]
        if message.startswith("NET/IB : Using"):
            if "; OOB " not in message:  # net_ib.cc ends the NIC list with "; OOB <if>:<ip>"
                fail("NIC list cut short: %r", message)
            found = re.findall(r"\[\d+\]([^\s:\[\]]+):\d+/\w", message)
            nics.extend(found)
            nics_by_host.setdefault(row["host"], []).extend(found)
    gdr, evidence = _gdr(infos, channels)
    gdr_by_host = {}
    for host in distinct(row["host"] for row in rows if row["info"]):
        mine = [row["info"] for row in rows if row["host"] == host and row["info"]]
        host_gdr = _gdr(mine, [(m, _VIA.match(m).group(1)) for m in mine if _VIA.match(m)])[0]
        if host_gdr is not None:
            gdr_by_host[host] = host_gdr
    versions = [row["version"] for row in rows if row["version"]]
    return {"version": versions[0] if versions else None, "network": _network(infos), "nics": distinct(nics),
            "nics_by_host": {host: distinct(found) for host, found in nics_by_host.items()},
            "gdr": gdr, "gdr_evidence": evidence, "gdr_by_host": gdr_by_host,
            "transports": distinct(_transport(channel[1]) for channel in channels),
            "collnet": _collnet(rows),
            "warnings": distinct(row["warn"] for row in rows if row["warn"])}
