"""The link kind's judge on InfiniBand (judging/link_infiniband.py, "ib_links_under_load"): its rows (SPECS, each the
subnet reader's windows around a missed all-to-all run again), and DATA, as test_judge_data.py runs every judge's.

The subnet: leaf1-r0 and leaf2-r0 (one rail's leaves of two scalable units), each with uplinks on ports 33 and 34 to
spine-01 and spine-02 (leaf1-r0 lands on each spine's port 1, leaf2-r0 on its port 2), as the twin's pod.ib_fabric
cables them (twin/pyramid_twin/formats_infiniband.py) and the real stack printed them (the fixture below). The reads are
the facts of linux_ibqueryerrors in their real shapes ({"ports": {"<GUID>:<port>": {counter: n}}, "names", "checked",
"thresholds", "suppressed"}, "data": true for the --counters read: tests/unit/parsers/linux_ibqueryerrors/
ibsim_counters_loaded, infiniband-diags 44.0 on ibsim), written here with the figures each row needs: every path port
of the data read rises by LOAD 4-octet units over the window unless the row scales it ("load"); the error read lists
the counts a row gives ("errors": {(switch, port): {counter: n}} after the load; a port not listed counts zero).
A read that failed is its SourceFailure. "status" gives each device's status ("*": every device not named), as the
RoCE rows (judge_data/link/links_under_load.py) do.
"""

import copy

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure

GUIDS = {"leaf1-r0": "0x0c42a10300000001", "leaf2-r0": "0x0c42a10300000002",
         "spine-01": "0x0c42a10300000003", "spine-02": "0x0c42a10300000004"}
LINKS = [{"leaf": leaf, "leaf_guid": GUIDS[leaf], "leaf_port": 33 + up, "spine": spine, "spine_guid": GUIDS[spine],
          "spine_port": down}
         for down, leaf in enumerate(("leaf1-r0", "leaf2-r0"), 1) for up, spine in enumerate(("spine-01", "spine-02"))]
NODES = ["node-001", "node-002", "node-003", "node-004"]
MISSED = "alltoall across 4 nodes of 2 scalable units: busbw 38.1 GB/s, want >= 72.0 GB/s"
SECONDS = 30
LOAD = 2500 * 10 ** 6  # 4-octet units each path port sends over the window: 10 GB
SLOW = "leaf2-r0 33 - spine-01 2"
COMMAND = "ibqueryerrors --counters --threshold-file /dev/null"
REFUSED = SourceFailure(COMMAND, "%s: exit 255: ibwarn: [123] mad_rpc_open_port: can't open UMAD port ((null):0)" % COMMAND)

SPECS = [
    {"name": "healthy: every uplink carries its share, nothing rises; the miss stays on the spine layer",
     "status": {"*": "PASS", "node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"},
     "contains": {"leaf1-r0": ["2 links on the paths over 30s", "33 out 10.00 GB, in 10.00 GB", "errors +0, PortXmitWait 0"],
                  "node-001": [MISSED, "none of the 4 links on its paths shows the loss"]},
     "cause_key": {"node-001": "spine"}},
    {"name": "a slow uplink (factor 0.25): it carries a quarter of its peer's bytes each way",
     "load": {("leaf2-r0", 33): 0.25, ("spine-01", 2): 0.25},
     "status": {"*": "PASS", "leaf2-r0": "FAIL", "spine-01": "FAIL"},
     "contains": {"leaf2-r0": [SLOW, "leaf to spine 2.50 GB: 25% of the median 10.00 GB of leaf2-r0's 1 other uplinks"],
                  "node-004": ["the all-to-all's miss is traced to link %s (%s)" % (SLOW, MISSED)]},
     "cause_key": {"leaf2-r0": "slow_link", "spine-01": "slow_link"}, "named": [SLOW]},
    {"name": "PortXmitWait concentrated on one leaf's uplink port (a slow link's queue)",
     "errors": {("leaf2-r0", 33): {"PortXmitWait": 331972747}},
     "status": {"*": "PASS", "leaf2-r0": "FAIL", "spine-01": "FAIL"},
     "contains": {"leaf2-r0": [SLOW, "331972747 of the 331972747 PortXmitWait on the paths (100%) at leaf2-r0 33"]},
     "cause_key": {"leaf2-r0": "marks_concentrated", "spine-01": "marks_concentrated"}, "named": [SLOW]},
    {"name": "a marginal cable: symbol and receive errors rise at the spine's end in the window only",
     "errors": {("spine-01", 2): {"SymbolErrorCounter": 812, "PortRcvErrors": 406}},
     "status": {"*": "PASS", "leaf2-r0": "FAIL", "spine-01": "FAIL"},
     "contains": {"spine-01": [SLOW, "PortRcvErrors +406, SymbolErrorCounter +812 at spine-01 2 under load (more than 0)"]},
     "cause_key": {"leaf2-r0": "errors_under_load", "spine-01": "errors_under_load"}, "named": [SLOW]},
    {"name": "the data counters' read failed after the load: every switch and node ERROR, naming the command",
     "data_after": REFUSED,
     "status": {"*": "ERROR"},
     "contains": {"leaf1-r0": ["can't open UMAD port"], "node-002": [MISSED]}},
    {"name": "a 16-bit SymbolErrorCounter at its maximum on a path port: it no longer counts, that switch not measured",
     "errors": {("spine-01", 2): {"SymbolErrorCounter": 65535}}, "errors_before": {("spine-01", 2): {"SymbolErrorCounter": 65535}},
     "status": {"*": "PASS", "spine-01": "ERROR", "node-001": "ERROR", "node-002": "ERROR", "node-003": "ERROR", "node-004": "ERROR"},
     "contains": {"spine-01": ["port 2: SymbolErrorCounter 65535, its 16-bit maximum: it no longer counts"],
                  "node-001": [MISSED, "the links of spine-01 were not measured"]}},
    {"name": "an ibdiagnet read that did not list a path port (its PM_INFO lists every port it read): not measured",
     "listed": {"leaf1-r0": [33, 34], "leaf2-r0": [33, 34], "spine-02": [1, 2], "spine-01": [1]},
     "status": {"*": "PASS", "spine-01": "ERROR", "node-001": "ERROR", "node-002": "ERROR", "node-003": "ERROR", "node-004": "ERROR"},
     "contains": {"spine-01": ["port 2: not in the read"]}},
    {"name": "no traffic at all on the paths: the load did not run, ERROR for everyone",
     "load": {"*": 0},
     "status": {"*": "ERROR"},
     "contains": {"spine-02": ["no traffic at all on the 8 path ports read over 30s"], "node-001": [MISSED, "did not run"]}},
]


