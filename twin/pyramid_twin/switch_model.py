"""The twin's switches: a rail-optimized leaf/spine fabric derived from the scenario's `switches:`.

Only the twin uses this. Topology: for every group of `nodes_per_leaf` nodes (a scalable unit, SU)
and every rail r, one rail leaf `leaf<su>-r<r>` with one 400G port per node of the SU and one uplink
to every spine; eBGP (spines AS 65000, leaf n AS 65101+n), each leaf advertises its rail subnet
10.(50+r).(su-1).0/24 and learns every other leaf's prefix through every spine (4-way ECMP by default).

Switch state (``switch_state``): the renderer's snapshot (formats_<os>.py) plus counter *rates*:
every counter is {"base": N, "per_s": R} until switch_session.snapshot_now makes it N + R *
seconds since the render, so a counter can rise during the soak the product measures.

Host-side faults show on the switch too (a rail Down on node-007 is a notconnect port on its leaf,
a rail at 200G is a 200G port), as the two ends of a cable do.
"""

import copy
import ipaddress

from pyramid_twin import model

OSES = ("eos", "nxos", "sonic", "cumulus")
CLI_OSES = ("eos", "nxos")  # reached through network_cli; the others are Linux over SSH
NETWORK_OS = {"eos": "arista.eos.eos", "nxos": "cisco.nxos.nxos"}
SPINE_ASN = 65000
PRIORITIES = [str(p) for p in range(8)]
LOSSLESS = [3]  # RoCE's lossless priority on every port (the inventory's pyramid_pfc_priorities default)
HEALTHY_RX = [-4.1, -4.3, -3.9, -4.2]  # where the seed says lanes typically read (-3 to -7 dBm)
HEALTHY_TX = [0.8, 0.9, 0.7, 0.8]
# 400GBASE-R on the wire: 8 lanes x 53.125 Gb/s of RS(544,514) codewords. Every corrected codeword holds at
# least one bit error, so corrected codewords per second / LINE_BPS is a floor of the pre-FEC BER.
LINE_BPS = 425e9
UPTIME_S = 183000  # 2d03h, the age of the BGP sessions: FEC counts since then
# An idle port's traffic: LLDP, BGP keepalives, ARP, the management plane's trickle, about 96 bytes a frame. What a
# load puts through a port (fabric_load.py) comes on top, at each read.
IDLE_FRAME_BYTES = 96
# What a faulty uplink (uplink_slow, uplink_marginal) costs per packet it carries under load (fabric_load._add). A slow
# link's leaf egress queue fills: DCQCN's marks on a tenth of its packets, a tail drop in ten thousand (times
# 1 - factor). A marginal cable: a frame in 100,000 arrives with a bad FCS, half as many codewords past the FEC.
SLOW_ECN_PER_PACKET = 0.1
SLOW_DISCARDS_PER_PACKET = 1e-4
MARGINAL_ERRORS_PER_PACKET = 1e-5
MARGINAL_FEC_UNCORRECTED_PER_PACKET = 5e-6
# The pace of an all-to-all through a marginal cable (fabric_load.uplink_pace, as pod.fabric.spine_funnel's factor):
# each frame lost to a bad FCS is a RoCE go-back-N retransmit of the whole window behind it
MARGINAL_PACE = 0.3
LINK_FAULTS = ("uplink_slow", "uplink_marginal")

SWITCH_FAULTS = {}


class SwitchScenarioError(model.ScenarioError):
    """The scenario's switches section is not valid."""


def fault(kind):
    def register(function):
        SWITCH_FAULTS[kind] = function
        return function
    return register


def settings(scenario):
    """The scenario's `switches:` with defaults, or None for a pod without switches."""
    section = scenario.get("switches")
    if section is None:
        return None
    if not isinstance(section, dict):
        raise SwitchScenarioError("switches: a mapping")
    out = {"spines": section.get("spines", 4), "nodes_per_leaf": section.get("nodes_per_leaf", 32),
           "leaf_os": section.get("leaf_os", ["eos"]), "spine_os": section.get("spine_os", ["eos"]),
           "faults": section.get("faults", [])}
    unknown = set(section) - set(out)
    if unknown:
        raise SwitchScenarioError("switches: unknown keys %s" % sorted(unknown))
    if not isinstance(out["spines"], int) or not 1 <= out["spines"] <= 64:
        raise SwitchScenarioError("switches.spines must be 1..64")
    for key in ("leaf_os", "spine_os"):
        if not out[key] or any(os_name not in OSES for os_name in out[key]):
            raise SwitchScenarioError("switches.%s: a list of %s" % (key, ", ".join(OSES)))
    return out


