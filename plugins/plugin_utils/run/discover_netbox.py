# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fabric plan from a NetBox export (playbooks/discover.yml -e pyramid_netbox_export=..., issue 71): the JSON NetBox's
REST API gives for /api/dcim/cables/ (and, for the uplinks' addresses, /api/ipam/ip-addresses/), saved by the operator.

A cable is one object with both ends, so both ends of a switch-to-switch link always agree here; what a swapped pair
in NetBox shows instead is an uplink whose two addresses are not one /31 (or /30): named, its BGP neighbour left out.
Cables in NetBox's two forms: ``a_terminations``/``b_terminations`` lists of {object_type, object} (NetBox 3.3 and
later), ``termination_a_type``/``termination_a`` (2.x to 3.2). Only cables between two devices of the inventory, one of
them a switch, are the plan's; the others (patch panels, power, consoles, devices the pod does not hold) are counted."""

from __future__ import annotations

import ipaddress
import json
import os

from . import discover as _discover, discover_files as _files

CABLES, ADDRESSES = "cables.json", "ip-addresses.json"
INTERFACE = "dcim.interface"


def from_export(path, inventory, switches, leaves=()):
    """(plans, problems, said) from ``path``: a directory holding cables.json (and ip-addresses.json), or the cables'
    JSON file alone. Any problem of the export: no plan at all, each problem naming its file and entry."""
    directory = path if os.path.isdir(path) else None
    cables_path = os.path.join(path, CABLES) if directory else path
    cables, problems = _load(cables_path, "cables")
    addresses, more = _load(os.path.join(directory, ADDRESSES), "ip-addresses") if directory and os.path.exists(
        os.path.join(directory, ADDRESSES)) else ([], [])
    problems += more
    if problems:
        return {}, problems, []
    index, switches = _discover.name_index(inventory), set(switches)
    plans, ignored = {}, {}
    for cable in cables:
        status = cable.get("status")
        if (status.get("value") if isinstance(status, dict) else status) == "decommissioning":
            ignored.setdefault("decommissioning", []).append(cable.get("id"))
            continue
        ends = _ends(cable, cables_path, problems)
        if ends is None:
            ignored.setdefault("not one interface to one interface", []).append(cable.get("id"))
            continue
        named = [(_discover.match(device, inventory, index)[0], port, device) for device, port in ends]
        if any(host is None for host, _port, _device in named) or not any(host in switches for host, _p, _d in named):
            why = "no switch at either end" if all(host for host, _p, _d in named) else "a device not in the inventory"
            ignored.setdefault(why, []).append(cable.get("id"))
            continue
        _add(plans, named, switches, cable.get("id"), cables_path, problems)
    by_interface = _addresses(addresses, inventory, index, os.path.join(path, ADDRESSES), problems)
    if problems:
        return {}, problems, []
    said = ["%d cable%s left out (%s): %s" % (len(ids), "" if len(ids) == 1 else "s", why, _ids(ids))
            for why, ids in sorted(ignored.items())]
    said += _uplink_addresses(plans, by_interface, switches)
    _files.finish(plans, leaves)
    return plans, [], said


