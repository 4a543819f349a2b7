"""A twin node's host RoCE configuration as its tools and sysfs show it: mlnx_qos -i <if>, ethtool -S <if>, and
per rail the files under /sys/class/infiniband/<dev>/ (the netdev's ecn/ switches and mtu through device/net/,
the GID types, the global traffic class, the RDMA congestion counters).

A healthy rail is what NVIDIA's lossless RoCE (DSCP-based QoS) setup leaves: trust dscp, PFC on priority 3
alone, the default dscp2prio (DSCP 26 -> priority 3), RoCE marked ToS 106 (DSCP 26, ECT), DCQCN on for every
priority, MTU 9000, GID 3 RoCE v2 (IPv4). The mlnx_qos layout is mlnx-tools 5.x's (a real capture with
"Receive buffer size ... max_buffer_size=" and TCs that group priorities: tests/unit/parsers/linux_mlnx_qos/).
Faults (model.py): dcqcn_off, trust_pcp, pfc_priority, dscp_mark, mtu.
"""

ROCE_PRIORITY = 3
GID_TYPES = ["IB/RoCE v1", "RoCE v2", "IB/RoCE v1", "RoCE v2"]  # fe80:: link-local v1/v2, then the IPv4 address's
HEALTHY = {"trust": "dscp", "pfc_priority": ROCE_PRIORITY, "dscp": 26, "mtu": 9000, "dcqcn_off": None}


def config(state, rail):
    """The rail's effective RoCE config: the healthy defaults, then the node's faults for all rails, then this rail's."""
    overrides = state.get("roce") or {}
    result = dict(HEALTHY)
    result.update(overrides.get("*", {}))
    result.update(overrides.get(rail["device"], {}))
    return result


def netdev_rail(state, netdev):
    return next((rail for rail in state["rails"] if rail["netdev"] == netdev), None)


def sys_files(state):
    """{path: text} of every Ethernet rail's RoCE sysfs files, one value and a newline each, as the kernel prints them."""
    files = {}
    for rail in state["rails"]:
        if rail["link_layer"] != "Ethernet":
            continue
        roce = config(state, rail)
        base = "/sys/class/infiniband/%s/" % rail["device"]
        net = base + "device/net/%s/" % rail["netdev"]
        for prio in range(8):
            on = "0\n" if roce["dcqcn_off"] == prio else "1\n"
            files[net + "ecn/roce_rp/enable/%d" % prio] = on
            files[net + "ecn/roce_np/enable/%d" % prio] = on
        files[net + "mtu"] = "%d\n" % roce["mtu"]
        files[net + "dev_port"] = "0\n"
        for index, kind in enumerate(GID_TYPES):
            files[base + "ports/1/gid_attrs/types/%d" % index] = kind + "\n"
        files[base + "tc/1/traffic_class"] = "Global tclass=%d\n" % (roce["dscp"] * 4 + 2)
        counts = (state.get("incast_counters") or {}).get(rail["device"], {})  # what incasts left (incast.py)
        for name in ("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets"):
            files[base + "ports/1/hw_counters/" + name] = "%d\n" % counts.get(name, 0)
    return files


def mlnx_qos(state, args, env):
    """mlnx_qos -i <if>, the query only. Other argv, and an interface the node lacks, get the twin's own message
    (rc 2): the real tool's wording for them is not taken from a capture, so none is made up."""
    if len(args) != 2 or args[0] not in ("-i", "--interface"):
        return 2, "", "pyramid twin: `mlnx_qos %s` is not simulated (only the query, -i <netdev>)\n" % " ".join(args)
    rail = netdev_rail(state, args[1])
    if rail is None:
        return 2, "", "pyramid twin: mlnx_qos: no interface %s on this node\n" % args[1]
    return 0, qos_text(config(state, rail)), ""


