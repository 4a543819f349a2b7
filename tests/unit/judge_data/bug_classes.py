"""Rows for the five classes of wrong judge that an independent probe found no test could tell from the right
code (issue 33), added wherever the class applies, not only where it was seen:

1. a fault in one direction of a pair only: a rail slow when it sends and fine when it receives, DCQCN's
   reaction point off while its notification point is on, the first of two nodes (or senders) at fault where
   the tables had the last. A judge that reads one direction (one end, one side) passes them.
2. a set check done as a membership or overlap check: a priority list that holds the right priority plus
   another, a DSCP map where the RoCE priority holds DSCPs but not the marked one, eight NICs used that are not
   the eight rails, BGP neighbors Established that are not the planned ones. A judge that asks "is the right
   one in it" (or "are there as many") passes them.
3. a list element whose data is missing skipped instead of reported: one rail's (GPU's, sender's) output not
   collected, or not in the read. A judge that iterates what was read instead of what was declared passes
   them; each must be an ERROR (or a FAIL) naming the element, never a PASS over the others.
4. a threshold tested only far from its boundary: each bound at exactly its value and one step beyond, on
   the side the catalog's rule puts it (>= 350 Gb/s, within 10%, <= 8 replays a minute, CV < 5%: exclusive).
   A judge with < for <= (or a bound off by one unit) passes rows far from the boundary.
5. a rule whose only guard is the wording of a verdict that fails for another reason: two faults on one
   device, both of which must be named, or a FAIL whose finding must name the value, the port or the rail.
   A judge that fails on the first finding (or on a cause word) alone passes rows that assert the status only.

Every row is run by test_judge_data.py as the other tables are (its keys are explained there). Raw outputs are
the real captures of tests/unit/parsers (edited by hand in one value where a row needs it, as the other tables
do: edited()), or facts in the shape those parsers give, built by the other tables' helpers. Each row's comment
says its class and what a wrong judge of that class would do with it. Layer 4's direction (class 1 on the rail
mesh) is placed across runs by run/rail_rounds.py, not by one run's judge: it is tested in test_rail_rounds.py.
"""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data import (
    layer0, layer0_gpu_health as gpu, layer1_3_switch as switch, layer1_gpu_soak as soak, layer3_incast as incast,
    layer3_pfc_enabled as pfc_state, layer3_pfc_enabled_eos as pfc_eos, layer3_roce_agree as agree,
    layer3_roce_host as roce, layer5_6 as workload, layer7_telemetry as telemetry)
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.layer0 import CAUSE, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.layer3_roce_host import NETDEVS, RAILS2, both, edited

# what the engine makes of a foreach item nobody collected (run/engine.parse_one of nothing)
NOT_COLLECTED = SourceFailure("(not collected)", "no output was collected")


def one_only(value, rail="mlx5_0"):
    """The raw output of one rail alone: the other declared rail's output is not in the read at all."""
    return {rail: value}


# --- real outputs, each edited in one value ----------------------------------------------------------------
QOS_FW = roce.QOS_FW  # trust dscp, PFC on 3 alone, tc 3 ets 50%, buffer 1 of 130944 bytes
PFC_LINE = "enabled     0   0   0   1   0   0   0   0"
QOS_PFC_3_4 = edited(QOS_FW, PFC_LINE, "enabled     0   0   0   1   1   0   0   0")  # mlnx_qos --pfc 0,0,0,1,1,0,0,0
# tc 0 takes the 50% tc 3 gave up: the driver refuses ETS bandwidths that do not add up to 100%
QOS_PFC_3_4_ETS_0 = edited(edited(QOS_PFC_3_4, "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%", "tc: 3 ratelimit: unlimited, tsa: ets, bw: 0%"),
                           "tc: 0 ratelimit: unlimited, tsa: ets, bw: 50%", "tc: 0 ratelimit: unlimited, tsa: ets, bw: 100%")
# mlnx_qos --dscp2prio set,26,0: DSCP 26 moved to priority 0, priority 3 still holds 24, 25 and 27 to 31
QOS_DSCP26_TO_0 = edited(edited(QOS_FW, "prio:0 dscp:07,06,05,04,03,02,01,00,", "prio:0 dscp:26,07,06,05,04,03,02,01,00,"),
                         "prio:3 dscp:31,30,29,28,27,26,25,24,", "prio:3 dscp:31,30,29,28,27,25,24,")
ECN_RP_OFF = edited(roce.ECN_ON, "1\n1\n", "0\n1\n")  # roce_rp/enable/3 = 0, roce_np/enable/3 = 1
BW_363 = fixture("perftest_ib_write_bw", "client_gbits_roce_rdmacm_D10_q3_bnxt_363G")  # BW average 363.47 Gb/s
PING_54US = fixture("linux_ping", "I_srcaddr_success")  # 1/1 replies, rtt 0.054 ms
FPING_20 = fixture("linux_fping", "C5_q_one_lost_manpage")  # 4/5 replies, 20% loss, rtt avg 48.675 ms
NVUE_OPTIC = fixture("cumulus_nv_show_interface_transceiver", "real_docs_qsfp28_4_lanes")  # lanes -0.64 to -0.76 dBm
MEMINFO_DGX = fixture("linux_proc_meminfo", "dgx_1g_pages")  # HugePages_Total 64 x 1 GiB


def ping_rtt(ms):
    """The real one-reply ping with its round trip set to ``ms`` (the reply line and the summary say the same)."""
    text = PING_54US[1].replace("time=0.054 ms", "time=%s ms" % ms)
    return PING_54US[0], text.replace("= 0.054/0.054/0.054/0.000 ms", "= %s/%s/%s/0.000 ms" % (ms, ms, ms))


def write_bw(gbps):
    """The real 363 Gb/s client output with its BW average set to ``gbps``."""
    return edited(BW_363, "363.47", gbps)


def gdr(host_gbps):
    """The real H200 dma-buf GPUDirect run (140.4 Gb/s from GPU 0) beside a host-memory run of ``host_gbps``."""
    facts = parsing.parse(*fixture("perftest_ib_write_bw", "client_gbits_cuda_dmabuf_a_roce_h200"))
    return {"ib_write_bw_gdr_client": dict(facts, host_memory={"gbps": host_gbps, "said": None})}


