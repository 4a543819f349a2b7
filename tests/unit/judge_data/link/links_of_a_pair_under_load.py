"""The link kind's judge for a pair (judging/link.py, "links_of_a_pair_under_load"): its rows (SPECS, each the paths of
pairs of round 2 that missed while each node passed with a known-good partner, their runs made again), and DATA, as
test_judge_data.py runs every judge's. tests/unit/test_link_judge.py holds the rows to the causes and links named.

The pod and the counters are links_under_load.py's (two NX-OS leaves, four uplinks each to spine-01..04; the real
NX-OS parsers on their fixtures for errors, ECN marks and discards; the traffic as facts dicts). What differs is the
load: a pair's flow on a rail hashes onto one uplink, so only the links it took carry it (TAKEN: leaf-01 and leaf-02
through spine-03, where the fixtures' faulty port Ethernet1/3 sits, or through spine-02 where a row says so); every
other link carried nothing, is off the pair's paths, and its switch, holding none of the taken links, is not
applicable.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.link import links_under_load as _spread

NODES = _spread.NODES
MISSED = "all_reduce across node-001 + node-003: busbw 81.2 GB/s, want >= 291.0 GB/s"
TAKEN = "leaf-01 Ethernet1/3 - spine-03 Ethernet1/1"


def _through(spine, trickle=0):
    """The load of a pair whose flow took ``spine``: its two links carry it, every other path port nothing (or the
    fabric's own ``trickle``, a share of the run's bytes)."""
    number = int(spine[-1])
    load = {"*": trickle}
    load.update({("leaf-01", "Ethernet1/%d" % number): 1, ("leaf-02", "Ethernet1/%d" % number): 1,
                 (spine, "Ethernet1/1"): 1, (spine, "Ethernet1/2"): 1})
    return load


OFF = {"spine-01": "SKIP", "spine-02": "SKIP", "spine-04": "SKIP"}  # through spine-03: the other spines took none of it

SPECS = [
    {"name": "pair healthy: the two links its flow took are clean; the miss stays on the path between the pair",
     "load": _through("spine-03"),
     "status": dict(OFF, **{"*": "PASS", "node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"}),
     "contains": {"spine-01": ["not applicable: no flow of the re-run took spine-01's links on the paths"],
                  "leaf-01": ["1 link on the paths over 42s", "Ethernet1/3 out 10.00 GB"],
                  "node-001": [MISSED, "none of the links its flows took shows the loss"]},
     "cause_key": {"node-001": "path"}},
    {"name": "pair: ECN marks concentrated on the leaf egress its flow took (991 of 991, floor 500)",
     "load": _through("spine-03"), "reads": {"leaf-01": {"sw_ecn": ("healthy_leaf", "faulty_leaf")}},
     "expect": {"pyramid_link_marks_min": 500},
     "status": dict(OFF, **{"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"}),
     "contains": {"leaf-01": [TAKEN, "991 of the 991 ECN marks on the paths (100%) at leaf-01 Ethernet1/3"],
                  "node-003": ["the pair's miss is traced to link %s (%s)" % (TAKEN, MISSED)]},
     "cause_key": {"leaf-01": "marks_concentrated", "spine-03": "marks_concentrated"}, "named": [TAKEN]},
    {"name": "pair: errors rise on the link its flow took (a marginal cable)",
     "load": _through("spine-03"), "reads": {"leaf-01": {"sw_errors": ("healthy_leaf", "faulty_leaf")}},
     "status": dict(OFF, **{"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"}),
     "contains": {"leaf-01": [TAKEN, "crc +17, in_errors +17 at leaf-01 Ethernet1/3 under load (more than 0)"]},
     "cause_key": {"leaf-01": "errors_under_load", "spine-03": "errors_under_load"}, "named": [TAKEN]},
    {"name": "pair: the links its flow did not take carry the fabric's trickle (1 MB against 10 GB): off its paths still",
     "load": _through("spine-03", trickle=0.0001), "reads": {"leaf-01": {"sw_ecn": ("healthy_leaf", "faulty_leaf")}},
     "expect": {"pyramid_link_marks_min": 500},
     "status": dict(OFF, **{"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"}),
     "contains": {"spine-02": ["not applicable: no flow of the re-run took spine-02's links"],
                  "leaf-02": ["1 link on the paths over 42s"]},
     "cause_key": {"leaf-01": "marks_concentrated"}, "named": [TAKEN]},
    {"name": "pair: errors on a link its flow did not take (through spine-02) name nothing: it is off its paths",
     "load": _through("spine-02"), "reads": {"leaf-01": {"sw_errors": ("healthy_leaf", "faulty_leaf")}},
     "status": {"*": "PASS", "spine-01": "SKIP", "spine-03": "SKIP", "spine-04": "SKIP", "node-001": "FAIL",
                "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"},
     "contains": {"leaf-01": ["Ethernet1/2 out 10.00 GB", "errors +0"]}},
    {"name": "pair: the marks of a link on its paths under the floor (991 < 1000) name nothing",
     "load": _through("spine-03"), "reads": {"leaf-01": {"sw_ecn": ("healthy_leaf", "faulty_leaf")}},
     "status": dict(OFF, **{"*": "PASS", "node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"}),
     "contains": {"leaf-01": ["ECN marks 991"]}},
    {"name": "pair: a read of a switch its flow crossed failed, no link named: that switch and the nodes ERROR",
     "load": _through("spine-03"), "reads": {"spine-03": {"sw_errors": ("healthy_leaf", "invalid_command")}},
     "status": dict(OFF, **{"*": "PASS", "spine-03": "ERROR", "node-001": "ERROR", "node-002": "ERROR",
                            "node-003": "ERROR", "node-004": "ERROR"}),
     "contains": {"spine-03": ["spine-03: not read: show interface counters errors: unparseable output"],
                  "node-001": [MISSED, "no link named, and the links of spine-03 were not measured"]},
     "command": {"spine-03": "show interface counters errors"}},
    {"name": "pair: no traffic at all on the paths: its run did not run again, ERROR for everyone",
     "load": {"*": 0},
     "status": {"*": "ERROR"},
     "contains": {"leaf-01": ["no traffic at all on the 16 path ports read over 42s: the pair did not run over them"],
                  "node-001": [MISSED, "the pair did not run"]}},
]


def _generic(spec):
    return dict(_spread._generic(spec), check="pair_link_under_load",
                group={"links": _spread.LINKS, "nodes": NODES, "missed": MISSED})


DATA = [_generic(spec) for spec in SPECS]
