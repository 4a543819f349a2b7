# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host RoCE configuration (catalog/roce_host.yml): mlnx_qos -i <if>, ethtool -S <if> and the single-value
sysfs files of a rail (DCQCN switches, MTU, GID type, the global traffic class, the RDMA congestion counters).
docs/roce.md says where each format comes from."""

from __future__ import annotations

import re

from ._common import fail
from ._registry import parser

PRIORITIES = tuple(range(8))

# mlnx_qos (mlnx-tools, MLNX_OFED 4.x to DOCA-host): every line it prints for -i <if> alone, by its start.
_TC = re.compile(r"^tc: (\d) ratelimit: (\S+?), tsa: (ets|strict|vendor)(?:, bw: (\d+)%)?$")
_TC_PRIORITY = re.compile(r"^priority:\s+(\d)$")
_DSCP2PRIO = re.compile(r"^prio:(\d) dscp:((?:\d\d,)+)$")
# the total after the eight sizes: max_buffer_size= in the captures, total_size= in mlnx-tools' python/mlnx_qos source
_BUFFER_SIZE = re.compile(r"^Receive buffer size \(bytes\): ((?:\d+,){8})(?:(?:max_buffer_size|total_size)=(\d+))?$")


def _row(line, name):
    """'enabled     0   0   0   1   0   0   0   0' -> [0, 0, 0, 1, 0, 0, 0, 0] (8 values, 0 or 1 for enabled)."""
    cells = line.split()
    if len(cells) != 9 or cells[0] != name or not all(cell.isdigit() for cell in cells[1:]):
        fail("PFC %s row cut or damaged: %r", name, line)
    return [int(cell) for cell in cells[1:]]


def _pfc_row(facts, line):
    if line.split()[0] == "priority":
        if _row(line, "priority") != list(PRIORITIES):
            fail("PFC priority header is not 0..7: %r", line)
        facts["_pfc_header"] = True
    elif line.split()[0] in ("enabled", "buffer"):
        name = line.split()[0]
        values = _row(line, name)
        if name == "enabled" and set(values) - {0, 1}:
            fail("PFC enabled row holds values other than 0 and 1: %r", line)
        facts["pfc_enabled" if name == "enabled" else "pfc_buffer"] = values
    else:
        return False
    return True


def _qos_line(facts, line, tc):
    """Read one stripped line into facts; returns the tc block the next priority lines belong to."""
    match = _TC.match(line)
    if match:
        number = int(match.group(1))
        if number in facts["tcs"]:
            fail("tc %d printed twice", number)
        if (match.group(3) == "ets") != (match.group(4) is not None):
            fail("tsa and bw do not agree: %r", line)
        facts["tcs"][number] = {"tsa": match.group(3), "bw": int(match.group(4)) if match.group(4) else None,
                                "ratelimit": match.group(2), "priorities": []}
        return number
    match = _TC_PRIORITY.match(line)
    if match:
        if tc is None:
            fail("a priority line before any tc line: %r", line)
        listed = facts["tcs"][tc]["priorities"]
        if listed and int(match.group(1)) <= listed[-1]:  # mlnx_qos lists a TC's priorities from 0 up: a tc line lost above
            fail("tc %d lists priority %s after %d (a tc line lost?)", tc, match.group(1), listed[-1])
        listed.append(int(match.group(1)))
        return tc
    if _pfc_row(facts, line):
        return tc
    match = _DSCP2PRIO.match(line)
    if match:
        if facts["dscp2prio"] is None:
            fail("a dscp2prio line outside the dscp2prio block: %r", line)
        for dscp in match.group(2).rstrip(",").split(","):
            if int(dscp) in facts["dscp2prio"] or int(dscp) > 63:
                fail("DSCP %s mapped twice or out of range", dscp)
            facts["dscp2prio"][int(dscp)] = int(match.group(1))
        return tc
    match = _BUFFER_SIZE.match(line)
    if match:
        facts["receive_buffer_bytes"] = [int(size) for size in match.group(1).rstrip(",").split(",")]
        facts["max_buffer_size"] = int(match.group(2)) if match.group(2) else None
        return tc
    key, _sep, value = line.partition(":")
    value = value.strip()
    if key == "DCBX mode" and value:
        facts["dcbx_mode"] = value
    elif key == "Priority trust state" and value in ("pcp", "dscp"):
        facts["trust"] = value
    elif line == "dscp2prio mapping:":
        facts["dscp2prio"] = {}
    elif line == "default priority:" or line == "PFC configuration:":
        pass  # headers: 'default priority:' is printed empty by mlnx-tools 5.x
    elif key == "Cable len" and value.isdigit():
        facts["cable_len"] = int(value)
    else:
        fail("unexpected line %r (not mlnx_qos -i output, or an error)", line)
    return tc


@parser("linux_mlnx_qos",
        "mlnx_qos -i <netdev> (mlnx-tools, MLNX_OFED 4.x to DOCA-host): trust state, dscp2prio, receive buffers, "
        "PFC enabled and buffer per priority, each TC's TSA, bandwidth and priorities",
        kind="text")
def _mlnx_qos(text):
    facts = {"dcbx_mode": None, "trust": None, "dscp2prio": None, "receive_buffer_bytes": None, "max_buffer_size": None,
             "cable_len": None, "pfc_enabled": None, "pfc_buffer": None, "tcs": {}}
    tc = None
    for raw in text.splitlines():
        line = raw.strip()  # mlnx_qos pads the PFC rows with trailing spaces and indents with tabs or spaces
        if line:
            tc = _qos_line(facts, line, tc)
    if facts["trust"] is None:
        fail("no 'Priority trust state' line (not mlnx_qos -i output, or an error)")
    if facts["pfc_enabled"] is None or not facts.pop("_pfc_header", False):
        fail("no PFC configuration table (cut short?)")
    if facts["dscp2prio"] is not None and len(facts["dscp2prio"]) != 64:
        fail("dscp2prio maps %d of the 64 DSCP values (cut short?)", len(facts["dscp2prio"]))
    if facts["trust"] == "dscp" and facts["dscp2prio"] is None:
        fail("trust dscp without a dscp2prio block (cut short?)")
    mapped = sorted(priority for block in facts["tcs"].values() for priority in block["priorities"])
    if mapped != list(PRIORITIES):
        fail("the TCs list priorities %s, not each of 0..7 once (cut short?)", mapped)
    # mlnx_qos prints the buffer row and the receive buffer sizes from one query (the netdev's DCB buffer
    # configuration): one without the other is a read that lost a line
    if (facts["pfc_buffer"] is None) != (facts["receive_buffer_bytes"] is None):
        fail("the PFC %s without the %s (a line lost?)", *(("buffer row", "receive buffer sizes") if facts["pfc_buffer"] is not None
                                                           else ("receive buffer sizes", "buffer row")))
    # the driver refuses ETS bandwidths that do not add up to 100% (mlx5e_dcbnl_ieee_setets): less is a TC line lost,
    # whose priorities were read into the TC above it
    shares = [block["bw"] for block in facts["tcs"].values() if block["tsa"] == "ets"]
    if shares and sum(shares) != 100:
        fail("the ETS TCs' bandwidths add up to %d%%, not 100%% (a tc line lost?)", sum(shares))
    return facts


@parser("linux_ethtool_stats",
        "ethtool -S <netdev>: the driver's NIC statistics, name -> value",
        kind="text")
def _ethtool_stats(text):
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines or lines[0] != "NIC statistics:":
        fail("no 'NIC statistics:' header (not ethtool -S output, or an error)")
    counters = {}
    for line in lines[1:]:
        name, sep, value = line.strip().partition(": ")
        if not sep or not value.strip().isdigit() or not name or " " in name:
            fail("damaged counter line %r (cut short?)", line)
        if name in counters:
            fail("counter %s listed twice", name)
        counters[name] = int(value)
    if not counters:
        fail("no counter listed")
    return {"counters": counters}


def _values(text, count, what):
    # every sysfs value ends with a newline (the kernel's sysfs_emit "%d\n"): without one the last value
    # may be cut short ("9000" read as "90")
    if text.strip() and not text.endswith("\n"):
        fail("the output ends inside a value (%r, no newline after it): cut short", text.splitlines()[-1][:40])
    values = [line.strip() for line in text.splitlines() if line.strip()]
    if len(values) != count:
        fail("expected %d lines (%s), got %d: %r", count, what, len(values), values[:count + 1])
    return values


@parser("linux_sysfs_roce_ecn_enable",
        "cat of a netdev's ecn/roce_rp/enable/<prio> and ecn/roce_np/enable/<prio> (in that order): DCQCN's "
        "reaction point and notification point switches for one priority",
        kind="text")
def _roce_ecn_enable(text):
    values = _values(text, 2, "roce_rp, roce_np")
    if set(values) - {"0", "1"}:
        fail("DCQCN switches are 0 or 1, got %r", values)
    return {"rp": values[0] == "1", "np": values[1] == "1"}


@parser("linux_sysfs_net_mtu",
        "cat of a netdev's mtu file: its MTU in bytes",
        kind="text")
def _net_mtu(text):
    value = _values(text, 1, "mtu")[0]
    if not value.isdigit() or not 68 <= int(value) <= 65535:  # what the kernel accepts for an Ethernet netdev
        fail("an MTU is a number of bytes (68 to 65535), got %r", value)
    return {"mtu": int(value)}


# ib_core's gid_type_str (drivers/infiniband/core/cache.c): the only words types/<index> prints.
GID_TYPES = ("IB/RoCE v1", "RoCE v2")


@parser("linux_sysfs_gid_type",
        "an RDMA port's gid_attrs/types/<index>: the GID entry's type (IB/RoCE v1 or RoCE v2)",
        kind="text")
def _gid_type(text):
    value = _values(text, 1, "GID type")[0]
    if value not in GID_TYPES:
        fail("a GID type is one of %s, got %r", ", ".join(GID_TYPES), value)
    return {"type": value}


_TCLASS = re.compile(r"^Global tclass=(\d+)$")


@parser("linux_sysfs_ib_traffic_class",
        "an RDMA device's tc/1/traffic_class (MLNX_OFED / DOCA-host): the global traffic class (ToS) of its RoCE "
        "traffic, or nothing when none is set",
        kind="text", empty_ok=True)
def _traffic_class(text):
    values = [line.strip() for line in text.splitlines() if line.strip()]
    if not values:
        return {"tclass": None}  # no global class: the application's own traffic class (NCCL_IB_TC) stands
    match = _TCLASS.match(values[0]) if len(values) == 1 else None
    if not match or int(match.group(1)) > 255:
        fail("expected 'Global tclass=N' (N a ToS byte), got %r", values)
    return {"tclass": int(match.group(1))}


# mlx5_ib's congestion counters (drivers/infiniband/hw/mlx5/counters.c), cat in this order.
CC_COUNTERS = ("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets")


@parser("linux_sysfs_rdma_cc_counters",
        "cat of an RDMA port's hw_counters/np_cnp_sent, rp_cnp_handled and np_ecn_marked_roce_packets (in that "
        "order): DCQCN's counters",
        kind="text")
def _cc_counters(text):
    values = _values(text, len(CC_COUNTERS), ", ".join(CC_COUNTERS))
    if not all(value.isdigit() for value in values):
        fail("counters are numbers, got %r", values)
    return {"counters": {name: int(value) for name, value in zip(CC_COUNTERS, values)}}