def mlnx_qos_set(state, args):
    """mlnx_qos -i <if> [--trust pcp|dscp] [--pfc b0,...,b7]: the settings remediate.yml writes, into the node's state
    (state["roce"][dev]); then the report of the port, as the tool prints it after applying. The twin's NIC has one
    lossless priority at most (pfc_priority): a PFC list with several is not simulated. Returns (rc, out, err,
    changed)."""
    if len(args) < 4 or args[0] not in ("-i", "--interface") or len(args) % 2:
        return 2, "", "pyramid twin: `mlnx_qos %s` is not simulated\n" % " ".join(args), False
    rail = netdev_rail(state, args[1])
    if rail is None:
        return 2, "", "pyramid twin: mlnx_qos: no interface %s on this node\n" % args[1], False
    wanted = {}
    for flag, value in zip(args[2::2], args[3::2]):
        if flag == "--trust" and value in ("pcp", "dscp"):
            wanted["trust"] = value
        elif flag == "--pfc" and len(value.split(",")) == 8 and set(value.split(",")) <= {"0", "1"}:
            on = [p for p, bit in enumerate(value.split(",")) if bit == "1"]
            if len(on) > 1:
                return 2, "", "pyramid twin: mlnx_qos --pfc with several lossless priorities is not simulated\n", False
            wanted["pfc_priority"] = on[0] if on else None
        else:
            return 2, "", "pyramid twin: `mlnx_qos %s` is not simulated (only --trust and --pfc)\n" % " ".join(args), False
    before = config(state, rail)
    changed = any(before[key] != value for key, value in wanted.items())
    state.setdefault("roce", {}).setdefault(rail["device"], {}).update(wanted)
    return 0, qos_text(config(state, rail)), "", changed


def qos_text(roce):
    """mlnx_qos -i's report of one port (mlnx-tools 5.x)."""
    lines = ["DCBX mode: OS controlled", "Priority trust state: %s" % roce["trust"]]
    if roce["trust"] == "dscp":
        lines.append("dscp2prio mapping:")
        lines += ["\tprio:%d dscp:%s" % (prio, "".join("%02d," % d for d in range(prio * 8 + 7, prio * 8 - 1, -1))) for prio in range(8)]
    lossless = roce["pfc_priority"]
    lines += ["default priority:",
              "Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,max_buffer_size=262016",
              "Cable len: 7",
              "PFC configuration:",
              "\tpriority    0   1   2   3   4   5   6   7",
              "\tenabled     %s   " % "   ".join("1" if p == lossless else "0" for p in range(8)),
              "\tbuffer      %s   " % "   ".join("1" if p == lossless else "0" for p in range(8))]
    # prio_tc as the real capture's: priority 3 alone in TC 3, 6 in TC 6 (vendor), the rest in TC 0
    lines += ["tc: 0 ratelimit: unlimited, tsa: ets, bw: 50%"] + ["\t priority:  %d" % p for p in (0, 1, 2, 4, 5, 7)]
    lines += ["tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%", "\t priority:  3",
              "tc: 6 ratelimit: unlimited, tsa: vendor", "\t priority:  6"]
    return "\n".join(lines) + "\n"


# ethtool -S of a ConnectX-7 (mlx5_core) at idle: the counters the checks read among their neighbours, in the
# driver's order (vport, then the physical port's, then per priority).
def ethtool(state, args, env):
    if len(args) != 2 or args[0] not in ("-S", "--statistics"):
        return 2, "", "pyramid twin: `ethtool %s` is not simulated (only -S <netdev>)\n" % " ".join(args)
    rail = netdev_rail(state, args[1])
    if rail is None:
        return 2, "", "pyramid twin: ethtool: no interface %s on this node\n" % args[1]
    names = ["rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "rx_out_of_buffer", "rx_vport_rdma_unicast_packets",
             "rx_vport_rdma_unicast_bytes", "tx_vport_rdma_unicast_packets", "tx_vport_rdma_unicast_bytes",
             "rx_packets_phy", "tx_packets_phy", "rx_discards_phy", "tx_discards_phy", "rx_pause_ctrl_phy", "tx_pause_ctrl_phy"]
    for prio in range(8):
        names += ["rx_prio%d_bytes" % prio, "rx_prio%d_packets" % prio, "rx_prio%d_discards" % prio,
                  "tx_prio%d_bytes" % prio, "tx_prio%d_packets" % prio, "rx_prio%d_pause" % prio,
                  "rx_prio%d_pause_duration" % prio, "tx_prio%d_pause" % prio, "tx_prio%d_pause_duration" % prio]
    counts = (state.get("incast_counters") or {}).get(rail["device"], {})  # pauses an incast sent this sender
    return 0, "NIC statistics:\n" + "".join("     %s: %d\n" % (name, counts.get(name, 0)) for name in names), ""
