"""Layer 6 across nodes, training that computes the right numbers (issue 38): training_parity_pod (fabric, judged by
judging/fabric.py), the same test as parity/layer6_parity.py's on one node, run across nodes, a diverging rank's node
blamed.

Outputs: the real 2 x H200 runs (tests/unit/parsers/training_parity/, 2026-11-28: bitwise equal), a one-rank run, and
the twin's 8-rank report with a diverging rank (twin/pyramid_twin/formats_nccl.py parity_report).
"""

from pyramid_twin import formats_fabric

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure


def twin_pod(bad=None, factor=1.02, nodes=2):
    """The twin's parity report across nodes (formats_fabric.group_parity_report): ``bad`` {node: its diverging rank}."""
    states = [{"hostname": "node-%03d" % index, "training": {"parity_rank": (bad or {}).get("node-%03d" % index),
                                                             "parity_factor": factor}} for index in range(1, nodes + 1)]
    return "training_parity", formats_fabric.group_parity_report(states, 8)[1]


PAIR = ["node-001", "node-002"]


DATA = [
    # --- training_parity_pod (fabric): the same test across nodes, a diverging rank's node blamed
    {"check": "training_parity_pod", "name": "two nodes agree", "raw": {"training_parity_fabric": twin_pod()}, "group": PAIR,
     "status": "PASS", "contains": ["16 ranks x 5 steps", "2 nodes (16 ranks)"]},
    {"check": "training_parity_pod", "name": "a rank of node-002 diverges first: node-002 blamed", "raw": {
        "training_parity_fabric": twin_pod({"node-002": 3})}, "group": PAIR, "status": "FAIL", "blamed": ["node-002"],
     "contains": ["rank 11 (node-002) step 1", "A rank of this node diverged first"]},
    {"check": "training_parity_pod", "name": "rank 0 (node-001's GPU 0) first: node-001 blamed",
     "raw": {"training_parity_fabric": twin_pod({"node-001": 0})}, "group": PAIR, "status": "FAIL", "blamed": ["node-001"],
     "contains": ["rank 0 (node-001) step 1"]},
    {"check": "training_parity_pod", "name": "a rank on each node diverges at once: both blamed",
     "raw": {"training_parity_fabric": twin_pod({"node-001": 0, "node-002": 0})}, "group": PAIR, "status": "FAIL", "blamed": PAIR,
     "contains": ["rank 0 (node-001) step 1", "rank 8 (node-002) step 1"]},
    {"check": "training_parity_pod", "name": "every rank off at once (one GPU a node): the all-reduce across the nodes, no node blamed",
     "facts": {"training_parity_fabric": {"ranks": 2, "steps": 1, "losses": [
         {"step": 1, "rank": rank, "host": host, "single_loss": 1.0, "ddp_loss": 1.5} for rank, host in enumerate(PAIR)],
         "params": [{"rank": rank, "host": host, "max_diff": 0.0, "max_abs": 0.03} for rank, host in enumerate(PAIR)],
         "fsdp": [{"rank": rank, "host": host, "loss": 1.0, "finite": True} for rank, host in enumerate(PAIR)]}},
     "group": PAIR, "expect": {"pyramid_gpus_per_node": 1}, "status": "FAIL",
     "contains": ["every rank off at step 1", "Every rank off together"]},
    {"check": "training_parity_pod", "name": "fewer ranks reported than the group has", "raw": {"training_parity_fabric": twin_pod(nodes=1)},
     "group": PAIR, "status": "FAIL", "contains": ["8 of 16 ranks reported", "a rank never reported"]},
    {"check": "training_parity_pod", "name": "the run hung", "group": PAIR, "status": "FAIL",
     "facts": {"training_parity_fabric": SourceFailure("mpirun -np 2 ... parity.py", "did not finish within 900s (hung?)", "timeout")},
     "contains": ["did not finish within the timeout"]},
    {"check": "training_parity_pod", "name": "mpirun not installed", "group": PAIR, "status": "ERROR",
     "facts": {"training_parity_fabric": SourceFailure("mpirun", "mpirun: command not found", "missing")},
     "contains": ["mpirun: command not found"]},
]
