"""InfiniBand congestion at idle (catalog/infiniband.yml ib_congestion_idle, issue 36) as a data table: a pod check
whose ibqueryerrors reads (made once for the pod on the reader of ib_fabric_hosts, at the soak's start and at Layer
3) judge_pod hands to every node, each judged on both ends of its own rails' links.

ibqueryerrors and iblinkinfo: real captures of one ibsim subnet (tests/unit/parsers/linux_ibqueryerrors ibsim_sdr_*,
linux_iblinkinfo ibsim_sdr_2_spines_4_rails: infiniband-diags 44.0 on ibsim 0.10, opensm 3.3.23): every counter clear,
then PortXmitWait set with ibsim's console at leaf-r0 port 2 (facing node-002 mlx5_0) and at node-004 mlx5_1's own
port, then leaf-r0's at its 32-bit maximum. Each node's own ibstat: the real ConnectX-7 capture with its two CAs' port
and node GUIDs changed by hand to that node's mlx5_0 and mlx5_1 of the subnet (ibqueryerrors names a CA by its node
GUID, which a ConnectX's and ibsim's CAs share with their port).
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband.layer2_infiniband_routing import GUIDS, NODES, SUBNET, ibstat
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited

IDLE = fixture("linux_ibqueryerrors", "ibsim_sdr_idle_start")
WAITING = fixture("linux_ibqueryerrors", "ibsim_sdr_xmit_wait")  # leaf-r0 port 2 +12345, node-004 mlx5_1 port 1 +40
SATURATED = fixture("linux_ibqueryerrors", "ibsim_sdr_xmit_wait_saturated")
IB = {"pyramid_rails": ["mlx5_0", "mlx5_1"], "pyramid_rdma_link_layer": "infiniband"}


def ibstat_node_guids(node):
    """As ibstat(node), each CA's node GUID its port GUID."""
    text = edited(ibstat(node), "Node GUID: 0xa088c20300f1e210", "Node GUID: %s" % GUIDS[node][0])
    return edited(text, "Node GUID: 0xa088c20300f1e211", "Node GUID: %s" % GUIDS[node][1])


def window(before, after, nodes=NODES, seconds=340):
    return {node: {"ib_port_counters": {"before": before, "after": after, "seconds": seconds}, "ib_link_info": SUBNET,
                   "ibstat": ibstat_node_guids(node)} for node in nodes}


DATA = [
    {"check": "ib_congestion_idle", "name": "nothing waited at idle: PASS on every node, both ends of each rail",
     "raw": window(IDLE, IDLE), "expect": IB, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-001": ["4 ports (each rail's two ends): PortXmitWait rose by at most 0 over 340s at idle",
                               "read by ibqueryerrors on the fabric host"]}},
    {"check": "ib_congestion_idle", "name": "a leaf port and a node's own port waiting at idle: FAIL on those nodes alone, naming the port",
     "raw": window(IDLE, WAITING), "expect": IB,
     "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS", "node-004": "FAIL"},
     "contains": {"node-002": ["leaf-r0 port 2 (node-002 mlx5_0): PortXmitWait +12345 in 340s (0 -> 12345)", "{cause}"],
                  "node-004": ["node-004 mlx5_1 port 1: PortXmitWait +40 in 340s (0 -> 40)"]}},
    {"check": "ib_congestion_idle", "name": "a site allowing 100 ticks: node-004's 40 passes, node-002's 12345 does not",
     "raw": window(IDLE, WAITING, ["node-002", "node-004"]), "expect": dict(IB, pyramid_ib_xmit_wait_idle_max=100),
     "status": {"node-002": "FAIL", "node-004": "PASS"}},
    {"check": "ib_congestion_idle", "name": "old waits that did not rise over the window: PASS",
     "raw": window(WAITING, WAITING, ["node-002"]), "expect": IB, "status": {"node-002": "PASS"}},
    {"check": "ib_congestion_idle", "name": "PortXmitWait at its 32-bit maximum: ERROR naming the port and its reset, never a rate",
     "raw": window(IDLE, SATURATED, ["node-002"]), "expect": IB, "status": {"node-002": "ERROR"},
     "contains": {"node-002": ["leaf-r0 port 2 (node-002 mlx5_0): PortXmitWait 4294967295, its 32-bit maximum",
                               "perfquery -R -G 0x0000000000200000 2"]}},
    {"check": "ib_port_errors", "name": "a PortXmitWait saturated at both reads is no link error: Layer 1's error check passes the port",
     "raw": window(SATURATED, SATURATED, ["node-002"]), "expect": IB, "status": {"node-002": "PASS"}},
    {"check": "ib_congestion_idle", "name": "a count lower than at the soak's start (cleared meanwhile): ERROR",
     "raw": window(WAITING, IDLE, ["node-004"]), "expect": IB, "status": {"node-004": "ERROR"},
     "contains": {"node-004": ["node-004 mlx5_1 port 1: PortXmitWait went from 40 to 0 (cleared since the soak's start)"]}},
    {"check": "ib_congestion_idle", "name": "a read under a site's thresholds file may leave counts out: ERROR, never a pass",
     "raw": window(IDLE, fixture("linux_ibqueryerrors", "ibsim_thresholds"), ["node-001"]), "expect": IB,
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["the read does not show every count", "--threshold-file /dev/null"]}},
    {"check": "ib_congestion_idle", "name": "a rail its own ibstat does not list: ERROR, never a pass",
     "raw": window(IDLE, IDLE, ["node-001"]), "expect": dict(IB, pyramid_rails=["mlx5_0", "mlx5_1", "mlx5_2"]),
     "status": {"node-001": "ERROR"}, "contains": {"node-001": ["not seen: mlx5_2"]}},
]
