"""SONiC (community 202305+) `show` output for the twin, as sonic-utilities prints it.

The tables are the python `tabulate` "simple" format that intfutil, portstat, pfcstat, queuestat,
lldpshow and bgp_util print: two spaces between columns, each column as wide as its widest cell
or its header plus two, a dash line under the header. intfutil/portstat/pfcstat/queuestat align
every column right (stralign='right'); lldpshow and bgp_util keep tabulate's defaults (text left,
numbers right). `show ip route bgp` passes FRR's own output through (formats_frr).
Hot path: stdlib only.
"""

import re

PRIORITIES = [str(p) for p in range(8)]


# --- tabulate, "simple" format ---------------------------------------------------------------------

def _is_number(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _table(headers, rows, stralign="left"):
    """tabulate(rows, headers) in the "simple" format; stralign "right" as intfutil & co. pass."""
    columns = list(zip(*rows)) if rows else [[] for header in headers]
    aligns, widths = [], []
    for header, cells in zip(headers, columns):
        numeric = bool(cells) and all(_is_number(cell) for cell in cells)
        aligns.append("right" if numeric or stralign == "right" else "left")
        widths.append(max([len(header) + 2] + [len(str(cell)) for cell in cells]))

    def line(cells):
        out = []
        for cell, width, align in zip(cells, widths, aligns):
            text = str(cell)
            out.append(text.rjust(width) if align == "right" else text.ljust(width))
        return "  ".join(out).rstrip()  # tabulate strips each line's trailing padding

    lines = [line(headers), "  ".join("-" * width for width in widths)]
    lines += [line(row) for row in rows]
    return "\n".join(lines)


def _comma(value):
    return "{:,}".format(int(value))


def _port_number(name):
    match = re.match(r"Ethernet(\d+)$", name)
    return int(match.group(1)) if match else 0


def _natural(text):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(text))]


def _ports(switch):
    return sorted(switch["ports"], key=lambda port: _port_number(port["name"]))


# --- show interfaces status ------------------------------------------------------------------------

def _speed(port):
    speed = port.get("speed_gbps")
    if speed is None:
        return "N/A"
    if speed < 1:
        return "%dM" % round(speed * 1000)
    return "%dG" % speed


def _module_type(port):
    return "OSFP 8X Pluggable Transceiver" if port.get("rx_dbm") else "N/A"


