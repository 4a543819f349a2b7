#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/preflight.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: preflight
short_description: Check the catalog and every device's expectations before any host is touched
version_added: 0.1.0
description:
  - Loads the check catalog and validates it (sources, parsers, judges and expectations exist).
  - Validates every expectation variable (type, choices, minimum) of every device given, using the
    documented defaults for those not set, and fails with one line per bad value.
  - Plans every GPU node's rail addresses (C(pyramid_rail_address_plan), or the node's own
    C(pyramid_rail_addresses)) by the number that ends its name (node-047 is 47; never its place in C(gpu_nodes)) and refuses one that is not an IP address, or
    one address given to two rails, before any host is touched (not when Layer 2 plans its mesh).
  - Reads the groups by the inventory's own names where the run's extra variables give them
    (C(pyramid_group_gpu_nodes), C(pyramid_group_switches), C(pyramid_group_launcher),
    C(pyramid_group_ib_fabric_hosts)), and fails on a renamed group the inventory lacks, one beside a group of the
    default name that holds other hosts, or such a variable set in the inventory, where no play reads it (docs/inventory.md).
  - Opens a new run directory under O(report_dir) and sets the facts C(pyramid_run_dir),
    C(pyramid_devices) (device type to the hosts this run covers, for M(gpufabric.pyramid.go_no_go)) and
    C(pyramid_group_members) (the renamed groups' hosts, for C(ansible.builtin.add_host) to put into the groups the
    later plays name).
  - With C(pyramid_resume) (an earlier run's directory) takes over the layers every device passed there, in a run
    younger than C(pyramid_resume_max_age_minutes) and with nothing those layers judge changed. Their results are
    copied into the new run directory and the fact C(pyramid_resumed_layers) lists them, for the playbook to skip
    their plays (docs/report.md, A resumed run).
options:
  hosts:
    description: The devices to validate.
    type: list
    elements: str
    required: true
  report_dir:
    description: Parent directory of the run directories.
    type: path
    required: true
attributes:
  check_mode:
    details: Touches no device; the run directory is made on the controller, in check mode too.
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.action
"""

EXAMPLES = r"""
- name: Pre-flight
  gpufabric.pyramid.preflight:
    hosts: "{{ groups['gpu_nodes'] }}"
    report_dir: reports
"""

RETURN = r"""
run_dir:
  description: The new run directory.
  returned: success
  type: str
  sample: /srv/pyramid/reports/20261122T201500Z-a1b2c3
problems:
  description: One line per invalid expectation.
  returned: failure
  type: list
  elements: str
  sample: ["node-007: pyramid_rail_rate_gbps must be at least 1, got 0"]
"""
