# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 3 under load: one phase of the induced incast per task (see the module's documentation; logic:
run/incast_phases.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_step import PhasedRunAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.incast_phases import IncastPhases


class ActionModule(PhasedRunAction):
    PHASES = IncastPhases
    _VALID_ARGS = IncastPhases.ARGS