def show_interfaces_status(switch):
    rows = []
    for port in _ports(switch):
        first = _port_number(port["name"])
        lanes = ",".join(str(first + lane) for lane in range(8))
        rows.append([port["name"], lanes, _speed(port), str(port.get("mtu") or 9100), "rs", "etp%d" % (first // 8 + 1), "routed",
                     port["oper"], port["admin"], _module_type(port), "off"])
    headers = ["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type", "Asym PFC"]
    return _table(headers, rows, stralign="right") + "\n"


# --- show interfaces counters ----------------------------------------------------------------------

def _rate(port, packets):
    if port["oper"] != "up":
        return "0.00 B/s", "0.00%"
    bytes_per_s = 1000.0 * 4096  # the twin's counters rise by about 1000 packets a second
    util = bytes_per_s * 8 / (port.get("speed_gbps") or 400) / 1e9 * 100
    return "%.2f MB/s" % (bytes_per_s / 1e6), "%.2f%%" % util


def _state(port):
    if port["admin"] != "up":
        return "X"
    return "U" if port["oper"] == "up" else "D"


def show_interfaces_counters(switch):
    rows = []
    for port in _ports(switch):
        rx_bps, rx_util = _rate(port, port["in_packets"])
        tx_bps, tx_util = _rate(port, port["out_packets"])
        rx_err = max(port["crc"], port["in_errors"])  # IF_IN_ERRORS counts the FCS errors too
        rows.append([port["name"], _state(port), _comma(port["in_packets"]), rx_bps, rx_util, _comma(rx_err),
                     "0", "0", _comma(port["out_packets"]), tx_bps, tx_util, _comma(port["out_errors"]), "0", "0"])
    headers = ["IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR",
               "TX_OK", "TX_BPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR"]
    return _table(headers, rows, stralign="right") + "\n"


# --- show interfaces counters fec-stats ------------------------------------------------------------

def _ber(value):
    return "%.2e" % value  # portstat's format_fec_ber


def show_interfaces_counters_fec_stats(switch):
    """portstat -f as 202411 prints it (FEC_PRE_BER and FEC_POST_BER since sonic-utilities #3607). Every
    corrected codeword holds at least one symbol error; the twin counts 15% of them with two."""
    rows = []
    for port in _ports(switch):
        corrected, uncorrected = port.get("fec_corrected", 0), port.get("fec_uncorrected", 0)  # 0: a snapshot made without them
        post_ber = 0.0 if not uncorrected else port.get("pre_fec_ber", 0.0) / 1000.0
        rows.append([port["name"], _state(port), _comma(corrected), _comma(uncorrected),
                     _comma(corrected + corrected * 15 // 100), _ber(port.get("pre_fec_ber", 0.0)), _ber(post_ber)])
    headers = ["IFACE", "STATE", "FEC_CORR", "FEC_UNCORR", "FEC_SYMBOL_ERR", "FEC_PRE_BER", "FEC_POST_BER"]
    return _table(headers, rows, stralign="right") + "\n"


# --- show interfaces transceiver eeprom --dom ------------------------------------------------------

_EEPROM = """\
        Active Firmware: 7.10.0
        Active application selected code assigned to host lane 1: 1
        Active application selected code assigned to host lane 2: 1
        Active application selected code assigned to host lane 3: 1
        Active application selected code assigned to host lane 4: 1
        Active application selected code assigned to host lane 5: 1
        Active application selected code assigned to host lane 6: 1
        Active application selected code assigned to host lane 7: 1
        Active application selected code assigned to host lane 8: 1
        Application Advertisement: 400GAUI-8 C2M (Annex 120E) - Host Assign (0x1) - {optic} (Cl 124) - Media Assign (0x1)
                                   100GAUI-2 C2M (Annex 135G) - Host Assign (0x55) - 100G-FR/100GBASE-FR1 (Cl 140) - Media Assign (0xf)
        CMIS Rev: 5.0
        Connector: MPO 1x12
        Encoding: N/A
        Extended Identifier: Power Class 8 (11.0W Max)
        Extended RateSelect Compliance: N/A
        Host Lane Count: 8
        Identifier: OSFP 8X Pluggable Transceiver
        Inactive Firmware: 7.9.0
        Length Cable Assembly(m): 0.0
        Media Interface Technology: 1310 nm EML
        Media Lane Count: {lanes}
        Module Hardware Rev: 1.0
        Nominal Bit Rate(100Mbs): 0
        Specification compliance: sm_media_interface
        Vendor Date Code(YYYY-MM-DD Lot): 2024-03-11
        Vendor Name: NVIDIA
        Vendor OUI: 48-b0-2d
        Vendor PN: MMS4X00-NS400
        Vendor Rev: A1
        Vendor SN: MT{serial:010d}
"""

_THRESHOLDS = """\
        ChannelThresholdValues:
                RxPowerHighAlarm  : 5.0dBm
                RxPowerHighWarning: 4.0dBm
                RxPowerLowAlarm   : -10.4dBm
                RxPowerLowWarning : -7.4dBm
                TxBiasHighAlarm   : 13.0mA
                TxBiasHighWarning : 12.0mA
                TxBiasLowAlarm    : 5.5mA
                TxBiasLowWarning  : 6.0mA
                TxPowerHighAlarm  : 5.0dBm
                TxPowerHighWarning: 4.0dBm
                TxPowerLowAlarm   : -6.6dBm
                TxPowerLowWarning : -5.6dBm
        ModuleMonitorValues:
                Temperature: 47.5C
                Vcc: 3.276Volts
        ModuleThresholdValues:
                TempHighAlarm  : 80.0C
                TempHighWarning: 75.0C
                TempLowAlarm   : -5.0C
                TempLowWarning : 0.0C
                VccHighAlarm   : 3.465Volts
                VccHighWarning : 3.4Volts
                VccLowAlarm    : 3.135Volts
                VccLowWarning  : 3.2Volts
"""


def _dbm(value):
    return "%sdBm" % repr(float(value))


def show_interfaces_transceiver_eeprom_dom(switch):
    blocks = []
    for port in _ports(switch):
        rx, tx = port.get("rx_dbm") or [], port.get("tx_dbm") or []
        if not rx:
            blocks.append("%s: SFP EEPROM Not detected\n" % port["name"])
            continue
        lines = ["%s: SFP EEPROM detected" % port["name"],
                 _EEPROM.format(optic=port.get("optic") or "400GBASE-DR4", lanes=len(rx),
                                serial=_port_number(port["name"]) * 7919 + 1000).rstrip("\n"),
                 "        ChannelMonitorValues:"]
        lines += ["                RX%dPower: %s" % (lane, _dbm(value)) for lane, value in enumerate(rx, 1)]
        for lane in range(1, max(len(rx), len(tx)) + 1):
            lines.append("                TX%dBias: %s" % (lane, "8.25mA" if lane <= len(tx) else "0.0mA"))
            if lane <= len(tx):
                lines.append("                TX%dPower: %s" % (lane, _dbm(tx[lane - 1])))
        blocks.append("\n".join(lines) + "\n" + _THRESHOLDS)
    return "\n".join(blocks)


# --- show lldp table -------------------------------------------------------------------------------

def _capability(neighbor):
    name = neighbor.get("system") or ""
    return "R" if re.match(r"(leaf|spine)", name) else "O"  # SONiC peers route; a host's lldpd: Station


def show_lldp_table(switch):
    rows = []
    for port in sorted(switch["ports"], key=lambda port: _natural(port["name"])):
        for neighbor in port.get("lldp") or []:
            rows.append([port["name"], neighbor.get("system") or "", neighbor.get("port") or "",
                         _capability(neighbor), neighbor.get("port") or ""])
    headers = ["LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr"]
    return ("Capability codes: (R) Router, (B) Bridge, (O) Other\n" + _table(headers, rows) + "\n"
            + "-" * 50 + "\n" + "Total entries displayed:  %d\n" % len(rows))


# --- show ip bgp summary ---------------------------------------------------------------------------

def show_ip_bgp_summary(switch):
    neighbors = sorted(switch["bgp_neighbors"], key=lambda n: _natural(n["address"]))
    rows = []
    for neighbor in neighbors:
        if neighbor["state"] == "Established":
            state = neighbor.get("prefixes_received") or 0
        else:
            state = neighbor["state"]
        rows.append([neighbor["address"], 4, neighbor["remote_as"], neighbor.get("msg_rcvd", 0),
                     neighbor.get("msg_sent", 0), 0, 0, 0, neighbor.get("up_down") or "never", state,
                     neighbor.get("description") or neighbor.get("peer") or "NotAvailable"])
    headers = ["Neighbhor", "V", "AS", "MsgRcvd", "MsgSent", "TblVer", "InQ", "OutQ", "Up/Down", "State/PfxRcd",
               "NeighborName"]
    routes = len(switch.get("routes") or [])
    return ("\nIPv4 Unicast Summary:\n"
            "BGP router identifier %s, local AS number %d vrf-id 0\n" % (switch["router_id"], switch["asn"])
            + "BGP table version %d\n" % (routes * 3 + 7)
            + "RIB entries %d, using %d bytes of memory\n" % (routes * 2 + 1, (routes * 2 + 1) * 184)
            + "Peers %d, using %d KiB of memory\n" % (len(rows), len(rows) * 20920)
            + "Peer groups 1, using 64 bytes of memory\n\n\n"
            + _table(headers, rows) + "\n\nTotal number of neighbors %d\n" % len(rows))


# --- show pfc counters -----------------------------------------------------------------------------

def show_pfc_counters(switch):
    tables = []
    for direction in ("rx", "tx"):
        rows = [[port["name"]] + [_comma(port["pfc"][prio][direction]) for prio in PRIORITIES]
                for port in _ports(switch)]
        headers = ["Port %s" % direction.capitalize()] + ["PFC%s" % prio for prio in PRIORITIES]
        tables.append(_table(headers, rows, stralign="right"))
    return tables[0] + "\n\n" + tables[1] + "\n"


# --- show pfc priority ------------------------------------------------------------------------------

def show_pfc_priority(switch):
    """pfc/main.py showPfcPrio: one row per PORT_QOS_MAP entry, its pfc_enable or N/A when it has none,
    natsorted, a blank line above and below the table."""
    rows = [[port["name"], ",".join(map(str, port.get("pfc_priorities", [3]))) or "N/A"] for port in _ports(switch)]
    return "\n" + _table(["Interface", "Lossless priorities"], rows) + "\n\n"


# --- show queue counters / wredcounters ------------------------------------------------------------

def _queue_tables(switch, headers, cells):
    out = []
    for port in _ports(switch):
        rows = [[port["name"], "UC%s" % prio] + cells(port, prio) for prio in PRIORITIES]
        out.append(_table(headers, rows, stralign="right") + "\n")
    return "\n".join(out) + "\n"


def _sent(port, prio):
    return port["out_packets"] if prio == "3" else 0  # the RoCE traffic class carries the traffic


def show_queue_counters(switch):
    def cells(port, prio):
        sent, dropped = _sent(port, prio), port["discards"][prio]
        return [_comma(sent), _comma(sent * 4096), _comma(dropped), _comma(dropped * 4096)]
    return _queue_tables(switch, ["Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"], cells)


def show_queue_wredcounters(switch):
    def cells(port, prio):
        marked = port["ecn_marked"][prio]
        return ["0", "0", _comma(marked), _comma(marked * 4096)]
    return _queue_tables(switch, ["Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts",
                                  "EcnMarked/bytes"], cells)


COMMANDS = {
    "show interfaces status": show_interfaces_status,
    "show interfaces counters": show_interfaces_counters,
    "show interfaces counters fec-stats": show_interfaces_counters_fec_stats,
    "show interfaces transceiver eeprom --dom": show_interfaces_transceiver_eeprom_dom,
    "show lldp table": show_lldp_table,
    "show ip bgp summary": show_ip_bgp_summary,
    "show pfc counters": show_pfc_counters,
    "show pfc priority": show_pfc_priority,
    "show queue counters": show_queue_counters,
    "show queue wredcounters": show_queue_wredcounters,
}

try:  # SONiC's `show ip route bgp` is FRR's own output (vtysh), rendered by formats_frr
    from pyramid_twin import formats_frr
except ImportError:
    formats_frr = None
else:
    def show_ip_route_bgp(switch):
        return formats_frr.show_ip_route(switch)

    COMMANDS["show ip route bgp"] = show_ip_route_bgp
    # SONiC's vtysh (a wrapper into its bgp container) answers as FRR does
    COMMANDS["vtysh -c show bgp ipv4 unicast summary json"] = formats_frr.show_bgp_summary_json
    COMMANDS["vtysh -c show ip route bgp json"] = formats_frr.show_ip_route_json


# --- errors: sonic-utilities is a click program ----------------------------------------------------

_GROUPS = {
    "show": ["interfaces", "ip", "ipv6", "lldp", "pfc", "queue", "version", "platform", "runningconfiguration"],
    "show interfaces": ["counters", "description", "status", "transceiver", "naming_mode", "neighbor"],
    "show interfaces counters": ["detailed", "errors", "fec-stats", "rates", "rif"],
    "show interfaces transceiver": ["eeprom", "info", "lpmode", "pm", "presence", "status"],
    "show ip": ["bgp", "interfaces", "route"],
    "show ip bgp": ["neighbors", "network", "summary"],
    "show lldp": ["neighbors", "table"],
    "show pfc": ["asymmetric", "counters", "priority"],
    "show queue": ["counters", "persistent-watermark", "watermark", "wredcounters"],
}


def error(command):
    """(text, exit code) of an unknown command: click's usage error (exit 2), or bash's for a tool
    a SONiC switch does not have (exit 127)."""
    words = command.split()
    if not words:
        return "", 0
    if words[0] != "show":
        return "-bash: %s: command not found\n" % words[0], 127
    group = "show"
    for word in words[1:]:
        if word.startswith("-"):
            usage = "%s [OPTIONS] COMMAND [ARGS]..." % group if group in _GROUPS else "%s [OPTIONS]" % group
            return ("Usage: %s\nTry \"%s -h\" for help.\n\n"
                    "Error: no such option: %s\n" % (usage, group, word)), 2
        if group not in _GROUPS:  # a command of its own: an argument it does not take
            return ("Usage: %s [OPTIONS]\nTry \"%s -h\" for help.\n\n"
                    "Error: Got unexpected extra argument (%s)\n" % (group, group, word)), 2
        if word not in _GROUPS[group]:
            return ("Usage: %s [OPTIONS] COMMAND [ARGS]...\nTry \"%s -h\" for help.\n\n"
                    "Error: No such command \"%s\".\n" % (group, group, word)), 2
        group = group + " " + word
    return ("Usage: %s [OPTIONS] COMMAND [ARGS]...\nTry \"%s -h\" for help.\n\n"
            "Error: Missing command.\n" % (group, group)), 2
