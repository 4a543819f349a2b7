# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The induced incast on InfiniBand (docs/incast.md, issue 36): where its leaves are, what the fabric host reads, and
the outcome of each target's incast (the phases are run/incast_phases.py's, shared with RoCE; the verdicts are
judging/incast_infiniband.py's).

No switch is a host of an InfiniBand run: the leaves are the subnet's, found as Layer 1 found them (each rail's port
GUID from the node's ibstat, the leaf port it lands on from iblinkinfo read on the fabric host, both kept in the
results files at Layer 3). The fabric host reads every port's counters (ibqueryerrors, the source Layer 1 and Layer 3
read) before the senders fire, after they end and once more after that: one read covers every leaf of the round.
"""

from __future__ import annotations

from ..core import results as _results
from ..judging import judge_of, incast_infiniband as _judge
from ..judging.infiniband import leaf_end
from ..judging.rail_guids import SOURCE as RAIL_GUIDS, with_rail_guid
from . import engine as _engine, incast_plan as _plan, incast_reads as _run, pod as _pod

LABELS = _judge.LABELS
# The settled read comes at least this long after the after read: what an incast left queued drains in microseconds,
# while a port held by a credit loop or a receiver returning no credits waits on, millions of ticks a second
SETTLE_SECONDS = 1.0


def fabric_sources(catalog):
    """What the fabric host reads for InfiniBand's incast: the check's sources that are not its load (the subnet's port
    counters)."""
    return _run.read_sources(_run.incast_checks(catalog)["infiniband"])


def fabric_group(catalog):
    """The inventory group whose first host reads the subnet's counters (those sources' `read_on`)."""
    return catalog["sources"][fabric_sources(catalog)[0]]["read_on"]


def read_label(label):
    """The run file a fabric read at ``label`` is kept under (beside the nodes' own reads of the same round)."""
    return "fabric-%s" % label


def make_plan(nodes, docs, groups, run_dir, hosts, reference, addresses, catalog, expects):
    """The plan file's content on InfiniBand, as incast_reads.make_plan's on RoCE, or {"error": why}."""
    group, leaves_from = fabric_group(catalog), _run.incast_checks(catalog)["infiniband"]["leaves_from"]
    reader = _pod.reader(group, groups, run_dir, 3, hosts)
    if reader is None:
        return {"error": "no host of %s (or of gpu_nodes) is in the incast's play and climbed to layer 3: nobody reads the "
                         "subnet's counters" % group}
    subnet = (_pod.read_in(docs.get(reader) or _results.load(run_dir, reader), 3)[0] or {}).get(leaves_from["subnet"])  # held back too
    if not isinstance(subnet, dict) or "ca_ports" not in subnet:
        return {"error": "the subnet's read at Layer 3 (iblinkinfo on %s) is not usable: %s (the incast finds the leaves in "
                         "it: run it with Layer 3, --tags layer3)" % (reader, getattr(subnet, "reason", "not read"))}
    leaves, keys, unseen = _leaves(nodes, docs, subnet, reference["pyramid_incast_rail"], expects, leaves_from)
    if not leaves:
        return {"error": "no rail of a planned node was found in the subnet's read (iblinkinfo on %s at Layer 3): %s" % (
            reader, "; ".join(unseen[:3]) or "no node")}
    try:
        planned = _plan.plan(nodes, leaves, senders=reference["pyramid_incast_senders"],
                             rate_gbps=reference["pyramid_incast_rate_gbps"], port_gbps=reference["pyramid_rail_rate_gbps"])
    except _plan.IncastPlanError as exc:
        return {"error": str(exc)}
    for groups_ in planned["rounds"]:
        for group in groups_:
            for port in group["ports"]:
                port["key"] = keys[(port["leaf"], port["port"])]
    planned["commands"] = _run.commands(planned["rounds"], catalog, expects, addresses)
    planned["fabric"] = "infiniband"
    planned["fabric_reader"] = reader
    planned["leaves"] = [[] for _round in planned["rounds"]]  # no switch of the run reads anything
    planned["members"] = [sorted({n for g in groups_ for n in [g["target"]] + g["senders"]}) for groups_ in planned["rounds"]]
    planned["nodes"] = list(nodes)
    planned["node_leaves"] = {node: sorted(leaf for leaf, attached in leaves.items() if node in attached) for node in nodes}
    if unseen:
        planned.setdefault("notes", []).append("not in the subnet's read, so in no incast: %s" % "; ".join(unseen))
    return planned


def _layer3_facts(doc):
    return _engine.restore_facts((doc.get("facts") or {}).get("layer3") or {})


def _leaves(nodes, docs, subnet, only_rail, expects, leaves_from):
    """({leaf: {node: (port, rail index)}}, {(leaf, port): ibqueryerrors key}, [rails not found, said]). ``leaves_from``:
    the sources whose facts place a rail (the check's leaves_from: the node's, the subnet reader's)."""
    leaves, keys, unseen = {}, {}, []
    own = leaves_from["node"]
    for node in nodes:
        kept = _layer3_facts(docs[node])  # a rail read by `rdma link` found by its sysfs port GUID (judging/rail_guids.py)
        facts = with_rail_guid({own: kept.get(own), RAIL_GUIDS: kept.get(RAIL_GUIDS), leaves_from["subnet"]: subnet})
        if not isinstance(facts[own], dict):
            unseen.append("%s: no %s kept at Layer 3" % (node, own))
            continue
        for index, rail in enumerate(expects[node]["pyramid_rails"]):
            if only_rail >= 0 and index != only_rail:
                continue
            leaf, why = leaf_end(node, rail, facts)
            if why:
                unseen.append("%s %s" % (node, why))
                continue
            leaves.setdefault(leaf["name"], {})[node] = (leaf["port"], index)
            keys[(leaf["name"], leaf["port"])] = leaf["key"]
    return leaves, keys, unseen


def snapshot(read, catalog, expect):
    """ibqueryerrors' facts of one fabric read, or why it is unusable (in words)."""
    if not read:
        return "not read"
    if read.get("unreachable"):
        return "host unreachable: %s" % read["unreachable"]
    sources = fabric_sources(catalog)
    return _run.as_input(_engine.parse_sources(sources, catalog, read["raw"], expect)[sources[0]])


def outcome(files, plan, index, group, catalog, check, expect, reader_expect):
    """The outcome of one target's incast: its judge's (judging/incast_infiniband.py) on the fabric host's reads and
    the runs that did not end well."""
    reads, times = {}, {}
    for label in LABELS:
        read = files.load(index, plan["fabric_reader"], read_label(label))
        reads[label] = snapshot(read, catalog, reader_expect)
        if read:
            times[label] = read["at"]
    if len(times) == len(LABELS):
        reads["seconds"] = {"load": times["after"] - times["before"], "settle": times["settled"] - times["after"]}
    facts = {"group": group, "reads": reads, "failed": _run.run_failures(files, index, group)}
    return judge_of(check)(facts, expect)
