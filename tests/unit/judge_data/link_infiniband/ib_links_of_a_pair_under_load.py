"""The link kind's judge for a pair on InfiniBand (judging/link_infiniband.py, "ib_links_of_a_pair_under_load"): the
subnet and its reads are ib_links_under_load.py's; the load is a pair's (node-001 + node-003), whose flow on rail 0
took spine-02 (leaf1-r0 34 - spine-02 1 and leaf2-r0 34 - spine-02 2), every other path port carrying nothing: those
links are off the pair's paths and spine-01, holding none of the taken ones, is not applicable.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.link_infiniband import ib_links_under_load as _spread

NODES = ["node-001", "node-003"]
MISSED = "all_reduce across node-001 + node-003: busbw 51.3 GB/s, want >= 127.5 GB/s"
TAKEN = "leaf2-r0 34 - spine-02 2"
THROUGH_SPINE_02 = {"*": 0, ("leaf1-r0", 34): 1, ("leaf2-r0", 34): 1, ("spine-02", 1): 1, ("spine-02", 2): 1}

SPECS = [
    {"name": "pair healthy: the links its flow took are clean; the miss stays on the path between the pair",
     "load": THROUGH_SPINE_02,
     "status": {"*": "PASS", "spine-01": "SKIP", "node-001": "FAIL", "node-003": "FAIL"},
     "contains": {"spine-01": ["not applicable: no flow of the re-run took spine-01's links on the paths"],
                  "leaf2-r0": ["1 link on the paths over 30s", "34 out 10.00 GB"],
                  "node-001": [MISSED, "none of the links its flows took shows the loss"]},
     "cause_key": {"node-001": "path"}},
    {"name": "pair: symbol and receive errors rise on the link its flow took (a marginal cable)",
     "load": THROUGH_SPINE_02, "errors": {("spine-02", 2): {"SymbolErrorCounter": 40, "PortRcvErrors": 20}},
     "status": {"*": "PASS", "spine-01": "SKIP", "leaf2-r0": "FAIL", "spine-02": "FAIL"},
     "contains": {"leaf2-r0": [TAKEN, "PortRcvErrors +20, SymbolErrorCounter +40 at spine-02 2 under load"],
                  "node-003": ["the pair's miss is traced to link %s (%s)" % (TAKEN, MISSED)]},
     "cause_key": {"leaf2-r0": "errors_under_load", "spine-02": "errors_under_load"}, "named": [TAKEN]},
    {"name": "pair: errors on a link its flow did not take (through spine-01) name nothing: it is off its paths",
     "load": THROUGH_SPINE_02, "errors": {("spine-01", 2): {"SymbolErrorCounter": 40}},
     "status": {"*": "PASS", "spine-01": "SKIP", "node-001": "FAIL", "node-003": "FAIL"}},
    {"name": "pair: the error counters' read failed before the load: the switches on its paths and the nodes ERROR",
     "load": THROUGH_SPINE_02, "errors_failed": _spread.REFUSED,
     "status": {"*": "ERROR", "spine-01": "SKIP"},
     "contains": {"leaf1-r0": ["can't open UMAD port"]}},
]


def _generic(spec):
    row = _spread._generic(spec)  # pylint: disable=protected-access
    row.update(check="ib_pair_link_under_load", group=dict(row["group"], nodes=NODES, missed=MISSED),
               status={device: spec["status"].get(device, spec["status"]["*"]) for device in sorted(_spread.GUIDS) + NODES})
    row["expect"].pop("pyramid_link_share_min")
    if "errors_failed" in spec:
        row["facts"]["node-001"]["ib_port_counters"] = spec["errors_failed"]
    return row


DATA = [_generic(spec) for spec in SPECS]
