"""What a Cisco Nexus 9000 (NX-OS) switch prints for the product's switch commands.

COMMANDS maps the command text (exact, or a per-port form by pattern) to a renderer taking the
switch snapshot (see the twin's switch model) and returning the CLI text; error() is what NX-OS prints for anything else. Layouts
follow real NX-OS 9.3/10.x output (ntc-templates and genieparser test data, public lab write-ups):
short port names (Eth1/1) in the tables, full names (Ethernet1/1) in the per-port reports.
"""

import ipaddress
import json
import re

from pyramid_twin import commands, formats_traffic

DASH80 = "-" * 80
PFC_RULE = "    " + "-" * 117


def short(name):
    """Ethernet1/1 -> Eth1/1 (the tables' abbreviation)."""
    return "Eth" + name[len("Ethernet"):] if name.startswith("Ethernet") else name


def _fields(port):
    return port.get("speed_gbps"), port.get("optic") or "--"


# --- show interface status ---------------------------------------------------------------------------

def _status_word(port):
    if port["admin"] == "down":
        return "disabled"
    if port["oper"] == "up":
        return "connected"
    if not port.get("optic"):
        return "sfpAbsent"
    return "notconnec"


def show_interface_status(switch):
    lines = [DASH80, "Port          Name               Status    Vlan      Duplex  Speed   Type", DASH80]
    for port in switch["ports"]:
        speed, optic = _fields(port)
        up = port["oper"] == "up"
        speed_text = "%dG" % speed if speed else "auto"
        name = (port.get("description") or "--")[:18]
        lines.append("%-13s %-18s %-9s %-9s %-7s %-7s %s" % (
            short(port["name"]), name, _status_word(port), "routed" if port.get("ip") else "1",
            "full" if up else "auto", speed_text, optic))
    return "\n".join(lines) + "\n"


# --- show interface <port> ----------------------------------------------------------------------------

# A healthy RoCE leaf's ports carry `mtu 9216` (NX-OS's own default is 1500); the mtu_small fault sets another.
ROCE_MTU = 9216


def show_interface(switch, port):
    """One port's report, in the layout of ntc-templates' cisco_nxos_show_interface.raw (Ethernet1/1, NX-OS 9.x): the
    catalog reads its MTU line (port_mtu, host and switch agree)."""
    up = port["oper"] == "up"
    speed = port.get("speed_gbps") or 400
    head = "%s is up" % port["name"] if up else "%s is down (%s)" % (
        port["name"], "Administratively down" if port["admin"] == "down" else "Link not connected")
    rx, tx = port.get("in_packets", 0), port.get("out_packets", 0)
    pfc = port.get("pfc", {})
    return "\n".join([
        head,
        "admin state is %s, Dedicated Interface" % port["admin"],
        "  Hardware: 100000/400000 Ethernet, address: 5087.89a1.%02x%02x (bia 5087.89a1.%02x%02x)" % (
            switch.get("index", 0), _port_number(port), switch.get("index", 0), _port_number(port)),
        "  Description: %s" % (port.get("description") or "--"),
        "  MTU %d bytes, BW %d Kbit, DLY 10 usec" % (port.get("mtu") or ROCE_MTU, speed * 1000000),
        "  reliability 255/255, txload 1/255, rxload 1/255",
        "  Encapsulation ARPA, medium is broadcast",
        "  Port mode is routed",
        "  full-duplex, %d Gb/s, media type is %dG" % (speed, speed) if up else "  auto-duplex, auto-speed",
        "  Beacon is turned off",
        "  Auto-Negotiation is turned on  FEC mode is Auto",
        "  Input flow-control is off, output flow-control is off",
        "  Auto-mdix is turned off",
        "  Rate mode is dedicated",
        "  Switchport monitor is off",
        "  EtherType is 0x8100",
        "  EEE (efficient-ethernet) : n/a",
        "  Last link flapped 2week(s) 1day(s)",
        '  Last clearing of "show interface" counters never',
        "  1 interface resets",
        "  Load-Interval #2: 5 minute (300 seconds)",
        "    input rate 8000 bps, 1000 pps; output rate 8000 bps, 1000 pps",
        "  RX",
        "    %d unicast packets  0 multicast packets  0 broadcast packets" % rx,
        "    %d input packets  %d bytes" % (rx, port.get("in_octets", rx * 4160)),
        "    %d jumbo packets  0 storm suppression packets" % rx,
        "    0 runts  0 giants  %d CRC  0 no buffer" % port.get("crc", 0),
        "    %d input error  0 short frame  0 overrun   0 underrun  0 ignored" % port.get("in_errors", 0),
        "    0 watchdog  0 bad etype drop  0 bad proto drop  0 if down drop",
        "    0 input with dribble  0 input discard",
        "    %d Rx pause" % sum(entry.get("rx", 0) for entry in pfc.values()),
        "  TX",
        "    %d unicast packets  0 multicast packets  0 broadcast packets" % tx,
        "    %d output packets  %d bytes" % (tx, port.get("out_octets", tx * 4160)),
        "    %d jumbo packets" % tx,
        "    %d output error  0 collision  0 deferred  0 late collision" % port.get("out_errors", 0),
        "    0 lost carrier  0 no carrier  0 babble  %d output discard" % sum(port.get("discards", {}).values()),
        "    %d Tx pause" % sum(entry.get("tx", 0) for entry in pfc.values()),
        ""])


