# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 3 under load: one phase of the induced incast per task (logic: run/incast_phases.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import ansible_collect as _collector, incast_phases as _phases
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_step import AnsibleStep, failed_on_run_error


class ActionModule(EngineAction):
    """The incast's phases (see the module's documentation)."""

    _VALID_ARGS = frozenset(("phase", "run_dir", "round", "hosts", "switches", "label", "device", "until"))
    _requires_connection = True  # serve, read, fire and stop talk to the device

    def run(self, tmp=None, task_vars=None):
        result = dict(super().run(tmp, task_vars), changed=False)
        args = self._task.args
        phase = args.get("phase")
        if phase not in _phases.PHASES:
            return dict(result, failed=True, msg="phase must be one of %s, got %r" % (", ".join(_phases.PHASES), phase))
        phases = _phases.IncastPhases(AnsibleStep(self, task_vars), _catalog.load_catalog())
        if phase == "read" and args.get("device") == "switch":  # a leaf's read, through its persistent connection
            return _collector.released_result(self, task_vars, lambda: failed_on_run_error(result, phases.read_switch, result, args))
        return failed_on_run_error(result, getattr(phases, phase), result, args)
