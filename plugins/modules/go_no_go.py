#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/go_no_go.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: go_no_go
short_description: Write the go/no-go report of a run
version_added: 0.1.0
description:
  - Reads every device's results file in O(run_dir) and writes C(report.json), C(report.md),
    C(report.html) and C(junit.xml) (one testcase per device and check) there.
  - C(report.html) is one self-contained page (no script, nothing fetched) with node x rail matrices of Layer 4 and
    the ping mesh, busbw per node against the pod median, step time per rank and each switch's failing ports, grouped
    by scalable unit.
  - A device is GO only when every catalog check of its type passed; a check that did not run, a
    SKIP or an ERROR is NO-GO. The pod is GO only when every device is.
  - The report schema is documented in docs/report.md.
  - Also writes C(baseline.yml) - the medians the GO devices measured (round-1 all-reduce busbw,
    training step time) as the inventory variables C(pyramid_nccl_node_busbw) and
    C(pyramid_train_step_ms_baseline), to copy into the inventory so later runs are judged against them.
options:
  devices:
    description: Device type to the inventory hosts of that type.
    type: dict
    required: true
  pod_order:
    description:
      - The pod's GPU nodes in inventory order (the whole group, whatever C(--limit) ran), which places each node of
        C(report.html) in its scalable unit as the straggler hunt does. Empty - the order of O(devices).
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: Write the go/no-go report
  gpufabric.pyramid.go_no_go:
    run_dir: "{{ pyramid_run_dir }}"
    devices:
      gpu_node: "{{ groups['gpu_nodes'] }}"
  register: pyramid_report
"""

RETURN = r"""
verdict:
  description: C(GO) or C(NO-GO).
  returned: always
  type: str
summary:
  description: Hosts, GO and NO-GO counts, results per status.
  returned: always
  type: dict
checklist:
  description: The go/no-go checklist as text, each row ticked or crossed with its failing hosts.
  returned: always
  type: str
pyramid_checklist_lines:
  description:
    - The same checklist, one line per element, for the progress callback to print as plain lines (the playbooks load
      it themselves, see the callback C(gpufabric.pyramid.progress)).
  returned: always
  type: list
  elements: str
run_dir:
  description: Where the reports were written.
  returned: always
  type: str
failing_hosts:
  description: Hosts with a FAIL or ERROR of their own.
  returned: always
  type: list
  elements: str
blocked_hosts:
  description: NO-GO hosts with no FAIL or ERROR of their own, held back by a switch in their path (BLOCKED).
  returned: always
  type: list
  elements: str
causes:
  description:
    - Every device not GO with its cause, the one text report.md, report.html, report.json and junit.xml show; its first
      FAIL, ERROR or BLOCKED (lowest layer first), else the check left unproven and why (a SKIP that applies to it).
  returned: always
  type: dict
unchecked_rows:
  description: Go-live rows not checked for a reason of the run's and not waived (each makes the pod NO-GO).
  returned: always
  type: list
  elements: str
waived_rows:
  description: Go-live rows the inventory waived (C(pyramid_waive)), each with its reason.
  returned: always
  type: dict
stopped_at:
  description: Host to the lowest layer where it failed or was blocked; hosts that did not stop are absent.
  returned: always
  type: dict
reports:
  description: File name (C(report.md), C(report.html), C(report.json), C(junit.xml), C(pyramid.prom) and C(baseline.yml) when written) to its path.
  returned: always
  type: dict
metrics:
  description:
    - Path of C(pyramid.prom) in the run directory - the run's results as Prometheus textfile metrics (node_exporter's
      textfile collector format, written by prometheus_client; docs/telemetry.md).
    - Null where the controller lacks prometheus_client; the run then warns, and the reports are written all the same.
  returned: always
  type: str
baseline:
  description:
    - Path of C(baseline.yml) in the run directory - what the GO nodes measured (round-1 busbw, training
      step time) as inventory variables; copied into the inventory, later runs are judged against it.
    - Null when no node was GO.
  returned: always
  type: str
"""
