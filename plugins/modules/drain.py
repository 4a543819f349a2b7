#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/drain.py (its decisions: plugins/plugin_utils/run/handover.py);
# this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: drain
short_description: Hand the run's failing GPU nodes to Slurm or Kubernetes, each with its first cause
version_added: 0.4.0
description:
  - "Reads the run's C(report.json) and takes out of the scheduler each GPU node with a C(FAIL), C(ERROR) or
    C(BLOCKED) record below Layer 7, its reason the first such record (lowest layer) - C(pyramid: L0 gpudirect FAIL:
    <cause>). A node that is NO-GO only by what was not run (check mode, an unchecked or waived row, a host the play
    never read) is not handed over."
  - The scheduler's state is read first (C(scontrol show node), C(kubectl get nodes -o json), each through its
    parser) - a node already out of service for another reason (an admin's drain, a node DOWN or DOWN* not responding, FAIL,
    MAINT, a cordon without the pyramid's taint) is left as it is and said so; a state that cannot be read (a controller
    that does not answer, an error, a cut answer) changes nothing and fails the task, naming the command. More than two
    nodes and more than C(pyramid_drain_max_fraction) (0.5) of the run's GPU nodes with a finding is refused (the
    run's or the fabric's fault) and fails the task.
  - Every command is run even when one fails; the failures fail the task at the end, each named.
  - C(pyramid_drain=slurm) - C(scontrol update nodename=<nodes> state=drain reason="<reason>"), one command per
    reason. C(pyramid_drain=kubernetes) - C(kubectl cordon), C(kubectl taint nodes ... pyramid.gpufabric/no-go=<check>:NoSchedule
    --overwrite) and the reason as the annotation C(pyramid.gpufabric/reason). C(none), the default, does nothing.
  - "With C(pyramid_drain_resume=true), each GO node the pyramid took out before is given back - Slurm nodes drained
    with a reason that starts with C(pyramid:) (read from C(scontrol show node)), Kubernetes nodes with the taint
    C(pyramid.gpufabric/no-go) (read from C(kubectl get nodes -o json)) - and no other. A state that cannot be read
    resumes nothing and fails the task."
  - The settings are the GPU nodes' inventory variables (the same on every node; else the task fails). Node names are
    C(pyramid_scheduler_node_name), else the inventory name's first label.
  - In check mode it runs nothing, not even the read of the scheduler's state, and returns the commands it would run.
    What it did (or would do) is written to C(drain.json) beside C(report.json).
  - Run it once, delegated to the host that runs C(scontrol) or C(kubectl) - the role C(gpufabric.pyramid.report) uses
    the first host of the group C(scheduler), else of C(launcher).
options:
  run_dir:
    description: The run directory holding C(report.json) (M(gpufabric.pyramid.go_no_go) writes it).
    type: path
    required: true
  scheduler:
    description:
      - The inventory host the task is delegated to, which runs C(scontrol) or C(kubectl).
      - Empty - with C(pyramid_drain) set, the task fails asking for a host in the group C(scheduler).
    type: str
    default: ""
notes:
  - Commands are argv lists (M(ansible.builtin.command)), no shell; the scheduler host needs C(scontrol) (a Slurm client
    with the rights of C(scontrol update)) or C(kubectl) with a kubeconfig allowed to cordon, taint and annotate nodes.
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.action
"""

EXAMPLES = r"""
- name: Hand the failing GPU nodes to the scheduler
  gpufabric.pyramid.drain:
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
    scheduler: "{{ ((groups['scheduler'] | default([])) + (groups['launcher'] | default([])) + ['']) | first }}"
  run_once: true
  delegate_to: "{{ ((groups['scheduler'] | default([])) + (groups['launcher'] | default([])) + ['localhost']) | first }}"
"""

RETURN = r"""
drain:
  description: What was handed over (or would be, in check mode).
  returned: when pyramid_drain is slurm or kubernetes
  type: dict
  contains:
    mode:
      description: C(slurm) or C(kubernetes).
      type: str
    check_mode:
      description: Whether the commands were only planned.
      type: bool
    drained:
      description: Scheduler node name to its reason.
      type: dict
    left:
      description: Nodes with a finding left as they are, out of service for another reason (name to that reason).
      type: dict
    errors:
      description: Commands that failed, and nodes the scheduler does not know.
      type: list
      elements: str
    resumed:
      description: Nodes given back (GO now, taken out by the pyramid before).
      type: list
      elements: str
    commands:
      description: Every command, as argv lists, in order.
      type: list
      elements: list
    done:
      description: What ran, one line per command (empty in check mode).
      type: list
      elements: str
  sample:
    mode: slurm
    check_mode: false
    drained: {"node-007": "pyramid: L0 gpudirect FAIL: GPUDirect not active (nvidia_peermem missing) ..."}
    left: {}
    resumed: []
    errors: []
    commands: [["scontrol", "update", "nodename=node-007", "state=drain", "reason=pyramid: L0 gpudirect FAIL: ..."]]
    done: ["drain (pyramid: L0 gpudirect FAIL: ...) node-007"]
"""
