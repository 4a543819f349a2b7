# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Collect catalog sources on a host and parse them on the controller: shared by every action."""

from __future__ import annotations

import os
import re

from ansible.errors import AnsibleActionFail, AnsibleError

from ..core import catalog as _catalog
from . import engine as _engine
from ..core.action import EngineAction
from ..collect import cli as _cli
from ..core.model import SourceFailure

COLLECT = "gpufabric.pyramid.collect"
NETWORK_CLI = ("ansible.netcommon.network_cli", "network_cli")
DEVICE_NAME = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]*$")
PAYLOAD_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "payloads")


def payloads_for(planned):
    """Built-in scripts (payloads/) that the planned commands name as {payload:NAME}."""
    names = {match for source in planned for way in source["ways"] for arg in way.get("run", [])
             for match in re.findall(r"\{payload(?:_source)?:([\w.-]+)\}", str(arg))}
    contents = {}
    for name in sorted(names):
        with open(os.path.join(PAYLOAD_DIR, name), encoding="utf-8") as handle:
            contents[name] = handle.read()
    return contents


def collect(action, planned, timeout, task_vars, parallel=1):
    """(answers by read id, None), or (None, reason) when the host could not be reached.

    A command two sources share (two parsers over one output) runs once. Each answer names the parser its
    read's plan chose for the way that gave it (engine.answered); the host is sent the commands only.
    """
    unique, copies = [], {}
    for read in _engine.wire(planned):
        key = repr(read["ways"])
        if key in copies:
            copies[key].append(read["id"])
        else:
            copies[key] = [read["id"]]
            unique.append(read)
    if _is_network_cli(action):
        raw, unreachable = _cli.collect(action._connection.socket_path, unique)
    else:
        raw, unreachable = _module_collect(action, unique, timeout, task_vars, parallel)
    if raw is None:
        return raw, unreachable
    for ids in copies.values():
        for other in ids[1:]:
            raw[other] = raw[ids[0]]
    return _engine.answers(planned, raw), unreachable


RELEASE_SECONDS = _cli.RELEASE_SECONDS


def release(action):
    """End a network_cli switch's persistent connection before the task ends (see _cli.release);
    False when it did not go in time. Other connections are Ansible's to keep."""
    if not _is_network_cli(action):
        return True
    return _cli.release(getattr(action._connection, "socket_path", None))


def released_result(action, task_vars, body):
    """body()'s result, with the network_cli connection released on every way out (see release)."""
    try:
        result = body()
    finally:
        released = release(action)  # every way out, or the next task may find it closing
    if not released:
        result.setdefault("warnings", []).append(
            "%s: the network_cli connection was still closing after %ds; the next task may fail to start one"
            % (task_vars["inventory_hostname"], RELEASE_SECONDS))
    return result


def _is_network_cli(action):
    return getattr(action._connection, "transport", "") in NETWORK_CLI


def _module_collect(action, planned, timeout, task_vars, parallel):
    args = {"sources": planned, "timeout": timeout, "payloads": payloads_for(planned), "parallel": parallel}
    try:
        raw = action._execute_module(module_name=COLLECT, module_args=args, task_vars=task_vars)
    except AnsibleError as exc:
        return None, (str(exc).splitlines() or [type(exc).__name__])[0]
    if raw.get("unreachable"):
        return None, raw.get("msg", "unreachable")
    if raw.get("failed"):
        message = (raw.get("msg") or raw.get("module_stderr") or "module failed").strip()
        attempt = "%s: %s" % (COLLECT, message[:300])
        return {source["id"]: {"status": "failed", "command": COLLECT, "msg": message, "attempts": [attempt]}
                for source in planned}, None
    return raw["sources"], None


class SourceFactsAction(EngineAction):
    """Base of the tool modules (ibstat, lsmod, ...): catalog sources in, typed facts out. Like the
    engine's steps they only read, so check mode runs them (documented as check_mode: full)."""

    SOURCES = ()
    _VALID_ARGS = frozenset(("devices", "timeout"))
    # As the modules document them: a string for `devices` is one device (or a comma list), never its
    # characters one by one; a number of seconds is a number.
    ARGUMENT_SPEC = {"devices": {"type": "list", "elements": "str"}, "timeout": {"type": "int", "default": 60}}

    def arguments(self):
        """The task's arguments, type-checked against ARGUMENT_SPEC (AnsibleActionFail naming what is wrong):
        every device an RDMA device name, which `mlxconfig -d` can never read as an option."""
        _validation, args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)
        bad = [device for device in args.get("devices") or [] if not DEVICE_NAME.match(device)]
        if bad:
            raise AnsibleActionFail("devices: %s %s not an RDMA device name (letters, digits, '_', '.', '-', not first '-')"
                                    % (", ".join(repr(device) for device in bad), "is" if len(bad) == 1 else "are"))
        return args

    def collect_facts(self, task_vars, names=None):
        """(facts by source name, error message or None)."""
        catalog = _catalog.load_catalog()
        names = list(names or self.SOURCES)
        args = self.arguments()
        expect = {"pyramid_rails": args.get("devices") or catalog["expectations"]["pyramid_rails"]["default"]}
        collected, unreachable = collect(self, _engine.reads(names, catalog, expect), args["timeout"], task_vars)
        if unreachable:
            return None, "host unreachable: %s" % unreachable
        facts = _engine.parse_sources(names, catalog, collected, expect)
        failures = []
        for name in names:
            source = catalog["sources"][name]
            items = facts[name].values() if _engine.foreach_of(source, expect) else [facts[name]]
            if not source.get("optional"):
                failures.extend(item for item in items if isinstance(item, SourceFailure))
        if failures:
            return facts, "; ".join(failure.reason for failure in failures)
        return facts, None

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        facts, error = self.collect_facts(task_vars)
        if error:
            return dict(result, failed=True, msg="%s: %s" % (task_vars["inventory_hostname"], error))
        return dict(result, changed=False, **self.shape(facts))

    def shape(self, facts):
        return facts[self.SOURCES[0]]
