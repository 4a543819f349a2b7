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
    """Write the report's files; report.html last, so that a page that cannot be drawn loses no other file. Returns
    the warnings to show (the page's failure, said; the run's verdict stands on the other files)."""
    run_dir = report["run_dir"]
    _whole(run_dir, "report.json", json.dumps(report, indent=2, sort_keys=True))
    for name, text in (("report.md", _report.markdown(report)), ("junit.xml", _report.junit(report))):
        _whole(run_dir, name, text)
    try:
        page = _html.render(report)
    except Exception as exc:  # pylint: disable=broad-exception-caught
        return ["report.html not written (%s: %s); report.md, report.json and junit.xml are" % (type(exc).__name__, exc)]
    _whole(run_dir, "report.html", page)
    return []


def _whole(run_dir, name, text):
    """A file written whole or not at all (a temporary file renamed): a Ctrl-C mid-write never leaves half of one."""
    tmp = os.path.join(run_dir, ".%s.%d.tmp" % (name, os.getpid()))  # open(): the umask's mode, as before
    try:
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, os.path.join(run_dir, name))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
