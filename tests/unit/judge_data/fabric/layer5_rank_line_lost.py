"""A run across nodes whose read lost its last '# Rank' line (issue 68): read as a hang, a device FAIL, it is the read's.

NCCL forms its communicator only once every rank joined, so a run that printed its results ran every rank its
launcher started (pyramid_gpus_per_node a node). The parser proves the rank numbers have no gap, which leaves the
last line: its loss left node-002 with 7 of its 8 ranks beside node-001's 8, "15 of 16 ranks joined". The same read
path judges the pod's collectives (judging/fabric.py _group_verdict). A node with no rank at all stays a hang.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.nccl_training import DGX_RAILS, PAIR

LAST_RANK = "#  Rank 15 Group  0 Pid  23115 on   node-002 device  7 [0xdb] NVIDIA H100 80GB HBM3\n"


def _without_last_rank():
    parser, text = fixture("nccl_tests", "h100_2node_ib_8nics_gdrdma")
    assert LAST_RANK in text
    return parser, text.replace(LAST_RANK, "", 1)


DATA = [
    {"check": "nccl_pairs", "name": "two nodes' all-reduce whose last '# Rank' line was lost: ERROR about the read, not a hang",
     "raw": {"nccl_fabric": _without_last_rank()}, "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "ERROR",
     "contains": ["node-002 lists 7 of its 8 ranks in a run that finished", "a '# Rank' line lost from the read"]},
    {"check": "nccl_scale", "name": "the same read in the scale-up round: ERROR about the read, not a hang",
     "raw": {"nccl_fabric": _without_last_rank()}, "group": PAIR, "expect": {"pyramid_rails": DGX_RAILS}, "status": "ERROR",
     "contains": ["node-002 lists 7 of its 8 ranks in a run that finished"]},
]
