# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hand the run's failing GPU nodes to the scheduler (pyramid_drain), and give back (pyramid_drain_resume) the GO nodes
the pyramid took out before: which nodes, with which reason, by which commands, and every refusal, decided here; the
gpufabric.pyramid.drain action only reads its arguments and runs the commands on the scheduler host.

A node is handed over when a check of its recorded a FAIL, an ERROR or a BLOCKED (what failed under it or beside it),
Layer 7 (the monitoring's, not the node's) and records of a host the play never read left out: its reason is the first
such record, lowest layer first. A node that is NO-GO only by what was not run (--check, a waived or unchecked row) is
not. The scheduler's state is read first (parsing/scheduler.py): a node out of service for another reason (an admin's
drain, a DOWN node, a node Slurm cannot reach, a cordon) is left as it is, so nothing here overwrites, or later gives
back, what someone else took out. Commands are argv lists, one per group of nodes that share a reason (scontrol and
kubectl take many nodes at once), never a shell line.
"""

from __future__ import annotations

import json
import os
import re

from .. import parsing
from ..core.model import BLOCKED, ERROR, FAIL
from ..report import go_no_go as _report

HANDED_OVER = (FAIL, ERROR, BLOCKED)
TELEMETRY_LAYER = 7  # a Prometheus that does not answer is an ERROR on every device: the monitoring's fault, not theirs
REASON_PREFIX = "pyramid:"
REASON_WIDTH = 200  # Slurm keeps the reason whole; sinfo -R and scontrol show it on one line
TAINT = "pyramid.gpufabric/no-go"
ANNOTATION = "pyramid.gpufabric/reason"
SETTINGS = ("pyramid_drain", "pyramid_drain_resume", "pyramid_drain_max_fraction")
# Slurm states that take a node out of service for a reason of its own (slurm.h's node states and flags). Not UNKNOWN (a
# slurmd not registered yet) nor NOT_RESPONDING alone: Slurm 22.05 flags a node it has just resumed IDLE+NOT_RESPONDING
# until its next ping (captured), no one's decision; a node that stays unreachable is DOWN, and DOWN is here.
SLURM_OUT = frozenset(("DRAIN", "DOWN", "FAIL", "FAILING", "MAINT", "FUTURE", "POWERED_DOWN", "POWER_DOWN", "POWERING_DOWN",
                       "REBOOT_REQUESTED", "REBOOT_ISSUED", "INVALID_REG"))
STATE_COMMANDS = {"slurm": (["scontrol", "show", "node"], "slurm_scontrol_show_node"),
                  "kubernetes": (["kubectl", "get", "nodes", "-o", "json"], "kubernetes_get_nodes_json")}


def scheduler_name(host, named=None):
    """The node's name in the scheduler: pyramid_scheduler_node_name, else the inventory name's first label."""
    return named or host.split(".")[0]


def _one_line(text):
    # scontrol reads a double quote in reason= as one that closes the value and drops it (Slurm 22.05, captured)
    return re.sub(r"\s+", " ", str(text or "")).replace('"', "'").strip()


def reasons(report):
    """{GPU node: (reason, check)} for each node with a FAIL, ERROR or BLOCKED record, its first (lowest layer): the
    report's cause of the device (go_no_go.device_cause, cause_of), the same text as report.md's."""
    found = {}
    for host, info in sorted(report["hosts"].items()):
        if info.get("device") != "gpu_node":
            continue
        record = _report.first_record(info["checks"], HANDED_OVER,
                                      lambda record: record["layer"] < TELEMETRY_LAYER and not record.get("not_read"))
        if record is None:  # nothing found on it below Layer 7: NO-GO only by what was not run, or never read
            continue
        reason = "%s %s" % (REASON_PREFIX, _one_line(_report.cause_of(record)["text"]))
        found[host] = (reason[:REASON_WIDTH], record["check"])
    return found


def go_nodes(report):
    return sorted(host for host, info in report["hosts"].items() if info.get("device") == "gpu_node" and info["verdict"] == "GO")


def gpu_nodes(report):
    return sorted(host for host, info in report["hosts"].items() if info.get("device") == "gpu_node")


def _grouped(items):
    """[(key, [names])] in first-seen order: one command per key."""
    groups = {}
    for name, key in items:
        groups.setdefault(key, []).append(name)
    return list(groups.items())


def drain_commands(mode, found, names):
    """[(argv, [scheduler names], what)] that take the ``found`` nodes out of the scheduler."""
    if mode == "slurm":
        return [(["scontrol", "update", "nodename=%s" % ",".join(group), "state=drain", "reason=%s" % reason], group,
                 "drain (%s)" % reason) for reason, group in _grouped((names[host], found[host][0]) for host in sorted(found))]
    commands = []
    every = [names[host] for host in sorted(found)]
    if every:
        commands.append((["kubectl", "cordon"] + every, every, "cordon"))
    for check, group in _grouped((names[host], found[host][1]) for host in sorted(found)):
        commands.append((["kubectl", "taint", "nodes"] + group + ["%s=%s:NoSchedule" % (TAINT, check), "--overwrite"], group,
                         "taint %s=%s:NoSchedule" % (TAINT, check)))
    for reason, group in _grouped((names[host], found[host][0]) for host in sorted(found)):
        commands.append((["kubectl", "annotate", "nodes"] + group + ["%s=%s" % (ANNOTATION, reason), "--overwrite"], group,
                         "annotate (%s)" % reason))
    return commands


def resume_commands(mode, back):
    """[(argv, [names], what)] that give the ``back`` nodes (scheduler names) to the scheduler again."""
    if not back:
        return []
    if mode == "slurm":
        return [(["scontrol", "update", "nodename=%s" % ",".join(back), "state=resume"], back, "resume")]
    return [(["kubectl", "taint", "nodes"] + back + ["%s-" % TAINT], back, "taint %s removed" % TAINT),
            (["kubectl", "annotate", "nodes"] + back + ["%s-" % ANNOTATION], back, "annotation %s removed" % ANNOTATION),
            (["kubectl", "uncordon"] + back, back, "uncordon")]


def state_command(mode):
    """The read that says which nodes are out of service, and which of them the pyramid took out."""
    return list(STATE_COMMANDS[mode][0])


def scheduler_nodes(mode, text):
    """{node: {"out": out of service, "ours": taken out by the pyramid, "reason": why}} from the state command's
    output; parsing.ParseError where it is not a listing of nodes."""
    facts = parsing.parse(STATE_COMMANDS[mode][1], text)["nodes"]
    if mode == "slurm":
        return {name: {"out": bool(SLURM_OUT & set(node["states"])),
                       "ours": "DRAIN" in node["states"] and node["reason"].startswith(REASON_PREFIX), "reason": node["reason"]}
                for name, node in facts.items()}
    nodes = {}
    for name, node in facts.items():
        ours = any(taint["key"] == TAINT for taint in node["taints"])
        nodes[name] = {"out": node["unschedulable"] or ours, "ours": ours,
                       "reason": node["annotations"].get(ANNOTATION) or ("cordoned" if node["unschedulable"] else "")}
    return nodes


def too_many(found, nodes, fraction):
    """Why handing ``found`` nodes of ``nodes`` over is refused, or None: more than two nodes and more than
    ``fraction`` of the run points at the run or the fabric (a spine, a --tags choice, the controller), not at them."""
    if len(found) > 2 and len(found) > fraction * len(nodes):
        return ("%d of the run's %d GPU nodes have a finding, more than pyramid_drain_max_fraction (%g) of them: that is the "
                "run's or the fabric's fault (a spine, the launcher, a --tags choice), not each node's; nothing was handed over "
                "(raise pyramid_drain_max_fraction to hand them over anyway)" % (len(found), len(nodes), fraction))
    return None


def settings(typed, nodes):
    """(mode, resume, max fraction, {host: scheduler name}) from each GPU node's typed inventory settings, or why not:
    the settings must be the pod's (the same on every node) and the scheduler names unique."""
    modes = {tuple(typed[host][name] for name in SETTINGS) for host in nodes}
    if len(modes) > 1:
        return ("%s differ between GPU nodes (%s): set them once for the pod (group_vars/gpu_nodes)" % (
            ", ".join(SETTINGS), sorted(modes)))
    mode, resume, fraction = modes.pop() if modes else ("none", False, 0.5)
    names = {host: scheduler_name(host, typed[host]["pyramid_scheduler_node_name"]) for host in nodes}
    twice = sorted({name for name in names.values() if list(names.values()).count(name) > 1})
    if twice and mode != "none":
        return ("two GPU nodes have the same scheduler name (%s): set pyramid_scheduler_node_name on them; no node "
                "handed over" % ", ".join(twice))
    return mode, resume, fraction, names


