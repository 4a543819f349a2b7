# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fabric plan from the fabric itself (issue 71): what each switch's LLDP neighbours, BGP sessions and BGP routes
show, as the inventory's per-switch variables (pyramid_switch_ports, pyramid_bgp_neighbors, pyramid_ecmp_prefixes,
pyramid_ecmp_paths), for the operator to review before it becomes the plan Layers 1 and 2 judge against.

The reads are the catalog's own sources (sw_lldp, sw_bgp, sw_routes), with every platform's ways and parsers, collected
as a layer collects them: what discovery reads is what the checks will read. The files are written by
run/discover_files.py."""

from __future__ import annotations

import ipaddress
import re

from . import engine as _engine
from ..core.model import SourceFailure

# Discovery is no kind of check (it judges nothing: it writes a plan for review), so no check of the catalog can say
# what it reads; it names the three switch sources whose facts it turns into a plan, as a parser names its format
# (the one exception tests/static/test_no_check_ids_in_code.py allows in run/ and report/)
LLDP, BGP, ROUTES = "sw_lldp", "sw_bgp", "sw_routes"
SOURCES = (LLDP, BGP, ROUTES)


def read(catalog, expect, collect):
    """(facts by source, failures) of one switch: ``collect(planned)`` is the layer's collector (answers, unreachable).
    A source that gave no facts is a failure naming its command and why; an unreachable switch fails every source."""
    collected, unreachable = collect(_engine.reads(SOURCES, catalog, expect))
    if unreachable:
        return {}, ["unreachable: %s" % unreachable]
    facts = _engine.parse_sources(SOURCES, catalog, collected, expect)
    return facts, ["%s: %s" % (value.command, value.reason) for value in facts.values() if isinstance(value, SourceFailure)]


def port_order(name):
    """Ethernet2/1 before Ethernet10/1, swp9 before swp10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.findall(r"\d+|\D+", str(name))]


# --- the inventory's names -----------------------------------------------------------------------------------------

def name_index(inventory):
    """{name: {hosts}} of every inventory host by its name and its ``ansible_host``, and {short name: {hosts}} by the
    first label of either (an LLDP system name is often an FQDN; an address has no short name)."""
    exact, short = {}, {}
    for host, address in inventory.items():
        for key in dict.fromkeys(str(k) for k in (host, address) if k):
            exact.setdefault(key, set()).add(host)
            if not _is_address(key):
                short.setdefault(key.split(".", maxsplit=1)[0].lower(), set()).add(host)
    return exact, short


def match(system, inventory, index):
    """(inventory host, how) for an LLDP system name, or (None, why none): the host of that name, else the one whose
    ansible_host it is, else the one whose short name it shares; two hosts by one name are none."""
    if system in inventory:
        return system, None
    exact, short = index
    for table, key, how in ((exact, system, "its ansible_host"), (short, str(system).split(".", maxsplit=1)[0].lower(), "its short name")):
        hosts = sorted(table.get(key, ()))
        if len(hosts) == 1:
            # the cabling check (judging/switch.py) matches LLDP's name to the peer's name or its short name alone
            caveat = "" if how == "its short name" else (
                ": the cabling check compares LLDP's name with the peer's, so the host's LLDP system name must be %s" % hosts[0])
            return hosts[0], "LLDP names it %s (%s)%s" % (system, how, caveat)
        if hosts:
            return None, "%s could be %s: name it in the inventory alone" % (system, " or ".join(hosts))
    return None, "no inventory host by that name, ansible_host or short name"


def _is_address(text):
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


# --- facts -> plan -----------------------------------------------------------------------------------------------

def plan(reads, inventory, switches, leaves=()):
    """{switch: plan} from each read switch's facts (``reads``: {switch: {source: facts | SourceFailure}}).

    inventory: {host: ansible_host or None} of every inventory host; switches: the inventory's switches (a peer among
    them is a fabric link); leaves: the rail leaves (their BGP routes are the ECMP prefixes; none given: the switches
    with a host port). A plan: {"vars": the host_vars, "notes": {("port" | "prefix", key): comment}, "said": [lines
    for the file's head]}."""
    index = name_index(inventory)
    plans = {switch: _ports(facts.get(LLDP), inventory, index, set(switches)) for switch, facts in reads.items()}
    _bgp_and_addresses(plans, reads)
    for switch, found in plans.items():
        ports = found["vars"].get("pyramid_switch_ports")
        is_leaf = switch in leaves if leaves else any(entry["role"] == "host" for entry in ports or [])
        if is_leaf and ports is not None:
            _ecmp(found, reads[switch].get(ROUTES), sum(1 for entry in ports if entry["role"] == "fabric"))
        for name, value in reads[switch].items():
            if isinstance(value, SourceFailure):
                found["said"].append("NOT READ (%s): %s: %s - its variables are left out" % (name, value.command, value.reason))
    return plans


