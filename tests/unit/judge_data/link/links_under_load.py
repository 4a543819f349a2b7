"""The link kind's judge (judging/link.py, "links_under_load"): its rows (SPECS, each a pod on the paths of a missed
all-to-all), and DATA, the same rows as test_judge_data.py runs every judge's: the facts per switch built, the paths
(links, nodes, the miss) as the row's "group", each device's status. tests/unit/test_link_judge.py holds the rows to
what the generic test does not read: the cause each FAIL names, the links named, that no node is blocked.

The pod: two NX-OS leaves (leaf-01, leaf-02), each with four uplinks Ethernet1/1-1/4 to spine-01..04 (leaf-01 lands on
each spine's Ethernet1/1, leaf-02 on its Ethernet1/2), and, in some rows, leaf-03 with one uplink. A row's counters:
- sw_errors, sw_ecn, sw_discards: the real NX-OS parsers on the fixtures of tests/unit/parsers (the twin's renders of a
  healthy and a faulty leaf: healthy_leaf all zero; faulty_leaf Ethernet1/3 CRC/input errors 17, ECN-marked q3 991,
  discards q3 5; invalid_command: a switch refusing the command, a SourceFailure through the engine's parse_one). Each
  read is (before case, after case); every switch reads (healthy_leaf, healthy_leaf) unless the row says otherwise.
  The spines read the same leaf renders: the format is NX-OS's, whichever box prints it.
- leaf-01 as a Cumulus leaf (CUMULUS_LINKS, uplinks swp1-swp4), in two rows: each source read per port through the
  real NVUE parsers on their fixtures (the NVUE docs' clean report, the twin's renders, nv's error for a missing item).
- sw_port_traffic: written here as facts dicts in the contract's shape ({"ports": {port: {in_octets, out_octets,
  in_packets, out_packets}}}), since its parsers have no fixtures yet. Each path port's out octets rise by 10 GB over
  the window unless the row scales it ("load": {(switch, port): factor}; 0: nothing ran).
Windows are made as run/counters.py makes them: {"before", "after", "seconds"}, or the SourceFailure of a failed read.
"status" gives each device's status ("*": every device not named); "contains": words its verdict must say;
"cause_key": the cause each FAIL names.
"""

import copy
import os

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core.model import SourceFailure
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "parsers")
# each source's NX-OS way: (parser, the command it answers)
WAYS = {"sw_errors": ("cisco_nxos_show_interface_counters_errors", "show interface counters errors"),
        "sw_ecn": ("cisco_nxos_show_queuing_interface_ecn", "show queuing interface"),
        "sw_discards": ("cisco_nxos_show_queuing_interface", "show queuing interface")}
SPINES = ["spine-0%d" % number for number in range(1, 5)]
LINKS = [{"leaf": leaf, "leaf_port": "Ethernet1/%d" % number, "spine": spine, "spine_port": spine_port}
         for leaf, spine_port in (("leaf-01", "Ethernet1/1"), ("leaf-02", "Ethernet1/2"))
         for number, spine in enumerate(SPINES, 1)]
LONE = {"leaf": "leaf-03", "leaf_port": "Ethernet1/1", "spine": "spine-01", "spine_port": "Ethernet1/3"}
NODES = ["node-001", "node-002", "node-003", "node-004"]
MISSED = "alltoall across 4 nodes of 2 scalable units: busbw 38.1 GB/s, want >= 72.0 GB/s"
SECONDS = 42
LOAD = 10 * 10 ** 9  # bytes each path port sends over the window
SLOW_LINK = "leaf-01 Ethernet1/3 - spine-03 Ethernet1/1"
# leaf-01 as a Cumulus leaf: its uplinks swp1-swp4, each source read per port (`nv show interface <port> ...`)
CUMULUS = {"sw_errors": ("cumulus_nv_show_interface_counters_errors", "nv show interface {port} counters errors",
                         "real_docs_clean"),
           "sw_ecn": ("cumulus_nv_show_interface_counters_qos_ecn", "nv show interface {port} counters qos", "twin_healthy"),
           "sw_discards": ("cumulus_nv_show_interface_counters_qos_discards", "nv show interface {port} counters qos",
                           "twin_healthy")}