def refusal(mode, scheduler, found, nodes, fraction):
    """Why nothing is handed over at all, or None: pyramid_drain none (a skip, not a failure: ("skip", why)), no host to
    run the scheduler's client on, or too many nodes at once (("fail", why))."""
    if mode == "none":
        return "skip", "pyramid_drain is none: no node handed to the scheduler"
    if not scheduler:
        return "fail", ("pyramid_drain: %s needs a host that runs %s: add one to the inventory group scheduler (or launcher)"
                        % (mode, "scontrol" if mode == "slurm" else "kubectl"))
    refused = too_many(found, nodes, fraction)
    return ("fail", refused) if refused else None


def decide(found, go, names, state, resume):
    """What happens to each node, from the scheduler's state: (drain {host: (reason, check)}, left {name: reason} out
    of service for another reason, unknown [names] the scheduler does not have, back [names] to give back). A GO node
    is given back only where pyramid_drain_resume asks and the pyramid's own drain or taint is on it."""
    drain, left, unknown = {}, {}, []
    for host in sorted(found):
        seen = state.get(names[host])
        if seen is None:
            unknown.append(names[host])
        elif seen["out"] and not seen["ours"]:
            left[names[host]] = seen["reason"]
        else:
            drain[host] = found[host]
    back = [names[host] for host in go if resume and host not in found and state.get(names[host], {}).get("ours")]
    return drain, left, unknown, back