def _port_number(port):
    return int(re.sub(r"\D", "", port["name"].split("/")[-1]) or 0) % 256


# --- show interface counters errors --------------------------------------------------------------------

def _block(header, ports, values):
    lines = [DASH80, header, DASH80]
    for port in ports:
        lines.append("%-14s" % short(port["name"]) + "".join(values(port)))
    return lines + [""]


def show_interface_counters_errors(switch):
    ports = switch["ports"]
    lines = _block("Port          Align-Err    FCS-Err   Xmit-Err    Rcv-Err  UnderSize OutDiscards", ports,
                   lambda p: ["%9d" % 0, "%11d" % p["crc"], "%11d" % p["out_errors"], "%11d" % p["in_errors"],
                              "%11d" % 0, "%12d" % sum(p.get("discards", {}).values())])
    lines += _block("Port         Single-Col  Multi-Col   Late-Col  Exces-Col  Carri-Sen       Runts", ports,
                    lambda p: ["%9d" % 0, "%11d" % 0, "%11d" % 0, "%11d" % 0, "%11d" % 0, "%12d" % 0])
    lines += _block("Port          Giants SQETest-Err Deferred-Tx IntMacTx-Er IntMacRx-Er Symbol-Err", ports,
                    lambda p: ["%6d" % 0, "%12s" % "--", "%12d" % 0, "%12d" % 0, "%12d" % 0, "%11d" % 0])
    lines += _block("Port         InDiscards", ports, lambda p: ["%9d" % 0])
    lines += _block("Port         Stomped-CRC", ports, lambda p: ["%9d" % 0])
    return "\n".join(lines)


# --- show interface transceiver details ----------------------------------------------------------------

# QDD-400G-DR4-S thresholds (genieparser's NX-OS test data): high alarm, low alarm, high warn, low warn
_RX = (6.99, -9.91, 3.99, -5.90)
_TX = (6.99, -6.90, 3.99, -2.90)


def _flag(value, limits):
    high_alarm, low_alarm, high_warn, low_warn = limits
    if value >= high_alarm:
        return "++"
    if value <= low_alarm:
        return "--"
    if value >= high_warn:
        return "+"
    if value <= low_warn:
        return "-"
    return ""


def _power(label, value, limits):
    high_alarm, low_alarm, high_warn, low_warn = limits
    return "    %-9s%10.2f dBm%3s%8.2f dBm%8.2f dBm%8.2f dBm%10.2f dBm" % (
        label, value, _flag(value, limits), high_alarm, low_alarm, high_warn, low_warn)


def _lane(number, rx, tx, temp):
    lines = []
    if number is not None:
        lines.append("Lane Number:%d Network Lane" % number)
    lines += [
        "           SFP Detail Diagnostics Information (internal calibration)",
        "    " + "-" * 76,
        "                Current              Alarms                  Warnings",
        "                Measurement     High        Low         High          Low",
        "    " + "-" * 76,
        "    Temperature   %5.2f C        80.00 C     -5.00 C     75.00 C        0.00 C" % temp,
        "    Voltage        3.33 V         3.63 V      2.97 V      3.46 V        3.13 V",
        "    Current      108.00 mA      120.00 mA    20.00 mA   110.00 mA      30.00 mA",
        _power("Tx Power", tx, _TX),
        _power("Rx Power", rx, _RX),
        "    Transmit Fault Count = 0",
        "    " + "-" * 76,
        "    Note: ++  high-alarm; +  high-warning; --  low-alarm; -  low-warning",
        "",
    ]
    return lines


