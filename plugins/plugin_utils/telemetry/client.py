# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ask Prometheus one instant query (/api/v1/query) from the controller: ansible-core's open_url (urllib
with certificate checks), no other package.

The answer has the shape of the collect module's (``status``, ``stdout``, ``command``, ``msg``), so
the engine's parse stage reads it like any command's output. A refused connection, a timeout or an
HTTP error is ``status: failed`` with a message naming the URL and the query: an ERROR, never facts.
"""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.parse

from ansible.module_utils.urls import ConnectionError as UrlsError, open_url

MAX_ANSWER_BYTES = 64 * 1024 * 1024  # what the parse stage reads at most (parsing/_registry.py)


def endpoint(url):
    return url.rstrip("/") + "/api/v1/query"


def shown(url, promql):
    """The query as a person would type it (not URL-encoded), for results and errors."""
    return "GET %s?query=%s" % (endpoint(url), promql)


def _api_error(body):
    """Prometheus' own words in an error answer ({"status": "error", "errorType", "error"}), if any."""
    try:
        document = json.loads(body.decode("utf-8", "replace"))
        return "%s: %s" % (document["errorType"], document["error"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return body[:200].decode("utf-8", "replace").strip()


def query(url, promql, timeout):
    """One instant query at Prometheus' current time; a dict as the collect module returns per source."""
    command = shown(url, promql)
    try:
        with open_url(endpoint(url) + "?" + urllib.parse.urlencode({"query": promql}), headers={"Accept": "application/json"},
                      timeout=timeout, follow_redirects="safe") as answer:
            body = answer.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as exc:
        said = _api_error(exc.read(64 * 1024) if exc.fp else b"")
        return _failed(command, "Prometheus API error at %s: HTTP %d%s (query %s)" % (endpoint(url), exc.code, ": " + said if said else "", promql))
    except (urllib.error.URLError, UrlsError, http.client.HTTPException, OSError, ValueError) as exc:  # HTTPException: an answer cut short
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, socket.timeout) or isinstance(exc, socket.timeout):
            reason = "no answer within %ds" % timeout
        return _failed(command, "Prometheus unreachable at %s: %s (query %s)" % (endpoint(url), reason, promql))
    if len(body) > MAX_ANSWER_BYTES:
        return _failed(command, "Prometheus answer over %d bytes at %s (query %s)" % (MAX_ANSWER_BYTES, endpoint(url), promql))
    return {"status": "ok", "rc": 0, "stdout": body.decode("utf-8", "replace"), "command": command, "way": 0}


def _failed(command, msg):
    return {"status": "failed", "msg": msg, "command": command, "way": 0, "stdout": ""}