def topology(scenario):
    """Every switch (name -> role, os, index, leaf number or spine number) and the cabling plan."""
    conf = settings(scenario)
    if conf is None:
        return None
    nodes = model.node_names(scenario)
    rails = scenario["pod"]["rails"]
    per_leaf = conf["nodes_per_leaf"]
    sus = (len(nodes) + per_leaf - 1) // per_leaf
    switches, leaves = {}, []
    for su in range(1, sus + 1):
        members = nodes[(su - 1) * per_leaf:su * per_leaf]
        for rail in range(rails):
            number = len(leaves)
            name = "leaf%d-r%d" % (su, rail)
            leaves.append(name)
            switches[name] = {"role": "leaf", "number": number, "su": su, "rail": rail, "nodes": members,
                              "os": conf["leaf_os"][number % len(conf["leaf_os"])], "asn": 65101 + number,
                              "prefix": "10.%d.%d.0/24" % (50 + rail, su - 1)}
    for spine in range(conf["spines"]):
        name = "spine-%02d" % (spine + 1)
        switches[name] = {"role": "spine", "number": spine, "os": conf["spine_os"][spine % len(conf["spine_os"])],
                          "asn": SPINE_ASN}
    for index, name in enumerate(switches, start=1):
        switches[name]["index"] = index
        switches[name]["address"] = switch_address(index)
    for item in conf["faults"]:
        if not isinstance(item, dict) or item.get("kind") not in SWITCH_FAULTS:
            raise SwitchScenarioError("switch fault %r: kind must be one of %s" % (item, ", ".join(sorted(SWITCH_FAULTS))))
        if item.get("switch") not in switches and item["kind"] != "miscabled":
            raise SwitchScenarioError("switch fault %r names unknown switch %r" % (item["kind"], item.get("switch")))
        if item["kind"] in LINK_FAULTS:
            _check_link_fault(item, switches)
    return {"switches": switches, "leaves": leaves, "spines": [n for n in switches if n.startswith("spine")],
            "rails": rails, "conf": conf}


def _check_link_fault(item, switches):
    """An uplink fault names a leaf-spine link: `switch` its leaf, `peer` one of its spines (every leaf has an uplink
    to every spine); uplink_slow's `factor` a share of its peers' bytes, above 0 and below 1."""
    kind, leaf, peer = item["kind"], item["switch"], item.get("peer")
    allowed = {"kind", "switch", "peer"} | ({"factor"} if kind == "uplink_slow" else set())
    if set(item) - allowed:
        raise SwitchScenarioError("%s takes %s, not %s" % (kind, ", ".join(sorted(allowed)), ", ".join(sorted(set(item) - allowed))))
    if switches[leaf]["role"] != "leaf":
        raise SwitchScenarioError("%s: switch %r is a spine; name the link by its leaf (switch: leaf<su>-r<rail>) and "
                                  "its spine (peer)" % (kind, leaf))
    if peer not in switches or switches[peer]["role"] != "spine":
        raise SwitchScenarioError("%s on %s: peer %r is not a spine of this fabric (spines: %s)" % (
            kind, leaf, peer, ", ".join(name for name in switches if switches[name]["role"] == "spine")))
    factor = item.get("factor", 0.25)
    if kind == "uplink_slow" and (isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor < 1):
        raise SwitchScenarioError("uplink_slow on %s-%s: factor must be above 0 and below 1 (the share of its ECMP "
                                  "peers' bytes the link carries), got %r" % (leaf, peer, factor))


def switch_address(index):
    """Switch number ``index`` (1-based) answers at 127.2.x.y."""
    return str(ipaddress.IPv4Address("127.2.0.0") + index)


