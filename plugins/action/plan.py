# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan of a run (playbooks/plan.yml), on the controller: run/plan.py builds it, report/plan_markdown.py writes it."""

from __future__ import annotations

from ansible import context

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, inventory as _inventory
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import plan_markdown as _markdown
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import plan as _plan


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("hosts", "run_dir"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        catalog = _catalog.load_catalog()
        # the groups overlap (switches holds rail_leaves and spines): each device once, in inventory order
        hosts = list(dict.fromkeys(host for host in self._task.args.get("hosts") or [] if host != "localhost"))
        groups = task_vars["groups"]
        devices = _inventory.device_types(hosts, groups)
        typed = {}

        def expect_of(host):
            if host not in typed:  # every expectation of the catalog; pre-flight validated each device's own set, and the
                # others' errors (a switch's required cabling plan on a GPU node) are no error of this device's
                typed[host], _errors = host_expectations(self._templar, task_vars["hostvars"][host], catalog)
            return typed[host]

        plan = _plan.build(devices, expect_of, catalog, groups, context.CLIARGS.get("forks"))
        paths = _markdown.write(self._task.args["run_dir"], plan)
        return dict(result, changed=False, plan=paths, summary=_markdown.summary(plan) + [
            "the plan: %s (every pair, round and command: %s)" % (paths["md"], paths["json"])],
            msg="planned %d devices; nothing was run on any of them" % len(hosts))
