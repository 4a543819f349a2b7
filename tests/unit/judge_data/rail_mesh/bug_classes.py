"""The rows of the five classes of wrong judge (issue 33; judge_data/bug_classes.py says what each class is) that
test judging/rail_mesh.py. Each row's comment says its class and what a wrong judge of that class would do with it.
"""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.roce.layer3_roce_host import edited

BW_363 = fixture("perftest_ib_write_bw", "client_gbits_roce_rdmacm_D10_q3_bnxt_363G")  # BW average 363.47 Gb/s
PING_54US = fixture("linux_ping", "I_srcaddr_success")  # 1/1 replies, rtt 0.054 ms
FPING_20 = fixture("linux_fping", "C5_q_one_lost_manpage")  # 4/5 replies, 20% loss, rtt avg 48.675 ms


def ping_rtt(ms):
    """The real one-reply ping with its round trip set to ``ms`` (the reply line and the summary say the same)."""
    text = PING_54US[1].replace("time=0.054 ms", "time=%s ms" % ms)
    return PING_54US[0], text.replace("= 0.054/0.054/0.054/0.000 ms", "= %s/%s/%s/0.000 ms" % (ms, ms, ms))


def write_bw(gbps):
    """The real 363 Gb/s client output with its BW average set to ``gbps``."""
    return edited(BW_363, "363.47", gbps)


def gdr(host_gbps):
    """The real H200 dma-buf GPUDirect run (140.4 Gb/s from GPU 0) beside a host-memory run of ``host_gbps``."""
    facts = parsing.parse(*fixture("perftest_ib_write_bw", "client_gbits_cuda_dmabuf_a_roce_h200"))
    return {"ib_write_bw_gdr_client": dict(facts, host_memory={"gbps": host_gbps, "said": None})}


DATA = []

# === class 4: thresholds at their boundary and one step beyond ===========================================
DATA += [
    # class 4: rdma_write_bw: ib_write_bw average >= 350 Gb/s (inclusive). A judge with > fails 350.00; one
    # that rounds before comparing passes 349.99.
    {"check": "rdma_write_bw", "name": "[4] exactly 350.00 Gb/s passes", "raw": {"ib_write_bw_client": write_bw("350.00")},
     "status": "PASS", "contains": ["350.0 Gb/s at 65536 bytes", ">= 350 Gb/s"]},
    {"check": "rdma_write_bw", "name": "[4] 349.99 Gb/s fails", "raw": {"ib_write_bw_client": write_bw("349.99")},
     "status": "FAIL", "contains": [">= 350 Gb/s", CAUSE]},
    # class 4: GPUDirect within 10% of the host-memory run (inclusive): 140.4 of 156.0 is 90.0%, of 156.1 under it
    {"check": "rdma_gpudirect_bw", "name": "[4] GPUDirect at exactly 90% of the host-memory run passes", "facts": gdr(156.0),
     "status": "PASS", "contains": ["140.4 Gb/s from GPU 0, 90% of host memory's 156.0 Gb/s"]},
    {"check": "rdma_gpudirect_bw", "name": "[4] GPUDirect just under 90% of the host-memory run fails", "facts": gdr(156.1),
     "status": "FAIL", "contains": ["140.4 Gb/s from GPU 0, 90% of host memory's 156.1 Gb/s", CAUSE]},
    # class 4: rail_ping: rtt avg <= 1 ms (inclusive), loss <= the allowance (inclusive)
    {"check": "rail_ping", "name": "[4] rtt avg exactly 1 ms passes", "raw": {"rail_ping": ping_rtt("1.000")}, "status": "PASS",
     "contains": ["1/1 replies, 0% loss, rtt avg 1.000 ms", "rtt avg <= 1 ms"]},
    {"check": "rail_ping", "name": "[4] rtt avg 1.001 ms fails", "raw": {"rail_ping": ping_rtt("1.001")}, "status": "FAIL",
     "contains": ["rtt avg 1.001 ms", "rtt avg <= 1 ms"]},
    {"check": "rail_ping", "name": "[4] fping: 20% loss against an allowance of 20% passes", "raw": {"rail_ping": FPING_20},
     "expect": {"pyramid_ping_loss_max_percent": 20, "pyramid_ping_rtt_max_ms": 100}, "status": "PASS", "contains": ["4/5 replies, 20% loss"]},
    {"check": "rail_ping", "name": "[4] fping: 20% loss against an allowance of 19.9% fails", "raw": {"rail_ping": FPING_20},
     "expect": {"pyramid_ping_loss_max_percent": 19.9, "pyramid_ping_rtt_max_ms": 100}, "status": "FAIL",
     "contains": ["4/5 replies, 20% loss", "loss <= 19.9%"]},
]

# === class 5: two faults, both named; a FAIL that must name the value, the port or the rail ===============
DATA += [
    # class 5: the loss is within its allowance, the round trip is not: the FAIL must come from the rtt's value. A judge
    # that fails any run with a lost reply (its only guard the loss wording) passes this row's status, not its words.
    {"check": "rail_ping", "name": "[5] fping: one of five lost within a 20% allowance, rtt over 10 ms: the rtt fails it",
     "raw": {"rail_ping": FPING_20}, "expect": {"pyramid_ping_loss_max_percent": 20, "pyramid_ping_rtt_max_ms": 10}, "status": "FAIL",
     "contains": ["4/5 replies, 20% loss, rtt avg 48.675 ms", "rtt avg <= 10 ms"]},
]