def optic(lane2):
    """The real NVUE QSFP28 capture with lane 2's RX power set to ``lane2`` ("mW / dBm", as NVUE prints it)."""
    return edited(NVUE_OPTIC, "ch-2-rx-power          : 0.8385 mW / -0.76 dBm", "ch-2-rx-power          : %s" % lane2)


CUMULUS_ONE = {"pyramid_switch_os": "cumulus", "pyramid_switch_ports": switch.plan(("swp1", "node-001", "ens1np0"))}
SONIC_PFC = fixture("sonic_show_pfc_counters", "healthy_zero")  # an Rx table, then a Tx table, every count 0
SONIC_ROW = "  0       0       0       0       0       0       0       0"  # a port's eight priorities, PFC0 to PFC7
SONIC_COUNTERS = fixture("sonic_show_interfaces_counters", "healthy")  # RX_ERR and TX_ERR 0 on every port


def sonic_pfc(rx=None, tx=None):
    """SONiC's real `show pfc counters` with one port's PFC3 raised in the Rx table (``rx``: port) and/or the Tx one."""
    parser, text = SONIC_PFC
    head, sep, tail = text.partition("   Port Tx")
    raised = "  0       0       0       5       0       0       0       0"
    if rx:
        head = head.replace(rx + "     " + SONIC_ROW, rx + "     " + raised, 1)
    if tx:
        tail = tail.replace(tx + "     " + SONIC_ROW, tx + "     " + raised, 1)
    assert head + sep + tail != text
    return parser, head + sep + tail


def window(before, after, seconds=300):
    return {"before": before, "after": after, "seconds": seconds}


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
    # class 1: the first of two senders deaf to CNPs (the table had the last): a judge that reads one sender, or
    # the senders' sum, passes it
    {"check": "incast_ecn", "name": "[1] the first sender handles no CNP, the second does", "group": incast.GROUP,
     "facts": incast.case(600000, 120000, 0, 300000, (0, 150000)), "status": "FAIL",
     "contains": ["no CNP handled on node-033", "roce_rp/enable"]},
    # class 1 and 5: the leaf received pauses (RX) and sent none (TX) while nothing was marked: PFC moved, so the
    # cause is ECN's min_th, not "no congestion". A judge that reads PFC TX alone says no_load.
    {"check": "incast_ecn", "name": "[1] no mark, PFC received only (RX, no TX): min_th, not an idle port", "group": incast.GROUP,
     "facts": {"switch": {"leaf1-r0": {"before": incast.snap(), "after": dict(incast.snap(), pfc={"ports": {
         "Ethernet1/1": {"3": {"rx": 90000, "tx": 0}}, "Ethernet33/1": {"3": {"rx": 0, "tx": 0}}}})}},
         "nic": incast.case(*incast.HEALTHY)["nic"], "seconds": 30},
     "status": "FAIL", "contains": ["PFC TX 0", "PFC RX 90000", "min_th of the RoCE queue is too high"]},
    # class 1: of a pair, the second node used seven rails (the table had the first): a judge that reads the
    # first host's NET/IB line alone passes it
    {"check": "nccl_pairs", "name": "[1] the second node of the pair used 7 of 8 rails", "group": workload.PAIR,
     "facts": {"nccl_fabric": workload.nccl(hosts=workload.PAIR, nics={"node-002": workload.RAILS[:7]})},
     "expect": workload.EIGHT_TABLE, "status": "FAIL", "blamed": ["node-002"], "contains": ["node-002 used 7 of 8 rails"]},
    # class 1: GPUDirect off on the first node of the pair (the table had the second)
    {"check": "nccl_pairs", "name": "[1] GDRDMA off on the first node of the pair", "group": workload.PAIR,
     "facts": {"nccl_fabric": workload.nccl(hosts=workload.PAIR, gdr={"node-001": False})},
     "expect": workload.EIGHT_TABLE, "status": "FAIL", "blamed": ["node-001"], "contains": ["node-001: network channels without GDRDMA"]},
    # class 1: a hang where the first node's ranks never reported (the table had the second's)
    {"check": "nccl_pairs", "name": "[1] hung, node-001 silent", "group": workload.PAIR,
     "facts": {"nccl_fabric": workload.hang([(8, "node-002")])}, "status": "FAIL",
     "contains": ["nodes whose ranks never reported: node-001", "NCCL hang across nodes"]},
    # class 1: the slow rank on the first node (the table had the last)
    {"check": "training_pod", "name": "[1] slow rank on node-001", "group": list(workload.HOSTS), "status": "FAIL", "blamed": ["node-001"],
     "facts": workload.fabric_train({0: [120.0] * 10, 1: workload.STEADY, 2: workload.STEADY}, workload.HOSTS),
     "contains": ["slow rank: rank 0 (node-001) step median 120.0 ms"]},
    # class 1: the leaf sent pauses on priority 3 of Ethernet8 (Tx table) and received none: a judge that reads the
    # Rx table alone (pauses received) passes it
    {"check": "pfc_idle", "name": "[1] SONiC: pauses sent on Ethernet8 priority 3, none received",
     "raw": {"sw_pfc": window(SONIC_PFC, sonic_pfc(tx="Ethernet8"))}, "expect": switch.SONIC, "status": "FAIL",
     "contains": ["Ethernet8: tx 3 +5", CAUSE]},
    # class 1 and 5: received on one port, sent on another: both named, each in its direction
    {"check": "pfc_idle", "name": "[1] SONiC: pauses received on Ethernet16, sent on Ethernet32: both named",
     "raw": {"sw_pfc": window(SONIC_PFC, sonic_pfc(rx="Ethernet16", tx="Ethernet32"))}, "expect": switch.SONIC, "status": "FAIL",
     "contains": ["Ethernet16: rx 3 +5; Ethernet32: tx 3 +5"]},
    # class 1: errors on the transmit side of a port only (TX_ERR), none received: a judge that reads RX_ERR (CRC,
    # input errors) alone passes it
    {"check": "link_errors", "name": "[1] SONiC: output errors on Ethernet16, no input error",
     "raw": {"sw_errors": window(SONIC_COUNTERS, edited(
         SONIC_COUNTERS, "Ethernet16        U  1,234,567  4.10 MB/s      0.01%         0         0         0  1,234,999  4.10 MB/s      0.01%         0",
         "Ethernet16        U  1,234,567  4.10 MB/s      0.01%         0         0         0  1,234,999  4.10 MB/s      0.01%         3"))},
     "expect": switch.SONIC, "status": "FAIL", "contains": ["Ethernet16: out_errors +3", CAUSE]},
    # class 1: LLDP at both ends of an uplink: the leaf's port is the planned one, the spine's end is patched into
    # another port of the right spine. A judge that matches the neighbor's system alone passes it.
    {"check": "cabling", "name": "[1] the uplink's far end on another port of the right spine",
     "raw": {"sw_lldp": edited(fixture("arista_eos_show_lldp_neighbors", "healthy"),
                               "Et33/1        spine-01                 Ethernet1/1", "Et33/1        spine-01                 Ethernet2/1")},
     "expect": switch.EOS, "status": "FAIL",
     "contains": ["Ethernet33/1: plan spine-01 Ethernet1/1, LLDP sees spine-01 Ethernet2/1", CAUSE]},
]

