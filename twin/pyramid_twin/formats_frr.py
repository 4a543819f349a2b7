"""FRR's vtysh in the twin: what `vtysh -c "show ip bgp summary"` and `vtysh -c "show ip route bgp"` print
on a Cumulus Linux 5.x or SONiC switch (FRR 8.x layout). Used by formats_cumulus and formats_sonic.

The `switch` argument is a twin snapshot (see formats_cumulus). Standard library only.
"""

LEGEND = (
    "Codes: K - kernel route, C - connected, S - static, R - RIP,\n"
    "       O - OSPF, I - IS-IS, B - BGP, E - EIGRP, N - NHRP,\n"
    "       T - Table, v - VNC, V - VNC-Direct, A - Babel, F - PBR,\n"
    "       f - OpenFabric,\n"
    "       > - selected route, * - FIB route, q - queued, r - rejected, b - backup\n"
    "       t - trapped, o - offload failure\n"
)


def show_ip_bgp_summary(switch):
    neighbors = switch.get("bgp_neighbors", [])
    if not neighbors:
        return "% No BGP neighbors found in VRF default\n"
    established = [n for n in neighbors if n["state"] == "Established"]
    rib = sum(n.get("prefixes_received") or 0 for n in established) + 1
    lines = [
        "",
        "IPv4 Unicast Summary (VRF default):",
        "BGP router identifier %s, local AS number %d vrf-id 0" % (switch["router_id"], switch["asn"]),
        "BGP table version %d" % (rib * 3 + 7),
        "RIB entries %d, using %d bytes of memory" % (rib * 2 - 1, (rib * 2 - 1) * 184),
        "Peers %d, using %d KiB of memory" % (len(neighbors), 724 * len(neighbors) // 1),
        "",
        "Neighbor        V         AS   MsgRcvd   MsgSent   TblVer  InQ OutQ  Up/Down State/PfxRcd   PfxSnt Desc",
    ]
    for n in neighbors:
        up = n["state"] == "Established"
        state = str(n.get("prefixes_received") or 0) if up else n["state"]
        name = n["address"]
        head = "%-16s" % name if len(name) < 16 else name + "\n" + " " * 16
        lines.append("%s4 %10d %9d %9d %8d %4d %4d %8s %12s %8d %s" % (
            head, n["remote_as"], n.get("msg_rcvd", 0), n.get("msg_sent", 0), 0, 0, 0,
            n.get("up_down") or ("never" if not up else "00:00:01"), state,
            len(switch.get("routes", [])) if up else 0, (n.get("description") or "N/A")[:20]))
    lines += ["", "Total number of neighbors %d" % len(neighbors), ""]
    return "\n".join(lines)


def show_ip_route(switch):
    """`show ip route bgp`: the selected BGP routes, every ECMP next hop on its own line. FRR prints
    nothing at all, not even the legend, when no BGP route exists (every session down, or eBGP
    sessions waiting for a policy)."""
    if not any(route.get("next_hops") for route in switch.get("routes", [])):
        return ""
    lines = [LEGEND]
    for route in switch.get("routes", []):
        hops = route.get("next_hops") or []
        if not hops:
            continue
        age = route.get("age") or "00:00:01"
        head = "B>* %s [20/0] " % route["prefix"]
        for index, hop in enumerate(hops):
            lead = head if index == 0 else "  *" + " " * (len(head) - 3)
            lines.append("%svia %s, %s, weight 1, %s" % (lead, hop["address"], hop["interface"], age))
    return "\n".join(lines) + "\n"
