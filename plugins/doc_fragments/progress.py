# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    # The options of the progress callback, shared by gpufabric.pyramid.progress and the copy the collection's
    # playbooks load beside them (playbooks/callback_plugins/pyramid_progress.py): one set of settings for both.
    DOCUMENTATION = r"""
options:
  interval:
    description:
      - Seconds between two progress lines of a task, and how long a task runs before its first line.
      - 0 switches the lines off.
    type: float
    default: 15
    ini:
      - section: callback_progress
        key: interval
    env:
      - name: PYRAMID_PROGRESS_INTERVAL
  findings:
    description:
      - Print each FAIL and ERROR as the task that judged it ends (the engine's results carry them as
        C(pyramid_findings)).
    type: bool
    default: true
    ini:
      - section: callback_progress
        key: findings
    env:
      - name: PYRAMID_PROGRESS_FINDINGS
  finding_width:
    description: Characters kept of a finding's found value and of its cause in its line (the report keeps them whole).
    type: int
    default: 160
    ini:
      - section: callback_progress
        key: finding_width
    env:
      - name: PYRAMID_PROGRESS_FINDING_WIDTH
  checklist:
    description:
      - Print the go/no-go checklist as plain lines when the report is written (the report task's results carry it as
        C(pyramid_checklist_lines)).
    type: bool
    default: true
    ini:
      - section: callback_progress
        key: checklist
    env:
      - name: PYRAMID_PROGRESS_CHECKLIST
"""
