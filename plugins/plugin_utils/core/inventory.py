# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pre-flight on the inventory, before any host is touched: which catalog device type each host is,
what is wrong with any host's expectations, and the run directory every later step writes into."""

from __future__ import annotations

import datetime
import difflib
import os
import secrets

from . import catalog as _catalog

# Inventory groups -> the catalog's device types; a host takes the type of the first group it is in.
DEVICE_GROUPS = {"gpu_nodes": "gpu_node", "switches": "switch", "rail_leaves": "switch", "spines": "switch"}
SHOWN_PROBLEMS = 20  # the task message lists this many; all of them are in the result's `problems`
# The other groups the playbooks read: the launcher of the runs across nodes, the reader of an InfiniBand subnet.
OTHER_GROUPS = ("launcher", "ib_fabric_hosts", "scheduler")
# The variable that names the inventory's own group for each group the playbooks read (default: the same name). An
# extra variable only: a play picks its hosts before any inventory variable is read (docs/inventory.md).
GROUP_VARIABLES = {group: "pyramid_group_%s" % group for group in ("gpu_nodes", "switches", "launcher", "ib_fabric_hosts", "scheduler")}
# pyramid_* variables an inventory may set besides the catalog's expectations: the run's report directory, the
# remediation's firmware reset, the AWX configuration's (playbooks/awx_configure.yml) and the allow-list itself.
# discover.yml's own (playbooks/discover.yml): given with -e, they reach every play of a run that shares the command line
OTHER_VARIABLES = ("pyramid_report_dir", "pyramid_remediate_firmware_reset", "pyramid_extra_vars", "pyramid_discover_dir",
                   "pyramid_cabling_csv", "pyramid_resume", "pyramid_resume_max_age_minutes",
                   "pyramid_netbox_export", "pyramid_avd_structured_config") + tuple(GROUP_VARIABLES.values())
OTHER_PREFIXES = ("pyramid_awx_",)
NEAR = 0.8  # difflib's ratio from which a name reads as a misspelling of a known one (gpu_node: gpu_nodes 0.94)


def device_types(hosts, groups):
    """Device type -> the hosts of that type, in play order."""
    devices = {}
    for host in hosts:
        for group, device in DEVICE_GROUPS.items():
            if host in groups.get(group, []):
                devices.setdefault(device, []).append(host)
                break
    return devices


