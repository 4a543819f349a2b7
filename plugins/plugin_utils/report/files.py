# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report's files in the run directory: report.json, report.md, report.html and junit.xml."""

from __future__ import annotations

import json
import os

from . import go_no_go as _report, html as _html

NAMES = ("report.md", "report.html", "report.json", "junit.xml")


def write(report):
    run_dir = report["run_dir"]
    with open(os.path.join(run_dir, "report.json"), "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=2, sort_keys=True)
    for name, text in (("report.md", _report.markdown(report)), ("report.html", _html.render(report)),
                       ("junit.xml", _report.junit(report))):
        with open(os.path.join(run_dir, name), "w", encoding="utf-8") as handle:
            handle.write(text)
