#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/verdict.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: verdict
short_description: End a run on its go/no-go verdict with one line
version_added: 0.1.0
description:
  - On C(GO) returns O(msg) and changes nothing.
  - "On C(NO-GO) fails the host with O(msg) as the one line the run ends with, so C(ansible-playbook)
    exits non-zero and AWX marks the job failed, without ansible-core's error block (an
    C([ERROR]: Task failed) line, the task's origin and a code excerpt) that reads like a crash."
  - The role C(gpufabric.pyramid.report) calls it last, after M(gpufabric.pyramid.go_no_go).
options:
  verdict:
    description: The run's verdict, as M(gpufabric.pyramid.go_no_go) returns it.
    type: str
    required: true
    choices: [GO, NO-GO]
  msg:
    description: The line to end with.
    type: str
    required: true
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.action
"""

EXAMPLES = r"""
- name: End with the verdict
  gpufabric.pyramid.verdict:
    verdict: "{{ pyramid_report.verdict }}"
    msg: "{{ pyramid_report.verdict }}: see {{ pyramid_report.run_dir }}/report.md"
"""

RETURN = r"""
msg:
  description: The line given.
  returned: always
  type: str
"""
