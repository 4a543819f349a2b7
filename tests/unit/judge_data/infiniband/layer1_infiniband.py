"""InfiniBand links at Layer 1 (catalog/infiniband.yml, issue 36) as a data table: ib_links, a pod check whose
subnet read (iblinkinfo, read once for the pod on the reader of ib_fabric_hosts) judge_pod hands to every node.

The subnet: real iblinkinfo captures (tests/unit/parsers/linux_iblinkinfo: infiniband-diags 44.0 on ibsim 0.10, links at
4X HDR, 53.125 Gbps a lane), healthy, with node-002 mlx5_1 unplugged, and with node-003 mlx5_0 at 1X as well. Each
node's own ibstat: the real ConnectX-7 InfiniBand capture (tests/unit/parsers/linux_ibstat/cx7_ib_ndr) with its two
port GUIDs changed by hand to that node's two CAs of the ibsim subnet, so that the node finds its rails by GUID.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import failed, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited

HEALTHY = fixture("linux_iblinkinfo", "ibsim_hdr_4_nodes_2_rails")
UNPLUGGED_AND_1X = fixture("linux_iblinkinfo", "ibsim_rail_at_1x")  # node-002 mlx5_1 gone, node-003 mlx5_0 at 1X
CUT = fixture("linux_iblinkinfo", "cut_inside_a_port_line")
# the ibsim subnet's port GUIDs of node-00N's mlx5_0 and mlx5_1 (its CA lines)
GUIDS = {"node-001": ("0xb83fd20300a0f001", "0xb83fd20300a0f003"), "node-002": ("0xb83fd20300a0f005", "0xb83fd20300a0f007"),
         "node-003": ("0xb83fd20300a0f009", "0xb83fd20300a0f00b"), "node-004": ("0xb83fd20300a0f00d", "0xb83fd20300a0f00f")}
NODES = sorted(GUIDS)
HDR = {"pyramid_rails": ["mlx5_0", "mlx5_1"], "pyramid_rail_rate_gbps": 200, "pyramid_rdma_link_layer": "infiniband"}


def ibstat(node):
    """cx7_ib_ndr's real ibstat, its CAs' port GUIDs the node's own in the ibsim subnet."""
    text = edited(fixture("linux_ibstat", "cx7_ib_ndr"), "Port GUID: 0xa088c20300f1e210", "Port GUID: %s" % GUIDS[node][0])
    return edited(text, "Port GUID: 0xa088c20300f1e211", "Port GUID: %s" % GUIDS[node][1])


def pod(subnet, nodes=NODES):
    return {node: {"ib_link_info": subnet, "ibstat": ibstat(node)} for node in nodes}


