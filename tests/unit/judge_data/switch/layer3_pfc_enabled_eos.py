"""pfc_enabled on EOS (issue 11: PFC must be on on every platform): read from each planned port's running-config
(`show running-config interfaces <port>`, one stanza a port), since EOS's operational PFC report has no
published output to parse. The verdicts say "configured" / "running-config": it is the configuration, not
the operational state. No `priority-flow-control on` (or `no priority-flow-control`) is PFC off, a FAIL; a
missing or other no-drop priority is judged as on the other platforms; another port's stanza, an EOS error
or an empty answer is an ERROR about the read. Stanzas: arista.avd's rendered ethernet-interfaces config
(no-drop on priority 5, hence pyramid_pfc_priorities [5] where a port should pass)."""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

PFC_OFF = "PFC not enabled end to end: RoCE is lossy"
EOS_PFC = "arista_eos_show_running-config_interfaces_pfc"
CASES = {"Ethernet1": "avd_ethernet1_drop_5_comment_real", "Ethernet2": "avd_ethernet2_no_drop_5_real",
         "Ethernet3": "avd_ethernet3_pfc_off_real", "Ethernet4": "avd_ethernet4_on_no_priority_real"}


def plan(*ports):
    return [{"port": port, "peer": "node-%03d" % (index + 1), "peer_port": "ens1np0", "role": "host"} for index, port in enumerate(ports)]


def stanzas(*ports, **cases):
    """One `show running-config interfaces <port>` per planned port: that port's own AVD stanza unless cases says."""
    return {port: fixture(EOS_PFC, cases.get(port, CASES.get(port))) for port in ports}


def eos(*ports, priorities=(5,)):
    return {"pyramid_switch_os": "eos", "pyramid_switch_ports": plan(*ports), "pyramid_pfc_priorities": list(priorities)}


DATA = [
    {"check": "pfc_enabled", "name": "EOS: priority-flow-control on, priority 5 no-drop in the running-config",
     "raw": {"sw_pfc_state": stanzas("Ethernet2")}, "expect": eos("Ethernet2"), "status": "PASS",
     "contains": ["1 ports, PFC configured on priority 5 in the running-config (the configuration, not the operational state)",
                  "PFC configured on every planned port on priority 5 (running-config)"]},
    {"check": "pfc_enabled", "name": "EOS: no priority-flow-control is PFC off, configured",
     "raw": {"sw_pfc_state": stanzas("Ethernet2", "Ethernet3")}, "expect": eos("Ethernet2", "Ethernet3"), "status": "FAIL",
     "contains": ["Ethernet3: PFC off in the running-config ('no priority-flow-control')", PFC_OFF]},
    {"check": "pfc_enabled", "name": "EOS: a stanza without any PFC line before its spanning-tree line is PFC off (EOS's default)",
     "raw": {"sw_pfc_state": {"Ethernet2": fixture(EOS_PFC, "avd_ethernet2_no_drop_5_real"),
                              "Ethernet3": ("", "interface Ethernet3\n   description P2P_LINK_TO_DC1-SPINE2_Ethernet2\n   mtu 1500\n"
                                                "   spanning-tree guard root\n")}},
     "expect": eos("Ethernet2", "Ethernet3"), "status": "FAIL",
     "contains": ["Ethernet3: PFC off in the running-config (no 'priority-flow-control on')"]},
    {"check": "pfc_enabled", "name": "EOS: a stanza that ends before any PFC line may be cut short: an ERROR, not PFC off",
     "raw": {"sw_pfc_state": {"Ethernet2": fixture(EOS_PFC, "avd_ethernet2_no_drop_5_real"),
                              "Ethernet3": ("", "interface Ethernet3\n   description P2P_LINK_TO_DC1-SPINE2_Ethernet2\n   mtu 1500\n")}},
     "expect": eos("Ethernet2", "Ethernet3"), "status": "ERROR",
     "contains": ["Ethernet3: no 'priority-flow-control on' line in the running-config stanza, which ends there with no trailer"]},
    {"check": "pfc_enabled", "name": "EOS: a stanza that ends at 'priority-flow-control on' may have lost its no-drop line",
     "raw": {"sw_pfc_state": {"Ethernet2": ("", "interface Ethernet2\n   description SRV-POD02_Eth1\n   priority-flow-control on\n")}},
     "expect": eos("Ethernet2"), "status": "ERROR",
     "contains": ["Ethernet2: no 'priority-flow-control priority 5 no-drop' line in the running-config stanza"]},
    {"check": "pfc_enabled", "name": "EOS: PFC on without the lossless priority, or with it as drop",
     "raw": {"sw_pfc_state": stanzas("Ethernet1", "Ethernet2", "Ethernet4")}, "expect": eos("Ethernet1", "Ethernet2", "Ethernet4"),
     "status": "FAIL", "contains": ["Ethernet1: priority 5 not configured no-drop in the running-config (no-drop priorities: none)",
                                    "Ethernet4: priority 5 not configured no-drop in the running-config (no-drop priorities: none)"]},
    {"check": "pfc_enabled", "name": "EOS: no-drop on priority 5 where the inventory wants 3",
     "raw": {"sw_pfc_state": stanzas("Ethernet2")}, "expect": eos("Ethernet2", priorities=(3,)), "status": "FAIL",
     "contains": ["Ethernet2: priority 3 not configured no-drop in the running-config (no-drop priorities: 5)"]},
    {"check": "pfc_enabled", "name": "EOS: another port's stanza for a planned port is not that port's PFC",
     "raw": {"sw_pfc_state": stanzas("Ethernet2", "Ethernet5", Ethernet5="avd_ethernet2_no_drop_5_real")},
     "expect": eos("Ethernet2", "Ethernet5"), "status": "ERROR",
     "contains": ["Ethernet5: the answer is the stanza of Ethernet2, not this port's"]},
    {"check": "pfc_enabled", "name": "EOS: another port's stanza never stands for that port's own answer",
     "raw": {"sw_pfc_state": {"Ethernet2": fixture(EOS_PFC, "avd_ethernet2_no_drop_5_real"),
                              "Ethernet3": ("", "interface Ethernet2\n   description SRV-POD02_Eth1\n   no priority-flow-control\n")}},
     "expect": eos("Ethernet2", "Ethernet3"), "status": "ERROR",
     "contains": ["Ethernet3: the answer is the stanza of Ethernet2, not this port's"]},
    {"check": "pfc_enabled", "name": "EOS: % Invalid input for one port is an ERROR about the read",
     "raw": {"sw_pfc_state": stanzas("Ethernet2", "Ethernet5", Ethernet5="invalid_input")},
     "expect": eos("Ethernet2", "Ethernet5"), "status": "ERROR", "contains": ["Ethernet5", "EOS refused the command: % Invalid input"]},
    {"check": "pfc_enabled", "name": "EOS: an empty answer is an ERROR about the read, never PFC off",
     "raw": {"sw_pfc_state": stanzas("Ethernet2", "Ethernet5", Ethernet5="empty")},
     "expect": eos("Ethernet2", "Ethernet5"), "status": "ERROR", "contains": ["Ethernet5", "empty output"]},
    {"check": "pfc_enabled", "name": "EOS: PFC off on one port beside an unreadable one: the FAIL says both",
     "raw": {"sw_pfc_state": stanzas("Ethernet3", "Ethernet5", Ethernet5="invalid_input")},
     "expect": eos("Ethernet3", "Ethernet5"), "status": "FAIL",
     "contains": ["Ethernet3: PFC off in the running-config ('no priority-flow-control')", "not read: Ethernet5"]},
]
