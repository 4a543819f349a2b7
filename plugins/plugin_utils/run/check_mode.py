# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check mode (--check): every read runs and is judged; no check whose sources put load on the fabric or the GPUs
(the catalog's `load`: the rail mesh, the incast, NCCL, training, DCGM's long levels) runs. Each such check reads
SKIP "not run: check mode", naming the load and the commands it would have run: never a PASS, so such a run is never
GO. One place for every kind of run: a layer's own checks (run/layer.py), its pod checks (run/pod.py), the fabric
checks of the straggler hunt and the phased runs (run/ansible_step.py)."""

from __future__ import annotations

from ..core import catalog as _catalog, results as _results
from ..judging import unjudged as _unjudged
from ..judging.registry import ALONE
from . import engine as _engine

NOT_RUN = "not run: check mode"


def not_run(host, check, catalog, expect, loads):
    """The check's SKIP record: what it would have loaded, and the commands (never run)."""
    record = _engine.record_of(host, check, catalog, expect, _unjudged.not_run(
        "run without --check: %s" % "; ".join(loads), "%s (it puts load on the fabric or the GPUs: %s)" % (NOT_RUN, "; ".join(loads))))
    record["check_mode"] = True
    return record


def split(host, checks, catalog, expect):
    """(checks that only read, SKIP records of those that load) for one host."""
    reads, skipped = [], []
    for check in checks:
        loads = _catalog.load_of(check, catalog, expect)
        if loads:
            skipped.append(not_run(host, check, catalog, expect, loads))
        else:
            reads.append(check)
    return reads, skipped


def _lone_box(host, record, catalog, expect):
    """A loading check's record on a lone GPU box: not applicable in its kind's words where its kind says what a lone
    box gets (judging/registry.py ALONE: the rail mesh, the straggler hunt), as the full run says it; any other kept."""
    check = next(check for check in catalog["checks"] if check["id"] == record["check"] and check["layer"] == record["layer"])
    said = ALONE.get(check["scope"])
    return _engine.record_of(host, check, catalog, expect, said(check, host)) if said else record


def loads(checks, catalog, expect):
    """True where any of the checks loads the fabric or the GPUs with these expectations."""
    return any(_catalog.load_of(check, catalog, expect) for check in checks)


def record_not_run(run_dir, hosts, checks, catalog, expect_of, references=None):
    """Record every loading check of ``checks`` as not run on each of ``hosts`` (``expect_of(host)``: its
    expectations); {status: count}. On the run's only GPU node, none outside it named (``references``), a run across
    nodes (the rail mesh, the straggler hunt) does not apply, in the full run's words: never "not run: check mode"."""
    records = []
    for host in hosts:
        expect = expect_of(host)
        not_run = split(host, checks, catalog, expect)[1]
        records += [_lone_box(host, record, catalog, expect) for record in not_run] if len(hosts) == 1 and not references else not_run
    return _results.record_each(run_dir, records)