def show_interface_transceiver_details(switch, only=None):
    lines = []
    for index, port in enumerate(switch["ports"]):
        if only is not None and port is not only:
            continue
        lines.append(port["name"])
        if not port.get("rx_dbm"):
            lines += ["    transceiver is not present", ""]
            continue
        optic = port.get("optic") or "QSFP-DD-400G-DR4"
        lanes = len(port["rx_dbm"])
        lines += [
            "    transceiver is present",
            "    type is %s" % optic,
            "    name is CISCO-INNOLIGHT",
            "    part number is T-DP4CNH-NCI",
            "    revision is 2B",
            "    serial number is INL2417%04d" % (3000 + index),
            "    nominal bitrate is 425000 MBit/sec per channel",
            "    cisco id is 0x18",
            "    cisco part number is 10-3320-01",
            "    cisco product id is QDD-400G-DR4-S",
            "    cisco version id is V01",
            "    firmware version is 204.154",
            "    Link length SMF is 0.5 km",
            "    Nominal transmitter wavelength is 1311.00 nm",
            "    host lane count is 8",
            "    media lane count is %d" % lanes,
            "    power class is 6 (12.0 W maximum)",
            "    max power is 12.00 W",
            "    media interface is 1310 nm EML",
            "    Host electrical interface code is 400GAUI-8 C2M (Annex 120E)",
            "    media interface advertising code is 400GBASE-DR4 (Cl 124)",
            "",
        ]
        for lane, (rx, tx) in enumerate(zip(port["rx_dbm"], port["tx_dbm"]), 1):
            lines += _lane(lane if lanes > 1 else None, rx, tx, 31.5 + index % 7 * 0.25)
    return "\n".join(lines)


# --- show lldp neighbors ---------------------------------------------------------------------------

def show_lldp_neighbors(switch):
    lines = ["Capability codes:",
             "  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device",
             "  (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other",
             "Device ID            Local Intf      Hold-time  Capability  Port ID  "]
    count = 0
    for port in switch["ports"]:
        for neighbor in port.get("lldp", []):
            system = neighbor["system"]
            switchlike = neighbor["port"].startswith(("Ethernet", "Eth", "swp"))
            row = "%-15s %-10s %-11s %s" % (short(port["name"]), "120", "BR" if switchlike else "", neighbor["port"])
            if len(system) > 20:
                lines += [system, " " * 21 + row]
            else:
                lines.append("%-20s %s" % (system, row))
            count += 1
    lines.append("Total entries displayed: %d" % count)
    return "\n".join(lines) + "\n"


# --- show ip bgp summary ---------------------------------------------------------------------------

def show_ip_bgp_summary(switch):
    neighbors = switch.get("bgp_neighbors", [])
    up = [n for n in neighbors if n["state"] == "Established"]
    paths = sum(n.get("prefixes_received") or 0 for n in up)
    lines = [
        "BGP summary information for VRF default, address family IPv4 Unicast",
        "BGP router identifier %s, local AS number %d" % (switch["router_id"], switch["asn"]),
        "BGP table version is %d, IPv4 Unicast config peers %d, capable peers %d" % (40 + paths, len(neighbors), len(up)),
        "%d network entries and %d paths using %d bytes of memory" % (len(switch.get("routes", [])), paths, 212 * paths),
        "BGP attribute entries [%d/%d], BGP AS path entries [%d/%d]" % (len(up), 168 * len(up), len(up), 6 * len(up)),
        "BGP community entries [0/0], BGP clusterlist entries [0/0]",
        "",
        "Neighbor        V    AS MsgRcvd MsgSent   TblVer  InQ OutQ Up/Down  State/PfxRcd",
    ]
    for neighbor in neighbors:
        state = str(neighbor.get("prefixes_received") or 0) if neighbor["state"] == "Established" else neighbor["state"]
        table_version = 40 + paths if neighbor["state"] == "Established" else 0
        counters = "%7d %7d %8d %4d %4d %8s %s" % (neighbor.get("msg_rcvd", 0), neighbor.get("msg_sent", 0),
                                                   table_version, 0, 0, neighbor.get("up_down", "00:00:00"), state)
        asn = str(neighbor["remote_as"])
        if len(asn) > 5:  # a 4-byte AS number pushes the counters onto the next line
            lines += ["%-15s 4 %s" % (neighbor["address"], asn), " " * 24 + counters]
        else:
            lines.append("%-15s 4 %5s %s" % (neighbor["address"], asn, counters))
    return "\n".join(lines) + "\n"


