"""The SM's routes at Layer 2 (catalog/infiniband.yml ib_routing, issue 36) as a data table: a pod check whose
forwarding tables (dump_fts) and subnet (iblinkinfo), both read once for the pod on the reader of ib_fabric_hosts,
judge_pod hands to every node, each judged on the leaves of its own rails.

dump_fts and iblinkinfo: real captures of one ibsim subnet (tests/unit/parsers/linux_dump_fts, linux_iblinkinfo
ibsim_sdr_2_spines_4_rails: infiniband-diags 44.0 on ibsim 0.10, opensm 3.3.23; 2 spines, 4 rail leaves each with 2
uplinks to either spine, 4 nodes of 4 CAs) under opensm's minhop and ftree engines (healthy) and updn with spine-01
alone as root (the funnel). Each node's own ibstat: the real ConnectX-7 capture with its two port GUIDs changed by hand
to that node's mlx5_0 and mlx5_1 of the subnet. Tables edited by hand where a row says so.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import failed, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited

SUBNET = fixture("linux_iblinkinfo", "ibsim_sdr_2_spines_4_rails")
MINHOP = fixture("linux_dump_fts", "ibsim_minhop")
FTREE = fixture("linux_dump_fts", "ibsim_ftree")
FUNNEL = fixture("linux_dump_fts", "ibsim_updn_one_root")  # opensm -R updn, root_guid_file naming spine-01 alone
# the subnet's port GUIDs of node-00N's mlx5_0 and mlx5_1 (iblinkinfo's CA lines)
GUIDS = {"node-001": ("0x0000000000100001", "0x0000000000100003"), "node-002": ("0x0000000000100009", "0x000000000010000b"),
         "node-003": ("0x0000000000100011", "0x0000000000100013"), "node-004": ("0x0000000000100019", "0x000000000010001b")}
NODES = sorted(GUIDS)
IB = {"pyramid_rails": ["mlx5_0", "mlx5_1"], "pyramid_rdma_link_layer": "infiniband", "pyramid_ib_route_spread_tolerance": 0.5}
LEAF_R0_MINHOP = ("leaf-r0: 12 routes to other leaves' CAs: port 33 (spine-01) 3, port 34 (spine-01) 3, port 35 (spine-02) 3, "
                  "port 36 (spine-02) 3")


def ibstat(node):
    """cx7_ib_ndr's real ibstat, its CAs' port GUIDs the node's own in the ibsim subnet."""
    text = edited(fixture("linux_ibstat", "cx7_ib_ndr"), "Port GUID: 0xa088c20300f1e210", "Port GUID: %s" % GUIDS[node][0])
    return edited(text, "Port GUID: 0xa088c20300f1e211", "Port GUID: %s" % GUIDS[node][1])


def pod(tables, nodes=NODES):
    return {node: {"ib_routes": tables, "ib_link_info": SUBNET, "ibstat": ibstat(node)} for node in nodes}


def without_table(source, switch):
    """The read with one switch's whole table left out (a cut at a table's end cannot be told from fewer switches)."""
    parser, text = source
    start = text.index("(%s):\n" % switch)
    start = text.rindex("Unicast lids", 0, start)
    end = text.index("valid lids dumped \n", start) + len("valid lids dumped \n")
    return parser, text[:start] + text[end:]


def in_table(source, switch, old, new):
    """The read with one line of one switch's table changed by hand."""
    parser, text = source
    start = text.index("(%s):\n" % switch)
    end = text.index("valid lids dumped", start)
    assert old in text[start:end], old
    return parser, text[:start] + text[start:end].replace(old, new, 1) + text[end:]


# leaf-r0's route to node-002 mlx5_1 (LID 0x000c) in the minhop read: out of port 34, to spine-01
TO_NODE_002_MLX5_1 = "0x000c 034 : (Channel Adapter portguid 0x000000000010000b: 'node-002 mlx5_1')\n"

