#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/telemetry.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: telemetry
short_description: Layer 7 - are the golden signals of every device in Prometheus, and fresh
version_added: 0.1.0
description:
  - Asks Prometheus' HTTP API (C(/api/v1/query), at C(pyramid_prometheus_url)) from the controller, once per
    distinct query, for the series of the catalog's Layer 7 checks (catalog/telemetry.yml), and judges them per
    device. A signal missing for a device, or whose newest sample is older than
    C(pyramid_telemetry_max_age_seconds), is a FAIL naming the device and the signal.
  - Prometheus unreachable, a timeout or an API error is an ERROR naming the URL and the query.
  - A device without C(pyramid_prometheus_url) is SKIP "not checked", never PASS.
  - A device stopped below Layer 7 is SKIP (not run, blocked at the layer it failed), as at every layer.
  - Run it once, on the controller (C(run_once), C(delegate_to localhost)); it needs no connection to the devices.
options:
  devices:
    description: Device type (C(gpu_node), C(switch)) to the devices of the run, as pre-flight left them in C(pyramid_devices).
    type: dict
    required: true
extends_documentation_fragment:
  - gpufabric.pyramid.engine
"""

EXAMPLES = r"""
- name: Layer 7 - read the golden signals of every device from Prometheus
  gpufabric.pyramid.telemetry:
    run_dir: "{{ hostvars['localhost']['pyramid_run_dir'] }}"
    devices: "{{ hostvars['localhost']['pyramid_devices'] }}"
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
counts:
  description: Status to the number of Layer 7 results.
  returned: always
  type: dict
  sample: {PASS: 30, FAIL: 1, SKIP: 5}
not_passing:
  description: The device, check and status of every result that is not PASS (not-applicable ones left out).
  returned: always
  type: list
  elements: str
  sample: ["node-012 telemetry_signals=FAIL"]
queries:
  description: How many distinct queries were asked of Prometheus.
  returned: always
  type: int
msg:
  description: One line with the counts and the devices that did not pass.
  returned: always
  type: str
"""
