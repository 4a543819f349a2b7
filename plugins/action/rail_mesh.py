# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A layer's rail mesh, one phase per task (see the module's documentation; logic: run/rail_mesh_phases.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import rail_mesh_phases as _phases
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_step import AnsibleStep, failed_on_run_error


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("phase", "layer", "run_dir", "round", "next_round", "hosts", "references", "as_host"))
    _requires_connection = True  # serve, run and stop talk to the node

    def run(self, tmp=None, task_vars=None):
        result = dict(super().run(tmp, task_vars), changed=False)
        args = self._task.args
        phase = args.get("phase")
        if phase not in _phases.PHASES:
            return dict(result, failed=True, msg="phase must be one of %s, got %r" % (", ".join(_phases.PHASES), phase))
        layer = int(args.get("layer", 4))
        phases = _phases.RailMeshPhases(AnsibleStep(self, task_vars), _catalog.load_catalog(), layer)
        if not phases.checks:
            return dict(result, rounds=[], retest_rounds=[], msg="layer %d has no mesh checks" % layer)
        return failed_on_run_error(result, getattr(phases, phase), result, args)
