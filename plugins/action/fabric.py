# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a layer's fabric checks (the straggler hunt) from the launcher host, and record them per node
(logic: run/fabric.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import fabric as _hunt
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_step import AnsibleStep, failed_on_run_error


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("layer", "run_dir", "hosts", "launcher", "references", "pod_order"))

    def run(self, tmp=None, task_vars=None):
        result = dict(super().run(tmp, task_vars), changed=False)
        args = self._task.args
        return failed_on_run_error(result, lambda: dict(result, **_hunt.run(
            AnsibleStep(self, task_vars), _catalog.load_catalog(), int(args["layer"]), args["run_dir"], args["hosts"],
            args.get("launcher") or "", args.get("references"), check_mode=bool(self._task.check_mode),
            pod_order=args.get("pod_order") or None)))
