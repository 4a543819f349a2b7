# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The link kind on InfiniBand (issue 69): the leaf-spine link named where the pod's all-to-all missed while every node
and every scalable unit held, or a pair missed while each side passed with a known-good partner, from the subnet
reader's reads around the same run again.

No switch is a host of an InfiniBand run: the subnet is read whole on the reader of ib_fabric_hosts (run/pod.py), the
paths are found as Layer 3 found each rail's leaf (the node's own port GUID in its ibstat, the leaf port it lands on in
the reader's iblinkinfo: ``subnet_paths``), and the reads around the load are ibqueryerrors' two (its data counters,
--counters: every port's PortXmitData and PortRcvData; its error counters: a port not listed counts zero, its summary
proving the read whole). The rules are judging/link.py's, on the same figures in the subnet's words: the bytes each
uplink carried against its leaf's other uplinks (PortXmitData, in 4-octet units, times 4), SymbolErrorCounter and
PortRcvErrors rising at either end, PortXmitWait (ticks a port had data and no credit: the queue that does not drain,
as ECN marks are on RoCE) and PortXmitDiscards concentrated on one link's port.

Where the verdicts land: as on RoCE, a named link FAILs its leaf and its spine, each a device of the report found in
the subnet's read (no host of the inventory: run/link.py records them by their names there, core/results.py
``add_found``), and the nodes of the miss pass with it traced to that link, held for nothing; with no link named they
keep the spine layer as their cause, and a switch not measured is an ERROR.
"""

from __future__ import annotations

from ..core.model import SourceFailure
from . import link as _link
from .infiniband import COUNTER_BITS, leaf_end, not_counted, port_counts, reader_tool, stuck
from .rail_guids import SOURCE as RAIL_GUIDS, with_rail_guid
from .registry import judge

DATA, ERRORS, SUBNET = "ib_port_data", "ib_port_counters", "ib_link_info"
# what each figure is in the subnet's counters, where judging/link.py's tables name RoCE's
COUNTED = {"errors": ("SymbolErrorCounter", "PortRcvErrors"), "errors_said": "symbol or receive errors",
           "marks": "PortXmitWait", "discards": "PortXmitDiscards"}


def subnet_paths(node_facts, subnet, rails):
    """([{leaf, leaf_guid, leaf_port, spine, spine_guid, spine_port}] the fabric links of the leaves the nodes' rails
    land on, [why a rail was not placed]): ``node_facts`` {node: its kept facts (ibstat, rail_port_guid_sysfs)},
    ``subnet`` the reader's kept iblinkinfo facts, ``rails`` {node: its pyramid_rails}."""
    leaves, unseen = {}, []
    for node, kept in node_facts.items():
        facts = with_rail_guid({"ibstat": (kept or {}).get("ibstat"), RAIL_GUIDS: (kept or {}).get(RAIL_GUIDS), SUBNET: subnet})
        if not isinstance(facts["ibstat"], dict):
            unseen.append("%s: no ibstat kept" % node)
            continue
        for rail in rails[node]:
            leaf, why = leaf_end(node, rail, facts)
            if why:
                unseen.append("%s %s" % (node, why))
            else:
                leaves.setdefault(leaf["guid"], leaf["name"])
    links = []
    for guid, name in leaves.items():
        for number, port in sorted(subnet["switches"][guid]["ports"].items(), key=lambda item: int(item[0])):
            remote = port.get("remote") or {}
            far = remote.get("guid")
            if remote and far is None:  # a far end with no block of its own (linux_iblinkinfo): a switch maybe
                unseen.append("%s port %s: its far end %s (LID %s) has no block in the read" % (
                    name, number, remote.get("name"), remote.get("lid")))
            if far in subnet["switches"] and far not in leaves:  # an uplink: a switch that no rail of the run lands on
                links.append({"leaf": name, "leaf_guid": guid, "leaf_port": int(number),
                              "spine": subnet["switches"][far].get("name") or far, "spine_guid": far,
                              "spine_port": int(port["remote"]["port"])})
    return links, unseen


