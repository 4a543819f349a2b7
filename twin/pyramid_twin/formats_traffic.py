"""Per-port traffic counters as each platform prints them (the link kind's reads under load; standard library only).

Each renderer takes the switch snapshot (switch_session.snapshot_now: counters already plain ints) and prints, per
port, the octets and unicast packets it took in and sent out ("in_octets", "out_octets", "in_packets",
"out_packets"; a port the model gives no octets yet reads 0). The layouts are those of the real captures the parsers'
fixtures hold (tests/unit/parsers/<parser>/*_real):

- EOS `show interfaces | json`: each interface's "interfaceCounters" (ANTA's VerifyInterfaceUtilization data, vEOS
  4.33), added to formats_eos's document of the same command (which prints the rest of each entry);
- NX-OS `show interface counters`: four two-column blocks (genieparser's ShowInterfaceCounters captures);
- Cumulus `nv show interface <port> counters` (CL 5.5+): titled sections, traffic in "Detailed Counters" (NVUE docs);
- SONiC: its read is `show interfaces counters` (portstat RX_OK/TX_OK: packets, no octets), which
  formats_sonic.show_interfaces_counters already prints from the same port fields; nothing to add here.

The twin carries no multicast or broadcast traffic: those cells read 0.
"""

import json

NXOS_RULE = "-" * 82


def _counts(port):
    return {key: int(port.get(key, 0)) for key in ("in_octets", "out_octets", "in_packets", "out_packets")}


# --- EOS ------------------------------------------------------------------------------------------

def _eos_counters(switch, port):
    counts = _counts(port)
    return {
        "inOctets": counts["in_octets"], "inUcastPkts": counts["in_packets"], "inMulticastPkts": 0, "inBroadcastPkts": 0,
        "inDiscards": 0, "inTotalPkts": counts["in_packets"],
        "outOctets": counts["out_octets"], "outUcastPkts": counts["out_packets"], "outMulticastPkts": 0, "outBroadcastPkts": 0,
        "outDiscards": sum((port.get("discards") or {}).values()), "outTotalPkts": counts["out_packets"],
        "linkStatusChanges": 2, "totalInErrors": port.get("in_errors", 0),
        "inputErrorsDetail": {"runtFrames": 0, "giantFrames": 0, "fcsErrors": port.get("crc", 0), "alignmentErrors": 0,
                              "symbolErrors": 0, "rxPause": 0},
        "totalOutErrors": port.get("out_errors", 0),
        "outputErrorsDetail": {"collisions": 0, "lateCollisions": 0, "deferredTransmissions": 0, "txPause": 0},
        "counterRefreshTime": switch.get("rendered_at", 0.0)}


def eos_with_interface_counters(render):
    """`show interfaces | json` as `render` prints it, each port's entry with its "interfaceCounters"."""
    def interfaces_json(switch):
        document = json.loads(render(switch))
        for port in switch["ports"]:
            if port["name"] in document["interfaces"]:
                document["interfaces"][port["name"]]["interfaceCounters"] = _eos_counters(switch, port)
        return json.dumps(document, indent=4) + "\n"
    return interfaces_json


# --- NX-OS ----------------------------------------------------------------------------------------

def _nxos_short(name):
    return "Eth" + name[len("Ethernet"):] if name.startswith("Ethernet") else name


def _nxos_key(port):
    return [int(part) if part.isdigit() else 0 for part in port["name"].replace("Ethernet", "").split("/")]


def nxos_show_interface_counters(switch):
    """`show interface counters`: the In/Out octets and unicast blocks, then multicast/broadcast, each port a row."""
    ports = sorted(switch["ports"], key=_nxos_key)
    blocks = (("InOctets", "InUcastPkts", lambda c: (c["in_octets"], c["in_packets"])),
              ("InMcastPkts", "InBcastPkts", lambda c: (0, 0)),
              ("OutOctets", "OutUcastPkts", lambda c: (c["out_octets"], c["out_packets"])),
              ("OutMcastPkts", "OutBcastPkts", lambda c: (0, 0)))
    lines = [""]
    for first, second, values in blocks:
        lines += [NXOS_RULE, "%-24s%25s%33s" % ("Port", first, second), NXOS_RULE]
        lines += ["%-24s%25d%33d" % ((_nxos_short(port["name"]),) + values(_counts(port))) for port in ports]
        lines.append("")
    return "\n".join(lines) + "\n"


# --- Cumulus (NVUE) -------------------------------------------------------------------------------

def _nvue_table(headers, rows, indent="    "):
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    out = [indent + "  ".join(h.ljust(w) for h, w in zip(headers, widths)),
           indent + "  ".join("-" * w for w in widths)]
    return out + [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]


def _nvue_section(title, headers, rows):
    return ["", title, "=" * (len(title) + 3)] + _nvue_table(headers, rows)


def nv_show_interface_counters(_switch, port):
    """`nv show interface <port> counters` for one port, as CL 5.5+ prints it (the docs' example's sections)."""
    counts, counter = _counts(port), ["Counter", "Receive", "Transmit"]
    in_pkts, out_pkts = str(counts["in_packets"]), str(counts["out_packets"])
    lines = ["                     operational  applied  pending",
             "-------------------  -----------  -------  -------",
             "carrier-transitions  2                            "]
    lines += _nvue_section("Detailed Counters", counter, [
        ["Broadcast Packets", "0", "0"], ["Multicast Packets", "0", "0"],
        ["Total Octets", str(counts["in_octets"]), str(counts["out_octets"])],
        ["Total Packets", in_pkts, out_pkts], ["Unicast Packets", in_pkts, out_pkts]])
    lines += _nvue_section("Drop Counters", counter, [
        ["ACL Drops", "0", "n/a"], ["Buffer Drops", "0", "n/a"], ["Non-Queue Drops", "n/a", "0"],
        ["Queue Drops", "n/a", str(sum((port.get("discards") or {}).values()))],
        ["Total Drops", "0", str(sum((port.get("discards") or {}).values()))]])
    lines += _nvue_section("Error Counters", counter, [
        ["Alignment Errors", "0", "n/a"], ["FCS Errors", str(port.get("crc", 0)), "n/a"], ["Jabber Errors", "0", "n/a"],
        ["Length Errors", "0", "n/a"], ["Oversize Errors", "0", "n/a"], ["Symbol Errors", "0", "n/a"],
        ["Total Errors", str(port.get("in_errors", 0)), str(port.get("out_errors", 0))], ["Undersize Errors", "0", "n/a"]])
    # RoCE's 4096-byte MTU frames (4,1xx bytes on the wire) fall in the 4096-16383 bucket
    sizes = ["64", "65-127", "128-255", "256-511", "512-1023", "1024-1518", "1519-2047", "2048-4095", "4096-16383"]
    lines += _nvue_section("Packet Size Statistics", counter, [
        [size, in_pkts if size == "4096-16383" else "0", out_pkts if size == "4096-16383" else "0"] for size in sizes])
    return "\n".join(line.rstrip() for line in lines) + "\n"
