"""The induced incast on InfiniBand (catalog/incast.yml incast_ib, issue 36): one target, the leaf port its rail lands on,
and every port's counters read by ibqueryerrors on the fabric host before the senders fire, after they end and once
more after that (run/incast_infiniband.py), one verdict per target (judging/incast_infiniband.py).

ibqueryerrors: real captures of one ibsim subnet (tests/unit/parsers/linux_ibqueryerrors ibsim_sdr_*: infiniband-diags
44.0 on ibsim 0.10, opensm 3.3.23): every counter clear, then the target's leaf port (leaf-r0 port 2, facing node-002
mlx5_0) set with ibsim's console as an incast leaves it - waiting for credits, with discards, and still waiting in a
later read. The port's key is the leaf's GUID and port as the parser keys them (iblinkinfo names the leaf, run/incast_infiniband.py
finds it at the plan).
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture

IDLE = fixture("linux_ibqueryerrors", "ibsim_sdr_idle_start")
AFTER = fixture("linux_ibqueryerrors", "ibsim_sdr_incast_after")  # leaf-r0 port 2: PortXmitWait 4182620
DISCARDS = fixture("linux_ibqueryerrors", "ibsim_sdr_incast_after_discards")  # and PortXmitDiscards 37
STALL = fixture("linux_ibqueryerrors", "ibsim_sdr_incast_settled_stall")  # PortXmitWait 7360544, read later
SATURATED = fixture("linux_ibqueryerrors", "ibsim_sdr_xmit_wait_saturated")  # leaf-r0 port 2 at 4294967295
THRESHOLDS = fixture("linux_ibqueryerrors", "ibsim_thresholds")
CUT = fixture("linux_ibqueryerrors", "cut_inside_the_summary")
GROUP = {"target": "node-002", "senders": ["node-003", "node-004"],
         "ports": [{"leaf": "leaf-r0", "port": 2, "rail": 0, "key": "0x0000000000200000:2"}]}
IB = {"pyramid_rdma_link_layer": "infiniband", "pyramid_incast": True}


def reads(before=IDLE, after=AFTER, settled=AFTER):
    """The fabric host's three reads of every port's counters (the source ib_port_counters, read by the incast's phases
    at these labels, not windowed as a soak's two)."""
    return {"ib_port_counters": {"before": before, "after": after, "settled": settled}}


DATA = [
    {"check": "incast_ib", "name": "the leaf port waited under the load and stopped with it, no discard",
     "group": GROUP, "raw": reads(), "expect": IB, "status": "PASS",
     "contains": ["leaf-r0 port 2 (node-002 rail 0): PortXmitWait +4182620 under the load (17.4 s), +0 in the 2.2 s after it; "
                  "PortXmitDiscards +0", "target node-002, senders node-003, node-004"]},
    {"check": "incast_ib", "name": "packets discarded at the congested port: the head-of-queue lifetime",
     "group": GROUP, "raw": reads(after=DISCARDS, settled=DISCARDS), "expect": IB, "status": "FAIL",
     "contains": ["PortXmitDiscards +37", "head-of-queue lifetime"]},
    {"check": "incast_ib", "name": "a site allowing 50 discards: 37 pass",
     "group": GROUP, "raw": reads(after=DISCARDS, settled=DISCARDS), "expect": dict(IB, pyramid_incast_discards_max=50), "status": "PASS"},
    {"check": "incast_ib", "name": "still waiting after the load: a credit loop or a receiver returning no credits",
     "group": GROUP, "raw": reads(settled=STALL), "expect": IB, "status": "FAIL",
     "contains": ["+3177924 in the 2.2 s after it", "credit loop"]},
    {"check": "incast_ib", "name": "the port never waited: the incast did not congest it",
     "group": GROUP, "raw": reads(after=IDLE, settled=IDLE), "expect": IB, "status": "FAIL",
     "contains": ["PortXmitWait +0 under the load", "did not congest it"]},
    {"check": "incast_ib", "name": "PortXmitWait at its 32-bit maximum: ERROR naming the port and its reset, never a rise",
     "group": GROUP, "raw": reads(after=SATURATED, settled=SATURATED), "expect": IB, "status": "ERROR",
     "contains": ["its 32-bit maximum: it no longer counts", "perfquery -R -G 0x0000000000200000 2"]},
    {"check": "incast_ib", "name": "the settled read cut short: ERROR about the read",
     "group": GROUP, "raw": reads(settled=CUT), "expect": IB, "status": "ERROR",
     "contains": ["ibqueryerrors a little after the incast:", "cannot judge"]},
    {"check": "incast_ib", "name": "a read with thresholds may leave counts out: ERROR, never a pass",
     "group": GROUP, "raw": reads(before=THRESHOLDS), "expect": IB, "status": "ERROR",
     "contains": ["are not listed", "--threshold-file /dev/null"]},
]
