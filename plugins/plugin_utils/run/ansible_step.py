# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a phase of a run asks of Ansible, in one place: the action plugin that runs the phase makes an AnsibleStep and
hands it to the phase's logic (run/incast_phases.py, run/rail_mesh_phases.py), which calls only these methods, so a
unit test runs that logic with a fake step and no Ansible."""

from __future__ import annotations

from ansible import context

from ..core import catalog as _catalog
from ..core.action import EngineAction
from ..core.task_vars import host_expectations
from . import ansible_collect as _collector
from . import check_mode as _check_mode


class RunError(Exception):
    """A phase cannot go on (no plan where one was due, an expectation refused): the task fails with this message."""


class AnsibleStep:
    """One task's view of the run: its host, the play's groups and forks, every host's expectations, a module run on
    the task's host and the catalog's commands collected there."""

    def __init__(self, action, task_vars):
        self._action, self._task_vars = action, task_vars

    @property
    def host(self):
        return self._task_vars["inventory_hostname"]

    @property
    def groups(self):
        return self._task_vars["groups"]

    @property
    def forks(self):
        """The run's forks (ansible-playbook -f), None where the command line did not say."""
        return context.CLIARGS.get("forks")

    def expectations(self, host, catalog, checks, extra=()):
        """The typed expectations the checks read on ``host`` (its inventory variables, templated), and ``extra``."""
        variables = self._task_vars if host == self.host else self._task_vars["hostvars"][host]
        expect, errors = host_expectations(self._action._templar, variables, catalog, checks, extra)
        if errors:
            raise RunError("%s: invalid expectations: %s" % (host, "; ".join(errors)))
        return expect

    def execute(self, module, args):
        """Run a module on the task's host (or the host the task is delegated to); its result."""
        return self._action._execute_module(module_name=module, module_args=args, task_vars=self._task_vars)

    def collect(self, planned, timeout, parallel=1):
        """The planned reads' answers on the task's host, each naming its parser: (answers by source id, None) or (None, why unreachable)."""
        return _collector.collect(self._action, planned, timeout, self._task_vars, parallel=parallel)


def failed_on_run_error(result, phase, *args):
    """The task's result of ``phase(*args)``; a RunError fails the task with its message."""
    try:
        return phase(*args)
    except RunError as exc:
        return dict(result, failed=True, msg=str(exc))


class PhasedRunAction(EngineAction):
    """The action plugin of a phased run (docs/adding-a-check.md "Adding a new kind of run"): a task runs one phase.
    ``PHASES`` is the kind's class: ``PHASES(step, catalog, args)``, its phase names in ``PHASES.NAMES``, a method per
    phase taking (result, args) and returning the task's result, and optionally ``idle(result)``, the result of every
    phase when the run has nothing to do. A network_cli device's connection is released however the phase ends."""

    PHASES = None
    _requires_connection = True  # a device phase talks to its device
    # A kind's rounds are looped over by its role from these keys of a phase's result: empty in check mode.
    ROUND_KEYS = ("rounds", "retest_rounds", "leaves")

    def run(self, tmp=None, task_vars=None):
        result = dict(super().run(tmp, task_vars), changed=False)
        args = self._task.args
        phase = args.get("phase")
        if phase not in self.PHASES.NAMES:
            return dict(result, failed=True, msg="phase must be one of %s, got %r" % (", ".join(self.PHASES.NAMES), phase))
        catalog, step = _catalog.load_catalog(), AnsibleStep(self, task_vars)
        phases = self.PHASES(step, catalog, args)
        idle = getattr(phases, "idle", lambda result: None)(result)
        if idle is not None:
            return idle
        if self._task.check_mode:
            not_run = failed_on_run_error(result, _not_run_in_check_mode, result, phase, phases, step, catalog, args)
            if not_run is not None:
                return not_run
        return _collector.released_result(self, task_vars, lambda: failed_on_run_error(result, getattr(phases, phase), result, args))


def _not_run_in_check_mode(result, phase, phases, step, catalog, args):
    """Check mode for a kind of run whose checks (``phases.checks``) load the fabric or the GPUs: no round runs (every
    phase's rounds empty) and its last phase records each host's checks as not run; None where the kind only reads. A
    kind whose own checks only read but whose runner loads (the link run) says itself what check mode does
    (``phases.check_mode``)."""
    if hasattr(phases, "check_mode"):
        return phases.check_mode(result, phase, args)
    checks = phases.checks
    if not _check_mode.loads(checks, catalog, step.expectations(step.host, catalog, checks)):
        return None
    empty = dict(result, **{key: [] for key in PhasedRunAction.ROUND_KEYS})
    if phase != phases.NAMES[-1]:
        return dict(empty, msg="%s: %s" % (phase, _check_mode.NOT_RUN))
    counts = _check_mode.record_not_run(args["run_dir"], list(args.get("hosts") or []), checks, catalog,
                                        lambda host: step.expectations(host, catalog, checks), references=args.get("references"))
    return dict(empty, counts=counts, msg="%s: %s" % (", ".join(check["id"] for check in checks), _check_mode.NOT_RUN))