DATA = [
    {"check": "ib_routing", "name": "minhop: every leaf spreads its 12 routes to the other leaves' CAs 3 over each uplink: PASS",
     "raw": pod(MINHOP), "expect": IB, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-001": ["2 leaves of its rails", LEAF_R0_MINHOP]}},
    {"check": "ib_routing", "name": "ftree, no route between the spines themselves: the leaves' spread is what counts, PASS",
     "raw": pod(FTREE, NODES[:2]), "expect": IB, "status": {"node-001": "PASS", "node-002": "PASS"}},
    {"check": "ib_routing", "name": "updn with spine-01 alone as root: every leaf funnels onto spine-01, FAIL naming leaf, ports and spines",
     "raw": pod(FUNNEL), "expect": IB, "status": dict.fromkeys(NODES, "FAIL"),
     "contains": {"node-003": ["leaf-r0: 12 routes to other leaves' CAs: port 33 (spine-01) 6, port 34 (spine-01) 6, "
                               "port 35 (spine-02) 0, port 36 (spine-02) 0 - funnelled onto spine-01, spine-02 starved",
                               "leaf-r1: 12 routes", "Routing funnelled", "root_guid_file"]}},
    {"check": "ib_routing", "name": "a tolerance of 1 accepts the funnel (the inventory's choice): PASS",
     "raw": pod(FUNNEL, NODES[:1]), "expect": dict(IB, pyramid_ib_route_spread_tolerance=1.0), "status": {"node-001": "PASS"}},
    {"check": "ib_routing", "name": "a route out of a port that is no active uplink (a down port): FAIL naming the CA and the port",
     "raw": pod(in_table(MINHOP, "leaf-r0", TO_NODE_002_MLX5_1, TO_NODE_002_MLX5_1.replace(" 034 ", " 040 ")), NODES[:1]), "expect": IB,
     "status": {"node-001": "FAIL"}, "contains": {"node-001": ["node-002 mlx5_1 out of port 40"]}},
    {"check": "ib_routing", "name": "a CA another leaf has no route to (port 255, unrouted): FAIL naming it",
     "raw": pod(in_table(MINHOP, "leaf-r0", TO_NODE_002_MLX5_1, TO_NODE_002_MLX5_1.replace(" 034 ", " 255 ")), NODES[:1]), "expect": IB,
     "status": {"node-001": "FAIL"}, "contains": {"node-001": ["no route to node-002 mlx5_1"]}},
    {"check": "ib_routing", "name": "a leaf of the node's rails missing from the read: ERROR naming it, never a pass",
     "raw": pod(without_table(MINHOP, "leaf-r1"), NODES[:1]), "expect": IB, "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["no forwarding table for leaf-r1 in dump_fts", "(5 tables read)"]}},
    {"check": "ib_routing", "name": "a subnet read with an uplink's line lost (leaf-r3 port 36, seen from spine-02 only): ERROR",
     "raw": {"node-001": {"ib_routes": MINHOP, "ib_link_info": ("linux_iblinkinfo", "".join(
         line for line in SUBNET[1].splitlines(True) if not line.startswith("           6   36[  ]"))), "ibstat": ibstat("node-001")}},
     "expect": IB, "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["does not agree with itself: spine-02 port 8 to leaf-r3 port 36 seen from one end only"]}},
    {"check": "ib_routing", "name": "dump_fts missing on the reader: ERROR on every node naming the command",
     "raw": {node: {"ib_link_info": SUBNET, "ibstat": ibstat(node)} for node in NODES[:2]},
     "facts": {node: {"ib_routes": failed("dump_fts", "dump_fts: command not found", "missing")} for node in NODES[:2]},
     "expect": IB, "status": {"node-001": "ERROR", "node-002": "ERROR"}, "contains": {"node-001": ["dump_fts: command not found"]}},
    {"check": "ib_routing", "name": "a read cut inside a table's line is no read: ERROR, never a pass",
     "raw": pod(fixture("linux_dump_fts", "cut_inside_a_table"), NODES[:1]), "expect": IB, "status": {"node-001": "ERROR"},
     "contains": {"node-001": ["is no dump_fts header, heading, route or trailer line"]}},
    {"check": "ib_routing", "name": "a read cut at a line's end inside a table (no trailer) is no read: ERROR",
     "raw": pod(("linux_dump_fts", MINHOP[1][:MINHOP[1].index("0x0010 035")]), NODES[:1]), "expect": IB,
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["has no trailer (the read was cut short)"]}},
    {"check": "ib_routing", "name": "ibroute's error in place of the tables: ERROR",
     "raw": pod(fixture("linux_dump_fts", "ibroute_error_instead_of_a_table"), NODES[:1]), "expect": IB,
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["no dump_fts header"]}},
    {"check": "ib_routing", "name": "a rail the subnet read does not show: ERROR naming it",
     "raw": pod(MINHOP, NODES[:1]), "expect": dict(IB, pyramid_rails=["mlx5_0", "mlx5_1", "mlx5_2"]),
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["mlx5_2: not in iblinkinfo"]}},
]
