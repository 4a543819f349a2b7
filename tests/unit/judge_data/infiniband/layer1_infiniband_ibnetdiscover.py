"""The subnet read by ibnetdiscover (ib_link_info's second way, where iblinkinfo is missing or fails; issue 67) as a
data table: the checks that stand on the subnet's links judged from its topology file, which has every link's width
and speed and the far end's GUID but no port state.

The reads: real captures of layer1_infiniband_factory_names' ibsim subnet (its four switches all "Quantum-2 Mellanox
Technologies"; tests/unit/parsers/linux_ibnetdiscover ibsim_factory_descriptions*: infiniband-diags 44.0 on ibsim
0.10, opensm 3.3.23), with that table's ibstat, dump_fts and ibqueryerrors captures of the same subnet.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband.layer1_infiniband_factory_names import (
    IB, LEAF_R0, LEAF_R1, NODES, SPINE_01, SPINE_02, TABLES, counters, ibstat, plan)

PARSER = "linux_ibnetdiscover"
FACTORY = fixture(PARSER, "ibsim_factory_descriptions")  # (parser, text): the way of that parser
MAPPED = fixture(PARSER, "ibsim_factory_descriptions_node_name_map")


def pod(subnet, nodes=NODES, **reads):
    return {node: dict({"ib_link_info": subnet, "ibstat": ibstat(node)}, **reads) for node in nodes}


MAP = dict(IB, pyramid_ib_node_name_map="/etc/opensm/ib-node-name-map")

DATA = [
    {"check": "ib_links", "name": "ibnetdiscover's read: every rail at its width and speed, its state not shown: ERROR",
     "raw": pod(FACTORY), "expect": IB, "status": dict.fromkeys(NODES, "ERROR"),
     "contains": {"node-002": ["no port state in ibnetdiscover's read",
                               "mlx5_0: 4X 53.125 Gbps LinkUp, state not shown to %s port 2" % LEAF_R0]}},
    {"check": "ib_links", "name": "ibnetdiscover's read of an NDR rate: the HDR links short of it, FAIL whatever the state",
     "raw": pod(FACTORY, ["node-001"]), "expect": dict(IB, pyramid_rail_rate_gbps=400), "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["mlx5_1: 4X 53.125 Gbps LinkUp, state not shown to %s port 1" % LEAF_R1]}},
    {"check": "ib_rail_leaves", "name": "ibnetdiscover's read of factory-described leaves: each rail's leaf by its GUID",
     "raw": pod(FACTORY), "expect": IB, "status": dict.fromkeys(NODES, "PASS")},
    {"check": "ib_cabling", "name": "ibnetdiscover's read with the map: a plan naming the map's names, PASS",
     "raw": pod(MAPPED, ["node-003"]), "expect": dict(MAP, pyramid_ib_ports=plan("node-003", ("leaf1-r0", "leaf1-r1"))),
     "status": {"node-003": "PASS"}},
    {"check": "ib_cabling", "name": "ibnetdiscover's read: a plan swapping the leaves (by GUID), FAIL naming both by GUID",
     "raw": pod(FACTORY, ["node-001"]), "expect": dict(IB, pyramid_ib_ports=plan("node-001", (LEAF_R1, LEAF_R0))),
     "status": {"node-001": "FAIL"},
     "contains": {"node-001": ["mlx5_0: on %s port 1, planned %s port 1 (there: node-001 mlx5_1)" % (LEAF_R0, LEAF_R1)]}},
    {"check": "ib_routing", "name": "ibnetdiscover's read with dump_fts: each leaf's uplinks its linked switch ports",
     "raw": pod(FACTORY, ib_routes=TABLES), "expect": IB, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-001": ["%s: 4 routes to other leaves' CAs: port 33 (%s) 2, port 34 (%s) 2" % (LEAF_R0, SPINE_01, SPINE_02)]}},
    {"check": "ib_port_errors", "name": "ibnetdiscover's read with the map: a rising leaf port named by the map's name",
     "raw": pod(MAPPED, ["node-002"], ib_port_counters=counters("healthy", "symbol_errors_node_name_map")), "expect": MAP,
     "status": {"node-002": "FAIL"},
     "contains": {"node-002": ["leaf1-r0 port 2 (node-002 mlx5_0): SymbolErrorCounter +40 in 300s (0 -> 40)"]}},
]