# --- show ip route bgp -----------------------------------------------------------------------------

def show_ip_route_bgp(switch):
    peers = {n["address"]: n["remote_as"] for n in switch.get("bgp_neighbors", [])}
    lines = ['IP Route Table for VRF "default"',
             "'*' denotes best ucast next-hop",
             "'**' denotes best mcast next-hop",
             "'[x/y]' denotes [preference/metric]",
             "'%<string>' in via output denotes VRF <string>",
             ""]
    for route in sorted(switch.get("routes", []), key=lambda r: ipaddress.ip_network(r["prefix"], strict=False)):
        hops = route["next_hops"]
        lines.append("%s, ubest/mbest: %d/0" % (route["prefix"], len(hops)))
        for hop in hops:
            peer_as = peers.get(hop["address"], switch["asn"])
            kind, pref = ("internal", 200) if peer_as == switch["asn"] else ("external", 20)
            lines.append("    *via %s, [%d/0], %s, bgp-%d, %s, tag %d" % (
                hop["address"], pref, route.get("age", "2d03h"), switch["asn"], kind, peer_as))
    return "\n".join(lines) + "\n"


# --- the same two as JSON (`| json`) -------------------------------------------------------------------
# NX-OS 9.3's `| json` (netenglabs/suzieq's captures, tests/unit/parsers/cisco_nxos_*_json): every value a string, a
# ROW_ holding one entry printed as that entry, several as a list.

def _rows(entries):
    return entries[0] if len(entries) == 1 else entries


def show_ip_bgp_summary_json(switch):
    neighbors = switch.get("bgp_neighbors", [])
    up = [n for n in neighbors if n["state"] == "Established"]
    family = {"safi": "1", "af-name": "IPv4 Unicast", "tableversion": str(40 + len(up)),
              "configuredpeers": str(len(neighbors)), "capablepeers": str(len(up)),
              "totalnetworks": str(len(switch.get("routes", []))), "dampening": "false"}
    if neighbors:
        family["TABLE_neighbor"] = {"ROW_neighbor": _rows([
            {"neighborid": n["address"], "neighborversion": "4", "msgrecvd": str(n.get("msg_rcvd", 0)),
             "msgsent": str(n.get("msg_sent", 0)), "neighbortableversion": str(40 + len(up)), "inq": "0", "outq": "0",
             "neighboras": str(n["remote_as"]), "time": "P2DT3H",
             "state": n["state"], "prefixreceived": str(n.get("prefixes_received") or 0 if n["state"] == "Established" else 0)}
            for n in neighbors])}
    vrf = {"vrf-name-out": "default", "vrf-router-id": switch["router_id"], "vrf-local-as": str(switch["asn"]),
           "TABLE_af": {"ROW_af": {"af-id": "1", "TABLE_saf": {"ROW_saf": family}}}}
    return json.dumps({"TABLE_vrf": {"ROW_vrf": vrf}}) + "\n"


