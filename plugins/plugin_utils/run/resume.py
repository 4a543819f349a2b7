# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A run resumed from an earlier run's directory (issue 71: a failure at Layer 5 meant the whole pod again).

``-e pyramid_resume=<run dir>``: the layers every device of this run passed there are taken over - their results
copied into this run's directory, each marked with the run it came from - and their plays skipped; the first layer any
device did not pass there, and every layer above it, run again. Only what would be judged the same is reused:

- every device of this run has a results file there (a node new to the pod proves its layers itself);
- that run is younger than ``pyramid_resume_max_age_minutes`` (its name is its start, core/inventory.new_run_dir);
- every expectation a reused layer's checks judge against is the same for that device now (a threshold of Layer 5
  changed after its failure does not undo Layers 0-4; a changed rail plan does);
- a layer is reused only where every device has a record of it and none failed, errored, was blocked or not run.

A run whose lower layers cannot be reused runs in full and says why: resuming never makes a verdict of its own.
"""

from __future__ import annotations

import datetime
import json
import os
import re

from ..core import results as _results
from ..core.model import PASS, SKIP
from ..core.secrets import mask_values

EXPECTATIONS = "expectations.json"  # {host: typed expectations}, pre-flight's, masked (open_docs)
MARKER = "resumed.json"  # {"from", "layers", "age_minutes", "said"} in the resumed run's directory
TOP_REUSED = 6  # Layer 7 (telemetry) reads what Prometheus holds now: never taken over
_STAMP = re.compile(r"^(\d{8}T\d{6}Z)-")


def started(run_dir):
    """The UTC start of a run from its directory's name (core/inventory.new_run_dir), or None."""
    match = _STAMP.match(os.path.basename(os.path.normpath(run_dir)))
    if not match:
        return None
    return datetime.datetime.strptime(match.group(1), "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)


def _plain(value):
    """The expectation as its results file holds it (masked, JSON), to compare with what the old run wrote."""
    return json.loads(json.dumps(mask_values(value), sort_keys=True, default=str))


def judged_by(catalog, layer):
    """The expectations the checks of ``layer`` judge against: a change in one of them undoes the layer's reuse."""
    return {name for check in catalog["checks"] if check["layer"] == layer for name in check.get("expect") or []}


def passed_layer(records):
    """Whether a device's records of one layer all passed: PASS, or a SKIP its check does not apply to it."""
    return bool(records) and all(r["status"] == PASS or (r["status"] == SKIP and r.get("not_applicable")) for r in records)


def plan(old_dir, hosts, expect_of, catalog, now, max_age_minutes):
    """{"layers": [layers to take over], "docs": {host: results file to start from}, "said": why, "from": old_dir}."""
    found = {"layers": [], "docs": {}, "from": os.path.abspath(old_dir)}
    begun = started(old_dir)
    if begun is None or not os.path.isdir(os.path.join(old_dir, "devices")):
        return dict(found, said="nothing reused: %s is not a run directory of gpufabric.pyramid" % old_dir)
    age = (now - begun).total_seconds() / 60.0
    found["age_minutes"] = round(age, 1)
    if age > max_age_minutes:
        return dict(found, said="nothing reused: %s began %.0f minutes ago, older than pyramid_resume_max_age_minutes (%s)"
                    % (old_dir, age, max_age_minutes))
    missing = [host for host in hosts if not os.path.exists(_results.host_path(old_dir, host))]
    if missing:
        return dict(found, said="nothing reused: %s has no results of %s" % (old_dir, ", ".join(missing[:5])))
    then = _expectations_then(old_dir)
    # the devices that run found in a read (an InfiniBand subnet's switches the link run named): a layer one of them
    # did not pass is not taken over either, and those taken over come with their records
    seen = {name: where for name, where in _results.found_devices(old_dir).items() if name not in hosts}
    olds = {host: dict(_results.load(old_dir, host)) for host in list(hosts) + sorted(seen)}
    for host, doc in olds.items():
        doc["expect_then"] = then.get(host) or doc.get("expect") or {}

    def expect_now(host):  # a device found in a read has no inventory variables to compare
        return {} if host in seen else expect_of(host)

    for layer in range(TOP_REUSED + 1):
        why = _not_reusable(layer, olds, expect_now, judged_by(catalog, layer), seen)
        if why:
            break
        found["layers"].append(layer)
    if not found["layers"]:
        return dict(found, said="nothing reused from %s: %s" % (old_dir, why))
    found["docs"] = {host: dict({key: value for key, value in doc.items() if key != "expect_then"}, host=host,
                                results=[dict(r, reused_from=os.path.basename(os.path.normpath(old_dir)))
                                         for r in doc["results"] if r["layer"] in found["layers"]])
                     for host, doc in olds.items()}
    found["found_devices"] = {name: where for name, where in seen.items() if found["docs"][name]["results"]}
    return dict(found, said="layers %s taken over from %s (%.0f minutes old: every device passed them there, nothing "
                "they judge has changed); layer %s and above run again%s" % (
                    _span(found["layers"]), os.path.basename(os.path.normpath(old_dir)), age,
                    found["layers"][-1] + 1, " (%s)" % why if why else ""))


def _not_reusable(layer, olds, expect_of, names, seen=()):
    """Why ``layer`` cannot be taken over (the first device that stops it), or None. A device found in a read
    (``seen``) holds records of the layer that found it alone: it stops no other layer."""
    for host, doc in olds.items():
        records = [r for r in doc["results"] if r["layer"] == layer]
        if host in seen and not records:
            continue
        if not passed_layer(records):
            bad = sorted({"%s %s" % (r["check"], r["status"]) for r in records if r["status"] != PASS})
            return "%s did not pass layer %d there%s" % (host, layer, ": " + ", ".join(bad[:3]) if bad else ": no record")
        now, then = _plain(expect_of(host) or {}), doc["expect_then"]
        changed = sorted(name for name in names if name in now and now.get(name) != then.get(name))
        if changed:
            return "%s's %s changed since that run (layer %d judges it)" % (host, ", ".join(changed[:3]), layer)
    return None


def _span(layers):
    return "%d-%d" % (layers[0], layers[-1]) if len(layers) > 1 else str(layers[0])


def open_docs(run_dir, typed, found=None):
    """Keep every device's expectations as pre-flight typed them (``typed``: {host: typed expectations}) in
    expectations.json, so that a later resume compares them all, those of the checks the layers' own runs judge too
    (the rail mesh, the incast, the fabric rounds), which a results file's `expect` does not hold; with ``found``
    (plan()) write the results taken over and the marker. The layers taken over."""
    found = found or {"docs": {}, "layers": []}
    with open(os.path.join(run_dir, EXPECTATIONS), "w", encoding="utf-8") as out:
        json.dump({host: mask_values(dict(expect)) for host, expect in typed.items()}, out, sort_keys=True, default=str)
    for doc in found["docs"].values():
        if doc["host"] not in found.get("found_devices", {}) or doc["results"]:
            _results.save(run_dir, doc)
    for name, where in (found.get("found_devices") or {}).items():
        _results.add_found(run_dir, [name], where)
    if found.get("said"):
        with open(os.path.join(run_dir, MARKER), "w", encoding="utf-8") as out:
            json.dump({key: found.get(key) for key in ("from", "layers", "age_minutes", "said")}, out, indent=2, sort_keys=True)
    return found["layers"]


def _expectations_then(old_dir):
    """{host: expectations} the old run's pre-flight kept (expectations.json), or {} (a run from before it was kept:
    each results file's `expect` then, which holds only what its layers' own checks read)."""
    try:
        with open(os.path.join(old_dir, EXPECTATIONS), encoding="utf-8") as handle:
            found = json.load(handle)
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def read_marker(run_dir):
    try:
        with open(os.path.join(run_dir, MARKER), encoding="utf-8") as handle:
            found = json.load(handle)
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


DEFAULT_MAX_AGE_MINUTES = 240


def from_variables(variables, hosts, expect_of, catalog, now=None):
    """Pre-flight's resume (pyramid_resume, pyramid_resume_max_age_minutes): (plan() or None, problem). No
    pyramid_resume: (None, None). A bad age or a directory that is not there is a problem: the run stops before any
    host is touched."""
    old_dir = variables.get("pyramid_resume")
    if not old_dir:
        return None, None
    age = variables.get("pyramid_resume_max_age_minutes", DEFAULT_MAX_AGE_MINUTES)
    try:
        age = float(age)
    except (TypeError, ValueError):
        age = -1.0
    if age <= 0:
        return None, "pyramid_resume_max_age_minutes must be a positive number of minutes, not %r" % (
            variables.get("pyramid_resume_max_age_minutes"),)
    old_dir = os.path.expanduser(str(old_dir))
    if not os.path.isdir(old_dir):
        return None, "pyramid_resume: %s is not a directory (the run directory of the run to resume)" % old_dir
    return plan(old_dir, hosts, expect_of, catalog, now or datetime.datetime.now(datetime.timezone.utc), age), None
