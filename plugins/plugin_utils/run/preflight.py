# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pre-flight, before any host is touched (the gpufabric.pyramid.preflight action): every problem of the inventory
the run would meet later - the groups, each host's expectations, the launcher, the waivers, unknown variables and the
rail addresses - found at once, each named (core/inventory.py says each rule)."""

from __future__ import annotations

from . import privilege as _privilege, rail_addresses as _addresses
from ..core import fabric_plan as _fabric_plan, inventory as _inventory
from ..core.task_vars import host_expectations


def inspect(templar, task_vars, extra_vars, hosts, catalog, check_mode):
    """{"problems": [...], "msg": the message where there are problems, "devices", "names"} for the play's ``hosts``."""
    inventory_groups = task_vars["groups"]
    names = _inventory.group_names(extra_vars)
    groups = _inventory.read_groups(inventory_groups, names)
    # pyramid_group_* are read from the extra variables: one set in the inventory is named (the hosts the play ran on,
    # or every host where the play found none, as a group renamed only there leaves it)
    vars_of = _memo(task_vars["hostvars"])  # each host's variables computed once (a 512-node pod's pre-flight)
    naming = _inventory.group_problems(inventory_groups, names, _group_variables(
        vars_of, task_vars["hostvars"], (hosts or list(inventory_groups.get("all") or [])) + ["localhost"]))
    naming += _inventory.misspelled_groups(inventory_groups, names)
    if not hosts:
        read = ", ".join(names.get(group, group) for group in _inventory.DEVICE_GROUPS)
        return {"problems": naming, "names": names, "devices": {}, "msg": "\n".join(
            ["no devices to validate: the inventory has no hosts in the groups %s (or --limit left none)" % read] + naming)}
    devices = _inventory.device_types(hosts, groups)
    typed = {}

    def errors_of(host, checks):
        typed[host], errors = host_expectations(templar, vars_of(host), catalog, checks)
        return errors

    problems = _inventory.problems(hosts, devices, catalog, errors_of)
    problems += naming  # misspellings, which Ansible would take as a variable or a group of the user's own
    run_tags, skip_tags = task_vars.get("ansible_run_tags") or ["all"], task_vars.get("ansible_skip_tags") or []
    problems += _inventory.launcher_missing(devices.get("gpu_node", []), groups, names, run_tags, skip_tags, check_mode=check_mode)
    problems += _inventory.bad_waivers(typed, catalog)
    problems += _inventory.unknown_variables({host: _pyramid_variables(vars_of(host)) for host in hosts}, catalog)
    if not problems:  # the rail addresses and the fabric plan as a whole now, not at Layers 1 and 2
        nodes = devices.get("gpu_node", [])
        problems = _addresses.address_plan_problems(nodes, groups.get("gpu_nodes") or nodes, typed.get)
        problems += _fabric_plan.problems(devices.get("switch", []), nodes, typed.get, list(inventory_groups.get("all") or []),
                                          set(groups.get("rail_leaves") or []) <= set(hosts), set(groups.get("rail_leaves") or []))
        problems += _first_run_traps(nodes, groups, vars_of, typed, run_tags, skip_tags, check_mode)
    privilege = _privilege_reads(devices.get("switch", []), groups, names, vars_of, typed, catalog, run_tags, skip_tags,
                                 problems)
    return {"privilege_probes": privilege[0], "warnings": privilege[1],  # run/privilege.py
            "problems": problems, "names": names, "devices": devices, "typed": typed,  # typed: run/resume.py compares
            "msg": _inventory.problems_message(problems) if problems else None}


def _privilege_reads(switches, groups, names, vars_of, typed, catalog, run_tags, skip_tags, problems):
    """({switch: {"command", "group"}} of the privileged read validate.yml's pre-flight play asks each switch
    (run/privilege.py), [what the inventory says of them without touching one: plan.yml's warnings])."""
    if problems:
        return {}, []
    probes = _privilege.probes(switches, typed, catalog, run_tags, skip_tags)
    group_of = {switch: _switch_group(switch, groups, names) for switch in probes}
    return ({switch: {"command": command, "group": group_of[switch]} for switch, command in probes.items()},
            _privilege.become_unset(probes, vars_of, group_of.get))


def _switch_group(switch, groups, names):
    """The inventory's own name of the group that holds ``switch`` (where its connection variables are set)."""
    group = next((group for group in ("rail_leaves", "spines") if switch in (groups.get(group) or [])), "switches")
    return names.get(group, group)


def _first_run_traps(nodes, groups, vars_of, typed, run_tags, skip_tags, check_mode):
    """What would stop the first run at Layer 5, 15-20 minutes in, named now: the launcher reached as root starting
    mpirun without Open MPI's permission (issue 71; pyramid_nccl_env without NCCL_DEBUG=INFO is refused with the
    expectations, catalog key ``keeps``)."""
    launcher = next(iter(groups.get("launcher") or []), None)
    if launcher is None or not nodes:
        return []
    expect = typed.get(launcher) or typed.get(nodes[0]) or {}  # a login node as launcher: the nodes' NCCL settings
    problem = _inventory.mpirun_as_root(launcher, vars_of(launcher), expect,
                                        _inventory.runs_across(nodes, groups, run_tags, skip_tags, check_mode))
    return [problem] if problem else []


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
