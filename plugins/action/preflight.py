# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Before any host is touched: check the catalog and every host's expectations, open the run directory
(logic: core/inventory.py)."""

from __future__ import annotations

from ansible import context

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, inventory as _inventory
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import catalog_references as _references, rail_mesh as _mesh


class ActionModule(EngineAction):
    _VALID_ARGS = frozenset(("hosts", "report_dir"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        try:
            catalog = _catalog.load_catalog()
            _references.check(catalog, _catalog.CATALOG_PATH)
        except (_catalog.CatalogError, OSError) as exc:
            return dict(result, failed=True, msg=str(exc))
        if parsing.TEXTFSM_IMPORT_ERROR:
            return dict(result, failed=True, msg="the controller needs the textfsm Python package: %s" % parsing.TEXTFSM_IMPORT_ERROR)
        hosts = [host for host in self._task.args.get("hosts") or [] if host != "localhost"]  # the play's own, below
        groups = task_vars["groups"]
        if not hosts:
            return dict(result, failed=True, problems=_inventory.misspelled_groups(groups), msg="\n".join(
                ["no devices to validate: the inventory has no hosts in the groups %s (or --limit left none)" % ", ".join(
                    _inventory.DEVICE_GROUPS)] + _inventory.misspelled_groups(groups)))
        devices = _inventory.device_types(hosts, groups)
        typed = {}

        def errors_of(host, checks):
            typed[host], errors = host_expectations(self._templar, task_vars["hostvars"][host], catalog, checks)
            return errors

        problems = _inventory.problems(hosts, devices, catalog, errors_of)
        # misspellings, which Ansible would take as a variable or a group of the user's own
        problems += _inventory.misspelled_groups(groups)
        problems += _inventory.bad_waivers(typed, catalog)
        problems += _inventory.unknown_variables({host: _pyramid_variables(task_vars["hostvars"][host]) for host in hosts}, catalog)
        if not problems:  # the rail addresses now, not when Layer 2 plans its mesh after the soak
            nodes = devices.get("gpu_node", [])
            problems = _mesh.address_plan_problems(nodes, task_vars["groups"].get("gpu_nodes") or nodes, typed.get)
        if problems:
            return dict(result, failed=True, problems=problems, msg=_inventory.problems_message(problems))
        run_dir = _inventory.new_run_dir(self._task.args["report_dir"])
        waves = _inventory.forks_warning(context.CLIARGS.get("forks"), len(devices.get("gpu_node", [])))
        if waves:
            result.setdefault("warnings", []).append(waves)
        return dict(result, changed=False, run_dir=run_dir, hosts=len(hosts),  # a new report dir changes no device
                    ansible_facts={"pyramid_run_dir": run_dir, "pyramid_devices": devices},
                    msg="expectations valid for %d hosts; reports go to %s" % (len(hosts), run_dir))


def _pyramid_variables(host_vars):
    """{name: None} of a host's pyramid_* variables, with its pyramid_extra_vars' value (the allow-list)."""
    names = {name: None for name in host_vars if str(name).startswith("pyramid_")}
    if "pyramid_extra_vars" in names:
        allowed = host_vars["pyramid_extra_vars"]
        names["pyramid_extra_vars"] = [str(name) for name in allowed] if isinstance(allowed, (list, tuple)) else []
    return names
