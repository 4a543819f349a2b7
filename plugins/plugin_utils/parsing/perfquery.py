# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""perfquery: one port's counters (PortCounters, or PortCountersExtended with -x), read from its PMA."""

from __future__ import annotations

import re

from ._registry import parser

# perfquery.c (rdma-core infiniband-diags) dump_perfcounters: a header, then libibmad's mad_dump_fields, one
# "Name:....value" line per field. Without -x: "# Port counters: Lid 17 port 1 (CapMask: 0x1200)" and PortCounters'
# fields (16-bit SymbolErrorCounter..., 32-bit data and PortXmitWait). With -x: "# Port extended counters: Lid 10 port 1
# (CapMask: 0x5300 CapMask2: 0x0000002)" (older releases print no CapMask2) and PortCountersExtended's 64-bit data
# counters, the unicast/multicast ones where CapMask has 0x200, and from CounterSelect2 on the 64-bit error counters
# where the port has them (CapMask2 0x2, IsAdditionalPortCountersExtendedSupported): ibsim's ports have not, so its -x
# prints data counters only. -l prints one such block per port. Captures: tests/unit/parsers/linux_perfquery.
_HEADER = re.compile(r"^# Port (extended )?counters: (?:Lid (\d+)|DR path \S+|\S.*?) port (\d+) "
                     r"\(CapMask: 0x([0-9a-fA-F]+)(?: CapMask2: 0x([0-9a-fA-F]+))?\)$")
_FIELD = re.compile(r"^(\w+):\.+(0x[0-9a-fA-F]+|\d+)$")
ERROR_COUNTERS = ("SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
                  "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards", "PortXmitConstraintErrors",
                  "PortRcvConstraintErrors", "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped")
# the fields each form prints, in order (libibmad fields.c): a block that stops short of them was cut
_PLAIN = ("PortSelect", "CounterSelect") + ERROR_COUNTERS[:9] + ("CounterSelect2",) + ERROR_COUNTERS[9:11] + (
    "QP1Dropped", "VL15Dropped", "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts", "PortXmitWait")
# fields later libibmad releases added to the plain form (QP1Dropped with IsQP1DropSupported): an older perfquery's
# block without them is whole
_PLAIN_LATER = ("CounterSelect2", "QP1Dropped")
_EXT_DATA = ("PortSelect", "CounterSelect", "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts")
_EXT_CASTS = ("PortUnicastXmitPkts", "PortUnicastRcvPkts", "PortMulticastXmitPkts", "PortMulticastRcvPkts")
_EXT_ERRORS = ("CounterSelect2",) + ERROR_COUNTERS + ("PortXmitWait", "QP1Dropped")
XMIT_WAIT_SUPPORTED = 0x1000  # PMA ClassPortInfo CapabilityMask bit 12 (PortCountersXmitWaitSupported)
EXT_WIDTH_SUPPORTED = 0x0200


@parser("linux_perfquery",
        "perfquery (-x): one port's error and data counters from its PMA, plain (16/32-bit) or extended (64-bit)",
        kind="text")
def perfquery(text):
    """{"ports": {"<lid>:<port>": {"lid", "port", "extended" (True for -x), "cap_mask", "cap_mask2", "counters":
    {name: n}, "widths": {name: bits}, "unsupported": [counter]}}}.

    ``counters``: every error counter and PortXmitWait the block prints, with its width (the plain form's are the IBA
    PortCounters widths: 16-bit SymbolErrorCounter, 8-bit LinkDownedCounter...; -x's are 64-bit), and the data
    counters. ``unsupported``: what the port does not count, never a zero: -x on a port without the additional
    extended counters prints no error counter (read them without -x), and the plain form's PortXmitWait where CapMask
    lacks PortCountersXmitWaitSupported (perfquery prints 0). A block cut short of its form's fields, a line that is
    no header or field, a port listed twice, or no block at all: not a read."""
    ports, block = {}, None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        header = _HEADER.match(line.strip())
        if header:
            _closed(block)
            block = _block(header)
            if block["key"] in ports:
                raise ValueError("line %d: port %s listed twice" % (number, block["key"]))
            ports[block["key"]] = block
            continue
        field = _FIELD.match(line.strip())
        if not field or block is None:
            raise ValueError("line %d is no perfquery header or counter line: %r" % (number, line[:120]))
        name, value = field.groups()
        if name in block["fields"]:
            raise ValueError("line %d: %s listed twice for port %s" % (number, name, block["key"]))
        block["fields"][name] = int(value, 16) if value.startswith("0x") else int(value)
    if block is None:
        raise ValueError("no perfquery block (\"# Port counters: ...\" or \"# Port extended counters: ...\")")
    _closed(block)
    return {"ports": {key: _facts(block) for key, block in ports.items()}}


def _block(header):
    extended, lid, port, cap_mask, cap_mask2 = header.groups()
    return {"key": "%s:%s" % (lid or "?", port), "lid": int(lid) if lid else None, "port": int(port),
            "extended": bool(extended), "cap_mask": int(cap_mask, 16),
            "cap_mask2": int(cap_mask2, 16) if cap_mask2 is not None else None, "fields": {}}


def _expected(block):
    """The fields the block must print in order (-x's additional error set is added where it printed more)."""
    if not block["extended"]:
        return [name for name in _PLAIN if name in block["fields"] or name not in _PLAIN_LATER]
    return list(_EXT_DATA) + (list(_EXT_CASTS) if block["cap_mask"] & EXT_WIDTH_SUPPORTED else [])


def _closed(block):
    if block is None:
        return
    names, expected = list(block["fields"]), _expected(block)
    if block["extended"] and names[len(expected):]:
        expected += list(_EXT_ERRORS)  # the additional extended counters, printed whole or not at all
    if names == expected:
        return
    lost = [name for name in expected if name not in block["fields"]]
    unknown = [name for name in names if name not in expected]
    raise ValueError("port %s: %s (cut short, or not perfquery's %s layout)" % (
        block["key"], "no %s" % ", ".join(lost[:4]) if lost else "unknown %s" % ", ".join(unknown[:4]) if unknown
        else "fields out of order", "extended" if block["extended"] else "PortCounters"))


def _facts(block):
    fields = block["fields"]
    counted = [name for name in ERROR_COUNTERS + ("PortXmitWait",) if name in fields]
    unsupported = [name for name in ERROR_COUNTERS + ("PortXmitWait",) if name not in fields]
    if not block["extended"] and not block["cap_mask"] & XMIT_WAIT_SUPPORTED:
        counted.remove("PortXmitWait")
        unsupported.append("PortXmitWait")
    counters = {name: value for name, value in fields.items() if name not in ("PortSelect", "CounterSelect", "CounterSelect2")}
    for name in unsupported:
        counters.pop(name, None)
    widths = {name: 64 for name in counters} if block["extended"] else {}
    return {"lid": block["lid"], "port": block["port"], "extended": block["extended"], "cap_mask": block["cap_mask"],
            "cap_mask2": block["cap_mask2"], "counters": counters, "widths": widths, "unsupported": unsupported}