def by_switch(facts, links):
    """judging/link.py's facts ({switch: {sw source: window}}) from the reader's windows of the subnet's reads, each
    switch's ports on the paths in the RoCE per-port reads' shape ({port: facts, or the SourceFailure that says why
    that port's figures prove nothing}): traffic (octets: 4-octet units times 4, and packets), error counters, waits
    and discards. A port counts as unread where the read does not show it (the data counters list every port; an
    error read that lists the ports it read, ibdiagnet's, did not list it), where it does not keep a counter read
    here, or where a counter sits at its width's maximum in either read (it no longer counts); an error read that
    lists only ports with a count (ibqueryerrors, its summary proving the read whole) shows the others at zero."""
    reader = next(iter(facts.values()), {}) if facts else {}
    errors = COUNTED["errors"]
    out = {}
    for role in ("leaf", "spine"):
        for link in links:
            name, guid = link[role], link[role + "_guid"]
            ports = sorted({other[side + "_port"] for other in links for side in ("leaf", "spine") if other[side + "_guid"] == guid})
            out[name] = {
                "sw_port_traffic": _window(reader.get(DATA), guid, ports, DATA_COUNTERS, _traffic),
                "sw_errors": _window(reader.get(ERRORS), guid, ports, errors, lambda c: {n: c.get(n, 0) for n in errors}),
                "sw_ecn": _window(reader.get(ERRORS), guid, ports, (COUNTED["marks"],), lambda c: {"all": c.get(COUNTED["marks"], 0)}),
                "sw_discards": _window(reader.get(ERRORS), guid, ports, (COUNTED["discards"],),
                                       lambda c: {"all": c.get(COUNTED["discards"], 0)}),
            }
    return out


DATA_COUNTERS = ("PortXmitData", "PortRcvData")
# a data counter's width where the port has no extended counters (PortCounters' 32 bits): at its maximum it has stopped
DATA_BITS = 32


def _traffic(counters):
    return {"out_octets": counters["PortXmitData"] * 4, "in_octets": counters["PortRcvData"] * 4,
            "out_packets": counters.get("PortXmitPkts"), "in_packets": counters.get("PortRcvPkts")}


def _window(value, guid, ports, counters, fields):
    """One switch's window of a subnet read: {"before", "after", "seconds"}, each side {port: {"ports": {port: the
    port's fields}} or the SourceFailure saying why its ``counters`` prove nothing}, or the read's failure."""
    if isinstance(value, SourceFailure) or not isinstance(value, dict):
        return value if isinstance(value, SourceFailure) else SourceFailure("(subnet read)", "not read before and after the load")
    tool = reader_tool(value)
    out = {"seconds": value["seconds"]}
    for side in ("before", "after"):
        read, out[side] = value[side], {}
        for port in ports:
            key = "%s:%d" % (guid, port)
            why = _unusable(read, key, counters)
            out[side][port] = SourceFailure(tool, "%s port %d: %s" % (guid, port, why)) if why else {
                "ports": {port: fields(port_counts(read, key) or {})}}
    return out


def _unusable(read, key, counters):
    """Why a port's ``counters`` in one read prove nothing, or None."""
    counts = port_counts(read, key)
    if read.get("data") and key not in read["ports"]:
        counts = None  # --counters lists every port it read
    if counts is None:
        return "not in the read"
    missing = not_counted(read, key, counters) + [name for name in counters if read.get("data") and name not in counts]
    if missing:
        return "%s not counted there" % ", ".join(missing)
    for name in counters:
        value = counts.get(name, 0)
        said = (stuck(read, key, name, value) if name in COUNTER_BITS else
                "%d, its %d-bit maximum: it no longer counts" % (value, DATA_BITS) if value == 2 ** DATA_BITS - 1 else None)
        if said:
            return "%s %s" % (name, said)
    return None


@judge("ib_links_under_load", scope="link")
def ib_links_under_load(facts, expect):
    """{device: verdict} for every switch of the subnet holding a link on the paths (by its name in the subnet's read)
    and every node of the missed all-to-all, as judging/link.py's links_under_load on RoCE's switches."""
    return _link.judged_on(by_switch(facts, expect["links"]), expect, _link.SPREAD, COUNTED)


@judge("ib_links_of_a_pair_under_load", scope="link")
def ib_links_of_a_pair_under_load(facts, expect):
    """{device: verdict} for every switch of the subnet on the paths of the missed pairs and their nodes: the links their
    flows took (those that carried the re-run) judged, as judging/link.py's links_of_a_pair_under_load."""
    return _link.judged_on(by_switch(facts, expect["links"]), expect, _link.HASHED, COUNTED)
