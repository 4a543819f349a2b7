"""The twin's fabric load: what a simulated NCCL all-to-all across scalable units puts through the leaf uplinks and spines.

Hot path (switch sessions, node tool runs): stdlib only.

Mechanism (twin/README.md, "Fabric load"), as incast.py's: every simulated all-to-all across nodes of more than one
scalable unit (formats_fabric.group_table) records an event, one JSON file per run in the pod's
.twin/changes/<digest>/fabric_load/ (``record_alltoall``): its nodes, the bytes each node sent each other node, the
rails they spread over, the unit size, its start and duration. A switch read computes from the events
(``apply_switch``, from switch_session.snapshot_now) the octets and packets each run put through the switch's ports,
so a counter read before and after a run shows its traffic and two reads with no run between them show none.

The paths, on a rail-optimized fabric (switch_model.py): NCCL (PXN) sends what GPU g of a node sends to GPU g of
another node on rail g, so each node pair's bytes split evenly over the rails; on rail r, all of it crosses the
node's host port on leaf<su>-r<r>, and what goes to a node of another unit leaves the leaf on its uplinks, spread over
its ECMP spines by each link's share (switch_model.link_shares: even on a healthy leaf), and reaches the other unit's
leaf through that spine. A link's faults (switch_model: uplink_slow, uplink_marginal) say what each packet it carries
costs: ECN marks and discards on the RoCE priority at the leaf's egress, CRC and input errors (and FEC uncorrected
codewords) at each end's receive side.
"""

import hashlib
import os
import time

from pyramid_twin import incast

ROCE_PRIORITY = incast.ROCE_PRIORITY  # = formats_roce.ROCE_PRIORITY: the queue the all-to-all's RoCE traffic runs on
# One RoCEv2 frame at the IB MTU of 4096 on the wire, as a port's octet counters count it (destination MAC through
# FCS): 4096 payload + BTH 12 + UDP 8 + IPv4 20 + Ethernet 14 + ICRC 4 + FCS 4.
FRAME_BYTES = 4158
# nccl-tests' loop (src/common.cu, formats_nccl.render's head line): each size run `iters` times out of place and
# `iters` times in place, after `warmup` runs of the largest size
ITERS, WARMUP = 20, 5


# --- the launcher's side: one event per all-to-all across units ------------------------------------------------

def rank_bytes(minbytes, maxbytes, factor):
    """Bytes one rank's buffer held over a whole nccl-tests all-to-all run (the `size` column of each row, as
    formats_nccl.render rounds it, times its runs), before the count's per-rank rounding."""
    total, size, largest = 0, minbytes, 0
    while size <= maxbytes:
        total += size * 2 * ITERS
        largest = size
        size *= factor
        if factor < 2:
            break
    return total + largest * WARMUP


def unit_of(node, nodes_per_leaf):
    """The scalable unit (1-based) of ``node`` (node-NNN): its leaf group, nodes_per_leaf consecutive nodes each."""
    return (int(node.rsplit("-", 1)[-1]) - 1) // nodes_per_leaf + 1


def crosses_units(nodes, nodes_per_leaf):
    return len({unit_of(node, nodes_per_leaf) for node in nodes}) > 1


def event(states, ranks_per_node, sizes, start, duration):
    """The event of one all-to-all across ``states`` (one rank per GPU): each rank sends 1/world of its buffer to every
    rank, so node a sends node b ranks_per_node^2 / world of a rank's buffer at each run."""
    world = len(states) * ranks_per_node
    pair = rank_bytes(*sizes) * ranks_per_node * ranks_per_node // max(world, 1)
    nodes = [state["hostname"] for state in states]
    return {"nodes": nodes, "pair_bytes": pair, "bytes": pair * len(nodes) * (len(nodes) - 1),
            "rails": max(len(states[0]["rails"]), 1), "nodes_per_leaf": states[0]["switch_fabric"]["nodes_per_leaf"],
            "start": start, "duration": duration}


