"""A subnet whose switches all keep their factory node description (issue 67), as a data table: every InfiniBand check
that reads the subnet (iblinkinfo, dump_fts, ibqueryerrors) judged in full, the switches known by their GUIDs and named
by a node-name map's names where the tools were given one (pyramid_ib_node_name_map: `--node-name-map`), by GUID
otherwise.

The reads: real captures of one ibsim subnet whose four switches all answer "Quantum-2 Mellanox Technologies"
(tests/unit/parsers/linux_iblinkinfo, linux_dump_fts, linux_ibqueryerrors ibsim_factory_descriptions*: infiniband-diags
44.0 on ibsim 0.10, opensm 3.3.23; the twin's 4 nodes x 2 rails, leaf1-r0 0x0c42a10300000001, leaf1-r1 ...02, spine-01
...03, spine-02 ...04; node-00N's mlx5_R on leaf1-rR port N, at 4X HDR). Each node's own ibstat: the real ConnectX-7
capture with its two port GUIDs changed by hand to that node's two CAs of the subnet.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited

FACTORY = fixture("linux_iblinkinfo", "ibsim_factory_descriptions")
MAPPED = fixture("linux_iblinkinfo", "ibsim_factory_descriptions_node_name_map")
TABLES = fixture("linux_dump_fts", "ibsim_factory_descriptions")
TABLES_MAPPED = fixture("linux_dump_fts", "ibsim_factory_descriptions_node_name_map")
COUNTS = {state: fixture("linux_ibqueryerrors", "ibsim_factory_descriptions_" + state)
          for state in ("healthy", "symbol_errors", "symbol_errors_node_name_map")}
LEAF_R0, LEAF_R1, SPINE_01, SPINE_02 = ("0x0c42a1030000000%d" % n for n in range(1, 5))
NODES = ["node-00%d" % n for n in range(1, 5)]
IB = {"pyramid_rails": ["mlx5_0", "mlx5_1"], "pyramid_rail_rate_gbps": 200, "pyramid_rdma_link_layer": "infiniband",
      "pyramid_ib_route_spread_tolerance": 0.5, "pyramid_soak_seconds": 300}


def ibstat(node):
    """cx7_ib_ndr's real ibstat, its CAs' port GUIDs node-00N's mlx5_0 and mlx5_1 in the subnet (0xb83fd20300a00N01, ...03)."""
    number = int(node[-1])
    text = edited(fixture("linux_ibstat", "cx7_ib_ndr"), "Port GUID: 0xa088c20300f1e210", "Port GUID: 0xb83fd20300a0%02x01" % number)
    return edited(text, "Port GUID: 0xa088c20300f1e211", "Port GUID: 0xb83fd20300a0%02x03" % number)


def pod(subnet, nodes=NODES, **reads):
    return {node: dict({"ib_link_info": subnet, "ibstat": ibstat(node)}, **reads) for node in nodes}


def plan(node, switches=(LEAF_R0, LEAF_R1), port=None):
    return [{"rail": "mlx5_%d" % rail, "switch": switch, "port": port or int(node[-1])} for rail, switch in enumerate(switches)]


def counters(before, after):
    return {"before": COUNTS[before], "after": COUNTS[after], "seconds": 300}


DATA = [
    {"check": "ib_links", "name": "switches that share one factory description: every rail judged, its leaf named by GUID",
     "raw": pod(FACTORY), "expect": IB, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-002": ["mlx5_0: 4X 53.125 Gbps Active/LinkUp to %s port 2" % LEAF_R0,
                               "mlx5_1: 4X 53.125 Gbps Active/LinkUp to %s port 2" % LEAF_R1]}},
    {"check": "ib_links", "name": "the same subnet read with a node-name map: the leaves named by the map",
     "raw": pod(MAPPED), "expect": IB, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-003": ["mlx5_0: 4X 53.125 Gbps Active/LinkUp to leaf1-r0 port 3"]}},
    {"check": "ib_rail_leaves", "name": "switches that share one description: each rail's leaf told apart by its GUID",
     "raw": pod(FACTORY), "expect": IB, "status": dict.fromkeys(NODES, "PASS")},
    {"check": "ib_cabling", "name": "a cabling plan naming the factory-described leaves by GUID: PASS",
     "raw": pod(FACTORY, ["node-004"]), "expect": dict(IB, pyramid_ib_ports=plan("node-004")), "status": {"node-004": "PASS"},
     "contains": {"node-004": ["2 rails each on its planned switch and port"]}},
    {"check": "ib_cabling", "name": "a plan naming the map's names, read with the map: PASS",
     "raw": pod(MAPPED, ["node-001"]), "expect": dict(IB, pyramid_ib_ports=plan("node-001", ("leaf1-r0", "leaf1-r1"))),
     "status": {"node-001": "PASS"}},
    {"check": "ib_cabling", "name": "a plan that swaps the two leaves (by GUID): FAIL naming where each lands by GUID",
     "raw": pod(FACTORY, ["node-001"]), "expect": dict(IB, pyramid_ib_ports=plan("node-001", (LEAF_R1, LEAF_R0))),
     "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["mlx5_0: on %s port 1, planned %s port 1 (there: node-001 mlx5_1)" % (LEAF_R0, LEAF_R1)]}},
    {"check": "ib_cabling", "name": "a plan naming the description many switches share names none of them: FAIL saying so",
     "raw": pod(FACTORY, ["node-002"]),
     "expect": dict(IB, pyramid_ib_ports=plan("node-002", ("Quantum-2 Mellanox Technologies", LEAF_R1))),
     "status": {"node-002": "FAIL"},
     "contains": {"node-002": ["'Quantum-2 Mellanox Technologies' is the description of 4 switches"]}},
    {"check": "ib_routing", "name": "routes of switches that share one description: each leaf's table found by its GUID",
     "raw": pod(FACTORY, ib_routes=TABLES), "expect": IB, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-001": ["%s: 4 routes to other leaves' CAs: port 33 (%s) 2, port 34 (%s) 2" % (LEAF_R0, SPINE_01, SPINE_02)]}},
    {"check": "ib_routing", "name": "the subnet read with the map, the tables without it: joined by GUID, named by the map",
     "raw": pod(MAPPED, ib_routes=TABLES), "expect": IB, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-002": ["leaf1-r0: 4 routes to other leaves' CAs: port 33 (spine-01) 2, port 34 (spine-02) 2"]}},
    {"check": "ib_routing", "name": "both read with the map",
     "raw": pod(MAPPED, ["node-004"], ib_routes=TABLES_MAPPED), "expect": IB, "status": {"node-004": "PASS"}},
    {"check": "ib_port_errors", "name": "symbol errors rising at a factory-described leaf's port: FAIL naming it by GUID",
     "raw": pod(FACTORY, ib_port_counters=counters("healthy", "symbol_errors")), "expect": IB,
     "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-002": ["%s port 2 (node-002 mlx5_0): SymbolErrorCounter +40 in 300s (0 -> 40)" % LEAF_R0]}},
    {"check": "ib_port_errors", "name": "the same, read with the map: the leaf named by it",
     "raw": pod(MAPPED, ["node-002"], ib_port_counters=counters("healthy", "symbol_errors_node_name_map")), "expect": IB,
     "status": {"node-002": "FAIL"},
     "contains": {"node-002": ["leaf1-r0 port 2 (node-002 mlx5_0): SymbolErrorCounter +40 in 300s (0 -> 40)"]}},
]
