# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista EOS switch parsers: EOS show commands -> vendor-neutral facts.

Port names come out canonical (Et1/1 -> Ethernet1/1). A parser raises ValueError for output it
cannot read completely (an error message, a missing table header, a line it does not know); the
registry turns that into ParseError. EOS answers every command the catalog reads in JSON too (`| json`,
what eAPI and ANTA read): the *_json parsers read those documents, which cannot be cut short without
failing to decode, and are asked first; each text parser is its command's next way, asked where a release
refuses the JSON form (catalog/switch.yml, collect/cli.py). `show ip route`
is read as text by our own line parser (both the pre-4.31 layout, first next hop on the route's line,
and the 4.31+ one with its `Source Codes:` legend and every next hop on its own line).
"""

import ipaddress
import math
import re

from ._common import asn, bgp_neighbor, bgp_state, distinct, headed_rows, listed, number as _number, reject_other as _other, trailerless
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
    return trailerless(listed("ports", {port_name(row["port"]): _link(row) for row in rows}, "interfaces"))


def _link(row):
    oper, admin = _STATUS[row["status"]]
    return {"oper": oper, "admin": admin, "speed_gbps": speed_gbps(row["speed"]), "status": row["status"]}


def _count(where, value):
    """An eAPI counter: a non-negative integer (12.0 and "12" read as 12; EOS prints some as strings)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("%s: %r is not a count" % (where, value))
    return value


def _json_ports(document, key, values):
    """{"ports": {port: values(name, entry)}} of an eAPI per-interface object, failing when it lists none."""
    return listed("ports", {port_name(name): values(name, entry) for name, entry in document[key].items()}, "interfaces")


@parser("arista_eos_show_interfaces_status_json",
        "show interfaces status | json: per port link status, admin state and speed",
        kind="json")
def _interfaces_json(document):
    """{"interfaceStatuses": {INTF: {"linkStatus": "connected", "bandwidth": 400000000000, ...}}}; the
    bandwidth is the configured or negotiated speed in bit/s (0 when unknown)."""
    def values(name, entry):
        status = entry["linkStatus"]
        if status not in _STATUS:
            raise ValueError("%s: unknown link status %r" % (name, status))
        oper, admin = _STATUS[status]
        bandwidth = _count(name + " bandwidth", entry["bandwidth"])
        return {"oper": oper, "admin": admin, "speed_gbps": _number(bandwidth / 1e9) if bandwidth else None, "status": status}
    return _json_ports(document, "interfaceStatuses", values)


# Interfaces whose MTU the agreement reads: the front-panel ports (and their subinterfaces), not Management,
# Loopback (65535), Vxlan (0) or Port-Channel ones, which carry no host's rail.
_MTU_PORT = re.compile(r"^Ethernet\d")


@parser("arista_eos_show_interfaces_mtu_json",
        "show interfaces | json: per port MTU (host and switch agree)",
        kind="json")
def _interfaces_mtu_json(document):
    """{"interfaces": {INTF: {"mtu": 9214, "l3MtuConfigured": false, "forwardingModel": "routed", ...}}} (what
    ANTA's VerifyL2MTU/VerifyL3MTU read): "mtu" is the IP MTU, the largest packet without the Ethernet header, as
    Linux counts a netdev's MTU (EOS defaults: 9214 on a bridged port, 1500 on a routed one unless `mtu` is set).
    An Ethernet port whose MTU is not a positive number is a damaged read, never a port without an MTU."""
    mtu = {}
    for name, entry in document["interfaces"].items():
        if not _MTU_PORT.match(port_name(name)):
            continue
        value = _count(name + " mtu", entry["mtu"])
        if not value:
            raise ValueError("%s: MTU 0 is not a port's MTU" % name)
        mtu[port_name(name)] = value
    if not mtu:
        raise ValueError("no Ethernet interface listed")
    return {"mtu": mtu}


# --- errors -------------------------------------------------------------------------------------

@parser("arista_eos_show_interfaces_counters_errors",
        "show interfaces counters errors: per port FCS (CRC), Rx and Tx error counters")
def _errors(rows):
    return _port_table(rows, "'Port FCS Align Symbol Rx Runts Giants Tx'",
                       lambda row: {"crc": int(row["fcs"]), "in_errors": int(row["rx"]), "out_errors": int(row["tx"])})


@parser("arista_eos_show_interfaces_counters_errors_json",
        "show interfaces counters errors | json: per port FCS (CRC), Rx and Tx error counters",
        kind="json")
