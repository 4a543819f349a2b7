# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA MFT's `mlxlink` (issue 67): one NIC port's own physical layer, as the port itself measures it (its state,
FEC, raw and effective BER, link downs, the module's temperature). The same text on RoCE and InfiniBand ports."""

from __future__ import annotations

import re

from ._common import fail
from ._registry import parser

# mstflint mlxlink/modules/printutil: each section is printed as "\n<title>\n<dashes as long as the title>\n" and each
# record as "<key><padding>: <value>\n" (the key padded to 37 columns, PDDR_LINE_LEN; a longer key gets no padding).
_RECORD = re.compile(r"^(?P<key>\S[^:]*?)\s*: ?(?P<value>.*)$")
# What the judge reads, per section: a section or a key missing is a read cut short (or another command's answer).
_WANTED = {
    "Operational Info": ("State", "Physical state", "Speed", "FEC"),
    "Physical Counters and BER Info": ("Effective Physical Errors", "Effective Physical BER", "Raw Physical BER",
                                       "Link Down Counter"),
    "Module Info": ("Temperature [C]",),
}
# A BER as mlxlink prints it: <coefficient>E-<magnitude> (PPCNT's ber_coef and ber_magnitude), 15E-255 for a port that
# counted no error at all; some releases print a plain 0 or a decimal mantissa.
_BER = re.compile(r"^\d+(?:\.\d+)?(?:[Ee][-+]?\d+)?$")
# "54 [-5..75]": the module's reading and its own alarm thresholds (low..high)
_READING = re.compile(r"^(?P<value>-?\d+(?:\.\d+)?)(?:\s*\[(?P<low>-?\d+(?:\.\d+)?)\.\.(?P<high>-?\d+(?:\.\d+)?)\])?$")
NOT_AVAILABLE = "N/A"


@parser("linux_mlxlink",
        "mlxlink -d <dev> -p 1 -c -m: the port's state, speed and FEC, raw and effective BER, effective errors, link "
        "downs, the module's temperature",
        kind="text")
def mlxlink(text):
    """{"state", "physical_state", "speed", "width", "fec", "raw_ber", "effective_ber" (floats; None for N/A),
    "effective_errors", "link_down" (ints; None for N/A), "minutes_since_clear", "temperature_c" (None for N/A),
    "temperature_thresholds_c" ([low, high] as the module declares them, or None), "ddm" (Digital Diagnostic
    Monitoring: True, False, None where not printed), "cable_type", "recommendation"}. An "-E-" line (a device that
    cannot be opened, no permission), a line outside any section, a section or key the judge reads missing, or an
    answer that does not end with its last line's newline (cut inside a value) is not a read."""
    if not text.endswith("\n"):
        fail("the answer ends inside its last line (%r): cut short", text.rstrip("\n").rsplit("\n", 1)[-1][:80])
    sections = _sections(text)
    for title, keys in _WANTED.items():
        if title not in sections:
            fail("no %r section (cut short, or not `mlxlink -c -m`'s answer?)", title)
        missing = [key for key in keys if key not in sections[title]]
        if missing:
            fail("%r section without %s (cut short?)", title, ", ".join(missing))
    operational, counters, module = (sections[title] for title in _WANTED)
    temperature, thresholds = _reading(module["Temperature [C]"])
    ddm = module.get("Digital Diagnostic Monitoring")
    if ddm not in (None, "Yes", "No"):
        fail("Digital Diagnostic Monitoring %r: not Yes or No", ddm)
    return {
        "state": operational["State"], "physical_state": operational["Physical state"],
        "speed": operational["Speed"], "width": operational.get("Width"), "fec": operational["FEC"],
        "raw_ber": ber(counters["Raw Physical BER"], "Raw Physical BER"),
        "effective_ber": ber(counters["Effective Physical BER"], "Effective Physical BER"),
        "effective_errors": _count(counters["Effective Physical Errors"], "Effective Physical Errors"),
        "link_down": _count(counters["Link Down Counter"], "Link Down Counter"),
        "minutes_since_clear": _minutes(counters.get("Time Since Last Clear [Min]")),
        "temperature_c": temperature, "temperature_thresholds_c": thresholds,
        "ddm": None if ddm is None else ddm == "Yes",
        "cable_type": module.get("Cable Type"),
        "recommendation": (sections.get("Troubleshooting Info") or {}).get("Recommendation"),
    }


def _sections(text):
    """{title: {key: value}} of every section; "-W-"/"-I-" notes mlxlink prints between sections are skipped."""
    lines = text.split("\n")
    sections, current = {}, None
    index = 0
    while index < len(lines):
        line = lines[index].rstrip()
        following = lines[index + 1].rstrip() if index + 1 < len(lines) else ""
        if line.startswith("-E-"):
            fail("mlxlink error: %s", line[3:].strip())
        if not line or line.startswith(("-W-", "-I-")):
            current = None if not line else current
            index += 1
            continue
        if following and set(following) == {"-"} and len(following) == len(line):
            if line in sections:
                fail("section %r printed twice", line)
            current = sections.setdefault(line, {})
            index += 2
            continue
        match = _RECORD.match(line)
        if current is None or not match:
            fail("line %d is no line of a section of mlxlink's answer: %r", index + 1, line[:120])
        current[match.group("key").strip()] = match.group("value").strip()
        index += 1
    return sections


def ber(value, what):
    """A BER mlxlink printed, as a float (15E-255 is 1.5e-254: no error counted); None for N/A."""
    if value == NOT_AVAILABLE:
        return None
    match = _BER.match(value)
    if not match:
        fail("%s %r: not a BER as mlxlink prints one (<n>E-<m>)", what, value)
    return float(value)  # Python reads "15E-255" as mlxlink means it (1.5e-254), without rounding the exponent


def _count(value, what):
    if value == NOT_AVAILABLE:
        return None
    if not value.isdigit():
        fail("%s %r: not a count", what, value)
    return int(value)


def _minutes(value):
    if value in (None, NOT_AVAILABLE):
        return None
    try:
        return float(value)
    except ValueError:
        return fail("Time Since Last Clear [Min] %r: not a number of minutes", value)


def _reading(value):
    """(temperature, [low, high] or None); (None, None) for N/A."""
    if value == NOT_AVAILABLE:
        return None, None
    match = _READING.match(value)
    if not match:
        fail("Temperature [C] %r: not a reading as mlxlink prints one (<n> [<low>..<high>])", value)
    thresholds = [float(match.group("low")), float(match.group("high"))] if match.group("low") is not None else None
    return float(match.group("value")), thresholds
