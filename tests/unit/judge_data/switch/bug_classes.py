"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/switch.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.bug_classes import NOT_COLLECTED
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch import layer1_3_switch as switch
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch import layer3_pfc_enabled as pfc_state
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch import layer3_pfc_enabled_eos as pfc_eos

NVUE_OPTIC = fixture("cumulus_nv_show_interface_transceiver", "real_docs_qsfp28_4_lanes")  # lanes -0.64 to -0.76 dBm


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
    # class 2: the switch must be lossless on every planned priority: [3, 4] against ports lossless on 3. A judge
    # asking whether any planned priority is lossless passes it.
    {"check": "pfc_enabled", "name": "[2] Cumulus: priorities 3 and 4 planned, every port lossless on 3 alone",
     "raw": {"sw_pfc_state": pfc_state.nvue()}, "expect": dict(pfc_state.CUMULUS, pyramid_pfc_priorities=[3, 4]), "status": "FAIL",
     "contains": ["swp1: PFC off on priority 4 (lossless priorities: 3)", "swp49: PFC off on priority 4 (lossless priorities: 3)", CAUSE]},
    {"check": "pfc_enabled", "name": "[2] EOS: priorities 3 and 5 planned, the running-config makes 5 alone no-drop",
     "raw": {"sw_pfc_state": pfc_eos.stanzas("Ethernet2")}, "expect": pfc_eos.eos("Ethernet2", priorities=(3, 5)), "status": "FAIL",
     "contains": ["Ethernet2: priority 3 not configured no-drop in the running-config (no-drop priorities: 5)"]},
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
]

# === class 3: a list element whose data is missing, skipped instead of reported ==========================
DATA += [
    # class 3: NX-OS reads each planned port's optics apart: Ethernet1/3's read collected nothing. Not "no optic" about
    # a port nobody read, not a PASS over Ethernet1/1's good lanes.
    {"check": "optics_rx", "name": "[3] NX-OS: Ethernet1/3's per-port read collected nothing: ERROR naming it",
     "raw": {"sw_optics": switch.per_port("cisco_nxos_show_interface_transceiver_details", "healthy_leaf", ["Ethernet1/1"])},
     "facts": {"sw_optics": {"Ethernet1/3": NOT_COLLECTED}},
     "expect": dict(switch.NXOS, pyramid_switch_ports=[switch.NXOS_PLAN[0], switch.NXOS_PLAN[2]]), "status": "ERROR",
     "contains": ["no optics readings: Ethernet1/3: no output was collected"]},
]

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
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
]

# === class 5: two faults, both named; a FAIL that must name the value, the port or the rail ===============
DATA += [
    # class 5: one spine Idle, the other Established with too few prefixes: both named, the session's cause first
    {"check": "bgp_sessions", "name": "[5] spine-01 Idle, spine-02 short of prefixes: both named",
     "facts": {"sw_bgp": switch.bgp(prefixes=2, **{"10_200_0_0": {"state": "Idle", "prefixes_received": None}})},
     "expect": dict(switch.LEAF, pyramid_bgp_neighbors=switch.SPINES, pyramid_bgp_min_prefixes=3), "status": "FAIL",
     "contains": ["10.200.0.0 (spine-01) Idle; 10.200.8.0 (spine-02) Established, 2 prefixes received", CAUSE]},
    # class 5: a dim lane on one port, an overloaded lane on another: both named, each with its value
    {"check": "optics_rx", "name": "[5] Cumulus: swp1 lane 2 dim, swp2 lane 2 overloaded: both named",
     "raw": {"sw_optics": {"swp1": optic("0.1991 mW / -7.01 dBm"), "swp2": optic("2.5177 mW / 4.01 dBm")}},
     "expect": dict(CUMULUS_ONE, pyramid_switch_ports=switch.plan(("swp1", "node-001", "ens1np0"), ("swp2", "node-002", "ens1np0"))),
     "status": "FAIL", "contains": ["swp1: lane 2 -7.01 dBm; swp2: lane 2 4.01 dBm"]},
    # class 5: PFC off on one port, the planned priority missing on another: both named
    {"check": "pfc_enabled", "name": "[5] Cumulus: PFC off on swp2, lossless on 4 alone on swp49: both named",
     "raw": {"sw_pfc_state": pfc_state.nvue(swp2="pfc_off", swp49="pfc_on_priority_4")}, "expect": pfc_state.CUMULUS, "status": "FAIL",
     "contains": ["swp2: PFC off on priority 3 (lossless priorities: none); swp49: PFC off on priority 3 (lossless priorities: 4)"]},
]
