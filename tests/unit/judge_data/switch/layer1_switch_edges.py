"""link_status, optics_rx and cabling at the edges the 2026-11-26 mutation run (issue 33) found untested.

Each row is a verdict an operator needs and that a changed judge would get wrong:
- a table without a trailer (NX-OS `show interface status`, SONiC `show interfaces transceiver eeprom --dom`, the
  Cumulus LLDP table) cut at a row or block boundary: the planned ports it no longer lists are an ERROR about the
  read, never "not on the switch" or "no optic" (a FAIL about the port);
- an NX-OS per-port transceiver read that stops before the stanza of the port it was asked about: no data about that
  port (an ERROR of its own cause), told apart from a read that failed outright;
- a failed per-port read before a failing port does not hide that port's FAIL;
- an optic read cut after its first lane when only two ports are planned (a lane count still to compare with);
- the long lists: 3 unread ports named, 8 unlisted, silent or garbled ports named, then "and N more".

Raw rows are fixtures of tests/unit/parsers cut or edited where a real read would be; facts rows are the parsers'
shapes where no fixture has enough ports (a per-port read listing four other ports, four short optics, nine
garbled LLDP rows).
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch.layer1_3_switch import (
    CUMULUS, CUMULUS_PLAN, EOS, EOS_PLAN, LEAF, NXOS, SONIC, _cumulus_lldp_cut, plan)

NXOS_STATUS = fixture("cisco_nxos_show_interface_status", "healthy_leaf")
NXOS_OPTICS = "cisco_nxos_show_interface_transceiver_details"
NXOS_LEAF = fixture(NXOS_OPTICS, "healthy_leaf")  # one stanza each of Ethernet1/1..1/4 (1/2 without diagnostics)
NXOS_FAULTY = fixture(NXOS_OPTICS, "faulty_leaf")  # Ethernet1/3 lane 2 at -11.50 dBm
NXOS_INVALID = fixture(NXOS_OPTICS, "invalid_command")
NO_TRAILER = "the read has no trailer or count that closes the table, so what it does not list may have been cut off"
STRAY = "A per-port read answered about another port"
NO_DATA = "No data for some planned ports: the command failed for them"


def nxos_ports(*numbers):
    """NX-OS leaf ports Ethernet1/N planned to node-00N."""
    return plan(*[("Ethernet1/%d" % number, "node-%03d" % number, "ens1np0") for number in numbers])


def cut_before(source, text):
    """A real output that ends just before ``text`` (a read stopped at a line boundary)."""
    parser, output = source
    assert text in output, text
    return parser, output[:output.index(text)]


CUMULUS_MORE = CUMULUS_PLAN + plan(*[("swp%d" % number, "node-%03d" % number, "ens1np0") for number in range(51, 58)])
LANES = {"rx_dbm": [-2.1, -2.0, -2.2, -2.1], "tx_dbm": [0.5, 0.6, 0.4, 0.5]}
TEN_HOSTS = plan(*[("Ethernet%d/1" % number, "node-%03d" % number, "ens1np0") for number in range(1, 11)])

DATA = [
    # --- link_status: the NX-OS status table has no trailer; a planned port missing from a cut one is no proof
    {"check": "link_status", "name": "NX-OS: status table cut before Eth1/4's row: ERROR about the read, not a port off the switch",
     "raw": {"sw_interfaces": cut_before(NXOS_STATUS, "Eth1/4 ")}, "expect": NXOS, "status": "ERROR",
     "contains": ["planned ports not listed: Ethernet1/4; " + NO_TRAILER, "cannot prove itself complete"]},
    {"check": "link_status", "name": "NX-OS: 9 planned ports past the table's end: 8 named",
     "raw": {"sw_interfaces": NXOS_STATUS}, "expect": dict(NXOS, pyramid_switch_ports=nxos_ports(*range(1, 14))), "status": "ERROR",
     "contains": ["planned ports not listed: Ethernet1/5; Ethernet1/6; Ethernet1/7; Ethernet1/8; Ethernet1/9; Ethernet1/10; "
                  "Ethernet1/11; Ethernet1/12; and 1 more; the read has no trailer"]},

    # --- optics_rx: a SONiC read cut between two ports' blocks lists neither uplink: no proof they have no optic
    {"check": "optics_rx", "name": "SONiC: transceiver read cut before Ethernet32's block: ERROR, not two missing optics",
     "raw": {"sw_optics": cut_before(fixture("sonic_show_interfaces_transceiver_eeprom_dom", "healthy_osfp_dr4"),
                                     "Ethernet32: SFP EEPROM detected")},
     "expect": SONIC, "status": "ERROR", "contains": ["planned ports not listed: Ethernet32; Ethernet40; " + NO_TRAILER]},
    # an NX-OS per-port read that stops before its own port's stanza says nothing about that port
    {"check": "optics_rx", "name": "NX-OS: Ethernet1/4's read cut before its own stanza: ERROR naming what it lists",
     "raw": {"sw_optics": {"Ethernet1/1": NXOS_LEAF, "Ethernet1/3": NXOS_LEAF, "Ethernet1/4": cut_before(NXOS_LEAF, "Ethernet1/4\n")}},
     "expect": dict(NXOS, pyramid_switch_ports=nxos_ports(1, 3, 4)), "status": "ERROR",
     "contains": ["no optics readings: Ethernet1/4: its read lists Ethernet1/1, Ethernet1/3, not Ethernet1/4 | " + STRAY +
                  " (cut or garbled before its own): no data about the port it was asked for on node-001 |"]},
    {"check": "optics_rx", "name": "NX-OS: four reads that list only other ports: 3 named",
     "raw": {"sw_optics": {"Ethernet1/%d" % number: NXOS_LEAF for number in (1, 3, 4, 5, 6, 7, 8)}},
     "expect": dict(NXOS, pyramid_switch_ports=nxos_ports(1, 3, 4, 5, 6, 7, 8)), "status": "ERROR",
     "contains": ["no optics readings: Ethernet1/5: its read lists Ethernet1/1, Ethernet1/3, Ethernet1/4, not Ethernet1/5; "
                  "Ethernet1/6: its read lists", "Ethernet1/7: its read lists Ethernet1/1, Ethernet1/3, Ethernet1/4, not Ethernet1/7; and 1 more",
                  STRAY]},
    {"check": "optics_rx", "name": "a per-port read listing four other ports: three of them named",
     "facts": {"sw_optics": dict({"Ethernet%d/1" % number: {"ports": {"Ethernet%d/1" % number: dict(LANES)}} for number in range(1, 5)},
                                 **{"Ethernet5/1": {"ports": {"Ethernet%d/1" % number: dict(LANES) for number in range(1, 5)}}})},
     "expect": dict(LEAF, pyramid_switch_ports=TEN_HOSTS[:5]), "status": "ERROR",
     "contains": ["no optics readings: Ethernet5/1: its read lists Ethernet1/1, Ethernet2/1, Ethernet3/1, not Ethernet5/1", STRAY]},
    # one read failed, another answered about other ports: both no data, the failed command's cause
    {"check": "optics_rx", "name": "NX-OS: one read failed, one cut before its own stanza: ERROR naming both",
     "raw": {"sw_optics": {"Ethernet1/1": NXOS_LEAF, "Ethernet1/3": NXOS_INVALID, "Ethernet1/4": cut_before(NXOS_LEAF, "Ethernet1/4\n")}},
     "expect": dict(NXOS, pyramid_switch_ports=nxos_ports(1, 3, 4)), "status": "ERROR",
     "contains": ["no optics readings: Ethernet1/3: ", "Ethernet1/4: its read lists Ethernet1/1, Ethernet1/3, not Ethernet1/4", NO_DATA]},
    {"check": "optics_rx", "name": "NX-OS: four ports' reads failed: 3 named",
     "raw": {"sw_optics": dict({"Ethernet1/1": NXOS_LEAF}, **{"Ethernet1/%d" % number: NXOS_INVALID for number in range(5, 9)})},
     "expect": dict(NXOS, pyramid_switch_ports=nxos_ports(1, 5, 6, 7, 8)), "status": "ERROR",
     "contains": ["no optics readings: Ethernet1/5: ", "; and 1 more", NO_DATA]},
    # a failed read is skipped, never the end of the plan: the dim lane planned after it still FAILs
    {"check": "optics_rx", "name": "NX-OS: first port's read failed, the next port's lane 2 dim: FAIL naming both",
     "raw": {"sw_optics": {"Ethernet1/1": NXOS_INVALID, "Ethernet1/3": NXOS_FAULTY}},
     "expect": dict(NXOS, pyramid_switch_ports=nxos_ports(1, 3)), "status": "FAIL",
     "contains": ["Ethernet1/3: lane 2 -11.50 dBm; not read: Ethernet1/1: "]},
    {"check": "optics_rx", "name": "NX-OS: a dim lane and four reads failed: FAIL naming 3 unread",
     "raw": {"sw_optics": dict({"Ethernet1/3": NXOS_FAULTY}, **{"Ethernet1/%d" % number: NXOS_INVALID for number in range(5, 9)})},
     "expect": dict(NXOS, pyramid_switch_ports=nxos_ports(3, 5, 6, 7, 8)), "status": "FAIL",
     "contains": ["Ethernet1/3: lane 2 -11.50 dBm; not read: Ethernet1/5: ", "; and 1 more"]},
    # two planned ports are enough to see one read short of the other's lanes
    {"check": "optics_rx", "name": "EOS: two uplinks, the table cut after Et34/1's first lane: ERROR, not a 1-lane optic's PASS",
     "raw": {"sw_optics": cut_before(fixture("arista_eos_show_interfaces_transceiver", "healthy"), "Et34/2 ")},
     "expect": dict(EOS, pyramid_switch_ports=EOS_PLAN[3:]), "status": "ERROR",
     "contains": ["optics read incomplete: Ethernet34/1: 1 of 4 lanes read", "no lane is proven in range"]},
    # a tie between 4 full and 4 short optics: the larger count is the optic's (a cut only removes lanes)
    {"check": "optics_rx", "name": "four of eight optics read with 2 of 4 lanes: 3 named",
     "facts": {"sw_optics": {"ports": {entry["port"]: {"rx_dbm": LANES["rx_dbm"][:2 if index % 2 else 4], "tx_dbm": LANES["tx_dbm"]}
                                       for index, entry in enumerate(TEN_HOSTS[:8])}}},
     "expect": dict(LEAF, pyramid_switch_ports=TEN_HOSTS[:8]), "status": "ERROR",
     "contains": ["optics read incomplete: Ethernet2/1: 2 of 4 lanes read; Ethernet4/1: 2 of 4 lanes read; "
                  "Ethernet6/1: 2 of 4 lanes read; and 1 more"]},

    # --- cabling
    {"check": "cabling", "name": "Cumulus: swp2 miscabled, the table cut after it, 9 planned ports past the cut: 8 named",
     "raw": {"sw_lldp": _cumulus_lldp_cut(("node-002 ", "node-009 "))}, "expect": dict(CUMULUS, pyramid_switch_ports=CUMULUS_MORE),
     "status": "FAIL",
     "contains": ["swp2: plan node-002 ens1np0, LLDP sees node-009 ens1np0; "
                  "not listed: swp49, swp50, swp51, swp52, swp53, swp54, swp55, swp56 |"]},
    # NX-OS's table closes with a count: a planned port it does not list has no neighbor; beside 4 host ports LLDP
    # proves, it is not proven, never a pass (issue 68; LLDP not required)
    {"check": "cabling", "name": "NX-OS: 4 cabled, 9 planned ports silent, LLDP not required: FAIL naming 8",
     "raw": {"sw_lldp": fixture("cisco_nxos_show_lldp_neighbors", "healthy_leaf")},
     "expect": dict(NXOS, pyramid_switch_ports=nxos_ports(*range(1, 14))), "status": "FAIL",
     "contains": ["no LLDP neighbor on Ethernet1/5, Ethernet1/6, Ethernet1/7, Ethernet1/8, "
                  "Ethernet1/9, Ethernet1/10, Ethernet1/11, Ethernet1/12 while LLDP answers on other host ports (not proven)"]},
    # a NUL in place of each row's port number: nine rows garbled, their ports proven neither cabled nor silent
    {"check": "cabling", "name": "nine rows' local port garbled: ERROR naming 8",
     "facts": {"sw_lldp": {"neighbors": dict({"Ethernet10/1": [{"system": "node-010", "port": "ens1np0"}]},
                                             **{"Ethernet%d/\x00" % number: [{"system": "node-%03d" % number, "port": "ens1np0"}]
                                                for number in range(1, 10)})}},
     "expect": dict(LEAF, pyramid_switch_ports=TEN_HOSTS), "status": "ERROR",
     "contains": ["no interface name: 'Ethernet1/\\x00', 'Ethernet2/\\x00', 'Ethernet3/\\x00', 'Ethernet4/\\x00', 'Ethernet5/\\x00', "
                  "'Ethernet6/\\x00', 'Ethernet7/\\x00', 'Ethernet8/\\x00' |", "proven neither cabled nor silent"]},
    {"check": "cabling", "name": "a miscabled port beside nine garbled rows: FAIL naming 8 of them",
     "facts": {"sw_lldp": {"neighbors": dict({"Ethernet10/1": [{"system": "node-011", "port": "ens1np0"}]},
                                             **{"Ethernet%d/\x00" % number: [{"system": "node-%03d" % number, "port": "ens1np0"}]
                                                for number in range(1, 10)})}},
     "expect": dict(LEAF, pyramid_switch_ports=TEN_HOSTS), "status": "FAIL",
     "contains": ["Ethernet10/1: plan node-010 ens1np0, LLDP sees node-011 ens1np0; rows with a garbled local port: 'Ethernet1/\\x00', "
                  "'Ethernet2/\\x00', 'Ethernet3/\\x00', 'Ethernet4/\\x00', 'Ethernet5/\\x00', 'Ethernet6/\\x00', 'Ethernet7/\\x00', "
                  "'Ethernet8/\\x00' |"]},
    # sfpshow says "SFP EEPROM Not detected" for a port with no module: a missing optic is a FAIL, as on the other
    # platforms, not a port the read may have lost (an ERROR until this row)
    {"check": "optics_rx", "name": "SONiC: Ethernet4 has no module ('SFP EEPROM Not detected'): FAIL, no optic",
     "raw": {"sw_optics": fixture("sonic_show_interfaces_transceiver_eeprom_dom", "qsfp28_absent_cmis_real")},
     "expect": dict(SONIC, pyramid_switch_ports=plan(("Ethernet0", "node-001", "ens1np0"), ("Ethernet4", "node-002", "ens1np0"))),
     "status": "FAIL", "contains": ["Ethernet4: no optic or no RX power reading"]},
]
