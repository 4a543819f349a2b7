# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 3 under load: the induced incast's plan (docs/incast.md).

Seed 000, Layer 3: "From a few servers, fire a ib_write_bw to one server simultaneously" and watch the
target's leaf. One target per leaf proves every leaf's ECN; a target on every rail at once covers the
rail leaves of its scalable unit together. Groups (one target, K senders) share no node within a round,
so a pod of N nodes holds N // (K + 1) incasts at once: as many leaves as the pod has scalable units
fit in one round whenever a leaf serves more than K nodes, whatever the pod's size.
"""

from __future__ import annotations

from ..judging import incast_rounds as _rounds


class IncastPlanError(ValueError):
    """The incast cannot be planned as asked (said in words the report shows)."""


def leaf_ports(switch_ports, rail_netdevs):
    """{leaf: {node: (port, rail index)}} from each switch's pyramid_switch_ports (role host: the peer
    node and its rail netdev), for the rails the incast runs on (rail_netdevs: netdev -> rail index)."""
    leaves = {}
    for switch, ports in sorted(switch_ports.items()):
        for entry in ports or []:
            if entry.get("role", "host") != "host" or entry.get("peer_port") not in rail_netdevs:
                continue
            leaves.setdefault(switch, {})[entry["peer"]] = (entry["port"], rail_netdevs[entry["peer_port"]])
    return leaves


def choose_targets(nodes, leaves):
    """One target per leaf, greedily: the first node (inventory order) of a leaf not yet covered;
    a target covers every leaf it sits on (its other rails' leaves when the incast runs on every rail)."""
    order = {node: i for i, node in enumerate(nodes)}
    covered, targets = set(), []
    for leaf in sorted(leaves):
        if leaf in covered:
            continue
        members = sorted((n for n in leaves[leaf] if n in order), key=order.get)
        if not members:
            continue  # no planned node on this leaf (all of them failed a lower layer): said by the caller
        target = next((n for n in members if n not in targets), members[0])
        targets.append(target)
        covered.update(name for name, attached in leaves.items() if target in attached)
    return targets


def _senders(target, free, leaves, count, order):
    """K senders for a target: nodes on other leaves first (their traffic crosses the spines and meets at
    the target's leaf, as a training job's does), nearest after the target in inventory order."""
    near = {n for attached in leaves.values() if target in attached for n in attached}
    rank = len(order)
    return sorted(free, key=lambda n: (n in near, (order[n] - order[target]) % rank))[:count]


def plan(nodes, leaves, senders=8, rate_gbps=40.0, port_gbps=400.0):
    """The incast rounds: [[{target, senders, ports: [{leaf, port, rail}]}]], and notes for the report.

    Refuses (IncastPlanError) a load that cannot congest the port: K senders at rate_gbps each must
    exceed the target port's line rate, or no queue builds and nothing is proven."""
    notes = []
    if len(nodes) < 2:
        raise IncastPlanError("an incast needs a target and at least one sender; %d node(s) planned" % len(nodes))
    if senders > len(nodes) - 1:
        notes.append("%d senders asked, the pod has %d other nodes: %d senders" % (senders, len(nodes) - 1, len(nodes) - 1))
        senders = len(nodes) - 1
    if senders * rate_gbps <= port_gbps:
        raise IncastPlanError("%d senders x %g Gb/s = %g Gb/s does not exceed the target port's %g Gb/s: no congestion "
                              "to prove ECN with (raise pyramid_incast_senders or pyramid_incast_rate_gbps)" % (
                                  senders, rate_gbps, senders * rate_gbps, port_gbps))
    order = {node: i for i, node in enumerate(nodes)}
    pending = choose_targets(nodes, leaves)
    rounds = []
    while pending:
        busy, groups = set(pending), []  # a later round's target never sends in this one: its counters stay its own
        for target in list(pending):
            free = [n for n in nodes if n not in busy]
            if len(free) < senders:
                break
            chosen = _senders(target, free, leaves, senders, order)
            busy.update(chosen)
            groups.append({"target": target, "senders": chosen,
                           "ports": [{"leaf": leaf, "port": attached[target][0], "rail": attached[target][1]}
                                     for leaf, attached in sorted(leaves.items()) if target in attached]})
            pending.remove(target)
        if not groups:  # cannot happen while senders <= len(nodes) - 1, kept so the loop always ends
            raise IncastPlanError("no incast fits in a round")
        rounds.append(groups)
    return {"rounds": rounds, "senders": senders, "notes": notes}


# --- a second round for the senders another device's failure left unproven (issue 66) --------------------------

AGAIN_ROUNDS_MAX = 4  # as the rail mesh's retests (judging/rail_rounds.py plan_retests): each sender is placed once


def _fillers(target, free, node_leaves, count, order):
    """Up to ``count`` healthy nodes to send beside the senders proven again: nodes on other leaves first, nearest after
    the target in inventory order (as _senders)."""
    near = {n for n in free if set(node_leaves.get(n) or ()) & set(node_leaves.get(target) or ())}
    rank = len(order)
    return sorted(free, key=lambda n: (n in near, (order[n] - order[target]) % rank))[:count]


def plan_again(first, nodes, node_leaves, leaf_status, senders, rate_gbps, port_gbps, limit_rounds=AGAIN_ROUNDS_MAX):
    """Rounds that prove again the senders an incast failed before it reached them (judging/incast_rounds.py
    wanted_again: who, against which targets, beside which healthy nodes), as the rail mesh retests a suspect with a
    known-good partner: each against a target whose incast passed on leaves that passed, beside healthy nodes up to
    ``senders``, so that the load congests the port as the first did.

    first: [(group, outcome)] of the planned rounds; leaf_status: {leaf: its worst finding}. Returns {"rounds":
    [[{target, senders, ports, again_for: {sender: the first target}}]], "unplaced": {sender: why}}."""
    order = {node: i for i, node in enumerate(nodes)}
    wanted = _rounds.wanted_again(first, nodes, node_leaves, leaf_status)
    unplaced, pending, targets, healthy = dict(wanted["unplaced"]), list(wanted["pending"]), wanted["targets"], wanted["healthy"]
    first_target, chosen_targets = wanted["first_target"], {group["target"] for group in wanted["targets"]}
    if not targets:
        for sender in pending:
            unplaced[sender] = "no incast passed on leaves that passed: no healthy target to prove it again"
        return {"rounds": [], "unplaced": unplaced}
    rounds = []
    while pending and len(rounds) < limit_rounds:
        busy, groups = set(chosen_targets), []
        for group in targets:
            take = [s for s in pending if s not in busy][:senders]
            if not take:
                break
            fill = _fillers(group["target"], [n for n in healthy if n not in busy], node_leaves, senders - len(take), order)
            loaded = take + fill
            if len(loaded) * rate_gbps <= port_gbps:
                if not groups:  # nothing else took a node this round: the pod has too few healthy nodes for any of them
                    for sender in pending:
                        unplaced[sender] = ("too few healthy nodes to congest a target's port beside it (%d x %g Gb/s <= %g Gb/s)" % (
                            len(loaded), rate_gbps, port_gbps))
                    pending = []
                break  # the healthy nodes are taken by this round's other incasts: the next round
            busy.update(loaded)
            groups.append({"target": group["target"], "senders": loaded, "ports": group["ports"],
                           "again_for": {sender: first_target[sender] for sender in take}})
            pending = [s for s in pending if s not in take]
        if not groups:
            break
        rounds.append(groups)
    for sender in pending:
        unplaced[sender] = "no healthy target was free in %d rounds" % limit_rounds
    return {"rounds": rounds, "unplaced": unplaced}
