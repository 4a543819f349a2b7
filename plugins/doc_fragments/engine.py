# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    # The engine's modules after pre-flight (run_layer, counter_snapshot, judge_pod, block_hosts,
    # fabric, go_no_go): action plugins that only read devices and write the run's results on
    # the controller. Self-contained, so each module names one fragment.
    DOCUMENTATION = r"""
options:
  run_dir:
    description: The run directory opened by M(gpufabric.pyramid.preflight).
    type: path
    required: true
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    details: Devices are only read; the run's results and reports are written on the controller, in check mode too.
    support: full
author:
  - gpufabric.pyramid contributors (@gpufabric)
"""
