# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista EOS switch parsers: EOS show commands -> vendor-neutral facts.

Port names come out canonical (Et1/1 -> Ethernet1/1). A parser raises ValueError for output it
cannot read completely (an error message, a missing table header, a line it does not know); the
registry turns that into ParseError. `show qos interfaces ecn counters queue | json` and `show
interfaces phy detail | json` are parsed as JSON, the other commands as text through TextFSM.
"""

import re

from ._common import asn, headed_rows, listed, number as _number, reject_other as _other
from ._registry import parser


# Long interface names by the abbreviations EOS tables print (Et1/1, Ma1, Po10, ...).
_LONG_NAMES = ("Ethernet", "Management", "Port-Channel", "Loopback", "Vlan", "Vxlan", "Tunnel", "Recirc-Channel")
_NAME = re.compile(r"([A-Za-z][A-Za-z-]*)(\d\S*)$")


def port_name(name):
    """Canonical EOS interface name: Et1/1 -> Ethernet1/1, Ma1 -> Management1, Po10 -> Port-Channel10."""
    match = _NAME.match(name)
    if not match:
        return name
    prefix, rest = match.groups()
    if len(prefix) >= 2:
        for long_name in _LONG_NAMES:
            if long_name.lower().startswith(prefix.lower()):
                return long_name + rest
    return name


def _table(rows, what):
    """The data rows of a table whose header the template records as its first row (once)."""
    body = headed_rows(rows, what + " table")
    if any(row.get("header") for row in body):
        raise ValueError("the table header appears twice")
    return body


def _port_table(rows, what, values):
    """{"ports": {port: values(row)}} of a per-port table, failing when it lists no port."""
    return listed("ports", {port_name(row["port"]): values(row) for row in _table(rows, what)}, "interfaces")


# --- interfaces ---------------------------------------------------------------------------------

# Status column -> (oper, admin). disabled = shutdown; errdisabled = admin up, forced down.
_STATUS = {
    "connected": ("up", "up"),
    "notconnect": ("down", "up"),
    "disabled": ("down", "down"),
    "errdisabled": ("down", "up"),
    "inactive": ("down", "up"),
}
_SPEED = re.compile(r"(?:a-)?(\d+(?:\.\d+)?)([GM])$")


def speed_gbps(text):
    """400G / a-100G -> 400 / 100; 100M -> 0.1; auto / unconf -> None."""
    match = _SPEED.match(text)
    if not match:
        return None
    value = float(match.group(1))
    return _number(value if match.group(2) == "G" else value / 1000)


@parser("arista_eos_show_interfaces_status",
        "show interfaces status: per port link status, admin state and speed",
        ntc=True)
def _interfaces(rows):
    return listed("ports", {port_name(row["port"]): _link(row) for row in rows}, "interfaces")


def _link(row):
    oper, admin = _STATUS[row["status"]]
    return {"oper": oper, "admin": admin, "speed_gbps": speed_gbps(row["speed"]), "status": row["status"]}


# --- errors -------------------------------------------------------------------------------------

@parser("arista_eos_show_interfaces_counters_errors",
        "show interfaces counters errors: per port FCS (CRC), Rx and Tx error counters")
def _errors(rows):
    return _port_table(rows, "'Port FCS Align Symbol Rx Runts Giants Tx'",
                       lambda row: {"crc": int(row["fcs"]), "in_errors": int(row["rx"]), "out_errors": int(row["tx"])})


# --- optics -------------------------------------------------------------------------------------

def _lane_group(name):
    """EOS lists a multi-lane optic one row per lane, named by the lane's interface: Et1/1..Et1/8
    on a fixed switch, Et3/1/1..Et3/1/4 on a linecard. The group is the name without the lane."""
    return name.rsplit("/", 1)[0] if "/" in name else name


@parser("arista_eos_show_interfaces_transceiver",
        "show interfaces transceiver: per port optic Tx/Rx power (dBm) of every lane")
def _optics(rows):
    """Lanes of one optic go to the port of its first lane (Et1/1..Et1/4 -> Ethernet1/1).

    A row with neither Tx nor Rx power (N/A: no optic DOM) is left out; a lane's N/A value is
    left out of that list (a DAC or an optic without Tx monitoring).
    A port broken out into several interfaces gets all lanes of the optic on its first interface.
    """
    ports = {}
    for row in _table(rows, "'Port (Celsius) (Volts) ...'"):
        if row["rx_power"] == "N/A" and row["tx_power"] == "N/A":
            continue
        key = ports.setdefault(_lane_group(row["port"]), {"port": port_name(row["port"]), "rx_dbm": [], "tx_dbm": []})
        for side, column in (("rx_dbm", "rx_power"), ("tx_dbm", "tx_power")):
            if row[column] != "N/A":
                key[side].append(float(row[column]))
    return {"ports": {entry.pop("port"): entry for entry in ports.values()}}


# --- lldp ---------------------------------------------------------------------------------------

@parser("arista_eos_show_lldp_neighbors",
        "show lldp neighbors: per port LLDP neighbor system name and port id")
def _lldp(rows):
    neighbors = {}
    for row in _table(rows, "'Port Neighbor Device ID Neighbor Port ID TTL'"):
        neighbors.setdefault(port_name(row["local_interface"]), []).append(
            {"system": row["neighbor_name"], "port": row["neighbor_interface"]})
    return {"neighbors": neighbors}


# --- bgp ----------------------------------------------------------------------------------------

_BGP_STATES = {"Estab": "Established", "Established": "Established", "Idle": "Idle", "Active": "Active",
               "Connect": "Connect", "OpenSent": "OpenSent", "OpenConfirm": "OpenConfirm"}


@parser("arista_eos_show_ip_bgp_summary",
        "show ip bgp summary: BGP neighbors of the default VRF, remote AS, state, prefixes received")
def _bgp(rows):
    neighbors = {}
    for row in _other(rows):
        if not row["bgp_neigh"] or row["vrf"] not in ("", "default"):
            continue  # the Filldown-only row TextFSM adds at the end; another VRF's neighbors
        state, received = row["state"], row["state_pfxrcd"]
        if not state and received:  # old layout: a number in State/PfxRcd means Established
            state = "Estab"
        base, qualifier = state.split("(", 1) if "(" in state else (state, "")
        if base not in _BGP_STATES:
            raise ValueError("neighbor %s: unknown state %r" % (row["bgp_neigh"], state))
        state = _BGP_STATES[base]
        if qualifier:  # Estab(NotNegotiated): up, but its address family was never negotiated; Idle(Admin)
            state = "%s (%s)" % (state, qualifier.rstrip(")"))
        if state == "Established" and not received:
            raise ValueError("neighbor %s is Established but shows no prefix count (truncated?)" % row["bgp_neigh"])
        neighbors[row["bgp_neigh"]] = {"remote_as": asn(row["neigh_as"]), "state": state,
                                       "prefixes_received": int(received) if state == "Established" else None}
    if not neighbors:
        raise ValueError("no BGP neighbor of the default VRF listed")
    return {"neighbors": neighbors}


# --- routes -------------------------------------------------------------------------------------

@parser("arista_eos_show_ip_route",
        "show ip route bgp: BGP routes of the default VRF with every ECMP next hop",
        ntc=True)
def _routes(rows):
    routes = {}
    for row in rows:
        if row["vrf"] not in ("", "default"):
            raise ValueError("routes of VRF %s: not the default VRF's table" % row["vrf"])
        protocol = row["protocol"].split()
        if not protocol or protocol[0] != "B":  # B E, B I, B (not A B aggregates, C, S, O ...)
            continue
        hops = [hop for hop in row["next_hop"] if hop != "connected"]
        if not hops:
            raise ValueError("BGP route %s/%s has no next hop" % (row["network"], row["prefix_length"]))
        routes["%s/%s" % (row["network"], row["prefix_length"])] = {"next_hops": hops}
    return {"routes": routes}


# --- pfc / ecn / discards -----------------------------------------------------------------------

@parser("arista_eos_show_priority-flow-control_counters",
        "show priority-flow-control counters: per port PFC frames received/sent (port totals)")
def _pfc(rows):
    return _port_table(rows, "'Port RxPfc TxPfc'", lambda row: {"all": {"rx": int(row["rx_pfc"]), "tx": int(row["tx_pfc"])}})


@parser("arista_eos_show_qos_interfaces_ecn_counters_queue",
        "show qos interfaces ecn counters queue | json: per port ECN-marked packets per tx queue",
        kind="json")
def _ecn(document):
    """{"intfQueueCounters": {INTF: {"queueCounters": {QUEUE: N or "-"}}}}; "-": ECN not configured on that queue."""
    ports = {}
    for interface, counters in document["intfQueueCounters"].items():
        marked = ports.setdefault(port_name(interface), {})
        for queue, value in counters["queueCounters"].items():
            number = re.sub(r"\D", "", str(queue))  # "3", "TxQ3", "tx-queue 3" -> "3"
            if not number:
                raise ValueError("%s: unreadable queue %r" % (interface, queue))
            if value == "-":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError("%s queue %s: %r is not a packet count" % (interface, queue, value))
            marked[number] = value
    if not ports:
        raise ValueError("no interface in intfQueueCounters")
    return {"ports": ports}


@parser("arista_eos_show_interfaces_counters_discards",
        "show interfaces counters discards: per port output (egress) discards, port total")
def _discards(rows):
    return _port_table(rows, "'Port InDiscards OutDiscards'", lambda row: {"all": int(row["out_discards"])})


# --- fec ----------------------------------------------------------------------------------------

_FEC_COUNTERS = (("fec_corrected", "correctedCodewords"), ("fec_uncorrected", "uncorrectedCodewords"))


@parser("arista_eos_show_interfaces_phy_detail",
        "show interfaces phy detail | json: per port RS-FEC corrected and uncorrected codewords (all PHYs of the port)",
        kind="json")
def _phy_detail(document):
    """{"interfacePhyStatuses": {INTF: {"phyStatuses": [{"fec": {"correctedCodewords": {"value": N, "changes": C,
    "lastChange": T}, "uncorrectedCodewords": {...}}, ...}, ...]}}}: counts since the last `clear counters`.

    A port behind a gearbox or retimer lists one PHY per hop (the switch chip's SerDes, the gearbox's
    system and line sides), each with its own FEC counters; the port's counters are their sum, so
    errors on any hop of the port count (a sum of counters that only rise only rises). A PHY without
    RS-FEC codeword counters (no FEC; Fire-code FEC counts blocks per lane) adds nothing, and a port
    with none is left out: no data, not zero.
    """
    interfaces = document["interfacePhyStatuses"]
    if not interfaces:
        raise ValueError("no interface in interfacePhyStatuses")
    ports = {}
    for interface, status in interfaces.items():
        fecs = [phy["fec"] for phy in status["phyStatuses"] if "correctedCodewords" in (phy.get("fec") or {})]
        if fecs:
            ports[port_name(interface)] = {fact: sum(_codewords(interface, fec, key) for fec in fecs) for fact, key in _FEC_COUNTERS}
    return {"ports": ports}


def _codewords(interface, fec, key):
    value = fec[key]["value"]
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # eAPI numbers may come as 12.0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("%s %s: %r is not a codeword count" % (interface, key, value))
    return value
