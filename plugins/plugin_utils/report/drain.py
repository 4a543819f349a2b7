# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hand the run's failing GPU nodes to the scheduler (pyramid_drain): which nodes, with which reason, by which
commands; and, where asked (pyramid_drain_resume), which nodes the pyramid took out before are back. The logic of the
gpufabric.pyramid.drain action, which runs the commands on the scheduler host.

A node is handed over when a check of its recorded a FAIL, an ERROR or a BLOCKED (what failed under it or beside it),
Layer 7 (the monitoring's, not the node's) and records of a host the play never read left out: its reason is the first
such record, lowest layer first. A node that is NO-GO only by what was not run (--check, a waived or unchecked row) is
not. The scheduler's state is read first: a node out of service for another reason (an admin's drain or cordon) is
left as it is, so nothing here overwrites, or later gives back, what someone else took out. Commands are argv lists,
one per group of nodes that share a reason (scontrol and kubectl take many nodes at once), never a shell line.
"""

from __future__ import annotations

import json
import re

from ..core.model import BLOCKED, ERROR, FAIL
from . import go_no_go as _report

HANDED_OVER = (FAIL, ERROR, BLOCKED)
TELEMETRY_LAYER = 7  # a Prometheus that does not answer is an ERROR on every device: the monitoring's fault, not theirs
REASON_PREFIX = "pyramid:"
REASON_WIDTH = 200  # Slurm keeps the reason whole; sinfo -R and scontrol show it on one line
TAINT = "pyramid.gpufabric/no-go"
ANNOTATION = "pyramid.gpufabric/reason"


def scheduler_name(host, named=None):
    """The node's name in the scheduler: pyramid_scheduler_node_name, else the inventory name's first label."""
    return named or host.split(".")[0]


def _one_line(text):
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


def state_command(mode):
    """The read that says which nodes the pyramid took out before."""
    return ["scontrol", "show", "node"] if mode == "slurm" else ["kubectl", "get", "nodes", "-o", "json"]


def slurm_nodes(text):
    """{node: {"out": drained, "ours": its reason is ours, "reason": text}} from `scontrol show node`.

    Its multi-line format (Slurm 20.11 to 25.11 in public captures): a block per node, `NodeName=` first, `State=`
    among the words of a line (IDLE+DRAIN, MIXED+DRAIN, DOWN*+DRAIN), the reason alone on its own `Reason=<text>
    [<user>@<time>]` line. A block without NodeName is refused (ValueError), never read as no node."""
    nodes, block = {}, []
    for line in text.splitlines() + [""]:
        if line.strip():
            block.append(line.strip())
            continue
        if not block:
            continue
        first = block[0]
        if not first.startswith("NodeName="):
            raise ValueError("scontrol show node: a block that does not start with NodeName=: %r" % first[:80])
        name = first.split()[0][len("NodeName="):]
        state = next((word[len("State="):] for line_ in block for word in line_.split() if word.startswith("State=")), "")
        reason = next((line_[len("Reason="):] for line_ in block if line_.startswith("Reason=")), "")
        drained = any(flag.startswith("DRAIN") for flag in state.upper().split("+"))
        nodes[name] = {"out": drained, "ours": drained and reason.startswith(REASON_PREFIX), "reason": reason}
        block = []
    return nodes


def kubernetes_nodes(text):
    """{node: {"out": cordoned or tainted by us, "ours": our taint on it, "reason": what took it out}} from
    `kubectl get nodes -o json` (a List of Nodes; cut, not JSON or not a list is refused with ValueError)."""
    document = json.loads(text)
    if not isinstance(document, dict) or document.get("kind") not in ("List", "NodeList") or not isinstance(document.get("items"), list):
        raise ValueError("kubectl get nodes -o json: not a list of nodes")
    nodes = {}
    for item in document["items"]:
        spec = item.get("spec") or {}
        ours = [taint.get("value") or "" for taint in spec.get("taints") or [] if taint.get("key") == TAINT]
        annotation = ((item.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION)
        nodes[item["metadata"]["name"]] = {"out": bool(spec.get("unschedulable")) or bool(ours), "ours": bool(ours),
                                           "reason": annotation or ("cordoned" if spec.get("unschedulable") else "")}
    return nodes


def scheduler_nodes(mode, text):
    return slurm_nodes(text) if mode == "slurm" else kubernetes_nodes(text)


def resume_commands(mode, back):
    """[(argv, [names], what)] that give the ``back`` nodes (scheduler names) to the scheduler again."""
    if not back:
        return []
    if mode == "slurm":
        return [(["scontrol", "update", "nodename=%s" % ",".join(back), "state=resume"], back, "resume")]
    return [(["kubectl", "taint", "nodes"] + back + ["%s-" % TAINT], back, "taint %s removed" % TAINT),
            (["kubectl", "annotate", "nodes"] + back + ["%s-" % ANNOTATION], back, "annotation %s removed" % ANNOTATION),
            (["kubectl", "uncordon"] + back, back, "uncordon")]


def too_many(found, nodes, fraction):
    """Why handing ``found`` nodes of ``nodes`` over is refused, or None: more than two nodes and more than
    ``fraction`` of the run points at the run or the fabric (a spine, a --tags choice, the controller), not at them."""
    if len(found) > 2 and len(found) > fraction * len(nodes):
        return ("%d of the run's %d GPU nodes have a finding, more than pyramid_drain_max_fraction (%g) of them: that is the "
                "run's or the fabric's fault (a spine, the launcher, a --tags choice), not each node's; nothing was handed over "
                "(raise pyramid_drain_max_fraction to hand them over anyway)" % (len(found), len(nodes), fraction))
    return None
