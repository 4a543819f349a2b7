# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of the engine's action plugins."""

from __future__ import annotations

import functools

from ansible.plugins.action import ActionBase

from . import catalog as _catalog, results as _results


def _load_the_catalog_before_the_workers_fork():
    """Ansible's strategy imports each task's action plugin in the controller's main process (to read its class) and
    runs the task in a worker forked from it, once per host. The catalog loaded here, once, is every worker's from the
    start; loaded in the workers it was parsed again for each host and task (about 50 ms each: 8 minutes of controller
    CPU for 20 tasks on 512 nodes). A broken catalog is left for the step that needs it to report, with its host."""
    try:
        _catalog.load_catalog()
    except Exception:  # pylint: disable=broad-exception-caught  # reported by the step, never at import
        pass


_load_the_catalog_before_the_workers_fork()


class EngineAction(ActionBase):
    """An engine step: it only reads devices and writes the run's results on the controller, so check
    mode (an AWX "check" job) runs it as it is instead of skipping it; it copies no files to a device."""
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _requires_connection = False  # a step that talks to its device through a module says so (run_layer)

    def __init_subclass__(cls, **kwargs):
        """Every engine step's result carries the FAIL and ERROR records it wrote (``pyramid_findings``), for the
        progress callback to print one line each as the run goes (issue 39): the class's own ``run`` is wrapped,
        and only the outermost call of a task hands them on (a subclass's run calling its base's)."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("run")
        if own is not None:
            cls.run = _handing_on_findings(own)


def _handing_on_findings(run):
    @functools.wraps(run)
    def wrapped(self, tmp=None, task_vars=None):
        outermost = not getattr(self, "_pyramid_in_run", False)
        self._pyramid_in_run = True
        try:
            result = run(self, tmp, task_vars)
        finally:
            if outermost:
                self._pyramid_in_run = False
        if outermost and isinstance(result, dict):
            found = _results.take_findings()
            if found:
                result["pyramid_findings"] = found
        return result
    return wrapped
