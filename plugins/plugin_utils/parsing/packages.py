# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The software stack's versions as the host's package manager and MLNX_OFED / DOCA-OFED print them.

dpkg-query -W answers every pattern it was asked: a line per package it matched (stdout), or
"dpkg-query: no packages found matching <pattern>" (stderr, parsed with stdout). So a package
neither listed nor named there was not read, and a package named there is proven absent.
"""

from __future__ import annotations

import re

from ._common import fail
from ._registry import parser

# -f '${db:Status-Abbrev}\t${Package}\t${Version}\n': the want (u/i/h/r/p), the status (n/c/h/u/f/w/t/i, as dpkg -l
# prints them) and the error flag (space or R), then the package and its version (empty where it is not installed; else
# starting with a digit, its epoch's or its upstream version's, as Debian policy 5.6.12 has it)
_DPKG_LINE = re.compile(r"^(?P<want>[uihrp])(?P<status>[nchufwti])(?P<error>[ R])\t(?P<package>[a-z0-9][a-z0-9+.\-]*)"
                        r"(?::[a-z0-9]+)?\t(?P<version>(?:\d[A-Za-z0-9.+~:\-]*)?)$", re.IGNORECASE)
_DPKG_NOT_FOUND = re.compile(r"^dpkg-query: no packages found matching (?P<pattern>\S+)$")
DPKG_STATES = {"n": "not-installed", "c": "config-files", "h": "half-installed", "u": "unpacked",
               "f": "half-configured", "w": "triggers-awaited", "t": "triggers-pending", "i": "installed"}
# installed: its files are in place and configured (triggers still pending do not change the library on disk)
DPKG_INSTALLED = ("installed", "triggers-awaited", "triggers-pending")


@parser("linux_dpkg_query_status",
        "dpkg-query -W -f '${db:Status-Abbrev}\\t${Package}\\t${Version}\\n' <patterns> with its stderr: each package's "
        "state and version, and the patterns no package matched",
        kind="text")
def _dpkg_query(text):
    packages, not_found = {}, []
    for line in text.splitlines():
        if not line.strip():
            continue
        found = _DPKG_LINE.match(line)
        if found:
            state = DPKG_STATES[found.group("status").lower()]
            if state != "not-installed" and not found.group("version"):
                fail("package %s is %s but has no version: the line cut short? %r", found.group("package"), state, line[:80])
            packages[found.group("package")] = {
                "state": state, "version": found.group("version") or None, "hold": found.group("want").lower() == "h",
                "error": found.group("error") == "R"}
            continue
        missing = _DPKG_NOT_FOUND.match(line)
        if missing:
            not_found.append(missing.group("pattern"))
            continue
        fail("not a line of dpkg-query -W with this format: %r", line[:80])
    if not packages and not not_found:
        fail("no package line and no 'no packages found' line: dpkg-query answers every pattern it is asked")
    # the names installed, apart: a judge looking for a pattern's installed match reads these alone, so a lost line of a
    # package the database merely knows (un) changes nothing it rests on
    installed = sorted(name for name, package in packages.items() if package["state"] in DPKG_INSTALLED)
    return {"packages": packages, "installed": installed, "not_found": not_found}


# "MLNX_OFED_LINUX-5.8-1.0.1.1:" (MLNX_OFED), "OFED-internal-24.10-1.1.4.0.200:" (DOCA-OFED): ofed_info -s
_OFED_LINE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z_\-]*?)-(?P<version>\d+\.\d+[0-9A-Za-z.\-]*):?$")


@parser("linux_ofed_info_s",
        "ofed_info -s: the MLNX_OFED or DOCA-OFED release installed",
        kind="text")
def _ofed_info(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        fail("ofed_info -s prints one line, got %d", len(lines))
    found = _OFED_LINE.match(lines[0])
    if not found or "OFED" not in found.group("name").upper():
        fail("not an OFED release line (MLNX_OFED_LINUX-<version>: or OFED-internal-<version>:): %r", lines[0][:80])
    if not lines[0].endswith(":"):  # ofed_info ends the release with a colon: without it the line may be cut
        fail("the release line has no closing colon (cut short?): %r", lines[0][:80])
    return {"name": found.group("name"), "version": found.group("version"), "release": lines[0].rstrip(":")}
