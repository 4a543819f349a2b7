# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Before the first load: the scheduler asked whether jobs run on the nodes the run loads (issue 71).

Layers 3 to 6 load every rail and GPU at line rate: a job on a loaded node is slowed, and its traffic spoils the
figures. The scheduler the hand-over uses (pyramid_drain: slurm) is asked, with the read the hand-over makes (its
state command and parser, run/handover.py), which of those nodes hold a job (Slurm's ALLOCATED, MIXED or COMPLETING);
the run stops naming them, unless pyramid_load_guard is false. A scheduler that cannot say stops the run too: nothing
is loaded on a guess. Kubernetes' node list does not show its pods, so a Kubernetes pod is not asked (said so).
"""

from __future__ import annotations

from . import handover as _handover
from .. import parsing

# Slurm's state words of a node running a job (its base state, or a flag while the job ends)
BUSY = frozenset(("ALLOCATED", "MIXED", "COMPLETING"))
SETTINGS = ("pyramid_drain", "pyramid_load_guard", "pyramid_scheduler_node_name")
OUTSIDE_PARTNERS = 2  # nodes outside a --limit the meshes and NCCL rounds may load (run/plan.py outside_partners)


def to_load(nodes, pod):
    """The nodes the run loads: its own, then the first nodes of gpu_nodes outside it that may be loaded as partners."""
    outside = [node for node in pod if node not in nodes][:OUTSIDE_PARTNERS]
    return list(nodes) + outside


def ask(mode, guard, nodes, names, command):
    """{"failed", "msg", "busy": {node: state}}: whether the run may load ``nodes`` ({node: name in the scheduler}:
    ``names``). command(argv) -> {"rc", "stdout", "stderr"}, run on the scheduler host."""
    if not nodes:
        return {"failed": False, "busy": {}, "msg": "no GPU node to load"}
    if not guard:
        return {"failed": False, "busy": {}, "msg": "not asked: pyramid_load_guard is false"}
    if mode != "slurm":
        why = ("pyramid_drain is none: no scheduler named" if mode == "none" else
               "Kubernetes' node list does not show the pods on a node")
        return {"failed": False, "busy": {}, "msg": "not asked: %s; the nodes must be idle (docs/scheduler.md)" % why}
    argv = _handover.state_command(mode)
    read = command(argv)
    try:
        if read.get("rc") != 0:
            raise parsing.ParseError("rc %s: %s" % (read.get("rc"), _handover.said(read)))
        facts = parsing.parse(_handover.STATE_COMMANDS[mode][1], read.get("stdout", ""))["nodes"]
    except parsing.ParseError as exc:
        return {"failed": True, "busy": {}, "msg": "%s could not say whether jobs run on the nodes to load (%s): nothing "
                                                   "loaded; pyramid_load_guard: false loads them anyway" % (" ".join(argv), exc)}
    busy = {node: "+".join(facts[names[node]]["states"]) for node in nodes
            if names[node] in facts and BUSY & set(facts[names[node]]["states"])}
    unknown = [node for node in nodes if names[node] not in facts]
    said = " (not in Slurm: %s)" % ", ".join(unknown) if unknown else ""
    if busy:
        return {"failed": True, "busy": busy, "msg": "jobs run on %s: Layers 3 to 6 would load them at line rate; drain "
                                                     "them first (or pyramid_load_guard: false to load them anyway)%s" % (
                                                         ", ".join("%s (%s)" % item for item in sorted(busy.items())), said)}
    return {"failed": False, "busy": {}, "msg": "no job on the %d nodes to load%s" % (len(nodes), said)}
