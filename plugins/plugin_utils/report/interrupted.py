# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report of an interrupted run (issue 66: Ctrl-C lost what Layers 0-3 had judged).

A run directory keeps what it needs to be reported at any time: each device's results file (core/results.py) and
run.json, the run's devices as pre-flight found them (written by the progress callback as pre-flight ends). An
interrupted run leaves interrupted.json beside them - where it stood (layer, play, task) and by which signal - and its
report is the ordinary one (report/go_no_go.py, report/files.py) marked so: never GO, a line at the top, the checks it
never reached "not run: the run was interrupted ...". ``playbooks/report.yml`` writes the same from the same files.
"""

from __future__ import annotations

import datetime
import json
import os
import re

RUN_FILE = "run.json"  # {"devices": {device type: [hosts]}, "pod_order": [GPU nodes in inventory order]}
MARKER = "interrupted.json"  # {"layer", "play", "task", "signal", "at"}
NOT_RUN = "not run in this play"  # report/go_no_go.py's words for a check a host with results never reached
_LAYER_NAME = re.compile(r"^Layer (\d+)\b")
_LAYER_TAG = re.compile(r"^layer(\d+)$")


def write_json(path, data):
    """Write data whole or not at all: a second Ctrl-C mid-write leaves the old file or none (a SIGKILL, a stray .tmp)."""
    tmp = os.path.join(os.path.dirname(path), ".%s.%d.tmp" % (os.path.basename(path), os.getpid()))
    try:
        with open(tmp, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2, sort_keys=True)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def read_json(path):
    """The file's JSON object, or None when it is absent or not a whole JSON object (never half of one: write_json)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def remember_run(run_dir, devices, pod_order):
    """run.json: which devices this run validates, for a report written from the directory alone."""
    write_json(os.path.join(run_dir, RUN_FILE), {"devices": devices, "pod_order": list(pod_order or [])})


def recorded_run(run_dir):
    """run.json's {"devices", "pod_order"}, or None (a run directory from before it was written, or none)."""
    run = read_json(os.path.join(run_dir, RUN_FILE))
    if not run or not isinstance(run.get("devices"), dict):
        return None
    return run


def layer_of(play_name, play_tags=()):
    """The layer a play runs: its name's "Layer N", else its tag layerN (the soak's start); None for pre-flight and
    the report."""
    found = _LAYER_NAME.match(str(play_name or ""))
    if found:
        return int(found.group(1))
    layers = sorted({int(m.group(1)) for m in (_LAYER_TAG.match(str(tag)) for tag in play_tags or ()) if m})
    return layers[0] if layers else None


def marker(layer, play, task, signal_name, now=None):
    return {"layer": layer, "play": play, "task": task, "signal": signal_name,
            "at": (now or datetime.datetime.now(datetime.timezone.utc)).isoformat(timespec="seconds")}


def where(found):
    """'interrupted at layer 4, task "Run this round's clients - round 1"'."""
    place = "at layer %d" % found["layer"] if found.get("layer") is not None else "in %s" % (found.get("play") or "its first play")
    return "interrupted %s%s" % (place, ', task "%s"' % found["task"] if found.get("task") else "")


def said(found):
    """The report's first line: where it was interrupted, by what, when, and what that means."""
    return "%s (%s at %s): what it had not reached is not run, and such a run is never GO" % (
        where(found), found.get("signal") or "interrupted", found.get("at") or "?")


def read_marker(run_dir):
    return read_json(os.path.join(run_dir, MARKER))


def mark(report, found):
    """The report of an interrupted run: marked, NO-GO, each check it never reached said to be cut short. A report
    with no marker (a run that ended) is returned as it is."""
    if not found:
        return report
    report["interrupted"] = dict(found, said=said(found))
    report["verdict"] = "NO-GO"
    cut_short = "not run: the run was %s" % where(found)
    for info in report["hosts"].values():
        for record in info["checks"]:
            if record.get("actual") == NOT_RUN and record["status"] == "SKIP":
                record["actual"] = cut_short
        cause = info.get("cause")  # the device's cause, where the report gives one, in the same words
        if isinstance(cause, dict) and NOT_RUN in str(cause.get("text")):
            cause["text"] = str(cause["text"]).replace(NOT_RUN, cut_short)
    for row in report.get("checklist") or []:  # and each row's why, per device, where the report gives one
        for value in row.values():
            if isinstance(value, dict):
                value.update({key: text.replace(NOT_RUN, cut_short) for key, text in value.items()
                              if isinstance(text, str) and NOT_RUN in text})
    return report


def finished_report(run_dir):
    """True when the run directory holds the complete report of a run that ended: never overwritten."""
    done = read_json(os.path.join(run_dir, "report.json"))
    return bool(done) and not done.get("interrupted")


def write_report(run_dir, found, devices=None, pod_order=None):
    """Write the interrupted run's report from its run directory: (report, warnings), or (None, why not). The devices
    are run.json's unless given; a finished report is left as it is."""
    if finished_report(run_dir):
        return None, "the run's report was complete already (%s/report.json)" % run_dir
    run = recorded_run(run_dir) or {}
    devices = devices if devices is not None else run.get("devices")
    if not devices:
        return None, "no devices recorded in %s/%s: the run stopped before pre-flight ended" % (run_dir, RUN_FILE)
    # the progress callback imports this module for every run: the report's own modules only when one is written
    from ..core import catalog as _catalog  # pylint: disable=import-outside-toplevel
    from . import files as _files, go_no_go as _report  # pylint: disable=import-outside-toplevel
    write_json(os.path.join(run_dir, MARKER), found)  # first: a report written later from this directory says it too
    devices = {device: list(hosts or []) for device, hosts in devices.items()}
    report = _report.build(_catalog.load_catalog(), run_dir, devices,
                           pod_order=list(pod_order if pod_order is not None else run.get("pod_order") or []))
    warnings = _files.write(mark(report, found))
    return report, warnings
