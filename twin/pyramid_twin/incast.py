"""The twin's incast physics: what K rate-limited ib_write_bw clients at one target do to the counters.

Hot path (switch sessions, node sessions): stdlib only.

Mechanism (twin/README.md, "Incast"): every simulated ib_write_bw run with a rate limit records an event,
one JSON file per run in the pod's event directory (``record``); a renderer asked for counters computes
them from the events (``port_counters``, ``nic_counters``), so the state persists between separate SSH
sessions without any process staying alive. A rate-limited client really sleeps its ``-D`` window
(formats_perftest) and records its event when it starts, with that window: an event's counts grow with
the time elapsed in it and are whole once the window has passed.

The physics, per target port (one leaf port, the RoCE priority), when the senders together offer more
than the port's line rate:
- ECN working, DCQCN on both ends: the queue crosses min_th, packets are marked, the target's NIC (the
  notification point) sends CNPs, each sender (reaction point) handles them and slows down; PFC fires
  for the first second only (a blip), nothing is dropped.
- DCQCN off (host fault dcqcn_off on the target: no CNP sent; on a sender: its CNPs not handled): marks
  without reaction, the queue stays above Xoff: PFC storms the whole window.
- ECN min_th too high or ECN off (switch faults ecn_min_th_high, ecn_off): no marks, PFC storms.
- Headroom short (headroom_short): what arrives after Xoff overflows the headroom: discards while PFC fires.
"""

import fcntl
import json
import os
import time

STATE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".twin")
ROCE_PRIORITY = "3"  # = formats_roce.ROCE_PRIORITY: the queue and priority RoCE runs on

MARKS_PER_S = 20000  # ECN-marked packets per second at the congested egress (DCQCN's steady state keeps marking)
BLIP_PFC = 300  # PFC pause frames of a healthy incast: the first second, before DCQCN has slowed the senders
STORM_PFC_PER_S = 4000  # pause frames per second while nothing slows the senders down
DROPS_PER_S = 1500  # packets lost per second of PFC with the headroom short


def record(event_dir, event):
    """Keep one run's event (its own file: concurrent clients never write the same file)."""
    write_own_file(event_dir, "%s-%s" % (event["node"], event["role"]), event)


def write_own_file(directory, stem, item):
    """Write ``item`` as JSON to a file of its own in ``directory`` (``stem`` and the time in ns), atomically: tools
    running at once never write the same file, and a reader never sees half of one."""
    os.makedirs(directory, exist_ok=True)
    name = "%s-%d.json" % (stem, time.time_ns())
    tmp = os.path.join(directory, "." + name)
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(item, handle)
    os.replace(tmp, os.path.join(directory, name))


def load(event_dir):
    events = []
    if not os.path.isdir(event_dir):
        return events
    for name in sorted(os.listdir(event_dir)):
        if name.endswith(".json") and not name.startswith("."):
            with open(os.path.join(event_dir, name), encoding="utf-8") as handle:
                events.append(json.load(handle))
    return events


def incasts(events):
    """Events grouped by (target, rail device) and start second: the clients that fired at one target together.

    A client event: {"role": "client", "node", "target", "device", "start", "duration", "rate_gbps", "rp_on"};
    the target's server records {"role": "server", "node", "device", "start", "np_on"}."""
    groups, clusters = {}, {}
    for event in sorted((e for e in events if e.get("role") == "client"), key=lambda e: e["start"]):
        pair = (event["target"], event["device"])
        first = clusters.get(pair)
        if first is None or event["start"] >= first + max(int(event["duration"]), 1):
            clusters[pair] = first = event["start"]  # a later incast at the same target: its own group
        groups.setdefault(pair + (first,), {"clients": [], "servers": []})["clients"].append(event)
    for event in events:
        if event.get("role") == "server":
            for (target, device, _first), group in groups.items():
                if target == event["node"] and device == event["device"]:
                    group["servers"].append(event)
    return groups


