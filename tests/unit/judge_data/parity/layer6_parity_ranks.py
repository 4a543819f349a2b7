"""Layer 6, training_parity (issue 68): every rank's parameters are held to the single-GPU run's, not rank 0's alone.

DDP keeps every rank's parameters in step, so a rank whose own parameters drift while every loss stays equal is a GPU
corrupting its own copy (its memory, or its optimizer step): the losses all-reduced across the ranks cannot show it.
A judge reading rank 0's parameters only passed such a run; these rows are decided on the verdict, not on its words.
Outputs: the real 4 x H200 run (tests/unit/parsers/training_parity/h200_x4_real.raw, 2026-11-28) with one rank's
parameters line edited by hand.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import edited_raw, fixture

REAL_X4 = fixture("training_parity", "h200_x4_real")
RANK_2 = "pyramid-parity params rank=2 host=vm max_diff=3.72529e-09 max_abs=0.0313579"


DATA = [
    {"check": "training_parity", "name": "rank 2's parameters drift while every loss is bitwise equal (edited real 4 x H200 run)",
     "raw": {"training_parity": edited_raw(REAL_X4, RANK_2, RANK_2.replace("max_diff=3.72529e-09", "max_diff=0.000412"))},
     "status": "FAIL", "contains": ["rank 2 (vm): parameters after 5 steps differ by 0.000412"]},
    {"check": "training_parity", "name": "the last rank's parameters not finite, the losses equal (edited real 4 x H200 run)",
     "raw": {"training_parity": edited_raw(REAL_X4, "params rank=3 host=vm max_diff=3.72529e-09",
                                           "params rank=3 host=vm max_diff=nan")},
     "status": "FAIL", "contains": ["rank 3 (vm): parameters after 5 steps not finite"]},
]
