"""Edges of the switch judges of Layers 2 and 3 that no row reached: found by the mutation run of 2026-11-26
(issue 33), where each of these changes to judging/switch.py left every test passing.

What the rows prove:
- bgp_sessions: a neighbor down beside a neighbor waiting for a policy is blamed on the session that is down (the
  catalog's cause), not on the missing policy.
- ecmp: a route table without a trailer proves neither a wanted prefix it does not list nor a short last route (its
  next hops are lines of their own): an ERROR about the read. A session down
  is the cause even where another session waits for a policy. An empty table beside one session that reports a
  single prefix is a read that lost its table (the sessions it names, at most four, and their prefix sum).
- pfc_enabled: a port that is not read (unlisted, or an EOS stanza that may be cut short) does not stop the ports
  after it from being judged; the list of unread ports is cut after three; an EOS stanza that ends at an explicit
  `no priority-flow-control` or `priority N drop` is a finding, not a read cut short; lists of several priorities
  and of several PFC lines are said in full, comma-separated.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch.layer1_3_switch import CUMULUS, NXOS, _edited_raw, spines
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch.layer3_pfc_enabled import SONIC, SONIC_PFC, plan
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.switch.layer3_pfc_enabled_eos import EOS_PFC, eos

PFC_OFF = "PFC not enabled end to end: RoCE is lossy"
NO_POLICY = "this switch runs `bgp ebgp-requires-policy`"
SESSION_DOWN = "ECMP lost the path through a spine whose BGP session is down"
NOT_LISTED = "so what it does not list may have been cut off"
FRR_ROUTES = "frr_show_ip_route"
FRR_BGP = "frr_show_ip_bgp_summary"


def session(state="Established", prefixes=9, **more):
    return dict({"remote_as": 65001, "state": state, "prefixes_received": prefixes}, **more)


def cut_after(source, line):
    """A real EOS stanza as a read cut right after ``line`` would leave it (no line after it, no closing `!`)."""
    parser, text = source
    assert "\n   %s\n" % line in text, line
    return parser, text[:text.index("\n   %s\n" % line) + len(line) + 5]


# FRR's summary where spine-02 is still connecting and spine-01 sent one prefix
FRR_ONE_PREFIX = _edited_raw(_edited_raw(fixture(FRR_BGP, "twin_healthy"),
                                         "2d03h            9        2 spine-01", "2d03h            1        2 spine-01"),
                             "10.0.1.3        4      65001      4020      4031        0    0    0    2d03h            9        2 spine-02",
                             "10.0.1.3        4      65001        12        11        0    0    0 00:00:09      Connect        0 spine-02")
# FRR's summary where spine-01 waits for a policy (printed as in hostname_wrap_policy_admin_connect) and spine-02 is Idle
FRR_POLICY_IDLE = _edited_raw(fixture(FRR_BGP, "twin_idle_active_ipv6"), "    2d03h            9        3 spine-01",
                              "    2d03h     (Policy)     (Policy) spine-01")
FIVE_SPINES = ("10.0.1.1", "10.0.1.3", "10.0.1.5", "10.0.1.7", "10.0.1.9")

DATA = [
    # --- bgp_sessions: a session down outweighs one waiting for a policy
    {"check": "bgp_sessions", "name": "FRR: one neighbor Idle, another waiting for a policy: the session down is the cause",
     "raw": {"sw_bgp": FRR_POLICY_IDLE}, "expect": CUMULUS,
     "status": "FAIL", "contains": ["10.0.1.1 (spine-01) Established, no routes exchanged: no policy on this switch (Policy); "
                                    "10.0.1.3 (spine-02) Idle", CAUSE]},

    # --- ecmp: what a route table without a trailer cannot prove
    {"check": "ecmp", "name": "NX-OS: a wanted prefix after the last route listed may have been cut off",
     "raw": {"sw_routes": fixture("cisco_nxos_show_ip_route_bgp", "healthy_leaf"), "sw_bgp": fixture("cisco_nxos_show_ip_bgp_summary", "healthy_leaf")},
     "expect": dict(NXOS, pyramid_ecmp_prefixes=["10.2.3.0/24", "10.255.4.0/24"]), "status": "ERROR",
     "contains": ["routes not listed: 10.255.4.0/24: no BGP route; the read has no trailer or count that closes the table, " + NOT_LISTED]},
    # NX-OS prints each route's own next-hop count (ubest) and the parser holds the route to it: its last route short is
    # proven short, a FAIL (an ERROR about the read until this row)
    {"check": "ecmp", "name": "NX-OS: the last route listed is short: its own ubest proves it",
     "raw": {"sw_routes": fixture("cisco_nxos_show_ip_route_bgp", "healthy_leaf"), "sw_bgp": fixture("cisco_nxos_show_ip_bgp_summary", "healthy_leaf")},
     "expect": dict(NXOS, pyramid_ecmp_prefixes=["10.2.3.0/24", "10.255.0.9/32"]), "status": "FAIL",
     "contains": ["10.255.0.9/32: 1 of 2 next hops (missing via spine-02)"]},
    # the last route's second via line is the one a cut loses first
    {"check": "ecmp", "name": "FRR: the last route of the table short may be a read cut after its first next hop",
     "raw": {"sw_routes": fixture(FRR_ROUTES, "twin_healthy"), "sw_bgp": fixture(FRR_BGP, "twin_healthy")},
     "expect": dict(CUMULUS, pyramid_ecmp_prefixes=["10.2.3.0/24", "10.255.0.2/32"]), "status": "ERROR",
     "contains": ["routes not listed: 10.255.0.2/32: 1 of 2 next hops (missing via spine-02); the read has no trailer", NOT_LISTED]},
    # spine-03's session is down and the prefix lacks its path; an unplanned session waits for a policy
    {"check": "ecmp", "name": "FRR: a path lost with its session down is that session's, whatever waits for a policy",
     "raw": {"sw_routes": fixture(FRR_ROUTES, "twin_healthy")},
     "facts": {"sw_bgp": {"neighbors": {"10.0.1.1": session(), "10.0.1.3": session(), "10.0.1.5": session("Idle", None),
                                        "10.0.1.7": session(prefixes=0, no_policy=True)}}},
     "expect": dict(CUMULUS, pyramid_ecmp_paths=3, pyramid_bgp_neighbors=spines("10.0.1.1", "10.0.1.3", "10.0.1.5", remote_as=65001)),
     "status": "FAIL", "contains": ["10.2.3.0/24: 2 of 3 next hops (missing via spine-03)", SESSION_DOWN]},
    {"check": "ecmp", "name": "FRR: no route printed while the one session up reports a single prefix: the read lost its table",
     "raw": {"sw_routes": fixture(FRR_ROUTES, "empty_no_bgp_route"), "sw_bgp": FRR_ONE_PREFIX},
     "expect": CUMULUS, "status": "ERROR",
     "contains": ["no BGP route read, while 10.0.1.1 reports 1 prefixes accepted: the route table read is incomplete"]},
    {"check": "ecmp", "name": "FRR: no route printed beside five sessions with prefixes: four named, every prefix counted",
     "raw": {"sw_routes": fixture(FRR_ROUTES, "empty_no_bgp_route")},
     "facts": {"sw_bgp": {"neighbors": {address: session() for address in FIVE_SPINES}}},
     "expect": dict(CUMULUS, pyramid_ecmp_paths=5, pyramid_bgp_neighbors=spines(*FIVE_SPINES, remote_as=65001)), "status": "ERROR",
     "contains": ["no BGP route read, while 10.0.1.1, 10.0.1.3, 10.0.1.5, 10.0.1.7 report 45 prefixes accepted"]},

    # --- pfc_enabled: an unread port never hides the ports after it
    {"check": "pfc_enabled", "name": "SONiC: a planned port the table does not list, then one with PFC off: the FAIL says both",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "pfc_off")}, "expect": dict(SONIC, pyramid_switch_ports=plan("Ethernet4", "Ethernet8")),
     "status": "FAIL", "contains": ["Ethernet8: PFC off on priority 3 (lossless priorities: none); not read: Ethernet4: PFC state not listed",
                                    PFC_OFF]},
    {"check": "pfc_enabled", "name": "EOS: a stanza that may be cut short, then a port with priority 5 drop: the FAIL says both",
     "raw": {"sw_pfc_state": {"Ethernet3": ("", "interface Ethernet3\n   description P2P_LINK_TO_DC1-SPINE2_Ethernet2\n   mtu 1500\n"),
                              "Ethernet1": fixture(EOS_PFC, "avd_ethernet1_drop_5_comment_real")}},
     "expect": eos("Ethernet3", "Ethernet1"), "status": "FAIL",
     "contains": ["Ethernet1: priority 5 not configured no-drop in the running-config (no-drop priorities: none); "
                  "not read: Ethernet3: no 'priority-flow-control on' line in the running-config stanza", PFC_OFF]},
    {"check": "pfc_enabled", "name": "SONiC: PFC off on one port, four planned ports not listed: three named, one counted",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "pfc_off")},
     "expect": dict(SONIC, pyramid_switch_ports=plan("Ethernet8", "Ethernet4", "Ethernet12", "Ethernet20", "Ethernet28")), "status": "FAIL",
     "contains": ["not read: Ethernet4: PFC state not listed; Ethernet12: PFC state not listed; Ethernet20: PFC state not listed; "
                  "and 1 more"]},
    {"check": "pfc_enabled", "name": "SONiC: four planned ports not listed: three named, one counted",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "one_port_real")},
     "expect": dict(SONIC, pyramid_switch_ports=plan("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12", "Ethernet16")), "status": "ERROR",
     "contains": ["PFC state not read: Ethernet4: PFC state not listed; Ethernet8: PFC state not listed; "
                  "Ethernet12: PFC state not listed; and 1 more"]},

    # --- pfc_enabled on EOS: an explicit line says the finding, trailer or not
    {"check": "pfc_enabled", "name": "EOS: a stanza that ends at 'no priority-flow-control' is PFC off, cut there or not",
     "raw": {"sw_pfc_state": {"Ethernet3": cut_after(fixture(EOS_PFC, "avd_ethernet3_pfc_off_real"), "no priority-flow-control")}},
     "expect": eos("Ethernet3"), "status": "FAIL",
     "contains": ["Ethernet3: PFC off in the running-config ('no priority-flow-control')", PFC_OFF]},
    {"check": "pfc_enabled", "name": "EOS: a stanza that ends at 'priority-flow-control priority 5 drop' is priority 5 lossy, cut there or not",
     "raw": {"sw_pfc_state": {"Ethernet1": cut_after(fixture(EOS_PFC, "avd_ethernet1_drop_5_comment_real"),
                                                     "priority-flow-control priority 5 drop")}},
     "expect": eos("Ethernet1"), "status": "FAIL",
     "contains": ["Ethernet1: priority 5 not configured no-drop in the running-config (no-drop priorities: none)", PFC_OFF]},
    # arista.avd renders `no priority-flow-control` and then the priorities it was given
    {"check": "pfc_enabled", "name": "EOS: PFC off with a no-drop priority still configured: both lines quoted",
     "raw": {"sw_pfc_state": {"Ethernet3": _edited_raw(fixture(EOS_PFC, "avd_ethernet3_pfc_off_real"), "   no priority-flow-control\n",
                                                       "   no priority-flow-control\n   priority-flow-control priority 5 no-drop\n")}},
     "expect": eos("Ethernet3"), "status": "FAIL",
     "contains": ["Ethernet3: PFC off in the running-config ('no priority-flow-control'; 'priority-flow-control priority 5 no-drop')"]},
    {"check": "pfc_enabled", "name": "EOS: a stanza that ends at 'priority-flow-control on' may have lost both wanted no-drop lines",
     "raw": {"sw_pfc_state": {"Ethernet4": cut_after(fixture(EOS_PFC, "avd_ethernet4_on_no_priority_real"), "priority-flow-control on")}},
     "expect": eos("Ethernet4", priorities=(3, 5)), "status": "ERROR",
     "contains": ["Ethernet4: no 'priority-flow-control priority 3 no-drop', 'priority-flow-control priority 5 no-drop' line in the "
                  "running-config stanza"]},
    {"check": "pfc_enabled", "name": "EOS: no-drop on 3 and 4 where the inventory wants 5 and 6",
     "raw": {"sw_pfc_state": {"Ethernet2": _edited_raw(fixture(EOS_PFC, "avd_ethernet2_no_drop_5_real"), "priority 5 no-drop\n",
                                                       "priority 3 no-drop\n   priority-flow-control priority 4 no-drop\n")}},
     "expect": eos("Ethernet2", priorities=(5, 6)), "status": "FAIL",
     "contains": ["Ethernet2: priority 5, 6 not configured no-drop in the running-config (no-drop priorities: 3, 4)", PFC_OFF]},

    # --- pfc_enabled: several wanted priorities said in full
    {"check": "pfc_enabled", "name": "SONiC: lossless 3 and 4 wanted: each port named with the priorities it lacks",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "pfc_off")},
     "expect": dict(SONIC, pyramid_pfc_priorities=[3, 4]), "status": "FAIL",
     "contains": ["Ethernet0: PFC off on priority 4 (lossless priorities: 3); Ethernet8: PFC off on priority 3, 4 (lossless priorities: none)"]},
    {"check": "pfc_enabled", "name": "SONiC: lossless priorities 3 and 4 wanted and on",
     "raw": {"sw_pfc_state": fixture(SONIC_PFC, "lossless_3_4_real")},
     "expect": dict(SONIC, pyramid_switch_ports=plan("Ethernet0", "Ethernet4"), pyramid_pfc_priorities=[3, 4]), "status": "PASS",
     "contains": ["2 ports, PFC operational on priority 3, 4"]},
]
