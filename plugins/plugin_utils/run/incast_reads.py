# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The induced incast's runs and reads on disk (run_dir/incast/), and the records of its verdicts (docs/incast.md).

The phases (incast_phases.py, through the action's AnsibleStep) do the talking; this module plans the commands
of a plan's rounds, keeps what each phase read, and turns the reads into judging/incast.py's inputs.
"""

from __future__ import annotations

import os
import re

from . import engine as _engine
from ..core.model import SourceFailure, named
from . import background as _background, incast_plan as _plan

# The incast's checks, the sources they read and the names their judges take them by are the catalog's
# (catalog/incast.yml: loads, read_as, tail_sources); nothing here names one.
PORT_OFFSET = 100  # incast ports sit above the rail mesh's (pyramid_rdma_port_base + rail)
LABELS = ("before", "tail", "after")
# A tail read is never due sooner than this after the first sender started (at most half the window): a healthy
# incast's PFC blip, and the senders that start a little later than the first, fall before it
BLIP_SECONDS = 3.0


def incast_checks(catalog):
    """The incast's checks by what they judge: {"roce": a target on RoCE, "infiniband": a target on InfiniBand, "leaf":
    the leaf}: the switch's check is the leaf's, a node's is its link layer's (its only_if)."""
    found = {}
    for check in catalog["checks"]:
        if check["scope"] == "incast" and check["device"] == "switch":
            found["leaf"] = check
        elif check["scope"] == "incast":
            layers = check.get("only_if", {}).get("pyramid_rdma_link_layer", [])  # one value, or a list of them
            found.update({layer: check for layer in ([layers] if isinstance(layers, str) else layers)})
    return found


def read_sources(check):
    """A target's check's reads: its sources that are not its load (the NIC's counters; InfiniBand: the subnet's)."""
    return [name for name in check["sources"] if name not in check.get("loads", {}).values()]


def node_sources(catalog):
    """What each node of a RoCE incast reads before and after."""
    return read_sources(incast_checks(catalog)["roce"])


def incast_dir(run_dir):
    return os.path.join(run_dir, "incast")


def files(run_dir):
    """The incast's run files (run/background.py RunFiles): its plan, and each device's starts, ends and reads per round."""
    return _background.RunFiles(incast_dir(run_dir))


def round_senders(plan, round_index):
    """The senders of a round's incasts, in plan order."""
    return [sender for group in plan["rounds"][round_index] for sender in group["senders"]]


def due(fired, duration, tail_seconds, until):
    """When (time.time()) a round's next step is due, from its senders' fire records ({"started", "running"}):
    until="tail", the read near the end - the last ``tail_seconds`` of the window that the first sender to start
    began, so that the read, whatever it takes, has the most room before any window can end; until="end", every
    sender's window over. None without a record (no sender fired: nothing to wait for)."""
    if not fired:
        return None
    if until == "tail":
        offset = max(duration - tail_seconds, 0)
        if offset > 0:  # not inside the PFC blip of the window's first seconds (100%: the whole window, blip included)
            offset = max(offset, min(BLIP_SECONDS, duration / 2.0))
        return min(record["started"] for record in fired) + offset
    return max(record["running"] for record in fired) + duration


def forks_warning(leaves_per_round, forks):
    """A warning when a round has more target leaves than Ansible's forks: the leaves read their `tail` counters side
    by side, one per fork, so they come in waves and the last ones may end after the window, which the judge calls an
    ERROR (tail_entry), never a PASS. Said at the plan, before any load. None when the forks cover every round."""
    forks = max(1, int(forks or 1))
    widest = max((len(leaves) for leaves in leaves_per_round), default=0)
    if widest <= forks:
        return None
    return ("forks %d < %d target leaves in an incast round: their tail reads, one per fork, come in %d waves, and a read "
            "that ends after the window is an ERROR for its target and senders; run with --forks %d or more, or a larger "
            "pyramid_incast_tail_percent (docs/incast.md)" % (forks, widest, _background.waves(widest, forks), widest))


def _natural(name):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def rail_netdevs(switch_ports, nodes, only_rail):
    """netdev -> rail index: the host ports' peer_port names of the planned nodes, in natural order (ens1np0,
    ens2np0, ..., ens10np0), as the rails are numbered; only ``only_rail`` when it is not -1."""
    names = sorted({entry.get("peer_port") for ports in switch_ports.values() for entry in ports or []
                    if entry.get("role", "host") == "host" and entry.get("peer") in nodes and entry.get("peer_port")}, key=_natural)
    mapping = {name: index for index, name in enumerate(names)}
    return {name: index for name, index in mapping.items() if only_rail < 0 or index == only_rail}


