# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which switch tiers a layer's traffic crossed: what the run loaded, said, never assumed (issue 72).

In a rail-optimized pod each scalable unit has one leaf per rail, and every node's rail k is cabled to its unit's rail-k
leaf. Traffic between two nodes on the same rail therefore turns around in that leaf when both are in one unit, and
crosses the spine layer only between units. The tests use the same rail at both ends (Layer 2's pings and Layer 4's
ib_write_bw rail by rail; NCCL's rings and all-to-all rail-matched, GPU k to GPU k), so a layer's traffic loaded the
spines exactly where its runs joined nodes of different units. Pure: from the pod's units and a layer's runs.
"""

from __future__ import annotations

import itertools

PATTERNS = ("pairs", "ring", "all_to_all")


def units_of(order, per_unit, named=None):
    """{node: scalable unit}: ``named`` ({node: unit}, pyramid_scalable_unit) where given, else su<k> by the node's place in
    ``order`` (the pod's GPU nodes in inventory order), ``per_unit`` (pyramid_scalable_unit_nodes) nodes to a unit: the
    rule the straggler hunt places nodes by (run/fabric_runs.py scalable_units)."""
    named = named or {}
    return {node: str(named[node]) if named.get(node) else "su%d" % (position // per_unit + 1)
            for position, node in enumerate(order)}


def _links(group, pattern):
    """The node pairs a run across ``group`` sends between: a ring's neighbours in rank order (closing the ring), or every
    pair (an all-to-all; a pair's own run)."""
    nodes = list(group)
    if len(nodes) < 2:
        return []
    if pattern == "ring" and len(nodes) > 2:
        return list(zip(nodes, nodes[1:] + nodes[:1]))
    return list(itertools.combinations(nodes, 2))


def crossed(units, runs, pattern="pairs"):
    """What a layer's ``runs`` (groups of nodes that ran together, as the planners give them: Layer 2/4's pairs, Layer 5's
    pairs, scale-up steps and all-to-all) loaded: {"tiers": [], ["leaf"] or ["leaf", "spine"], "leaves": units whose leaves
    carried traffic between nodes, "spine_between": [[unit, unit], ...], "text": the sentence a report or plan says}.
    ``pattern``: "pairs" or "all_to_all" (every pair of a group), "ring" (a ring all-reduce: neighbours in order). A node
    missing from ``units`` is a unit of its own: its traffic is said to cross the spines, never assumed to stay on a leaf."""
    if pattern not in PATTERNS:
        raise ValueError("pattern is one of %s, not %r" % (", ".join(PATTERNS), pattern))
    leaves, between = set(), set()
    for run in runs:
        for first, second in _links(run, pattern):
            one, other = units.get(first, "%s (no unit)" % first), units.get(second, "%s (no unit)" % second)
            if one == other:
                leaves.add(one)
            else:
                between.add(tuple(sorted((one, other))))
    tiers = (["leaf"] if leaves or between else []) + (["spine"] if between else [])
    return {"tiers": tiers, "leaves": sorted(leaves), "spine_between": [list(pair) for pair in sorted(between)],
            "text": _text(leaves, between, len(set(units.values())))}


def _text(leaves, between, unit_count):
    if not leaves and not between:
        return "no traffic between nodes: no switch tier loaded"
    if not between:
        why = ("the pod has one scalable unit" if unit_count <= 1
               else "no run joined nodes of different scalable units")
        return "leaf only (%s's rail leaves): the spine layer carried no test traffic (%s)" % (", ".join(sorted(leaves)), why)
    return "leaves and spines: the spine layer carried traffic between %s" % ", ".join(
        "%s and %s" % pair for pair in sorted(between))
