# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the go/no-go report of a run from the devices' results files."""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import _catalog, _report


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True  # touches no host: it writes the run's reports on the controller
    _requires_connection = False
    _VALID_ARGS = frozenset(("run_dir", "devices"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        devices = {device: list(hosts or []) for device, hosts in (self._task.args.get("devices") or {}).items()}
        report = _report.build(_catalog.load_catalog(), self._task.args["run_dir"], devices)
        _report.write(report)
        return dict(result, changed=False, verdict=report["verdict"], summary=report["summary"],  # reports change no device
                    run_dir=report["run_dir"], checklist=_report.checklist_text(report))
