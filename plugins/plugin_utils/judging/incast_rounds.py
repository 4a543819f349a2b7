# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The induced incast's verdicts across its rounds (docs/incast.md; issues 66, 69): each node's and each leaf's, from the
targets' outcomes (judging/incast.py verdict) and the plan; and those of an incast that did not run (switched off, not
planned, no node through the layers below). run/incast_phases.py reads, loads and records what these return; every
status of the incast is decided here or in the judges.

A target's verdict is its incast's (target_verdict); a sender's is what that incast proves of it (sender_verdict:
its own DCQCN, or not measured where a leaf or the target failed first); a node in several incasts keeps the verdict
that says most of its own (merge); a sender another device left unproven names it (hold_by) and takes its verdict
from the round run again against a healthy target, where there was one (proven_again); a leaf's verdict is the worst
finding at the ports the incasts loaded (leaf_verdict); a node in no incast stands on its leaves' (not_in_incast).
"""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SKIP, verdict
from . import incast as _judge, unjudged as _unjudged

LEAF_EXPECTED = "under an incast at a target behind it: ECN marks, PFC only a blip at the end, no drops"
SENDER_EXPECTED = "its NIC handles CNPs (rp_cnp_handled rises)"
_ORDER = (FAIL, ERROR, SKIP, PASS)  # a leaf's worst finding first: its own fault, then a port not proven


# --- an incast that did not run --------------------------------------------------------------------------------------

def switched_off(expected, why):
    """The incast switched off (pyramid_incast false): SKIP, never PASS; it holds no device back, as telemetry without a
    Prometheus URL (the report's row says "not checked: <why>")."""
    return _unjudged.not_applicable(expected, "not checked: %s" % why, not_checked=why, command="(none)")


def nobody_climbed(expected, held_by):
    """No GPU node reached the incast: a device it would have loaded is not proven, and names the devices whose
    failures stopped every node below (held_by: judging/incast.py stopped_below), never an ERROR of its own (nothing of
    its own failed to read)."""
    said = "no GPU node reached layer 3 to load it (%s)" % (_judge.said_in_the_way(held_by[:8]) or "none in the run")
    return _unjudged.not_run(expected, "not measured: " + said, held_by=held_by, command="(none)")


def not_planned(expected, why):
    """The incast could not be planned (no leaf, no rail address, the subnet not read): ERROR, never a PASS."""
    return _unjudged.no_data(expected, "incast not planned: %s" % why, cause="No data: the incast could not be planned: %s" % why,
                             command="(none)")


# --- the targets and their senders ----------------------------------------------------------------------------------

def sender_verdict(sender, target, outcome, expect):
    """A sender's own verdict from ``target``'s incast: FAIL where its DCQCN did not react; PASS where it did (CNPs
    handled); ERROR where the incast could not be judged (naming, in held_by, the nodes whose run or read failed where
    they are others'); else not measured (the incast failed before any CNP reached the senders): never a PASS it did
    not show."""
    state = _judge.sender_state(sender, outcome)
    if state == "deaf":
        return verdict(FAIL, _judge.expected(expect), outcome["msg"], cause=_judge.CAUSES["dcqcn_rp"])
    if state in ("error", "error_not_own"):
        found = verdict(ERROR, _judge.expected(expect), outcome["msg"], cause="No data: %s" % outcome["msg"])
        if state == "error_not_own":  # not its run nor its read: another's (proven again where a target passed)
            found["held_by"] = _judge.standing_in_the_way({"target": target}, outcome)
        return found
    if state == "reacted":
        return verdict(PASS, SENDER_EXPECTED, "sent to %s's incast and handled its CNPs (%s%s)" % (
            target, outcome["status"], ": that miss is %s's or its leaf's" % target if outcome["status"] == FAIL else ""))
    return verdict(SKIP, SENDER_EXPECTED, "not measured: %s's incast failed before CNPs reached the senders (%s)" % (
        target, ", ".join(outcome["causes"])))


def judged(group, outcome, expects):
    """{node: verdict} of one incast: its target's (judging/incast.py target_verdict) and each sender's."""
    found = {group["target"]: _judge.target_verdict(outcome, expects[group["target"]])}
    for sender in group["senders"]:
        found[sender] = sender_verdict(sender, group["target"], outcome, expects[sender])
    return found


def _rank(found):
    """A node in several incasts of the planned rounds: its own finding first (FAIL, an ERROR of its own run or read), then
    a PASS, then what another device left unproven (an ERROR of another's, a SKIP: not measured there)."""
    if found["status"] == ERROR:
        return 3 if found.get("held_by") else 1
    return {FAIL: 0, PASS: 2}.get(found["status"], 4)


def merge(verdicts, judged_here):
    """Add one incast's verdicts: a node already judged (a sender in another round, a target that also sent) keeps the
    verdict that says more of its own (_rank)."""
    for node, found in judged_here.items():
        if node not in verdicts or _rank(found) < _rank(verdicts[node]):
            verdicts[node] = found


def hold_by(verdicts, outcomes, unplaced):
    """A sender an incast failed before it reached: its verdict names the devices that stood in its way (held_by, its
    cause), and why it was not proven again where it was not (the rounds run again replace it where it was).
    ``outcomes``: [(group, outcome)] of the planned rounds; ``unplaced``: {sender: why not proven again}."""
    for group, outcome in outcomes:
        for sender in group["senders"]:
            state, found = _judge.sender_state(sender, outcome), verdicts[sender]
            if state == "error_not_own" and found["status"] == ERROR and sender in unplaced and "not proven again" not in found["cause"]:
                found.update(actual="%s; not proven again: %s" % (found["actual"], unplaced[sender]),
                             cause="%s; not proven again: %s" % (found["cause"], unplaced[sender]))
            if state != "not_measured" or found["status"] != SKIP or "held_by" in found:
                continue
            held_by = _judge.standing_in_the_way(group, outcome)
            said = "%s's incast failed at %s before any CNP reached its senders%s" % (
                group["target"], _judge.said_in_the_way(held_by),
                "; not proven again: %s" % unplaced[sender] if sender in unplaced else "")
            # the actual is what the device's cause shows (report/go_no_go.py cause_of): it names them too
            verdicts[sender].update(held_by=held_by, actual="not measured: " + said, cause="Not this node: " + said)


def proven_again(verdicts, outcomes, again):
    """The rounds run again: each sender proven again takes its verdict from there, saying which incast it was proven
    again at and why; the target and the healthy senders beside it keep theirs, unless that incast found a FAIL of their
    own (a NIC whose DCQCN did not react). ``again``: [(group, outcome, judged())] of the rounds run again."""
    first = {sender: (group, outcome) for group, outcome in outcomes for sender in group["senders"]
             if _judge.sender_state(sender, outcome) in _judge.SPOILED}
    for group, outcome, judged_again in again:
        for node, found in judged_again.items():
            if node in group.get("again_for", {}):
                spoiled_group, spoiled = first[node]
                held_by = _judge.standing_in_the_way(spoiled_group, spoiled)
                found = dict(found, actual="proven again at %s's incast (%s's, which it sent to first, failed at %s): %s" % (
                    group["target"], spoiled_group["target"], _judge.said_in_the_way(held_by), found["actual"]))
                if found["status"] == SKIP:  # not measured again: the second target's incast stood in its way too
                    held_by = held_by + _judge.standing_in_the_way(group, outcome)
                    said = "the incasts it sent to failed at %s before any CNP reached it" % _judge.said_in_the_way(held_by)
                    found.update(held_by=held_by, actual="not measured: " + said, cause="Not this node: " + said)
                verdicts[node] = found
            elif found["status"] == FAIL and verdicts.get(node, {}).get("status") != FAIL:
                verdicts[node] = dict(found, actual="in an incast run again at %s: %s" % (group["target"], found["actual"]))


# --- the senders to prove again (the next runs wanted: run/incast_plan.py plan_again places them in rounds) -----------

_STATES = ("target FAIL", "target ERROR", "deaf", "error", "target PASS", "reacted", "error_not_own", "not_measured")


def _not_passed(node, node_leaves, leaf_status):
    """The leaves a node sits behind that did not pass an incast ([] where every one of them passed)."""
    mine = node_leaves.get(node) or []
    return [leaf for leaf in mine if leaf_status.get(leaf) != PASS] if mine else ["no leaf of the incast's rails"]


def wanted_again(first, nodes, node_leaves, leaf_status):
    """Who is to be proven again, and against whom, from the planned rounds' outcomes (``first``: [(group, outcome)];
    ``leaf_status``: {leaf: its worst finding}, leaf_statuses): the senders an incast failed before it reached them
    (judging/incast.py sender_state SPOILED: its target's leaf or its target failed, or another node's run or read left
    it unjudged), each against a target whose incast passed on leaves that passed, beside healthy nodes (their incast
    passed, or they were in none, and their leaves passed). A sender behind a leaf that did not pass is not loaded again
    (that leaf holds it back). {"pending": [senders, in node order], "first_target": {sender: the target it sent to
    first}, "unplaced": {sender: why not}, "targets": [the groups whose incast passed on leaves that passed],
    "healthy": [nodes to send beside them]}."""
    state, first_target = {}, {}
    for group, outcome in first:  # a node in several incasts: what says most of its own (as the verdict merges them)
        for node, found in [(group["target"], "target " + outcome["status"])] + [
                (sender, _judge.sender_state(sender, outcome)) for sender in group["senders"]]:
            if node not in state or _STATES.index(found) < _STATES.index(state[node]):
                state[node] = found
            if found in _judge.SPOILED:
                first_target.setdefault(node, group["target"])
    unplaced, pending = {}, []
    for sender in [n for n in nodes if state.get(n) in _judge.SPOILED]:
        behind = _not_passed(sender, node_leaves, leaf_status)
        if behind:
            unplaced[sender] = "it sits behind %s, which did not pass an incast" % ", ".join(behind)
        else:
            pending.append(sender)
    targets = [group for group, outcome in first if outcome["status"] == PASS
               and all(leaf_status.get(p["leaf"]) == PASS for p in group["ports"])]
    chosen = {group["target"] for group in targets}
    healthy = [n for n in nodes if state.get(n) in (None, "reacted", "target PASS") and n not in chosen
               and not _not_passed(n, node_leaves, leaf_status)]
    return {"pending": pending, "first_target": first_target, "unplaced": unplaced, "targets": targets, "healthy": healthy}


# --- the leaves ---------------------------------------------------------------------------------------------------

def leaf_findings(outcomes, first=None):
    """{leaf: [leaf_finding]} of every port the incasts faced; the outcomes after the ``first`` (the rounds run again)
    give a leaf their FAILs only (an incast run again that could not be judged does not unprove what the first one
    proved)."""
    by_leaf = {}
    for position, (group, outcome) in enumerate(outcomes):
        for entry in outcome.get("ports") or [dict(port, cause=None, msg=None) for port in group["ports"]]:
            found = leaf_finding(group, outcome, entry)
            if first is None or position < first or found[0] == FAIL:
                by_leaf.setdefault(entry["leaf"], []).append(found)
    return by_leaf


def leaf_finding(group, outcome, entry):
    """(status, actual, cause) of one leaf port under one target's incast (``outcome``: judging/incast.py's verdict,
    ``entry``: one of its ports, with that port's own cause and figures)."""
    where = "%s port %s (target %s)" % (entry["leaf"], entry["port"], group["target"])
    if outcome["status"] == ERROR:
        return ERROR, "%s: not proven: %s" % (where, outcome["msg"]), "No data: the incast that would prove this leaf could not be judged"
    if entry.get("cause") in _judge.LEAF_CAUSES:
        return FAIL, entry["msg"], _judge.CAUSES[entry["cause"]]
    if entry.get("cause") == "no_load":
        return ERROR, "%s: not proven: %s" % (where, entry["msg"]), _judge.CAUSES["no_load"]
    said = entry.get("msg") or where
    if entry.get("cause"):  # the NICs' DCQCN: the leaf marked ECN and held PFC
        said += " (the miss is the NICs': %s)" % entry["cause"]
    return PASS, said, None


def leaf_statuses(outcomes):
    """{leaf: its worst finding's status} of the planned rounds' incasts (run/incast_plan.py plan_again's leaf_status)."""
    return {leaf: sorted((item[0] for item in found), key=_ORDER.index)[0] for leaf, found in leaf_findings(outcomes).items()}


def leaf_verdict(switch, findings):
    """The switch's incast_leaf verdict from its findings (leaf_finding, any number of targets' incasts): the worst
    status, every finding said; not applicable where it faced no target (a spine, a leaf with no target behind it)."""
    if not findings:
        return _unjudged.not_applicable(LEAF_EXPECTED, "not applicable: no incast target behind %s (the incast loads the leaf ports "
                                                       "that face its targets)" % switch, command="(none)")
    findings = sorted(findings, key=lambda item: _ORDER.index(item[0]))
    status = findings[0][0]
    causes = [cause for item_status, _actual, cause in findings if item_status == status and cause]
    return verdict(status, LEAF_EXPECTED, "; ".join(actual for _status, actual, _cause in findings), cause="; ".join(dict.fromkeys(causes)) or None)


def not_in_incast(host, plan, leaf_status):
    """A node in no incast group: its row stands on the incasts that proved its leaves, so it is not applicable only
    where each of its leaves passed one; a leaf that failed, could not be judged or was not in the run leaves the row not
    proven (SKIP, never GO). ``leaf_status``: {switch of the run: its incast_leaf status}."""
    if host not in plan["nodes"]:
        return _unjudged.not_run("layers 0-3 passed", "not run: %s did not pass the layers below" % host, command="(none)")
    leaves = (plan.get("node_leaves") or {}).get(host) or []
    unproven = ["%s %s" % (leaf, leaf_status[leaf]) if leaf in leaf_status else "%s not in this run" % leaf
                for leaf in leaves if leaf not in leaf_status or leaf_status[leaf] != PASS]
    if unproven:
        return _unjudged.not_run("its leaves proven by an incast that passed",
                                 "not proven: its leaves' incasts did not pass (%s)" % ", ".join(unproven), command="(none)")
    return _unjudged.not_applicable("an incast on its leaves", "not applicable: its leaves are proven by the targets' incasts (one target "
                                    "per leaf%s)" % (": %s passed" % ", ".join(leaves) if leaves else ""), command="(none)")


def verdicts(first, again, plan, hosts, switches, expects):
    """({node: verdict}, {switch: verdict}) of a RoCE incast's rounds: ``first`` = [(group, outcome)] of the planned
    rounds, ``again`` = [(group, outcome)] of the rounds run again (run/incast_plan.py plan_again), ``expects``: {node:
    its expectations}. A leaf already proven by its target's incast takes only a FAIL of its own from the rounds run
    again."""
    found = {}
    for group, outcome in first:
        merge(found, judged(group, outcome, expects))
    hold_by(found, first, plan.get("again_unplaced") or {})
    proven_again(found, first, [(group, outcome, judged(group, outcome, expects)) for group, outcome in again])
    by_leaf = leaf_findings(first + again, len(first))
    leaves = {switch: leaf_verdict(switch, by_leaf.get(switch)) for switch in switches}
    leaf_status = {switch: leaf["status"] for switch, leaf in leaves.items()}
    for host in hosts:
        if host not in found:
            found[host] = not_in_incast(host, plan, leaf_status)
    return found, leaves