def effect(group, port_gbps, switch_faults):
    """Counts one incast adds: {ecn_marked, pfc_tx, pfc_rx, discards, np_cnp_sent, rp_cnp_handled: {sender: n}}.

    switch_faults: the set of the target port's switch fault kinds (ecn_min_th_high, ecn_off, headroom_short, pfc_off)."""
    clients = group["clients"]
    duration = max(int(c["duration"]) for c in clients)
    zero = {"ecn_marked": 0, "pfc_tx": 0, "pfc_rx": 0, "discards": 0, "np_cnp_sent": 0,
            "rp_cnp_handled": {c["node"]: 0 for c in clients}, "np_ecn_marked_roce_packets": 0}
    if sum(float(c["rate_gbps"]) for c in clients) <= port_gbps:
        return zero  # no queue builds: nothing to mark or pause
    marking = not switch_faults & {"ecn_min_th_high", "ecn_off"}
    np_on = all(s.get("np_on", True) for s in group["servers"]) if group["servers"] else clients[0].get("np_on", True)
    marks = MARKS_PER_S * duration if marking else 0
    cnps = marks // 2 if np_on else 0  # the NP coalesces: one CNP per flow per 50 us at most
    reacting = [c for c in clients if c.get("rp_on", True)]
    slowed = marking and np_on and len(reacting) == len(clients)
    lossless = "pfc_off" not in switch_faults
    pfc = (BLIP_PFC if slowed else STORM_PFC_PER_S * duration) if lossless else 0
    pfc_seconds = 1 if slowed else duration
    drops = 0
    if "headroom_short" in switch_faults or not lossless:
        drops = DROPS_PER_S * pfc_seconds
    out = dict(zero, ecn_marked=marks, pfc_tx=pfc, pfc_rx=0, discards=drops, np_cnp_sent=cnps,
               np_ecn_marked_roce_packets=marks)
    out["rp_cnp_handled"] = {c["node"]: (cnps // len(clients) if c.get("rp_on", True) else 0) for c in clients}
    return out


# --- where the events live, and what the switches and the nodes print from them ---------------------------

def events_dir(digest):
    """.twin/changes/<digest>/incast: under changes/, so twin/up clears it with the rest of what sessions changed."""
    return os.path.join(STATE_DIR, "changes", digest, "incast")


def digest_of(node_dir):
    """The render digest of a node directory (render/<digest>/... or changes/<digest>/...)."""
    return os.path.basename(os.path.dirname(os.path.realpath(node_dir)))


def port_faults(port):
    """The incast-relevant faults of a switch port as its state holds them (switch_model's faults)."""
    faults = set(port.get("qos_faults") or [])
    if not port.get("pfc_priorities"):
        faults.add("pfc_off")
    return faults


def target_port(digest, target, netdev):
    """(switch state, port) facing ``target``'s ``netdev`` among the rendered switches, or (None, None)."""
    folder = os.path.join(STATE_DIR, "render", digest, "switches")
    if not os.path.isdir(folder):
        return None, None
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            switch = json.load(handle)
        for port in switch.get("ports", []):
            if port.get("description") == "%s %s" % (target, netdev):
                return switch, port
    return None, None


def _elapsed(group, now):
    duration = max(int(c["duration"]) for c in group["clients"])
    first = min(c["start"] for c in group["clients"])
    return duration, min(max(now - first, 0.0), float(duration))


def _scaled(out, duration, elapsed):
    """A group's counts as they stand ``elapsed`` seconds into its window: the blip in the first second,
    the rest evenly over the window."""
    if elapsed >= duration:
        return out
    share = elapsed / duration if duration else 1.0
    scaled = {key: int(value * share) for key, value in out.items() if isinstance(value, int)}
    if out["pfc_tx"] and out["pfc_tx"] <= BLIP_PFC:  # a blip: all of it in the first second
        scaled["pfc_tx"] = int(out["pfc_tx"] * min(elapsed, 1.0))
        scaled["discards"] = int(out["discards"] * min(elapsed, 1.0))
    scaled["rp_cnp_handled"] = {node: int(n * share) for node, n in out["rp_cnp_handled"].items()}
    return scaled


def _group_effect(group):
    first = group["clients"][0]
    return effect(group, float(first.get("port_gbps", 400)), set(first.get("switch_faults") or []))


def apply_switch(snapshot, now=None):
    """Add the incasts at this switch's host ports to a concrete snapshot (switch_session.snapshot_now):
    ECN marks and discards on the target's port, PFC TX on the leaf's first uplink (where it pauses the
    spines that carry the senders' traffic), on RoCE's priority."""
    folder = snapshot.get("incast_events")
    if not folder:
        return snapshot
    now = time.time() if now is None else now
    ports = {port.get("description"): port for port in snapshot.get("ports", [])}
    uplink = next((port for port in snapshot.get("ports", []) if port.get("ip")), None)
    for (target, device, _first), group in incasts(load(folder)).items():
        port = ports.get("%s ens%dnp0" % (target, int(device.rsplit("_", 1)[-1]) + 1))
        if port is None:
            continue
        duration, elapsed = _elapsed(group, now)
        out = _scaled(_group_effect(group), duration, elapsed)
        port["ecn_marked"][ROCE_PRIORITY] += out["ecn_marked"]
        port["discards"][ROCE_PRIORITY] += out["discards"]
        (uplink or port)["pfc"][ROCE_PRIORITY]["tx"] += out["pfc_tx"]
    return snapshot


def nic_counts(groups, host):
    """{device: {counter: n}} of a node's rails from every incast it took part in (finished ones whole)."""
    counts = {}
    for (target, device, _first), group in groups.items():
        out = _group_effect(group)
        rail = counts.setdefault(device, {"np_cnp_sent": 0, "rp_cnp_handled": 0, "np_ecn_marked_roce_packets": 0,
                                          "rx_prio3_pause": 0})
        if target == host:
            rail["np_cnp_sent"] += out["np_cnp_sent"]
            rail["np_ecn_marked_roce_packets"] += out["np_ecn_marked_roce_packets"]
        if host in out["rp_cnp_handled"]:
            rail["rp_cnp_handled"] += out["rp_cnp_handled"][host]
            rail["rx_prio3_pause"] += out["pfc_tx"] // max(len(group["clients"]), 1)
    return {device: rail for device, rail in counts.items() if any(rail.values())}


def settle(node_dir, hosts, load_state, commit):
    """After a run: commit the NIC counters of ``hosts`` (the sender itself and its target) computed from every
    event so far, under a pod-wide lock, so the last sender to finish sees every sender's event."""
    folder = events_dir(digest_of(node_dir))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, ".lock"), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        groups = incasts(load(folder))
        for host in hosts:
            state = load_state(host)
            if state is None:
                continue
            counts = nic_counts(groups, host)
            if state.get("incast_counters", {}) != counts:
                state["incast_counters"] = counts
                commit(node_dir, state)