def _ports(lldp, inventory, index, switches):
    found = {"vars": {}, "notes": {}, "said": []}
    if not isinstance(lldp, dict):
        return found
    ports, silent = [], []
    for port in sorted(lldp["neighbors"], key=port_order):
        seen = [dict(neighbor, match=match(neighbor["system"], inventory, index)) for neighbor in lldp["neighbors"][port]]
        if not seen:
            silent.append(port)  # NVUE lists every port, a silent one with no neighbour
            continue
        known = [neighbor for neighbor in seen if neighbor["match"][0]] or seen
        chosen = known[0]
        peer, how = chosen["match"]
        entry = {"port": port, "peer": peer or chosen["system"], "peer_port": chosen["port"],
                 "role": "fabric" if peer in switches else "host"}
        ports.append({key: value for key, value in entry.items() if value})
        notes = [how] if how else []
        if not peer:
            notes[:] = ["NOT IN THE INVENTORY (%s): add the host or leave the port out" % how if chosen["system"] else
                        "LLDP gives no system name: name the peer"]
        notes += ["LLDP shows %s %s here too" % (other["system"], other["port"]) for other in seen if other is not chosen]
        if notes:
            found["notes"][("port", port)] = "; ".join(notes)
    found["vars"]["pyramid_switch_ports"] = ports
    if silent:
        found["said"].append("no LLDP neighbour on %s (left out: add those cabled to the pod)" % ", ".join(silent))
    return found


def _link_keys(address):
    """The point-to-point subnets an address may be one end of: its /31, and its /30 where it is a host of it (an
    unnumbered session's interface name, or an IPv6 address, pairs with nothing)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return []
    if ip.version != 4:
        return []
    keys = [ipaddress.ip_network("%s/31" % ip, strict=False)]
    wide = ipaddress.ip_network("%s/30" % ip, strict=False)
    if ip not in (wide.network_address, wide.broadcast_address):
        keys.append(wide)
    return keys


def _bgp_and_addresses(plans, reads):
    """Each switch's BGP neighbours (address, remote AS), each named by the read switch whose own neighbour is the other
    end of the link (the two addresses of one /31 or /30), and the one uplink to that switch given this switch's address."""
    neighbours = {switch: facts[BGP]["neighbors"] for switch, facts in reads.items() if isinstance(facts.get(BGP), dict)}
    ends = {}  # subnet -> [(switch, its neighbour's address)]
    for switch, seen in neighbours.items():
        for address in seen:
            for key in _link_keys(address):
                ends.setdefault(key, []).append((switch, address))
    for switch, mine in neighbours.items():
        listed = []
        for address in sorted(mine, key=_address_order):
            entry = {"address": address}
            if mine[address].get("remote_as") is not None:
                entry["remote_as"] = mine[address]["remote_as"]
            far = _far_end(switch, address, ends)
            if len(far) == 1:
                other, own_address, length = far.pop()
                entry["name"] = other
                _address_port(plans[switch], other, "%s/%d" % (own_address, length))
            listed.append(entry)
        plans[switch]["vars"]["pyramid_bgp_neighbors"] = listed


def _far_end(switch, address, ends):
    """{(switch, its neighbour's address, prefix length)} at the other end of ``switch``'s session to ``address``: the
    other address of its /31, else of its /30 where neither address is one end of a /31 pair (neighbouring /31s share a
    /30: an unread switch's /31 is never taken for a /30)."""
    keys = _link_keys(address)
    far = {(other, theirs, 31) for other, theirs in ends.get(keys[0], ()) if other != switch and theirs != address} if keys else set()
    if far or len(keys) < 2:
        return far
    return {(other, theirs, 30) for other, theirs in ends.get(keys[1], ())
            if other != switch and theirs != address and not _paired(other, theirs, ends)}


def _paired(switch, address, ends):
    return any(other != switch and theirs != address for other, theirs in ends.get(_link_keys(address)[0], ()))


def _address_port(found, peer, address):
    uplinks = [entry for entry in found["vars"].get("pyramid_switch_ports") or [] if entry["peer"] == peer]
    if len(uplinks) == 1:
        uplinks[0]["ip"] = address


def _address_order(address):
    try:
        return (0, int(ipaddress.ip_address(address)), "")
    except ValueError:
        return (1, 0, address)


def _ecmp(found, routes, uplinks):
    """A leaf's BGP routes as its ECMP prefixes, one path per uplink; a route with fewer next hops now is said."""
    if not isinstance(routes, dict):
        return
    prefixes = sorted(routes["routes"], key=lambda prefix: ipaddress.ip_network(prefix, strict=False))
    found["vars"]["pyramid_ecmp_prefixes"] = prefixes
    found["vars"]["pyramid_ecmp_paths"] = uplinks or 1
    for prefix in prefixes:
        hops = len(routes["routes"][prefix]["next_hops"])
        if hops != uplinks:
            found["notes"][("prefix", prefix)] = ("%d next hop%s now for %d uplinks: a path missing, or a route that is "
                                                  "not a leaf's prefix (leave it out)" % (hops, "" if hops == 1 else "s", uplinks))
