# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A failing switch gates what depends on it: the hosts behind it are BLOCKED at that layer.

From each switch's results and cabling plan (pyramid_switch_ports): a failing host port blocks the
host on it; a failure of the whole switch (BGP, ECMP, no data) or of an uplink blocks every host on
that leaf. A spine has no hosts of its own: a failing spine port blocks the hosts of the leaf at its
far end, a failure of the whole spine blocks the hosts of every leaf it serves (every path between
leaves may hash through it). A blocked host is not failing on its own: its record says which switch,
check and port blocked it.

A switch whose failures are confined to ports keeps climbing (``climb``): its higher layers are
judged on the other ports, so the hosts on its healthy ports are GO only once the whole switch was
validated at every layer. A whole-switch failure stops it; every host behind it is blocked there.
"""

from __future__ import annotations

from ..core import results as _results
from ..core.model import BLOCKED


def _hosts_of(plan):
    return {entry["port"]: entry["peer"] for entry in plan if entry.get("role", "host") == "host" and entry.get("peer")}


def confined_ports(record):
    """The ports a failing record is confined to, or None when it is the whole switch's
    (an ERROR: the read itself failed; a device-level fault such as BGP; no port named)."""
    detail = record.get("detail") or {}
    ports = detail.get("ports") or []
    if record["status"] == "ERROR" or detail.get("device") or not ports:
        return None
    return list(ports)


def climb(results, layer):
    """Whether a switch climbs to ``layer``: (None, ports set aside) or ((lowest layer, checks), set()).

    It stops below a whole-switch failure; failures confined to ports leave it climbing, with those
    ports set aside (their hosts are blocked at the layer they failed).
    """
    below = [r for r in results if r["layer"] < layer and r["status"] in _results.NOT_PASSING]
    whole = [r for r in below if confined_ports(r) is None]
    if whole:
        lowest = min(r["layer"] for r in whole)
        return (lowest, sorted({r["check"] for r in whole if r["layer"] == lowest})), set()
    return None, {port for r in below for port in confined_ports(r)}


def _leaf_hosts(doc):
    return sorted(_hosts_of(doc.get("expect", {}).get("pyramid_switch_ports") or []).values())


def blockers(switch_doc, layer, hosts, leaf_hosts=None):
    """host -> [(switch, check record, ports)] for the failures of one switch at ``layer``.

    ``leaf_hosts``: switch -> its hosts, for a spine's far ends (a spine's plan names leaves only).
    """
    plan = switch_doc.get("expect", {}).get("pyramid_switch_ports") or []
    on_port = _hosts_of(plan)
    uplinks = {entry["port"] for entry in plan if entry.get("role") == "fabric"}
    far_leaf = {} if on_port else {entry["port"]: entry.get("peer") for entry in plan if entry.get("role") == "fabric"}
    found = {}
    for record in switch_doc["results"]:
        if record["layer"] != layer or record["status"] not in _results.NOT_PASSING:
            continue
        ports = confined_ports(record)
        whole = ports is None or set(ports) & set(on_port and uplinks)
        affected = [(host, [port] if not whole else []) for port, host in on_port.items() if whole or port in ports]
        for port, leaf in far_leaf.items():  # a spine: the hosts of the leaves behind the failing ports
            if whole or port in ports:
                affected += [(host, [] if whole else [port]) for host in (leaf_hosts or {}).get(leaf, [])]
        # In a rail-optimized pod a host sits behind every leaf a spine serves: one entry per host, its ports merged
        merged = {}
        for host, shown in affected:
            if host in hosts:
                merged.setdefault(host, []).extend(port for port in shown if port not in merged[host])
        for host, shown in merged.items():
            found.setdefault(host, []).append((switch_doc["host"], record, shown))
    return found


def block(run_dir, layer, switches, hosts):
    """Write the BLOCKED records of ``layer`` into the hosts' results; host -> blockers written."""
    by_host, records = {}, []
    docs = {switch: _results.load(run_dir, switch) for switch in switches}
    leaf_hosts = {switch: _leaf_hosts(doc) for switch, doc in docs.items()}
    for switch in switches:
        for host, items in blockers(docs[switch], layer, set(hosts), leaf_hosts).items():
            by_host.setdefault(host, []).extend(items)
    for host, items in sorted(by_host.items()):
        by_check = {}
        for switch, record, ports in items:
            by_check.setdefault(record["check"], []).append((switch, record, ports))
        for check, where in sorted(by_check.items()):
            record = where[0][1]  # the title, row and what to do are the check's; each switch's status is its own
            named = ", ".join("%s%s" % (switch, " " + "/".join(ports) if ports else "") for switch, _record, ports in where)
            statuses = "/".join(sorted({item[1]["status"] for item in where}))
            records.append({
                "host": host, "layer": layer, "check": check, "title": record["title"], "row": record["row"],
                "status": BLOCKED, "expected": "every switch in this host's path passes %s" % check,
                "actual": "blocked by %s: %s %s" % (named, check, statuses),
                "command": record["command"],
                "cause": "Not this host: %s fails %s (%s)" % (named, check, record["cause"]),
                "go_back_to": record["go_back_to"],
                "blocked_by": [{"switch": switch, "check": check, "status": found["status"], "ports": ports}
                               for switch, found, ports in where],
            })
    _results.record_each(run_dir, records)
    return {host: sorted({item[0] for item in items}) for host, items in by_host.items()}
