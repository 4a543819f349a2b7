"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/fabric.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data import nccl_training as workload
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

FIVE = ["node-%03d" % index for index in range(1, 6)]


DATA = []

# === class 1: a fault in one direction of a pair only ====================================================
DATA += [
    # class 1: of a pair, the second node used seven rails (the table had the first): a judge that reads the
    # first host's NET/IB line alone passes it
    {"check": "nccl_pairs", "name": "[1] the second node of the pair used 7 of 8 rails", "group": workload.PAIR,
     "facts": {"nccl_fabric": workload.nccl(hosts=workload.PAIR, nics={"node-002": workload.RAILS[:7]})},
     "expect": workload.EIGHT_TABLE, "status": "FAIL", "blamed": ["node-002"], "contains": ["node-002 used 7 of 8 rails"]},
    # class 1: GPUDirect off on the first node of the pair (the table had the second)
    {"check": "nccl_pairs", "name": "[1] GDRDMA off on the first node of the pair", "group": workload.PAIR,
     "facts": {"nccl_fabric": workload.nccl(hosts=workload.PAIR, gdr={"node-001": False})},
     "expect": workload.EIGHT_TABLE, "status": "FAIL", "blamed": ["node-001"], "contains": ["node-001: network channels without GDRDMA"]},
    # class 1: a hang where the first node's ranks never reported (the table had the second's)
    {"check": "nccl_pairs", "name": "[1] hung, node-001 silent", "group": workload.PAIR,
     "facts": {"nccl_fabric": workload.hang([(8, "node-002")])}, "status": "FAIL",
     "contains": ["nodes whose ranks never reported: node-001", "NCCL hang across nodes"]},
    # class 1: the slow rank on the first node (the table had the last)
    {"check": "training_pod", "name": "[1] slow rank on node-001", "group": list(workload.HOSTS), "status": "FAIL", "blamed": ["node-001"],
     "facts": workload.fabric_train({0: [120.0] * 10, 1: workload.STEADY, 2: workload.STEADY}, workload.HOSTS),
     "contains": ["slow rank: rank 0 (node-001) step median 120.0 ms"]},
]

# === class 2: a set check done as a membership or overlap check =========================================
DATA += [
    # class 2: NCCL used eight NICs on each node, and the rails are eight, but one rail (mlx5_1) is not among them.
    # A judge counting the NICs, or asking whether the NICs used overlap the rails, passes it.
    {"check": "nccl_pairs", "name": "[2] eight NICs used, one of them not a declared rail",
     "raw": {"nccl_fabric": fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")}, "group": workload.PAIR,
     "expect": {"pyramid_rails": [rail if rail != "mlx5_11" else "mlx5_1" for rail in workload.DGX_RAILS]},
     "status": "FAIL", "blamed": workload.PAIR, "contains": ["node-001 used 7 of 8 rails", "node-002 used 7 of 8 rails",
                                                             "NCCL used fewer NICs than the rails"]},
]

# === class 5: two faults, both named; a FAIL that must name the value, the port or the rail ===============
DATA += [
    # class 5: two slow ranks, on the first and the last node: both named and both nodes blamed (a judge that stops at
    # the first slow rank blames one)
    {"check": "training_pod", "name": "[5] slow ranks on node-001 and node-005: both blamed", "group": FIVE, "status": "FAIL",
     "blamed": ["node-001", "node-005"],
     "facts": workload.fabric_train({0: [120.0] * 10, 1: workload.STEADY, 2: workload.STEADY, 3: workload.STEADY, 4: [125.0] * 10}, FIVE),
     "contains": ["rank 0 (node-001) step median 120.0 ms", "rank 4 (node-005) step median 125.0 ms"]},
    # class 5: nics_missing on one node and GPUDirect off on the other: both blamed, each for its own finding
    {"check": "nccl_pairs", "name": "[5] node-001 short of a rail, node-002 without GDRDMA: both blamed", "group": workload.PAIR,
     "facts": {"nccl_fabric": workload.nccl(hosts=workload.PAIR, nics={"node-001": workload.RAILS[:7]}, gdr={"node-002": False})},
     "expect": workload.EIGHT_TABLE, "status": "FAIL", "blamed": workload.PAIR,
     "contains": ["node-002: network channels without GDRDMA; node-001 used 7 of 8 rails", "GPUDirect RDMA off on this node"]},
]

workload.as_asked(DATA)
