# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""InfiniBand fabric parsers: what infiniband-diags prints about the whole subnet from one host with fabric access."""

from __future__ import annotations

import re

from ._registry import parser

# iblinkinfo.c (linux-rdma/rdma-core infiniband-diags): a node's header, then one line per port. A switch's header
# carries its GUID; a CA's names it by its node description only, its port line carries the port GUID.
_HEADER = re.compile(r"^(CA|Switch|Router): (?:(0x[0-9a-fA-F]{16}) )?(.*):$")
_PORT = re.compile(
    r"^\s+(?:(?P<guid>0x[0-9a-fA-F]{16})\s+)?(?P<lid>\d+)\s+(?P<port>\d+)\[[^\]]*\]\s+"
    r"==\(\s*(?:(?P<width>\d+X)\s+(?P<speed>\d+(?:\.\d+)?) Gbps\s+)?(?P<state>\w+)/\s*(?P<phys>[\w ]+?)\)==>\s+"
    r"(?:(?P<rlid>\d+)\s+(?P<rport>\d+)\[[^\]]*\]|\[[^\]]*\])\s+\"(?P<rname>[^\"]*)\"\s+\((?P<hint>[^)]*)\)$")


@parser("linux_iblinkinfo",
        "iblinkinfo: every switch's and CA's ports across the subnet - state, width, speed and the node at the other end",
        kind="text")
def iblinkinfo(text):
    """{"switches": {name: {"guid", "ports": {"n": port}}}, "ca_ports": {port GUID: dict(port, name=node description, port=n)}}.

    A port: {"lid", "width" ("4X", None while down), "speed_gbps" (per lane, as printed: 53.125 is HDR, 106.25 NDR),
    "state", "phys_state", "remote": {"lid", "port", "name"} or None, "could_be" (what both ends support beyond the
    active width or speed, iblinkinfo's "Could be" hint, or "")}. A line that is neither a header nor a port, a header
    without ports, a switch whose ports do not run 1, 2, 3... (a line lost), or nothing at all: not a complete read."""
    switches, ca_ports, node, count = {}, {}, None, 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        header = _HEADER.match(line)
        if header:
            _closed(node)
            kind, guid, name = header.groups()
            node = {"kind": kind, "name": name, "guid": guid, "ports": {}}
            if kind == "Switch":
                if name in switches:
                    raise ValueError("switch %r listed twice (line %d)" % (name, number))
                switches[name] = {"guid": guid, "ports": node["ports"]}
            continue
        match = _PORT.match(line)
        if not match or node is None:
            raise ValueError("line %d is no iblinkinfo header or port line: %r" % (number, line[:120]))
        port = _port(match)
        count += 1
        if match.group("port") in node["ports"]:
            raise ValueError("line %d: %s %r lists port %s twice (a header lost?)" % (number, node["kind"], node["name"], match.group("port")))
        node["ports"][match.group("port")] = port
        if node["kind"] == "Switch" and match.group("guid"):
            # a switch's port lines carry no GUID: a CA's line here means its "CA:" header was lost
            raise ValueError("line %d: a CA's port line inside switch %r's block (a header lost?)" % (number, node["name"]))
        if node["kind"] != "Switch":
            if not match.group("guid"):
                raise ValueError("line %d: the CA %r's port has no GUID" % (number, node["name"]))
            ca_ports[match.group("guid").lower()] = dict(port, name=node["name"], port=int(match.group("port")))
    _closed(node)
    if not count:
        raise ValueError("no switch or CA listed")
    return {"switches": switches, "ca_ports": ca_ports}


def _port(match):
    remote = ({"lid": int(match.group("rlid")), "port": int(match.group("rport")), "name": match.group("rname")}
              if match.group("rlid") else None)
    hint = match.group("hint").strip()
    return {"lid": int(match.group("lid")), "width": match.group("width"),
            "speed_gbps": float(match.group("speed")) if match.group("speed") else None,
            "state": match.group("state"), "phys_state": match.group("phys").strip(), "remote": remote,
            "could_be": hint[len("Could be"):].strip() if hint.startswith("Could be") else hint}


def _closed(node):
    """A node's block is whole: ports listed, and a switch's from 1 without a gap."""
    if node is None:
        return
    if not node["ports"]:
        raise ValueError("%s %r lists no port (cut short?)" % (node["kind"], node["name"]))
    numbers = sorted(int(number) for number in node["ports"])
    if node["kind"] == "Switch" and numbers != list(range(1, len(numbers) + 1)):
        raise ValueError("switch %r lists ports %s: a port line is missing" % (node["name"], _ranges(numbers)))


def _ranges(numbers):
    return ", ".join(str(n) for n in numbers[:6]) + (", ..." if len(numbers) > 6 else "")
