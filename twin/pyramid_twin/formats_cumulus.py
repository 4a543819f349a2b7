"""NVIDIA Cumulus Linux 5.x in the twin: what `nv show ...` (NVUE, 5.11+ layout) and FRR's `vtysh` print.

switch_tool.py joins a command's argv with spaces and looks it up in COMMANDS. The per-port
commands ("nv show interface swp1 counters qos", run by the catalog once per port) are matched by
pattern: COMMANDS.get() hands back a handler bound to that port. A port the switch does not have
gets NVUE's error text. Standard library only.
"""

import math

from pyramid_twin import commands, formats_frr, formats_traffic

NO_ITEM = "Error: The requested item does not exist.\n"


def _natural(name):
    # only where ports are listed: the per-port runs need none
    import re  # pylint: disable=import-outside-toplevel
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _ports(switch):
    return sorted(switch["ports"], key=lambda port: _natural(port["name"]))


def _table(headers, rows, indent=""):
    """An NVUE table: columns as wide as their widest cell, two spaces apart, a dash line under the header."""
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    out = [indent + "  ".join(h.ljust(w) for h, w in zip(headers, widths)),
           indent + "  ".join("-" * w for w in widths)]
    out += [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    return out


def nv_show_interface(switch):
    rows = [["eth0", "up", "1G", "1500", "eth", "oob-mgmt-switch", "swp%d" % (switch.get("index", 0) + 10),
             "IP Address: 192.168.200.%d/24" % (11 + switch.get("index", 0) % 200)],
            ["lo", "up", "", "65536", "loopback", "", "", "IP Address: %s/32" % switch["router_id"]],
            ["mgmt", "up", "", "65575", "vrf", "", "", "IP Address: 127.0.0.1/8"]]
    for port in _ports(switch):
        up = port["oper"] == "up"
        lldp = port.get("lldp") or []
        rows.append([port["name"], "up" if up else "down", "%dG" % port["speed_gbps"] if up and port.get("speed_gbps") else "",
                     str(port.get("mtu") or 9216), "swp", lldp[0]["system"] if lldp else "", lldp[0]["port"] if lldp else "",
                     "IP Address: %s" % port["ip"] if port.get("ip") else ""])
    rows.sort(key=lambda row: _natural(row[0]))
    return "\n".join(_table(["Interface", "State", "Speed", "MTU", "Type", "Remote Host", "Remote Port", "Summary"],
                            rows)) + "\n"


def _lldp_json(port):
    """NVUE keys a neighbor by its system name; two with one name (the twin's two cables to one host) get a suffix."""
    neighbors = {}
    for entry in port.get("lldp") or []:
        key = entry["system"]
        while key in neighbors:
            key += "+"
        neighbors[key] = {"chassis": {"system-name": entry["system"]},
                          "port": {"name": entry["port"], "type": "ifname", "ttl": 120}}
    return {"neighbor": neighbors} if neighbors else {}


def nv_show_interface_json(switch):
    """`nv show interface -o json`: the object tree behind the table above, from the same port model (a down port has no
    speed, a port without a neighbor no lldp neighbor), in the shape of a Cumulus Linux 5.6 capture."""
    index = switch.get("index", 0)
    document = {
        "eth0": {"type": "eth", "link": {"mtu": 1500, "speed": "1G", "state": {"up": {}}},
                 "ip": {"address": {"192.168.200.%d/24" % (11 + index % 200): {}}},
                 "lldp": {"neighbor": {"oob-mgmt-switch": {"chassis": {"system-name": "oob-mgmt-switch"},
                                                           "port": {"name": "swp%d" % (index + 10), "type": "ifname"}}}}},
        "lo": {"type": "loopback", "link": {"mtu": 65536, "state": {"up": {}}},
               "ip": {"address": {"%s/32" % switch["router_id"]: {}}}},
        "mgmt": {"type": "vrf", "link": {"mtu": 65575, "state": {"up": {}}}, "ip": {"address": {"127.0.0.1/8": {}}}},
    }
    for port in _ports(switch):
        up = port["oper"] == "up"
        link = {"mtu": port.get("mtu") or 9216, "state": {"up" if up else "down": {}}}
        if up and port.get("speed_gbps"):
            link["speed"] = "%dG" % port["speed_gbps"]
        entry = {"type": "swp", "link": link, "ip": {"address": {port["ip"]: {}} if port.get("ip") else {}}}
        lldp = _lldp_json(port)
        if lldp:
            entry["lldp"] = lldp
        document[port["name"]] = entry
    import json  # pylint: disable=import-outside-toplevel
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def nv_show_interface_counters_errors(switch, port):
    rows = [["Alignment Errors", "0", "n/a"], ["FCS Errors", str(port["crc"]), "n/a"],
            ["Jabber Errors", "0", "n/a"], ["Length Errors", "0", "n/a"], ["Oversize Errors", "0", "n/a"],
            ["Symbol Errors", "0", "n/a"], ["Total Errors", str(port["in_errors"]), str(port["out_errors"])],
            ["Undersize Errors", "0", "n/a"]]
    return "\n".join(_table(["Counter", "Receive", "Transmit"], rows)) + "\n"


def _power(dbm):
    return "%.4f mW / %.2f dBm" % (math.pow(10.0, dbm / 10.0), dbm)


def nv_show_interface_transceiver(switch, port):
    if not port.get("rx_dbm"):
        return "status                 : unplugged\nerror-status           : N/A\n"
    lanes = len(port["rx_dbm"])
    fields = [("cable-type", "Optical module"), ("cable-length", "0m"),
              ("supported-cable-length", "0m om1, 0m om2, 0m om3, 0m om4, 0m om5"),
              ("diagnostics-status", "Diagnostic Data Available"), ("status", "plugged_enabled"),
              ("error-status", "N/A"), ("revision-compliance", "CMIS Rev 5.0" if lanes == 8 else "SFF-8636 Rev 2.5/2.6/2.7"),
              ("vendor-date-code", "230417__"), ("identifier", "OSFP" if lanes == 8 else "QSFP28"),
              ("vendor-rev", "A3"), ("vendor-oui", "00:02:c9"), ("vendor-name", "NVIDIA"),
              ("vendor-pn", "MMS4X00-NM" if lanes == 8 else "MMA1B00-C100D"), ("vendor-sn", "MT2316FT%05d" % (len(port["name"]) * 7919 % 100000)),
              ("temperature", "47.50 degrees C / 117.50 degrees F"), ("voltage", "3.2990 V")]
    for lane in range(lanes):
        fields.append(("ch-%d-rx-power" % (lane + 1), _power(port["rx_dbm"][lane])))
        if lane < len(port.get("tx_dbm") or []):
            fields.append(("ch-%d-tx-power" % (lane + 1), _power(port["tx_dbm"][lane])))
        fields.append(("ch-%d-tx-bias-current" % (lane + 1), "8.250 mA"))
    return "".join("%-23s: %s \n" % (key, value) for key, value in fields)


def _human_bytes(count):
    """NVUE's byte cells: "0 Bytes", "912 Bytes", "1.20 KB", "3.50 MB"."""
    if count < 1024:
        return "%d Bytes" % count
    for unit, size in (("KB", 1024), ("MB", 1024 ** 2), ("GB", 1024 ** 3), ("TB", 1024 ** 4)):
        if count < size * 1024 or unit == "TB":
            return "%.2f %s" % (count / float(size), unit)
    return "%d Bytes" % count


def nv_show_interface_counters_qos(switch, port):
    prios = [str(n) for n in range(8)]
    tx_frames = port.get("out_packets", 0)
    ingress = _table(["priority-group", "rx-frames", "rx-buffer-discards", "rx-shared-buffer-discards"],
                     [[p, str(port.get("in_packets", 0) if p == "0" else 0), "0 Bytes", "0 Bytes"] for p in prios], "    ")
    egress = _table(["traffic-class", "tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards"],
                    [[p, str(tx_frames if p == "0" else 0), _human_bytes(port.get("out_octets", tx_frames * 1100) if p == "0" else 0),
                      _human_bytes(port["discards"].get(p, 0)), "0"] for p in prios], "    ")
    pfc = _table(["switch-priority", "rx-pause-frames", "rx-pause-duration", "tx-pause-frames", "tx-pause-duration"],
                 [[p, str(port["pfc"][p]["rx"]), str(port["pfc"][p]["rx"] * 3), str(port["pfc"][p]["tx"]),
                   str(port["pfc"][p]["tx"] * 3)] for p in prios], "    ")
    pauses = sum(port["pfc"][p]["rx"] for p in prios), sum(port["pfc"][p]["tx"] for p in prios)
    stats = _table(["Counter", "Receive", "Transmit"],
                   [["ecn-marked-packets", "n/a", str(sum(port["ecn_marked"].values()))],
                    ["mc-buffer-discards", "n/a", "0"], ["pause-frames", str(pauses[0]), str(pauses[1])]], "    ")
    out = []
    for title, table in (("Ingress Buffer Statistics", ingress), ("Egress Queue Statistics", egress),
                         ("PFC Statistics", pfc), ("Qos Port Statistics", stats)):
        out += [title, "=" * (len(title) + 3)] + table + [""]
    return "\n".join(out)


def nv_show_interface_qos_roce_status(switch, port):
    """The port's RoCE status (the NVUE reference's example layout): the pfc block says on which
    switch-priority PFC runs and whether rx/tx are enabled; a port with PFC off runs RoCE lossy."""
    lossless = port.get("pfc_priorities", [3])
    on = "yes" if lossless else "no"
    rows = [("congestion-control", "", "")] + [("  " + key, value, text) for key, value, text in (
        ("congestion-mode", "ecn, absolute", "Congestion config mode"),
        ("enabled-tc", "0,3", "Congestion config enabled Traffic Class"),
        ("max-threshold", "1.43 MB", "Congestion config max-threshold"),
        ("min-threshold", "153.00 KB", "Congestion config min-threshold"))]
    rows += [("pfc", "", "")] + [("  " + key, value, text) for key, value, text in (
        ("pfc-priority", ",".join(map(str, lossless)), "switch-prio on which PFC is enabled"),
        ("rx-enabled", on, "PFC Rx Enabled status"), ("tx-enabled", on, "PFC Tx Enabled status"))]
    rows += [("trust", "", ""), ("  trust-mode", "pcp,dscp", "Trust Setting on the port for packet classification"),
             ("mode", "lossless" if lossless else "lossy", "Roce Mode")]
    out = ["%-18s  %-13s  %-7s  %s" % ("", "operational", "applied", "description"),
           "%s  %s  %s  %s" % ("-" * 18, "-" * 13, "-" * 7, "-" * 51)]
    out += [("%-18s  %-13s  %-7s  %s" % (key, value, "", text)).rstrip() if value or text else key for key, value, text in rows]
    out += [" ", "RoCE PCP/DSCP->SP mapping configurations", "=" * 43,
            "          pcp  dscp  switch-prio", "    ----  ---  ----  -----------",
            "    cnp   6    48    6", "    roce  3    26    %s" % (lossless[0] if lossless else 3)]
    prio = lossless[0] if lossless else 3
    out += [" ", "RoCE SP->TC mapping and ETS configurations", "=" * 45,
            "          switch-prio  traffic-class  scheduler-weight", "    ----  -----------  -------------  ----------------",
            "    cnp   6            6              strict priority", "    roce  %-11d  %-13d  dwrr-50%%" % (prio, prio)]
    return "\n".join(out) + "\n"


PER_PORT = {
    "counters errors": nv_show_interface_counters_errors,
    "counters": formats_traffic.nv_show_interface_counters,
    "transceiver": nv_show_interface_transceiver,
    "counters qos": nv_show_interface_counters_qos,
    "qos roce status": nv_show_interface_qos_roce_status,
}
_PER_PORT = commands.PortView("nv show interface", PER_PORT)


def _per_port(match):
    name, view = match.groups()
    return commands.bound(PER_PORT[view], name, NO_ITEM)


COMMANDS = commands.Commands({
    "nv show interface": nv_show_interface,
    "nv show interface -o json": nv_show_interface_json,
    "vtysh -c show ip bgp summary": formats_frr.show_ip_bgp_summary,
    "vtysh -c show ip route bgp": formats_frr.show_ip_route,
    "sudo vtysh -c show ip bgp summary": formats_frr.show_ip_bgp_summary,
    "sudo vtysh -c show ip route bgp": formats_frr.show_ip_route,
    "vtysh -c show bgp ipv4 unicast summary json": formats_frr.show_bgp_summary_json,
    "vtysh -c show ip route bgp json": formats_frr.show_ip_route_json,
}, [(_PER_PORT, _per_port)])


def error(command):
    """(text, rc) of the real tool for a command the twin does not answer."""
    words = command.split()
    if words[:1] == ["nv"]:
        return NO_ITEM, 1
    if "vtysh" in words[:2]:
        rest = command.split("-c", 1)[1].strip() if "-c" in words else ""
        return "%% Unknown command: %s\n" % rest, 1
    return "-bash: %s: command not found\n" % (words[0] if words else ""), 127
