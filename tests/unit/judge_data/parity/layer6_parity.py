"""Layer 6, training that computes the right numbers (issue 38): the same seeded model on one GPU and under DDP on
every GPU of the node, rank by rank and step by step, and an FSDP pass that stays finite (payloads/parity.py), judged
by judging/parity.py. The same test across nodes is fabric/layer6_parity.py's rows.

Outputs: the real 2 x H200 runs (tests/unit/parsers/training_parity/, 2026-11-28: bitwise equal), a one-rank run, and
the twin's 8-rank report with a diverging rank (twin/pyramid_twin/formats_nccl.py parity_report).
"""

from pyramid_twin import formats_nccl

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import edited_raw, fixture

REAL = fixture("training_parity", "h200_x2_real")


def twin(rank=None, factor=1.0):
    state = {"hostname": "node-001", "training": {"parity_rank": rank, "parity_factor": factor}}
    return "training_parity", formats_nccl.parity_report(state, 8)[1]


DATA = [
    {"check": "training_parity", "name": "the real 2 x H200 run: bitwise equal", "raw": {"training_parity": REAL}, "status": "PASS",
     "contains": ["2 ranks x 5 steps: losses within 0 of the single-GPU run, parameters within 0; FSDP finite"]},
    {"check": "training_parity", "name": "the real 20-step run, torchrun's warnings between its lines",
     "raw": {"training_parity": fixture("training_parity", "h200_x2_20_steps_real")}, "status": "PASS", "contains": ["2 ranks x 20 steps"]},
    {"check": "training_parity", "name": "the real 4 x H200 run: losses bitwise equal, parameters 3.7e-09 apart (summation order)",
     "raw": {"training_parity": fixture("training_parity", "h200_x4_real")}, "status": "PASS",
     "contains": ["4 ranks x 5 steps: losses within 0 of the single-GPU run, parameters within 1.2e-07; FSDP finite"]},
    {"check": "training_parity", "name": "one rank (the real host with one GPU): nothing to compare, never a pass",
     "raw": {"training_parity": fixture("training_parity", "h200_1gpu_real")}, "status": "SKIP", "contains": ["1 rank"]},
    {"check": "training_parity", "name": "8 ranks agree", "raw": {"training_parity": twin()}, "status": "PASS", "contains": ["8 ranks x 5 steps"]},
    {"check": "training_parity", "name": "one rank drifts 2% a step: named at its first step, its parameters too",
     "raw": {"training_parity": twin(rank=5, factor=1.02)}, "status": "FAIL",
     "contains": ["rank 5 (node-001) step 1: DDP loss", "(0.02 apart)", "rank 5 (node-001): parameters after 5 steps differ by 0.0041", "{cause}"]},
    {"check": "training_parity", "name": "GPU 0 wrong: rank 0 first, the others one step later",
     "raw": {"training_parity": twin(rank=0, factor=1.02)}, "status": "FAIL",
     "contains": ["rank 0 (node-001) step 1: DDP loss", "ranks 1, 2, 3, 4, 5, 6, 7 follow from a later step"]},
    {"check": "training_parity", "name": "a loss drift within a wider tolerance still shows in the parameters",
     "raw": {"training_parity": twin(rank=2, factor=1.00001)}, "status": "FAIL", "expect": {"pyramid_train_parity_tolerance": 0.001},
     "contains": ["rank 2 (node-001): parameters after 5 steps differ by 0.0041"]},
    {"check": "training_parity", "name": "a DDP loss that blew up (edited real run)",
     "raw": {"training_parity": fixture("training_parity", "nan_loss")}, "status": "FAIL",
     "contains": ["rank 0 (vm) step 3: loss not finite (DDP not finite, single GPU 1.38929605)"]},
    {"check": "training_parity", "name": "FSDP's backward not finite (edited real run)",
     "raw": {"training_parity": edited_raw(REAL, "loss=0.925146282 finite=yes", "loss=0.925146282 finite=no")}, "status": "FAIL",
     "contains": ["rank 1 (vm): FSDP forward/backward not finite"]},
    {"check": "training_parity", "name": "a run that died is no data",
     "facts": {"training_parity": SourceFailure("torchrun --standalone --nproc_per_node=8 /tmp/p/parity.py",
                                                "torchrun ...: unparseable output (training_parity): no 'pyramid-parity done' line")},
     "status": "ERROR", "contains": ["No data"]},
]