# === class 2: a set check done as a membership or overlap check =========================================
DATA += [
    # class 2: PFC on exactly the RoCE priority: on 3 and 4 holds 3. A judge asking "is 3 enabled" passes it.
    {"check": "roce_pfc", "name": "[2] PFC on priority 3 and 4 where 3 alone is planned",
     "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW, QOS_PFC_3_4)}, "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_1 (ens2np0): PFC enabled on priority 3,4, want 3 alone", CAUSE]},
    # class 2: every priority the NIC pauses must be lossless on its leaf port: the NIC's {3, 4} against the port's
    # {3}. A judge asking whether the sets overlap (3 in both) passes it.
    dict(agree.node(agree.leaf("cumulus", agree.SWP, {"swp1": agree.NVUE_3, "swp2": agree.NVUE_3}, agree.NVUE_MTU),
                    qos=both(QOS_FW, QOS_PFC_3_4)),
         check="roce_host_switch_agree", name="[2] the NIC pauses 3 and 4, its leaf port is lossless on 3 alone", expect=RAILS2,
         status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) PFC on priority 3,4; leaf1-r0 swp2 lossless priority 3", CAUSE]}),
    # class 2: the switch must be lossless on every planned priority: [3, 4] against ports lossless on 3. A judge
    # asking whether any planned priority is lossless passes it.
    {"check": "pfc_enabled", "name": "[2] Cumulus: priorities 3 and 4 planned, every port lossless on 3 alone",
     "raw": {"sw_pfc_state": pfc_state.nvue()}, "expect": dict(pfc_state.CUMULUS, pyramid_pfc_priorities=[3, 4]), "status": "FAIL",
     "contains": ["swp1: PFC off on priority 4 (lossless priorities: 3)", "swp49: PFC off on priority 4 (lossless priorities: 3)", CAUSE]},
    {"check": "pfc_enabled", "name": "[2] EOS: priorities 3 and 5 planned, the running-config makes 5 alone no-drop",
     "raw": {"sw_pfc_state": pfc_eos.stanzas("Ethernet2")}, "expect": pfc_eos.eos("Ethernet2", priorities=(3, 5)), "status": "FAIL",
     "contains": ["Ethernet2: priority 3 not configured no-drop in the running-config (no-drop priorities: 5)"]},
    # class 2: the marked DSCP must map to the RoCE priority: priority 3 still holds DSCPs (24, 25, 27-31), not 26.
    # A judge asking whether priority 3 is in the map (or holds any DSCP) passes it.
    {"check": "roce_dscp", "name": "[2] DSCP 26 moved to priority 0, priority 3 keeps its other DSCPs",
     "raw": {"rail_netdev": NETDEVS, "roce_traffic_class": both(roce.TCLASS_106), "roce_qos": both(QOS_FW, QOS_DSCP26_TO_0)},
     "expect": RAILS2, "status": "FAIL", "contains": ["mlx5_1 (ens2np0): dscp2prio maps DSCP 26 to priority 0, want 3", CAUSE]},
    # class 2: NCCL used eight NICs on each node, and the rails are eight, but one rail (mlx5_1) is not among them.
    # A judge counting the NICs, or asking whether the NICs used overlap the rails, passes it.
    {"check": "nccl_pairs", "name": "[2] eight NICs used, one of them not a declared rail",
     "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")}, "group": workload.PAIR,
     "expect": {"pyramid_rails": [rail if rail != "mlx5_11" else "mlx5_1" for rail in workload.DGX_RAILS]},
     "status": "FAIL", "blamed": workload.PAIR, "contains": ["node-001 used 7 of 8 rails", "node-002 used 7 of 8 rails",
                                                             "NCCL used fewer NICs than the rails"]},
    # class 2: eight CAs in ibstat, eight rails declared, not the same eight. A judge counting them passes it.
    {"check": "rails_present", "name": "[2] eight CAs, eight rails declared, mlx5_8 not among the CAs",
     "raw": {"ibstat": layer0.IBSTAT}, "expect": {"pyramid_rails": layer0.RAILS[:7] + ["mlx5_8"]}, "status": "FAIL",
     "contains": ["missing: mlx5_8", CAUSE]},
    # class 2: as many neighbors Established as planned, not the planned ones. A judge counting the Established
    # sessions passes it.
    # (FRR's summary closes with its total, so a neighbor it does not list is proven absent)
    {"check": "bgp_sessions", "name": "[2] FRR: two sessions Established, one of them not a planned neighbor",
     "raw": {"sw_bgp": fixture("frr_show_ip_bgp_summary", "twin_healthy")},
     "expect": dict(switch.CUMULUS, pyramid_bgp_neighbors=switch.spines("10.0.1.1", "10.0.1.5", remote_as=65001)), "status": "FAIL",
     "contains": ["10.0.1.5 (spine-02) not configured", "Expected BGP neighbor not configured on this switch"]},
    # class 2: a neighbor must be the planned system on the planned port: here one neighbor has the system, another
    # the port. A judge matching system and port over the neighbors separately passes it.
    {"check": "cabling", "name": "[2] one neighbor is the planned host, another shows the planned port",
     "facts": {"sw_lldp": switch.lldp(Ethernet1_1=[{"system": "node-001", "port": "ens2np0"}, {"system": "bmc-001", "port": "ens1np0"}])},
     "expect": switch.LEAF, "status": "FAIL", "contains": ["Ethernet1/1: plan node-001 ens1np0, LLDP sees node-001 ens2np0, bmc-001 ens1np0"]},
    # class 2: every reason of the list fails: the second alone active. A judge reading the list's first passes it.
    {"check": "gpu_clocks", "name": "[2] the second reason of the fail list active alone",
     "raw": {"gpu_query": gpu.edited(gpu.A100, "SW Power Cap                      : Not Active", "SW Power Cap                      : Active", gpu=4)},
     "expect": {"pyramid_gpu_clock_events_fail": ["hw_slowdown", "sw_power_cap"]}, "status": "FAIL",
     "contains": ["GPU 4 (0000:9f:00.0): sw_power_cap active"]},
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
    # class 3: the last rail's mlxconfig never queried while ibstat shows it: skipped, it would pass on seven
    {"check": "mlxconfig", "name": "[3] mlx5_7 present in ibstat, its mlxconfig not in the read: ERROR naming it",
     "raw": {"ibstat": layer0.IBSTAT, "mlxconfig": {rail: layer0.MLX_OK for rail in layer0.RAILS[:7]}}, "status": "ERROR",
     "contains": ["mlx5_7: not queried"]},
    # class 3: a rail /sys/class/infiniband lists whose PCIe link files were not collected
    {"check": "nic_pcie_link", "name": "[3] mlx5_1 listed, its PCIe link not collected: ERROR naming it",
     "raw": {"rdma_sysfs": gpu.LISTED2, "rail_pcie_link": one_only(gpu.SYSFS_GEN5)}, "facts": {"rail_pcie_link": {"mlx5_1": NOT_COLLECTED}},
     "expect": RAILS2, "status": "ERROR", "contains": ["PCIe link not read for mlx5_1: no output was collected"]},
    # class 3: GPU 6's uncorrectable ECC counts N/A (both volatile lines): the others' zeros prove nothing about it
    {"check": "gpu_ecc", "name": "[3] GPU 6's volatile uncorrectable counts N/A: ERROR naming it",
     "raw": {"gpu_query": gpu.edited(gpu.edited(gpu.A100, "SRAM Uncorrectable            : 0", "SRAM Uncorrectable            : N/A", gpu=6),
                                     "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : N/A", gpu=6)},
     "status": "ERROR", "contains": ["no uncorrectable error counts reported for GPU 6 (0000:c8:00.0)"]},
    # class 3: GPU 2's clock event reasons cut out of its block
    {"check": "gpu_clocks", "name": "[3] GPU 2 reports no clock event reason: ERROR naming it",
     "raw": {"gpu_query": gpu.edited(gpu.A100, "    Clocks Event Reasons\n", "    Clocks Event Reasons Removed\n", gpu=2)},
     "status": "ERROR", "contains": ["clock event reasons unread: GPU 2 (0000:62:00.0): hw_slowdown, hw_thermal_slowdown, "
                                     "hw_power_brake_slowdown, sw_thermal_slowdown not reported"]},
    # class 3: nvidia-smi nvlink -s lists GPUs 0-6 of 8: GPU 7's links are not "fine"
    {"check": "gpu_nvlink", "name": "[3] nvlink -s lists 7 of the 8 GPUs: ERROR naming GPU 7",
     "raw": {"gpu_nvlink": gpu.nvlink_status(gpus=7, links=12), "gpu_query": gpu.A100, "gpu_topology": gpu.TOPO_A100},
     "expect": gpu.A100_LINKS, "status": "ERROR", "contains": ["lists 7 of the 8 GPUs (no GPU 7 (0000:cd:00.0)): cut short"]},
    # class 3: nvlink -e holds GPU 0's counters, the query eight GPUs: the seven others are not error-free
    {"check": "gpu_nvlink_errors", "name": "[3] nvlink -e counters of GPU 0 alone on an 8-GPU node: ERROR naming the others",
     "raw": {"gpu_nvlink_errors": gpu.NVLINK_E_A100, "gpu_query": gpu.A100}, "expect": gpu.A100_LINKS, "status": "ERROR",
     "contains": ["GPU 1 (0000:35:00.0): counters of 0 of 12 links"]},
    # class 3: a sender's NIC counters not in the read at all: an ERROR naming it, not a PASS on the other sender
    {"check": "incast_ecn", "name": "[3] the first sender's NIC counters not in the read", "group": incast.GROUP,
     "facts": dict(incast.case(*incast.HEALTHY), nic={node: rails for node, rails in incast.case(*incast.HEALTHY)["nic"].items()
                                                      if node != "node-033"}),
     "status": "ERROR", "contains": ["node-033 rail 0: its hw_counters were not read before and after"]},
    # class 3: NX-OS reads each planned port's optics apart: Ethernet1/3's read collected nothing. Not "no optic" about
    # a port nobody read, not a PASS over Ethernet1/1's good lanes.
    {"check": "optics_rx", "name": "[3] NX-OS: Ethernet1/3's per-port read collected nothing: ERROR naming it",
     "raw": {"sw_optics": switch.per_port("cisco_nxos_show_interface_transceiver_details", "healthy_leaf", ["Ethernet1/1"])},
     "facts": {"sw_optics": {"Ethernet1/3": NOT_COLLECTED}},
     "expect": dict(switch.NXOS, pyramid_switch_ports=[switch.NXOS_PLAN[0], switch.NXOS_PLAN[2]]), "status": "ERROR",
     "contains": ["no optics readings: Ethernet1/3: no output was collected"]},
    # class 3: the host side of mlx5_1's link (its MTU) not in the read: not "agrees"
    dict(agree.node(agree.leaf("cumulus", agree.SWP, {"swp1": agree.NVUE_3, "swp2": agree.NVUE_3}, agree.NVUE_MTU), mtu=one_only("9000\n")),
         check="roce_host_switch_agree", name="[3] mlx5_1's MTU not in the read: ERROR naming it", expect=RAILS2,
         status={"node-001": "ERROR"}, contains={"node-001": ["mlx5_1 (ens2np0): MTU not read (not read)"]}),
]

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: rdma_write_bw: ib_write_bw average >= 350 Gb/s (inclusive). A judge with > fails 350.00; one
    # that rounds before comparing passes 349.99.
    {"check": "rdma_write_bw", "name": "[4] exactly 350.00 Gb/s passes", "raw": {"ib_write_bw_client": write_bw("350.00")},
     "status": "PASS", "contains": ["350.0 Gb/s at 65536 bytes", ">= 350 Gb/s"]},
    {"check": "rdma_write_bw", "name": "[4] 349.99 Gb/s fails", "raw": {"ib_write_bw_client": write_bw("349.99")},
     "status": "FAIL", "contains": [">= 350 Gb/s", CAUSE]},
    # class 4: GPUDirect within 10% of the host-memory run (inclusive): 140.4 of 156.0 is 90.0%, of 156.1 under it
    {"check": "rdma_gpudirect_bw", "name": "[4] GPUDirect at exactly 90% of the host-memory run passes", "facts": gdr(156.0),
     "status": "PASS", "contains": ["140.4 Gb/s from GPU 0, 90% of host memory's 156.0 Gb/s"]},
    {"check": "rdma_gpudirect_bw", "name": "[4] GPUDirect just under 90% of the host-memory run fails", "facts": gdr(156.1),
     "status": "FAIL", "contains": ["140.4 Gb/s from GPU 0, 90% of host memory's 156.1 Gb/s", CAUSE]},
    # class 4: rail_ping: rtt avg <= 1 ms (inclusive), loss <= the allowance (inclusive)
    {"check": "rail_ping", "name": "[4] rtt avg exactly 1 ms passes", "raw": {"rail_ping": ping_rtt("1.000")}, "status": "PASS",
     "contains": ["1/1 replies, 0% loss, rtt avg 1.000 ms", "rtt avg <= 1 ms"]},
    {"check": "rail_ping", "name": "[4] rtt avg 1.001 ms fails", "raw": {"rail_ping": ping_rtt("1.001")}, "status": "FAIL",
     "contains": ["rtt avg 1.001 ms", "rtt avg <= 1 ms"]},
    {"check": "rail_ping", "name": "[4] fping: 20% loss against an allowance of 20% passes", "raw": {"rail_ping": FPING_20},
     "expect": {"pyramid_ping_loss_max_percent": 20, "pyramid_ping_rtt_max_ms": 100}, "status": "PASS", "contains": ["4/5 replies, 20% loss"]},
    {"check": "rail_ping", "name": "[4] fping: 20% loss against an allowance of 19.9% fails", "raw": {"rail_ping": FPING_20},
     "expect": {"pyramid_ping_loss_max_percent": 19.9, "pyramid_ping_rtt_max_ms": 100}, "status": "FAIL",
     "contains": ["4/5 replies, 20% loss", "loss <= 19.9%"]},
    # class 4: optics_rx: every lane -7.0 to 4.0 dBm (the defaults, inclusive), on a real NVUE capture
    {"check": "optics_rx", "name": "[4] Cumulus: a lane at exactly -7.00 dBm passes", "raw": {"sw_optics": {"swp1": optic("0.1995 mW / -7.00 dBm")}},
     "expect": CUMULUS_ONE, "status": "PASS", "contains": ["1 ports, every lane in range", "every lane's RX power -7.0 to 4.0 dBm"]},
    # issue 40: one planned port cut after its first lane: no other port to compare with, the module's type says 4 lanes
    {"check": "optics_rx", "name": "[3] Cumulus: a QSFP28 read cut after lane 1, lane 2 dark: ERROR about the read",
     "raw": {"sw_optics": {"swp1": (NVUE_OPTIC[0], NVUE_OPTIC[1].split("ch-1-tx-power")[0])}},
     "expect": CUMULUS_ONE, "status": "ERROR", "contains": ["rx power of 1 lanes from a QSFP28 module, which has 4 (truncated?)"]},
    # issue 40: a lane whose mW and dBm figures are swapped (a negative mW) is damage, not a reading
    {"check": "optics_rx", "name": "[3] Cumulus: lane 2's mW and dBm swapped: ERROR about the read",
     "raw": {"sw_optics": {"swp1": optic("-0.76 mW / 0.8385 dBm")}},
     "expect": CUMULUS_ONE, "status": "ERROR", "contains": ["ch-2-rx-power: '-0.76 mW / 0.8385 dBm' is not 'N mW / N dBm'"]},
    {"check": "optics_rx", "name": "[4] Cumulus: a lane at -7.01 dBm fails", "raw": {"sw_optics": {"swp1": optic("0.1991 mW / -7.01 dBm")}},
     "expect": CUMULUS_ONE, "status": "FAIL", "contains": ["swp1: lane 2 -7.01 dBm", CAUSE]},
    {"check": "optics_rx", "name": "[4] Cumulus: a lane at exactly 4.00 dBm passes", "raw": {"sw_optics": {"swp1": optic("2.5119 mW / 4.00 dBm")}},
     "expect": CUMULUS_ONE, "status": "PASS"},
    {"check": "optics_rx", "name": "[4] Cumulus: a lane at 4.01 dBm fails", "raw": {"sw_optics": {"swp1": optic("2.5177 mW / 4.01 dBm")}},
     "expect": CUMULUS_ONE, "status": "FAIL", "contains": ["swp1: lane 2 4.01 dBm"]},
    # class 4: kernel_params: HugePages_Total exactly pyramid_hugepages_total, one either side fails (a real
    # meminfo edited): a judge with >= passes 65, one with <= passes 63
    {"check": "kernel_params", "name": "[4] real DGX meminfo with 63 of 64 hugepages",
     "raw": {"cmdline": fixture("linux_proc_cmdline", "dgx"), "meminfo": edited(MEMINFO_DGX, "HugePages_Total:      64", "HugePages_Total:      63")},
     "status": "FAIL", "contains": ["HugePages_Total 63, want 64"]},
    {"check": "kernel_params", "name": "[4] real DGX meminfo with 65 of 64 hugepages",
     "raw": {"cmdline": fixture("linux_proc_cmdline", "dgx"), "meminfo": edited(MEMINFO_DGX, "HugePages_Total:      64", "HugePages_Total:      65")},
     "status": "FAIL", "contains": ["HugePages_Total 65, want 64"]},
    # class 4: gpu_ecc at most N uncorrectable (inclusive): 2 within 2 passes (the table's), 3 fails
    {"check": "gpu_ecc", "name": "[4] three uncorrectable errors against an allowance of 2",
     "raw": {"gpu_query": gpu.edited(gpu.A100, "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : 3", gpu=3)},
     "expect": {"pyramid_gpu_ecc_uncorrectable_max": 2}, "status": "FAIL", "contains": ["GPU 3 (0000:67:00.0): 3 uncorrectable volatile"]},
    # class 4: gpu_nvlink_errors: 117 CRC and 2 recoveries on link 5 (the real capture); the table has them passing at
    # 117 / 2 allowed: one under each allowance fails
    {"check": "gpu_nvlink_errors", "name": "[4] 117 CRC errors against an allowance of 116",
     "raw": {"gpu_nvlink_errors": gpu.NVLINK_E_LINK5, "gpu_query": gpu.H100},
     "expect": dict(gpu.A100_LINKS, pyramid_gpu_nvlink_crc_max=116, pyramid_gpu_nvlink_recovery_max=2), "status": "FAIL",
     "contains": ["GPU 0 (0000:00:06.0): link 5 117 CRC"]},
    {"check": "gpu_nvlink_errors", "name": "[4] 2 recoveries against an allowance of 1",
     "raw": {"gpu_nvlink_errors": gpu.NVLINK_E_LINK5, "gpu_query": gpu.H100},
     "expect": dict(gpu.A100_LINKS, pyramid_gpu_nvlink_crc_max=117, pyramid_gpu_nvlink_recovery_max=1), "status": "FAIL",
     "contains": ["GPU 0 (0000:00:06.0): link 5 2 recovery"]},
    # class 4: PCIe replays over the soak: at most 8 a minute (inclusive): +40 in 300 s is 8.0, +41 is 8.2
    {"check": "gpu_pcie_replays_soak", "name": "[4] +40 replays in 300 s (exactly 8 a minute) passes",
     "raw": {"gpu_query_soak": soak.window(gpu.A100, gpu.replays(40, gpu=5))}, "status": "PASS", "contains": ["8 GPUs: 40 PCIe replays in 300s"]},
    {"check": "gpu_pcie_replays_soak", "name": "[4] +41 replays in 300 s (8.2 a minute) fails",
     "raw": {"gpu_query_soak": soak.window(gpu.A100, gpu.replays(41, gpu=5))}, "status": "FAIL",
     "contains": ["GPU 5 (0000:a5:00.0): +41 PCIe replays in 300s (8.2 a minute)"]},
    # class 4: NVLink CRC over the soak: at most 100 a second (inclusive): +30000 in 300 s is 100, +30001 over
    {"check": "gpu_nvlink_errors_soak", "name": "[4] CRC +30000 in 300 s (exactly 100 a second) passes",
     "raw": {"gpu_nvlink_errors_soak": soak.window(gpu.NVLINK_E_A100, soak.nvlink_e((0, 30000))), "gpu_query_soak": soak.QUERY_GPU0},
     "expect": gpu.A100_LINKS, "status": "PASS"},
    {"check": "gpu_nvlink_errors_soak", "name": "[4] CRC +30001 in 300 s fails",
     "raw": {"gpu_nvlink_errors_soak": soak.window(gpu.NVLINK_E_A100, soak.nvlink_e((0, 30001))), "gpu_query_soak": soak.QUERY_GPU0},
     "expect": gpu.A100_LINKS, "status": "FAIL", "contains": ["GPU 0 (0000:2f:00.0) link 5: +30001 CRC in 300s"]},
    {"check": "gpu_nvlink_errors_soak", "name": "[4] one recovery within an allowance of 1 passes",
     "raw": {"gpu_nvlink_errors_soak": soak.window(gpu.NVLINK_E_A100, soak.nvlink_e((1, 0))), "gpu_query_soak": soak.QUERY_GPU0},
     "expect": dict(gpu.A100_LINKS, pyramid_gpu_nvlink_recoveries_soak_max=1), "status": "PASS"},
    {"check": "gpu_nvlink_errors_soak", "name": "[4] two recoveries against an allowance of 1 fail",
     "raw": {"gpu_nvlink_errors_soak": soak.window(gpu.NVLINK_E_A100, soak.nvlink_e((2, 0))), "gpu_query_soak": soak.QUERY_GPU0},
     "expect": dict(gpu.A100_LINKS, pyramid_gpu_nvlink_recoveries_soak_max=1), "status": "FAIL",
     "contains": ["GPU 0 (0000:2f:00.0) link 5: +2 recovery in 300s"]},
    # class 4: roce_pfc: the RoCE TC's ETS share >= pyramid_roce_ets_min_percent (inclusive), on the real 50% TC
    {"check": "roce_pfc", "name": "[4] ETS 50% against a minimum of 50% passes", "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW)},
     "expect": dict(RAILS2, pyramid_roce_ets_min_percent=50), "status": "PASS", "contains": ["PFC on 3, tc 3 ets 50%"]},
    {"check": "roce_pfc", "name": "[4] ETS 50% against a minimum of 51% fails", "raw": {"rail_netdev": NETDEVS, "roce_qos": both(QOS_FW)},
     "expect": dict(RAILS2, pyramid_roce_ets_min_percent=51), "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): priority 3 in tc 3 ets 50% (under 51%: starved"]},
    # class 4: port_mtu: the host port's MTU >= the rails' (inclusive), on SONiC's real 9100 port
    {"check": "port_mtu", "name": "[4] SONiC: rails at 9100 on a 9100 port pass", "expect": dict(agree.SONIC_PLAN, pyramid_rail_mtu=9100),
     "raw": {"sw_port_mtu": fixture("sonic_show_interfaces_status_mtu", "intfutil_mixed_real")}, "status": "PASS",
     "contains": ["1 host port at MTU 9100"]},
    {"check": "port_mtu", "name": "[4] SONiC: rails at 9101 on a 9100 port fail", "expect": dict(agree.SONIC_PLAN, pyramid_rail_mtu=9101),
     "raw": {"sw_port_mtu": fixture("sonic_show_interfaces_status_mtu", "intfutil_mixed_real")}, "status": "FAIL",
     "contains": ["Ethernet0 MTU 9100 < 9101 (node-001 ens1np0)"]},
    # class 4: the host's MTU no larger than its leaf port's: 9001 over NVUE's 9000 (the table has 9000 = 9000)
    dict(agree.node(agree.leaf("cumulus", agree.SWP, {"swp1": agree.NVUE_3, "swp2": agree.NVUE_3}, agree.NVUE_MTU), mtu=both("9000\n", "9001\n")),
         check="roce_host_switch_agree", name="[4] mlx5_1 at MTU 9001, its port at 9000", expect=RAILS2, status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_1 (ens2np0) MTU 9001; leaf1-r0 swp2 MTU 9000"]}),
    # class 4: the incast's bounds: discards <= max, ECN marks > min, PFC TX <= 50/s over the window (inclusive)
    {"check": "incast_ecn", "name": "[4] discards exactly at the allowance pass", "group": incast.GROUP,
     "facts": incast.case(600000, 300, 10, 300000, (150000, 150000)), "expect": {"pyramid_incast_discards_max": 10}, "status": "PASS",
     "contains": ["discards 10"]},
    {"check": "incast_ecn", "name": "[4] one discard over the allowance fails", "group": incast.GROUP,
     "facts": incast.case(600000, 300, 11, 300000, (150000, 150000)), "expect": {"pyramid_incast_discards_max": 10}, "status": "FAIL",
     "contains": ["discards 11", "headroom underprovisioned"]},
    {"check": "incast_ecn", "name": "[4] ECN marks equal to the minimum are not enough", "group": incast.GROUP,
     "facts": incast.case(1000, 300, 0, 300000, (150000, 150000)), "expect": {"pyramid_incast_ecn_marks_min": 1000}, "status": "FAIL",
     "contains": ["ECN-marked 1000", "min_th of the RoCE queue is too high"]},
    {"check": "incast_ecn", "name": "[4] one ECN mark over the minimum passes", "group": incast.GROUP,
     "facts": incast.case(1001, 300, 0, 300000, (150000, 150000)), "expect": {"pyramid_incast_ecn_marks_min": 1000}, "status": "PASS",
     "contains": ["ECN-marked 1001"]},
    {"check": "incast_ecn", "name": "[4] PFC TX at exactly 50 a second passes", "group": incast.GROUP,
     "facts": incast.case(600000, 1500, 0, 300000, (150000, 150000)), "status": "PASS", "contains": ["PFC TX 1500 (50.0/s over the last 30s)"]},
    {"check": "incast_ecn", "name": "[4] PFC TX just over 50 a second is a storm", "group": incast.GROUP,
     "facts": incast.case(600000, 1501, 0, 300000, (150000, 150000)), "status": "FAIL",
     "contains": ["PFC TX 1501 (50.0/s over the last 30s)", "PFC storm"]},
    # class 4: telemetry: one rail's newest sample exactly at the window passes, a second older fails (the per-rail
    # path: the table's boundary row is on every rail at once)
    {"check": "telemetry_signals", "name": "[4] one rail's newest sample exactly 120 s old passes", "expect": telemetry.NODE, "status": "PASS",
     "raw": telemetry.healthy(telemetry_rdma_throughput={"node_infiniband_port_data_received_bytes_total": telemetry.rails(old=("mlx5_6", 120))}),
     "contains": ["11 series selectors fresh for node-001"]},
    {"check": "telemetry_signals", "name": "[4] one rail's newest sample 121 s old fails", "expect": telemetry.NODE, "status": "FAIL",
     "raw": telemetry.healthy(telemetry_rdma_throughput={"node_infiniband_port_data_received_bytes_total": telemetry.rails(old=("mlx5_6", 121))}),
     "contains": ["per-rail RDMA throughput: stale node_infiniband_port_data_received_bytes_total (newest sample: mlx5_6 121s old)"]},
    # class 4: training_stable: at most 20% of a rank's steps slower than its median / 0.9 (inclusive): 3 of 15,
    # then 4 of 15
    {"check": "training_stable", "name": "[4] exactly 20% of the steps slow passes",
     "facts": workload.train([100.0] * 5 + [100.0] * 12 + [130.0] * 3), "status": "PASS", "contains": ["3 of 15 steps slower than the median / 0.90"]},
    {"check": "training_stable", "name": "[4] one slow step over 20% fails",
     "facts": workload.train([100.0] * 5 + [100.0] * 11 + [130.0] * 4), "status": "FAIL",
     "contains": ["too many slow steps", "4 of 15 steps slower than the median / 0.90"]},
    # class 4: the baseline's 10% (inclusive): 110.0 passes (the table's), 110.01 fails
    {"check": "training_stable", "name": "[4] baseline +10.01% fails", "facts": workload.train([110.01] * 10),
     "expect": {"pyramid_train_step_ms_baseline": 100.0}, "status": "FAIL", "contains": ["median step 110.0 ms", "slower than the baseline 100.0 ms"]},
]

