"""The InfiniBand port counters read by ibdiagnet (pyramid_ib_counters_reader: ibdiagnet; catalog/infiniband.yml,
issue 36) as a data table: ib_port_errors and ib_congestion_idle judged from ibdiagnet2.db_csv's PM_INFO.

The subnet is layer1_infiniband's (ibsim's 4 nodes of 2 HDR rails, real iblinkinfo and ibstat captures). Its
ibdiagnet2.db_csv is derived: the real capture's (tests/unit/parsers/linux_ibdiagnet2_db_csv/quantum2_fabric_real,
IBDIAGNET 2.10.0) PM_INFO header and index table, one row per linked port of the ibsim subnet (every counter 0 but the
ones each row sets, each 32-bit column at the 64-bit value or its own maximum, as the real rows show), so that each
state below is what ibdiagnet would write for it.
"""

from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import fixture
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.infiniband.layer1_infiniband import HEALTHY, NODES, SOAK, ibstat

REAL = fixture("linux_ibdiagnet2_db_csv", "quantum2_fabric_real")[1]
HEADER = REAL.split("START_PM_INFO\n", 1)[1].split("\n", 1)[0]
INDEX = "START_INDEX_TABLE" + REAL.split("START_INDEX_TABLE", 1)[1]
PARSER = "linux_ibdiagnet2_db_csv"
WIDTHS = {"LinkDownedCounter": 8, "LinkErrorRecoveryCounter": 8, "SymbolErrorCounter": 16, "PortRcvErrors": 16,
          "PortXmitDiscards": 16, "LocalLinkIntegrityErrors": 4, "ExcessiveBufferOverrunErrors": 4, "PortXmitWait": 32}
# the ibsim subnet's linked ports: each leaf's CA ports 1-4 and its uplinks, each CA's port 1 (its node GUID = port GUID)
LEAVES = {"leaf-r0": "0x1070fd0300c1e000", "leaf-r1": "0x1070fd0300c1e001"}


def _ports():
    import re  # pylint: disable=import-outside-toplevel
    keys = []
    for line in HEALTHY[1].splitlines():
        switch = re.match(r"^Switch: (0x[0-9a-f]{16}) ", line)
        if switch:
            guid = switch.group(1)
        ca = re.match(r"^\s+(0x[0-9a-f]{16})\s+\d+\s+1\[", line)
        if ca:
            keys.append((ca.group(1), 1))
        elif re.match(r"^\s+\d+\s+(\d+)\[.*\"[^\"]+\"", line):
            keys.append((guid, int(re.match(r"^\s+\d+\s+(\d+)\[", line).group(1))))
    return keys


def db_csv(counts=None, leave_out=(), narrow_only=(), not_counted=None, node_guids=None):  # pylint: disable=too-many-arguments
    """ibdiagnet2.db_csv of the ibsim subnet: {(GUID, port): {counter: value}} set, the ports in leave_out not read; the
    ports in narrow_only with their 64-bit columns at 0 (as the real capture's ConnectX-7 rows keep SymbolErrorCounterExt
    and LinkDownedCounterExt), not_counted {(GUID, port): [counter]} N/A in both columns, node_guids {(GUID, port): node
    GUID} a CA row's NodeGUID other than its PortGUID (ibsim's CAs, ConnectX-3: the port's GUID is the node's + 1)."""
    columns = [name.strip() for name in HEADER.split(",")]
    rows = []
    for guid, port in _ports():
        if (guid, port) in leave_out:
            continue
        values = dict.fromkeys(columns, "0")
        values.update(NodeGUID=(node_guids or {}).get((guid, port), guid), PortGUID=guid, PortNumber=str(port))
        for counter, value in (counts or {}).get((guid, port), {}).items():
            values[counter + "Ext"] = "0" if (guid, port) in narrow_only else "0x%016x" % value if value >= 2 ** 63 else str(value)
            values[counter] = str(min(value, 2 ** WIDTHS[counter] - 1))
        for counter in (not_counted or {}).get((guid, port), ()):
            values[counter], values[counter + "Ext"] = "-1", "N/A"
        rows.append(",".join(values[name] for name in columns))
    index = "\n".join("PM_INFO,      603357,      159839,        3949,%12d" % len(rows) if line.startswith("PM_INFO,") else line
                      for line in INDEX.split("\n"))
    return "START_PM_INFO\n%s\n%s\nEND_PM_INFO\n\n%s" % (HEADER, "\n".join(rows), index)