CUMULUS_LINKS = [dict(link, leaf_port="swp%s" % link["leaf_port"][-1]) if link["leaf"] == "leaf-01" else link for link in LINKS]

SPECS = [
    {"name": "healthy: every uplink carries its share, nothing rises; the miss stays on the spine layer",
     "status": {"*": "PASS", "node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"},
     "contains": {"leaf-01": ["4 links on the paths over 42s", "Ethernet1/3 out 10.00 GB, in 10.00 GB", "errors +0"],
                  "spine-03": ["2 links on the paths", "ECN marks 0, discards 0"],
                  "node-001": [MISSED, "none of the 8 links on its paths shows the loss"]},
     "cause_key": {"node-001": "spine"}},
    {"name": "a slow uplink (factor 0.25): it carries a quarter of its peers' bytes each way",
     "load": {("leaf-01", "Ethernet1/3"): 0.25, ("spine-03", "Ethernet1/1"): 0.25},
     "status": {"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"},
     "contains": {"leaf-01": [SLOW_LINK, "leaf to spine 2.50 GB: 25% of the median 10.00 GB of leaf-01's 3 other uplinks "
                                         "(under 50%)", "spine to leaf 2.50 GB: 25%"],
                  "spine-03": [SLOW_LINK, "25% of the median"], "spine-01": ["2 links on the paths"],
                  "node-002": ["the all-to-all's miss is traced to link %s (%s)" % (SLOW_LINK, MISSED)]},
     "cause_key": {"leaf-01": "slow_link", "spine-03": "slow_link"}, "named": [SLOW_LINK]},
    {"name": "SONiC leaf (packets, no octets) under NX-OS spines: its uplinks compared by packets, the slow one named",
     "packets": ["leaf-01"], "load": {("leaf-01", "Ethernet1/3"): 0.25, ("spine-03", "Ethernet1/1"): 0.25},
     "status": {"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"},
     "contains": {"leaf-01": [SLOW_LINK, "leaf to spine 610351 packets: 25% of the median 2441406 packets of leaf-01's 3 other "
                                         "uplinks", "spine to leaf 2.50 GB: 25%"],
                  "leaf-02": ["Ethernet1/3 out 10.00 GB"]},
     "cause_key": {"leaf-01": "slow_link", "spine-03": "slow_link"}, "named": [SLOW_LINK]},
    {"name": "an uplink at 60% of its peers is above the share bar (50%): not named",
     "load": {("leaf-01", "Ethernet1/3"): 0.6},
     "status": {"*": "PASS", "node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"},
     "contains": {"leaf-01": ["Ethernet1/3 out 6.00 GB"]}},
    {"name": "the share bar is the inventory's: at 70% the same uplink is named",
     "load": {("leaf-01", "Ethernet1/3"): 0.6}, "expect": {"pyramid_link_share_min": 0.7},
     "status": {"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"},
     "contains": {"leaf-01": ["leaf to spine 6.00 GB: 60% of the median 10.00 GB", "(under 70%)"]},
     "cause_key": {"leaf-01": "slow_link", "spine-03": "slow_link"}, "named": [SLOW_LINK]},
    {"name": "a marginal cable: CRC and input errors rise on the leaf's port in the window only",
     "reads": {"leaf-01": {"sw_errors": ("healthy_leaf", "faulty_leaf")}},
     "status": {"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"},
     "contains": {"leaf-01": [SLOW_LINK, "crc +17, in_errors +17 at leaf-01 Ethernet1/3 under load (more than 0)"],
                  "spine-03": [SLOW_LINK, "crc +17"], "node-003": ["traced to link " + SLOW_LINK]},
     "cause_key": {"leaf-01": "errors_under_load", "spine-03": "errors_under_load"}, "named": [SLOW_LINK]},
    {"name": "errors on a spine port on none of the load's paths (spine-02 Ethernet1/3) name no link",
     "reads": {"spine-02": {"sw_errors": ("healthy_leaf", "faulty_leaf")}},
     "status": {"*": "PASS", "node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"},
     "contains": {"spine-02": ["2 links on the paths", "errors +0"]}},
    {"name": "ECN marks concentrated on one leaf egress port (991 of 991, floor 500)",
     "reads": {"leaf-01": {"sw_ecn": ("healthy_leaf", "faulty_leaf")}}, "expect": {"pyramid_link_marks_min": 500},
     "status": {"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"},
     "contains": {"leaf-01": ["991 of the 991 ECN marks on the paths (100%) at leaf-01 Ethernet1/3"]},
     "cause_key": {"leaf-01": "marks_concentrated", "spine-03": "marks_concentrated"}, "named": [SLOW_LINK]},
    {"name": "the same marks under the floor (991 < 1000): a handful, not a link",
     "reads": {"leaf-01": {"sw_ecn": ("healthy_leaf", "faulty_leaf")}},
     "status": {"*": "PASS", "node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"},
     "contains": {"leaf-01": ["ECN marks 991"]}},
    {"name": "discards concentrated (5 of 5, floor 5) beside a slow uplink: the slow link is the cause named first",
     "load": {("leaf-01", "Ethernet1/3"): 0.25},
     "reads": {"leaf-01": {"sw_discards": ("healthy_leaf", "faulty_leaf")}}, "expect": {"pyramid_link_marks_min": 5},
     "status": {"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"},
     "contains": {"leaf-01": ["leaf to spine 2.50 GB: 25%", "5 of the 5 discards on the paths (100%) at leaf-01 Ethernet1/3"]},
     "cause_key": {"leaf-01": "slow_link", "spine-03": "slow_link"}, "named": [SLOW_LINK]},
    {"name": "one read failed (spine-02 refuses the errors command), no link named: that spine and the nodes ERROR",
     "reads": {"spine-02": {"sw_errors": ("healthy_leaf", "invalid_command")}},
     "status": {"*": "PASS", "spine-02": "ERROR", "node-001": "ERROR", "node-002": "ERROR", "node-003": "ERROR",
                "node-004": "ERROR"},
     "contains": {"spine-02": ["spine-02: not read: show interface counters errors: unparseable output"],
                  "node-001": [MISSED, "no link named, and the links of spine-02 were not measured"]},
     "command": {"spine-02": "show interface counters errors"}},
    {"name": "one read failed at the snapshot while a slow uplink elsewhere is named: the nodes PASS",
     "load": {("leaf-01", "Ethernet1/3"): 0.25},
     "reads": {"spine-02": {"sw_ecn": ("invalid_command", "healthy_leaf")}},
     "status": {"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL", "spine-02": "ERROR"},
     "contains": {"spine-02": ["at the snapshot: show queuing interface: unparseable output"], "node-004": ["traced to link " + SLOW_LINK]},
     "cause_key": {"leaf-01": "slow_link"}, "named": [SLOW_LINK], "command": {"spine-02": "show queuing interface"}},
    {"name": "no traffic at all on the paths: the load did not run, ERROR for everyone",
     "load": {"*": 0},
     "status": {"*": "ERROR"},
     "contains": {"leaf-01": ["no traffic at all on the 16 path ports read over 42s"], "node-001": [MISSED, "did not run"]}},
    {"name": "no traffic through one leaf's links while the others carry theirs: that leaf not measured, ERROR",
     "load": dict([(("leaf-02", "Ethernet1/%d" % number), 0) for number in range(1, 5)]
                  + [((spine, "Ethernet1/2"), 0) for spine in SPINES]),
     "status": {"*": "PASS", "leaf-02": "ERROR", "node-001": "ERROR", "node-002": "ERROR", "node-003": "ERROR",
                "node-004": "ERROR"},
     "contains": {"leaf-02": ["no traffic through its links on the paths during the load: not measured under load"],
                  "spine-01": ["Ethernet1/2 out 0 B, in 0 B"], "node-001": ["the links of leaf-02 were not measured under the load"]}},
    {"name": "a leaf with one uplink carrying less: nothing to compare it with, so not judged by its share",
     "links": LINKS + [LONE], "load": {("leaf-03", "Ethernet1/1"): 0.1, ("spine-01", "Ethernet1/3"): 0.1},
     "status": {"*": "PASS", "node-001": "FAIL", "node-002": "FAIL", "node-003": "FAIL", "node-004": "FAIL"},
     "contains": {"leaf-03": ["1 link on the paths",
                              "leaf-03 has one uplink on the paths: its share is not compared (nothing to compare with)"],
                  "node-001": ["leaf-03 has one uplink on the paths"]}},
    {"name": "a leaf with one uplink whose errors rise: named by its errors",
     "links": LINKS + [LONE], "reads": {"spine-01": {"sw_errors": ("healthy_leaf", "faulty_leaf")}},
     "status": {"*": "PASS", "leaf-03": "FAIL", "spine-01": "FAIL"},
     "contains": {"leaf-03": ["leaf-03 Ethernet1/1 - spine-01 Ethernet1/3", "crc +17, in_errors +17 at spine-01 Ethernet1/3",
                              "its share is not compared"]},
     "cause_key": {"leaf-03": "errors_under_load", "spine-01": "errors_under_load"},
     "named": ["leaf-03 Ethernet1/1 - spine-01 Ethernet1/3"]},
    {"name": "Cumulus leaf, read per port: 5000 ECN marks (NVUE counts per port) on swp3 of 5000 on the paths",
     "links": CUMULUS_LINKS, "cumulus": ["leaf-01"], "reads": {"leaf-01": {"sw_ecn": {"swp3": ("twin_healthy", "twin_nonzero")}}},
     "status": {"*": "PASS", "leaf-01": "FAIL", "spine-03": "FAIL"},
     "contains": {"leaf-01": ["leaf-01 swp3 - spine-03 Ethernet1/1: 5000 of the 5000 ECN marks on the paths (100%) at "
                              "leaf-01 swp3", "ECN marks 5000 at the leaf, 0 at the spine"]},
     "cause_key": {"leaf-01": "marks_concentrated", "spine-03": "marks_concentrated"}, "named": ["leaf-01 swp3 - spine-03 Ethernet1/1"]},
    {"name": "Cumulus leaf, one port's read failed (nv: the item does not exist): that leaf ERROR naming the command",
     "links": CUMULUS_LINKS, "cumulus": ["leaf-01"], "reads": {"leaf-01": {"sw_ecn": {"swp3": ("twin_healthy", "nv_error")}}},
     "status": {"*": "PASS", "leaf-01": "ERROR", "node-001": "ERROR", "node-002": "ERROR", "node-003": "ERROR",
                "node-004": "ERROR"},
     "contains": {"leaf-01": ["swp3 (after the load): nv show interface swp3 counters qos: unparseable output"]},
     "command": {"leaf-01": "nv show interface swp3 counters qos"}},
    {"name": "counters that went backwards (cleared during the window): ERROR, never a figure",
     "reads": {"leaf-01": {"sw_errors": ("faulty_leaf", "healthy_leaf")}},
     "status": {"*": "PASS", "leaf-01": "ERROR", "node-001": "ERROR", "node-002": "ERROR", "node-003": "ERROR",
                "node-004": "ERROR"},
     "contains": {"leaf-01": ["Ethernet1/3: crc went from 17 to 0 (cleared or rebooted during the window)"]}},
    {"name": "a traffic counter cleared on one path port: that switch ERROR, the rest judged",
     "load": {("leaf-02", "Ethernet1/4"): -1},
     "status": {"*": "PASS", "leaf-02": "ERROR", "node-001": "ERROR", "node-002": "ERROR", "node-003": "ERROR",
                "node-004": "ERROR"},
     "contains": {"leaf-02": ["sw_port_traffic Ethernet1/4: out_octets went from"],
                  "spine-04": ["Ethernet1/2 out 10.00 GB, in not read"]}},
]