def show_ip_route_bgp_json(switch):
    peers = {n["address"]: n["remote_as"] for n in switch.get("bgp_neighbors", [])}
    prefixes = []
    for route in sorted(switch.get("routes", []), key=lambda r: ipaddress.ip_network(r["prefix"], strict=False)):
        paths = []
        for hop in route["next_hops"]:
            peer_as = peers.get(hop["address"], switch["asn"])
            kind, pref = ("internal", "200") if peer_as == switch["asn"] else ("external", "20")
            paths.append({"ipnexthop": hop["address"], "uptime": "P2DT3H", "pref": pref, "metric": "0",
                          "clientname": "bgp-%d" % switch["asn"], "type": kind, "tag": str(peer_as), "ubest": "true"})
        entry = {"ipprefix": route["prefix"], "ucast-nhops": str(len(paths)), "mcast-nhops": "0", "attached": "false"}
        if paths:
            entry["TABLE_path"] = {"ROW_path": _rows(paths)}
        prefixes.append(entry)
    addrf = {"addrf": "ipv4"}
    if prefixes:
        addrf["TABLE_prefix"] = {"ROW_prefix": _rows(prefixes)}
    return json.dumps({"TABLE_vrf": {"ROW_vrf": {"vrf-name-out": "default", "TABLE_addrf": {"ROW_addrf": addrf}}}}) + "\n"


# --- show interface priority-flow-control detail -----------------------------------------------------

def _pfc_row(label, values):
    return "    %-4s" % label + "|".join([""] + ["%-13d" % value for value in values]).rstrip()


def show_interface_priority_flow_control_detail(switch):
    lines = ["slot  1", "=======", "", ""]
    for port in switch["ports"]:
        pfc = port.get("pfc", {})
        rx = [pfc.get(str(prio), {}).get("rx", 0) for prio in range(8)]
        tx = [pfc.get(str(prio), {}).get("tx", 0) for prio in range(8)]
        lossless = port.get("pfc_priorities", [3])
        lines += [
            port["name"],
            "    Admin Mode: %s" % ("On" if lossless else "Off"),
            "    Oper Mode: %s" % ("On" if port["oper"] == "up" and lossless else "Off"),
            "    VL bitmap: (%x)" % sum(1 << prio for prio in lossless),
            "    Total Rx PFC Frames: %d" % sum(rx),
            "    Total Tx PFC Frames: %d" % sum(tx),
            PFC_RULE,
            "        |" + "|".join("  Priority%d  " % prio for prio in range(8)) + "|",
            PFC_RULE,
            _pfc_row("Rx", rx),
            PFC_RULE,
            _pfc_row("Tx", tx),
            PFC_RULE,
            "",
        ]
    return "\n".join(lines)


# --- show queuing interface ------------------------------------------------------------------------

_FRAME = "+" + "-" * 61 + "+"


def _group(title, rows):
    lines = [_FRAME, "|%s|" % title.center(61), _FRAME,
             "|                           |  Unicast       |Multicast       |", _FRAME]
    lines += ["|%26s |%16d|%16d|" % (label, unicast, 0) for label, unicast in rows]
    return lines


def _queuing_port(port):
    name = port["name"]
    lines = ["Egress Queuing for %s [System]" % name,
             "-" * 78,
             "QoS-Group# Bandwidth% PrioLevel                Shape                   QLimit",
             "                                   Min          Max        Units   ",
             "-" * 78]
    for group in range(7, -1, -1):
        bandwidth = {3: "50", 0: "50"}.get(group, "0")
        prio = "1" if group == 7 else "-"
        shown_bandwidth = "-" if group == 7 else bandwidth
        lines.append("%7d %13s %9s %11s %12s %5s %12s" % (group, shown_bandwidth, prio, "-", "-", "-", "9(D)"))
    share = port.get("out_packets", 0)
    for group in range(8):
        key = str(group)
        tx = share if group == 3 else 0
        lines += _group("QOS GROUP %d" % group, [
            ("Tx Pkts", tx), ("Tx Byts", tx * 4160),
            ("WRED/AFD & Tail Drop Pkts", port.get("discards", {}).get(key, 0)),
            ("WRED/AFD & Tail Drop Byts", port.get("discards", {}).get(key, 0) * 4160),
            ("Q Depth Byts", 0), ("WD & Tail Drop Pkts", 0),
            ("ECN Marked Pkts", port.get("ecn_marked", {}).get(key, 0))])
    lines += _group("CONTROL QOS GROUP", [("Tx Pkts", 15342), ("Tx Byts", 1718304),
                                          ("Tail Drop Pkts", 0), ("Tail Drop Byts", 0)])
    lines += _group("SPAN QOS GROUP", [("Tx Pkts", 0), ("Tx Byts", 0)])
    lines += [_FRAME, "", "",
              "Per Slice Egress SPAN Statistics",
              "-" * 63,
              "          SPAN Copies Tail Drop Pkts                         0",
              "          SPAN Input Queue Drop Pkts                         0",
              "          SPAN Copies/Transit Tail Drop Pkts                 0",
              "          SPAN Input Desc Drop Pkts                          0",
              "", "",
              "Ingress Queuing for %s" % name,
              "-" * 53,
              "QoS-Group#                 Pause                                        ",
              "            Buff Size       Pause Th      Resume Th",
              "-" * 53]
    for group in range(7, -1, -1):
        if group == 3:
            lines.append("%7d %14d %12d %12d" % (group, 348608, 77376, 75712))
        else:
            lines.append("%7d %14s %12s %12s" % (group, "-", "-", "-"))
    pfc = port.get("pfc", {})
    rx = sum(entry.get("rx", 0) for entry in pfc.values())
    tx = sum(entry.get("tx", 0) for entry in pfc.values())
    lines += ["", "Per Port Ingress Statistics",
              "-" * 56,
              "Hi Priority Drop Pkts                           0",
              "Low Priority Drop Pkts                           0",
              "Ingress Overflow Drop Pkts                       0",
              "", "",
              "PFC Statistics",
              "-" * 78,
              "TxPPP: %20d,   RxPPP: %20d" % (tx, rx),
              "-" * 78,
              "",
              "PFC_COS QOS_Group   TxPause             TxCount   RxPause             RxCount"]
    for cos in range(8):
        entry = pfc.get(str(cos), {})
        lines.append("%7d %9d  Inactive %19d  Inactive %19d" % (cos, cos, entry.get("tx", 0), entry.get("rx", 0)))
    lines += ["-" * 78, "", ""]
    return lines


