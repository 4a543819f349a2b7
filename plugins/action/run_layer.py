# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run one layer's catalog checks on a device, behind the gate of the layers below."""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, engine as _engine, results as _results
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.collect import source_action as _collector, counters as _counters
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import PASS, SKIP, SourceFailure, count_statuses
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.task_vars import host_expectations


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    # True: a network_cli switch needs its persistent connection (its failures are caught here); an SSH
    # host connects only through _execute_module, so its failures are caught here too.
    _requires_connection = True
    _VALID_ARGS = frozenset(("layer", "run_dir", "device", "snapshot"))

    def run(self, tmp=None, task_vars=None):
        try:
            result = self._run_layer(tmp, task_vars)
        finally:
            released = _collector.release(self)  # every way out, or the next task may find it closing
        if not released:
            result.setdefault("warnings", []).append(
                "%s: the network_cli connection was still closing after %ds; the next task may fail to start one"
                % (task_vars["inventory_hostname"], _collector.RELEASE_SECONDS))
        return result

    def _run_layer(self, tmp, task_vars):
        result = super().run(tmp, task_vars)
        args = self._task.args
        layer, run_dir = int(args["layer"]), args["run_dir"]
        device = args.get("device", "gpu_node")
        host = task_vars["inventory_hostname"]
        catalog = _catalog.load_catalog()
        checks = _catalog.checks_at(catalog, layer, device)
        expect, errors = host_expectations(self._templar, task_vars, catalog, checks)
        if errors:
            return dict(result, failed=True, msg="%s: invalid expectations: %s" % (host, "; ".join(errors)))
        inapplicable = [_engine.not_applicable_result(host, check, catalog, expect) for check in checks
                        if _catalog.not_applicable(check, expect)]
        checks = [check for check in checks if not _catalog.not_applicable(check, expect)]

        doc = _results.load(run_dir, host)
        if args.get("snapshot"):
            return dict(result, **self._snapshot(task_vars, catalog, device, doc, run_dir, host))
        blocked = _results.blocker(doc["results"], layer)
        if blocked and expect["pyramid_enforce_gate"]:
            below, failing = blocked
            records = [_engine.result(host, check, catalog, expect, SKIP, "layer %d passed" % below,
                                      "not run: blocked at layer %d (%s)" % (below, ", ".join(failing)))
                       for check in checks]
            _results.record(doc, records + inapplicable)
            _results.save(run_dir, doc)
            return dict(result, changed=False, skipped_checks=len(records),
                        msg="layer %d not run: %s stopped at layer %d (%s)" % (layer, host, below, ", ".join(failing)))
        if not [check for check in checks if check["scope"] != "fabric"]:
            _results.record(doc, inapplicable)
            _results.save(run_dir, doc)
            return dict(result, changed=False, msg="layer %d: no %s checks to run on the host" % (layer, device))

        # fabric checks run across nodes from the launcher (straggler_hunt); here only their gate SKIPs
        local = [check for check in checks if check["scope"] != "fabric"]
        counters = _counters.source_names(catalog, local)
        waited = _counters.wait(doc, expect["pyramid_soak_seconds"]) if counters else 0.0
        planned = _engine.plan(_engine.source_names(local), catalog, expect)
        collected, unreachable = _collector.collect(self, planned, expect["pyramid_command_timeout"], task_vars)
        records = []
        if unreachable:
            failure = SourceFailure("ssh %s" % host, unreachable)
            for check in checks:
                records.append(_engine.error_result(host, check, catalog, expect, [
                    SourceFailure(_engine.commands_of(check, catalog, expect), "host unreachable, nothing collected: " + unreachable)]))
            doc.setdefault("facts", {})["layer%d" % layer] = _engine.serializable_facts({"unreachable": failure})
        else:
            facts = _engine.parse_sources(_engine.source_names(local), catalog, collected, expect)
            _counters.windows(facts, counters, doc)
            if counters:
                _counters.save(run_dir, host, layer, facts, counters)
            for check in checks:
                if check["scope"] == "host":
                    records.append(_engine.judge_host(host, check, catalog, facts, expect))
            doc.setdefault("facts", {})["layer%d" % layer] = _engine.serializable_facts(facts)
        doc.setdefault("expect", {}).update(expect)
        records += inapplicable
        _results.record(doc, records)
        _results.save(run_dir, doc)
        counts = {status: n for status, n in count_statuses(records).items() if n}
        failing = ["%s=%s" % (r["check"], r["status"]) for r in records if r["status"] != PASS]
        return dict(result, changed=False, counts=counts, soak_waited=round(waited, 1),
                    msg="layer %d: %s%s" % (layer, ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())),
                                            (" (" + ", ".join(failing) + ")") if failing else ""))

    def _snapshot(self, task_vars, catalog, device, doc, run_dir, host):
        """Read every counters source of the device's checks once: the start of the soak."""
        checks = _catalog.checks_for(catalog, device)
        expect, errors = host_expectations(self._templar, task_vars, catalog, checks)
        if errors:
            return dict(failed=True, msg="%s: invalid expectations: %s" % (host, "; ".join(errors)))
        names = _counters.source_names(catalog, [check for check in checks if not _catalog.not_applicable(check, expect)])
        collected, unreachable = _collector.collect(self, _engine.plan(names, catalog, expect),
                                                    expect["pyramid_command_timeout"], task_vars)
        if unreachable:
            facts = {name: SourceFailure("ssh %s" % host, "host unreachable at the snapshot: " + unreachable) for name in names}
        else:
            facts = _engine.parse_sources(names, catalog, collected, expect)
        _counters.take(doc, facts)
        _results.save(run_dir, doc)
        failed = sorted(name for name, value in facts.items() if isinstance(value, SourceFailure))
        return dict(changed=False, snapshot=names, msg="counters snapshot of %s: %d sources%s; the soak starts now" % (
            host, len(names), " (no data: %s)" % ", ".join(failed) if failed else ""))
