# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus' HTTP API answers (Layer 7, telemetry): the controller asks, these read the JSON.

The format is the API's own: https://prometheus.io/docs/prometheus/latest/querying/api/ ("Instant
queries", "Expression query result formats"): {"status": "success", "data": {"resultType": "vector",
"result": [{"metric": {labels}, "value": [evaluation time, "sample value"]}]}}. Values are strings
(they may be "NaN" or "+Inf"); an error answer has "status": "error", "errorType" and "error".
"""

from __future__ import annotations

import math

from ._common import fail
from ._registry import parser


def _number(text, where):
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = None
    if value is None or (where == "evaluation time" and not math.isfinite(value)):
        fail("%s: %r is not a number", where, text)
    return value


@parser("prometheus_query_vector",
        "Prometheus /api/v1/query answer, an instant vector: every series with its labels, its value and the evaluation time",
        kind="json")
def _query_vector(document):
    if document.get("status") != "success":
        fail("Prometheus answered %s: %s: %s", document.get("status"), document.get("errorType", "?"), document.get("error", "?"))
    data = document["data"]
    if data["resultType"] != "vector":
        fail("resultType %r, not an instant vector (the query is not a selector-based expression?)", data["resultType"])
    series, evaluated = [], None
    for entry in data["result"]:
        labels = entry["metric"]
        if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
            fail("series labels %r are not a name -> text mapping", labels)
        at, value = entry["value"]
        at = _number(at, "evaluation time")
        evaluated = at if evaluated is None else max(evaluated, at)
        series.append({"labels": dict(labels), "value": _number(value, "value of %s" % labels)})
    return {"series": series, "evaluated_at": evaluated}