def port_name(os_name, number):
    """The switch's front-panel port ``number`` (1-based), 400G, as the OS names it."""
    return {"eos": "Ethernet%d/1" % number, "nxos": "Ethernet1/%d" % number,
            "sonic": "Ethernet%d" % ((number - 1) * 8), "cumulus": "swp%d" % number}[os_name]


def _link(leaf_number, spine_number):
    """The /31 of a leaf-spine link: (spine side, leaf side)."""
    network = ipaddress.IPv4Address("10.200.0.0") + (spine_number * 1024 + leaf_number) * 2
    return str(network), str(network + 1)


def plan(topo, name):
    """What the switch should be: its ports (with what sits at the far end), BGP peers, ECMP prefixes.

    This is what the inventory declares (the cabling and IP plan), whatever the faults.
    """
    info = topo["switches"][name]
    ports, neighbors, prefixes = [], [], []
    if info["role"] == "leaf":
        for position, node in enumerate(info["nodes"], start=1):
            ports.append({"port": port_name(info["os"], position), "peer": node,
                          "peer_port": "ens%dnp0" % (info["rail"] + 1), "role": "host"})
        base = len(info["nodes"])
        for spine_name in topo["spines"]:
            spine = topo["switches"][spine_name]
            spine_side, leaf_side = _link(info["number"], spine["number"])
            ports.append({"port": port_name(info["os"], base + spine["number"] + 1), "peer": spine_name,
                          "peer_port": port_name(spine["os"], info["number"] + 1), "role": "fabric",
                          "ip": leaf_side + "/31"})
            neighbors.append({"address": spine_side, "name": spine_name, "remote_as": SPINE_ASN})
        prefixes = [topo["switches"][other]["prefix"] for other in topo["leaves"] if other != name]
    else:
        for leaf_name in topo["leaves"]:
            leaf = topo["switches"][leaf_name]
            spine_side, leaf_side = _link(leaf["number"], info["number"])
            ports.append({"port": port_name(info["os"], leaf["number"] + 1), "peer": leaf_name,
                          "peer_port": port_name(leaf["os"], len(leaf["nodes"]) + info["number"] + 1),
                          "role": "fabric", "ip": spine_side + "/31"})
            neighbors.append({"address": leaf_side, "name": leaf_name, "remote_as": leaf["asn"]})
    return {"ports": ports, "bgp_neighbors": neighbors, "ecmp_prefixes": prefixes}


def _counter(value=0, per_s=0.0):
    return {"base": value, "per_s": per_s}


def _healthy_fec_per_s(port_name_, switch_number):
    """A healthy 400G optic still corrects a few hundred codewords a second (pre-FEC BER 1e-10 to 1e-9):
    PAM4 links run on FEC. Spread per port, the same on every render."""
    return float(40 + (sum(map(ord, port_name_)) * 7 + switch_number * 13) % 400)


def _fec(per_s, uncorrected_per_s=0.0):
    return {"fec_corrected": _counter(int(per_s * UPTIME_S), per_s), "fec_uncorrected": _counter(0, uncorrected_per_s),
            "pre_fec_ber": per_s / LINE_BPS}


def _healthy_port(entry, asn_hint=0):
    port = {
        "name": entry["port"], "description": "%s %s" % (entry["peer"], entry["peer_port"]),
        "admin": "up", "oper": "up", "speed_gbps": 400,
        "crc": _counter(), "in_errors": _counter(), "out_errors": _counter(),
        "rx_dbm": list(HEALTHY_RX), "tx_dbm": list(HEALTHY_TX), "optic": "400GBASE-DR4",
        "lldp": [{"system": entry["peer"], "port": entry["peer_port"]}],
        "pfc": {p: {"rx": _counter(), "tx": _counter()} for p in PRIORITIES},
        "pfc_priorities": list(LOSSLESS),  # PFC on (no-drop) on RoCE's priority; [] is PFC off
        "mtu": None,  # None: the platform's default (SONiC 9100, NVUE 9216); the mtu_small fault sets one
        "ecn_marked": {p: _counter() for p in PRIORITIES},
        "discards": {p: _counter() for p in PRIORITIES},
        "ip": entry.get("ip"), "in_packets": _counter(1000000 + asn_hint, 1000.0), "out_packets": _counter(1000000 + asn_hint, 1000.0),
        "in_octets": _counter((1000000 + asn_hint) * IDLE_FRAME_BYTES, 1000.0 * IDLE_FRAME_BYTES),
        "out_octets": _counter((1000000 + asn_hint) * IDLE_FRAME_BYTES, 1000.0 * IDLE_FRAME_BYTES),
    }
    if entry.get("role") == "fabric":  # what a load puts through the link (fabric_load.py): its share, set by link_shares
        port["load"] = {"share": 0.0}
    port.update(_fec(_healthy_fec_per_s(entry["port"], asn_hint)))
    return port


