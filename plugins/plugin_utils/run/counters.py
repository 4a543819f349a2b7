# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Counters judged over a window: read once at the snapshot (before Layer 1), again at the check.

A catalog source with `counters: true` reaches its judge as {"before": facts, "after": facts,
"seconds": s}. The snapshot of every such source of a device is taken in one pass over all devices,
so the soak is waited out once per run, not once per device. Each window is also written to
counters/<device>.json in the run directory: the idle baseline for a load test and later runs.
"""

from __future__ import annotations

import json
import os
import time

from . import engine as _engine
from ..core.model import SourceFailure


def source_names(catalog, checks):
    return [name for name in _engine.source_names(checks) if catalog["sources"][name].get("counters")]


def take(doc, facts):
    doc["snapshot"] = {"at": time.time(), "facts": _engine.serializable_facts(facts)}


def wait(doc, soak_seconds):
    """Sleep until the snapshot is soak_seconds old; the seconds slept."""
    if "snapshot" not in doc:
        return 0.0
    remaining = doc["snapshot"]["at"] + soak_seconds - time.time()
    if remaining > 0:
        time.sleep(remaining)
    return max(remaining, 0.0)


def windows(facts, names, doc):
    """Replace each counters source's facts by its window since the snapshot (or why there is none)."""
    snapshot = doc.get("snapshot")
    now = time.time()
    for name in names:
        after = facts[name]
        if snapshot is None or name not in snapshot["facts"]:
            facts[name] = SourceFailure("(counter snapshot)", "no snapshot of %s before the soak: the snapshot task did not "
                                        "run on this device (run playbooks/validate.yml, not a single layer)" % name)
            continue
        before = _engine.restore_facts(snapshot["facts"][name])
        if isinstance(before, SourceFailure):
            facts[name] = SourceFailure(before.command, "at the snapshot: " + before.reason, before.status, before.output)
        elif not isinstance(after, SourceFailure):
            facts[name] = {"before": before, "after": after, "seconds": int(round(now - snapshot["at"]))}


def save(run_dir, host, layer, windows_by_source):
    """counters/<host>.json: every counter window of the device, by layer."""
    path = os.path.join(run_dir, "counters", "%s.json" % host)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except FileNotFoundError:
        doc = {"host": host, "layers": {}}
    doc["layers"]["layer%d" % layer] = {name: _engine.serializable_facts(facts) for name, facts in windows_by_source.items()}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(doc, handle, indent=2, sort_keys=True)
