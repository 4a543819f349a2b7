# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of the engine's action plugins."""

from __future__ import annotations

from ansible.plugins.action import ActionBase


class EngineAction(ActionBase):
    """An engine step: it only reads devices and writes the run's results on the controller, so check
    mode (an AWX "check" job) runs it as it is instead of skipping it; it copies no files to a device."""
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _requires_connection = False  # a step that talks to its device through a module says so (run_layer)
