# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judges: compare normalized facts with expectations, one verdict per check.

A host judge gets ``facts`` (source id -> parsed facts; for a ``foreach`` source a dict
item -> facts or SourceFailure; None for an optional source that failed) and ``expect``
(expectation name -> typed value) and returns a Verdict. A pod judge gets those per host
and returns a Verdict per host. Judges never see raw text and never pass on missing data.
"""

from __future__ import annotations

JUDGES = {}
POD_JUDGES = {}
FABRIC_JUDGES = {}  # judged from runs across groups of nodes (judging/fabric.py)
MESH_JUDGES = {}  # judged from one run between two nodes on one rail (judging/rdma.py)


def judge(name, pod=False, fabric=False, mesh=False):
    def register(function):
        (MESH_JUDGES if mesh else FABRIC_JUDGES if fabric else POD_JUDGES if pod else JUDGES)[name] = function
        return function
    return register


def summary(problems, limit=8):
    text = "; ".join(problems[:limit])
    if len(problems) > limit:
        text += "; and %d more" % (len(problems) - limit)
    return text