FIVE = ["node-%03d" % index for index in range(1, 6)]

# === class 5: two faults, both named; a FAIL that must name the value, the port or the rail ===============
DATA += [
    # class 5: hugepages short and iommu=pt missing on one host: a judge that stops at the first problem names one
    {"check": "kernel_params", "name": "[5] 63 hugepages and no iommu=pt: both named",
     "raw": {"cmdline": fixture("linux_proc_cmdline", "no_iommu"), "meminfo": edited(MEMINFO_DGX, "HugePages_Total:      64", "HugePages_Total:      63")},
     "status": "FAIL", "contains": ["HugePages_Total 63, want 64; iommu=pt missing from /proc/cmdline", CAUSE]},
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
    # class 5: one spine Idle, the other Established with too few prefixes: both named, the session's cause first
    {"check": "bgp_sessions", "name": "[5] spine-01 Idle, spine-02 short of prefixes: both named",
     "facts": {"sw_bgp": switch.bgp(prefixes=2, **{"10_200_0_0": {"state": "Idle", "prefixes_received": None}})},
     "expect": dict(switch.LEAF, pyramid_bgp_neighbors=switch.SPINES, pyramid_bgp_min_prefixes=3), "status": "FAIL",
     "contains": ["10.200.0.0 (spine-01) Idle; 10.200.8.0 (spine-02) Established, 2 prefixes received", CAUSE]},
    # class 5: two slow ranks, on the first and the last node: both named and both nodes blamed (a judge that stops at
    # the first slow rank blames one)
    {"check": "training_pod", "name": "[5] slow ranks on node-001 and node-005: both blamed", "group": FIVE, "status": "FAIL",
     "blamed": ["node-001", "node-005"],
     "facts": workload.fabric_train({0: [120.0] * 10, 1: workload.STEADY, 2: workload.STEADY, 3: workload.STEADY, 4: [125.0] * 10}, FIVE),
     "contains": ["rank 0 (node-001) step median 120.0 ms", "rank 4 (node-005) step median 125.0 ms"]},
    # class 5: a dim lane on one port, an overloaded lane on another: both named, each with its value
    {"check": "optics_rx", "name": "[5] Cumulus: swp1 lane 2 dim, swp2 lane 2 overloaded: both named",
     "raw": {"sw_optics": {"swp1": optic("0.1991 mW / -7.01 dBm"), "swp2": optic("2.5177 mW / 4.01 dBm")}},
     "expect": dict(CUMULUS_ONE, pyramid_switch_ports=switch.plan(("swp1", "node-001", "ens1np0"), ("swp2", "node-002", "ens1np0"))),
     "status": "FAIL", "contains": ["swp1: lane 2 -7.01 dBm; swp2: lane 2 4.01 dBm"]},
    # class 5: nics_missing on one node and GPUDirect off on the other: both blamed, each for its own finding
    {"check": "nccl_pairs", "name": "[5] node-001 short of a rail, node-002 without GDRDMA: both blamed", "group": workload.PAIR,
     "facts": {"nccl_fabric": workload.nccl(hosts=workload.PAIR, nics={"node-001": workload.RAILS[:7]}, gdr={"node-002": False})},
     "expect": workload.EIGHT_TABLE, "status": "FAIL", "blamed": workload.PAIR,
     "contains": ["node-002: network channels without GDRDMA; node-001 used 7 of 8 rails", "GPUDirect RDMA off on this node"]},
    # class 5: ECC off on one GPU, uncorrectable errors on another: both named
    {"check": "gpu_ecc", "name": "[5] ECC disabled on GPU 5, an uncorrectable error on GPU 3: both named",
     "raw": {"gpu_query": gpu.edited(gpu.edited(gpu.A100, "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : 1", gpu=3),
                                     "Current                           : Enabled", "Current                           : Disabled", gpu=5)},
     "status": "FAIL", "contains": ["GPU 3 (0000:67:00.0): 1 uncorrectable volatile, 0 aggregate; GPU 5 (0000:a5:00.0): ECC Disabled"]},
    # class 5: Gen3 in P0 on GPU 0 and x8 on GPU 4: both named
    {"check": "gpu_pcie_link", "name": "[5] GPU 0 at Gen3 in P0, GPU 4 at x8: both named",
     "raw": {"gpu_query": gpu.edited(gpu.edited(gpu.A100, "Device Current            : 4", "Device Current            : 3", gpu=0),
                                     "Current                   : 16x", "Current                   : 8x", gpu=4)},
     "status": "FAIL", "contains": ["GPU 0 (0000:2f:00.0): Gen3 of Gen4 in P0; GPU 4 (0000:9f:00.0): x8 of x16", CAUSE]},
    # class 5: PFC off on one port, the planned priority missing on another: both named
    {"check": "pfc_enabled", "name": "[5] Cumulus: PFC off on swp2, lossless on 4 alone on swp49: both named",
     "raw": {"sw_pfc_state": pfc_state.nvue(swp2="pfc_off", swp49="pfc_on_priority_4")}, "expect": pfc_state.CUMULUS, "status": "FAIL",
     "contains": ["swp2: PFC off on priority 3 (lossless priorities: none); swp49: PFC off on priority 3 (lossless priorities: 4)"]},
    # class 5: mlx5_0's MTU over its port's and mlx5_1's PFC priority not lossless on its port: both named
    dict(agree.node(agree.leaf("cumulus", agree.SWP, {"swp1": agree.NVUE_3, "swp2": agree.NVUE_3}, agree.NVUE_MTU),
                    qos=both(QOS_FW, QOS_PFC_3_4), mtu=both("9001\n", "9000\n")),
         check="roce_host_switch_agree", name="[5] mlx5_0's MTU over its port's, mlx5_1 pausing a priority its port drops", expect=RAILS2,
         status={"node-001": "FAIL"},
         contains={"node-001": ["node-001 mlx5_0 (ens1np0) MTU 9001; leaf1-r0 swp1 MTU 9000",
                                "node-001 mlx5_1 (ens2np0) PFC on priority 3,4; leaf1-r0 swp2 lossless priority 3"]}),
    # class 5: no DCQCN hw_counters on mlx5_0 (a FAIL) beside a cut ethtool -S on mlx5_1 (an ERROR): the FAIL says both
    {"check": "nic_counters", "name": "[5] no hw_counters on mlx5_0, ethtool -S cut on mlx5_1: the FAIL names both",
     "raw": {"rail_netdev": NETDEVS, "nic_stats": both(roce.STATS, roce.without(roce.STATS, "rx_prio3_pause")),
             "rdma_cc_counters": one_only(roce.CC_IDLE, "mlx5_1")},
     "facts": {"rdma_cc_counters": {"mlx5_0": layer0.failed("cat /sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent ...",
                                                            "exited 1: cat: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent: "
                                                            "No such file or directory")}},
     "expect": RAILS2, "status": "FAIL",
     "contains": ["mlx5_0 (ens1np0): no DCQCN hw_counters", "not read: mlx5_1 (ens2np0): ethtool -S lists no rx_prio3_pause"]},
    # class 5: the loss is within its allowance, the round trip is not: the FAIL must come from the rtt's value. A judge
    # that fails any run with a lost reply (its only guard the loss wording) passes this row's status, not its words.
    {"check": "rail_ping", "name": "[5] fping: one of five lost within a 20% allowance, rtt over 10 ms: the rtt fails it",
     "raw": {"rail_ping": FPING_20}, "expect": {"pyramid_ping_loss_max_percent": 20, "pyramid_ping_rtt_max_ms": 10}, "status": "FAIL",
     "contains": ["4/5 replies, 20% loss, rtt avg 48.675 ms", "rtt avg <= 10 ms"]},
]

layer0.with_sysfs(DATA)
workload.as_asked(DATA)
