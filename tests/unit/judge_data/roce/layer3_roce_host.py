"""Host RoCE configuration judges at Layer 3 (catalog/roce_host.yml, issue 14) as a data table.

Every mlnx_qos row is fed a real capture (tests/unit/parsers/linux_mlnx_qos: att/netarbiter's, MLNX_OFED 23.10's
with ETS and strict TCs, a firmware-controlled port's with grouped TCs, a port with dscp2prio edited, its trust
pcp, the Mellanox community page's) or one of them with one value changed by hand; the single-value sysfs
files in the kernel's format; ethtool -S and the hw_counters as the twin prints them. Two rails, mlx5_0 and
mlx5_1, whose netdevs are ens1np0 and ens2np0.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, failed, fixture

QOS_FW = fixture("linux_mlnx_qos", "firmware_controlled_grouped_tcs_real")  # trust dscp, PFC 3, tc 3 ets 50%, buffer 1
QOS_NETARBITER = fixture("linux_mlnx_qos", "netarbiter_os_controlled_pfc3_real")  # trust dscp, PFC 3, tsa vendor
QOS_PFC5 = fixture("linux_mlnx_qos", "ets_strict_pfc5_buffers_real")  # PFC 5, tc 5 strict, tc 3 ets 10%
QOS_SPLIT = fixture("linux_mlnx_qos", "dscp_split_prio_buffers_real")  # DSCP 30 -> priority 6
QOS_PCP = fixture("linux_mlnx_qos", "trust_pcp_real")
QOS_OFED42 = fixture("linux_mlnx_qos", "mellanox_community_ofed42_real")  # PFC on 0, 2, 6, 7
QOS_CUT = fixture("linux_mlnx_qos", "cut_in_tc_section")
QOS_ERROR = fixture("linux_mlnx_qos", "trust_not_supported_error")
ECN_ON = fixture("linux_sysfs_roce_ecn_enable", "twin_on")
ECN_OFF = fixture("linux_sysfs_roce_ecn_enable", "twin_dcqcn_off")
TCLASS_106 = fixture("linux_sysfs_ib_traffic_class", "global_tclass_106_real")
TCLASS_UNSET = fixture("linux_sysfs_ib_traffic_class", "unset_empty")
STATS = fixture("linux_ethtool_stats", "twin_cx7_idle")
CC_IDLE = fixture("linux_sysfs_rdma_cc_counters", "twin_idle")
NETDEVS = {"mlx5_0": "ens1np0\n", "mlx5_1": "ens2np0\n"}
RAILS2 = {"pyramid_rails": ["mlx5_0", "mlx5_1"]}
IB = dict(RAILS2, pyramid_rdma_link_layer="infiniband")
WRAP = "python3 -c '{payload_source:rail_netdev.py}' mlx5_1 "
NO_NETDEV = "exited 2: rail_netdev: /sys/class/infiniband/mlx5_1/device/net: no network interface listed (No such file or directory)"


def both(value, other=None):
    """The same raw output on both rails, or `other` on mlx5_1."""
    return {"mlx5_0": value, "mlx5_1": value if other is None else other}


def edited(source, old, new):
    """A real output with one line changed by hand."""
    parser, text = source
    assert old in text, old
    return parser, text.replace(old, new, 1)


def without(source, *names):
    """An output with the lines of the named counters left out."""
    parser, text = source
    return parser, "".join(line for line in text.splitlines(True) if line.split(":")[0].strip() not in names)


DATA = [
    # --- roce_dcqcn ------------------------------------------------------------------------------
    {"check": "roce_dcqcn", "name": "DCQCN on for priority 3 on both rails",
     "raw": {"rail_netdev": NETDEVS, "roce_dcqcn": both(ECN_ON)}, "expect": RAILS2, "status": "PASS",
     "contains": ["2 rails: DCQCN on for priority 3"]},
    {"check": "roce_dcqcn", "name": "DCQCN off on mlx5_1 (the node-047 RCA)",
     "raw": {"rail_netdev": NETDEVS, "roce_dcqcn": both(ECN_ON, ECN_OFF)}, "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_1 (ens2np0): roce_rp/enable/3 = 0, roce_np/enable/3 = 0", "roce_rp/enable/3 = 1 and roce_np/enable/3 = 1",
                  "node-047", CAUSE]},
    {"check": "roce_dcqcn", "name": "the notification point alone off",
     "raw": {"rail_netdev": NETDEVS, "roce_dcqcn": both(ECN_ON, fixture("linux_sysfs_roce_ecn_enable", "rp_on_np_off"))},
     "expect": RAILS2, "status": "FAIL", "contains": ["mlx5_1 (ens2np0): roce_np/enable/3 = 0"]},
    {"check": "roce_dcqcn", "name": "priority 5 planned: its files are judged",
     "raw": {"rail_netdev": NETDEVS, "roce_dcqcn": both(ECN_ON)}, "expect": dict(RAILS2, pyramid_roce_priority=5),
     "status": "PASS", "contains": ["DCQCN on for priority 5"]},
    {"check": "roce_dcqcn", "name": "one file of two printed: ERROR naming the rail",
     "raw": {"rail_netdev": NETDEVS, "roce_dcqcn": both(ECN_ON, fixture("linux_sysfs_roce_ecn_enable", "cut_one_file"))},
     "expect": RAILS2, "status": "ERROR", "contains": ["DCQCN switches not read on mlx5_1 (ens2np0)", "expected 2 lines"]},
    {"check": "roce_dcqcn", "name": "no netdev on mlx5_1 (rail_netdev.py's exit 2): ERROR, never PASS",
     "raw": {"rail_netdev": {"mlx5_0": "ens1np0\n"}, "roce_dcqcn": {"mlx5_0": ECN_ON}},
     "facts": {"roce_dcqcn": {"mlx5_1": failed(WRAP + "cat ...", NO_NETDEV)}},
     "expect": RAILS2, "status": "ERROR", "contains": ["mlx5_1: exited 2: rail_netdev"]},
    {"check": "roce_dcqcn", "name": "InfiniBand rails: not applicable",
     "raw": {"roce_dcqcn": both(ECN_ON)}, "expect": IB, "status": "SKIP", "contains": ["not applicable"]},
    # --- roce_trust ------------------------------------------------------------------------------
    {"check": "roce_trust", "name": "trust dscp (a firmware-controlled port, real)",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW)}, "expect": RAILS2, "status": "PASS", "contains": ["2 rails: trust dscp"]},
    {"check": "roce_trust", "name": "mlx5_1 trusts pcp (real capture after --trust pcp)",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW, QOS_PCP)}, "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_1 (ens2np0): trust state pcp, want dscp", CAUSE]},
    {"check": "roce_trust", "name": "mlnx_qos' own error instead of the report: ERROR",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW, QOS_ERROR)}, "expect": RAILS2, "status": "ERROR",
     "contains": ["mlnx_qos not read on mlx5_1 (ens2np0)", "Priority trust state is not supported"]},
    {"check": "roce_trust", "name": "mlnx_qos missing on every rail: no data",
     "raw": {"rail_netdev": NETDEVS},
     "facts": {"roce_qos": both(failed(WRAP + "mlnx_qos -i '{netdev}'", "exited 127: rail_netdev: mlnx_qos: No such file or directory"))},
     "expect": RAILS2, "status": "ERROR", "contains": ["mlnx_qos: No such file or directory"]},
    # --- roce_pfc --------------------------------------------------------------------------------
    {"check": "roce_pfc", "name": "PFC on 3 alone, tc 3 ETS 50%, buffer 1 of 130944 bytes (real)",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW)}, "expect": RAILS2, "status": "PASS",
     "contains": ["PFC on 3, tc 3 ets 50%, buffer 130944 bytes"]},
    {"check": "roce_pfc", "name": "PFC on 3, every TC vendor, no buffer lines (att/netarbiter, real)",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_NETARBITER)}, "expect": RAILS2, "status": "PASS",
     "contains": ["PFC on 3, tc 3 vendor"]},
    {"check": "roce_pfc", "name": "PFC on priority 5 where 3 is planned (real capture)",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW, QOS_PFC5)}, "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_1 (ens2np0): PFC enabled on priority 5, want 3 alone", CAUSE]},
    {"check": "roce_pfc", "name": "the same capture with priority 5 planned: strict TC, buffer 220896",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_PFC5)}, "expect": dict(RAILS2, pyramid_roce_priority=5), "status": "PASS",
     "contains": ["PFC on 5, tc 5 strict, buffer 220896 bytes"]},
    {"check": "roce_pfc", "name": "PFC on four priorities (the OFED 4.2 page's example)",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_OFED42)}, "expect": RAILS2, "status": "FAIL",
     "contains": ["PFC enabled on priority 0,2,6,7, want 3 alone"]},
    {"check": "roce_pfc", "name": "RoCE's TC at ETS 0% (real capture edited)",
     "raw": {"rail_netdev": NETDEVS,
             # tc 0 takes the 50% tc 3 gave up: the driver refuses ETS bandwidths that do not add up to 100%
             "roce_qos": both(edited(edited(QOS_FW, "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%", "tc: 3 ratelimit: unlimited, tsa: ets, bw: 0%"),
                                     "tc: 0 ratelimit: unlimited, tsa: ets, bw: 50%", "tc: 0 ratelimit: unlimited, tsa: ets, bw: 100%"))},
     "expect": RAILS2, "status": "FAIL", "contains": ["priority 3 in tc 3 ets 0% (under 1%: starved"]},
    {"check": "roce_pfc", "name": "RoCE's priority on a receive buffer of 0 bytes (real capture edited)",
     "raw": {"rail_netdev": NETDEVS,
             "roce_qos": both(edited(QOS_FW, "buffer      0   0   0   1", "buffer      0   0   0   2"))},
     "expect": RAILS2, "status": "FAIL", "contains": ["priority 3 on receive buffer 2 of 0 bytes"]},
    {"check": "roce_pfc", "name": "a report cut inside the TCs: ERROR, not a FAIL about the NIC",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW, QOS_CUT)}, "expect": RAILS2, "status": "ERROR",
     "contains": ["mlnx_qos not read on mlx5_1 (ens2np0)", "cut short"]},
    # --- roce_dscp -------------------------------------------------------------------------------
    {"check": "roce_dscp", "name": "Global tclass=106 (DSCP 26) and DSCP 26 -> priority 3 (real)",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(TCLASS_106), "roce_qos": both(QOS_FW)}, "expect": RAILS2,
     "status": "PASS", "contains": ["2 rails: DSCP 26 -> priority 3 (tc/1/traffic_class 106)"]},
    {"check": "roce_dscp", "name": "no global class and no NCCL_IB_TC: DSCP 0",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(TCLASS_106, TCLASS_UNSET), "roce_qos": both(QOS_FW)}, "expect": RAILS2,
     "status": "FAIL", "contains": ["mlx5_1 (ens2np0): marks DSCP 0 (no global traffic class and no NCCL_IB_TC), want 26", CAUSE]},
    {"check": "roce_dscp", "name": "no global class, NCCL_IB_TC 106 in the NCCL environment",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(TCLASS_UNSET), "roce_qos": both(QOS_FW)},
     "expect": dict(RAILS2, pyramid_nccl_env={"NCCL_DEBUG": "INFO", "NCCL_IB_TC": "106", "NCCL_IB_GID_INDEX": "3"}), "status": "PASS",
     "contains": ["DSCP 26 -> priority 3 (NCCL_IB_TC 106)"]},
    {"check": "roce_dscp", "name": "an inbox driver without tc/ (missing file): NCCL_IB_TC decides",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW)},
     "facts": {"roce_traffic_class": both(failed("cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class",
                                                 "cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class: does not exist", "missing"))},
     "expect": dict(RAILS2, pyramid_nccl_env={"NCCL_DEBUG": "INFO", "NCCL_IB_TC": "106"}), "status": "PASS", "contains": ["DSCP 26 -> priority 3"]},
    {"check": "roce_dscp", "name": "DSCP 30 marked, dscp2prio moved it to priority 6 (real capture)",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(("linux_sysfs_ib_traffic_class", "Global tclass=122\n")),
             "roce_qos": both(QOS_SPLIT)},
     "expect": dict(RAILS2, pyramid_roce_dscp=30), "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): dscp2prio maps DSCP 30 to priority 6, want 3"]},
    {"check": "roce_dscp", "name": "the NIC trusts pcp: no DSCP mapped at all",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(TCLASS_106), "roce_qos": both(QOS_FW, QOS_PCP)}, "expect": RAILS2,
     "status": "FAIL", "contains": ["mlx5_1 (ens2np0): trust state pcp: the NIC maps no DSCP to a priority"]},
    {"check": "roce_dscp", "name": "a traffic class file that does not read as one: ERROR",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(TCLASS_106, fixture("linux_sysfs_ib_traffic_class", "bare_number")),
             "roce_qos": both(QOS_FW)},
     "expect": RAILS2, "status": "ERROR", "contains": ["the DSCP mapping not read on mlx5_1 (ens2np0)", "Global tclass=N"]},
    {"check": "roce_dscp", "name": "mlnx_qos cut short: ERROR",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(TCLASS_106), "roce_qos": both(QOS_FW, QOS_CUT)}, "expect": RAILS2,
     "status": "ERROR", "contains": ["the DSCP mapping not read on mlx5_1 (ens2np0)", "cut short"]},
    # --- rail_mtu --------------------------------------------------------------------------------
    {"check": "rail_mtu", "name": "MTU 9000 on both rails",
     "raw": {"rail_netdev": NETDEVS, "rail_mtu": both(fixture("linux_sysfs_net_mtu", "jumbo_9000"))}, "expect": RAILS2,
     "status": "PASS", "contains": ["2 rails: MTU 9000"]},
    {"check": "rail_mtu", "name": "mlx5_1 at 1500",
     "raw": {"rail_netdev": NETDEVS, "rail_mtu": both(fixture("linux_sysfs_net_mtu", "jumbo_9000"), fixture("linux_sysfs_net_mtu", "default_1500"))},
     "expect": RAILS2, "status": "FAIL", "contains": ["mlx5_1 (ens2np0): MTU 1500, want 9000", CAUSE]},
    {"check": "rail_mtu", "name": "a pod planned at 4200",
     "raw": {"rail_netdev": NETDEVS, "rail_mtu": both(("linux_sysfs_net_mtu", "4200\n"))}, "expect": dict(RAILS2, pyramid_rail_mtu=4200),
     "status": "PASS", "contains": ["MTU 4200"]},
    {"check": "rail_mtu", "name": "an error text where the MTU belongs: ERROR",
     "raw": {"rail_netdev": NETDEVS, "rail_mtu": both(fixture("linux_sysfs_net_mtu", "jumbo_9000"), fixture("linux_sysfs_net_mtu", "not_a_number"))},
     "expect": RAILS2, "status": "ERROR", "contains": ["the MTU not read on mlx5_1 (ens2np0)", "an MTU is a number of bytes"]},
    # --- roce_gid --------------------------------------------------------------------------------
    {"check": "roce_gid", "name": "GID 3 RoCE v2 on both rails",
     "raw": {"rail_netdev": NETDEVS, "roce_gid_type": both(fixture("linux_sysfs_gid_type", "roce_v2"))}, "expect": RAILS2,
     "status": "PASS", "contains": ["2 rails: GID 3 RoCE v2"]},
    {"check": "roce_gid", "name": "GID 3 a v1 entry on mlx5_1",
     "raw": {"rail_netdev": NETDEVS, "roce_gid_type": both(fixture("linux_sysfs_gid_type", "roce_v2"), fixture("linux_sysfs_gid_type", "roce_v1"))},
     "expect": RAILS2, "status": "FAIL", "contains": ["mlx5_1 (ens2np0): GID index 3 is IB/RoCE v1, want RoCE v2", CAUSE]},
    {"check": "roce_gid", "name": "GID 3 empty on mlx5_1 (the kernel's EINVAL)",
     "raw": {"rail_netdev": NETDEVS, "roce_gid_type": {"mlx5_0": fixture("linux_sysfs_gid_type", "roce_v2")}},
     "facts": {"roce_gid_type": {"mlx5_1": failed("cat /sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/3",
                                                  "cat /sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/3: Invalid argument", "unreadable")}},
     "expect": RAILS2, "status": "FAIL", "contains": ["mlx5_1 (ens2np0): GID index 3 is empty (EINVAL"]},
    {"check": "roce_gid", "name": "GID index 1 planned",
     "raw": {"rail_netdev": NETDEVS, "roce_gid_type": both(fixture("linux_sysfs_gid_type", "roce_v2"))},
     "expect": dict(RAILS2, pyramid_rdma_gid_index=1), "status": "PASS", "contains": ["GID 1 RoCE v2"]},
    {"check": "roce_gid", "name": "a word the kernel never prints: ERROR",
     "raw": {"rail_netdev": NETDEVS, "roce_gid_type": both(fixture("linux_sysfs_gid_type", "other_word"))}, "expect": RAILS2,
     "status": "ERROR", "contains": ["the GID type not read on mlx5_0 (ens1np0)"]},
    # --- nic_counters ----------------------------------------------------------------------------
    {"check": "nic_counters", "name": "mlx5 counters and DCQCN counters read on both rails",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": both(STATS), "rdma_cc_counters": both(CC_IDLE)}, "expect": RAILS2,
     "status": "PASS", "contains": ["2 rails: counters read", "rx_prio3_pause 0", "rp_cnp_handled 0"]},
    {"check": "nic_counters", "name": "no per-priority pause counters listed: a cut list or another driver, an ERROR",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": both(STATS, without(STATS, "rx_prio3_pause", "tx_prio3_pause")),
             "rdma_cc_counters": both(CC_IDLE)},
     "expect": RAILS2, "status": "ERROR",
     "contains": ["mlx5_1 (ens2np0): ethtool -S lists no rx_prio3_pause, tx_prio3_pause (not mlx5_core's counters, or the list was cut)"]},
    {"check": "nic_counters", "name": "no DCQCN hw_counters on mlx5_0",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": both(STATS), "rdma_cc_counters": {"mlx5_1": CC_IDLE}},
     "facts": {"rdma_cc_counters": {"mlx5_0": failed("cat /sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent ...",
                                                     "exited 1: cat: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent: "
                                                     "No such file or directory")}},
     "expect": RAILS2, "status": "FAIL", "contains": ["mlx5_0 (ens1np0): no DCQCN hw_counters", CAUSE]},
    {"check": "nic_counters", "name": "ethtool -S filtered (no header, a real grep): ERROR",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": both(STATS, fixture("linux_ethtool_stats", "grep_without_header_real")),
             "rdma_cc_counters": both(CC_IDLE)},
     "expect": RAILS2, "status": "ERROR", "contains": ["NIC counters not read on mlx5_1 (ens2np0)", "NIC statistics"]},
    {"check": "nic_counters", "name": "hw_counters cut short: ERROR",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": both(STATS),
             "rdma_cc_counters": both(CC_IDLE, fixture("linux_sysfs_rdma_cc_counters", "cut_two_files"))},
     "expect": RAILS2, "status": "ERROR", "contains": ["NIC counters not read on mlx5_1 (ens2np0): hw_counters"]},
]