DATA = [
    {"check": "ib_links", "name": "a healthy HDR subnet: every node's two rails at 4X 53.125 Gbps, found by port GUID",
     "raw": pod(HEALTHY), "expect": HDR, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-001": ["2 rails at 4X 53.125 Gbps a lane, each Active/LinkUp",
                               "mlx5_0: 4X 53.125 Gbps Active/LinkUp to leaf-r0 port 1"]}},
    {"check": "ib_links", "name": "a rail at 1X names both ends and the lanes; a rail gone from the subnet is not seen, never a pass",
     "raw": pod(UNPLUGGED_AND_1X), "expect": HDR,
     "status": {"node-001": "PASS", "node-002": "ERROR", "node-003": "FAIL", "node-004": "PASS"},
     "contains": {"node-003": ["mlx5_0: 1X 53.125 Gbps Active/LinkUp to leaf-r0 port 3 (could be 12X)", "fewer lanes (1X/2X of 4X)"],
                  "node-002": ["mlx5_1 (port GUID 0xb83fd20300a0f007): not in iblinkinfo", "the read is cut short or the fabric changed"]}},
    {"check": "ib_links", "name": "HDR links on an NDR pod: every rail at a lower speed than its rate",
     "raw": pod(HEALTHY, ["node-001"]), "expect": dict(HDR, pyramid_rail_rate_gbps=400), "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["4X 106.25 Gbps a lane", "mlx5_1: 4X 53.125 Gbps Active/LinkUp to leaf-r1 port 1",
                               "lower speed than its rate"]}},
    {"check": "ib_links", "name": "a width the pod does not run at is expected of it: FAIL on every rail",
     "raw": pod(HEALTHY, ["node-004"]), "expect": dict(HDR, pyramid_ib_link_width="2X"), "status": {"node-004": "FAIL"},
     "contains": {"node-004": ["every rail Active/LinkUp at 2X", "mlx5_0: 4X 53.125 Gbps"]}},
    {"check": "ib_links", "name": "iblinkinfo missing on the reader: an ERROR on every node naming the command",
     "raw": {node: {"ibstat": ibstat(node)} for node in NODES[:2]},
     "facts": {node: {"ib_link_info": failed("iblinkinfo", "iblinkinfo: command not found", "missing")} for node in NODES[:2]},
     "expect": HDR, "status": {"node-001": "ERROR", "node-002": "ERROR"},
     "contains": {"node-001": ["iblinkinfo: command not found"]}},
    {"check": "ib_links", "name": "a subnet read cut inside a port line is no read: ERROR, never a pass",
     "raw": pod(CUT, ["node-001"]), "expect": HDR, "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["no iblinkinfo header or port line"]}},
    {"check": "ib_links", "name": "a rail rate with no known InfiniBand lane speed is an ERROR, not a guess",
     "raw": pod(HEALTHY, ["node-001"]), "expect": dict(HDR, pyramid_rail_rate_gbps=300), "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["no InfiniBand lane speed is known for a 300 Gb/s rail"]}},
    {"check": "ib_links", "name": "a rail its own ibstat does not list is not seen: ERROR",
     "raw": pod(HEALTHY, ["node-001"]), "expect": dict(HDR, pyramid_rails=["mlx5_0", "mlx5_1", "mlx5_2"]), "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["mlx5_2: not in node-001's ibstat"]}},
]


def swapped(subnet):
    """A real subnet read with node-001's two cables crossed at the leaves, by hand: its mlx5_0 on leaf-r1 port 1 and
    its mlx5_1 on leaf-r0 port 1, at both ends of each link."""
    parser, text = subnet
    text = text.replace('"node-001 mlx5_0"', '"@0"').replace('"node-001 mlx5_1"', '"node-001 mlx5_0"').replace('"@0"', '"node-001 mlx5_1"')
    lines = text.splitlines(True)
    for number, line in enumerate(lines):  # the CA lines' far ends: leaf-r0 port 1 <-> leaf-r1 port 1
        if lines[number - 1].startswith("CA: node-001 mlx5_0:"):
            lines[number] = line.replace('       2    1[  ] "leaf-r0"', '       3    1[  ] "leaf-r1"')
        elif lines[number - 1].startswith("CA: node-001 mlx5_1:"):
            lines[number] = line.replace('       3    1[  ] "leaf-r1"', '       2    1[  ] "leaf-r0"')
    return parser, "".join(lines)


NDR = fixture("linux_iblinkinfo", "ibsim_ndr_4_nodes_2_rails")
DATA += [
    {"check": "ib_rail_leaves", "name": "each rail of every node on its rail's leaf", "raw": pod(NDR), "expect": HDR,
     "status": dict.fromkeys(NODES, "PASS"), "contains": {"node-002": ["2 rails each on its rail's leaf (mlx5_0 on leaf-r0; mlx5_1 on leaf-r1)"]}},
    {"check": "ib_rail_leaves", "name": "two cables crossed at the leaves name both rails, where they land and their own leaves",
     "raw": pod(swapped(NDR)), "expect": HDR, "status": {"node-001": "FAIL", "node-002": "PASS", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-001": ["mlx5_0 on leaf-r1 port 1, the leaf of mlx5_1 (3 other nodes' mlx5_1 there); mlx5_0's leaf: leaf-r0",
                               "mlx5_1 on leaf-r0 port 1, the leaf of mlx5_0", "{cause}"]}},
    {"check": "ib_rail_leaves", "name": "two nodes cannot show which rail a leaf serves: not applicable, never a pass",
     "raw": pod(NDR, ["node-001", "node-002"]), "expect": HDR, "status": {"node-001": "SKIP", "node-002": "SKIP"},
     "contains": {"node-001": ["cannot tell which rail a leaf serves (fewer than 3 nodes' rails on it"]}},
    {"check": "ib_rail_leaves", "name": "a rail missing from the subnet read is not seen: ERROR",
     "raw": pod(fixture("linux_iblinkinfo", "ibsim_rail_unplugged")), "expect": HDR,
     "status": {"node-001": "PASS", "node-002": "ERROR", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-002": ["mlx5_1: not in iblinkinfo"]}},
    {"check": "ib_rail_leaves", "name": "no subnet read: ERROR on every node naming the command",
     "raw": {node: {"ibstat": ibstat(node)} for node in NODES[:3]},
     "facts": {node: {"ib_link_info": failed("iblinkinfo", "read once for the pod on a host of ib_fabric_hosts: no host of "
                                                           "ib_fabric_hosts (or of gpu_nodes) is in the run and climbed to layer 1")}
               for node in NODES[:3]},
     "expect": HDR, "status": dict.fromkeys(NODES[:3], "ERROR"), "contains": {"node-001": ["no host of ib_fabric_hosts"]}},
]


# --- ib_port_errors: the subnet's error counters read twice a soak apart (ibqueryerrors on the fabric host) -------------
# Real captures of the same ibsim subnet as HEALTHY (tests/unit/parsers/linux_ibqueryerrors: `ibqueryerrors
# --threshold-file /dev/null`), each state set from ibsim's console between reads: old counts (leaf-r0 port 2, facing
# node-002 mlx5_0: 5 symbol errors; node-003 mlx5_0's own port: 2 link downs), then leaf-r0 port 2 risen to 40, then
# leaf-r0 port 4 (node-004 mlx5_0) at 65535 symbol errors and 15 local link integrity errors and leaf-r1 port 3
# (node-003 mlx5_1) at 255 link error recoveries: each its counter's maximum.
COUNTS = dict({state: fixture("linux_ibqueryerrors", "ibsim_" + state)
               for state in ("healthy", "old", "rising", "saturated", "thresholds", "suppressed")},
              cut_inside_the_summary=fixture("linux_ibqueryerrors", "cut_inside_the_summary"))


def soak(before, after, nodes=NODES, seconds=300):
    """Each node's ibstat as ibstat(node): its CAs' node GUIDs other than their port GUIDs, as on ibsim (a CA's port 1
    is its node GUID + 1) and on ConnectX-3; ibqueryerrors names a CA's port by its port GUID, which the judge finds
    (it looked for the node GUID: the CA's own counts were never found, a false PASS the real stack showed)."""
    return {node: {"ib_port_counters": {"before": COUNTS[before], "after": COUNTS[after], "seconds": seconds},
                   "ib_link_info": HEALTHY, "ibstat": ibstat(node)} for node in nodes}


SOAK = dict(HDR, pyramid_soak_seconds=300)
DATA += [
    {"check": "ib_port_errors", "name": "no error counter on any port at either read: every node passes",
     "raw": soak("healthy", "healthy"), "expect": SOAK, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-001": ["2 rails, both ends: no error counter rose over 300s"]}},
    {"check": "ib_port_errors", "name": "old counts at a leaf port and at a CA's own port that do not rise pass, said",
     "raw": soak("old", "old"), "expect": SOAK, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-002": ["old counts: leaf-r0 port 2 (node-002 mlx5_0): SymbolErrorCounter 5, not rising"],
                  "node-003": ["node-003 mlx5_0 port 1: LinkDownedCounter 2, not rising"]}},
    {"check": "ib_port_errors", "name": "symbol errors rising at the leaf port facing a rail: FAIL naming the port, node and rail",
     "raw": soak("old", "rising"), "expect": SOAK,
     "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-002": ["leaf-r0 port 2 (node-002 mlx5_0): SymbolErrorCounter +35 in 300s (5 -> 40)",
                               "bit errors on the link's lanes: a dirty or damaged cable or transceiver"]}},
    {"check": "ib_port_errors", "name": "a counter at its width's maximum (16-bit 65535, 8-bit 255) proves nothing: ERROR with its reset",
     "raw": soak("rising", "saturated"), "expect": SOAK,
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR", "node-004": "ERROR"},
     "contains": {"node-004": ["leaf-r0 port 4 (node-004 mlx5_0): SymbolErrorCounter 65535, its 16-bit maximum: it no longer "
                               "counts (clear it: perfquery -R -G 0x1070fd0300c1e000 4)",
                               "LocalLinkIntegrityErrors 15, its 4-bit maximum"],
                  "node-003": ["leaf-r1 port 3 (node-003 mlx5_1): LinkErrorRecoveryCounter 255, its 8-bit maximum"]}},
    {"check": "ib_port_errors", "name": "link downs at a CA's own port, its node GUID not its port's: found by the port GUID, FAIL",
     "raw": soak("healthy", "old", ["node-003"]), "expect": SOAK, "status": {"node-003": "FAIL"},
     "contains": {"node-003": ["node-003 mlx5_0 port 1: LinkDownedCounter +2 in 300s (0 -> 2)"]}},
    {"check": "ib_port_errors", "name": "a count lower than at the start was cleared during the soak: ERROR, never a pass",
     "raw": soak("rising", "old"), "expect": SOAK,
     "status": {"node-001": "PASS", "node-002": "ERROR", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-002": ["SymbolErrorCounter went from 40 to 5 (cleared during the soak)"]}},
    {"check": "ib_port_errors", "name": "a read under thresholds hides counts (node-003's 2 link downs): ERROR on every node",
     "raw": soak("saturated", "thresholds", ["node-001", "node-003"]), "expect": SOAK,
     "status": {"node-001": "ERROR", "node-003": "ERROR"},
     "contains": {"node-001": ["counts at or under thresholds LinkDownedCounter 10, SymbolErrorCounter 10 are not listed",
                               "--threshold-file /dev/null"]}},
    {"check": "ib_port_errors", "name": "a read with a counter suppressed (-s) does not show it: ERROR",
     "raw": soak("saturated", "suppressed", ["node-003"]), "expect": SOAK, "status": {"node-003": "ERROR"},
     "contains": {"node-003": ["LinkDownedCounter suppressed"]}},
    {"check": "ib_port_errors", "name": "a read cut inside its summary is no read: ERROR, never a pass",
     "raw": soak("healthy", "cut_inside_the_summary", ["node-001"]), "expect": SOAK, "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["no complete closing summary"]}},
]
