# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ibnetdiscover's topology file: the subnet's switches, CAs and the links between them, read as linux_iblinkinfo's facts
so that it can be a second way of the same source (catalog/infiniband.yml ib_link_info)."""

from __future__ import annotations

import re

from ._registry import parser
from .infiniband import _guid, _map_read, switch_names

# ibnetdiscover.c (rdma-core infiniband-diags, dump_topology without -g): per node its ids (vendid=, devid=,
# sysimgguid=, then switchguid=0x<node>(<port 0>) or caguid=/rtguid=), its line ("Switch\t<ports> "S-<GUID>"\t\t#
# "<description>" enhanced|base port 0 lid N lmc N", "Ca\t<ports> "H-<GUID>"\t\t# "<description>"), then one line per
# LINKED port only (a port with no far end is not printed): a switch's "[n]\t"<far id>"[m](<far port GUID>: CAs only)
# \t\t# "<far description>" lid N 4xHDR", a CA's "[n](<port GUID>) \t"<far id>"[m]\t\t# lid <own> lmc N "<far
# description>" lid N 4xHDR". -s adds " s=N w=N v=N[ e=N]". A node-name map (--node-name-map) replaces a switch's and
# every far end's description, never a CA's own. Captures: tests/unit/parsers/linux_ibnetdiscover (ibsim 0.10).
_IDS = re.compile(r"^(?:vendid|devid)=0x[0-9a-fA-F]+$|^sysimgguid=0x[0-9a-fA-F]+$")
_SWITCH_GUID = re.compile(r"^switchguid=0x([0-9a-fA-F]{1,16})\(([0-9a-fA-F]{1,16})\)$")
_CA_GUID = re.compile(r"^(?:ca|rt)guid=0x([0-9a-fA-F]{1,16})$")
_SWITCH = re.compile(r'^Switch\s+(\d+)\s+"S-([0-9a-fA-F]{16})"\s+# "(.*)" (?:enhanced|base) port 0 lid (\d+) lmc \d+$')
_CA = re.compile(r'^(Ca|Rt)\s+(\d+)\s+"[HR]-([0-9a-fA-F]{16})"\s+# "(.*)"$')
_FULL = r"(?: s=\d+ w=\d+ v=\d+(?: e=\d+)?)?"  # -s
_SWITCH_PORT = re.compile(r'^\[(\d+)\]\s+"([SHR])-([0-9a-fA-F]{16})"\[(\d+)\](?:\(([0-9a-fA-F]{1,16})\))?\s+# "(.*)" lid (\d+) '
                          r"(\d+)x([A-Z0-9]+)" + _FULL + r"$")
_CA_PORT = re.compile(r'^\[(\d+)\]\(([0-9a-fA-F]{1,16})\)\s+"([SHR])-([0-9a-fA-F]{16})"\[(\d+)\](?:\s*\(([0-9a-fA-F]{1,16})\))?\s+'
                      r'# lid (\d+) lmc \d+ "(.*)" lid (\d+) (\d+)x([A-Z0-9]+)' + _FULL + r"$")
# dump_linkspeed_compat / dump_linkspeedext_compat: a lane's signalling rate (Gb/s) as iblinkinfo prints it
LANE_GBPS = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.3125, "FDR": 14.0625, "EDR": 25.78125, "HDR": 53.125,
             "NDR": 106.25, "XDR": 212.5}


@parser("linux_ibnetdiscover",
        "ibnetdiscover: the subnet's topology file - every switch and CA by GUID and each link with its width and speed",
        kind="text")
def ibnetdiscover(text):  # pylint: disable=too-many-branches
    """linux_iblinkinfo's facts: {"switches": {GUID: {"guid", "name", "description", "lid", "ports": {"n": port}}},
    "ca_ports": {port GUID: dict(port, name=node description, port=n)}, "reader": "ibnetdiscover"}, switches keyed by
    GUID and named as linux_iblinkinfo names them (switch_names: the description, a node-name map's name where the
    tool had one, the GUID where switches share one).

    A port: {"lid", "width" ("4X"), "speed_gbps" (per lane: 53.125 HDR, 106.25 NDR), "state": None, "phys_state":
    "LinkUp", "remote": {"lid", "port", "name", "guid"}, "could_be": ""}. ibnetdiscover prints linked ports only, and no
    port state: a port it lists has a far end that answered through it (physically up), but whether the SM made it
    Active is not shown (``state`` None: iblinkinfo's read says it). The file has no trailer: it is whole only when
    every link is printed from both of its ends, so a block lost (the read cut short) leaves a link one-sided and is
    refused, as are a node listed twice, a node with no port line, an unknown line or speed, or nothing at all."""
    _map_read(text)
    switches, ca_ports, nodes, node = {}, {}, {}, None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or _IDS.match(stripped) or _CA_GUID.match(stripped):
            continue
        if _SWITCH_GUID.match(stripped):
            continue
        header = _SWITCH.match(stripped) or _CA.match(stripped)
        if header:
            node = _node(header, number, nodes, switches)
            continue
        match = (_SWITCH_PORT if node and node["kind"] == "Switch" else _CA_PORT).match(stripped)
        if not match or node is None:
            raise ValueError("line %d is no ibnetdiscover topology line: %r" % (number, line[:120]))
        port, own = _port(node, match, number)
        if str(own[1]) in node["ports"]:
            raise ValueError("line %d: %s %r lists port %d twice" % (number, node["kind"], node["description"], own[1]))
        node["ports"][str(own[1])] = port
        if node["kind"] != "Switch":
            if own[0] in ca_ports:
                raise ValueError("line %d: CA port %s listed twice" % (number, own[0]))
            ca_ports[own[0]] = dict(port, name=node["description"], port=own[1])
    if not nodes:
        raise ValueError("no switch or CA listed")
    for guid, listed in nodes.items():
        if not listed["ports"]:
            raise ValueError("%s %s (%r) lists no linked port (cut short?)" % (listed["kind"], guid, listed["description"]))
    _both_ends(switches, ca_ports)
    _one_description(nodes, switches, ca_ports)
    names = switch_names(switches)
    for guid, switch in switches.items():
        switch["name"] = names[guid]
    for port in [port for switch in switches.values() for port in switch["ports"].values()] + list(ca_ports.values()):
        if port["remote"]["guid"] in switches:
            port["remote"]["name"] = names[port["remote"]["guid"]]
    return {"switches": switches, "ca_ports": ca_ports, "reader": "ibnetdiscover"}


def _node(header, number, nodes, switches):
    if header.re is _SWITCH:
        count, guid, description, lid = header.groups()
        kind = "Switch"
    else:
        kind, count, guid, description = header.groups()
        lid = None
    guid = _guid(guid)
    if guid in nodes:
        raise ValueError("line %d: node %s (%r) listed twice" % (number, guid, description))
    node = nodes[guid] = {"kind": kind, "guid": guid, "description": description, "count": int(count), "ports": {}}
    if kind == "Switch":
        switches[guid] = {"guid": guid, "description": description, "lid": int(lid), "ports": node["ports"]}
        node["lid"] = int(lid)
    return node


def _port(node, match, number):
    """(the port as linux_iblinkinfo's, (its own key, its number))."""
    if node["kind"] == "Switch":
        own, kind, far, far_port, far_port_guid, far_name, far_lid, width, word = match.groups()
        own_key, own_lid = node["guid"], node["lid"]
    else:
        own, own_guid, kind, far, far_port, far_port_guid, own_lid, far_name, far_lid, width, word = match.groups()
        own_key, own_lid = _guid(own_guid), int(own_lid)
    if word not in LANE_GBPS:
        raise ValueError("line %d: unknown link speed %r (known: %s)" % (number, word, ", ".join(LANE_GBPS)))
    if int(own) > node["count"] or int(own) < 1:
        raise ValueError("line %d: port %s of a %d-port %s" % (number, own, node["count"], node["kind"]))
    if kind != "S" and not far_port_guid:
        raise ValueError("line %d: a CA far end without its port GUID" % number)
    remote = {"lid": int(far_lid), "port": int(far_port), "name": far_name,
              "guid": _guid(far) if kind == "S" else _guid(far_port_guid)}
    return ({"lid": own_lid, "width": "%sX" % width, "speed_gbps": LANE_GBPS[word], "state": None, "phys_state": "LinkUp",
             "remote": remote, "could_be": ""}, (own_key, int(own)))


def _both_ends(switches, ca_ports):
    """Every link printed from both ends (the file's only proof that no block was lost), and at one width and speed."""
    ends = {}
    for guid, switch in switches.items():
        for number, port in switch["ports"].items():
            ends[(guid, int(number))] = port
    for guid, port in ca_ports.items():
        ends[(guid, port["port"])] = port
    for (guid, number), port in sorted(ends.items()):
        far = (port["remote"]["guid"], port["remote"]["port"])
        back = ends.get(far)
        if back is None:
            raise ValueError("%s port %d's far end %r (%s port %d) is not in the read: a block lost (the read cut short?)" % (
                guid, number, port["remote"]["name"], far[0], far[1]))
        if (back["remote"]["guid"], back["remote"]["port"]) != (guid, number):
            raise ValueError("%s port %d and %s port %d do not name each other (the subnet changed during the read?)" % (
                guid, number, far[0], far[1]))


def _one_description(nodes, switches, ca_ports):
    """Every switch at a far end has the description its own block prints (the map's name on both where the tool had a map):
    a switch is named by its description where it is the only one with it, so a description damaged in one place (a
    read with a word lost) would name a switch that does not exist. Refused."""
    ports = [port for switch in switches.values() for port in switch["ports"].values()] + list(ca_ports.values())
    for port in ports:
        # switches alone: a map names a CA at the far ends of its links but never in its own block (ibnetdiscover's man page)
        node = nodes.get(port["remote"]["guid"]) if port["remote"]["guid"] in switches else None
        if node is not None and node["description"] != port["remote"]["name"]:
            raise ValueError("%s is %r in its own block and %r at the far end of a link: the read is damaged" % (
                node["guid"], node["description"], port["remote"]["name"]))
