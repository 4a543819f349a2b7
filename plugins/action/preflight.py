# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Before any host is touched: check the catalog and every host's expectations, open the run directory
(logic: run/preflight.py, core/inventory.py)."""

from __future__ import annotations

from ansible import context
from ansible.utils.vars import load_extra_vars

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, inventory as _inventory
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import preflight as _preflight
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import catalog_references as _references
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import resume as _resume


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
        found = _preflight.inspect(self._templar, task_vars, load_extra_vars(self._loader), hosts, catalog,
                                   self._play_context.check_mode)
        if found["msg"]:
            return dict(result, failed=True, problems=found["problems"], msg=found["msg"])
        devices = found["devices"]
        result.setdefault("warnings", []).extend(found.get("warnings") or [])  # privileged reads without ansible_become
        # -e pyramid_resume=<run dir>: the layers every device passed there taken over, their plays skipped
        resume, problem = _resume.from_variables(task_vars, hosts, found["typed"].get, catalog)
        if problem:
            return dict(result, failed=True, problems=[problem], msg=problem)
        run_dir = _inventory.new_run_dir(self._task.args["report_dir"])
        resumed = _resume.open_docs(run_dir, found["typed"], resume)
        said = resume and resume["said"]
        waves = _inventory.forks_warning(context.CLIARGS.get("forks"), len(devices.get("gpu_node", [])))
        for warning in (waves, said):
            if warning:
                result.setdefault("warnings", []).append(warning)
        return dict(result, changed=False, run_dir=run_dir, hosts=len(hosts),  # a new report dir changes no device
                    ansible_facts={"pyramid_privilege_probes": found.get("privilege_probes") or {},
                                   "pyramid_run_dir": run_dir, "pyramid_devices": devices, "pyramid_resumed_layers": resumed,
                                   "pyramid_group_members": _inventory.group_members(task_vars["groups"], found["names"])},
                    msg="expectations valid for %d hosts; reports go to %s" % (len(hosts), run_dir))
