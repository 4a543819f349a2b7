"""The induced incast (Layer 3 under load, judging/incast.py): one target, its leaf's ECN / PFC / discard counters
and the NICs' DCQCN counters before and after (facts in the shape the EOS parsers and linux_sysfs_rdma_cc_counters
give: queues as strings, one "counters" mapping per rail), one verdict per target with the seed's cause.
The twin's leaves print these counts from its incast physics (test_incast.py reads them through the parsers)."""

GROUP = {"target": "node-001", "senders": ["node-033", "node-034"],
         "ports": [{"leaf": "leaf1-r0", "port": "Ethernet1/1", "rail": 0}]}
PORTS = ("Ethernet1/1", "Ethernet33/1")  # the target's port, the leaf's uplink


def snap(marks=0, pfc_tx=0, discards=0):
    return {"ecn": {"ports": {p: {"3": marks if p == "Ethernet1/1" else 0, "0": 0} for p in PORTS}},
            "pfc": {"ports": {p: {"3": {"rx": 0, "tx": pfc_tx if p == "Ethernet33/1" else 0}} for p in PORTS}},
            "discards": {"ports": {p: {"3": discards if p == "Ethernet1/1" else 0} for p in PORTS}}}


def cc(sent=0, handled=0):
    return {"counters": {"np_cnp_sent": sent, "rp_cnp_handled": handled, "np_ecn_marked_roce_packets": sent}}


def case(marks, pfc_tx, discards, cnp_sent, handled, broken=None):
    nic = {"node-001": {"0": {"before": cc(), "after": cc(sent=cnp_sent)}}}
    for sender, count in zip(GROUP["senders"], handled):
        nic[sender] = {"0": {"before": cc(), "after": cc(handled=count)}}
    facts = {"switch": {"leaf1-r0": {"before": snap(), "after": snap(marks, pfc_tx, discards)}}, "nic": nic, "seconds": 30}
    if broken:
        broken(facts)
    return facts


def _cut_ecn(facts):
    facts["switch"]["leaf1-r0"]["after"]["ecn"] = "`show qos interfaces ecn counters queue | json`: unparseable output: truncated JSON"


def _no_sender_read(facts):
    facts["nic"]["node-034"]["0"]["after"] = "cat: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_handled: No such file or directory"


HEALTHY = (600000, 300, 0, 300000, (150000, 150000))
EOS_LEAF = {"pyramid_switch_os": "eos"}  # the leaf's record names its platform's reads
DATA = [
    {"check": "incast_ecn", "name": "marks, CNPs sent and handled, a PFC blip, no drops", "group": GROUP,
     "facts": case(*HEALTHY), "status": "PASS", "contains": ["ECN-marked 600000", "handled by the senders 300000"]},
    {"check": "incast_ecn", "name": "PFC all along and no mark: min_th too high", "group": GROUP,
     "facts": case(0, 120000, 0, 0, (0, 0)), "status": "FAIL", "contains": ["min_th of the RoCE queue is too high", "leaf1-r0 port Ethernet1/1"]},
    {"check": "incast_ecn", "name": "marks but the target sends no CNP: DCQCN off on it", "group": GROUP,
     "facts": case(600000, 120000, 0, 0, (0, 0)), "status": "FAIL", "contains": ["roce_np/enable", "target node-001"]},
    {"check": "incast_ecn", "name": "a sender handles no CNP: DCQCN off on it", "group": GROUP,
     "facts": case(600000, 120000, 0, 300000, (150000, 0)), "status": "FAIL", "contains": ["roce_rp/enable", "no CNP handled on node-034"]},
    {"check": "incast_ecn", "name": "drops: headroom or PFC priority", "group": GROUP,
     "facts": case(600000, 300, 1500, 300000, (150000, 150000)), "status": "FAIL", "contains": ["headroom underprovisioned", "discards 1500"]},
    {"check": "incast_ecn", "name": "a storm although ECN and DCQCN react", "group": GROUP,
     "facts": case(600000, 120000, 0, 300000, (150000, 150000)), "status": "FAIL", "contains": ["PFC storm", "4000.0/s"]},
    {"check": "incast_ecn", "name": "nothing moved: no congestion", "group": GROUP,
     "facts": case(0, 0, 0, 0, (0, 0)), "status": "FAIL", "contains": ["did not congest the port"]},
    {"check": "incast_ecn", "name": "the leaf's ECN counters unreadable after", "group": GROUP,
     "facts": case(*HEALTHY, broken=_cut_ecn), "status": "ERROR", "contains": ["truncated JSON", "node-001"]},
    {"check": "incast_ecn", "name": "a sender's hw_counters unreadable", "group": GROUP,
     "facts": case(*HEALTHY, broken=_no_sender_read), "status": "ERROR", "contains": ["node-034 0 hw_counters", "No such file"]},
    # The same incasts on the leaf (incast_leaf, issue 37): the leaf's own causes fail it, the NICs' do not, and an
    # incast that could not be judged or put no load on it proves nothing about it (ERROR, never a PASS).
    {"check": "incast_leaf", "name": "leaf: marks and holds PFC to a blip, no drops", "group": GROUP, "leaf": "leaf1-r0", "expect": EOS_LEAF,
     "facts": case(*HEALTHY), "status": "PASS", "contains": ["ECN-marked 600000", "leaf1-r0 port Ethernet1/1"]},
    {"check": "incast_leaf", "name": "leaf: PFC all along and no mark, min_th too high", "group": GROUP, "leaf": "leaf1-r0", "expect": EOS_LEAF,
     "facts": case(0, 120000, 0, 0, (0, 0)), "status": "FAIL", "contains": ["min_th of the RoCE queue is too high"]},
    {"check": "incast_leaf", "name": "leaf: drops, headroom or PFC priority", "group": GROUP, "leaf": "leaf1-r0", "expect": EOS_LEAF,
     "facts": case(600000, 300, 1500, 300000, (150000, 150000)), "status": "FAIL", "contains": ["headroom underprovisioned"]},
    {"check": "incast_leaf", "name": "leaf: a storm although ECN and DCQCN react", "group": GROUP, "leaf": "leaf1-r0", "expect": EOS_LEAF,
     "facts": case(600000, 120000, 0, 300000, (150000, 150000)), "status": "FAIL", "contains": ["PFC storm"]},
    {"check": "incast_leaf", "name": "leaf: marks, the target sends no CNP - the NIC's miss, not the leaf's", "group": GROUP,
     "leaf": "leaf1-r0", "expect": EOS_LEAF, "facts": case(600000, 120000, 0, 0, (0, 0)), "status": "PASS", "contains": ["the miss is the NICs': dcqcn_np"]},
    {"check": "incast_leaf", "name": "leaf: nothing moved, not proven", "group": GROUP, "leaf": "leaf1-r0", "expect": EOS_LEAF,
     "facts": case(0, 0, 0, 0, (0, 0)), "status": "ERROR", "contains": ["not proven", "did not congest the port"]},
    {"check": "incast_leaf", "name": "leaf: its counters unreadable after, not proven", "group": GROUP, "leaf": "leaf1-r0", "expect": EOS_LEAF,
     "facts": case(*HEALTHY, broken=_cut_ecn), "status": "ERROR", "contains": ["not proven", "truncated JSON"]},
]
