# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kernel log's NVRM Xid events, from whichever tool printed it.

"No Xid since boot" rests on what the log does not hold, so the log must prove it is whole:

- ``dmesg --json`` (util-linux 2.38 and later) prints one JSON document: it is whole when it decodes.
- ``journalctl -k -b --show-cursor`` ends with its ``-- cursor: ...`` line (systemd prints it after the
  last entry): no such line, the output was cut.
- Plain ``dmesg``, and journalctl without the cursor, end nowhere: a log cut after a line reads as a
  shorter log. Their facts say so (``unverified``): an Xid they list stands, no Xid proves nothing.
"""

from __future__ import annotations

import re

from ._common import fail
from ._registry import parser
from .nvidia_smi import bus_key

# dmesg: "[  123.456789] NVRM: ..."; journalctl -k: "Nov 24 00:20:38 host kernel: NVRM: ..."
_KERNEL_LINE = re.compile(r"^(?:\[\s*\d+\.\d+\]|\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ kernel: )")
# A MIG instance's Xid adds " GPU-I:nn" (and " GPU-CI:nn") after the bus id (open-gpu-kernel-modules kernel_rc.c)
_XID = re.compile(r"NVRM: Xid \(PCI:([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.[0-7])?(?: GPU-I:\d+(?: GPU-CI:\d+)?)?\): "
                  r"(\d+),\s*(.*)$")
# systemd's journalctl: printf("-- cursor: %s\n", cursor) after the last entry (src/journal/journalctl*.c)
_CURSOR = re.compile(r"^-- cursor: \S+$")
# journalctl's own lines between entries: "-- Logs begin at ... --" (before systemd 246), "-- Boot <id> --"
_JOURNAL_MARKER = re.compile(r"^-- .* --$")

NO_END = "the log has no end marker (plain dmesg): a log cut after a line reads as a shorter one"


def _xid_facts(entries):
    """{"lines", "xids"} of (key, message) pairs: key tells one event from another (its timestamp and text)."""
    xids, seen = [], set()
    for key, message in entries:
        match = _XID.search(message)
        if not match and "NVRM: Xid" in message:  # an Xid the driver announced but we cannot read is never "no Xid"
            fail("an Xid line that is not NVRM's format (damaged?): %r", message.strip()[:160])
        if match and key not in seen:  # the same line, timestamp and all, is one event read twice
            xids.append({"pci": bus_key(match.group(1)), "code": int(match.group(2)), "message": match.group(3).strip()})
            seen.add(key)
    return {"lines": len(entries), "xids": xids}


def _kernel_lines(lines, what):
    if not any(_KERNEL_LINE.match(line) for line in lines):
        fail("no kernel log line (not %s output?): %r", what, lines[0][:120] if lines else "")
    return _xid_facts([(line, line) for line in lines])


@parser("linux_dmesg_xid",
        "dmesg / journalctl -k without an end marker: the NVRM Xid events since boot (GPU bus id, Xid code, message); "
        "marked unverified, since nothing shows where such a log ends",
        kind="text")
def _kernel_log_text(text):
    facts = _kernel_lines([line for line in text.splitlines() if line.strip()], "dmesg")
    facts["unverified"] = NO_END
    return facts


@parser("linux_journalctl_kernel_xid",
        "journalctl -k -b --show-cursor: the NVRM Xid events of this boot, whole only when its '-- cursor:' line ends it",
        kind="text")
def _journal_xid(text):
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[-1].strip() == "-- No entries --":
        fail("journalctl holds no kernel message of this boot (journald does not read the kernel log here)")
    if not lines or not _CURSOR.match(lines[-1]):
        fail("the last line is not journalctl's '-- cursor: ' line (%r): the output was cut",
             lines[-1][:120] if lines else "")
    entries = [line for line in lines[:-1] if not _JOURNAL_MARKER.match(line)]
    if any(_CURSOR.match(line) for line in entries):
        fail("a '-- cursor: ' line before the end: not one journalctl output")
    return _kernel_lines(entries, "journalctl -k")


@parser("linux_dmesg_json",
        "dmesg --json (util-linux 2.38+): the NVRM Xid events since boot; one JSON document, whole when it decodes",
        kind="json")
def _kernel_log_json(document):
    records = document["dmesg"]
    if not isinstance(records, list) or not records:
        fail("'dmesg' is %r, not the kernel log's records", type(records).__name__ if records else records)
    entries = []
    for index, record in enumerate(records):
        message, when = record["msg"], record.get("time")
        if not isinstance(message, str):
            fail("record %d: msg is %r, not the kernel's message", index, message)
        entries.append(((when, message), message))
    return _xid_facts(entries)
