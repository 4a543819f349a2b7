# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A missed load again while the switches on its paths are read, one phase per task (see the module's documentation;
logic: run/link.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_step import PhasedRunAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.link import LinkPhases


class ActionModule(PhasedRunAction):
    PHASES = LinkPhases
    _VALID_ARGS = LinkPhases.ARGS
