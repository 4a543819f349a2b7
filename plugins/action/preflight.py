# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Before any host is touched: check the catalog and every host's expectations, open the run directory."""

from __future__ import annotations

import datetime
import os
import secrets

from ansible.plugins.action import ActionBase

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations


# Inventory groups -> the catalog's device types.
DEVICE_GROUPS = {"gpu_nodes": "gpu_node", "switches": "switch", "rail_leaves": "switch", "spines": "switch"}


def device_types(hosts, groups):
    """Device type -> the hosts of that type, in play order."""
    devices = {}
    for host in hosts:
        for group, device in DEVICE_GROUPS.items():
            if host in groups.get(group, []):
                devices.setdefault(device, []).append(host)
                break
    return devices


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True  # touches no host: it writes the run's reports on the controller
    _requires_connection = False
    _VALID_ARGS = frozenset(("hosts", "report_dir"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        try:
            catalog = _catalog.load_catalog()
        except (_catalog.CatalogError, OSError) as exc:
            return dict(result, failed=True, msg=str(exc))
        if parsing.TEXTFSM_IMPORT_ERROR:
            return dict(result, failed=True, msg="the controller needs the textfsm Python package: %s" % parsing.TEXTFSM_IMPORT_ERROR)
        hosts = self._task.args.get("hosts") or []
        if not hosts:
            return dict(result, failed=True, msg="no devices to validate: the inventory has no hosts in the pyramid groups")
        devices = device_types(hosts, task_vars["groups"])
        problems = []
        for device, names in devices.items():
            checks = _catalog.checks_for(catalog, device)
            for host in names:
                errors = host_expectations(self._templar, task_vars["hostvars"][host], catalog, checks)[1]
                problems.extend("%s: %s" % (host, error) for error in errors)
        unknown = sorted(set(hosts) - {host for names in devices.values() for host in names})
        problems.extend("%s: in none of the groups %s" % (host, ", ".join(sorted(DEVICE_GROUPS))) for host in unknown)
        if problems:
            shown = problems[:20] + (["... and %d more" % (len(problems) - 20)] if len(problems) > 20 else [])
            return dict(result, failed=True, problems=problems,
                        msg="invalid expectations, no host was touched:\n" + "\n".join(shown))
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        run_dir = os.path.join(os.path.abspath(os.path.expanduser(self._task.args["report_dir"])),
                               "%s-%s" % (stamp, secrets.token_hex(3)))
        os.makedirs(os.path.join(run_dir, "devices"))
        return dict(result, changed=False, run_dir=run_dir, hosts=len(hosts),  # a new report dir changes no device
                    ansible_facts={"pyramid_run_dir": run_dir, "pyramid_devices": devices},
                    msg="expectations valid for %d hosts; reports go to %s" % (len(hosts), run_dir))