def show_queuing_interface(switch, only=None):
    lines = ["slot  1", "=======", "", ""]
    for port in switch["ports"]:
        if only is None or port is only:
            lines += _queuing_port(port)
    return "\n".join(lines)


def show_version(switch):
    """What cisco.nxos's cliconf reads for device info, with show inventory (nxos_command runs both)."""
    return "\n".join([
        "Cisco Nexus Operating System (NX-OS) Software", "TAC support: http://www.cisco.com/tac",
        "Copyright (c) 2002-2024, Cisco Systems, Inc. All rights reserved.", "",
        "Software", "  BIOS: version 01.09", " NXOS: version 10.3(4a) [Maintenance Release]",
        "  BIOS compile time:  06/20/2023", "  NXOS image file is: bootflash:///nxos64-cs.10.3.4a.M.bin",
        "  NXOS compile time:  10/27/2023 12:00:00 [10/27/2023 23:42:40]", "", "",
        "Hardware", "  cisco Nexus9000 C9364D-GX2A Chassis",
        "  Intel(R) Xeon(R) CPU D-1530 @ 2.40GHz with 32801796 kB of memory.",
        "  Processor Board ID FDO2417%04d" % switch.get("index", 0), "",
        "  Device name: %s" % switch["hostname"], "  bootflash:   115805708 kB", "",
        "Kernel uptime is 12 day(s), 3 hour(s), 41 minute(s), 7 second(s)", ""])


def show_inventory(switch):
    return "\n".join([
        'NAME: "Chassis",  DESCR: "Nexus9000 C9364D-GX2A Chassis"',
        "PID: N9K-C9364D-GX2A     ,  VID: V01  ,  SN: FDO2417%04d" % switch.get("index", 0), ""])


_PORT_NAME = re.compile(r"^(?:ethernet|eth|e)(\d+/\d+(?:/\d+)?)$", re.I)
BAD_PORT = "% Invalid range at '^' marker.\n"