def tool_events_dir():
    """The pod's event directory for the tool running now (fake_tool's node), or None outside a twin session."""
    import sys  # pylint: disable=import-outside-toplevel
    node_dir = getattr(sys.modules.get("pyramid_twin.fake_tool"), "NODE", [None])[0]
    return events_dir(incast.digest_of(node_dir)) if node_dir else None


def events_dir(digest):
    """.twin/changes/<digest>/fabric_load: under changes/, so twin/up clears it with the rest of what sessions changed."""
    return os.path.join(incast.STATE_DIR, "changes", digest, "fabric_load")


def record_alltoall(states, ranks_per_node, sizes, text, event_dir=None):
    """Keep the event of an all-to-all that crossed units (nothing for one within a unit, or on a pod without
    switches). Its duration: what the timing mode makes the run take (timing.py), or 0 (whole at once) when it is off."""
    fabric = states[0].get("switch_fabric") if states else None
    if not fabric or not crosses_units([state["hostname"] for state in states], fabric["nodes_per_leaf"]):
        return None
    event_dir = event_dir or tool_events_dir()
    if event_dir is None:
        return None
    from pyramid_twin import timing  # pylint: disable=import-outside-toplevel
    scale = timing.factor(states[0])
    item = event(states, ranks_per_node, sizes, time.time(), scale * timing.nccl_seconds(text) if scale else 0.0)
    incast.write_own_file(event_dir, "alltoall-%s" % states[0]["hostname"], item)
    return item


def uplink_pace(states):
    """The all-to-all's pace through its faulty uplinks (switch_model: uplink_slow, uplink_marginal), as
    pod.fabric.spine_funnel paces it (formats_fabric._funnel): a unit's nodes send their share for other units
    through the faulty link's leaf, min(1, pace / that share); 1.0 within one unit or on healthy links."""
    fabric = states[0].get("switch_fabric") if states else None
    if not fabric or not fabric.get("uplink_faults") or len(states) < 2:
        return 1.0
    per_leaf = fabric["nodes_per_leaf"]
    units = [unit_of(state["hostname"], per_leaf) for state in states]
    if len(set(units)) < 2:
        return 1.0
    pace = 1.0
    for fault in fabric["uplink_faults"]:
        if fault["su"] in units:
            share = (len(units) - units.count(fault["su"])) / (len(units) - 1.0)
            pace = min(pace, fault["pace"] / share)
    return pace


# --- a pair's run: its few flows hash onto one uplink per rail ---------------------------------------------------

def pair_spine(nodes, rail, spines):
    """The spine a pair's flow on ``rail`` hashes onto (ECMP over the leaf's uplinks, one path for the flow: a pair's
    ring has one queue pair per rail, where an all-to-all's thousands of flows spread evenly): a hash of the two
    nodes and the rail, the same whichever side sends."""
    key = "%s|%s|%d" % (min(nodes), max(nodes), rail)
    return spines[int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % len(spines)]


def _pair_paths(states):
    """{rail: spine} of a two-node run across units, or None (within a unit, or a pod without switches)."""
    fabric = states[0].get("switch_fabric") if len(states) == 2 else None
    nodes = [state["hostname"] for state in states]
    if not fabric or not fabric.get("spines") or not crosses_units(nodes, fabric["nodes_per_leaf"]):
        return None
    return {rail: pair_spine(nodes, rail, fabric["spines"]) for rail in range(max(len(states[0]["rails"]), 1))}


def pair_pace(states):
    """A two-node ring's pace through the faulty uplinks its flows hashed onto: each rail's ring step waits for the
    slowest rail, so one faulty uplink on any rail's path paces the whole run (its fault's pace); 1.0 otherwise."""
    paths = _pair_paths(states)
    if not paths:
        return 1.0
    units = {unit_of(state["hostname"], states[0]["switch_fabric"]["nodes_per_leaf"]) for state in states}
    return min([fault["pace"] for fault in states[0]["switch_fabric"].get("uplink_faults") or []
                if fault["su"] in units and paths.get(fault["rail"]) == fault["spine"]] or [1.0])


