# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kernel log's NVRM Xid events, from whichever tool printed it.

"No Xid since boot" rests on what the log does not hold, so the log must prove both of its ends:

- Its end. ``dmesg --json`` (util-linux 2.38 and later) prints one JSON document: a cut one does not
  decode. ``journalctl -k -b --show-cursor`` ends with its ``-- cursor: ...`` line (systemd prints it
  after the last entry): no such line, the output was cut. Plain ``dmesg`` ends nowhere: a log cut after
  a line reads as a shorter log.
- Its start. The kernel prints its banner (``Linux version ...``) once, at boot; a log without it no
  longer reaches back to boot (the ring buffer wrapped, or ``dmesg -C`` cleared it).

A log that cannot prove an end says why in ``unverified``: an Xid it lists stands, no Xid proves nothing.
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
# Any line that names an Xid (an NVSwitch's "SXid" is another event): one that _XID cannot read is damage, never "no Xid"
_XID_NAMED = re.compile(r"\bXid\b")
# NVRM prints the code with "%d, ": a code followed by digits and a comma ("1,234, pid=...") was garbled on the way
_CODE_SPLIT = re.compile(r"^\d+,")
# systemd's journalctl: printf("-- cursor: %s\n", cursor) after the last entry (src/journal/journalctl*.c)
_CURSOR = re.compile(r"^-- cursor: \S+$")
# journalctl's own lines between entries: "-- Logs begin at ... --" (before systemd 246), "-- Boot <id> --"
_JOURNAL_MARKER = re.compile(r"^-- .* --$")
# journalctl without --all shows a message that is not printable text as "[163B blob data]": an Xid may hide there
_BLOB = re.compile(r"\[[\d.]+[KMG]?B blob data\]$")
# The boot banner (init/version.c linux_banner): the first line on x86, after "Booting Linux on physical CPU" on arm64
_BANNER = "Linux version "

NO_END = "plain dmesg has no end marker: a log cut after a line reads as a shorter one"
NO_START = "the log does not reach back to boot (no 'Linux version' banner: the ring buffer wrapped or was cleared)"


def _xid_facts(messages, why_unverified=None):
    """{"lines", "xids"[, "unverified"]} of the log's lines; a log without the boot banner is unverified too."""
    xids, seen = [], set()
    for message in messages:
        match = _XID.search(message)
        if not match and _XID_NAMED.search(message):  # an Xid the driver announced but we cannot read is never "no Xid"
            fail("an Xid line that is not NVRM's format (damaged?): %r", message.strip()[:160])
        if match and _CODE_SPLIT.match(match.group(3)):
            fail("an Xid line whose code does not read as one number (damaged?): %r", message.strip()[:160])
        if match and message not in seen:  # the same line, timestamp and all, is one event read twice
            xids.append({"pci": bus_key(match.group(1)), "code": int(match.group(2)), "message": match.group(3).strip()})
            seen.add(message)
    why = [why_unverified] if why_unverified else []
    if not any(_BANNER in message for message in messages):
        why.append(NO_START)
    facts = {"lines": len(messages), "xids": xids}
    if why:
        facts["unverified"] = "; ".join(why)
    return facts


def _kernel_lines(lines, what, why_unverified=None):
    if not any(_KERNEL_LINE.match(line) for line in lines):
        fail("no kernel log line (not %s output?): %r", what, lines[0][:120] if lines else "")
    return _xid_facts(lines, why_unverified)


@parser("linux_dmesg_xid",
        "plain dmesg: the NVRM Xid events since boot (GPU bus id, Xid code, message); marked unverified, since "
        "nothing shows where its log ends",
        kind="text")
def _kernel_log_text(text):
    return _kernel_lines([line for line in text.splitlines() if line.strip()], "dmesg", NO_END)


@parser("linux_journalctl_kernel_xid",
        "journalctl -k -b --all --show-cursor: the NVRM Xid events of this boot, whole only when its '-- cursor:' "
        "line ends it",
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
    blob = next((line for line in entries if _BLOB.search(line)), None)
    if blob:
        fail("a message shown as blob data (%r): journalctl without --all hides its text", blob[:120])
    return _kernel_lines(entries, "journalctl -k")


@parser("linux_dmesg_json",
        "dmesg --json (util-linux 2.38+): the NVRM Xid events since boot; one JSON document, whole when it decodes",
        kind="json", foreign_text=True)
def _kernel_log_json(document):
    records = document["dmesg"]
    if not isinstance(records, list):
        fail("'dmesg' is a %s, not the list of the kernel log's records", type(records).__name__)
    if not records:
        fail("no record in the kernel log (a booted kernel always has its banner)")
    messages = []
    for index, record in enumerate(records):
        message = record["msg"]
        if not isinstance(message, str):
            fail("record %d: msg is %r, not the kernel's message", index, message)
        # util-linux writes a message's bytes as they are (plain dmesg escapes them): a byte that is not text
        # (a cut process name) is the kernel's, not damage, except where it could hide an Xid
        if "\ufffd" in message and "NVRM" in message:
            fail("record %d: an NVRM message with bytes that are not text: %r", index, message[:120])
        # a record may hold several lines (printk keeps embedded newlines): each is read as the line dmesg prints
        messages += ["[%s] %s" % (record.get("time"), line) for line in message.splitlines() or [""]]
    return _xid_facts(messages)