def _load(path, what):
    """The results of one API answer: its page ({"count", "next", "results"}), or the results list alone."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            data = json.load(handle)
    except (OSError, UnicodeDecodeError) as exc:
        return [], ["%s: not read: %s" % (path, exc)]
    except ValueError as exc:
        return [], ["%s: not JSON: %s" % (path, exc)]
    results = data.get("results") if isinstance(data, dict) else data
    if not isinstance(results, list) or not all(isinstance(item, dict) for item in results):
        return [], ["%s: neither NetBox's page of %s ({\"count\", \"next\", \"results\": [...]}) nor its results list" % (path, what)]
    if isinstance(data, dict) and isinstance(data.get("count"), int) and data["count"] > len(results):
        return [], ["%s: holds %d of the %d %s NetBox counted (one page of several: export with ?limit=0, or join every "
                    "page's results into one list)" % (path, len(results), data["count"], what)]
    return results, []


def _ends(cable, path, problems):
    """((device, interface) of end A, of end B), None where the cable is not one interface to one interface (counted
    by the caller as not the plan's), or a problem naming the file and the cable where its form is neither of NetBox's."""
    cable_id = cable.get("id", "?")
    if "a_terminations" in cable or "b_terminations" in cable:
        sides = [[(term.get("object_type"), term.get("object")) for term in cable.get(key) or [] if isinstance(term, dict)]
                 for key in ("a_terminations", "b_terminations")]
        raw = [cable.get(key) for key in ("a_terminations", "b_terminations")]
        if not all(isinstance(side, list) and len(side) == len(got) for side, got in zip(raw, sides)):
            problems.append("%s: cable %s: a_terminations and b_terminations are not lists of {object_type, object}" % (path, cable_id))
            return None
    elif "termination_a" in cable or "termination_b" in cable:
        sides = [[(cable.get("termination_%s_type" % end), cable.get("termination_%s" % end))] for end in "ab"]
    else:
        problems.append("%s: cable %s: no a_terminations/b_terminations (NetBox 3.3 and later) nor termination_a/termination_b "
                        "(NetBox 2.x to 3.2): not a NetBox cable" % (path, cable_id))
        return None
    if any(len(side) != 1 or side[0][0] != INTERFACE for side in sides):
        return None  # a patch panel's port, a console or power cable, a breakout of several interfaces: no plan link
    ends = []
    for (_kind, obj) in (side[0] for side in sides):
        device = (obj or {}).get("device") if isinstance(obj, dict) else None
        name = device.get("name") if isinstance(device, dict) else None
        if not name or not obj.get("name"):
            problems.append("%s: cable %s: an interface end without its device's name and its own name (%r)" % (path, cable_id, obj))
            return None
        ends.append((name, obj["name"]))
    return ends


def _add(plans, named, switches, cable_id, path, problems):
    for mine, theirs in ((named[0], named[1]), (named[1], named[0])):
        switch, port, _device = mine
        if switch not in switches:
            continue
        peer, peer_port, device = theirs
        found = plans.setdefault(switch, {"vars": {"pyramid_switch_ports": []}, "notes": {}, "said": []})
        if any(entry["port"] == port for entry in found["vars"]["pyramid_switch_ports"]):
            problems.append("%s: cable %s: %s %s is on another cable too" % (path, cable_id, switch, port))
            continue
        found["vars"]["pyramid_switch_ports"].append(
            {"port": port, "peer": peer, "peer_port": peer_port, "role": "fabric" if peer in switches else "host"})
        if device != peer:
            found["notes"][("port", port)] = "NetBox names it %s (cable %s)" % (device, cable_id)


def _addresses(addresses, inventory, index, path, problems):
    """{(host, interface): ip_interface} of every address NetBox assigns to an interface of an inventory device."""
    found = {}
    for entry in addresses:
        obj = entry.get("assigned_object") or entry.get("interface")  # NetBox 2.9 and later; 2.8 and before
        if entry.get("assigned_object_type", INTERFACE) != INTERFACE or not isinstance(obj, dict):
            continue
        device = (obj.get("device") or {}).get("name") if isinstance(obj.get("device"), dict) else None
        host = _discover.match(device, inventory, index)[0] if device else None
        if host is None:
            continue
        try:
            found[(host, obj.get("name"))] = ipaddress.ip_interface(entry.get("address"))
        except ValueError:
            problems.append("%s: ip-address %s: address %r is not an address with its prefix length" % (
                path, entry.get("id", "?"), entry.get("address")))
    return found


def _uplink_addresses(plans, by_interface, switches):
    """Each uplink's address, and a BGP neighbour at its far end where the two ends' addresses are one subnet."""
    said = []
    for switch, found in plans.items():
        neighbours = []
        for entry in found["vars"]["pyramid_switch_ports"]:
            mine = by_interface.get((switch, entry["port"]))
            if entry["role"] != "fabric" or mine is None:
                continue
            entry["ip"] = str(mine)
            theirs = by_interface.get((entry["peer"], entry.get("peer_port")))
            if theirs is None:
                continue
            if theirs.network != mine.network or theirs.ip == mine.ip:
                line = ("%s %s %s and its cable's far end %s %s %s are not one link's two addresses: a swapped cable or a "
                        "wrong address in NetBox (its BGP neighbour left out)"
                        % (switch, entry["port"], mine, entry["peer"], entry["peer_port"], theirs))
                found["notes"][("port", entry["port"])] = "NOT ONE LINK: %s %s is %s" % (entry["peer"], entry["peer_port"], theirs)
                said.append(line)
                continue
            neighbours.append({"address": str(theirs.ip), "name": entry["peer"]})
        if neighbours or any(entry.get("ip") for entry in found["vars"]["pyramid_switch_ports"]):
            found["vars"]["pyramid_bgp_neighbors"] = sorted(neighbours, key=lambda n: int(ipaddress.ip_address(n["address"])))
            found["said"].append("remote_as of each BGP neighbour: not in NetBox's cables and addresses (add it where the "
                                 "check should hold the peer's AS)")
    return said


def _ids(ids):
    shown = ", ".join(str(cable_id) for cable_id in ids[:10])
    return shown + (" and %d more" % (len(ids) - 10) if len(ids) > 10 else "")
