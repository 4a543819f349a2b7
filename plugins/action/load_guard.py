# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Before the first load, ask the scheduler whether jobs run on the nodes the run loads (logic: run/load_guard.py)."""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import handover as _handover, load_guard as _guard


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _VALID_ARGS = frozenset(("nodes", "pod", "scheduler"))

    def run(self, tmp=None, task_vars=None):
        result = dict(super().run(tmp, task_vars), changed=False, busy={})
        if self._task.check_mode:
            return dict(result, msg="not asked: --check loads nothing")
        nodes = _guard.to_load(list(self._task.args.get("nodes") or []), list(self._task.args.get("pod") or []))
        catalog, typed = _catalog.load_catalog(), {}
        for host in nodes:
            typed[host], errors = host_expectations(self._templar, task_vars["hostvars"][host], catalog, [], _guard.SETTINGS)
            if errors:
                return dict(result, failed=True, msg="%s: %s" % (host, "; ".join(errors)))
        first = typed[nodes[0]] if nodes else {}
        if nodes and first["pyramid_drain"] != "none" and not self._task.args.get("scheduler"):
            return dict(result, failed=True, msg="pyramid_drain is %s but no host in the group scheduler (or launcher) runs "
                                                 "its client: nothing loaded" % first["pyramid_drain"])
        names = {host: _handover.scheduler_name(host, typed[host].get("pyramid_scheduler_node_name")) for host in nodes}
        asked = _guard.ask(first.get("pyramid_drain", "none"), first.get("pyramid_load_guard", True), nodes, names,
                           lambda argv: self._execute_module(module_name="ansible.builtin.command",
                                                             module_args={"argv": argv}, task_vars=task_vars))
        return dict(result, **asked)
