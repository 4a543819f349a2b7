"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/incast.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.incast import layer3_incast as incast


DATA = []

# === class 1: a fault in one direction of a pair only ====================================================
DATA += [
    # class 1: the first of two senders deaf to CNPs (the table had the last): a judge that reads one sender, or
    # the senders' sum, passes it
    {"check": "incast_ecn", "name": "[1] the first sender handles no CNP, the second does", "group": incast.GROUP,
     "facts": incast.case(600000, 120000, 0, 300000, (0, 150000)), "status": "FAIL",
     "contains": ["no CNP handled on node-033", "roce_rp/enable"]},
    # class 1 and 5: the leaf received pauses (RX) and sent none (TX) while nothing was marked: PFC moved, so the
    # cause is ECN's min_th, not "no congestion". A judge that reads PFC TX alone says no_load.
    {"check": "incast_ecn", "name": "[1] no mark, PFC received only (RX, no TX): min_th, not an idle port", "group": incast.GROUP,
     "facts": {"switch": {"leaf1-r0": {"before": incast.snap(), "after": dict(incast.snap(), pfc={"ports": {
         "Ethernet1/1": {"3": {"rx": 90000, "tx": 0}}, "Ethernet33/1": {"3": {"rx": 0, "tx": 0}}}})}},
         "nic": incast.case(*incast.HEALTHY)["nic"], "seconds": 30},
     "status": "FAIL", "contains": ["PFC TX 0", "PFC RX 90000", "min_th of the RoCE queue is too high"]},
]

# === class 3: a list element whose data is missing, skipped instead of reported ==========================
DATA += [
    # class 3: a sender's NIC counters not in the read at all: an ERROR naming it, not a PASS on the other sender
    {"check": "incast_ecn", "name": "[3] the first sender's NIC counters not in the read", "group": incast.GROUP,
     "facts": dict(incast.case(*incast.HEALTHY), nic={node: rails for node, rails in incast.case(*incast.HEALTHY)["nic"].items()
                                                      if node != "node-033"}),
     "status": "ERROR", "contains": ["node-033 rail 0: its hw_counters were not read before and after"]},
]

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: the incast's bounds: discards <= max, ECN marks > min, PFC TX <= 50/s over the window (inclusive)
    {"check": "incast_ecn", "name": "[4] discards exactly at the allowance pass", "group": incast.GROUP,
     "facts": incast.case(600000, 300, 10, 300000, (150000, 150000)), "expect": {"pyramid_incast_discards_max": 10}, "status": "PASS",
     "contains": ["discards 10"]},
    {"check": "incast_ecn", "name": "[4] one discard over the allowance fails", "group": incast.GROUP,
     "facts": incast.case(600000, 300, 11, 300000, (150000, 150000)), "expect": {"pyramid_incast_discards_max": 10}, "status": "FAIL",
     "contains": ["discards 11", "headroom underprovisioned"]},
    {"check": "incast_ecn", "name": "[4] ECN marks equal to the minimum are not enough", "group": incast.GROUP,
     "facts": incast.case(1000, 300, 0, 300000, (150000, 150000)), "expect": {"pyramid_incast_ecn_marks_min": 1000}, "status": "FAIL",
     "contains": ["ECN-marked 1000", "min_th of the RoCE queue is too high"]},
    {"check": "incast_ecn", "name": "[4] one ECN mark over the minimum passes", "group": incast.GROUP,
     "facts": incast.case(1001, 300, 0, 300000, (150000, 150000)), "expect": {"pyramid_incast_ecn_marks_min": 1000}, "status": "PASS",
     "contains": ["ECN-marked 1001"]},
    {"check": "incast_ecn", "name": "[4] PFC TX at exactly 50 a second passes", "group": incast.GROUP,
     "facts": incast.case(600000, 1500, 0, 300000, (150000, 150000)), "status": "PASS", "contains": ["PFC TX 1500 (50.0/s over the last 30s)"]},
    {"check": "incast_ecn", "name": "[4] PFC TX just over 50 a second is a storm", "group": incast.GROUP,
     "facts": incast.case(600000, 1501, 0, 300000, (150000, 150000)), "status": "FAIL",
     "contains": ["PFC TX 1501 (50.0/s over the last 30s)", "PFC storm"]},
]
