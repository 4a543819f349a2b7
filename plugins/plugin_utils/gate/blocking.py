# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A failing switch gates what depends on it: the hosts behind it are BLOCKED at that layer.

From each switch's results and cabling plan (pyramid_switch_ports): a failing host port blocks the
host on it; a failure of the whole switch (BGP, ECMP, no data) or of an uplink blocks every host on
that leaf. A spine has no hosts: its failures reach them through the leaves' ECMP and uplinks.
A blocked host is not failing on its own: its record says which switch, check and port blocked it.
"""

from __future__ import annotations

from ..core import results as _results
from ..core.model import BLOCKED


def _hosts_of(plan):
    return {entry["port"]: entry["peer"] for entry in plan if entry.get("role", "host") == "host" and entry.get("peer")}


def blockers(switch_doc, layer, hosts):
    """host -> [(switch, check record, ports)] for the failures of one switch at ``layer``."""
    plan = switch_doc.get("expect", {}).get("pyramid_switch_ports") or []
    on_port = _hosts_of(plan)
    uplinks = {entry["port"] for entry in plan if entry.get("role") == "fabric"}
    found = {}
    for record in switch_doc["results"]:
        if record["layer"] != layer or record["status"] not in _results.NOT_PASSING:
            continue
        detail = record.get("detail") or {}
        ports = detail.get("ports") or []
        whole = record["status"] == "ERROR" or detail.get("device") or not ports or set(ports) & uplinks
        affected = {port: host for port, host in on_port.items() if whole or port in ports}
        for port, host in affected.items():
            if host in hosts:
                found.setdefault(host, []).append((switch_doc["host"], record, [port] if not whole else []))
    return found


def block(run_dir, layer, switches, hosts):
    """Write the BLOCKED records of ``layer`` into the hosts' results; host -> blockers written."""
    by_host = {}
    for switch in switches:
        for host, items in blockers(_results.load(run_dir, switch), layer, set(hosts)).items():
            by_host.setdefault(host, []).extend(items)
    for host, items in sorted(by_host.items()):
        doc = _results.load(run_dir, host)
        by_check = {}
        for switch, record, ports in items:
            by_check.setdefault(record["check"], (record, []))[1].append((switch, ports))
        records = []
        for check, (record, where) in sorted(by_check.items()):
            named = ", ".join("%s%s" % (switch, " " + "/".join(ports) if ports else "") for switch, ports in where)
            records.append({
                "host": host, "layer": layer, "check": check, "title": record["title"], "row": record["row"],
                "status": BLOCKED, "expected": "every switch in this host's path passes %s" % check,
                "actual": "blocked by %s: %s %s" % (named, check, record["status"]),
                "command": record["command"],
                "cause": "Not this host: %s fails %s (%s)" % (named, check, record["cause"]),
                "go_back_to": record["go_back_to"],
                "blocked_by": [{"switch": switch, "check": check, "status": record["status"], "ports": ports}
                               for switch, ports in where],
            })
        _results.record(doc, records)
        _results.save(run_dir, doc)
    return {host: sorted({item[0] for item in items}) for host, items in by_host.items()}
