# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pod's scheduler as its clients print it: Slurm's `scontrol show node` and `sinfo`, Kubernetes' `kubectl get
nodes -o json`. What the hand-over to the scheduler (run/handover.py) reads before it changes anything, and what the
tests read after: each node's state and the reason someone gave for it.

These parsers say what the scheduler printed, never whose a drain is (the hand-over decides that from the reason).
An answer that is not a listing of nodes (the controller unreachable, a node Slurm does not know, a cut JSON) is
refused: a state not read is never "nothing out of service".
"""

from __future__ import annotations

import re

from ._common import fail
from ._registry import parser

# `Reason=<text> [<user>@<time>]`: Slurm appends who set the reason and when (slurmctld's node_mgr, 14.x to 25.x)
_REASON = re.compile(r"^(?P<text>.*?)(?: \[(?P<by>[^\]@\s]+)@(?P<at>[^\]\s]+)\])?$")
# A state word of scontrol (IDLE, DOWN, DRAIN, NOT_RESPONDING, POWERED_DOWN...), older releases' `*` suffix included
_SCONTROL_STATE = re.compile(r"^[A-Z][A-Z_]*\*?$")
# sinfo's %T: the long lowercase state with its suffixes (* not responding, ~ powered off, # powering up, ! pending
# power down, % powering down, $ maintenance, @ pending reboot, ^ reboot issued, - planned)
_SINFO_STATE = re.compile(r"^(?P<state>[a-z][a-z_]*(?:\+[a-z_]+)*)(?P<flags>[*~#!%$@^\-]*)$")
# What scontrol and sinfo print instead of a listing: their own errors, one line each
_SLURM_ERROR = re.compile(r"^(?:slurm_load_\w+(?: error)?: .+|Node \S+ not found|.*Unable to contact slurm controller.*)$")


def _slurm_error(line):
    if _SLURM_ERROR.match(line):
        fail("Slurm answered with an error, not its nodes: %r", line[:120])


def _reason(value):
    found = _REASON.match(value)
    return {"reason": found.group("text"), "reason_by": found.group("by"), "reason_at": found.group("at")}


@parser("slurm_scontrol_show_node",
        "scontrol show node [NODES]: each node's state words (IDLE+DRAIN, DOWN+NOT_RESPONDING) and the reason given",
        kind="text")
def _scontrol_show_node(text):
    nodes, block = {}, []
    for line in text.splitlines() + [""]:
        if line.strip():
            block.append(line.strip())
            continue
        if block:
            name, node = _scontrol_block(block)
            if name in nodes:
                fail("node %s listed twice", name)
            nodes[name] = node
        block = []
    return {"nodes": nodes}


def _scontrol_block(block):
    """(name, facts) of one node's block: NodeName= first, State= among the words of a line, Reason= alone on its line."""
    _slurm_error(block[0])
    if not block[0].startswith("NodeName="):
        fail("a block that does not start with NodeName= (cut, or not scontrol show node): %r", block[0][:80])
    name = block[0].split()[0][len("NodeName="):]
    states = [word[len("State="):] for line in block for word in line.split() if word.startswith("State=")]
    if len(states) != 1 or not states[0]:
        fail("node %s: %s State= (cut short?)", name, "no" if not states else "more than one")
    words = states[0].split("+")
    if not all(_SCONTROL_STATE.match(word) for word in words):
        fail("node %s: State=%s is not Slurm's state words", name, states[0][:60])
    not_responding = any(word.endswith("*") for word in words) or "NOT_RESPONDING" in words
    reasons = [line[len("Reason="):] for line in block if line.startswith("Reason=")]
    node = {"states": [word.rstrip("*") for word in words], "not_responding": not_responding}
    node.update(_reason(reasons[0]) if reasons else {"reason": "", "reason_by": None, "reason_at": None})
    return name, node


@parser("slurm_sinfo_nodes",
        "sinfo -N -h -o '%N %T %E': each node's state (drained, down*...) and its reason, one line per node and partition",
        kind="text")
def _sinfo_nodes(text):
    nodes = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        _slurm_error(line.strip())
        words = line.split(None, 2)
        if len(words) < 3:
            fail("not a line of sinfo -o '%%N %%T %%E' (node, state, reason): %r", line[:80])
        found = _SINFO_STATE.match(words[1])
        if not found or words[0] == "NODELIST":
            fail("not a node's state (a header, or another format?): %r", line[:80])
        # %E prints "none" for a node without a reason
        node = {"state": found.group("state"), "not_responding": "*" in found.group("flags"),
                "reason": "" if words[2].strip() == "none" else words[2].strip()}
        if nodes.get(words[0], node) != node:  # a node in two partitions is listed twice, the same each time
            fail("node %s listed twice with different states: %r", words[0], line[:80])
        nodes[words[0]] = node
    if not nodes:
        fail("no node listed")
    return {"nodes": nodes}


@parser("kubernetes_get_nodes_json",
        "kubectl get nodes -o json: each node's cordon (spec.unschedulable), taints and annotations",
        kind="json")
def _kubernetes_nodes(document):
    if not isinstance(document, dict) or document.get("kind") not in ("List", "NodeList") or not isinstance(document.get("items"), list):
        fail("not a list of nodes (kind List or NodeList with items)")
    nodes = {}
    for item in document["items"]:
        if item.get("kind", "Node") != "Node":
            fail("an item of kind %r in a list of nodes", item.get("kind"))
        spec = item.get("spec") or {}
        taints = [{"key": taint["key"], "value": taint.get("value") or "", "effect": taint["effect"]} for taint in spec.get("taints") or []]
        nodes[item["metadata"]["name"]] = {"unschedulable": bool(spec.get("unschedulable")), "taints": taints,
                                           "annotations": dict(item["metadata"].get("annotations") or {})}
    return {"nodes": nodes}
