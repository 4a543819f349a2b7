"""Layer 2 on a real FRR fabric (issue 35): what the lab's routers printed (lab/fabric.py, lab/capture.py: FRR 8.4.4,
4 spines, 4 leaves, eBGP) in three states, judged through both ways of each source: FRR's JSON (a document that
decodes is whole, so a prefix it lacks is absent: FAIL with the cause) and the text tables (no trailer: a prefix they
lack may have been cut off, so absence alone is an ERROR about the read; a short route they list before their end
stands). Each fault is caught on its own router with its cause.

The four-faults state: leaf1 shut its session to spine2, leaf2 runs maximum-paths 1, leaf3 expects AS 65999 of spine3,
leaf4's sessions have no route-map (eBGP requires a policy). The isolated state: every link of leaf1 down, and leaf2
and spine1 each expect another AS of the other.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

SUMMARY_JSON, SUMMARY_TEXT = "frr_show_bgp_summary_json", "frr_show_ip_bgp_summary"
ROUTES_JSON, ROUTES_TEXT = "frr_show_ip_route_json", "frr_show_ip_route"
NO_POLICY = "bgp ebgp-requires-policy"
SESSION = "BGP session not Established"


def leaf(number, spines=4, leaves=4):
    """A lab leaf's expectations: a session to every spine (its /31's spine side), every other leaf's rail prefix
    with one path per spine."""
    return {"pyramid_switch_os": "cumulus", "pyramid_bgp_min_prefixes": 1, "pyramid_ecmp_paths": spines,
            "pyramid_bgp_neighbors": [{"address": "10.254.%d.%d" % (number, 2 * (spine - 1)), "name": "spine%d" % spine,
                                       "remote_as": 65000} for spine in range(1, spines + 1)],
            "pyramid_ecmp_prefixes": ["10.5%d.0.0/24" % (other - 1) for other in range(1, leaves + 1) if other != number]}


def spine(number, leaves=4):
    return {"pyramid_switch_os": "cumulus", "pyramid_bgp_min_prefixes": 1,
            "pyramid_bgp_neighbors": [{"address": "10.254.%d.%d" % (other, 2 * (number - 1) + 1), "name": "leaf%d" % other,
                                       "remote_as": 65100 + other} for other in range(1, leaves + 1)]}


def case(state, router):
    return "lab_%s_%s_real" % (state, router)


def bgp(parser, state, router):
    return {"sw_bgp": fixture(parser, case(state, router))}


def routes(routes_parser, summary_parser, state, router):
    return {"sw_routes": fixture(routes_parser, case(state, router)), "sw_bgp": fixture(summary_parser, case(state, router))}


DATA = [
    # healthy: no false alarm through either way
    {"check": "bgp_sessions", "name": "lab healthy leaf, JSON", "raw": bgp(SUMMARY_JSON, "healthy", "leaf1"), "expect": leaf(1),
     "status": "PASS", "contains": ["4 neighbors Established"]},
    {"check": "bgp_sessions", "name": "lab healthy leaf, text", "raw": bgp(SUMMARY_TEXT, "healthy", "leaf1"), "expect": leaf(1),
     "status": "PASS", "contains": ["4 neighbors Established"]},
    {"check": "bgp_sessions", "name": "lab healthy spine, JSON", "raw": bgp(SUMMARY_JSON, "healthy", "spine1"), "expect": spine(1),
     "status": "PASS", "contains": ["4 neighbors Established"]},
    {"check": "ecmp", "name": "lab healthy leaf, JSON", "raw": routes(ROUTES_JSON, SUMMARY_JSON, "healthy", "leaf1"),
     "expect": leaf(1), "status": "PASS", "contains": ["3 prefixes, 4-way ECMP each"]},
    {"check": "ecmp", "name": "lab healthy leaf, text", "raw": routes(ROUTES_TEXT, SUMMARY_TEXT, "healthy", "leaf1"),
     "expect": leaf(1), "status": "PASS", "contains": ["3 prefixes, 4-way ECMP each"]},
    # a session shut on the leaf: its summary names it, its routes lack that spine's path (session_down)
    {"check": "bgp_sessions", "name": "lab session shut on the leaf, JSON", "raw": bgp(SUMMARY_JSON, "four_faults", "leaf1"),
     "expect": leaf(1), "status": "FAIL", "contains": ["10.254.1.2 (spine2) Idle", SESSION]},
    {"check": "ecmp", "name": "lab session shut on the leaf, JSON", "raw": routes(ROUTES_JSON, SUMMARY_JSON, "four_faults", "leaf1"),
     "expect": leaf(1), "status": "FAIL", "contains": ["10.51.0.0/24: 3 of 4 next hops (missing via spine2)",
                                                       "10.53.0.0/24: no BGP route", "whose BGP session is down"]},
    # the same read as text: the short routes listed before the table's end stand, so still a FAIL with that cause
    {"check": "ecmp", "name": "lab session shut on the leaf, text", "raw": routes(ROUTES_TEXT, SUMMARY_TEXT, "four_faults", "leaf1"),
     "expect": leaf(1), "status": "FAIL", "contains": ["10.51.0.0/24: 3 of 4 next hops (missing via spine2)", "whose BGP session is down"]},
    # maximum-paths 1: every route one path, every session up
    {"check": "ecmp", "name": "lab maximum-paths 1 on the leaf, JSON", "raw": routes(ROUTES_JSON, SUMMARY_JSON, "four_faults", "leaf2"),
     "expect": leaf(2), "status": "FAIL", "contains": ["10.50.0.0/24: 1 of 4 next hops", "maximum-paths"]},
    # a remote-as the spine does not have: the session never comes up, on both ends
    {"check": "bgp_sessions", "name": "lab wrong remote-as on the leaf, JSON", "raw": bgp(SUMMARY_JSON, "four_faults", "leaf3"),
     "expect": leaf(3), "status": "FAIL", "contains": ["10.254.3.4 (spine3) Idle", SESSION]},
    {"check": "bgp_sessions", "name": "lab wrong remote-as on the leaf, seen from the spine, JSON",
     "raw": bgp(SUMMARY_JSON, "four_faults", "spine3"), "expect": spine(3), "status": "FAIL", "contains": ["10.254.3.5 (leaf3) Idle"]},
    {"check": "bgp_sessions", "name": "lab wrong remote-as on the leaf, seen from the spine, text",
     "raw": bgp(SUMMARY_TEXT, "four_faults", "spine3"), "expect": spine(3), "status": "FAIL", "contains": ["10.254.3.5 (leaf3) Idle"]},
    # eBGP without policy: Established, nothing exchanged; the cause is this leaf's missing policy, in both checks
    {"check": "bgp_sessions", "name": "lab eBGP without policy on the leaf, JSON", "raw": bgp(SUMMARY_JSON, "four_faults", "leaf4"),
     "expect": leaf(4), "status": "FAIL", "contains": ["10.254.4.0 (spine1) Established, no routes exchanged", NO_POLICY]},
    {"check": "bgp_sessions", "name": "lab eBGP without policy on the leaf, text", "raw": bgp(SUMMARY_TEXT, "four_faults", "leaf4"),
     "expect": leaf(4), "status": "FAIL", "contains": ["10.254.4.0 (spine1) Established, no routes exchanged", NO_POLICY]},
    {"check": "ecmp", "name": "lab eBGP without policy on the leaf, JSON", "raw": routes(ROUTES_JSON, SUMMARY_JSON, "four_faults", "leaf4"),
     "expect": leaf(4), "status": "FAIL", "contains": ["10.50.0.0/24: no BGP route", "sessions without policy (Policy)", NO_POLICY]},
    {"check": "ecmp", "name": "lab eBGP without policy on the leaf, text (FRR prints nothing)",
     "raw": routes(ROUTES_TEXT, SUMMARY_TEXT, "four_faults", "leaf4"), "expect": leaf(4), "status": "FAIL",
     "contains": ["10.50.0.0/24: no BGP route", NO_POLICY]},
    # an isolated leaf: every session down, no route; the cause is those sessions, not an unannounced prefix
    {"check": "bgp_sessions", "name": "lab isolated leaf, JSON", "raw": bgp(SUMMARY_JSON, "isolated_and_both_wrong_as", "leaf1"),
     "expect": leaf(1), "status": "FAIL", "contains": ["10.254.1.0 (spine1) Active", "10.254.1.6 (spine4) Active", SESSION]},
    {"check": "ecmp", "name": "lab isolated leaf, JSON",
     "raw": routes(ROUTES_JSON, SUMMARY_JSON, "isolated_and_both_wrong_as", "leaf1"), "expect": leaf(1), "status": "FAIL",
     "contains": ["10.51.0.0/24: no BGP route", "no BGP session Established (spine1, spine2, spine3, spine4)", "whose BGP session is down"]},
    {"check": "ecmp", "name": "lab isolated leaf, text (FRR prints nothing)",
     "raw": routes(ROUTES_TEXT, SUMMARY_TEXT, "isolated_and_both_wrong_as", "leaf1"), "expect": leaf(1), "status": "FAIL",
     "contains": ["no BGP session Established", "whose BGP session is down"]},
    # another leaf beside them: the isolated leaf's prefix absent (the JSON proves it), leaf2's short via spine1
    {"check": "ecmp", "name": "lab a leaf beside an isolated one, JSON",
     "raw": routes(ROUTES_JSON, SUMMARY_JSON, "isolated_and_both_wrong_as", "leaf3"), "expect": leaf(3), "status": "FAIL",
     "contains": ["10.50.0.0/24: no BGP route", "10.51.0.0/24: 3 of 4 next hops (missing via spine1)", "Only some prefixes"]},
    # a remote-as wrong on both ends, seen from the spine: leaf2's session Idle, leaf1's (isolated) Active
    {"check": "bgp_sessions", "name": "lab remote-as wrong on both ends, seen from the spine, JSON",
     "raw": bgp(SUMMARY_JSON, "isolated_and_both_wrong_as", "spine1"), "expect": spine(1), "status": "FAIL",
     "contains": ["10.254.1.1 (leaf1) Active", "10.254.2.1 (leaf2) Idle"]},
]

# One leaf without policy, alone: the other leaves lack its prefix and nothing else. FRR's JSON proves the prefix absent
# (FAIL: not announced by its leaf); the text table, which has no trailer, cannot (ERROR about the read, never a PASS).
DATA += [
    {"check": "ecmp", "name": "lab a prefix its leaf does not announce, JSON",
     "raw": routes(ROUTES_JSON, SUMMARY_JSON, "one_leaf_without_policy", "leaf1"), "expect": leaf(1), "status": "FAIL",
     "contains": ["10.53.0.0/24: no BGP route", "not advertised by its leaf"]},
    {"check": "ecmp", "name": "lab a prefix its leaf does not announce, text",
     "raw": routes(ROUTES_TEXT, SUMMARY_TEXT, "one_leaf_without_policy", "leaf1"), "expect": leaf(1), "status": "ERROR",
     "contains": ["10.53.0.0/24: no BGP route", "may have been cut off"]},
]

# One leaf whose sessions take a route-map that denies every route in: up, with a policy (no Policy mark), 0 prefixes
# received, no remote prefix. The cause is the policy on the way in, not the remote leaves (issue 35); the sessions
# check names the prefixes that did not come. FRR prints no text route table at all: the answer "no route", read whole.
DENYING = "one_leaf_denying_in"
DATA += [
    {"check": "ecmp", "name": "lab sessions up that receive nothing, JSON", "raw": routes(ROUTES_JSON, SUMMARY_JSON, DENYING, "leaf2"),
     "expect": leaf(2), "status": "FAIL",
     "contains": ["10.50.0.0/24: no BGP route", "0 prefixes received (spine1, spine2, spine3, spine4)", "drops them on the way in"]},
    {"check": "ecmp", "name": "lab sessions up that receive nothing, text", "raw": routes(ROUTES_TEXT, SUMMARY_TEXT, DENYING, "leaf2"),
     "expect": leaf(2), "status": "FAIL", "contains": ["10.53.0.0/24: no BGP route", "drops them on the way in"]},
    {"check": "bgp_sessions", "name": "lab sessions up that receive nothing, JSON", "raw": bgp(SUMMARY_JSON, DENYING, "leaf2"),
     "expect": leaf(2), "status": "FAIL", "contains": ["10.254.2.0 (spine1) Established, 0 prefixes received", "does not advertise"]},
]
