# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One results file per device in the run directory, and the layer gate read from it."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile

from .model import BLOCKED, ERROR, FAIL, SKIP, count_statuses
from .secrets import mask_text, mask_values

NOT_PASSING = (FAIL, ERROR, BLOCKED)  # BLOCKED: a switch in the host's path failed that layer


def host_path(run_dir, host):
    # a device found in a read rather than the inventory may bear any name its fabric gives it (an InfiniBand switch's
    # node description: "MF0;sw-ib01:MQM9700/U1"): its file's name keeps what a file name can hold
    safe = re.sub(r"[^A-Za-z0-9_.:@+=-]", "_", host)
    if safe != host:  # two names that differ only where a file name cannot (";" and " ") keep two files
        safe += "-" + hashlib.sha256(host.encode("utf-8")).hexdigest()[:8]
    return os.path.join(run_dir, "devices", "%s.json" % safe)


FOUND = "found_devices.json"  # the devices of the run found in a read, not the inventory: {name: where it was found}


def add_found(run_dir, names, where):
    """Remember ``names`` as devices of the run found in a read (``where``, in words: "the InfiniBand subnet read on
    node-001"), which the report judges on the records they hold (report/go_no_go.py build)."""
    found = found_devices(run_dir)
    found.update({name: found.get(name, where) for name in names})
    path = os.path.join(run_dir, FOUND)
    handle, tmp = tempfile.mkstemp(dir=run_dir, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(found, out, indent=1, sort_keys=True)
    os.replace(tmp, path)


def found_devices(run_dir):
    """{name: where it was found} of the run's devices found in a read (add_found); {} where none was."""
    try:
        with open(os.path.join(run_dir, FOUND), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {}


def load(run_dir, host):
    try:
        with open(host_path(run_dir, host), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {"host": host, "results": [], "facts": {}}


def save(run_dir, doc):
    """Write the device's results file; secret-looking expectations and command arguments masked (core/secrets.py)."""
    doc = dict(doc, expect=mask_values(doc.get("expect", {})),
               results=[dict(r, command=mask_text(r.get("command"))) for r in doc["results"]])
    path = host_path(run_dir, doc["host"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        # compact: each task rewrites its device's file, and json's C encoder serves only an unindented dump (an
        # indented one, in Python, took a fifth of a 32-node run's controller CPU spent in these steps); `jq .` reads it
        json.dump(doc, out, sort_keys=True)
    os.replace(tmp, path)  # atomic: a reader never sees half a file


# The FAIL and ERROR records this process has recorded since they were last taken: an Ansible worker runs one task,
# and the engine's action hands them to the terminal with the task's result (core/action.py, the progress callback:
# one line each while the run goes on, issue 39). Bounded: a process that records without handing on (a test) keeps
# the first FINDINGS_KEPT.
_FINDINGS = []
FINDINGS_KEPT = 10000


def record(doc, results):
    """Add results, replacing earlier ones of the same check (a re-run of a layer)."""
    new = {(r["layer"], r["check"]) for r in results}
    doc["results"] = [r for r in doc["results"] if (r["layer"], r["check"]) not in new] + list(results)
    for found in results:
        if found["status"] in (FAIL, ERROR) and len(_FINDINGS) < FINDINGS_KEPT:
            _FINDINGS.append({"host": found.get("host") or doc.get("host"), "layer": found["layer"], "check": found["check"],
                              "status": found["status"], "actual": found.get("actual"), "cause": found.get("cause")})


def record_each(run_dir, records):
    """The one load-record-save of a runner: each device's results file loaded once, its records (each naming its
    "host") recorded, replacing earlier ones of the same check, and saved. {status: count} of the records."""
    by_host = {}
    for found in records:
        by_host.setdefault(found["host"], []).append(found)
    for host, found in by_host.items():
        doc = load(run_dir, host)
        record(doc, found)
        save(run_dir, doc)
    return {status: count for status, count in count_statuses(records).items() if count}


def take_findings():
    """The FAIL and ERROR records recorded in this process since the last call (each once)."""
    found = list(_FINDINGS)
    del _FINDINGS[:]
    return found


def stopped_at(results):
    """Lowest layer with a FAIL or ERROR, or None."""
    layers = [r["layer"] for r in results if r["status"] in NOT_PASSING]
    return min(layers) if layers else None


def climbs(results, layer, own_checks=()):
    """Whether a device joins a run across devices at ``layer`` (the rail mesh, the incast, the straggler hunt):
    every record up to and including ``layer`` (``own_checks``, the run's own, aside: a rerun judges them anew)
    passed, and at least one of them proves something. A not-applicable SKIP neither stops it nor lets it climb
    alone: a node whose only records are checks that do not apply to it has proven nothing (issue 34: the mesh let
    it climb, the hunt did not). Any other SKIP (not run: blocked) stops it, as FAIL, ERROR and BLOCKED do."""
    proof = [r for r in results if r["layer"] <= layer and r["check"] not in own_checks and not r.get("not_applicable")]
    return bool(proof) and not any(r["status"] in NOT_PASSING or r["status"] == SKIP for r in proof)


def blocker(results, layer):
    """Why a device may not climb to ``layer``: (failed layer, failing checks), or None."""
    below = [r for r in results if r["layer"] < layer and r["status"] in NOT_PASSING]
    if not below:
        return None
    lowest = min(r["layer"] for r in below)
    return lowest, sorted({r["check"] for r in below if r["layer"] == lowest})
