"""An InfiniBand node's cabling against its plan at Layer 1 (catalog/infiniband.yml ib_cabling, issue 36) as a data
table: the subnet read (iblinkinfo once for the pod on the reader of ib_fabric_hosts) against the node's
pyramid_ib_ports, each rail found by the port GUID its own ibstat shows.

The subnet and the nodes' ibstat: layer1_infiniband's (real iblinkinfo captures of an ibsim HDR subnet: node-00N's
mlx5_0 on leaf-r0 port N, mlx5_1 on leaf-r1 port N; the real ConnectX-7 ibstat with each node's port GUIDs).
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import failed
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband.layer1_infiniband import HDR, HEALTHY, UNPLUGGED_AND_1X, ibstat


def plan(node, *moved):
    """node-00N's plan as cabled (rail r on leaf-rr port N), with ``moved`` (rail, switch, port) entries replaced."""
    number = int(node[-1])
    entries = {"mlx5_%d" % rail: {"rail": "mlx5_%d" % rail, "switch": "leaf-r%d" % rail, "port": number} for rail in (0, 1)}
    for rail, switch, port in moved:
        entries[rail] = {"rail": rail, "switch": switch, "port": port}
    return list(entries.values())


def pod(subnet, node, entries):
    """One node's reads and expectations (a row's expectations are the same for every node: one node a row)."""
    return {node: {"ib_link_info": subnet, "ibstat": ibstat(node)}}, dict(HDR, pyramid_ib_ports=entries)


DATA = []
for name, raw_expect, status, contains in (
    ("every rail on its planned switch and port: PASS", pod(HEALTHY, "node-003", plan("node-003")), {"node-003": "PASS"},
     {"node-003": ["2 rails each on its planned switch and port"]}),
    ("the plan puts node-001's mlx5_0 where node-002's lands (a swap on one leaf, which ib_rail_leaves cannot see): FAIL "
     "naming where it lands and what sits on its planned port",
     pod(HEALTHY, "node-001", plan("node-001", ("mlx5_0", "leaf-r0", 2))), {"node-001": "FAIL"},
     {"node-001": ["mlx5_0: on leaf-r0 port 1, planned leaf-r0 port 2 (there: node-002 mlx5_0)", "{cause}"]}),
    ("a planned switch the subnet does not have: FAIL saying so",
     pod(HEALTHY, "node-002", plan("node-002", ("mlx5_1", "leaf-r7", 2))), {"node-002": "FAIL"},
     {"node-002": ["mlx5_1: on leaf-r1 port 2, planned leaf-r7 port 2 (no switch leaf-r7 in the subnet)"]}),
    ("a planned port with nothing on it: FAIL naming the port's state",
     pod(HEALTHY, "node-004", plan("node-004", ("mlx5_0", "leaf-r0", 30))), {"node-004": "FAIL"},
     {"node-004": ["planned leaf-r0 port 30 (there: nothing (Down/Polling))"]}),
    ("no plan declared: not applicable, never a pass", pod(HEALTHY, "node-001", []), {"node-001": "SKIP"},
     {"node-001": ["pyramid_ib_ports is empty"]}),
    ("a planned rail gone from the subnet (unplugged): ERROR naming it, never a pass",
     pod(UNPLUGGED_AND_1X, "node-002", plan("node-002")), {"node-002": "ERROR"},
     {"node-002": ["mlx5_1: not in iblinkinfo on"]}),
    ("a planned rail the node's ibstat does not list: ERROR",
     pod(HEALTHY, "node-001", plan("node-001") + [{"rail": "mlx5_2", "switch": "leaf-r2", "port": 1}]),
     {"node-001": "ERROR"}, {"node-001": ["mlx5_2: not in node-001's ibstat"]}),
):
    raw, expect = raw_expect
    DATA.append({"check": "ib_cabling", "name": name, "raw": raw, "expect": expect, "status": status, "contains": contains})

DATA.append({"check": "ib_cabling", "name": "iblinkinfo missing on the reader: ERROR naming the command",
             "raw": {"node-001": {"ibstat": ibstat("node-001")}},
             "facts": {"node-001": {"ib_link_info": failed("iblinkinfo", "iblinkinfo: command not found", "missing")}},
             "expect": dict(HDR, pyramid_ib_ports=plan("node-001")), "status": {"node-001": "ERROR"},
             "contains": {"node-001": ["iblinkinfo: command not found"]}})