def record_pair(states, ranks_per_node, sizes, text, event_dir=None):
    """Keep the event of a two-node all-reduce across units: each rail's ring moves 2 x (N-1)/N of the buffer each
    way, all of it on the one spine its flow hashed onto. Nothing within a unit or without switches."""
    paths = _pair_paths(states)
    event_dir = (event_dir or tool_events_dir()) if paths else None
    if event_dir is None:
        return None
    from pyramid_twin import timing  # pylint: disable=import-outside-toplevel
    scale = timing.factor(states[0])
    ranks = len(states) * ranks_per_node
    lane = rank_bytes(*sizes) * 2 * (ranks - 1) // max(ranks, 1)
    item = {"kind": "pair", "nodes": [state["hostname"] for state in states], "lane_bytes": lane,
            "spines": {str(rail): spine for rail, spine in paths.items()}, "rails": len(paths),
            "nodes_per_leaf": states[0]["switch_fabric"]["nodes_per_leaf"], "start": time.time(),
            "duration": scale * timing.nccl_seconds(text) if scale else 0.0}
    incast.write_own_file(event_dir, "pair-%s" % item["nodes"][0], item)
    return item


# --- the switch's side: the counters at each read ------------------------------------------------------------------

def load(event_dir):
    return incast.load(event_dir)


def _done(item, now):
    """How much of the run's traffic has passed ``now``: all of it once its window has."""
    duration = float(item.get("duration") or 0.0)
    if duration <= 0:
        return 1.0 if now >= item["start"] else 0.0
    return min(max((now - item["start"]) / duration, 0.0), 1.0)


def _leaf_of(name):
    """(su, rail) of a leaf name leaf<su>-r<rail>, or None."""
    head, _dash, rail = name.partition("-r")
    if not head.startswith("leaf") or not head[4:].isdigit() or not rail.isdigit():
        return None
    return int(head[4:]), int(rail)


def _crossing(item, su):
    """Bytes a leaf of unit ``su`` sends (and receives) across units on one rail in run ``item``, and its run nodes."""
    per_leaf = item["nodes_per_leaf"]
    inside = [node for node in item["nodes"] if unit_of(node, per_leaf) == su]
    lane = item["pair_bytes"] / float(item["rails"])
    return lane * len(inside) * (len(item["nodes"]) - len(inside)), inside, lane


