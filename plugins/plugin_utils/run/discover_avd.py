# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fabric plan from an Arista AVD fabric's structured configs (playbooks/discover.yml -e
pyramid_avd_structured_config=DIR, issue 71): the <hostname>.yml files arista.avd's eos_designs writes (its
intended/structured_configs/), one per switch, each with its ``ethernet_interfaces`` (name, peer, peer_interface,
peer_type, ip_address) and ``router_bgp`` (as, peer_groups, neighbors, neighbor_interfaces).

Each switch's file says its own end of every link, so a swapped pair (one end's file naming another port than the
far end's) stays as written for pre-flight to name. AVD 4 and later writes lists of dicts with their ``name`` (a
neighbour's ``ip_address``); earlier AVD wrote dicts keyed by the interface's name (the neighbour's address): both read.
"""

from __future__ import annotations

import ipaddress
import os

import yaml

from . import discover as _discover, discover_files as _files


def from_structured_configs(directory, inventory, switches, leaves=()):
    """(plans, problems, said) from the directory of AVD's <hostname>.yml files. Only the inventory's switches' files
    and their links to devices of the inventory are the plan's; the rest is counted. Any problem: no plan at all."""
    try:
        names = sorted(name for name in os.listdir(directory) if name.endswith((".yml", ".yaml")))
    except OSError as exc:
        return {}, ["%s: not read: %s" % (directory, exc)], []
    index, switches = _discover.name_index(inventory), set(switches)
    plans, problems, said, others, bgp = {}, [], [], [], {}
    for name in names:
        path = os.path.join(directory, name)
        config = _load(path, problems)
        if config is None:
            continue
        switch = _discover.match(str(config.get("hostname") or os.path.splitext(name)[0]), inventory, index)[0]
        if switch not in switches:
            others.append(name)
            continue
        plans[switch] = _ports(config, path, inventory, index, switches, problems)
        bgp[switch] = _neighbours(config, path, problems)
    if not names:
        problems.append("%s: no <hostname>.yml file of AVD's structured configs in it" % directory)
    if problems:
        return {}, problems, []
    if others:
        said.append("%d file%s of devices that are not switches of the inventory left out: %s" % (
            len(others), "" if len(others) == 1 else "s", ", ".join(others[:10]) + (" and more" if len(others) > 10 else "")))
    missing = sorted(switches - set(plans))
    if missing:
        said.append("no structured config for %s: their plan is only the far ends of the others' links" % ", ".join(missing))
    for switch, neighbours in bgp.items():
        _bgp(plans[switch], neighbours, inventory, index)
    _files.far_ends(plans, switches)
    _files.finish(plans, leaves)
    said += ["%s: %s" % (switch, line) for switch in sorted(plans) for line in plans[switch]["said"]]
    return plans, [], said


def _load(path, problems):
    try:
        with open(path, encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append("%s: not read: %s" % (path, exc))
        return None
    except yaml.YAMLError as exc:
        problems.append("%s: not YAML: %s" % (path, " ".join(str(exc).split())))
        return None
    if not isinstance(config, dict):
        problems.append("%s: not an AVD structured config (a mapping with hostname, ethernet_interfaces, router_bgp)" % path)
        return None
    return config


def _entries(value, key, path, what, problems):
    """AVD 4's list of dicts, each with its ``key``, or earlier AVD's dict keyed by it: [(its key, the dict)]."""
    if value is None:
        return []
    if isinstance(value, dict):
        value = [dict(item or {}, **{key: name}) if isinstance(item, dict) or item is None else item for name, item in value.items()]
    if not isinstance(value, list):
        problems.append("%s: %s is neither a list of entries with their %s nor a mapping by it" % (path, what, key))
        return []
    found = []
    for position, item in enumerate(value, start=1):
        if not isinstance(item, dict) or not item.get(key):
            problems.append("%s: %s entry %d has no %s (%r)" % (path, what, position, key, item))
            continue
        found.append((str(item[key]), item))
    return found


def _ports(config, path, inventory, index, switches, problems):
    found = {"vars": {"pyramid_switch_ports": []}, "notes": {}, "said": []}
    outside, unused = [], 0
    for port, item in _entries(config.get("ethernet_interfaces"), "name", path, "ethernet_interfaces", problems):
        if not item.get("peer") or "." in port:
            unused += 1  # no cable in the design (or a subinterface of a cabled port)
            continue
        peer, how = _discover.match(str(item["peer"]), inventory, index)
        if peer is None:
            outside.append("%s (%s)" % (port, item["peer"]))
            continue
        entry = {"port": port, "peer": peer, "peer_port": str(item.get("peer_interface") or ""),
                 "role": "fabric" if peer in switches else "host"}
        entry = {key: value for key, value in entry.items() if value}
        if item.get("ip_address") and entry["role"] == "fabric":
            try:
                entry["ip"] = str(ipaddress.ip_interface(item["ip_address"]))
            except ValueError:
                problems.append("%s: ethernet_interfaces %s: ip_address %r is not an address with its prefix length" % (
                    path, port, item["ip_address"]))
        found["vars"]["pyramid_switch_ports"].append(entry)
        if how:
            found["notes"][("port", port)] = how.replace("LLDP names it", "AVD names it", 1)
    if outside:
        found["said"].append("%d link%s to devices not in the inventory left out: %s" % (
            len(outside), "" if len(outside) == 1 else "s", ", ".join(outside)))
    return found


def _neighbours(config, path, problems):
    """[(address or None, interface or None, remote AS, peer, peer group)] of router_bgp's neighbours and interface
    neighbours; a neighbour shut down in the design (AVD's undeployed devices) is not one to hold Established."""
    bgp = config.get("router_bgp") or {}
    if not isinstance(bgp, dict):
        problems.append("%s: router_bgp is not a mapping" % path)
        return []
    groups = dict(_entries(bgp.get("peer_groups"), "name", path, "router_bgp.peer_groups", problems))
    found = []
    for key, what in (("ip_address", "neighbors"), ("name", "neighbor_interfaces")):
        for name, item in _entries(bgp.get(what), key, path, "router_bgp.%s" % what, problems):
            if item.get("shutdown") is True:
                continue
            remote = item.get("remote_as", (groups.get(item.get("peer_group")) or {}).get("remote_as"))
            asn = _asn(remote)
            if remote is not None and asn is None:
                problems.append("%s: router_bgp.%s %s: remote_as %r is no AS number" % (path, what, name, remote))
            found.append((name if key == "ip_address" else None, name if key == "name" else None, asn, item.get("peer"),
                          item.get("peer_group")))
    return found


def _asn(value):
    """AVD writes an AS as a string ('65101', or asdot '1.10'): its number, None where it is none."""
    text = str(value) if value is not None else ""
    high, _dot, low = text.partition(".")
    try:
        number = int(high) * 65536 + int(low) if _dot else int(text)
    except ValueError:
        return None
    return number if 1 <= number <= 4294967295 else None


def _bgp(found, neighbours, inventory, index):
    """The underlay's neighbours: those at the far end of one of this switch's planned uplinks; the others (an EVPN
    overlay's loopbacks, an MLAG pair's iBGP, an unnumbered interface neighbour) said and left out."""
    uplinks = {}
    for entry in found["vars"]["pyramid_switch_ports"]:
        if entry.get("ip"):
            uplinks[ipaddress.ip_interface(entry["ip"]).network] = entry
    listed, left = [], []
    for address, interface, asn, peer, group in neighbours:
        try:
            ip = ipaddress.ip_address(address) if address else None
        except ValueError:
            ip = None
        link = next((entry for network, entry in uplinks.items() if ip is not None and ip in network), None)
        if link is None:
            left.append("%s%s" % (address or "interface %s" % interface, " (%s)" % group if group else ""))
            continue
        entry = {"address": str(ip)}
        if asn is not None:
            entry["remote_as"] = asn
        named = _discover.match(str(peer), inventory, index)[0] if peer else None
        entry["name"] = named or link["peer"]
        listed.append(entry)
    if listed or uplinks:
        found["vars"]["pyramid_bgp_neighbors"] = sorted(listed, key=lambda n: int(ipaddress.ip_address(n["address"])))
    if left:
        found["said"].append("BGP neighbours on none of its planned uplinks left out: %s" % ", ".join(left))
