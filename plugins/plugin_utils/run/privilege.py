# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A switch login without the privilege its reads need, named in pre-flight (issue 71), not at Layer 3.

EOS answers `show running-config` in privileged EXEC mode only: a login below privilege 15 lands at `switch>` and is
refused ("% Invalid input (privileged mode required)") unless network_cli enters `enable` (ansible_become). The
catalog marks such ways `privileged: true`; pre-flight asks each switch in the run the first one its checks will ask,
once, through the checks' own collect path (collect/cli.py), and a refusal stops the run naming the switch, its group
and the fix. A switch that cannot be reached is not this trap: its checks stay the ERRORs they are."""

from __future__ import annotations

import re

from . import engine as _engine

# What a switch answers a command its login's privilege does not allow: EOS's privilege level (the message of an
# Arista user at `r4>` asking show running-config) and its AAA command authorization ("% Authorization denied for
# command"); network_cli's become failing (a wrong enable secret: "unable to elevate privilege to enable mode").
REFUSED = re.compile(r"privileged mode required|Authorization denied|Permission denied for the role", re.I)
NOT_ELEVATED = re.compile(r"elevate privilege|Bad secret", re.I)


def probes(switches, typed, catalog, run_tags=("all",), skip_tags=()):
    """{switch: the command line of the first privileged read its checks in this run will ask}, for the switches whose
    checks have one (an EOS leaf's sw_pfc_state per planned port: its first port's)."""
    found = {}
    for switch in switches:
        expect = typed.get(switch) or {}
        command = first_privileged_read(catalog, expect, run_tags, skip_tags)
        if command:
            found[switch] = command
    return found


def first_privileged_read(catalog, expect, run_tags=("all",), skip_tags=()):
    """The first privileged command line (placeholders filled) of the switch checks of the layers this run climbs,
    for the platform ``expect`` names; None when none needs privilege."""
    platform = expect.get("pyramid_switch_os")
    for check in sorted(catalog["checks"], key=lambda check: check["layer"]):
        if check.get("device") != "switch" or platform not in check.get("platforms", ()):
            continue
        if not _layer_runs(check["layer"], run_tags, skip_tags) or not _applies(check, expect):
            continue
        for name in check["sources"]:
            for way in catalog["sources"][name]["ways"]:
                if way.get("privileged") and way.get("platform") == platform:
                    command = _filled(way, expect)
                    if command:
                        return command
    return None


def _filled(way, expect):
    """The way's command for its first item (a per-port way: the first planned port); None without one."""
    items = [None]
    if way.get("foreach"):
        try:
            items = _engine.foreach_items(way["foreach"], expect)
        except (KeyError, TypeError):
            return None
    if not items:
        return None
    item = items[0]
    try:
        return way["cli"].replace("{item}", str(item)) if item is not None else way["cli"].format()
    except (KeyError, IndexError, ValueError):
        return None


def _layer_runs(layer, run_tags, skip_tags):
    tag = "layer%d" % layer
    return ("all" in run_tags or tag in run_tags) and not (tag in skip_tags or "all" in skip_tags)


def _applies(check, expect):
    return all(str(expect.get(name)).lower() == str(wanted).lower() for name, wanted in (check.get("only_if") or {}).items())


def become_unset(probed, vars_of, groups_of):
    """What plan.yml and pre-flight can say without touching a switch: each switch with privileged reads whose
    inventory sets no ansible_become (a login at privilege 15 needs none, so a warning; the read decides)."""
    return ["%s (%s): its checks ask `%s`, which EOS answers in privileged (enable) mode only, and ansible_become is not "
            "set; unless its login lands at privilege 15, %s" % (switch, groups_of(switch), command, fix(groups_of(switch)))
            for switch, command in sorted(probed.items()) if not _truthy(vars_of(switch).get("ansible_become"))]


def verdict(switch, group, command, raw, unreachable):
    """The problem of one switch's privileged read (the collected answer ``raw`` or why it could not connect), or
    None: read, or not reached (its checks' ERROR path, not this trap)."""
    if unreachable:
        if NOT_ELEVATED.search(str(unreachable)):
            return ("%s (%s): network_cli could not enter enable mode (%s): check ansible_become_password, the enable "
                    "secret, for %s" % (switch, group, _short(unreachable), group))
        return None
    answer = raw or {}
    if answer.get("status") == "ok" and not REFUSED.search(answer.get("stdout", "")):
        return None
    said = " ".join(str(item) for item in answer.get("attempts") or []) + " " + str(answer.get("stdout", ""))
    said = said.replace("\\r", "\r").replace("\\n", "\n")  # network_cli's message shows the answer's bytes escaped
    match = REFUSED.search(said)
    if not match:
        return None  # a timeout or another failure: the checks' own ERROR says it, with the command
    return ("%s (%s): its login lacks the privilege its reads need: `%s` answered \"%s\"; %s"
            % (switch, group, command, _line_of(said, match), fix(group)))


def fix(group):
    return ("set ansible_become: true, ansible_become_method: enable and ansible_become_password (the enable secret) "
            "for %s" % group)


def _line_of(text, match):
    start = text.rfind("%", 0, match.start())
    start = start if start >= 0 and match.start() - start < 80 else match.start()
    end = min([position for position in (text.find("\r", match.end()), text.find("\n", match.end())) if position >= 0]
              or [len(text)])
    return text[start:end].strip()


def _short(reason):
    return " ".join(str(reason).split())[:200]


def _truthy(value):
    return value is True or str(value).lower() in ("true", "yes", "1", "on")
