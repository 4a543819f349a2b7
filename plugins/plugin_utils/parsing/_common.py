# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers every parser module shares: the checks that make a parser refuse a partial answer."""

from __future__ import annotations

import functools
import re

JMESPATH_IMPORT_ERROR = None
try:
    import jmespath
except ImportError as exc:  # the controller's requirements hold it; a parser that needs it says so, never a traceback
    jmespath = None
    JMESPATH_IMPORT_ERROR = str(exc)


def fail(msg, *args):
    """Output the parser cannot read completely: parse() names the parser."""
    raise ValueError(msg % args if args else msg)


@functools.lru_cache(maxsize=None)
def _compiled(expression):
    return jmespath.compile(expression)


def pick(expression, document):
    """What a jmespath ``expression`` takes from a JSON document: the fields a JSON parser reads, declared beside it."""
    if jmespath is None:
        fail("the jmespath Python package is not installed on the controller (%s)", JMESPATH_IMPORT_ERROR)
    return _compiled(expression).search(document)


def reject_other(rows, what=None):
    """A template's catch-all OTHER row is a line the parser does not know: never skip it silently.
    Returns the rows, so a parser can loop over them in the same line."""
    for row in rows:
        if row.get("other"):
            raise ValueError("unexpected line %r%s" % (row["other"], ": not %s" % what if what else ""))
    return rows


def headed_rows(rows, header):
    """The rows under a table header that the template records as its first row, every line known: a
    report without its header is another command's answer or an error message."""
    reject_other(rows)
    if not rows or not rows[0].get("header"):
        fail("no %s header (not this command's output?)", header)
    return rows[1:]


def only_row(rows, what):
    """The one row of a one-line file (/proc/sys/kernel/osrelease, /proc/driver/nvidia/version)."""
    reject_other(rows)
    if len(rows) != 1:
        fail("expected one %s, got %d", what, len(rows))
    return rows[0]


def listed(key, table, what):
    """{key: table}, or a failure when the report listed nothing: an empty table is never "all clean"."""
    if not table:
        fail("no %s listed", what)
    return {key: table}


# A table that no trailer or count closes: cut at a row boundary, it reads as a complete, shorter table.
NO_TRAILER = "no trailer or count that closes the table"


def trailerless(facts):
    """The facts of such a table, marked so that a judge never takes an item it does not list as proven
    absent (switch judges: _unproven); what it lists stands."""
    facts["unverified"] = NO_TRAILER
    return facts


def asn(text):
    """A BGP AS number as switches print it: plain (4200000001) or asdot (65000.100)."""
    if "." in text:
        high, low = text.split(".")
        return int(high) * 65536 + int(low)
    return int(text)


# RFC 4271's session states, as each platform spells them (EOS "Estab", FRR's text in lower case)
BGP_STATES = {"idle": "Idle", "connect": "Connect", "active": "Active", "opensent": "OpenSent",
              "openconfirm": "OpenConfirm", "established": "Established", "estab": "Established",
              "clearing": "Clearing", "deleted": "Deleted",  # FRR's own two, past RFC 4271's six
              "shut": "Shut",  # NX-OS: "Shut (Admin)", a neighbor shut down in the configuration
              "closing": "Closing"}  # NX-OS, napalm's driver's table of its states


def bgp_state(text):
    """A session's state as printed, split into RFC 4271's word and the platform's reason beside it (None without one):
    "Idle (Admin)" (FRR, NX-OS) and "Idle(NoIf)" (EOS) -> ("Idle", "Admin"), ("Idle", "NoIf");
    "Estab(NotNegotiated)" -> ("Established", "NotNegotiated"): up, its address family never negotiated.
    Raises on a word that is no state: the judge never compares a garbled word with "Established"."""
    match = re.match(r"^\s*([A-Za-z]+)\s*(?:\(\s*([A-Za-z][\w-]*)\s*\))?\s*$", str(text))
    if not match or match.group(1).lower() not in BGP_STATES:
        raise ValueError("unknown BGP state %r" % (text,))
    return BGP_STATES[match.group(1).lower()], match.group(2)


def bgp_neighbor(remote_as, state_text, received, accepted=None):
    """One neighbor's facts: {"remote_as", "state" (RFC 4271's word), "prefixes_received" (while Established),
    "prefixes_accepted" where the platform counts apart what its inbound policy let in (EOS's PfxAcc and
    prefixAccepted; FRR's PfxRcd is already that count), "reason" where the platform gave one (Admin, NoIf,
    NotNegotiated: a session with a reason is not up)}."""
    state, reason = bgp_state(state_text)
    up = state == "Established"
    entry = {"remote_as": remote_as, "state": state, "prefixes_received": received if up else None}
    if up and accepted is not None:
        entry["prefixes_accepted"] = accepted
    if reason:
        entry["reason"] = reason
    return entry


def number(text):
    """"400" -> 400, "12.5" -> 12.5."""
    value = float(text)
    return int(value) if value.is_integer() else value


def distinct(items):
    return list(dict.fromkeys(items))
