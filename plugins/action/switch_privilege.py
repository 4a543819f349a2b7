# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pre-flight: one harmless privileged read of a switch through its checks' collect path; ``problem`` names a login
without the privilege the read needs and the fix (logic: run/privilege.py). Never fails itself: validate.yml's
pre-flight play stops the run once, naming every such switch."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.collect import cli as _cli
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import ansible_collect as _collector
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import privilege as _privilege


class ActionModule(EngineAction):
    _requires_connection = True  # the switch's own network_cli connection, as its checks open it
    _VALID_ARGS = frozenset(("command", "group"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        if getattr(self._connection, "transport", "") not in _collector.NETWORK_CLI:
            return dict(result, changed=False, problem="", skipped=True,
                        msg="not a network_cli switch: its privileged reads are EOS's")
        return _collector.released_result(self, task_vars, lambda: self._read(result, task_vars))

    def _read(self, result, task_vars):
        command, switch = self._task.args["command"], task_vars["inventory_hostname"]
        raw, unreachable = _cli.collect(self._connection.socket_path, [{"id": "privilege", "ways": [{"cli": command}]}])
        problem = _privilege.verdict(switch, self._task.args.get("group") or "its group", command,
                                     (raw or {}).get("privilege"), unreachable)
        return dict(result, changed=False, problem=problem or "", command=command,
                    msg=problem or ("not reached (%s): its checks say so" % unreachable if unreachable
                                    else "`%s` read: the login has the privilege its reads need" % command))