def commands(rounds, catalog, expects, addresses):
    """Per round: {"servers": {target: [{id, argv}]}, "clients": {sender: [{id, argv}]}} from the catalog's
    load's ways (the incast check's `loads`: the targets' server, the senders' client), one server per sender and rail
    (a perftest server serves one client)."""
    load = next(check["loads"] for check in catalog["checks"] if check.get("loads"))  # RoCE's and InfiniBand's are one
    out = []
    for groups in rounds:
        servers, clients = {}, {}
        for group in groups:
            target = group["target"]
            for index, sender in enumerate(group["senders"]):
                for entry in group["ports"]:
                    rail = entry["rail"]
                    device = expects[target]["pyramid_rails"][rail]
                    port = expects[target]["pyramid_rdma_port_base"] + PORT_OFFSET + index * 64 + rail
                    run_id = "incast-%s-r%d-from-%s" % (target, rail, sender)
                    server = _engine.reads([load["server"]], catalog, expects[target], group={"device": device, "port": port})[0]
                    client = _engine.reads([load["client"]], catalog, expects[sender], group={
                        "device": expects[sender]["pyramid_rails"][rail], "port": port, "server": addresses[target][rail]})[0]
                    servers.setdefault(target, []).append(dict(server, id=run_id))
                    clients.setdefault(sender, []).append(dict(client, id=run_id))
        out.append({"servers": servers, "clients": clients})
    return out


def make_plan(nodes, switch_ports, expect, addresses, catalog, expects):
    """The plan file's content: rounds of groups and their commands, or {"error": why}."""
    netdevs = rail_netdevs(switch_ports, nodes, expect["pyramid_incast_rail"])
    leaves = _plan.leaf_ports(switch_ports, netdevs)
    if not leaves:
        return {"error": "no switch port of pyramid_switch_ports faces a planned node's rail: the incast has no leaf to prove"}
    try:
        planned = _plan.plan(nodes, leaves, senders=expect["pyramid_incast_senders"], rate_gbps=expect["pyramid_incast_rate_gbps"],
                             port_gbps=expect["pyramid_rail_rate_gbps"])
    except _plan.IncastPlanError as exc:
        return {"error": str(exc)}
    planned["commands"] = commands(planned["rounds"], catalog, expects, addresses)
    planned["leaves"] = [sorted({p["leaf"] for g in groups for p in g["ports"]}) for groups in planned["rounds"]]
    planned["members"] = [sorted({n for g in groups for n in [g["target"]] + g["senders"]}) for groups in planned["rounds"]]
    planned["nodes"] = list(nodes)
    # the leaves each node sits behind on the incast's rails: a node outside every group is GO on this row only where
    # each of them was proven by an incast that passed (run/incast_phases.py)
    planned["node_leaves"] = {node: sorted(leaf for leaf, attached in leaves.items() if node in attached) for node in nodes}
    return planned


def switched_off(reference):
    """Why the incast does not run at all with these settings (the run's, the first node's), or None: said the same by
    the runner (run/incast_phases.py plan) and the plan (plan_sections)."""
    return None if reference["pyramid_incast"] else "pyramid_incast is false"


def on_infiniband(reference):
    """The incast of an InfiniBand pod: its leaves are the subnet's, found in its read at Layer 3
    (run/incast_infiniband.py); nothing reads that before the run."""
    return reference["pyramid_rdma_link_layer"] == "infiniband"


def plan_sections(pod):
    """The plan's section of the incast (catalog/kinds.yml planned_by; run/plan.py): its rounds (targets, senders, the
    leaf port each target proves) from make_plan, the planner the run uses, or why it does not run; on InfiniBand the
    planner's own refusals and how many senders load each leaf, its rounds chosen at Layer 3."""
    layer = min(check["layer"] for check in pod.checks)
    section = {"layer": layer, "title": "The incast (layer %d under load)" % layer, "rounds": []}
    if not pod.nodes:
        return [dict(section, off="no GPU node", load="incast not run: no GPU node")]
    reference = pod.first
    off = switched_off(reference)
    if off:
        off += ": the row under load is not checked (NO-GO unless waived)"
        return [dict(section, off=off, load="incast not run: %s" % off)]
    rate, seconds = reference["pyramid_incast_rate_gbps"], reference["pyramid_incast_duration"]
    if on_infiniband(reference):
        try:  # the planner's own refusals (two nodes at least, a load that congests the port), before any leaf is known
            checked = _plan.plan(pod.nodes, {}, senders=reference["pyramid_incast_senders"], rate_gbps=rate,
                                 port_gbps=reference["pyramid_rail_rate_gbps"])
        except _plan.IncastPlanError as exc:
            return [dict(section, off=str(exc), error=True, load="incast not run: %s" % exc)]
        load = "%d senders x %g Gb/s into one port per leaf of the subnet" % (checked["senders"], rate)
        return [dict(section, at_layer3=True, senders=checked["senders"], timed="the incast",
                     load="incast: %s, its rounds chosen at Layer %d" % (load, layer), seconds={"about_per_round": seconds},
                     notes=checked["notes"] + [
                         "InfiniBand: one target per leaf, chosen at Layer %d from the subnet's read (iblinkinfo on the fabric "
                         "host, ib_fabric_hosts); the subnet is not read before, so the rounds are not known here" % layer])]
    switch_ports = {switch: pod.expect_of(switch).get("pyramid_switch_ports") or [] for switch in pod.switches}
    planned = make_plan(pod.nodes, switch_ports, reference, pod.addresses, pod.catalog, {node: pod.expect_of(node) for node in pod.nodes})
    if planned.get("error"):
        return [dict(section, off=planned["error"], error=True, load="incast not run: %s" % planned["error"])]
    rounds = [{"round": index, "groups": [
        {"target": group["target"], "senders": group["senders"],
         "ports": ["%s %s (rail %s)" % (port["leaf"], port["port"], port["rail"]) for port in group["ports"]]} for group in groups]}
        for index, groups in enumerate(planned["rounds"], 1)]
    for entry in rounds:
        entry["what"] = "; ".join("%s <- %s (%s)" % (group["target"], named(group["senders"], 4), ", ".join(group["ports"]))
                                  for group in entry["groups"])
    load = "%d senders x %g Gb/s into one port per leaf" % (planned["senders"], rate)
    return [dict(section, rounds=rounds, senders=planned["senders"], notes=planned.get("notes") or [], timed="the incast",
                 load="incast: %s, %d round(s)" % (load, len(rounds)), seconds={"about": len(rounds) * seconds})]


