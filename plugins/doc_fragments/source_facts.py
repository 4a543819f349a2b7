# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    # The tool modules (ibstat, lsmod, nvidia_topology, host_kernel): collect on the host, parse on the
    # controller. Self-contained, so each module names one fragment.
    DOCUMENTATION = r"""
options:
  timeout:
    description: Seconds each command may run before it counts as hung.
    type: int
    default: 60
notes:
  - Runs the command with C(LC_ALL=C) under C(timeout) through M(gpufabric.pyramid.collect) and parses
    its output on the controller with the collection's TextFSM templates; a missing tool, a timeout
    or unparseable output fails the task, naming the host and the command.
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: Read-only.
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
author:
  - gpufabric.pyramid contributors (@gpufabric)
"""
