"""Switch states that real outputs print and the first parsers dropped (issue "Truth on real hosts"):
EOS BGP states with a qualifier (Estab(NotNegotiated): one neighbor is a FAIL naming it, the other
rows stand), NX-OS's state with its reason (Shut (Admin), issue 35: the reason was dropped) and NX-OS PFC
Oper Mode Off on a planned lossless port (RoCE is lossy: never a PASS)."""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

CAUSE = "{cause}"
PFC_OFF = "PFC not enabled end to end: RoCE is lossy"


def plan(*ports):
    return [{"port": port, "peer": "node-%03d" % (index + 1), "peer_port": "ens1np0", "role": "host"} for index, port in enumerate(ports)]


def window(parser, before, after):
    return {"before": fixture(parser, before), "after": fixture(parser, after), "seconds": 300}


EANTC = {"pyramid_switch_os": "eos", "pyramid_switch_ports": plan("Ethernet1"), "pyramid_bgp_min_prefixes": 1,
         "pyramid_bgp_neighbors": [{"address": "20.200.202.200", "name": "spine-01", "remote_as": 65000},
                                   {"address": "100.0.0.205", "name": "spine-02", "remote_as": 65205}]}
NXOS_PFC = "cisco_nxos_show_interface_priority-flow-control_detail"
NXOS_STATE = NXOS_PFC + "_state"
NXOS = {"pyramid_switch_os": "nxos", "pyramid_switch_ports": plan("Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4")}

DATA = [
    {"check": "bgp_sessions", "name": "EOS Estab(NotNegotiated) is a FAIL naming that neighbor",
     "raw": {"sw_bgp": fixture("arista_eos_show_ip_bgp_summary", "estab_not_negotiated_real")}, "expect": EANTC,
     "status": "FAIL", "contains": ["100.0.0.205 (spine-02) Established (NotNegotiated)"]},
    {"check": "bgp_sessions", "name": "EOS: the Established neighbor of the same table stands",
     "raw": {"sw_bgp": fixture("arista_eos_show_ip_bgp_summary", "estab_not_negotiated_real")},
     "expect": dict(EANTC, pyramid_bgp_neighbors=EANTC["pyramid_bgp_neighbors"][:1]), "status": "PASS", "contains": ["1 neighbors Established"]},
    {"check": "bgp_sessions", "name": "NX-OS Shut (Admin): the state and the reason the switch gave, both named",
     "raw": {"sw_bgp": fixture("cisco_nxos_show_ip_bgp_summary", "genie_dampening_shut_admin_real")},
     "expect": {"pyramid_switch_os": "nxos", "pyramid_switch_ports": plan("Ethernet1/1"), "pyramid_bgp_min_prefixes": 1,
                "pyramid_bgp_neighbors": [{"address": "2.2.2.5", "name": "spine-01", "remote_as": 200}]},
     "status": "FAIL", "contains": ["2.2.2.5 (spine-01) Shut (Admin)"]},
    {"check": "pfc_enabled", "name": "NX-OS PFC Oper Mode Off on planned ports",
     "raw": {"sw_pfc_state": fixture(NXOS_STATE, "faulty_leaf")},
     "expect": NXOS, "status": "FAIL", "contains": ["Ethernet1/2: PFC Oper Mode Off", "Ethernet1/4: PFC Oper Mode Off", PFC_OFF]},
    {"check": "pfc_idle", "name": "NX-OS: the pauses of the same report stand on their own",
     "raw": {"sw_pfc": window(NXOS_PFC, "healthy_leaf", "faulty_leaf")},
     "expect": NXOS, "status": "FAIL", "contains": ["Ethernet1/3: rx 3 +12, tx 3 +40"]},
    {"check": "pfc_enabled", "name": "NX-OS PFC off on an unplanned port is not judged", "raw": {"sw_pfc_state": fixture(NXOS_STATE, "faulty_leaf")},
     "expect": dict(NXOS, pyramid_switch_ports=plan("Ethernet1/1")), "status": "PASS"},
    {"check": "pfc_enabled", "name": "NX-OS PFC on everywhere", "raw": {"sw_pfc_state": fixture(NXOS_STATE, "healthy_leaf")},
     "expect": NXOS, "status": "PASS", "contains": ["4 ports, PFC operational (Oper Mode On)"]},
    {"check": "pfc_idle", "name": "NX-OS PFC on everywhere, no pauses", "raw": {"sw_pfc": window(NXOS_PFC, "healthy_leaf", "healthy_leaf")},
     "expect": NXOS, "status": "PASS"},
]