def switch_state(scenario, name, node_state=model.node_state):
    topo = topology(scenario)
    if topo is None or name not in topo["switches"]:
        raise SwitchScenarioError("no switch %r in this scenario" % name)
    info = topo["switches"][name]
    wanted = plan(topo, name)
    state = {"hostname": name, "os": info["os"], "role": info["role"], "asn": info["asn"],
             "router_id": "10.255.%d.%d" % (info["role"] == "spine", info["number"] + 1),
             "index": info["index"], "address": info["address"], "unreachable": False, "auth_fail": False,
             "prompt_timeout": False, "cli_stall": None, "json_unconverted": [], "uptime_s": UPTIME_S,
             "ports": [_healthy_port(entry, info["number"]) for entry in wanted["ports"]],
             "bgp_neighbors": [], "routes": []}
    for neighbor in wanted["bgp_neighbors"]:
        state["bgp_neighbors"].append({
            "address": neighbor["address"], "remote_as": neighbor["remote_as"], "state": "Established",
            "prefixes_received": (len(topo["leaves"]) - 1) if info["role"] == "leaf" else 1,
            "up_down": "2d03h", "msg_rcvd": 4021, "msg_sent": 4033, "description": neighbor["name"],
            "peer": neighbor["name"]})
    _host_side(scenario, topo, info, state, node_state)
    _load_shares(topo, name, state)
    for item in topo["conf"]["faults"]:
        if item["kind"] == "miscabled":
            _miscabled(topo, info, state, item)
        elif item["switch"] == name or item["kind"] in PEER_FAULTS and item.get("peer") == name:
            SWITCH_FAULTS[item["kind"]](state, item, name)
    _routes(topo, name, state, scenario)
    return state


def _host_side(scenario, topo, info, state, node_state):
    """The far end of a host port is a node's rail: its faults show here (port down, speed)."""
    if info["role"] != "leaf":
        return
    for port, node in zip(state["ports"], info["nodes"]):
        rails = {rail["device"]: rail for rail in node_state(scenario, node)["rails"]}
        rail = rails.get("mlx5_%d" % info["rail"])
        if rail is None or rail["state"] != "Active":
            _down(port)
        elif rail["rate"] != 400:
            port["speed_gbps"] = rail["rate"]


def _down(port):
    # no light, no codewords: the FEC counters keep what they had
    port.update(oper="down", lldp=[], rx_dbm=[-40.0] * len(port["rx_dbm"]), pre_fec_ber=0.0)
    for field in ("fec_corrected", "fec_uncorrected"):
        port[field] = _counter(port[field]["base"])


def _port(state, item):
    for port in state["ports"]:
        if port["name"] == item.get("port"):
            return port
    raise SwitchScenarioError("%s has no port %r (ports: %s ...)" % (
        state["hostname"], item.get("port"), ", ".join(p["name"] for p in state["ports"][:3])))


@fault("port_down")
def _port_down(state, item, name):
    _down(_port(state, item))


@fault("port_speed")
def _port_speed(state, item, name):
    _port(state, item)["speed_gbps"] = int(item.get("speed", 100))


@fault("crc_rising")
def _crc_rising(state, item, name):
    port = _port(state, item)
    port["crc"] = _counter(int(item.get("count", 0)), float(item.get("per_s", 20)))
    port["in_errors"] = copy.deepcopy(port["crc"])


