"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/roce.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.bug_classes import NOT_COLLECTED, QOS_FW, QOS_PFC_3_4, one_only
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host import layer0
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce import layer3_roce_host as roce
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import NETDEVS, RAILS2, both, edited

# tc 0 takes the 50% tc 3 gave up: the driver refuses ETS bandwidths that do not add up to 100%
QOS_PFC_3_4_ETS_0 = edited(edited(QOS_PFC_3_4, "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%", "tc: 3 ratelimit: unlimited, tsa: ets, bw: 0%"),
                           "tc: 0 ratelimit: unlimited, tsa: ets, bw: 50%", "tc: 0 ratelimit: unlimited, tsa: ets, bw: 100%")
# mlnx_qos --dscp2prio set,26,0: DSCP 26 moved to priority 0, priority 3 still holds 24, 25 and 27 to 31
QOS_DSCP26_TO_0 = edited(edited(QOS_FW, "prio:0 dscp:07,06,05,04,03,02,01,00,", "prio:0 dscp:26,07,06,05,04,03,02,01,00,"),
                         "prio:3 dscp:31,30,29,28,27,26,25,24,", "prio:3 dscp:31,30,29,28,27,25,24,")
ECN_RP_OFF = edited(roce.ECN_ON, "1\n1\n", "0\n1\n")  # roce_rp/enable/3 = 0, roce_np/enable/3 = 1


DATA = []

# === class 1: a fault in one direction of a pair only ====================================================
DATA += [
    # class 1: DCQCN's reaction point (the sender's side) off, its notification point on. The tables had only the
    # notification point off: a judge that reads roce_np alone passes this rail.
    {"check": "roce_dcqcn", "name": "[1] the reaction point alone off on mlx5_0, its notification point on",
     "raw": {"rail_netdev": NETDEVS, "roce_dcqcn": both(ECN_RP_OFF, roce.ECN_ON)}, "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): roce_rp/enable/3 = 0", CAUSE]},
    # class 1 and 5: each rail off in another direction; a judge that reads one direction, or stops at the first
    # rail, names one of them
    {"check": "roce_dcqcn", "name": "[1] reaction point off on mlx5_0, notification point off on mlx5_1: both named",
     "raw": {"rail_netdev": NETDEVS, "roce_dcqcn": both(ECN_RP_OFF, fixture("linux_sysfs_roce_ecn_enable", "rp_on_np_off"))},
     "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): roce_rp/enable/3 = 0; mlx5_1 (ens2np0): roce_np/enable/3 = 0"]},
]

# === class 2: a set check done as a membership or overlap check =========================================
DATA += [
    # class 2: PFC on exactly the RoCE priority: on 3 and 4 holds 3. A judge asking "is 3 enabled" passes it.
    {"check": "roce_pfc", "name": "[2] PFC on priority 3 and 4 where 3 alone is planned",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW, QOS_PFC_3_4)}, "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_1 (ens2np0): PFC enabled on priority 3,4, want 3 alone", CAUSE]},
    # class 2: the marked DSCP must map to the RoCE priority: priority 3 still holds DSCPs (24, 25, 27-31), not 26.
    # A judge asking whether priority 3 is in the map (or holds any DSCP) passes it.
    {"check": "roce_dscp", "name": "[2] DSCP 26 moved to priority 0, priority 3 keeps its other DSCPs",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(roce.TCLASS_106), "roce_qos": both(QOS_FW, QOS_DSCP26_TO_0)},
     "expect": RAILS2, "status": "FAIL", "contains": ["mlx5_1 (ens2np0): dscp2prio maps DSCP 26 to priority 0, want 3", CAUSE]},
]