def soak(before, after, nodes=NODES, seconds=300):
    return {node: {"ib_port_counters": {"before": (PARSER, before), "after": (PARSER, after), "seconds": seconds},
                   "ib_link_info": HEALTHY, "ibstat": ibstat(node)} for node in nodes}


IBDIAGNET = dict(SOAK, pyramid_ib_counters_reader="ibdiagnet")
LEAF_R0_PORT_2 = (LEAVES["leaf-r0"], 2)  # facing node-002 mlx5_0
LEAF_R0_PORT_4 = (LEAVES["leaf-r0"], 4)  # facing node-004 mlx5_0
NODE_003_MLX5_0 = ("0xb83fd20300a0f009", 1)  # node-003 mlx5_0's own port (its port GUID, by which PM_INFO rows are read)
OTHER_NODE_GUID = {NODE_003_MLX5_0: "0xb83fd20300a0f008"}
DATA = [
    {"check": "ib_port_errors", "name": "ibdiagnet: a CA row whose NodeGUID is not its PortGUID is read by its PortGUID: "
     "link downs rising at node-003's own port FAIL",
     "raw": soak(db_csv(node_guids=OTHER_NODE_GUID), db_csv({NODE_003_MLX5_0: {"LinkDownedCounter": 2}}, node_guids=OTHER_NODE_GUID),
                 ["node-003"]),
     "expect": IBDIAGNET, "status": {"node-003": "FAIL"},
     "contains": {"node-003": ["node-003 mlx5_0 port 1: LinkDownedCounter +2 in 300s (0 -> 2)"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: a quiet subnet passes, said as read by ibdiagnet",
     "raw": soak(db_csv(), db_csv()), "expect": IBDIAGNET, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-001": ["2 rails, both ends: no error counter rose over 300s"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: symbol errors past the 16-bit column's maximum are read from the 64-bit "
     "one: a rise past 65535 is a FAIL with its size, never a saturated ERROR",
     "raw": soak(db_csv({LEAF_R0_PORT_2: {"SymbolErrorCounter": 70000}}), db_csv({LEAF_R0_PORT_2: {"SymbolErrorCounter": 91000}})),
     "expect": IBDIAGNET, "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-002": ["leaf-r0 port 2 (node-002 mlx5_0): SymbolErrorCounter +21000 in 300s (70000 -> 91000)"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: old 64-bit counts past the 16-bit maximum that do not rise pass, said",
     "raw": soak(db_csv({LEAF_R0_PORT_2: {"SymbolErrorCounter": 70000}}), db_csv({LEAF_R0_PORT_2: {"SymbolErrorCounter": 70000}})),
     "expect": IBDIAGNET, "status": dict.fromkeys(NODES, "PASS"),
     "contains": {"node-002": ["leaf-r0 port 2 (node-002 mlx5_0): SymbolErrorCounter 70000, not rising"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: a port it read no counters of is unknown, never quiet: ERROR naming it",
     "raw": soak(db_csv(), db_csv(leave_out=[LEAF_R0_PORT_4])), "expect": IBDIAGNET,
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "PASS", "node-004": "ERROR"},
     "contains": {"node-004": ["leaf-r0 port 4 (node-004 mlx5_0): no counters in ibdiagnet's read at the end of the soak",
                               "performance query went unanswered"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: a 64-bit count near its maximum is damage, not a rise: ERROR",
     "raw": soak(db_csv(), db_csv({LEAF_R0_PORT_4: {"LinkDownedCounter": 2 ** 64 - 2}})), "expect": IBDIAGNET,
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "PASS", "node-004": "ERROR"},
     "contains": {"node-004": ["LinkDownedCounter 18446744073709551614, near its 64-bit maximum: damage, not a count"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: a CA's symbol errors in its 16-bit column, its 64-bit one at 0 (the "
     "real ConnectX-7 rows): the 16-bit count is read and its rise FAILs",
     "raw": soak(db_csv({NODE_003_MLX5_0: {"SymbolErrorCounter": 100}}, narrow_only=[NODE_003_MLX5_0]),
                 db_csv({NODE_003_MLX5_0: {"SymbolErrorCounter": 5000}}, narrow_only=[NODE_003_MLX5_0])),
     "expect": IBDIAGNET, "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "FAIL", "node-004": "PASS"},
     "contains": {"node-003": ["node-003 mlx5_0 port 1: SymbolErrorCounter +4900 in 300s (100 -> 5000)"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: a CA's 16-bit symbol error count at 65535 beside a 64-bit 0: saturated, ERROR",
     "raw": soak(db_csv(), db_csv({NODE_003_MLX5_0: {"SymbolErrorCounter": 65535}}, narrow_only=[NODE_003_MLX5_0])),
     "expect": IBDIAGNET, "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "ERROR", "node-004": "PASS"},
     "contains": {"node-003": ["node-003 mlx5_0 port 1: SymbolErrorCounter 65535, its 16-bit maximum"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: an error counter the port does not count (N/A) is unknown, never zero: ERROR",
     "raw": soak(db_csv(not_counted={LEAF_R0_PORT_2: ["SymbolErrorCounter"]}), db_csv(not_counted={LEAF_R0_PORT_2: ["SymbolErrorCounter"]})),
     "expect": IBDIAGNET, "status": {"node-001": "PASS", "node-002": "ERROR", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-002": ["leaf-r0 port 2 (node-002 mlx5_0): SymbolErrorCounter not counted by the port (N/A in ibdiagnet's read)"]}},
    {"check": "ib_port_errors", "name": "ibdiagnet: a port missing from the read at the soak's start: ERROR naming it",
     "raw": soak(db_csv(leave_out=[LEAF_R0_PORT_4]), db_csv()), "expect": IBDIAGNET,
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "PASS", "node-004": "ERROR"},
     "contains": {"node-004": ["leaf-r0 port 4 (node-004 mlx5_0): no counters in ibdiagnet's read at the start of the soak"]}},
    {"check": "ib_congestion_idle", "name": "ibdiagnet: a port missing from the read is unknown, said with the unread cause",
     "raw": soak(db_csv(), db_csv(leave_out=[LEAF_R0_PORT_4])), "expect": dict(IBDIAGNET, pyramid_ib_xmit_wait_idle_max=0),
     "status": {"node-001": "PASS", "node-002": "PASS", "node-003": "PASS", "node-004": "ERROR"},
     "contains": {"node-004": ["leaf-r0 port 4 (node-004 mlx5_0): no counters in ibdiagnet's read at Layer 3",
                               "performance query went unanswered"]}},
    {"check": "ib_congestion_idle", "name": "ibdiagnet: PortXmitWait past its 32-bit maximum read from the 64-bit column: "
     "a rise at idle FAILs with its size",
     "raw": soak(db_csv({LEAF_R0_PORT_2: {"PortXmitWait": 9463628588}}), db_csv({LEAF_R0_PORT_2: {"PortXmitWait": 9463640000}})),
     "expect": dict(IBDIAGNET, pyramid_ib_xmit_wait_idle_max=0),
     "status": {"node-001": "PASS", "node-002": "FAIL", "node-003": "PASS", "node-004": "PASS"},
     "contains": {"node-002": ["leaf-r0 port 2 (node-002 mlx5_0): PortXmitWait +11412 in 300s"]}},
]
