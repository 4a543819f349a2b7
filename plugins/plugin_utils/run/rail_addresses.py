# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pod's rail address plan: each node's address on every rail, from its own list or the plan's template filled
with the number that ends its name, and pre-flight's check of it. The rail mesh, the incast, the plan and pre-flight
read it alike."""

from __future__ import annotations

try:
    import netaddr
except ImportError:  # a controller dependency (requirements.txt): said when the plan is made
    netaddr = None


def node_number(node):
    """The number that ends a node's inventory name (node-047: 47; gpu12-r3n5: 5), or None: the rail plan's {node}.
    Its name, not its place in gpu_nodes: taking a node out of the inventory renumbers no other (issue 71)."""
    digits = ""
    for char in reversed(str(node)):
        if not char.isdigit():
            break
        digits = char + digits
    return int(digits) if digits else None


def rail_addresses(node, expect):
    """A node's address on every rail: its own list (pyramid_rail_addresses), or the plan filled for the number that
    ends its name (node_number).

    (addresses, problem or None); every address is checked with netaddr.
    """
    rails = expect["pyramid_rails"]
    own = expect.get("pyramid_rail_addresses") or []
    if own:
        addresses = list(own)
        if len(addresses) != len(rails):
            return None, "pyramid_rail_addresses lists %d addresses for %d rails" % (len(addresses), len(rails))
    else:
        template, number = expect["pyramid_rail_address_plan"], node_number(node)
        if number is None:
            return None, ("no number ends the name %r, which pyramid_rail_address_plan's {node} reads: give the node its "
                          "own pyramid_rail_addresses" % str(node))
        try:
            addresses = [template.format(rail=rail, node=number, node_hi=number // 256, node_lo=number % 256)
                         for rail in range(len(rails))]
        except (KeyError, IndexError, ValueError) as exc:
            return None, "pyramid_rail_address_plan %r: %s (placeholders: rail, node, node_hi, node_lo)" % (template, exc)
    if netaddr is None:
        return None, "the netaddr Python package is not installed on the controller"
    for address in addresses:
        try:
            netaddr.IPAddress(address, flags=netaddr.INET_PTON)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            return None, "rail address %r is not an IP address (pyramid_rail_address_plan / pyramid_rail_addresses)" % address
    return addresses, None


def address_plan_problems(nodes, order, expect_of):
    """Pre-flight's check of the rail address plan, before any host is touched: every node's address on every
    rail (rail_addresses, by the number that ends its name), each an IP address and none given to two rails.
    ``expect_of(node)`` is the node's typed expectations; a node without the plan's expectations (no rail mesh among
    its checks) has none to check, nor has a pod of one node (``order``, the gpu_nodes group: no partner to ping).
    One "node: problem" per fault."""
    problems, owner = [], {}
    if len(order) < 2 and len(nodes) < 2:
        return problems
    for node in nodes:
        expect = expect_of(node)
        if "pyramid_rail_address_plan" not in expect or "pyramid_rails" not in expect:
            continue
        found, problem = rail_addresses(node, expect)
        if problem:
            problems.append("%s: %s" % (node, problem))
            continue
        for rail, address in zip(expect["pyramid_rails"], found):
            first = owner.setdefault(address, (node, rail))
            if first != (node, rail):
                problems.append("%s: rail %s address %s is also %s's rail %s (pyramid_rail_address_plan / "
                                "pyramid_rail_addresses)" % (node, rail, address, first[0], first[1]))
    return problems
