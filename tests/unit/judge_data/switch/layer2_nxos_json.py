"""Layer 2 on NX-OS read as JSON (issue 35): `show ip bgp summary | json` and `show ip route bgp | json` as NX-OS 9.3
printed them on a virtual Nexus 9300 (netenglabs/suzieq's captures of exit01, one snapshot: the summary and the route
table of the same router). A JSON document that decodes is whole, and NX-OS counts its peers (configuredpeers) and each
route's best paths (ucast-nhops): a prefix it lacks is absent and a route it lists short is short, both FAILs with
their causes, where the text table (no trailer) could only make the absence an ERROR about the read.

exit01's default VRF: iBGP sessions to 10.0.0.21 and 10.0.0.22 (AS 64520) Established with 0 prefixes, an eBGP session
to 169.254.254.2 (AS 65533) Established with 10; ten BGP routes, each with that one eBGP path.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

SUMMARY, ROUTES = "cisco_nxos_show_ip_bgp_summary_json", "cisco_nxos_show_ip_route_bgp_json"
EXIT01 = {"sw_routes": fixture(ROUTES, "exit01_json_native_real"), "sw_bgp": fixture(SUMMARY, "exit01_json_native_real")}
BORDER = [{"address": "169.254.254.2", "name": "border-01", "remote_as": 65533}]
IBGP = [{"address": "10.0.0.21", "name": "spine-01", "remote_as": 64520}, {"address": "10.0.0.22", "name": "spine-02", "remote_as": 64520}]


def exit01(neighbors=None, prefixes=("172.16.1.0/24", "172.16.3.0/24"), paths=1, minimum=1):
    return {"pyramid_switch_os": "nxos", "pyramid_bgp_neighbors": BORDER if neighbors is None else neighbors,
            "pyramid_bgp_min_prefixes": minimum, "pyramid_ecmp_prefixes": list(prefixes), "pyramid_ecmp_paths": paths}


DATA = [
    {"check": "bgp_sessions", "name": "NX-OS JSON: the eBGP session up with its prefixes", "raw": {"sw_bgp": EXIT01["sw_bgp"]},
     "expect": exit01(), "status": "PASS", "contains": ["1 neighbors Established"]},
    {"check": "bgp_sessions", "name": "NX-OS JSON: a planned neighbor the summary does not list is not configured (proven)",
     "raw": {"sw_bgp": EXIT01["sw_bgp"]}, "expect": exit01(BORDER + [{"address": "10.0.0.23", "name": "spine-03", "remote_as": 64520}]),
     "status": "FAIL", "contains": ["10.0.0.23 (spine-03) not configured", "not configured on this switch"]},
    {"check": "bgp_sessions", "name": "NX-OS JSON: sessions up that receive nothing", "raw": {"sw_bgp": EXIT01["sw_bgp"]},
     "expect": exit01(IBGP), "status": "FAIL", "contains": ["10.0.0.21 (spine-01) Established, 0 prefixes received"]},
    {"check": "bgp_sessions", "name": "NX-OS JSON: Shut (Admin), the word and its reason named",
     "raw": {"sw_bgp": fixture(SUMMARY, "json_pretty_shut_admin")},
     "expect": exit01([{"address": "10.22.0.0", "name": "spine-01", "remote_as": 65305}, {"address": "10.22.0.4", "name": "spine-02", "remote_as": 65305}]),
     "status": "FAIL", "contains": ["10.22.0.4 (spine-02) Shut (Admin)", "{cause}"]},
    {"check": "ecmp", "name": "NX-OS JSON: the planned prefixes with their one path", "raw": EXIT01, "expect": exit01(),
     "status": "PASS", "contains": ["2 prefixes, 1-way ECMP each"]},
    {"check": "ecmp", "name": "NX-OS JSON: a prefix the table lacks is absent (FAIL, not an ERROR about the read)", "raw": EXIT01,
     "expect": exit01(prefixes=("172.16.1.0/24", "172.16.4.0/24")), "status": "FAIL",
     "contains": ["172.16.4.0/24: no BGP route", "not advertised by its leaf"]},
    {"check": "ecmp", "name": "NX-OS JSON: the last route listed short is short (ucast-nhops counts its paths)", "raw": EXIT01,
     "expect": exit01(prefixes=("172.16.3.0/24",), paths=2), "status": "FAIL", "contains": ["172.16.3.0/24: 1 of 2 next hops"]},
]