def _read(parser, case, command):
    with open(os.path.join(FIXTURES, parser, case + ".raw"), encoding="utf-8", newline="") as handle:
        return _engine.parse_one({"status": "ok", "stdout": handle.read(), "command": command, "parser": parser})


def _window(before, after):
    """As run/counters.py windows a counters source: a failed read is its SourceFailure."""
    if isinstance(before, SourceFailure):
        return SourceFailure(before.command, "at the snapshot: " + before.reason, before.status, before.output)
    if isinstance(after, SourceFailure):
        return after
    return {"before": before, "after": after, "seconds": SECONDS}


def _traffic(switch, links, load, per_port=False, packets=False):
    """Facts dicts in sw_port_traffic's shape: every path port of the switch sends LOAD times its factor (a negative
    factor: the counter read lower after than before, cleared); per_port: NVUE's per-port reads, {port: counters};
    packets: SONiC's portstat, which prints packets and no octets."""
    ports = sorted({link[role + "_port"] for link in links for role in ("leaf", "spine") if link[role] == switch})
    before = {"ports": {port: {"in_octets": 7 * 10 ** 12, "out_octets": 9 * 10 ** 12, "in_packets": 10 ** 9,
                               "out_packets": 2 * 10 ** 9} for port in ports}}
    after = copy.deepcopy(before)
    for port in ports:
        factor = load.get((switch, port), load.get("*", 1))
        after["ports"][port]["out_octets"] += int(LOAD * factor) if factor >= 0 else -10 ** 12
        after["ports"][port]["out_packets"] += int(LOAD * factor / 4096) if factor >= 0 else -10 ** 6
    if packets:
        for table in (before, after):
            for counters in table["ports"].values():
                del counters["in_octets"], counters["out_octets"]
    if per_port:
        return _window(before["ports"], after["ports"])
    return _window(before, after)