def as_input(value, per_port=False):
    """A parsed source as the judge takes it: facts, or the read's failure in words; a per-port source's reads
    ({port: that port's values}: NX-OS `show queuing interface <port>`, Cumulus `nv show interface <port> ...`)
    merged into {"ports": ...}, as judging/switch.py's _table does."""
    if isinstance(value, SourceFailure):
        return "%s: %s" % (value.command, value.reason)
    if value is None:
        return "not read"
    if per_port and isinstance(value, dict):
        ports = {}
        for item, facts in sorted(value.items()):
            if isinstance(facts, SourceFailure) or not isinstance(facts, dict):
                return as_input(facts) if isinstance(facts, SourceFailure) else "%s: no counters read" % item
            ports.update(facts["ports"] if "ports" in facts else {item: facts})
        return {"ports": ports}
    return value


def switch_sources(catalog, label):
    """The sources a leaf's read at ``label`` collects: near the window's end, PFC alone (its tail_sources), so that it
    ends soon (NX-OS and Cumulus read ECN and discards one port at a time: 72 commands on a 36-port NX-OS leaf)."""
    leaf = incast_checks(catalog)["leaf"]
    return list(leaf["tail_sources"] if label == "tail" else leaf["sources"])


def switch_snapshot(read, catalog, expect, sources=None):
    """{"ecn", "pfc", "discards"} (the leaf check's read_as) of one switch read (those of ``sources``: the tail read's
    PFC only), or a string saying why the read is unusable."""
    if not read:
        return "not read"
    if read.get("unreachable"):
        return "host unreachable: %s" % read["unreachable"]
    named = incast_checks(catalog)["leaf"]["read_as"]
    sources = sources or list(named)
    facts = _engine.parse_sources(sources, catalog, read["raw"], expect)
    return {key: as_input(facts[name], per_port=bool(_engine.foreach_of(catalog["sources"][name], expect)))
            for name, key in named.items() if name in sources}


def nic_snapshot(read, catalog, expect):
    """{rail index: hw_counters facts or why not} of one node read."""
    rails = expect["pyramid_rails"]
    if not read:
        return {index: "not read" for index in range(len(rails))}
    if read.get("unreachable"):
        return {index: "host unreachable: %s" % read["unreachable"] for index in range(len(rails))}
    name = next(name for name, key in incast_checks(catalog)["roce"]["read_as"].items() if key == "nic")
    facts = _engine.parse_sources([name], catalog, read["raw"], expect)[name]
    return {index: as_input(facts.get(device)) for index, device in enumerate(rails)}


def run_failures(run_files, index, group):
    """{node: its runs of one target's incast that did not end well, in their own words}: the target's servers, each
    sender's client (the judges' facts["failed"]: an incast whose load did not run as planned is not judged)."""
    failed = {group["target"]: failed_runs(run_files.load(index, group["target"], "servers"))}
    for sender in group["senders"]:
        failed[sender] = failed_runs(run_files.load(index, sender, "clients"))
    return {node: runs for node, runs in failed.items() if runs}


# What an incast verdict carries beyond run/engine.py record_of's fields: the devices in its way, why it was not checked,
# the leaves a node is blocked by
CARRIED = ("held_by", "not_checked", "blocked_by")


def record(host, check, catalog, expect, found):
    """The record of an incast verdict decided in judging/ (incast_rounds.py, incast_infiniband.py), through
    run/engine.py record_of, with what it carries beyond; the cause of a SKIP that names who stood in its way kept."""
    recorded = _engine.record_of(host, check, catalog, expect, found)
    recorded.update((key, found[key]) for key in CARRIED if key in found)
    if found.get("cause") and not recorded["cause"]:
        recorded["cause"] = found["cause"]
    return recorded


def failed_runs(stopped):
    """The runs of a stop read that did not end well, in their own words."""
    return ["%s: %s" % (run_id, state.get("msg") or state.get("status")) for run_id, state in sorted((stopped or {}).items())
            if state.get("status") != "ok"]
