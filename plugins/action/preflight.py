# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Before any host is touched: check the catalog and every host's expectations, open the run directory
(logic: core/inventory.py)."""

from __future__ import annotations

from ansible import context
from ansible.utils.vars import load_extra_vars

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
        inventory_groups = task_vars["groups"]
        names = _inventory.group_names(load_extra_vars(self._loader))
        groups = _inventory.read_groups(inventory_groups, names)
        # pyramid_group_* are read from the extra variables: one set in the inventory is named (the hosts the play ran on,
        # or every host where the play found none, as a group renamed only there leaves it)
        vars_of = _memo(task_vars["hostvars"])  # each host's variables computed once (a 512-node pod's pre-flight)
        naming = _inventory.group_problems(inventory_groups, names, _group_variables(
            vars_of, task_vars["hostvars"], (hosts or list(inventory_groups.get("all") or [])) + ["localhost"]))
        naming += _inventory.misspelled_groups(inventory_groups, names)
        if not hosts:
            read = ", ".join(names.get(group, group) for group in _inventory.DEVICE_GROUPS)
            return dict(result, failed=True, problems=naming, msg="\n".join(
                ["no devices to validate: the inventory has no hosts in the groups %s (or --limit left none)" % read] + naming))
        devices = _inventory.device_types(hosts, groups)
        typed = {}

        def errors_of(host, checks):
            typed[host], errors = host_expectations(self._templar, vars_of(host), catalog, checks)
            return errors

        problems = _inventory.problems(hosts, devices, catalog, errors_of)
        # misspellings, which Ansible would take as a variable or a group of the user's own
        problems += naming
        problems += _inventory.launcher_missing(devices.get("gpu_node", []), groups, names, task_vars.get("ansible_run_tags") or ["all"],
                                                task_vars.get("ansible_skip_tags") or [], check_mode=self._play_context.check_mode)
        problems += _inventory.bad_waivers(typed, catalog)
        problems += _inventory.unknown_variables({host: _pyramid_variables(vars_of(host)) for host in hosts}, catalog)
        if not problems:  # the rail addresses now, not when Layer 2 plans its mesh after the soak
            nodes = devices.get("gpu_node", [])
            problems = _mesh.address_plan_problems(nodes, groups.get("gpu_nodes") or nodes, typed.get)
        if problems:
            return dict(result, failed=True, problems=problems, msg=_inventory.problems_message(problems))
        run_dir = _inventory.new_run_dir(self._task.args["report_dir"])
        waves = _inventory.forks_warning(context.CLIARGS.get("forks"), len(devices.get("gpu_node", [])))
        if waves:
            result.setdefault("warnings", []).append(waves)
        return dict(result, changed=False, run_dir=run_dir, hosts=len(hosts),  # a new report dir changes no device
                    ansible_facts={"pyramid_run_dir": run_dir, "pyramid_devices": devices,
                                   "pyramid_group_members": _inventory.group_members(inventory_groups, names)},
                    msg="expectations valid for %d hosts; reports go to %s" % (len(hosts), run_dir))


def _memo(hostvars):
    seen = {}

    def vars_of(host):
        if host not in seen:
            seen[host] = hostvars[host]
        return seen[host]
    return vars_of


def _group_variables(vars_of, hostvars, hosts):
    """{host: {pyramid_group_*: value}} as each host's variables have them (the extra variables' value where given)."""
    found = {}
    for host in dict.fromkeys(hosts):
        if host in hostvars:
            host_vars = vars_of(host)
            found[host] = {name: host_vars[name] for name in _inventory.GROUP_VARIABLES.values() if name in host_vars}
    return found


def _pyramid_variables(host_vars):
    """{name: None} of a host's pyramid_* variables, with its pyramid_extra_vars' value (the allow-list)."""
    names = {name: None for name in host_vars if str(name).startswith("pyramid_")}
    if "pyramid_extra_vars" in names:
        allowed = host_vars["pyramid_extra_vars"]
        names["pyramid_extra_vars"] = [str(name) for name in allowed] if isinstance(allowed, (list, tuple)) else []
    return names
