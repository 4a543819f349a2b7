# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judge a layer's pod-scope checks (firmware drift, stragglers) across every device of the layer (logic: run/pod.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import pod as _pod


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("layer", "run_dir", "hosts", "device"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        layer = int(args["layer"])
        judged, not_passing = _pod.judge_layer(_catalog.load_catalog(), args["run_dir"], layer, args["hosts"], args.get("device", "gpu_node"),
                                               groups=(task_vars or {}).get("groups"), check_mode=bool(self._task.check_mode))
        return dict(result, changed=False, judged_hosts=judged, not_passing=not_passing, msg="layer %d pod checks on %d hosts: %s" % (
            layer, judged, "; ".join("%s: %s" % item for item in sorted(not_passing.items())) or "all PASS"))