@fault("crc_old")
def _crc_old(state, item, name):
    port = _port(state, item)  # errors from before the cable was reseated: flat during the soak
    port["crc"] = _counter(int(item.get("count", 1412)))
    port["in_errors"] = _counter(int(item.get("count", 1412)))


@fault("rx_power_low")
def _rx_power_low(state, item, name):
    port = _port(state, item)
    lanes = item.get("lanes") or list(range(len(port["rx_dbm"])))
    for lane in lanes:
        port["rx_dbm"][lane] = float(item.get("dbm", -11.5))


@fault("fec_degraded")
def _fec_degraded(state, item, name):
    """A dirty connector or a marginal optic: the FEC corrects far more than on a clean link (and, past
    its limit, loses codewords: frames dropped, RoCE retransmits)."""
    port = _port(state, item)
    port.update(_fec(float(item.get("corrected_per_s", 250000)), float(item.get("uncorrected_per_s", 0))))


def _rising(field):
    def apply(state, item, name):
        port = _port(state, item)
        priority = str(item.get("priority", 3))
        if field == "pfc":
            port["pfc"][priority][item.get("direction", "rx")] = _counter(0, float(item.get("per_s", 500)))
        else:
            port[field][priority] = _counter(0, float(item.get("per_s", 500)))
    return apply


@fault("pfc_off")
def _pfc_off(state, item, name):
    """PFC switched off on the port (`no priority-flow-control`, no pfc_enable, RoCE mode lossy): no
    lossless priority, so RoCE over it is lossy while its pause counters stay at 0."""
    _port(state, item)["pfc_priorities"] = []


def _qos(kind):
    """A QoS misconfiguration an idle switch does not show, only an incast (incast.py): on the fault's
    `port`, or on every port of the switch without one. ecn_min_th_high: the RoCE queue's WRED/ECN min_th
    above where the queue ever gets (PFC fires first, nothing is marked); ecn_off: no ECN on the queue;
    headroom_short: the PFC headroom too small for the cable (what arrives after XOFF is dropped)."""
    def apply(state, item, name):
        for port in [_port(state, item)] if item.get("port") else state["ports"]:
            port.setdefault("qos_faults", []).append(kind)
    return apply


for _kind in ("ecn_min_th_high", "ecn_off", "headroom_short"):
    SWITCH_FAULTS[_kind] = _qos(_kind)


@fault("lossless_priority")
def _lossless_priority(state, item, name):
    """The port's no-drop priority is another than RoCE's (`priority`, default 4): PFC on, on the wrong priority,
    so the port passes any PFC-is-on check yet disagrees with the NICs (issue 14, host and switch agree)."""
    priority = item.get("priority", 4)
    if not isinstance(priority, int) or not 0 <= priority <= 7:
        raise SwitchScenarioError("lossless_priority: priority must be 0..7, got %r" % (priority,))
    _port(state, item)["pfc_priorities"] = [priority]


@fault("mtu_small")
def _mtu_small(state, item, name):
    """The port's MTU below the rails' (`mtu`, default 1500: a port left at Ethernet's default): the leaf drops
    RoCE's jumbo frames."""
    mtu = item.get("mtu", 1500)
    if not isinstance(mtu, int) or not 68 <= mtu <= 9216:
        raise SwitchScenarioError("mtu_small: mtu must be 68..9216, got %r" % (mtu,))
    _port(state, item)["mtu"] = mtu


SWITCH_FAULTS["pfc_rising"] = _rising("pfc")
SWITCH_FAULTS["ecn_rising"] = _rising("ecn_marked")
SWITCH_FAULTS["discards_rising"] = _rising("discards")
PEER_FAULTS = ("bgp_down",) + LINK_FAULTS  # applied to both ends


@fault("bgp_down")
def _bgp_down(state, item, name):
    """The session between `switch` and `peer` is down; both ends see it."""
    other = item["peer"] if name == item["switch"] else item["switch"]
    for neighbor in state["bgp_neighbors"]:
        if neighbor["peer"] == other:
            neighbor.update(state=item.get("state", "Idle") if name == item["switch"] else "Active",
                            prefixes_received=None, up_down="00:12:41")


