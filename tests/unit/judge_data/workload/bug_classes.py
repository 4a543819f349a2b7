"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/workload.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data import nccl_training as workload


DATA = []

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: training_stable: at most 20% of a rank's steps slower than its median / 0.9 (inclusive): 3 of 15,
    # then 4 of 15
    {"check": "training_stable", "name": "[4] exactly 20% of the steps slow passes",
     "facts": workload.train([100.0] * 5 + [100.0] * 12 + [130.0] * 3), "status": "PASS", "contains": ["3 of 15 steps slower than the median / 0.90"]},
    {"check": "training_stable", "name": "[4] one slow step over 20% fails",
     "facts": workload.train([100.0] * 5 + [100.0] * 11 + [130.0] * 4), "status": "FAIL",
     "contains": ["too many slow steps", "4 of 15 steps slower than the median / 0.90"]},
    # class 4: the baseline's 10% (inclusive): 110.0 passes (the table's), 110.01 fails
    {"check": "training_stable", "name": "[4] baseline +10.01% fails", "facts": workload.train([110.01] * 10),
     "expect": {"pyramid_train_step_ms_baseline": 100.0}, "status": "FAIL", "contains": ["median step 110.0 ms", "slower than the baseline 100.0 ms"]},
]

workload.as_asked(DATA)
