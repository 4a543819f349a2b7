"""pfc_enabled (issue 11, "PFC switched off passes"): PFC operational on every planned port, on every
lossless priority (pyramid_pfc_priorities), read from each platform's own report: NX-OS's Oper Mode,
SONiC's `show pfc priority` (PORT_QOS_MAP pfc_enable), NVUE's `nv show interface <port> qos roce status`
(per port). Off is a FAIL naming the port and the priority (seed 003: RoCE is lossy); a read that does
not show a planned port, or that cannot be read, is an ERROR about the read."""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import failed, fixture

PFC_OFF = "PFC not enabled end to end: RoCE is lossy"
SONIC_PFC = "sonic_show_pfc_priority"
NVUE_PFC = "cumulus_nv_show_interface_qos_roce_status_pfc"


def plan(*ports):
    return [{"port": port, "peer": "node-%03d" % (index + 1), "peer_port": "ens1np0", "role": "host"} for index, port in enumerate(ports)]


def nvue(**cases):
    """One `nv show interface <port> qos roce status` per planned port: the docs' lossless port unless cases says."""
    return {port: fixture(NVUE_PFC, cases.get(port, "roce_lossless_docs_real")) for port in ("swp1", "swp2", "swp49")}


SONIC = {"pyramid_switch_os": "sonic", "pyramid_switch_ports": plan("Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24")}
SONIC_REAL = {"pyramid_switch_os": "sonic", "pyramid_switch_ports": plan("Ethernet0", "Ethernet4")}
CUMULUS = {"pyramid_switch_os": "cumulus", "pyramid_switch_ports": plan("swp1", "swp2", "swp49")}

DATA = [
    # --- SONiC: show pfc priority ---
    {"check": "pfc_enabled", "name": "SONiC: lossless priorities 3,4 on every planned port",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "lossless_3_4_real")}, "expect": SONIC_REAL, "status": "PASS",
     "contains": ["2 ports, PFC operational on priority 3"]},
    {"check": "pfc_enabled", "name": "SONiC: N/A and empty pfc_enable are PFC off, priority 4 alone misses 3",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "pfc_off")}, "expect": SONIC, "status": "FAIL",
     "contains": ["Ethernet8: PFC off on priority 3 (lossless priorities: none)", "Ethernet16: PFC off on priority 3",
                  "Ethernet24: PFC off on priority 3 (lossless priorities: 4)", PFC_OFF]},
    {"check": "pfc_enabled", "name": "SONiC: the lossless priority is the inventory's",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "lossless_3_4_real")}, "expect": dict(SONIC_REAL, pyramid_pfc_priorities=[3, 5]),
     "status": "FAIL", "contains": ["Ethernet0: PFC off on priority 5 (lossless priorities: 3, 4)"]},
    {"check": "pfc_enabled", "name": "SONiC: a planned port the table does not list is not read",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "one_port_real")}, "expect": SONIC_REAL, "status": "ERROR",
     "contains": ["Ethernet4: PFC state not listed"]},
    {"check": "pfc_enabled", "name": "SONiC: an unlisted port beside a port with PFC off: the FAIL says both",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "pfc_off")}, "expect": dict(SONIC, pyramid_switch_ports=plan("Ethernet8", "Ethernet4")),
     "status": "FAIL", "contains": ["Ethernet8: PFC off on priority 3", "not read: Ethernet4: PFC state not listed"]},
    {"check": "pfc_enabled", "name": "SONiC: a damaged priority cell is an ERROR about the read",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "damaged_priority")}, "expect": SONIC_REAL, "status": "ERROR",
     "contains": ["not a list of priorities 0-7"]},
    {"check": "pfc_enabled", "name": "SONiC: a read cut inside its last row (3 of 3,4) is an ERROR about the read, not PFC off",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "cut_mid_row")}, "expect": dict(SONIC_REAL, pyramid_pfc_priorities=[3, 4]),
     "status": "ERROR", "contains": ["no blank line after the table", "cut short"]},
    {"check": "pfc_enabled", "name": "SONiC: a read cut at a row boundary (a port's row lost) is an ERROR about the read",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "cut_before_last_row")}, "expect": SONIC_REAL, "status": "ERROR",
     "contains": ["no blank line after the table"]},
    {"check": "pfc_enabled", "name": "SONiC: Cannot find interface",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "cannot_find_real")}, "expect": SONIC_REAL, "status": "ERROR"},

    # --- Cumulus: nv show interface <port> qos roce status, per port ---
    {"check": "pfc_enabled", "name": "Cumulus: RoCE lossless, PFC on switch-priority 3 on every port",
     "raw": {"sw_pfc_state": nvue()}, "expect": CUMULUS, "status": "PASS", "contains": ["3 ports, PFC operational on priority 3"]},
    {"check": "pfc_enabled", "name": "Cumulus: PFC rx/tx off on swp2, priority 4 on swp49",
     "raw": {"sw_pfc_state": nvue(swp2="pfc_off", swp49="pfc_on_priority_4")}, "expect": CUMULUS, "status": "FAIL",
     "contains": ["swp2: PFC off on priority 3 (lossless priorities: none)", "swp49: PFC off on priority 3 (lossless priorities: 4)", PFC_OFF]},
    {"check": "pfc_enabled", "name": "Cumulus: one port's read cut before the pfc block",
     "raw": {"sw_pfc_state": nvue(swp2="cut_before_pfc")}, "expect": CUMULUS, "status": "ERROR", "contains": ["swp2"]},
    {"check": "pfc_enabled", "name": "Cumulus: PFC off on swp1 and swp2 unread: the FAIL says both",
     "raw": {"sw_pfc_state": nvue(swp1="pfc_off", swp2="no_such_port")}, "expect": CUMULUS, "status": "FAIL",
     "contains": ["swp1: PFC off on priority 3", "not read: swp2"]},

    # --- facts rows: NX-OS (no priorities printed) and a switch that did not answer ---
    {"check": "pfc_enabled", "name": "switch unreachable",
     "facts": {"sw_pfc_state": failed("show pfc priority", "connection timed out", "timeout")}, "expect": SONIC_REAL,
     "status": "ERROR", "contains": ["connection timed out"]},
]