def planned(mode, resume, found, names):
    """Check mode: (outcome, lines) of the commands a run would make; the state is not read (nodes out for another reason
    would be left)."""
    commands = drain_commands(mode, found, names)
    lines = ["[scheduler] would hand %d node(s) to %s (but none that is out of service for another reason)" % (len(found), mode)]
    lines += ["[scheduler] %s: %s" % (names[host], reason) for host, (reason, _check) in sorted(found.items())]
    lines += ["[scheduler] would run: %s" % " ".join(argv) for argv, _group, _what in commands]
    if resume:
        lines.append("[scheduler] would read `%s` and give back the GO nodes the pyramid took out before" % " ".join(state_command(mode)))
    outcome = {"mode": mode, "check_mode": True, "drained": {names[h]: r for h, (r, _c) in found.items()}, "left": {},
               "resumed": [], "commands": [argv for argv, _group, _what in commands], "done": [], "errors": []}
    return outcome, lines


def read_state(mode, scheduler, command):
    """(state, None), or (None, why) where the scheduler's answer is not a listing of its nodes: nothing is changed on
    a guess."""
    read = command(state_command(mode))
    if read.get("rc") == 0:
        try:
            return scheduler_nodes(mode, read.get("stdout", "")), None
        except parsing.ParseError as exc:
            read = dict(read, stderr="not read: %s" % exc)
    return None, "%s on %s: rc %s: %s; no node handed over or given back" % (" ".join(state_command(mode)), scheduler, read.get("rc"), said(read))


def hand_over(mode, resume, report, found, names, state, command):
    """Drain what is ours to drain, give back what is ours to give back, every command run even when one fails:
    (outcome, lines). ``command(argv)`` runs one command on the scheduler host: {"rc", "stdout", "stderr"}."""
    drain, left, unknown, back = decide(found, go_nodes(report), names, state, resume)
    commands = drain_commands(mode, drain, names) + resume_commands(mode, back)
    done, errors = [], ["%s: not a node of the scheduler (pyramid_scheduler_node_name?)" % name for name in unknown]
    for argv, group, what in commands:
        ran = command(argv)
        if ran.get("rc") == 0:
            done.append("%s %s" % (what, ",".join(group)))
        else:
            errors.append("%s failed (rc %s): %s" % (" ".join(argv), ran.get("rc"), said(ran)))
    outcome = {"mode": mode, "check_mode": False, "drained": {names[h]: r for h, (r, _c) in drain.items()}, "left": left,
               "resumed": back, "commands": [argv for argv, _group, _what in commands], "done": done, "errors": errors}
    lines = ["[scheduler] handed %d node(s) to %s, gave back %d" % (len(drain), mode, len(back))]
    lines += ["[scheduler] %s: %s" % (names[host], reason) for host, (reason, _check) in sorted(drain.items())]
    lines += ["[scheduler] %s left as it is, out of service for another reason: %s" % (name, why) for name, why in sorted(left.items())]
    lines += ["[scheduler] %s" % line for line in done + errors]
    return outcome, lines


def said(result):
    return (result.get("stderr") or result.get("msg") or result.get("stdout") or "").strip()[:400]


def load_report(run_dir):
    """The run's report.json and its GPU nodes; OSError, ValueError, KeyError... where it cannot be read."""
    with open(os.path.join(run_dir, "report.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    return report, gpu_nodes(report)


def save(run_dir, outcome):
    """drain.json beside report.json: what was handed over, by which commands, and what was done."""
    with open(os.path.join(run_dir, "drain.json"), "w", encoding="utf-8") as handle:
        json.dump(outcome, handle, indent=2, sort_keys=True)
        handle.write("\n")


def run(run_dir, report, nodes, chosen, scheduler, check_mode, command):
    """The whole hand-over once its settings are read (``chosen``: settings()'s answer): the task's result keys."""
    mode, resume, fraction, names = chosen
    found = {}
    if mode != "none":
        try:
            found = reasons(report)
        except (KeyError, TypeError) as exc:
            return {"failed": True, "msg": "report.json without what the hand-over reads: %s" % exc}
    refused = refusal(mode, scheduler, found, nodes, fraction)
    if refused:
        return {"skipped": True, "msg": refused[1]} if refused[0] == "skip" else {"failed": True, "msg": refused[1]}
    if check_mode:
        outcome, lines = planned(mode, resume, found, names)
        save(run_dir, outcome)
        return {"drain": outcome, "msg": lines[0][len("[scheduler] "):], "pyramid_scheduler_lines": lines}
    state, why = read_state(mode, scheduler, command)
    if state is None:  # what is out of service, and why, is not known: an ERROR of the hand-over, never a skip
        return {"failed": True, "msg": why}
    outcome, lines = hand_over(mode, resume, report, found, names, state, command)
    save(run_dir, outcome)
    failed = bool(outcome["errors"])
    return {"changed": bool(outcome["done"]), "failed": failed, "drain": outcome, "pyramid_scheduler_lines": lines,
            "msg": "; ".join(outcome["errors"]) if failed else lines[0][len("[scheduler] "):]}
