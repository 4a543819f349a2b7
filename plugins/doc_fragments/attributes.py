# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    # Every module of the collection supports check mode; a module says in its own `details` what
    # check mode changes for it. The author line is here once.
    DOCUMENTATION = r"""
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
author:
  - gpufabric.pyramid contributors (@gpufabric)
"""

    # Modules whose work (or part of it) is an action plugin on the controller.
    ACTION = r"""
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
"""

    # Modules that may change a device: whether they report the change in diff mode is their own `support`.
    DIFF = r"""
attributes:
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
"""
