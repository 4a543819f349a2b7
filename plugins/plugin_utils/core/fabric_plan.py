# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fabric plan checked as a whole at pre-flight, before any host is touched (issue 71).

Each switch's variables are valid on their own (core/expectations.py); what no single switch can say is whether the
plan holds together: both ends of a link name each other, every peer is a host of the inventory, every GPU node of the
run has one planned port per rail, a BGP neighbour sits at the far end of a planned uplink, and the ECMP paths a leaf
expects are the uplinks it has. A plan that fails one of these would read as a device's fault at Layer 1 or 2 (a
cabling FAIL on a well-cabled port, a node whose rails read SKIP), an hour into a real pod's run.
"""

from __future__ import annotations

import ipaddress


def problems(switches, nodes, expect_of, inventory_hosts, every_leaf_in_run, leaves=None):
    """One message per incoherence of the plan among ``switches`` (the run's) and ``nodes`` (the run's GPU nodes).

    expect_of(host): its typed expectations (pyramid_switch_ports, pyramid_bgp_neighbors, pyramid_ecmp_prefixes,
    pyramid_ecmp_paths, pyramid_rails); inventory_hosts: every host of the inventory (a peer outside ``--limit`` is
    still a peer); every_leaf_in_run: whether the run reads every leaf (only then is a node's missing rail port the
    plan's, not the limit's); leaves: the rail leaves (their ECMP paths are their uplinks; a spine's route to a leaf
    has one path whatever its ports), every switch where not given."""
    ports = {switch: list(expect_of(switch).get("pyramid_switch_ports") or []) for switch in switches}
    found = []
    found += _unknown_peers(ports, inventory_hosts)
    found += _ends_disagree(ports)
    host_leaves = [switch for switch, entries in ports.items() if any(e.get("role", "host") == "host" for e in entries)]
    rails = max((len(expect_of(node).get("pyramid_rails") or []) for node in nodes), default=0)
    # a plan of a few leaves (a partial inventory, a lab) says nothing of the rails it does not cover: only a run
    # with every leaf, at least one a rail, holds each node to one planned port per rail
    if every_leaf_in_run and host_leaves and len(host_leaves) >= rails:
        found += _rails_unplanned(ports, nodes, expect_of)
    for switch in switches:
        found += _uplinks_and_routes(switch, expect_of(switch), ports[switch], leaves is None or switch in leaves)
    return found


def _unknown_peers(ports, inventory_hosts):
    known = set(inventory_hosts)
    return ["%s %s: its peer %s is not a host of the inventory (a typo in pyramid_switch_ports, or a device left out of "
            "the inventory)" % (switch, entry["port"], entry["peer"])
            for switch, entries in sorted(ports.items()) for entry in entries
            if entry.get("peer") and entry["peer"] not in known]


def _ends_disagree(ports):
    """A link between two switches of the run, as each end's plan has it: the far end's entry for peer_port must name
    this switch and this port back."""
    found = []
    for switch, entries in sorted(ports.items()):
        for entry in entries:
            peer, peer_port = entry.get("peer"), entry.get("peer_port")
            if peer not in ports or not peer_port:
                continue  # a host's port, or a switch outside the run (--limit): nothing to compare with
            far = next((other for other in ports[peer] if other["port"] == peer_port), None)
            if far is None:
                found.append("%s %s -> %s %s, but %s's plan has no port %s: the two ends of a link disagree"
                             % (switch, entry["port"], peer, peer_port, peer, peer_port))
            elif (far.get("peer"), far.get("peer_port")) != (switch, entry["port"]):
                found.append("%s %s -> %s %s, but %s %s -> %s %s: the two ends of a link disagree (a swapped pair in the "
                             "cabling plan)" % (switch, entry["port"], peer, peer_port, peer, peer_port,
                                                far.get("peer") or "nothing", far.get("peer_port") or ""))
    return found


def _rails_unplanned(ports, nodes, expect_of):
    """Each GPU node of the run: one planned host port per rail (pyramid_rails), each of its rail ports once."""
    found = []
    by_node = {}
    for switch, entries in ports.items():
        for entry in entries:
            if entry.get("role", "host") == "host" and entry.get("peer"):
                by_node.setdefault(entry["peer"], []).append((switch, entry))
    for node in nodes:
        rails = list(expect_of(node).get("pyramid_rails") or [])
        planned = sorted(by_node.get(node, []), key=lambda item: (item[0], item[1]["port"]))
        if not planned:
            found.append("%s: no switch port of pyramid_switch_ports faces it: its %d rails are not in the cabling plan "
                         "(Layers 1 and 2 could not judge its cables)" % (node, len(rails)))
            continue
        if len(planned) != len(rails):
            found.append("%s: %d planned switch ports (%s) for its %d rails (pyramid_rails)" % (
                node, len(planned), ", ".join("%s %s" % (switch, entry["port"]) for switch, entry in planned), len(rails)))
        seen = {}
        for switch, entry in planned:
            if entry.get("peer_port"):
                seen.setdefault(entry["peer_port"], []).append("%s %s" % (switch, entry["port"]))
        found += ["%s %s: planned on %s (one rail port, one switch port)" % (node, port, " and ".join(where))
                  for port, where in sorted(seen.items()) if len(where) > 1]
    return found


def _uplinks_and_routes(switch, expect, entries, leaf):
    """A leaf's BGP neighbours at the far end of its planned uplinks, and its ECMP paths one per uplink."""
    found = []
    uplinks = [entry for entry in entries if entry.get("role") == "fabric"]
    networks = []
    for entry in uplinks:
        try:
            networks.append(ipaddress.ip_interface(entry["ip"]).network if entry.get("ip") else None)
        except ValueError:
            found.append("%s %s: ip %r is not an address with its prefix length (10.200.0.1/31)" % (switch, entry["port"], entry["ip"]))
    if uplinks and all(networks) and len(networks) == len(uplinks):
        for neighbor in expect.get("pyramid_bgp_neighbors") or []:
            try:
                address = ipaddress.ip_address(neighbor["address"])
            except ValueError:
                continue  # refused by its own variable's check
            if not any(address in network for network in networks):
                found.append("%s: BGP neighbour %s is at the far end of none of its planned uplinks (%s)" % (
                    switch, neighbor["address"], ", ".join("%s %s" % (e["port"], e["ip"]) for e in uplinks)))
    if leaf and uplinks and expect.get("pyramid_ecmp_prefixes") and expect.get("pyramid_ecmp_paths") not in (None, len(uplinks)):
        found.append("%s: pyramid_ecmp_paths is %s but the plan gives it %d uplinks (role fabric): each uplink is one "
                     "ECMP path; set pyramid_ecmp_paths: %d" % (switch, expect["pyramid_ecmp_paths"], len(uplinks), len(uplinks)))
    return found
