"""nccl_pairs (nccl_group, judged as the straggler hunt does) at the edge of pyramid_nccl_tolerance that the
2026-11-26 mutation run (issue 33) found untested: a tolerance of 0 (the catalog's minimum: no shortfall at all
allowed) says "within 0%" and "below 100% of the expected figure", word for word. A run exactly at the figure
passes, one a little under it fails. A tolerance that is no whole percent is said rounded (0.29 read "within 28%",
cut from 28.999...). Built on nccl_training's helpers (nccl_tests facts of two nodes).
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.nccl_training import EIGHT_TABLE, LAST, PAIR, nccl, nccl_row

STRICT = dict(EIGHT_TABLE, pyramid_nccl_tolerance=0.0)
# 16 ranks: the algbw share of 400 GB/s busbw is 400 * 16 / (2 * 15) = 213.33 GB/s

DATA = [
    {"check": "nccl_pairs", "name": "tolerance 0, exactly at the figure", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 400.0, algbw=213.34), hosts=PAIR)},
     "group": PAIR, "expect": STRICT, "status": "PASS",
     "contains": ["8 GiB busbw 400.0 algbw 213.3 GB/s; 8 rails, GDRDMA on 2 nodes", "busbw within 0% of pyramid_nccl_expected"]},
    {"check": "nccl_pairs", "name": "tolerance 0, 1 GB/s under the figure", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 399.0, algbw=213.34), hosts=PAIR)},
     "group": PAIR, "expect": STRICT, "status": "FAIL",
     "contains": ["below 100% of the expected figure at 1 of 1 sizes, 8 GiB busbw 399.0 < 400.0, algbw 213.3 < 213.3 GB/s"]},
    {"check": "nccl_pairs", "name": "tolerance 0.29 is said 29%, not cut to 28%", "facts": {"nccl_fabric": nccl(nccl_row(LAST, 200.0), hosts=PAIR)},
     "group": PAIR, "expect": dict(EIGHT_TABLE, pyramid_nccl_tolerance=0.29), "status": "FAIL",
     "contains": ["busbw within 29% of pyramid_nccl_expected", "below 71% of the expected figure"]},
]
