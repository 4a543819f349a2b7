# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rail mesh's rounds (Layer 2's pings, Layer 4's ib_write_bw): which nodes test which on every rail.

Every round is a matching: a node has at most one partner, and a pair runs both ways on every rail
at once (each node is server for its partner and client of its partner, on distinct ports). Two
rounds that share no pair give every node two partners, whatever the pod's size; a node's rail
that misses with both is that node's, a miss with one partner only is the path between the two.
Only when that cannot tell (a pod of two, a partner that missed everywhere) does a retest round
pair the suspect with a known-good partner on that rail. Who is to blame for a miss, and which retests
that takes, is judging/rail_rounds.py's: it decides from the judged runs, this module only plans them.

A run is one direction on one rail: {"server", "client", "rail"} (judged: "gbps" or None, "status", "actual").
"""

from __future__ import annotations


def matching(nodes, avoid=frozenset(), first=None):
    """Pairs (a, b) of distinct nodes, none in ``avoid`` (frozensets), ``first`` matched first.

    Node i is offered node i + n/2 and onwards, so partners are far apart in the inventory (other
    scalable units: their traffic crosses the spines).
    """
    count = len(nodes)
    order = ([first] if first in nodes else []) + [node for node in nodes if node != first]
    taken, pairs = set(), []
    for node in order:
        if node in taken:
            continue
        start = nodes.index(node)
        for step in range(1, count):
            other = nodes[(start + count // 2 + step - 1) % count]
            if other != node and other not in taken and frozenset((node, other)) not in avoid:
                pairs.append((node, other))
                taken.update((node, other))
                break
    return pairs


def plan_rounds(nodes):
    """The two rounds of the mesh: lists of pairs. A pod of two or three has fewer distinct pairs."""
    if len(nodes) < 2:
        return []
    first = matching(nodes)
    left_out = [node for node in nodes if not any(node in pair for pair in first)]
    second = matching(nodes, {frozenset(pair) for pair in first}, left_out[0] if left_out else None)
    return [first] + ([second] if second else [])


def runs_of(pairs, rails):
    """Every directed run of a round: each pair both ways on every rail."""
    return [{"server": server, "client": client, "rail": rail}
            for a, b in pairs for server, client in ((a, b), (b, a)) for rail in rails]