def _per_port(switch, links, source, cases):
    """A Cumulus leaf's per-port reads of one source as run/counters.py windows a `foreach` source: {port: facts |
    SourceFailure} at each end; cases: {port: (before case, after case)}."""
    parser, command, healthy = CUMULUS[source]
    ports = sorted({link["leaf_port"] for link in links if link["leaf"] == switch})
    sides = [{port: _read(parser, cases.get(port, (healthy, healthy))[side], command.format(port=port)) for port in ports}
             for side in (0, 1)]
    return {"before": sides[0], "after": sides[1], "seconds": SECONDS}


def _facts(row):
    links = row.get("links", LINKS)
    switches = sorted({link[role] for link in links for role in ("leaf", "spine")})
    facts = {}
    for switch in switches:
        facts[switch] = {"sw_port_traffic": _traffic(switch, links, row.get("load", {}), switch in row.get("cumulus", []),
                                                     switch in row.get("packets", []))}
        if switch in row.get("cumulus", []):
            facts[switch].update({source: _per_port(switch, links, source, row.get("reads", {}).get(switch, {}).get(source, {}))
                                  for source in CUMULUS})
            continue
        for source, (parser, command) in WAYS.items():
            before, after = row.get("reads", {}).get(switch, {}).get(source, ("healthy_leaf", "healthy_leaf"))
            facts[switch][source] = _window(_read(parser, before, command), _read(parser, after, command))
    return facts


def _generic(spec):
    """A spec as test_judge_data.py's row: facts per switch, the paths in "group", every device's status named."""
    links = spec.get("links", LINKS)
    devices = sorted({link[role] for link in links for role in ("leaf", "spine")}) + NODES
    row = {"check": "fabric_link_under_load", "name": spec["name"], "facts": _facts(spec),
           "group": {"links": links, "nodes": NODES, "missed": MISSED},
           "expect": dict({"pyramid_link_share_min": 0.5, "pyramid_link_error_max": 0, "pyramid_link_marks_min": 1000,
                           "pyramid_pfc_priorities": [3], "pyramid_switch_os": "nxos"}, **spec.get("expect", {})),
           "status": {device: spec["status"].get(device, spec["status"]["*"]) for device in devices}}
    if spec.get("contains"):
        row["contains"] = spec["contains"]
    return row


DATA = [_generic(spec) for spec in SPECS]
