# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fabric plan from the fabric itself (playbooks/discover.yml): on a switch, read its LLDP, BGP and routes as the
layers read them; on the controller, write the per-switch plan for review (logic: run/discover.py, run/discover_files.py)."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.action import EngineAction
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import ansible_collect as _collector, engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import discover as _discover, discover_files as _files
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import discover_plans as _plans

REGISTERED = "pyramid_discovery"  # what the read task registers on each switch (playbooks/discover.yml)


class ActionModule(EngineAction):
    _requires_connection = True  # a network_cli switch's persistent connection, as run_layer's
    _VALID_ARGS = frozenset(("read", "switches", "leaves", "dir", "report_dir") + _plans.FILE_SOURCES)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        if self._task.args.get("read"):
            return _collector.released_result(self, task_vars, lambda: self._read(result, task_vars))
        return self._write(result, task_vars)

    def _read(self, result, task_vars):
        host, catalog = task_vars["inventory_hostname"], _catalog.load_catalog()
        expect, errors = host_expectations(self._templar, task_vars, catalog, [], extra=("pyramid_switch_os",))
        if errors:
            return dict(result, failed=True, msg="%s: invalid expectations: %s" % (host, "; ".join(errors)))
        facts, failures = _discover.read(catalog, expect, lambda planned: _collector.collect(
            self, planned, expect["pyramid_command_timeout"], task_vars))
        said = "%s: %s" % (host, "; ".join(failures)) if failures else "%s: read %s" % (host, ", ".join(_discover.SOURCES))
        return dict(result, changed=False, failed=bool(failures), msg=said, pyramid_discovered=_engine.serializable_facts(facts))

    def _write(self, result, task_vars):
        args, hostvars = self._task.args, task_vars["hostvars"]
        # plain strings: a host's name written into a plan (a peer matched by its short name, a far end's row) is
        # dumped as YAML, and the inventory's own strings are Ansible's tagged ones that yaml.safe_dump refuses
        switches, leaves = [str(s) for s in args.get("switches") or []], [str(s) for s in args.get("leaves") or []]
        inventory = {str(host): hostvars[host].get("ansible_host") for host in task_vars["groups"]["all"]}
        found = _plans.plans(args, {s: hostvars[s].get(REGISTERED) for s in switches if s in hostvars}, inventory, switches, leaves)
        if found is None:
            return dict(result, failed=True, msg="two plan sources given (%s): give one" % ", ".join(
                key for key in _plans.FILE_SOURCES if args.get(key)))
        plans, failures, imported, origin = found
        directory = args.get("dir") or _files.default_dir(args.get("report_dir") or "reports")
        files, refused = _files.write(directory, plans, origin) if plans else ([], None)
        coherence = _files.coherence(plans, inventory)
        failures += [refused] if refused else [] if plans or failures else [
            "no switch plan: no switch was read (the inventory's switches group is empty, or --limit left none)"]
        said = ["%d switch plans written into %s" % (len(files or []), directory)] + failures + imported + [
            "pre-flight would say: %s" % problem for problem in coherence]
        if coherence:  # the files are for review: said as warnings, where the play's output shows them
            result.setdefault("warnings", []).extend("pre-flight would say: %s" % problem for problem in coherence[:20])
        return dict(result, changed=bool(files), failed=bool(failures), files=files or [], dir=directory, failures=failures,
                    coherence=coherence, msg="; ".join(said[:1] + failures[:20]), summary=said)