# === class 3: a list element whose data is missing, skipped instead of reported ==========================
DATA += [
    # class 3: mlx5_1's mlnx_qos not in the read at all. A judge iterating the rails read (not the rails declared)
    # passes mlx5_0 alone.
    {"check": "roce_trust", "name": "[3] mlx5_1's mlnx_qos not in the read: ERROR naming it",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": one_only(QOS_FW)}, "expect": RAILS2, "status": "ERROR",
     "contains": ["mlnx_qos not read on mlx5_1 (ens2np0): not read"]},
    # class 3: mlx5_1's mlnx_qos collected nothing (the engine's SourceFailure): skipped, it would pass
    {"check": "roce_pfc", "name": "[3] mlx5_1's mlnx_qos collected nothing: ERROR naming it",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": one_only(QOS_FW)}, "facts": {"roce_qos": {"mlx5_1": NOT_COLLECTED}},
     "expect": RAILS2, "status": "ERROR", "contains": ["mlnx_qos not read on mlx5_1 (ens2np0): no output was collected"]},
    {"check": "roce_dscp", "name": "[3] mlx5_1's mlnx_qos not in the read, its traffic class read: ERROR naming it",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(roce.TCLASS_106), "roce_qos": one_only(QOS_FW)}, "expect": RAILS2,
     "status": "ERROR", "contains": ["the DSCP mapping not read on mlx5_1 (ens2np0): not read"]},
    {"check": "roce_dcqcn", "name": "[3] mlx5_0's DCQCN switches not in the read: ERROR naming it",
     "raw": {"rail_netdev": NETDEVS, "roce_dcqcn": one_only(roce.ECN_ON, "mlx5_1")}, "expect": RAILS2, "status": "ERROR",
     "contains": ["DCQCN switches not read on mlx5_0 (ens1np0): not read"]},
    {"check": "rail_mtu", "name": "[3] mlx5_0's MTU not in the read: ERROR naming it",
     "raw": {"rail_netdev": NETDEVS, "rail_mtu": one_only(fixture("linux_sysfs_net_mtu", "jumbo_9000"), "mlx5_1")}, "expect": RAILS2,
     "status": "ERROR", "contains": ["the MTU not read on mlx5_0 (ens1np0): not read"]},
    # class 3: the GID type of mlx5_1 not read: not an empty GID entry (a FAIL), not a PASS
    {"check": "roce_gid", "name": "[3] mlx5_1's GID type not in the read: ERROR naming it",
     "raw": {"rail_netdev": NETDEVS, "roce_gid_type": one_only(fixture("linux_sysfs_gid_type", "roce_v2"))}, "expect": RAILS2,
     "status": "ERROR", "contains": ["the GID type not read on mlx5_1 (ens2np0): not read"]},
    # class 3: mlx5_1's ethtool -S, then mlx5_0's hw_counters, not in the read
    {"check": "nic_counters", "name": "[3] mlx5_1's ethtool -S not in the read: ERROR naming it",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": one_only(roce.STATS), "rdma_cc_counters": both(roce.CC_IDLE)}, "expect": RAILS2,
     "status": "ERROR", "contains": ["NIC counters not read on mlx5_1 (ens2np0): not read"]},
    {"check": "nic_counters", "name": "[3] mlx5_0's hw_counters not in the read: ERROR naming it, not a FAIL",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": both(roce.STATS), "rdma_cc_counters": one_only(roce.CC_IDLE, "mlx5_1")}, "expect": RAILS2,
     "status": "ERROR", "contains": ["NIC counters not read on mlx5_0 (ens1np0): hw_counters: not read"]},
]

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: roce_pfc: the RoCE TC's ETS share >= pyramid_roce_ets_min_percent (inclusive), on the real 50% TC
    {"check": "roce_pfc", "name": "[4] ETS 50% against a minimum of 50% passes", "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW)},
     "expect": dict(RAILS2, pyramid_roce_ets_min_percent=50), "status": "PASS", "contains": ["PFC on 3, tc 3 ets 50%"]},
    {"check": "roce_pfc", "name": "[4] ETS 50% against a minimum of 51% fails", "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW)},
     "expect": dict(RAILS2, pyramid_roce_ets_min_percent=51), "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): priority 3 in tc 3 ets 50% (under 51%: starved"]},
]

# === class 5: two faults, both named; a FAIL that must name the value, the port or the rail ===============
DATA += [
    # class 5: PFC on the wrong set and the RoCE TC starved on the same rail: both named
    {"check": "roce_pfc", "name": "[5] PFC on 3 and 4 and the RoCE TC at ETS 0% on mlx5_0: both named",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_PFC_3_4_ETS_0, QOS_FW)}, "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): PFC enabled on priority 3,4, want 3 alone; priority 3 in tc 3 ets 0% (under 1%"]},
    # class 5: DSCP 0 marked on mlx5_0 (no global class), trust pcp on mlx5_1: each rail's own finding named
    {"check": "roce_dscp", "name": "[5] mlx5_0 marks DSCP 0, mlx5_1 trusts pcp: both named",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(roce.TCLASS_UNSET, roce.TCLASS_106), "roce_qos": both(QOS_FW, roce.QOS_PCP)},
     "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): marks DSCP 0 (no global traffic class and no NCCL_IB_TC), want 26",
                  "mlx5_1 (ens2np0): trust state pcp: the NIC maps no DSCP to a priority"]},
    # class 5: no DCQCN hw_counters on mlx5_0 (a FAIL) beside a cut ethtool -S on mlx5_1 (an ERROR): the FAIL says both
    {"check": "nic_counters", "name": "[5] no hw_counters on mlx5_0, ethtool -S cut on mlx5_1: the FAIL names both",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": both(roce.STATS, roce.without(roce.STATS, "rx_prio3_pause")),
             "rdma_cc_counters": one_only(roce.CC_IDLE, "mlx5_1")},
     "facts": {"rdma_cc_counters": {"mlx5_0": layer0.failed("cat /sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent ...",
                                                            "exited 1: cat: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent: "
                                                            "No such file or directory")}},
     "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): no DCQCN hw_counters", "not read: mlx5_1 (ens2np0): ethtool -S lists no rx_prio3_pause"]},
]