# RoCE's class on NX-OS (issue 14, roce_port_qos), in the lines of Microsoft's reference Nexus QoS policy for Azure Local
# TORs, classifying by DSCP 26 (the plan's pyramid_roce_dscp) as the Cisco AI/ML blueprint does: qos-group 3, paused on
# pfc-cos 3, ECN on its queue. A port under the switch fault ecn_off takes a queuing policy without the ECN line.
_IPQOS_POLICIES = """class-map type qos match-all RDMA
  match dscp 26
class-map type qos match-all CNP
  match dscp 48
policy-map type qos QOS_CLASSIFICATION
  class RDMA
    set qos-group 3
  class CNP
    set qos-group 7
policy-map type queuing QOS_EGRESS_PORT
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
    random-detect minimum-threshold %s maximum-threshold %s drop-probability 100 weight 0 ecn
  class type queuing c-out-8q-q-default
    bandwidth remaining percent 48
  class type queuing c-out-8q-q7
    bandwidth percent 1
policy-map type queuing QOS_EGRESS_NO_ECN
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
  class type queuing c-out-8q-q-default
    bandwidth remaining percent 48
policy-map type network-qos QOS_NETWORK
  class type network-qos c-8q-nq3
    mtu 9216
    pause pfc-cos 3
  class type network-qos c-8q-nq-default
    mtu 9216
system qos
  service-policy type qos input QOS_CLASSIFICATION
  service-policy type queuing output QOS_EGRESS_PORT
  service-policy type network-qos QOS_NETWORK"""


def show_running_config_ipqos(switch):
    """`show running-config ipqos`: the policies, system qos, then each host port's block (PFC on; a port under ecn_off
    attaches the queuing policy without ECN). ecn_min_th_high on any port raises the one system queuing policy's
    minimum threshold (a queuing policy is shared)."""
    faults = {fault for port in switch["ports"] for fault in port.get("qos_faults") or []}
    low, high = ("12 mbytes", "12 mbytes") if "ecn_min_th_high" in faults else ("300 kbytes", "3000 kbytes")
    lines = ["!Command: show running-config ipqos", "", _IPQOS_POLICIES % (low, high)]
    for port in switch["ports"]:
        if port.get("ip"):
            continue  # a fabric port: the system policies
        lines += ["", "interface %s" % port["name"], "  priority-flow-control mode on"]
        if "ecn_off" in (port.get("qos_faults") or []):
            lines.append("  service-policy type queuing output QOS_EGRESS_NO_ECN")
    return "\n".join(lines) + "\n"


def _per_port(render):
    """A handler maker for a per-port form: NX-OS takes Ethernet1/1, ethernet1/1, Eth1/1 or e1/1."""
    def bind(match):
        named = _PORT_NAME.match(match.group(1))
        return commands.bound(render, "Ethernet" + named.group(1) if named else None, BAD_PORT)
    return bind


# The per-port forms the catalog runs once per planned port: they keep each answer small, because
# network_cli re-scans the whole response for the prompt at every chunk it receives.
PER_PORT = [
    (re.compile(r"^show interface (\S+) transceiver details$"), _per_port(show_interface_transceiver_details)),
    (re.compile(r"^show queuing interface (\S+)$"), _per_port(show_queuing_interface)),
    # a port's name only (`show interface status` and the other reports are exact commands, matched first)
    (re.compile(r"^show interface ((?:ethernet|eth|e)\d\S*)$", re.I), _per_port(show_interface)),
]

COMMANDS = commands.Commands({
    "show version": show_version,
    "show inventory": show_inventory,
    "show interface status": show_interface_status,
    "show interface counters errors": show_interface_counters_errors,
    "show interface counters": formats_traffic.nxos_show_interface_counters,
    "show interface transceiver details": show_interface_transceiver_details,
    "show lldp neighbors": show_lldp_neighbors,
    "show ip bgp summary": show_ip_bgp_summary,
    "show ip route bgp": show_ip_route_bgp,
    "show ip bgp summary | json": show_ip_bgp_summary_json,
    "show ip route bgp | json": show_ip_route_bgp_json,
    "show interface priority-flow-control detail": show_interface_priority_flow_control_detail,
    "show queuing interface": show_queuing_interface,
    "show running-config ipqos": show_running_config_ipqos,
}, PER_PORT)


def error(command):
    """NX-OS answers an unknown command with a caret under the first bad word, on the CLI's rc 0."""
    words = command.split()
    known = ("show", "version", "inventory", "interface", "ip", "lldp", "bgp", "route", "queuing", "status", "counters", "errors",
             "transceiver", "details", "neighbors", "summary", "priority-flow-control", "detail", "running-config", "ipqos")
    column = 0
    for word in words:
        if word not in known:
            break
        column += len(word) + 1
    return "%s^\n%% Invalid command at '^' marker.\n" % (" " * (column + len("switch# "))), 0
