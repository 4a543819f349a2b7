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

from ._common import fail, trailerless
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
    if text.strip() and not text.endswith("\n"):  # every line dpkg-query prints ends with one: the read stopped inside
        fail("the read ends inside its last line (no newline after %r): cut short, its version may be a part of it",
             text.splitlines()[-1][-80:])
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


# rpm -q --queryformat '%{NAME}\t%{VERSION}-%{RELEASE}\n' <name>...: a line per installed package of each name (rpm
# keeps several versions of one name side by side: each its line), or "package <name> is not installed" (rpm's lib/
# query.c, on stdout) and one more to the exit code per name it found nothing for. rpm -q takes names, not patterns (a
# glob is looked up as the name it is: tests/unit/parsers/linux_rpm_query/glob_is_a_name_real).
_RPM_LINE = re.compile(r"^(?P<package>[A-Za-z0-9][A-Za-z0-9_+.\-]*)\t(?P<version>\d[A-Za-z0-9.+~^_]*-[A-Za-z0-9.+~^_]+)$")
_RPM_NOT_INSTALLED = re.compile(r"^package (?P<name>\S+) is not installed$")


def _rpm_lines(text, denials):
    """{package: {"state", "version" (several joined with ", "), ...}} and the names rpm denied."""
    packages, not_found = {}, []
    for line in text.splitlines():
        if not line.strip():
            continue
        found = _RPM_LINE.match(line)
        if found:
            package = packages.setdefault(found.group("package"),
                                          {"state": "installed", "version": None, "hold": False, "error": False})
            versions = [v for v in (package["version"] or "").split(", ") if v]
            if found.group("version") not in versions:  # one version twice: a multilib pair (x86_64 and i686)
                package["version"] = ", ".join(versions + [found.group("version")])
            continue
        missing = _RPM_NOT_INSTALLED.match(line) if denials else None
        if missing:
            not_found.append(missing.group("name"))
            continue
        fail("not a line of rpm -q --queryformat '%%{NAME}\\t%%{VERSION}-%%{RELEASE}\\n': %r", line[:80])
    both = sorted(set(packages) & set(not_found))
    if both:
        fail("rpm listed and denied %s in one answer: not one read", ", ".join(both))
    return packages, not_found


@parser("linux_rpm_query",
        "rpm -q --queryformat '%{NAME}\\t%{VERSION}-%{RELEASE}\\n' <names> with its stderr: each installed package's "
        "version, and the names rpm says are not installed",
        kind="text")
def _rpm_query(text):
    """The facts of linux_dpkg_query_status (every package listed is installed: rpm's database holds nothing else), with
    "manager": "rpm". rpm answers every name it is asked, so a name neither listed nor denied was not read."""
    if text.strip() and not text.endswith("\n"):  # the query format and rpm's denials end each line with one
        fail("the read ends inside its last line (no newline after %r): cut short, its version may be a part of it",
             text.splitlines()[-1][-80:])
    packages, not_found = _rpm_lines(text, denials=True)
    if not packages and not not_found:
        fail("no package line and no 'is not installed' line: rpm -q answers every name it is asked")
    return {"packages": packages, "installed": sorted(packages), "not_found": not_found, "manager": "rpm"}


@parser("linux_rpm_query_all",
        "rpm -qa --queryformat '%{NAME}\\t%{VERSION}-%{RELEASE}\\n' <pattern>: the installed packages whose name the "
        "pattern matches (nothing where none does)",
        kind="text", empty_ok=True)
def _rpm_query_all(text):
    """{"packages", "installed", "manager": "rpm"}: with -a a pattern matching nothing prints nothing and exits 0 (rpm
    4.18), so an empty answer of a run that ended is no match; the list has no count (marked unverified)."""
    packages, _denied = _rpm_lines(text or "", denials=False)
    return trailerless({"packages": packages, "installed": sorted(packages), "manager": "rpm"})


# os-release(5): KEY=VALUE lines, values quoted or not; ID and ID_LIKE name the distribution and its family
_OS_RELEASE_LINE = re.compile(r"^(?P<key>[A-Z][A-Z0-9_]*)=(?P<value>\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\"'\s]*)$")
# the families a software stack's packages come in, by os-release's ID or ID_LIKE
FAMILIES = (("rhel", ("rhel", "fedora", "centos", "rocky", "almalinux", "amzn", "ol")), ("suse", ("suse", "sles", "opensuse")),
            ("debian", ("debian", "ubuntu")))


@parser("linux_etc_os_release",
        "/etc/os-release (os-release(5)): the distribution, its version and its family",
        kind="text")
def _os_release(text):
    """{"id", "id_like" [..], "version_id", "pretty_name", "family" ("rhel", "debian" or the ID itself)}. A line that is
    no KEY=VALUE line, or no ID, is not a read (a file cut short)."""
    values = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        found = _OS_RELEASE_LINE.match(line.strip())
        if not found:
            fail("not an os-release line (KEY=VALUE): %r", line[:80])
        value = found.group("value")
        if value[:1] in ("'", '"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1]) if value[0] == '"' else value[1:-1]
        values[found.group("key")] = value
    if not values.get("ID"):
        fail("no ID= line: os-release(5) names the distribution there")
    like = values.get("ID_LIKE", "").split()
    names = [values["ID"]] + like
    family = next((family for family, members in FAMILIES if any(name in members for name in names)), values["ID"])
    return {"id": values["ID"], "id_like": like, "version_id": values.get("VERSION_ID"),
            "pretty_name": values.get("PRETTY_NAME") or "%s %s" % (values.get("NAME", values["ID"]), values.get("VERSION_ID", "")),
            "family": family}
