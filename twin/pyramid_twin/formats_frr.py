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


# --- the JSON forms (`... json`), in the layout of a real FRR 8.4.4 (tests/unit/parsers/frr_*_json/lab_*_real.raw:
# what the lab's real routers printed); FRR prints keys without a space after the colon, two-space indents.

def _json(document):
    import json  # only for a JSON read: the text forms are the hot path
    return json.dumps(document, indent=2, separators=(",", ":")) + "\n"


def show_bgp_summary_json(switch):
    """`show bgp ipv4 unicast summary json`: {} with no BGP neighbor; a session shut shows "state": "Idle (Admin)",
    "peerState": "Admin"; one RFC 8212 keeps empty "state": "Established", "peerState": "Policy"."""
    neighbors = switch.get("bgp_neighbors", [])
    if not neighbors:
        return _json({})
    peers = {}
    for n in neighbors:
        up = n["state"] == "Established"
        policy = up and n.get("no_policy")
        peers[n["address"]] = {
            "hostname": n.get("peer") or n.get("description") or n["address"], "remoteAs": n["remote_as"],
            "localAs": switch["asn"], "version": 4, "msgRcvd": n.get("msg_rcvd", 0), "msgSent": n.get("msg_sent", 0),
            "tableVersion": 0, "outq": 0, "inq": 0, "peerUptime": n.get("up_down") or "never",
            "peerUptimeMsec": 183780000 if up else 0, "peerUptimeEstablishedEpoch": 1795530278,
            "pfxRcd": 0 if policy or not up else (n.get("prefixes_received") or 0),
            "pfxSnt": 0 if policy or not up else len(switch.get("routes", [])),
            "state": n["state"], "peerState": "Policy" if policy else ("Admin" if "(Admin)" in n["state"] else "OK"),
            "connectionsEstablished": 1, "connectionsDropped": 0 if up else 1,
            "desc": (n.get("description") or "")[:20], "idType": "ipv4"}
    established = [n for n in neighbors if n["state"] == "Established"]
    rib = sum(n.get("prefixes_received") or 0 for n in established) + 1
    return _json({"routerId": switch["router_id"], "as": switch["asn"], "vrfId": 0, "vrfName": "default",
                  "tableVersion": rib * 3 + 7, "ribCount": rib * 2 - 1, "ribMemory": (rib * 2 - 1) * 192,
                  "peerCount": len(neighbors), "peerMemory": 741464 * len(neighbors), "peers": peers,
                  "failedPeers": len(neighbors) - len(established), "displayedPeers": len(neighbors),
                  "totalPeers": len(neighbors), "dynamicPeers": 0, "bestPath": {"multiPathRelax": "true"}})


def show_ip_route_json(switch):
    """`show ip route bgp json`: {PREFIX: [the selected route, its FIB next hops]}; {} with no BGP route."""
    document = {}
    for index, route in enumerate(switch.get("routes", [])):
        hops = route.get("next_hops") or []
        if not hops:
            continue
        length = int(route["prefix"].split("/")[1])
        document[route["prefix"]] = [{
            "prefix": route["prefix"], "prefixLen": length, "protocol": "bgp", "vrfId": 0, "vrfName": "default",
            "selected": True, "destSelected": True, "distance": 20, "metric": 0, "installed": True, "table": 254,
            "internalStatus": 16, "internalFlags": 8, "internalNextHopNum": len(hops), "internalNextHopActiveNum": len(hops),
            "nexthopGroupId": 24 + index, "installedNexthopGroupId": 24 + index, "uptime": route.get("age") or "00:00:01",
            "nexthops": [{"flags": 3, "fib": True, "ip": hop["address"], "afi": "ipv4", "interfaceIndex": 2 + position,
                          "interfaceName": hop["interface"], "active": True, "weight": 1} for position, hop in enumerate(hops)]}]
    return _json(document)
