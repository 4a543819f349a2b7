# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of the engine's action plugins."""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from . import catalog as _catalog


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
