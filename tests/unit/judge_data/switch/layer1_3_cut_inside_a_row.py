"""Reads cut inside their last row (issue 68): the switch checks' stream damage that was judged a device FAIL.

A read cut at a byte leaves its last row short: a speed `400G` read as `4` (4 Mb/s), a row without its neighbor's
port, a PFC stanza ending in `priori`. Each parser now tells the cut from the device: NVUE's text ends every line
(the collect module keeps stdout as printed), NX-OS prints every status row's Type, and a running-config line that
is the start of a PFC line is no line after the PFC lines. Each row here is a real output (or the twin's, in the
real layout) cut by hand at one byte, through the production path: an ERROR about the read, never a FAIL.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch.layer1_3_switch import CUMULUS, NXOS
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch.layer3_pfc_enabled_eos import EOS_PFC, eos


def cut_after(source, text, keep):
    """A real output cut ``keep`` characters into the first ``text`` in it (a read stopped inside a line)."""
    parser, output = source
    assert text in output, text
    return parser, output[:output.index(text) + keep]


DATA = [
    # NX-OS: the twin's leaf cut inside Eth1/1's row, after its speed's first digit: it FAILed "Ethernet1/1 up at
    # 0.004G, want 400G; Ethernet1/2 not on the switch ..."
    {"check": "link_status", "name": "NX-OS: status cut inside Eth1/1's speed (400G read as 4): ERROR about the read",
     "raw": {"sw_interfaces": cut_after(fixture("cisco_nxos_show_interface_status", "healthy_leaf"),
                                        "Eth1/1        node-001 rail0     connected routed    full    400G", 62)},
     "expect": NXOS, "status": "ERROR", "contains": ["Eth1/1: the last row has no Type column ('connected 4'): the read was cut inside it"]},
    # Cumulus (NVUE text): cut inside swp1's row after its state: it FAILed "swp1 up at NoneG, want 400G; swp2 not on
    # the switch ..."
    {"check": "link_status", "name": "Cumulus: nv show interface cut inside swp1's row (no speed): ERROR about the read",
     "raw": {"sw_interfaces": cut_after(fixture("cumulus_nv_show_interface", "twin_healthy_400g"), "swp1       up     ", 18)},
     "expect": CUMULUS, "status": "ERROR", "contains": ["the read ends inside this row (cut short): swp1       up"]},
    # the same table read for LLDP, cut inside swp1's neighbor port: it FAILed "swp1: plan node-001 ens1np0, LLDP sees
    # node-001 " (miscabled)
    {"check": "cabling", "name": "Cumulus: nv show interface cut inside swp1's remote port: ERROR, not miscabled",
     "raw": {"sw_lldp": cut_after(fixture("cumulus_nv_show_interface_lldp", "twin_healthy"),
                                  "swp1       up     400G   9216   swp       node-001         ens1np0", 60)},
     "expect": CUMULUS, "status": "ERROR", "contains": ["the read ends inside this row (cut short): swp1"]},
    # EOS: arista.avd's Ethernet2 stanza cut inside `priority-flow-control priority 5 no-drop`: it FAILed "priority 5
    # not configured no-drop in the running-config (no-drop priorities: none)"
    {"check": "pfc_enabled", "name": "EOS: the running-config stanza cut inside its no-drop line (priori): ERROR, not no-drop off",
     "raw": {"sw_pfc_state": {"Ethernet2": fixture(EOS_PFC, "avd_ethernet2_cut_inside_priority_line")}},
     "expect": eos("Ethernet2"), "status": "ERROR", "contains": ["Ethernet2: the stanza ends inside a line ('priori'): cut short"]},
]
