# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which switch tiers the run's traffic between nodes crossed, from what ran (issue 72): the rail mesh's pairs of Layers 2
and 4 (their plan files, retests included) and every run of the launcher (hunt/*.log, each naming its nodes). A report of
a one-unit pod says that the spine layer carried no test traffic, so nobody reads the spines as loaded (run/tiers.py)."""

from __future__ import annotations

import glob
import os
import re

from ..core import catalog as _catalog
from ..run import rail_mesh as _mesh, tiers as _tiers

PATTERNS = ("pairs", "ring", "all_to_all")  # a fabric check's `traffic` (pre-flight refuses another: run/catalog_references.py)
_NODES = re.compile(r"^# nodes: (.*)$", re.M)


def _mesh_pairs(run_dir, layer):
    try:
        plan = _mesh.load_plan(run_dir, layer)
    except (OSError, ValueError):
        return []
    return [(run["client"], run["server"]) for runs in (plan or {}).get("rounds") or [] for run in runs]


def _traffic(name, catalog):
    """The pattern of a hunt log's run (its check's `traffic`: a log's name starts with its check's id, then "-"); pairs
    where no check of the catalog names it."""
    found = [check for check in catalog["checks"] if check.get("traffic") and name.startswith(check["id"] + "-")]
    return found[0]["traffic"] if found else "pairs"


def _hunt_runs(run_dir, catalog):
    """{pattern: [groups]} of the launcher's runs across nodes that named their nodes."""
    runs = {pattern: [] for pattern in PATTERNS}
    for path in sorted(glob.glob(os.path.join(run_dir, "hunt", "*.log"))):
        name = os.path.basename(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
        found = _NODES.search(head)
        if not found or "," not in found.group(1):
            continue  # a run on one node (or a log of an older run without its nodes) crosses no switch between nodes
        pattern = _traffic(name, catalog)
        runs[pattern].append(found.group(1).split(","))
    return runs


def loaded(run_dir, units, catalog=None):
    """[(what ran, the sentence of the tiers it crossed)] for what ran between nodes; [] where nothing did."""
    said = []
    for layer, what in ((2, "Layer 2 ping mesh"), (4, "Layer 4 ib_write_bw")):
        pairs = _mesh_pairs(run_dir, layer)
        if pairs:
            said.append((what, _tiers.crossed(units, pairs)["text"]))
    runs = _hunt_runs(run_dir, catalog or _catalog.load_catalog())
    for pattern, what in (("pairs", "Layers 5-6 runs on node pairs"), ("ring", "Layers 5-6 runs across several nodes"),
                          ("all_to_all", "Layer 5 all-to-all across the pod")):
        if runs[pattern]:
            said.append((what, _tiers.crossed(units, runs[pattern], pattern)["text"]))
    return said
