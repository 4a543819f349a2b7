# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Block the hosts behind the switches that failed a layer (see plugin_utils/_blocking.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.gate import blocking as _blocking


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("layer", "run_dir", "switches", "hosts"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        layer = int(args["layer"])
        blocked = _blocking.block(args["run_dir"], layer, args.get("switches") or [], args.get("hosts") or [])
        shown = ["%s (by %s)" % (host, ", ".join(switches)) for host, switches in sorted(blocked.items())]
        return dict(result, changed=False, blocked=blocked,
                    msg="layer %d: %s" % (layer, "%d hosts blocked: %s%s" % (
                        len(shown), ", ".join(shown[:10]), " ..." if len(shown) > 10 else "") if shown
                        else "no host blocked by a switch"))