def _errors_json(document):
    """{"interfaceErrorCounters": {INTF: {"fcsErrors": N, "inErrors": N, "outErrors": N, ...}}}."""
    return _json_ports(document, "interfaceErrorCounters", lambda name, entry: {
        "crc": _count(name + " fcsErrors", entry["fcsErrors"]), "in_errors": _count(name + " inErrors", entry["inErrors"]),
        "out_errors": _count(name + " outErrors", entry["outErrors"])})


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
    ports, lanes = {}, set()
    for row in _table(rows, "'Port (Celsius) (Volts) ...'"):
        if row["port"] in lanes:  # one row per lane's interface: a second is a repeated line, not a fifth lane
            raise ValueError("%s is listed twice (a repeated line?)" % row["port"])
        lanes.add(row["port"])
        if row["rx_power"] == "N/A" and row["tx_power"] == "N/A":
            continue
        key = ports.setdefault(_lane_group(row["port"]), {"port": port_name(row["port"]), "rx_dbm": [], "tx_dbm": []})
        for side, column in (("rx_dbm", "rx_power"), ("tx_dbm", "tx_power")):
            if row[column] != "N/A":
                key[side].append(float(row[column]))
    return trailerless({"ports": {entry.pop("port"): entry for entry in ports.values()}})


def _dbm(where, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("%s: %r is not a power in dBm" % (where, value))
    return float(value)


@parser("arista_eos_show_interfaces_transceiver_json",
        "show interfaces transceiver | json: per port optic Tx/Rx power (dBm) of every lane",
        kind="json")
def _optics_json(document):
    """{"interfaces": {INTF: {"rxPower": dBm, "txPower": dBm, "mediaType": ..., ...}}}: one entry per lane's
    interface, as the text table has one row per lane; lanes go to the port of their first lane. An
    entry without rxPower/txPower (a DAC, no DOM) adds no lane."""
    ports = {}
    for name in sorted(document["interfaces"], key=_lane_order):
        entry = document["interfaces"][name]
        if entry.get("rxPower") is None and entry.get("txPower") is None:
            continue
        key = ports.setdefault(_lane_group(name), {"port": port_name(name), "rx_dbm": [], "tx_dbm": []})
        for side, field in (("rx_dbm", "rxPower"), ("tx_dbm", "txPower")):
            if entry.get(field) is not None:
                key[side].append(_dbm("%s %s" % (name, field), entry[field]))
    return {"ports": {entry.pop("port"): entry for entry in ports.values()}}


def _lane_order(name):
    return [int(part) if part.isdigit() else part for part in re.findall(r"\d+|\D+", name)]


# --- lldp ---------------------------------------------------------------------------------------

_LLDP_COUNTER = re.compile(r"^Number of table (inserts|deletes)\s*:\s*(\d+)\s*$", re.M)


@parser("arista_eos_show_lldp_neighbors",
        "show lldp neighbors: per port LLDP neighbor system name and port id",
        with_text=True)
def _lldp(rows, text):
    neighbors = {}
    listed_rows = _table(rows, "'Port Neighbor Device ID Neighbor Port ID TTL'")
    for row in listed_rows:
        neighbor = {"system": row["neighbor_name"], "port": row["neighbor_interface"]}
        seen = neighbors.setdefault(port_name(row["local_interface"]), [])
        if neighbor in seen:  # a port may see two neighbors, but not the same one twice: a repeated line
            raise ValueError("%s: neighbor %s %s listed twice (a repeated line?)" % (
                row["local_interface"], neighbor["system"], neighbor["port"]))
        seen.append(neighbor)
    _lldp_complete(len(listed_rows), dict(_LLDP_COUNTER.findall(text)))
    return {"neighbors": neighbors}


def _lldp_complete(listed_count, counters):
    """The table has no trailer, but its header counts: by the LLDP-MIB's definitions (lldpStatsRemTables
    Inserts/Deletes, age-outs included in deletes) inserts - deletes is the number of entries now held,
    or fewer when `clear lldp counters` ran since. A table listing fewer rows than that was cut short
    (a table cut right after its header would otherwise prove no port and fail none)."""
    if "inserts" not in counters or "deletes" not in counters:
        return  # an older layout without the counters: nothing to check against
    held = int(counters["inserts"]) - int(counters["deletes"])
    if listed_count < held:
        raise ValueError("the header counts %d entries (table inserts - deletes), the table lists %d (cut short?)"
                         % (held, listed_count))


@parser("arista_eos_show_lldp_neighbors_json",
        "show lldp neighbors | json: per port LLDP neighbor system name and port id",
        kind="json")
def _lldp_json(document):
    """{"lldpNeighbors": [{"port": INTF, "neighborDevice": NAME, "neighborPort": PORT, "ttl": 120}, ...],
    "tablesInserts": N, "tablesDeletes": N, ...}."""
    neighbors = {}
    for entry in document["lldpNeighbors"]:
        neighbors.setdefault(port_name(entry["port"]), []).append(
            {"system": str(entry["neighborDevice"]), "port": str(entry["neighborPort"])})
    if "tablesInserts" in document and "tablesDeletes" in document:
        _lldp_complete(len(document["lldpNeighbors"]), {"inserts": _count("tablesInserts", document["tablesInserts"]),
                                                        "deletes": _count("tablesDeletes", document["tablesDeletes"])})
    return {"neighbors": neighbors}


# --- bgp ----------------------------------------------------------------------------------------

@parser("arista_eos_show_ip_bgp_summary",
        "show ip bgp summary: BGP neighbors of the default VRF, remote AS, state and reason, prefixes received and accepted")
def _bgp(rows):
    neighbors = {}
    for row in _other(rows):
        if not row["bgp_neigh"] or row["vrf"] not in ("", "default"):
            continue  # the Filldown-only row TextFSM adds at the end; another VRF's neighbors
        state, received = row["state"], row["state_pfxrcd"]
        if not state and received:  # old layout: a number in State/PfxRcd means Established
            state = "Estab"
        try:  # Estab(NotNegotiated): up, but its address family was never negotiated; Idle(NoIf), Idle(Admin)
            word, reason = bgp_state(state)
        except ValueError as exc:
            raise ValueError("neighbor %s: %s" % (row["bgp_neigh"], exc)) from None
        if word == "Established" and not reason and not received:
            raise ValueError("neighbor %s is Established but shows no prefix count (truncated?)" % row["bgp_neigh"])
        accepted = row["state_pfxacc"]  # PfxAcc: what the inbound policy let in (absent in the old layout)
        neighbors[row["bgp_neigh"]] = bgp_neighbor(asn(row["neigh_as"]), state, int(received) if received else None,
                                                   int(accepted) if accepted else None)
    if not neighbors:
        raise ValueError("no BGP neighbor of the default VRF listed")
    return trailerless({"neighbors": neighbors})


_JSON_BGP_STATES = {state: state for state in ("Idle", "Connect", "Active", "OpenSent", "OpenConfirm", "Established")}


@parser("arista_eos_show_ip_bgp_summary_json",
        "show ip bgp summary | json: BGP neighbors of the default VRF, remote AS, state and reason, prefixes received and accepted",
        kind="json")
def _bgp_json(document):
    """{"vrfs": {"default": {"peers": {ADDR: {"peerState": "Established", "asn": "65100",
    "prefixReceived": N, "prefixAccepted": M, ...}}}}}; the asn is a string in recent EOS, a number in older ones.
    prefixReceived counts what the peer sent, prefixAccepted what the inbound policy let in (both in every real
    capture here; a release without prefixAccepted leaves it out)."""
    peers = document["vrfs"]["default"]["peers"]
    neighbors = {}
    for address, peer in peers.items():
        state = peer["peerState"]
        if state not in _JSON_BGP_STATES:
            raise ValueError("neighbor %s: unknown state %r" % (address, state))
        up = state == "Established"
        received, accepted = (peer.get("prefixReceived"), peer.get("prefixAccepted")) if up else (None, None)
        if up and (isinstance(received, bool) or not isinstance(received, int)):
            raise ValueError("neighbor %s is Established but shows no prefix count" % address)
        if accepted is not None and (isinstance(accepted, bool) or not isinstance(accepted, int)):
            raise ValueError("neighbor %s: prefixAccepted %r is not a count" % (address, accepted))
        neighbors[address] = {"remote_as": asn(str(peer["asn"])), "state": state, "prefixes_received": received}
        if accepted is not None:
            neighbors[address]["prefixes_accepted"] = accepted
        reason = _idle_reason(address, peer) if state == "Idle" else None
        if reason:
            neighbors[address]["reason"] = reason
    if not neighbors:
        raise ValueError("no BGP neighbor of the default VRF listed")
    return {"neighbors": neighbors}


def _idle_reason(address, peer):
    """Why an Idle session is idle, as EOS words it in JSON ("Admin", "NoInterface", "MaxPath": the text table's
    Idle(Admin), Idle(NoIf)). Read only while the session is Idle: ANTA's test data show the field beside Established
    peers too (whether EOS leaves it there is not shown by a capture here), and an Established session is up
    whatever it says."""
    reason = peer.get("peerStateIdleReason")
    if reason is None or reason == "":
        return None
    if not isinstance(reason, str) or not re.match(r"^[A-Za-z][\w-]*$", reason):
        raise ValueError("neighbor %s: peerStateIdleReason %r is not a reason" % (address, reason))
    return reason


# --- routes -------------------------------------------------------------------------------------

_ROUTE_HEAD = re.compile(r"^ (?P<codes>[A-Z][A-Za-z0-9]*(?: [A-Z0-9]{1,2})?)\s+(?P<prefix>\d+\.\d+\.\d+\.\d+/\d+)"
                         r"(?:\s+\[\d+/\d+\])?(?P<rest>.*)$")
_VIA = re.compile(r"^(?P<indent>\s*)(?P<backup>backup )?via (?P<hop>[^\s,]+)")
_CONNECTED = re.compile(r"^\s*(?:is )?directly connected")


@parser("arista_eos_show_ip_route",
        "show ip route bgp: BGP routes of the default VRF with every ECMP next hop (text, EOS 4.2x and 4.31+ layouts)",
        kind="text")
def _routes(text):
    """Two layouts: before 4.31 the first next hop shares the route's line (" B E 10.1.0.0/24 [200/0] via
    A, Et1") and the others are aligned under it; 4.31+ prints a `Source Codes:` legend and every next hop
    on its own line. A next hop printed deeper than the route's first (a tunnel's own resolution) and a
    `backup via` are not ECMP paths of the route. Any line that is neither legend, route nor next hop is
    an ERROR: a table cut mid-line or another command's answer."""
    lines = text.split("\n")
    legend = next((i for i, line in enumerate(lines) if re.match(r"^(?:Source )?Codes:", line)), None)
    if legend is None:
        raise ValueError("no 'Codes:' / 'Source Codes:' legend: not `show ip route` output")
    vrfs = {match.group(1) for match in (re.match(r"^VRF: (\S+)", line) for line in lines) if match}
    if vrfs - {"default"}:
        raise ValueError("routes of VRF %s: not the default VRF's table" % ", ".join(sorted(vrfs - {"default"})))
    routes, current, level = {}, None, None
    for line in _route_lines(lines[legend + 1:]):
        head = _ROUTE_HEAD.match(line)
        if head:
            current, level = _route_head(routes, head), None
            via = _VIA.match(head.group("rest").strip())
            if via:  # pre-4.31: the first next hop on the route's line, the others aligned under it
                level = line.index(" via ") + 1
                _add_hop(current, via)
            continue
        via = _VIA.match(line)
        if via:
            level = len(via.group("indent")) if level is None else level
            if len(via.group("indent")) == level:
                _add_hop(current, via)
        elif not _CONNECTED.match(line):
            raise ValueError("unreadable line %r" % line)
    for prefix, route in routes.items():
        if not route["next_hops"]:
            raise ValueError("BGP route %s has no next hop (cut short?)" % prefix)
    return trailerless({"routes": routes})


def _route_lines(lines):
    """The route table's lines: the legend's continuation (indented "X - name," lists) and the blank
    lines and 'Gateway of last resort' notes left out."""
    for line in lines:
        if re.match(r"^\s+\S.* - ", line) and "via" not in line:
            continue
        if not line.strip() or line.startswith("Gateway of last resort"):
            continue
        yield line


def _route_head(routes, head):
    """The route's entry when it is a BGP route (B, B E, B I; not A B aggregates, C, S, O ...), else None."""
    if head.group("codes").split()[0] != "B":
        return None
    return routes.setdefault(head.group("prefix"), {"next_hops": []})


def _add_hop(route, via):
    if route is not None and not via.group("backup"):
        hop = via.group("hop")
        try:
            ipaddress.ip_network(hop, strict=False)  # an address, or a tunnel endpoint's prefix (10.0.0.24/32)
        except ValueError:  # "via Et33/1, 10.1.0.1": fields swapped or garbled, an interface is no next hop
            raise ValueError("next hop %r is not an address" % hop) from None
        if hop not in route["next_hops"]:  # a via line printed twice is one path, not two
            route["next_hops"].append(hop)


_BGP_ROUTE_TYPES = ("eBGP", "iBGP", "BGP")


@parser("arista_eos_show_ip_route_json",
        "show ip route bgp | json: BGP routes of the default VRF with every ECMP next hop",
        kind="json")
def _routes_json(document):
    """{"vrfs": {"default": {"routes": {PREFIX: {"routeType": "eBGP", "vias": [{"nexthopAddr": A,
    "interface": I}, ...]}}}}}: an empty routes object is no BGP route (data, not a failure)."""
    vrfs = document["vrfs"]
    if set(vrfs) - {"default"}:
        raise ValueError("routes of VRF %s: not the default VRF's table" % ", ".join(sorted(set(vrfs) - {"default"})))
    routes = {}
    for prefix, route in vrfs["default"]["routes"].items():
        if route["routeType"] not in _BGP_ROUTE_TYPES:
            continue
        hops = distinct(str(via["nexthopAddr"]) for via in route["vias"] if via.get("nexthopAddr"))
        if not hops:
            raise ValueError("BGP route %s has no next hop" % prefix)
        routes[prefix] = {"next_hops": hops}
    return {"routes": routes}


# --- pfc / ecn / discards -----------------------------------------------------------------------

@parser("arista_eos_show_priority-flow-control_counters",
        "show priority-flow-control counters: per port PFC frames received/sent (port totals)")
def _pfc(rows):
    return _port_table(rows, "'Port RxPfc TxPfc'", lambda row: {"all": {"rx": int(row["rx_pfc"]), "tx": int(row["tx_pfc"])}})


@parser("arista_eos_show_priority-flow-control_counters_json",
        "show priority-flow-control counters | json: per port PFC frames received/sent (port totals)",
        kind="json")
def _pfc_json(document):
    """{"interfaceCounters": {INTF: {"rxFrames": N, "txFrames": N}}} (ANTA's VerifyInterfacesPFCCounters)."""
    return _json_ports(document, "interfaceCounters", lambda name, entry: {"all": {
        "rx": _count(name + " rxFrames", entry["rxFrames"]), "tx": _count(name + " txFrames", entry["txFrames"])}})


# --- pfc state, from the port's running-config -----------------------------------------------------

# EOS's interface PFC commands as the running-config holds them (arista.avd eos_cli_config_gen renders them
# so): `priority-flow-control on` / `no priority-flow-control` (older EOS: `priority-flow-control mode on`), and
# one `priority-flow-control priority N no-drop|drop` per priority. Other priority-flow-control lines
# (pause watchdog, ...) say nothing about which priorities are lossless.
_PFC_ON = re.compile(r"^priority-flow-control (?:mode )?on$")
_PFC_OFF = re.compile(r"^no priority-flow-control(?: mode(?: on)?)?$")
_PFC_PRIORITY = re.compile(r"^priority-flow-control priority (\S+) (no-drop|drop)$")
_STANZA_HEAD = re.compile(r"^interface (\S+)$")
# A running-config stanza closes with nothing: its end is the next `!`, `end` or the text's end, so a read
# cut after any line reads as a shorter stanza. A missing PFC line is proven missing only where a line EOS prints
# after the PFC lines is there: any line after the last PFC line, or, with none, one of the commands the
# running-config orders after them (arista.avd's eos_cli_config_gen renders them in EOS's order: storm-control,
# spanning-tree, link tracking, comment), or a closing `!`/`end`.
RUNNING_CONFIG_NO_TRAILER = "no trailer that closes the running-config stanza, so a read cut short reads as a shorter stanza"
_AFTER_PFC = ("storm-control", "spanning-tree", "link tracking", "comment")
_PFC_WORDS = ("priority-flow-control priority ", "no priority-flow-control")


def _stanza(text):
    """(interface name, its body lines stripped, whether a closing `!`/`end` line came) of the one `interface X`
    stanza of the text."""
    lines = [line.rstrip() for line in text.split("\n")]
    if not any(lines):
        raise ValueError("empty answer: no running-config stanza (a port the switch does not have, or nothing came back)")
    errors = [line.strip() for line in lines if line.lstrip().startswith("%")]
    if errors:
        raise ValueError("EOS refused the command: %s" % errors[0])
    lines = [line for line in lines if line.strip()]
    head = _STANZA_HEAD.match(lines[0])
    if not head:
        raise ValueError("first line %r is not an 'interface NAME' stanza head (another command's answer?)" % lines[0][:80])
    body, closed = [], False
    for line in lines[1:]:
        if line.startswith(" "):
            if len(line) - len(line.lstrip()) == 3:  # the interface's own commands; deeper lines belong to a sub-mode
                body.append(line.strip())
            continue
        if line in ("!", "end"):
            closed = True  # a closing line, where the text has one
            continue
        if _STANZA_HEAD.match(line):
            raise ValueError("more than one interface stanza (%s, then %r): the command was asked for one port" % (head.group(1), line))
        raise ValueError("line %r is neither a command of the stanza nor its end" % line[:80])
    return port_name(head.group(1)), body, closed


def _pfc_lines_complete(body, closed):
    """Whether the stanza shows a line EOS prints after the PFC lines (so none of them can have been cut off)."""
    at = [index for index, line in enumerate(body) if line.startswith(("priority-flow-control", "no priority-flow-control"))]
    if closed:
        return True
    if at:
        return at[-1] < len(body) - 1
    return any(line.startswith(_AFTER_PFC) for line in body)


@parser("arista_eos_show_running-config_interfaces_pfc",
        "show running-config interfaces <port>: PFC configured on/off and the no-drop priorities of one port (per port; "
        "the configuration, not the operational state)",
        kind="text")
def _running_config_pfc(text):
    """{"pfc": {port: {"enabled", "priorities", "source": "running-config", "lines": [...]}}, "unverified": why}.

    EOS's operational PFC report (`show priority-flow-control`) has no published output to build a parser
    on; the running-config's syntax is public (arista.avd renders it), so this reads what is configured:
    `priority-flow-control on` and the `priority N no-drop` priorities. PFC is off where the stanza says
    `no priority-flow-control` or nothing (EOS's default); an explicit `drop` is not lossless. ``lines``
    keeps the PFC lines read, so the judge can quote them; the stanza has no trailer (``unverified``), and
    ``complete`` says whether a line printed after the PFC lines proves none of them cut off: a PFC line the
    read lacks is a finding only then (or where an explicit `no priority-flow-control` / `drop` says it)."""
    name, body, closed = _stanza(text)
    if body and not closed and any(whole.startswith(body[-1]) and whole != body[-1] for whole in _PFC_WORDS):
        # the stanza's last line is the start of a PFC line (`priori`, `priority-flow-`): a read cut inside that line,
        # which would read as a line after the PFC lines and prove them whole (issue 68: no-drop lost, a device FAIL)
        raise ValueError("%s: the stanza ends inside a line (%r): cut short" % (name, body[-1]))
    on = [line for line in body if _PFC_ON.match(line)]
    off = [line for line in body if _PFC_OFF.match(line)]
    if on and off:
        raise ValueError("%s: both %r and %r in one stanza" % (name, on[0], off[0]))
    no_drop = set()
    for line in body:
        match = _PFC_PRIORITY.match(line)
        if match:
            if not re.match(r"[0-7]$", match.group(1)):
                raise ValueError("%s: %r: priority %r is not 0-7" % (name, line, match.group(1)))
            if match.group(2) == "no-drop":
                no_drop.add(int(match.group(1)))
    lines = [line for line in body if line.startswith(("priority-flow-control", "no priority-flow-control"))]
    enabled = bool(on)
    state = {"enabled": enabled, "priorities": sorted(no_drop) if enabled else [], "source": "running-config", "lines": lines,
             "complete": _pfc_lines_complete(body, closed)}
    return {"pfc": {name: state}, "unverified": RUNNING_CONFIG_NO_TRAILER}


# --- RoCE QoS, from the running-config ------------------------------------------------------------

# EOS's QoS commands as the running-config holds them (arista.avd eos_cli_config_gen renders them so, in its qos.cfg
# intended config): a port's or a `qos profile`'s `qos trust dscp|cos` / `no qos trust`, `service-profile NAME` on a
# port, `tx-queue N` / `uc-tx-queue N` sub-modes holding `random-detect ecn minimum-threshold ...` (ECN marking on
# that queue), and the global `qos map dscp D... to traffic-class T [drop-precedence P]` and
# `qos map traffic-class T... to tx-queue Q` lines. Nothing here assumes EOS's defaults (its default trust and
# DSCP/traffic-class maps): what no line configures is left out, for the judge to call unverified.
_TRUST = re.compile(r"^(no )?qos trust(?: (\S+))?$")
_TX_QUEUE = re.compile(r"^(?:uc-)?tx-queue (\S+)$")
_ECN = re.compile(r"^random-detect ecn minimum-threshold ")
_SERVICE_PROFILE = re.compile(r"^service-profile (\S+)$")
# In EOS's grammar `qos` opens a command (`qos trust`, `qos dscp`, `qos cos`, their `no`/`default` forms) or names the
# type of a `service-policy`; a line with the word anywhere else, or one that does not open with a keyword, is no
# command EOS prints (a garbled line, whose QoS setting the read would otherwise lose and let a profile's or the
# default's stand in for).
_QOS_WORD_PLACE = re.compile(r"^(?:(?:no |default )?qos |service-policy type qos )")
_QOS_DEFAULT_MARK = re.compile(r"^qos (?:dscp (?:[0-9]|[1-5][0-9]|6[0-3])|cos [0-7])$")  # the port's default DSCP or CoS
_MAP_DSCP = re.compile(r"^qos map dscp ((?:\d+ )+)to traffic-class (\d+)(?: drop-precedence \d+)?$")
_MAP_TC_QUEUE = re.compile(r"^qos map traffic-class ((?:\d+ )+)to tx-queue (\d+)$")
_PROFILE_HEAD = re.compile(r"^qos profile (\S+)$")


def _blocks(lines, depth):
    """[(line, [its deeper lines])] of the lines indented ``depth`` spaces (a running-config's nesting: 3 a level);
    comment lines (`!`, `!!`) are left out."""
    out = []
    for line in lines:
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if not text or text.startswith("!"):
            continue
        if indent == depth:
            out.append((text, []))
        elif indent > depth and out:
            out[-1][1].append(line)
        else:
            raise ValueError("line %r is not nested under a command (cut or damaged)" % line[:80])
    return out


# What EOS prints after a port's `qos trust` line (arista.avd's rendered stanzas: `service-profile`, `qos trust`, then
# `qos dscp|cos`, `shape rate`, the PFC lines, the tx-queue blocks): a stanza showing one was not cut before its trust.
_AFTER_TRUST = ("qos dscp", "qos cos", "shape rate", "priority-flow-control", "no priority-flow-control", "tx-queue",
                "uc-tx-queue", "mc-tx-queue") + _AFTER_PFC


def _qos_settings(where, blocks):
    """{"trust": "dscp"|"cos"|"none"|None (no line), "ecn_queues": [tx-queues with random-detect ecn], "lines": [...]} of
    a port's or a profile's commands."""
    trust, ecn, lines = None, set(), []
    for text, children in blocks:
        words = text.split()
        named = words[:1] in (["description"], ["comment"], ["service-profile"])  # free text, or a profile's name
        if not text[:1].isalpha() or ("qos" in words and not named and not _QOS_WORD_PLACE.match(text)) or (
                words[:2] in (["qos", "dscp"], ["qos", "cos"]) and not _QOS_DEFAULT_MARK.match(text)):
            raise ValueError("%s: %r is no command EOS prints (a garbled line?)" % (where, text))
        match = _TRUST.match(text)
        if match:
            if match.group(1) or not match.group(2):
                trust = "none"
            elif match.group(2) in ("dscp", "cos"):
                trust = match.group(2)
            else:
                raise ValueError("%s: %r: trust %r is neither dscp nor cos" % (where, text, match.group(2)))
            lines.append(text)
            continue
        match = _TX_QUEUE.match(text)
        if match:
            if not re.match(r"[0-7]$", match.group(1)):
                raise ValueError("%s: %r: queue %r is not 0-7" % (where, text, match.group(1)))
            marks = [child.strip() for child in children if _ECN.match(child.strip())]
            if marks:
                ecn.add(int(match.group(1)))
                lines += [text, marks[0]]
    return {"trust": trust, "ecn_queues": sorted(ecn), "lines": lines}


@parser("arista_eos_show_running-config_interfaces_qos",
        "show running-config interfaces <port>: the port's QoS trust, its service-profile and the tx-queues it marks ECN on "
        "(per port; the configuration, not the operational state)",
        kind="text")
def _running_config_qos(text):
    """{"qos_config": {port: {"trust", "profile", "ecn_queues", "lines", "complete"}}, "unverified": why}: the port's own
    QoS lines (the command sw_pfc_state reads, run once). ``trust`` None: no `qos trust` line on the port (its profile's,
    or EOS's default, applies); ``profile``: its `service-profile`, whose lines come from `show running-config section
    qos`. ``complete``: a closing `!`/`end` came, so no sub-mode (printed last) can have been cut off;
    ``trust_complete``: that, or a line EOS prints after `qos trust`, so a port without the line has none."""
    name, _body, closed = _stanza(text)
    lines = [line.rstrip() for line in text.split("\n") if line.strip()][1:]
    lines = [line for line in lines if line not in ("!", "end")]
    blocks = _blocks(lines, 3)
    settings = _qos_settings(name, blocks)
    profiles = [_SERVICE_PROFILE.match(head).group(1) for head, _children in blocks if _SERVICE_PROFILE.match(head)]
    settings.update(profile=profiles[-1] if profiles else None, complete=closed,
                    trust_complete=closed or any(head.startswith(_AFTER_TRUST) for head, _children in blocks))
    return {"qos_config": {name: settings}, "unverified": RUNNING_CONFIG_NO_TRAILER}


def _numbers(where, words, top):
    values = [int(word) for word in words.split()]
    if any(value > top for value in values):
        raise ValueError("%s: a value above %d" % (where, top))
    return values


@parser("arista_eos_show_running-config_section_qos",
        "show running-config section qos: the global DSCP -> traffic-class and traffic-class -> tx-queue maps and the qos "
        "profiles' trust and ECN queues (the configuration)",
        kind="text")
def _running_config_section_qos(text):
    """{"dscp_tc": {dscp: tc}, "tc_queue": {tc: queue}, "profiles": {name: {"trust", "ecn_queues", "lines"}}}: only what
    `qos map` lines and `qos profile` blocks configure (EOS's default maps are not filled in). Interface stanzas the
    section also prints are left to the per-port read. An empty answer is a switch with no QoS configured."""
    lines = [line.rstrip() for line in text.split("\n")]
    errors = [line.strip() for line in lines if line.lstrip().startswith("%")]
    if errors:
        raise ValueError("EOS refused the command: %s" % errors[0])
    dscp_tc, tc_queue, profiles = {}, {}, {}
    for head, children in _blocks(lines, 0):
        match = _MAP_DSCP.match(head)
        if match:
            for dscp in _numbers(head, match.group(1), 63):
                dscp_tc[dscp] = _numbers(head, match.group(2), 7)[0]
            continue
        match = _MAP_TC_QUEUE.match(head)
        if match:
            for tc in _numbers(head, match.group(1), 7):
                tc_queue[tc] = _numbers(head, match.group(2), 7)[0]
            continue
        match = _PROFILE_HEAD.match(head)
        if match:
            profiles[match.group(1)] = _qos_settings("qos profile " + match.group(1), _blocks(children, 3))
            continue
        if head.startswith("qos map dscp") or (head.startswith("qos map traffic-class") and " tx-queue " in head):
            raise ValueError("unreadable map line %r (cut or damaged)" % head[:80])
    return {"dscp_tc": dscp_tc, "tc_queue": tc_queue, "profiles": profiles}


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
            marked[number] = _count("%s queue %s" % (interface, queue), value)  # ANTA's captures print "0"
    if not ports:
        raise ValueError("no interface in intfQueueCounters")
    return {"ports": ports}


@parser("arista_eos_show_interfaces_counters_discards",
        "show interfaces counters discards: per port output (egress) discards, port total")
def _discards(rows):
    return _port_table(rows, "'Port InDiscards OutDiscards'", lambda row: {"all": int(row["out_discards"])})


@parser("arista_eos_show_interfaces_counters_discards_json",
        "show interfaces counters discards | json: per port output (egress) discards, port total",
        kind="json")
def _discards_json(document):
    """{"interfaces": {INTF: {"inDiscards": N, "outDiscards": N}}, "inDiscardsTotal": N, "outDiscardsTotal": N}."""
    return _json_ports(document, "interfaces", lambda name, entry: {"all": _count(name + " outDiscards", entry["outDiscards"])})


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


# --- traffic (the link kind's reads under load) ---------------------------------------------------

# A front-panel port (not a subinterface): its entry in `show interfaces` always carries its counters
_FRONT_PANEL = re.compile(r"^Ethernet\d+(?:/\d+)*$")
_TRAFFIC_COUNTERS = (("in_octets", "inOctets"), ("out_octets", "outOctets"),
                     ("in_packets", "inUcastPkts"), ("out_packets", "outUcastPkts"))


@parser("arista_eos_show_interfaces_traffic_json",
        "show interfaces | json: per port in/out octets and unicast packets (counters that only rise)",
        kind="json")
def _interfaces_traffic_json(document):
    """{"interfaces": {INTF: {"interfaceCounters": {"inOctets": N, "inUcastPkts": N, "outOctets": N,
    "outUcastPkts": N, ...}, ...}}}, the counters ANTA's VerifyInterfaceUtilization reads beside the rates: since the
    last `clear counters`. Interfaces EOS keeps no counters for (Loopback, Vlan, Vxlan) print none and are left out;
    a front-panel Ethernet port without them, or without one of the four, is a damaged read, never a port at zero."""
    ports = {}
    for name, entry in document["interfaces"].items():
        counters = entry.get("interfaceCounters")
        if counters is None:
            if _FRONT_PANEL.match(port_name(name)):
                raise ValueError("%s: no interfaceCounters" % name)
            continue
        ports[port_name(name)] = {fact: _count("%s %s" % (name, key), counters[key]) for fact, key in _TRAFFIC_COUNTERS}
    return listed("ports", ports, "interfaces with counters")
