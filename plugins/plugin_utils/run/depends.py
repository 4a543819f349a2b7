# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One cause per failure: a check whose prerequisite on the same device (the catalog's `depends_on`) did not pass is
not an ERROR of its own. With no RDMA device (rails_present FAIL), every rail read fails; those ERRORs are the same
fact, and each reads SKIP "depends on rails_present (FAIL)" instead, folded under it in the report. A dependent's
FAIL or PASS stands: it was judged, and what it found is its own (a rail at 200G on a node missing another rail)."""

from __future__ import annotations

from ..core.model import ERROR, FAIL
from ..judging import unjudged as _unjudged


def fold(records, catalog, earlier):
    """``records`` of one device judged now, in catalog order; ``earlier``: its records from before (lower layers,
    or the layer's host checks for its pod checks). Each ERROR whose prerequisite did not pass becomes a SKIP naming
    the root finding; the records, in their order."""
    depends = {check["id"]: check.get("depends_on", []) for check in catalog["checks"]}
    latest = {record["check"]: record for record in earlier}
    folded = []
    for record in records:
        failed = [latest[name] for name in depends.get(record["check"], []) if name in latest and _did_not_pass(latest[name])]
        if record["status"] == ERROR and failed:
            record = _folded(record, failed[0])
        latest[record["check"]] = record
        folded.append(record)
    return folded


def _did_not_pass(record):
    return record["status"] in (FAIL, ERROR) or bool(record.get("depends_on"))


def _folded(record, prerequisite):
    root = prerequisite.get("depends_on") or prerequisite["check"]
    status = prerequisite.get("depends_on_status") or prerequisite["status"]
    said = prerequisite.get("depends_on_said") or prerequisite["actual"]
    return _unjudged.depends_on(record, root, status, said)
