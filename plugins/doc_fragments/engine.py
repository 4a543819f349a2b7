# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    # The engine's modules (preflight, run_layer, counter_snapshot, judge_pod, block_hosts,
    # straggler_hunt, go_no_go): action plugins that only read devices and write the run's results
    # and reports on the controller, so check mode runs them as they are.
    DOCUMENTATION = r"""
options:
  run_dir:
    description: The run directory opened by M(gpufabric.pyramid.preflight).
    type: path
    required: true
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: Devices are only read; the run's results and reports are written on the controller, in check mode too.
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
author:
  - gpufabric.pyramid contributors (@gpufabric)
"""

    # A module whose run directory is made by it, not given (preflight).
    NO_RUN_DIR = r"""
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: Devices are only read; the run's results and reports are written on the controller, in check mode too.
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
author:
  - gpufabric.pyramid contributors (@gpufabric)
"""