def _link_port(state, far_end):
    """This switch's port on the link to ``far_end`` (a fabric port: it carries a load share)."""
    return next(port for port in state["ports"] if "load" in port and port["description"].split()[0] == far_end)


@fault("uplink_slow")
def _uplink_slow(state, item, name):
    """A leaf-spine link that idle reads pass (up, rated speed, clean optics and counters, BGP, ECMP) but that under
    load carries `factor` of each ECMP peer's bytes (link_shares): the leaf's egress queue on it fills, marking ECN and
    dropping on the RoCE priority in proportion to what it carries (fabric_load.py)."""
    if name == item["switch"]:
        spare = 1.0 - float(item.get("factor", 0.25))
        _link_port(state, item["peer"])["load"].update(ecn_per_packet=SLOW_ECN_PER_PACKET * spare,
                                                       discards_per_packet=SLOW_DISCARDS_PER_PACKET * spare)


@fault("uplink_marginal")
def _uplink_marginal(state, item, name):
    """A marginal cable between a leaf and a spine: zero errors at idle, CRC / input errors (and FEC uncorrected
    codewords) on both ends' receive side in proportion to the traffic it carries (fabric_load.py)."""
    other = item["peer"] if name == item["switch"] else item["switch"]
    _link_port(state, other)["load"].update(errors_per_packet=MARGINAL_ERRORS_PER_PACKET,
                                            fec_uncorrected_per_packet=MARGINAL_FEC_UNCORRECTED_PER_PACKET)


def link_shares(topo):
    """(leaf, spine) -> the share of the leaf's traffic across units that the link carries: ECMP spreads it evenly
    over the spines the leaf has a session with (bgp_down: none through that one), an uplink_slow link carrying
    `factor` of each peer's bytes."""
    weights = {pair: 1.0 if up else 0.0 for pair, up in _session_map(topo, None).items()}
    for item in topo["conf"]["faults"]:
        if item["kind"] == "uplink_slow":
            weights[(item["switch"], item["peer"])] *= float(item.get("factor", 0.25))
    shares = {}
    for leaf in topo["leaves"]:
        total = sum(weights[(leaf, spine)] for spine in topo["spines"])
        for spine in topo["spines"]:
            shares[(leaf, spine)] = weights[(leaf, spine)] / total if total else 0.0
    return shares


def _load_shares(topo, name, state):
    if not any(port.get("load") is not None for port in state["ports"]):
        return
    shares = link_shares(topo)
    for port in state["ports"]:
        if "load" in port:
            far = port["description"].split()[0]
            port["load"]["share"] = shares[(name, far) if state["role"] == "leaf" else (far, name)]


def node_view(scenario):
    """What every node's multi-node runs know of the switches (model.node_state's switch_fabric): the unit size, the
    spines, and each uplink fault's unit, rail and pace (fabric_load.uplink_pace, pair_pace). None for a pod without
    switches."""
    conf = settings(scenario)
    if conf is None:
        return None
    faults = [item for item in conf["faults"] if isinstance(item, dict) and item.get("kind") in LINK_FAULTS]
    # the spines a pair's flow may hash onto (fabric_load.pair_spine): every leaf has an uplink to each
    view = {"nodes_per_leaf": conf["nodes_per_leaf"], "uplink_faults": [],
            "spines": ["spine-%02d" % (spine + 1) for spine in range(conf["spines"])]}
    if faults:
        switches = topology(scenario)["switches"]  # refuses a fault that names no leaf-spine link
        for item in faults:
            leaf = switches[item["switch"]]
            view["uplink_faults"].append({
                "kind": item["kind"], "leaf": item["switch"], "spine": item["peer"], "su": leaf["su"], "rail": leaf["rail"],
                "pace": float(item.get("factor", 0.25)) if item["kind"] == "uplink_slow" else MARGINAL_PACE})
    return view


@fault("maximum_paths")
def _maximum_paths(state, item, name):
    state["maximum_paths"] = int(item.get("paths", 1))  # BGP maximum-paths missing: one path installed