def _add(port, octets_in, octets_out):
    """Add traffic to a concrete port, and what its link's faults make of the packets (switch_model's port["load"])."""
    packets_in, packets_out = int(octets_in // FRAME_BYTES), int(octets_out // FRAME_BYTES)
    port["in_octets"] = port.get("in_octets", 0) + int(octets_in)
    port["out_octets"] = port.get("out_octets", 0) + int(octets_out)
    port["in_packets"] = port.get("in_packets", 0) + packets_in
    port["out_packets"] = port.get("out_packets", 0) + packets_out
    costs = port.get("load") or {}
    if costs.get("ecn_per_packet"):  # the leaf's egress queue on a slow link: marks and drops while it is loaded
        port["ecn_marked"][ROCE_PRIORITY] += int(packets_out * costs["ecn_per_packet"])
        port["discards"][ROCE_PRIORITY] += int(packets_out * costs.get("discards_per_packet", 0.0))
    if costs.get("errors_per_packet"):  # a marginal cable: frames that arrive bad
        errors = int(packets_in * costs["errors_per_packet"])
        port["crc"] += errors
        port["in_errors"] += errors
        port["fec_uncorrected"] = port.get("fec_uncorrected", 0) + int(packets_in * costs.get("fec_uncorrected_per_packet", 0.0))


def apply_switch(snapshot, now=None):
    """Add every recorded all-to-all's traffic through this switch to a concrete snapshot (switch_session.snapshot_now):
    a leaf's host ports of the run's nodes on its rail and its uplinks by their shares; a spine's port to each such leaf
    by that link's share."""
    folder = snapshot.get("fabric_load_events")
    if not folder:
        return snapshot
    now = time.time() if now is None else now
    events = load(folder)
    if not events:
        return snapshot
    leaf = _leaf_of(snapshot["hostname"]) if snapshot.get("role") == "leaf" else None
    for item in events:
        done = _done(item, now)
        if not done:
            continue
        if item.get("kind") == "pair":
            _apply_pair(snapshot, leaf, item, done)
        elif leaf is not None:
            su, rail = leaf
            if rail >= item["rails"]:
                continue
            cross, inside, lane = _crossing(item, su)
            for port in snapshot["ports"]:
                peer = (port.get("description") or "").split(" ", 1)[0]
                if peer in inside:  # every other node of the run, on this rail, both ways
                    both = lane * (len(item["nodes"]) - 1) * done
                    _add(port, both, both)
                elif "load" in port and cross:
                    _add(port, cross * port["load"]["share"] * done, cross * port["load"]["share"] * done)
        else:
            for port in snapshot["ports"]:
                far = _leaf_of((port.get("description") or "").split(" ", 1)[0])
                if "load" not in port or far is None or far[1] >= item["rails"]:
                    continue
                cross = _crossing(item, far[0])[0] * port["load"]["share"] * done
                if cross:
                    _add(port, cross, cross)  # in from the leaf what it sends across, out to it what it receives
    return snapshot


def _apply_pair(snapshot, leaf, item, done):
    """A pair's run: on each rail, its nodes' host ports on their leaves, and the one uplink (and spine port) its flow
    hashed onto, both ways."""
    lane = item["lane_bytes"] * done
    units = {unit_of(node, item["nodes_per_leaf"]) for node in item["nodes"]}
    for port in snapshot["ports"]:
        peer = (port.get("description") or "").split(" ", 1)[0]
        if leaf is not None:
            su, rail = leaf
            if su not in units or str(rail) not in item["spines"]:
                continue
            if peer in item["nodes"] or ("load" in port and peer == item["spines"][str(rail)]):
                _add(port, lane, lane)
        else:
            far = _leaf_of(peer)
            if "load" in port and far and far[0] in units and item["spines"].get(str(far[1])) == snapshot["hostname"]:
                _add(port, lane, lane)


# --- the InfiniBand subnet's side: what the loads put through each leaf-spine link (the real stack's counters) ------

# One InfiniBand packet at the MTU of 4096, as PortXmitData counts it: the payload, LRH 8, BTH 12, ICRC 4, VCRC 2
IB_PACKET_BYTES = 4122
# What a faulty uplink (pod.ib_fabric.uplink_faults) costs per packet it carries: a slow link's leaf egress port has
# data and no credit for it (PortXmitWait, in ticks) while the spine's buffer drains at the link's pace, in proportion
# to what it falls short by (1 - factor); a marginal cable garbles a packet in 100,000 at each end's receiver
# (SymbolErrorCounter and PortRcvErrors, as switch_model's MARGINAL_ERRORS_PER_PACKET)
IB_XMIT_WAIT_PER_PACKET = 40
IB_ERRORS_PER_PACKET = 1e-5
# The subnet's own traffic on every switch-to-switch port (the SM's sweeps, PerfMgt polls): 4-octet units a second,
# so that a counter never reads lower than the last time the real stack counted its own MADs on top of it
IB_TRICKLE_UNITS_PER_S = 250000
IB_TRICKLE_PACKETS_PER_S = 4000  # the same MADs counted in packets (a few hundred a read reach a port)


def subnet_loads(events, switches, view, now=None, since=0.0):
    """{(switch, port): {counter: value}} every leaf-spine port of the subnet counts now, from the loads recorded so far
    (``events``: all-to-alls over every uplink by its share, a pair's run on the one spine its flow hashed onto per
    rail) and the view's faulty uplinks (model._ib_view): PortXmitData and PortRcvData (in 4-octet units, as the
    counters count), their packets, PortXmitWait and the receive errors. ``switches``: formats_infiniband.subnet's;
    ``since``: seconds the subnet's trickle has run."""
    now = time.time() if now is None else now
    ports = {name: numbered for _guid, name, _lid, numbered in switches}
    faults = {(item["leaf"], item["spine"]): item for item in view.get("uplink_faults") or []}
    counts = {}
    for name, numbered in ports.items():  # the trickle: on every port facing another switch
        for number, port in numbered.items():
            if (port.get("remote") or {}).get("name") in ports:
                units, packets = int(IB_TRICKLE_UNITS_PER_S * since), int(IB_TRICKLE_PACKETS_PER_S * since)
                counts[(name, number)] = {"PortXmitData": units, "PortRcvData": units, "PortXmitPkts": packets, "PortRcvPkts": packets}
    for item in events:
        done = _done(item, now)
        for leaf, spine, octets in (_ib_flows(item, view) if done else ()):
            _ib_link_add(counts, ports, faults.get((leaf, spine)), (leaf, spine), octets * done)
    return counts


def _ib_flows(item, view):
    """[(leaf, spine, octets each way)] of one recorded run across units."""
    per_leaf = item["nodes_per_leaf"]
    if item.get("kind") == "pair":
        units = sorted({unit_of(node, per_leaf) for node in item["nodes"]})
        return [("leaf%d-r%s" % (su, rail), spine, item["lane_bytes"]) for rail, spine in sorted(item["spines"].items())
                for su in units] if len(units) > 1 else []
    weights = {}
    for fault in view.get("uplink_faults") or []:
        if fault["kind"] == "uplink_slow":
            weights[(fault["leaf"], fault["spine"])] = fault["factor"]
    flows = []
    for su in sorted({unit_of(node, per_leaf) for node in item["nodes"]}):
        cross = _crossing(item, su)[0]
        for rail in range(item["rails"]):
            leaf = "leaf%d-r%d" % (su, rail)
            total = sum(weights.get((leaf, spine), 1.0) for spine in view["spines"])
            flows += [(leaf, spine, cross * weights.get((leaf, spine), 1.0) / total) for spine in view["spines"]]
    return flows


def _ib_link_add(counts, ports, fault, link, octets):
    """One link's traffic each way: out of the leaf's port and into the spine's, and back."""
    leaf, spine = link
    ends = []
    for near, far in ((leaf, spine), (spine, leaf)):
        number = next((n for n, port in ports.get(near, {}).items() if (port.get("remote") or {}).get("name") == far), None)
        if number is None:
            return  # a link the subnet does not have (a unit of the run outside this pod's leaves)
        ends.append(counts.setdefault((near, number), {"PortXmitData": 0, "PortRcvData": 0, "PortXmitPkts": 0, "PortRcvPkts": 0}))
    packets = int(octets // IB_PACKET_BYTES)
    for end in ends:
        end["PortXmitData"] += int(octets // 4)
        end["PortRcvData"] += int(octets // 4)
        end["PortXmitPkts"] += packets
        end["PortRcvPkts"] += packets
    if fault and fault["kind"] == "uplink_slow":
        ends[0]["PortXmitWait"] = ends[0].get("PortXmitWait", 0) + int(packets * IB_XMIT_WAIT_PER_PACKET * (1 - fault["factor"]))
    elif fault:
        for end in ends:
            for counter in ("SymbolErrorCounter", "PortRcvErrors"):
                end[counter] = end.get(counter, 0) + int(packets * IB_ERRORS_PER_PACKET)