def _read(ports, data, listed=None):
    """linux_ibqueryerrors' facts (``data``: its --counters read), or with ``listed`` ({switch: ports}) the shape of
    linux_ibdiagnet2_db_csv's: every port it read listed, "reader" ibdiagnet."""
    facts = {"ports": ports, "names": {guid: name for name, guid in GUIDS.items()}, "checked": {"nodes": 8, "ports": 262},
             "thresholds": {}, "suppressed": []}
    if data:
        facts["data"] = True
    if listed is not None:
        facts.update(listed={GUIDS[name]: numbers for name, numbers in listed.items()}, widths={}, unsupported={}, reader="ibdiagnet")
    return facts


def _data(load):
    before = {"%s:%d" % (GUIDS[link[role]], link[role + "_port"]): {
        "PortXmitData": 10 ** 12, "PortRcvData": 10 ** 12, "PortXmitPkts": 10 ** 9, "PortRcvPkts": 10 ** 9}
        for link in LINKS for role in ("leaf", "spine")}
    after = copy.deepcopy(before)
    for link in LINKS:
        for role, other in (("leaf", "spine"), ("spine", "leaf")):
            mine = after["%s:%d" % (GUIDS[link[role]], link[role + "_port"])]
            sent = int(LOAD * load.get((link[role], link[role + "_port"]), load.get("*", 1)))
            got = int(LOAD * load.get((link[other], link[other + "_port"]), load.get("*", 1)))
            mine["PortXmitData"] += sent
            mine["PortRcvData"] += got
            mine["PortXmitPkts"] += sent // 1024
            mine["PortRcvPkts"] += got // 1024
    return _read(before, True), _read(after, True)


def _facts(spec):
    before, after = _data(spec.get("load", {}))
    errors, errors_before = ({"%s:%d" % (GUIDS[switch], port): counts for (switch, port), counts in spec.get(key, {}).items()}
                             for key in ("errors", "errors_before"))
    data_after = spec.get("data_after", after)
    return {"node-001": {
        "ib_port_data": data_after if isinstance(data_after, SourceFailure) else {"before": before, "after": data_after, "seconds": SECONDS},
        "ib_port_counters": {"before": _read(errors_before, False, spec.get("listed")), "after": _read(errors, False, spec.get("listed")),
                             "seconds": SECONDS},
    }}


def _generic(spec):
    devices = sorted(GUIDS) + NODES
    row = {"check": "ib_fabric_link_under_load", "name": spec["name"], "facts": _facts(spec),
           "group": {"links": LINKS, "nodes": NODES, "missed": MISSED},
           "expect": {"pyramid_link_share_min": 0.5, "pyramid_link_error_max": 0, "pyramid_link_marks_min": 1000,
                      "pyramid_rails": ["mlx5_0"]},
           "status": {device: spec["status"].get(device, spec["status"]["*"]) for device in devices}}
    if spec.get("contains"):
        row["contains"] = spec["contains"]
    return row


DATA = [_generic(spec) for spec in SPECS]