@fault("unreachable")
def _unreachable(state, item, name):
    state["unreachable"] = True


@fault("auth_fail")
def _auth_fail(state, item, name):
    state["auth_fail"] = True


@fault("prompt_timeout")
def _prompt_timeout(state, item, name):
    state["prompt_timeout"] = True


@fault("cli_stall")
def _cli_stall(state, item, name):
    """A busy switch CPU: the CLI pauses right after a line that looks like a prompt (NX-OS's
    "QoS-Group#"), `times` per session."""
    state["cli_stall"] = {"seconds": float(item.get("seconds", 0.5)), "times": int(item.get("times", 1))}


@fault("json_unconverted")
def _json_unconverted(state, item, name):
    """An EOS release that has no JSON model for some `show` commands: their `| json` form is refused with
    `% This is an unconverted command` (`commands`: those commands without `| json`; every one when not given)."""
    state["json_unconverted"] = list(item.get("commands") or ["*"])


@fault("miscabled")
def _miscabled_marker(state, item, name):
    """Applied by _miscabled: a node's cables of two rails swapped at the leaves."""


def _miscabled(topo, info, state, item):
    node, rails = item.get("node"), item.get("rails", [2, 3])
    if info["role"] != "leaf" or info["rail"] not in rails or node not in info["nodes"]:
        return
    other = rails[1] if info["rail"] == rails[0] else rails[0]
    port = state["ports"][info["nodes"].index(node)]
    port["lldp"] = [{"system": node, "port": "ens%dnp0" % (other + 1)}]


def _established(state):
    return {n["peer"] for n in state["bgp_neighbors"] if n["state"] == "Established"}


def _routes(topo, name, state, scenario):
    """BGP routes: a leaf learns every other leaf's prefix through each spine both sessions are up on."""
    info = topo["switches"][name]
    sessions = _session_map(topo, scenario)
    if info["role"] == "leaf":
        by_spine = {n["peer"]: n for n in state["bgp_neighbors"]}
        ports = {p["description"].split()[0]: p for p in state["ports"]}
        for other in topo["leaves"]:
            if other == name:
                continue
            hops = []
            for spine in topo["spines"]:
                if sessions.get((name, spine)) and sessions.get((other, spine)):
                    hops.append({"address": by_spine[spine]["address"], "interface": ports[spine]["name"]})
            hops = hops[:state.get("maximum_paths", len(hops))]
            if hops:
                state["routes"].append({"prefix": topo["switches"][other]["prefix"], "next_hops": hops, "age": "2d03h"})
    else:
        ports = {p["description"].split()[0]: p for p in state["ports"]}
        for neighbor in state["bgp_neighbors"]:
            if neighbor["state"] == "Established":
                leaf = neighbor["peer"]
                state["routes"].append({"prefix": topo["switches"][leaf]["prefix"], "age": "2d03h",
                                        "next_hops": [{"address": neighbor["address"], "interface": ports[leaf]["name"]}]})
    for neighbor in state["bgp_neighbors"]:
        if neighbor["state"] == "Established" and info["role"] == "leaf":
            neighbor["prefixes_received"] = sum(1 for other in topo["leaves"] if other != name
                                                and sessions.get((other, neighbor["peer"])))


def _session_map(topo, scenario):
    """(leaf, spine) -> session up, from the bgp_down faults."""
    up = {(leaf, spine): True for leaf in topo["leaves"] for spine in topo["spines"]}
    for item in topo["conf"]["faults"]:
        if item["kind"] == "bgp_down":
            pair = tuple(sorted((item["switch"], item["peer"]), key=lambda n: n.startswith("spine")))
            up[pair] = False
    return up


def inventory_vars(topo, name):
    """The inventory's expectations of a switch: platform, cabling and BGP plan."""
    info = topo["switches"][name]
    wanted = plan(topo, name)
    return {"pyramid_switch_os": info["os"], "pyramid_switch_ports": wanted["ports"],
            "pyramid_bgp_neighbors": wanted["bgp_neighbors"], "pyramid_ecmp_prefixes": wanted["ecmp_prefixes"],
            "pyramid_ecmp_paths": len(topo["spines"])}