def forks_warning(forks, gpu_nodes):
    """A warning when Ansible's forks are fewer than the GPU nodes: the per-node tests that last as long as they
    run inside their task (Layer 5's all-reduce on every node, Layer 6's training step) then run in waves, one
    after another, and their layer takes that many times its test's duration (docs/scale.md). The rail mesh and
    the incast start their runs in the background and are not slowed so. None when the forks cover the nodes."""
    forks = max(1, int(forks or 1))
    if gpu_nodes <= forks:
        return None
    count = -(-gpu_nodes // forks)
    return ("forks %d < %d GPU nodes: the per-node tests of Layers 5 and 6 (the all-reduce on every node, the training "
            "step) run in %d waves, so those layers take about %d times their tests' own duration; run with --forks %d "
            "or more where the controller allows (docs/scale.md)" % (forks, gpu_nodes, count, count, gpu_nodes))


def problems(hosts, devices, catalog, errors_of):
    """Every host's problems, "host: problem": ``errors_of(host, checks)`` gives its expectation errors
    for the checks of its device type; a host in none of the groups is a problem too."""
    found = []
    for device, names in devices.items():
        checks = _catalog.checks_for(catalog, device)
        for host in names:
            found.extend("%s: %s" % (host, error) for error in errors_of(host, checks))
    typed = {host for names in devices.values() for host in names}
    found.extend("%s: in none of the groups %s" % (host, ", ".join(sorted(DEVICE_GROUPS))) for host in sorted(set(hosts) - typed))
    return found


def problems_message(found):
    shown = found[:SHOWN_PROBLEMS] + (["... and %d more" % (len(found) - SHOWN_PROBLEMS)] if len(found) > SHOWN_PROBLEMS else [])
    return "invalid expectations, no host was touched:\n" + "\n".join(shown)


def new_run_dir(report_dir, now=None):
    """Make <report_dir>/<UTC time>-<random>/devices and return the run directory (never an existing one)."""
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    run_dir = os.path.join(os.path.abspath(os.path.expanduser(report_dir)), "%s-%s" % (stamp, secrets.token_hex(3)))
    os.makedirs(os.path.join(run_dir, "devices"))
    return run_dir


def unknown_variables(variables_by_host, catalog):
    """A problem for each pyramid_* variable that is neither an expectation of the catalog nor one of the playbooks'
    own (a misspelling would leave the default in force, silently): the hosts that set it and the nearest known name.
    A host's ``pyramid_extra_vars`` (a list) allows deliberate extras."""
    known = set(catalog["expectations"]) | set(OTHER_VARIABLES)
    hosts_of = {}
    for host, names in variables_by_host.items():
        allowed = names.get("pyramid_extra_vars") or []
        for name in names:
            if name.startswith("pyramid_") and name not in known and name not in allowed and not name.startswith(OTHER_PREFIXES):
                hosts_of.setdefault(name, []).append(host)
    found = []
    for name, hosts in sorted(hosts_of.items()):
        near = difflib.get_close_matches(name, sorted(known), n=1, cutoff=NEAR)
        found.append("%s: %s is not a variable of gpufabric.pyramid%s (a deliberate one: list it in pyramid_extra_vars)" % (
            _hosts_text(hosts), name, "; did you mean %s?" % near[0] if near else ""))
    return found


def group_names(extra_vars):
    """{group the playbooks read: the inventory's name for it}, from the run's extra variables (pyramid_group_*)."""
    return {group: str((extra_vars or {}).get(variable) or group) for group, variable in GROUP_VARIABLES.items()}  # "" too


def read_groups(groups, names):
    """The inventory's groups as the playbooks read them: each renamed group (``names``) under the playbooks' name,
    its hosts in the inventory's order."""
    found = dict(groups)
    for group, name in names.items():
        if name != group:
            found[group] = list(groups.get(name) or [])
    return found


def group_members(groups, names):
    """[{"group", "host"}] that add_host puts into the playbooks' groups so that the later plays, which name them, find
    the renamed groups' hosts, in the inventory's order."""
    return [{"group": group, "host": host} for group, name in names.items() if name != group for host in groups.get(name) or []]


def group_problems(groups, names, inventory_values):
    """A problem for each renamed group that is not in the inventory, whose playbook name is a group of other hosts
    too, and for each pyramid_group_* set in the inventory (``inventory_values``: {host: {variable: value}}) rather
    than as an extra variable, where the plays, which pick their hosts first, would not have read it."""
    found = []
    for group, name in sorted(names.items()):
        if name == group:
            continue
        variable = GROUP_VARIABLES[group]
        if name not in groups:
            near = difflib.get_close_matches(name, sorted(set(groups) - {"all", "ungrouped"}), n=1, cutoff=NEAR)
            found.append("%s=%s: the inventory has no group %s%s" % (variable, name, name, "; did you mean %s?" % near[0] if near else ""))
        beside = list(groups.get(group) or [])
        if beside and beside != list(groups.get(name) or []):  # other hosts, or the same in another order (rail addresses)
            found.append("%s=%s, yet the inventory has a group %s too (%s): the playbooks would read both; rename one" % (
                variable, name, group, _hosts_text(beside)))
    hosts_of = {}
    for host, values in sorted(inventory_values.items()):
        for variable, value in values.items():
            group = variable[len("pyramid_group_"):]
            if variable in GROUP_VARIABLES.values() and str(value) != names.get(group):
                hosts_of.setdefault((variable, str(value)), []).append(host)
    for (variable, value), hosts in sorted(hosts_of.items()):
        found.append("%s: %s=%s is set in the inventory, where the plays, which choose their hosts before they read any "
                     "inventory variable, do not see it: give it as an extra variable (-e %s=%s, or the AWX job template's "
                     "extra variables)" % (_hosts_text(hosts), variable, value, variable, value))
    return found


def runs_across(nodes, groups, run_tags, skip_tags, check_mode=False):
    """Whether Layers 5 and 6 will run across nodes: two GPU nodes in this run, or one beside GPU nodes of the inventory
    outside it (the references); those layers not left out by tags; not --check, which starts no run."""
    layers = {"layer5", "layer6"}
    runs = ("all" in run_tags or layers & set(run_tags)) and not (layers <= set(skip_tags) or "all" in skip_tags)
    others = [host for host in groups.get("gpu_nodes") or [] if host not in nodes]
    return bool(not check_mode and runs and (len(nodes) >= 2 or (nodes and others)))


def launcher_missing(nodes, groups, names, run_tags, skip_tags, check_mode=False):
    """A problem when Layers 5 and 6 will run across nodes (two GPU nodes in this run, or one beside GPU nodes of the
    inventory outside it, the references; those layers not left out by tags; not --check, which starts no run) and the
    launcher group that starts those runs (pyramid_nccl_launcher) has no host: caught here, not as an ERROR on every
    node an hour into the run."""
    if not runs_across(nodes, groups, run_tags, skip_tags, check_mode) or groups.get("launcher"):
        return []
    return ["no launcher host: the runs across nodes of Layers 5 and 6 start from the first host of the group %s "
            "(mpirun or srun, pyramid_nccl_launcher), which the inventory lacks or leaves empty; add one (a GPU node, or "
            "a login node), or leave those layers out (--skip-tags layer5,layer6)" % names.get("launcher", "launcher")]


# Open MPI refuses to start as root unless both are set to 1 (Open MPI 4's names; Open MPI 5's mpirun reads them too, and
# its prterun its own PRTE_ pair)
ROOT_PERMISSIONS = (("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), ("PRTE_ALLOW_RUN_AS_ROOT", "PRTE_ALLOW_RUN_AS_ROOT_CONFIRM"))


def connects_as_root(host_vars):
    """Whether Ansible runs the host's commands as root, as far as its variables say (a user left unset is not guessed)."""
    if host_vars.get("ansible_become") in (True, "true", "yes", "True", 1):
        return (host_vars.get("ansible_become_user") or "root") == "root"
    return host_vars.get("ansible_user") == "root"


def mpirun_as_root(launcher, host_vars, expect, runs_across):
    """A problem when the runs across nodes start with mpirun on a launcher Ansible reaches as root and pyramid_nccl_env
    does not give Open MPI's permission: mpirun would refuse every run of Layers 5 and 6 at once, 15-20 minutes into the
    run (issue 71's first-run trap). None otherwise."""
    if not runs_across or expect.get("pyramid_nccl_launcher") != "mpirun" or not connects_as_root(host_vars):
        return None
    env = expect.get("pyramid_nccl_env") or {}
    if any(all(str(env.get(name, "")) == "1" for name in pair) for pair in ROOT_PERMISSIONS):
        return None
    return ("the launcher %s is reached as root and starts the runs across nodes with mpirun, which Open MPI refuses as "
            "root: add OMPI_ALLOW_RUN_AS_ROOT: \"1\" and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: \"1\" to pyramid_nccl_env (beside "
            "NCCL_DEBUG: INFO and your other entries), or connect as a user of the pod, or use pyramid_nccl_launcher: srun"
            % launcher)


def misspelled_groups(groups, names=None):
    """A problem for each inventory group whose name reads as a misspelling of a group the playbooks read (gpu_node
    for gpu_nodes, or of the inventory's own name for it: ``names``) and that holds hosts in none of them: those hosts
    would silently be left out of the run."""
    names = names or {}
    known = tuple(names.get(group, group) for group in tuple(DEVICE_GROUPS) + OTHER_GROUPS)
    placed = {host for group in known for host in groups.get(group, [])}
    found = []
    for group, hosts in sorted(groups.items()):
        if group in known or group in ("all", "ungrouped"):
            continue
        near = difflib.get_close_matches(group, known, n=1, cutoff=NEAR)
        left_out = [host for host in hosts if host not in placed]
        if near and left_out:
            found.append("group %s (%s): did you mean %s? Its hosts are in none of the groups the playbooks read (%s)" % (
                group, _hosts_text(left_out), near[0], ", ".join(known)))
    return found


def _hosts_text(hosts):
    return ", ".join(hosts[:3]) + (" and %d more" % (len(hosts) - 3) if len(hosts) > 3 else "")


def bad_waivers(expect_by_host, catalog):
    """A problem for each waiver (pyramid_waive) that names no row of the checklist or gives no reason."""
    rows = [row["id"] for row in catalog["rows"]]
    found = set()
    for host, expect in expect_by_host.items():
        for waiver in (expect or {}).get("pyramid_waive") or []:
            if waiver["row"] not in rows:
                near = difflib.get_close_matches(waiver["row"], rows, n=1, cutoff=0.6)
                found.add("%s: pyramid_waive row %r is no row of the checklist%s (rows: %s)" % (
                    host, waiver["row"], "; did you mean %s?" % near[0] if near else "", ", ".join(rows)))
            elif not str(waiver["reason"]).strip():
                found.add("%s: pyramid_waive row %s has no reason: say why the pod goes live without it" % (host, waiver["row"]))
    return sorted(found)
