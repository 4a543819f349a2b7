"""software_stack's NIC firmware floor (pyramid_stack_min nic_firmware) holds for every rail (issue 68).

A floor holds for the lowest firmware of a node's rails: a judge holding it against the highest passed a node whose
seven other rails are below it, since no row had rails on different firmware. These rows have, and are decided on the
verdict. Facts: the healthy MLNX_OFED 24.04 node of layer0_stack.py, its ibstat's firmware per rail changed.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import FW, everyone, ibstat
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.stack.layer0_stack import stack_node, stack_pod

NEWER = "28.40.1000"
FLOOR = {"pyramid_stack_min": {"nic_firmware": {"version": "28.39.2048", "reason": "link flaps at 400G"}}}


def one_rail_updated():
    """A node whose mlx5_0 was updated to 28.40.1000 and whose seven other rails still run 28.39.1002."""
    return stack_node(ibstat=ibstat(mlx5_0={"firmware": NEWER}))


def all_but_one_updated():
    return stack_node(ibstat=ibstat(fw=NEWER, mlx5_7={"firmware": FW}))


DATA = [
    {"check": "software_stack", "name": "one rail above the floor, seven below: the node FAILs on its lowest rail",
     "facts": stack_pod(node_002=one_rail_updated()), "expect": FLOOR,
     "status": {"node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL"},
     "contains": {"node-002": ["NIC firmware 28.39.1002 below 28.39.2048 (link flaps at 400G)"]}},
    {"check": "software_stack", "name": "seven rails above the floor, the last below: still FAILs",
     "facts": stack_pod(node_001=all_but_one_updated(), node_002=all_but_one_updated(), node_003=all_but_one_updated()),
     "expect": FLOOR, "status": everyone("FAIL"), "contains": everyone(["NIC firmware 28.39.1002 below 28.39.2048"])},
]
