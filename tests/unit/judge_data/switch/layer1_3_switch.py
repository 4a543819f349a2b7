"""Switch judges (Layers 1-3) as a data table, run by test_judge_data.py.

Rows with "raw" go through the parser of the switch's platform (pyramid_switch_os): Arista EOS,
Cisco NX-OS, SONiC and Cumulus (NVUE, FRR), from tests/unit/parsers fixtures. A counters source's
raw output is {"before": output, "after": output, "seconds": s}; a per-port command (NX-OS optics
and queuing, Cumulus counters and optics) is {port: output}. Rows with "facts" put each threshold
just inside and just outside, and read each field and direction (a counter that went down, a port
read once, a port whose command failed).

The fixtures' optics are healthy DR4 readings near -2 dBm (inside the default -7 to +4 dBm since
2026-11-23; the fixture rows keep their own range, OPTICS); the facts rows judge the defaults.
"""

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.parsing import parse
from ansible_collections.gpufabric.pyramid.tests.unit.judge_data.host.layer0 import CAUSE, edited_raw as _edited_raw, failed, fixture


def parsed(parser, case):
    """Facts of a fixture through a parser the catalog's ways do not name yet (the EOS `| json` ones)."""
    return parse(*fixture(parser, case))


def plan(*ports):
    """pyramid_switch_ports: (port, peer, peer_port[, role]) each; role host unless given."""
    return [{"port": port[0], "peer": port[1], "peer_port": port[2], "role": port[3] if len(port) > 3 else "host"} for port in ports]


def spines(*addresses, remote_as=65000):
    return [{"address": address, "name": "spine-%02d" % (index + 1), "remote_as": remote_as} for index, address in enumerate(addresses)]


OPTICS = {"pyramid_optics_rx_min_dbm": -10.0, "pyramid_optics_rx_max_dbm": 2.0}
EOS_PLAN = plan(("Ethernet1/1", "node-001", "ens1np0"), ("Ethernet2/1", "node-002", "ens1np0"), ("Ethernet3/1", "node-003", "ens1np0"),
                ("Ethernet33/1", "spine-01", "Ethernet1/1", "fabric"), ("Ethernet34/1", "spine-02", "Ethernet1/1", "fabric"))
EOS_SPINES = spines("10.200.0.0", "10.200.8.0", "10.200.16.0", "10.200.24.0")
EOS = dict(OPTICS, pyramid_switch_os="eos", pyramid_switch_ports=EOS_PLAN, pyramid_bgp_neighbors=EOS_SPINES[:2],
           pyramid_ecmp_prefixes=["10.51.0.0/24", "10.52.0.0/24", "10.53.0.0/24"])
EOS_ECMP = dict(EOS, pyramid_bgp_neighbors=EOS_SPINES)
NXOS_PLAN = plan(("Ethernet1/1", "node-001", "ens1np0"), ("Ethernet1/2", "node-002", "ens1np0"), ("Ethernet1/3", "node-003", "ens1np0"),
                 ("Ethernet1/4", "node-004", "ens1np0"))
NXOS = dict(OPTICS, pyramid_switch_os="nxos", pyramid_switch_ports=NXOS_PLAN,
            pyramid_bgp_neighbors=[{"address": "10.0.1.1", "name": "spine-01", "remote_as": 65001},
                                   {"address": "10.0.1.5", "name": "spine-02", "remote_as": 65002}],
            pyramid_ecmp_prefixes=["10.2.3.0/24"], pyramid_ecmp_paths=2)
SONIC_PLAN = plan(("Ethernet0", "node-001", "ens1np0"), ("Ethernet8", "node-002", "ens2np0"), ("Ethernet16", "node-003", "ens3np0"),
                  ("Ethernet32", "spine-01", "Ethernet0", "fabric"), ("Ethernet40", "spine-02", "Ethernet0", "fabric"))
SONIC = dict(OPTICS, pyramid_switch_os="sonic", pyramid_switch_ports=SONIC_PLAN,
             pyramid_bgp_neighbors=spines("10.200.0.2", "10.200.0.10"))
CUMULUS_PLAN = plan(("swp1", "node-001", "ens1np0"), ("swp2", "node-002", "ens1np0"), ("swp49", "spine-01", "swp1", "fabric"),
                    ("swp50", "spine-02", "swp1", "fabric"))
CUMULUS_PORTS = [entry["port"] for entry in CUMULUS_PLAN]
CUMULUS = dict(OPTICS, pyramid_switch_os="cumulus", pyramid_switch_ports=CUMULUS_PLAN, pyramid_bgp_neighbors=spines("10.0.1.1", "10.0.1.3", remote_as=65001),
               pyramid_ecmp_prefixes=["10.2.3.0/24"], pyramid_ecmp_paths=2)


def _cumulus_lldp_cut(*replaced):
    """The twin's healthy `nv show interface` (a table of every port) cut after swp2's row at a line boundary,
    as a read that stopped would leave it: swp49 and swp50 not listed at all."""
    parser, text = fixture("cumulus_nv_show_interface_lldp", "twin_healthy")
    lines = text.splitlines(keepends=True)
    kept = "".join(lines[:next(index for index, line in enumerate(lines) if line.startswith("swp2 ")) + 1])
    for old, new in replaced:
        kept = kept.replace(old, new)
    return parser, kept


# facts rows: a leaf with two host ports and an uplink, judged with the catalog's default thresholds
PLAN = plan(("Ethernet1/1", "node-001", "ens1np0"), ("Ethernet2/1", "node-002", "ens1np0"), ("Ethernet33/1", "spine-01", "Ethernet1/1", "fabric"))
PORTS = [entry["port"] for entry in PLAN]
LEAF = {"pyramid_switch_os": "eos", "pyramid_switch_ports": PLAN}
SPINES = spines("10.200.0.0", "10.200.8.0")
ECMP = dict(LEAF, pyramid_bgp_neighbors=SPINES, pyramid_ecmp_prefixes=["10.51.0.0/24", "10.52.0.0/24"], pyramid_ecmp_paths=2)


def both(parser, healthy, after=None, seconds=300):
    """A counters window of one whole-switch command: healthy at the snapshot, `after` now."""
    return {"before": fixture(parser, healthy), "after": fixture(parser, after or healthy), "seconds": seconds}


def per_port(parser, case, ports, **others):
    """A per-port command's outputs: case for every port, others: port (_ for /) -> case."""
    cases = {port: case for port in ports}
    cases.update({port.replace("_", "/"): other for port, other in others.items()})
    return {port: fixture(parser, name) for port, name in cases.items()}


def _cut_before_lane(source, lane):
    """An NX-OS transceiver read that ends just before its "Lane Number:<lane>" block (a cut between two lanes)."""
    parser, text = source
    return parser, text[:text.index("Lane Number:%d " % lane)]


def per_port_window(parser, healthy, ports, after=None, seconds=300):
    return {"before": per_port(parser, healthy, ports), "after": per_port(parser, healthy, ports, **(after or {})), "seconds": seconds}


def interfaces(**changes):
    ports = {port: {"oper": "up", "admin": "up", "speed_gbps": 400, "status": "connected"} for port in PORTS}
    for port, change in changes.items():
        ports[port.replace("_", "/")].update(change)
    return {"ports": ports}


def window(before, after, seconds=300):
    return {"before": before, "after": after, "seconds": seconds}


def errors(**changes):
    """sw_errors facts: 100 CRC/input errors and 0 output errors on every port; changes: port -> {field: value}."""
    ports = {port: {"crc": 100, "in_errors": 100, "out_errors": 0} for port in PORTS}
    for port, change in changes.items():
        ports[port.replace("_", "/")].update(change)
    return {"ports": ports}


def pfc(**changes):
    """sw_pfc facts: 5 RX/TX pauses on each priority; changes: port -> {priority: {"rx": n}}."""
    ports = {port: {str(queue): {"rx": 5, "tx": 5} for queue in range(8)} for port in PORTS}
    for port, change in changes.items():
        for queue, counters in change.items():
            ports[port.replace("_", "/")][queue].update(counters)
    return {"ports": ports}


def queues(value=9, **changes):
    ports = {port: {"3": value} for port in PORTS}
    for port, change in changes.items():
        ports[port.replace("_", "/")].update(change)
    return {"ports": ports}


def optics(lanes=(-5.0, -5.0, -5.0, -5.0), **changes):
    ports = {port: {"rx_dbm": list(lanes), "tx_dbm": [0.5] * len(lanes)} for port in PORTS}
    for port, change in changes.items():
        ports[port.replace("_", "/")] = change
    return {"ports": ports}


def lldp(**changes):
    neighbors = {entry["port"]: [{"system": entry["peer"], "port": entry["peer_port"]}] for entry in PLAN}
    for port, change in changes.items():
        neighbors[port.replace("_", "/")] = change
    return {"neighbors": neighbors}


def bgp(prefixes=3, prefixes_accepted=None, **changes):
    """sw_bgp facts: both spines Established with `prefixes` (and EOS's accepted count, where given); changes: address
    (_ for .) -> fields, or None to drop."""
    neighbors = {n["address"]: {"remote_as": 65000, "state": "Established", "prefixes_received": prefixes} for n in SPINES}
    if prefixes_accepted is not None:
        for neighbor in neighbors.values():
            neighbor["prefixes_accepted"] = prefixes_accepted
    for address, change in changes.items():
        address = address.replace("_", ".")
        if change is None:
            neighbors.pop(address)
        else:
            neighbors[address].update(change)
    return {"neighbors": neighbors}


def routes(**hops):
    """sw_routes facts: both prefixes via both spines; hops: prefix (10_51 for 10.51.0.0/24) -> next hops, or None to drop."""
    table = {"10.51.0.0/24": {"next_hops": ["10.200.0.0", "10.200.8.0"]}, "10.52.0.0/24": {"next_hops": ["10.200.0.0", "10.200.8.0"]}}
    for prefix, value in hops.items():
        prefix = prefix.replace("_", ".") + ".0.0/24"
        if value is None:
            table.pop(prefix)
        else:
            table[prefix] = {"next_hops": list(value)}
    return {"routes": table}


SESSION_DOWN = "ECMP lost the path through a spine whose BGP session is down"
REMOTE = "Only some prefixes lack a spine's path"
NO_ROUTE = "Leaf prefix not in the routing table"
NO_COUNTERS = "Counters could not be compared across the window"
PORT_DOWN = "Port down: cable, optic or the far end"
PORT_ABSENT = "Port not on the switch"
NO_PREFIXES = "BGP Established but too few prefixes received"
NOT_CONFIGURED = "Expected BGP neighbor not configured on this switch"
NO_DATA = "No data for some planned ports"

DATA = [
    # --- link_status: every planned port oper up at its rated speed (per port, else pyramid_port_speed_gbps)
    {"check": "link_status", "name": "EOS: 5 ports at 400G", "raw": {"sw_interfaces": fixture("arista_eos_show_interfaces_status", "healthy")},
     "expect": EOS, "status": "PASS", "contains": ["5 ports up at rated speed", "5 planned ports up at their rated speed (400G unless set per port)"]},
    {"check": "link_status", "name": "EOS: notconnect, 200G and disabled", "raw": {"sw_interfaces": fixture("arista_eos_show_interfaces_status", "unhealthy")},
     "expect": EOS, "status": "FAIL",
     "contains": ["Ethernet1/1 notconnect (admin up)", "Ethernet2/1 up at 200G, want 400G", "Ethernet3/1 disabled (admin down)", PORT_DOWN]},
    {"check": "link_status", "name": "NX-OS: 4 ports at 400G", "raw": {"sw_interfaces": fixture("cisco_nxos_show_interface_status", "healthy_leaf")},
     "expect": NXOS, "status": "PASS", "contains": ["4 ports up at rated speed"]},
    {"check": "link_status", "name": "NX-OS: sfpAbsent, admin unknown", "raw": {"sw_interfaces": fixture("cisco_nxos_show_interface_status", "faulty_leaf")},
     "expect": NXOS, "status": "FAIL",
     "contains": ["Ethernet1/2 sfpAbsent (admin ?)", "Ethernet1/3 up at 200G, want 400G", "Ethernet1/4 disabled (admin down)"]},
    {"check": "link_status", "name": "SONiC: 6 ports at 400G", "raw": {"sw_interfaces": fixture("sonic_show_interfaces_status", "healthy_400g")},
     "expect": SONIC, "status": "PASS"},
    {"check": "link_status", "name": "SONiC: down, shut and 200G", "raw": {"sw_interfaces": fixture("sonic_show_interfaces_status", "down_shut_200g")},
     "expect": SONIC, "status": "FAIL", "contains": ["Ethernet0 down (admin up)", "Ethernet8 up at 200G, want 400G", "Ethernet32 down (admin down)"]},
    {"check": "link_status", "name": "Cumulus: 4 ports at 400G", "raw": {"sw_interfaces": fixture("cumulus_nv_show_interface", "twin_healthy_400g")},
     "expect": CUMULUS, "status": "PASS"},
    {"check": "link_status", "name": "Cumulus: swp1 down, swp2 at 200G",
     "raw": {"sw_interfaces": fixture("cumulus_nv_show_interface", "twin_port_down_and_200g")},
     "expect": CUMULUS, "status": "FAIL", "contains": ["swp1 down (admin ?)", "swp2 up at 200G, want 400G"]},
    {"check": "link_status", "name": "speed only: the catalog cause", "facts": {"sw_interfaces": interfaces(Ethernet1_1={"speed_gbps": 200})},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet1/1 up at 200G, want 400G", CAUSE]},
    {"check": "link_status", "name": "a port rated 200G at 200G", "facts": {"sw_interfaces": interfaces(Ethernet2_1={"speed_gbps": 200})},
     "expect": dict(LEAF, pyramid_switch_ports=[dict(PLAN[0]), dict(PLAN[1], speed_gbps=200), dict(PLAN[2])]), "status": "PASS",
     "contains": ["3 ports up at rated speed"]},
    {"check": "link_status", "name": "a port rated 200G at 400G", "facts": {"sw_interfaces": interfaces()},
     "expect": dict(LEAF, pyramid_switch_ports=[dict(PLAN[0]), dict(PLAN[1], speed_gbps=200), dict(PLAN[2])]), "status": "FAIL",
     "contains": ["Ethernet2/1 up at 400G, want 200G"]},
    {"check": "link_status", "name": "100G leaf", "facts": {"sw_interfaces": interfaces(**{p.replace("/", "_"): {"speed_gbps": 100} for p in PORTS})},
     "expect": dict(LEAF, pyramid_port_speed_gbps=100), "status": "PASS", "contains": ["(100G unless set per port)"]},
    {"check": "link_status", "name": "a planned port not on the switch",
     "facts": {"sw_interfaces": {"ports": {"Ethernet1/1": interfaces()["ports"]["Ethernet1/1"]}}},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet2/1 not on the switch", "Ethernet33/1 not on the switch", PORT_ABSENT]},
    {"check": "link_status", "name": "absent and down: down named first",
     "facts": {"sw_interfaces": {"ports": {"Ethernet1/1": {"oper": "down", "admin": "up", "speed_gbps": None, "status": "notconnect"}}}},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet1/1 notconnect (admin up)", "Ethernet2/1 not on the switch", PORT_ABSENT]},
    {"check": "link_status", "name": "an unplanned port down is not judged",
     "facts": {"sw_interfaces": {"ports": dict(interfaces()["ports"], **{
         "Ethernet9/1": {"oper": "down", "admin": "up", "speed_gbps": None, "status": "notconnect"}})}},
     "expect": LEAF, "status": "PASS"},
    {"check": "link_status", "name": "EOS: header only", "raw": {"sw_interfaces": fixture("arista_eos_show_interfaces_status", "header_only")},
     "expect": EOS, "status": "ERROR", "contains": ["no interfaces listed"]},
    {"check": "link_status", "name": "SONiC: no such command", "raw": {"sw_interfaces": fixture("sonic_show_interfaces_status", "click_no_such_command")},
     "expect": SONIC, "status": "ERROR"},
    {"check": "link_status", "name": "Cumulus: nv error", "raw": {"sw_interfaces": fixture("cumulus_nv_show_interface", "nv_error")},
     "expect": CUMULUS, "status": "ERROR", "contains": ["The requested item does not exist"]},
    {"check": "link_status", "name": "switch unreachable", "facts": {"sw_interfaces": failed("show interfaces status", "connection timed out", "timeout")},
     "expect": LEAF, "status": "ERROR", "contains": ["connection timed out"]},

    # --- link_errors: CRC/FCS, input and output errors per port over the soak, <= pyramid_link_error_max
    {"check": "link_errors", "name": "EOS: no new errors", "raw": {"sw_errors": both("arista_eos_show_interfaces_counters_errors", "healthy")},
     "expect": EOS, "status": "PASS", "contains": ["5 ports, none above 0 over 300s", "CRC/FCS, input and output errors <= 0 per port over the 300s window"]},
    {"check": "link_errors", "name": "EOS: CRC and output errors during the soak",
     "raw": {"sw_errors": both("arista_eos_show_interfaces_counters_errors", "healthy", "unhealthy")}, "expect": EOS, "status": "FAIL",
     "contains": ["Ethernet2/1: crc +1234, in_errors +1240", "Ethernet3/1: out_errors +7", CAUSE]},
    {"check": "link_errors", "name": "EOS: counters cleared during the soak",
     "raw": {"sw_errors": both("arista_eos_show_interfaces_counters_errors", "unhealthy", "healthy")}, "expect": EOS, "status": "ERROR",
     "contains": ["Ethernet2/1: crc went from 1234 to 0 (cleared or rebooted during the window)", NO_COUNTERS]},
    {"check": "link_errors", "name": "NX-OS: FCS errors on Ethernet1/3",
     "raw": {"sw_errors": both("cisco_nxos_show_interface_counters_errors", "healthy_leaf", "faulty_leaf", seconds=60)}, "expect": NXOS, "status": "FAIL",
     "contains": ["Ethernet1/3: crc +17, in_errors +17", "over the 60s window"]},
    {"check": "link_errors", "name": "SONiC: CRC on Ethernet16", "raw": {"sw_errors": both("sonic_show_interfaces_counters", "healthy", "crc_errors")},
     "expect": SONIC, "status": "FAIL", "contains": ["Ethernet16: crc +1412, in_errors +1412, out_errors +3"]},
    {"check": "link_errors", "name": "Cumulus: per-port counters, none new",
     "raw": {"sw_errors": per_port_window("cumulus_nv_show_interface_counters_errors", "real_docs_clean", CUMULUS_PORTS)}, "expect": CUMULUS,
     "status": "PASS", "contains": ["4 ports, none above 0"]},
    {"check": "link_errors", "name": "Cumulus: CRC on swp2",
     "raw": {"sw_errors": per_port_window("cumulus_nv_show_interface_counters_errors", "real_docs_clean", CUMULUS_PORTS, {"swp2": "twin_crc_errors"})},
     "expect": CUMULUS, "status": "FAIL", "contains": ["swp2: crc +1234, in_errors +1300, out_errors +7"]},
    {"check": "link_errors", "name": "Cumulus: one port's counters failed now",
     "raw": {"sw_errors": per_port_window("cumulus_nv_show_interface_counters_errors", "real_docs_clean", CUMULUS_PORTS, {"swp49": "nv_error"})},
     "expect": CUMULUS, "status": "ERROR", "contains": ["counters not read twice: swp49: ", "swp49: no counters now"]},
    {"check": "link_errors", "name": "exactly the limit", "facts": {"sw_errors": window(errors(), errors(Ethernet1_1={"crc": 105, "in_errors": 105}))},
     "expect": dict(LEAF, pyramid_link_error_max=5), "status": "PASS", "contains": ["3 ports, none above 5 over 300s"]},
    {"check": "link_errors", "name": "one over the limit", "facts": {"sw_errors": window(errors(), errors(Ethernet1_1={"crc": 106}))},
     "expect": dict(LEAF, pyramid_link_error_max=5), "status": "FAIL", "contains": ["Ethernet1/1: crc +6"]},
    {"check": "link_errors", "name": "one input error", "facts": {"sw_errors": window(errors(), errors(Ethernet2_1={"in_errors": 101}))},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet2/1: in_errors +1"]},
    {"check": "link_errors", "name": "one output error on the uplink", "facts": {"sw_errors": window(errors(), errors(Ethernet33_1={"out_errors": 1}))},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet33/1: out_errors +1"]},
    {"check": "link_errors", "name": "a counter this platform does not keep",
     "facts": {"sw_errors": window(errors(Ethernet1_1={"out_errors": None}), errors(Ethernet1_1={"out_errors": None}))},
     "expect": LEAF, "status": "PASS"},
    {"check": "link_errors", "name": "a counter read once", "facts": {"sw_errors": window(errors(), errors(Ethernet1_1={"out_errors": None}))},
     "expect": LEAF, "status": "ERROR", "contains": ["Ethernet1/1: out_errors not read twice"]},
    {"check": "link_errors", "name": "a counter read only now", "facts": {"sw_errors": window(errors(Ethernet1_1={"crc": None}), errors())},
     "expect": LEAF, "status": "ERROR", "contains": ["Ethernet1/1: crc not read twice"]},
    {"check": "link_errors", "name": "a port missing at the snapshot",
     "facts": {"sw_errors": window({"ports": {p: v for p, v in errors()["ports"].items() if p != "Ethernet2/1"}}, errors())},
     "expect": LEAF, "status": "ERROR", "contains": ["Ethernet2/1: no counters at the snapshot"]},
    {"check": "link_errors", "name": "a port missing now",
     "facts": {"sw_errors": window(errors(), {"ports": {p: v for p, v in errors()["ports"].items() if p != "Ethernet2/1"}})},
     "expect": LEAF, "status": "ERROR", "contains": ["Ethernet2/1: no counters now"]},
    {"check": "link_errors", "name": "errors on one port, another not read",
     "facts": {"sw_errors": window({"ports": {p: v for p, v in errors()["ports"].items() if p != "Ethernet2/1"}}, errors(Ethernet1_1={"crc": 101}))},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet1/1: crc +1; not read: Ethernet2/1: no counters at the snapshot"]},
    {"check": "link_errors", "name": "an unplanned port's errors are not judged",
     "facts": {"sw_errors": window(errors(), {"ports": dict(errors()["ports"], **{"Ethernet9/1": {"crc": 9, "in_errors": 9, "out_errors": 9}})})},
     "expect": LEAF, "status": "PASS"},
    {"check": "link_errors", "name": "EOS: output cut short",
     "raw": {"sw_errors": both("arista_eos_show_interfaces_counters_errors", "healthy", "truncated_row")},
     "expect": EOS, "status": "ERROR", "contains": ["unexpected line"]},
    {"check": "link_errors", "name": "EOS: snapshot unparseable",
     "raw": {"sw_errors": both("arista_eos_show_interfaces_counters_errors", "no_header", "healthy")},
     "expect": EOS, "status": "ERROR", "contains": ["at the snapshot: ", "table header"]},
    {"check": "link_errors", "name": "no snapshot before the soak",
     "facts": {"sw_errors": failed("(counter snapshot)", "no snapshot of sw_errors before the soak")},
     "expect": LEAF, "status": "ERROR", "contains": ["no snapshot of sw_errors"]},

    # --- optics_rx: every lane's RX power within [min, max] dBm
    {"check": "optics_rx", "name": "EOS: 4 lanes in range", "raw": {"sw_optics": fixture("arista_eos_show_interfaces_transceiver", "healthy")},
     "expect": EOS, "status": "PASS", "contains": ["5 ports, every lane in range", "every lane's RX power -10.0 to 2.0 dBm"]},
    {"check": "optics_rx", "name": "EOS: dark, dim lane and no optic", "raw": {"sw_optics": fixture("arista_eos_show_interfaces_transceiver", "unhealthy")},
     "expect": EOS, "status": "FAIL",
     "contains": ["Ethernet1/1: lane 1 -40.00 dBm, lane 2 -40.00 dBm", "Ethernet2/1: lane 2 -11.80 dBm", "Ethernet3/1: no optic or no RX power reading",
                  CAUSE]},
    {"check": "optics_rx", "name": "NX-OS: per-port details", "raw": {"sw_optics": per_port("cisco_nxos_show_interface_transceiver_details", "healthy_leaf",
                                                                                            ["Ethernet1/1", "Ethernet1/3"])},
     "expect": dict(NXOS, pyramid_switch_ports=[NXOS_PLAN[0], NXOS_PLAN[2]]), "status": "PASS", "contains": ["2 ports, every lane in range"]},
    {"check": "optics_rx", "name": "NX-OS: lane 2 dim on Ethernet1/3",
     "raw": {"sw_optics": per_port("cisco_nxos_show_interface_transceiver_details", "faulty_leaf", ["Ethernet1/1", "Ethernet1/3"])},
     "expect": dict(NXOS, pyramid_switch_ports=[NXOS_PLAN[0], NXOS_PLAN[2]]), "status": "FAIL", "contains": ["Ethernet1/3: lane 2 -11.50 dBm"]},
    {"check": "optics_rx", "name": "NX-OS: DOM not supported, no reading",
     "raw": {"sw_optics": per_port("cisco_nxos_show_interface_transceiver_details", "optics_400g_dr4_real", ["Ethernet1/63"])},
     "expect": dict(NXOS, pyramid_switch_ports=plan(("Ethernet1/63", "node-001", "ens1np0"))), "status": "FAIL",
     "contains": ["Ethernet1/63: lane 1 no reading, lane 2 no reading"]},
    # issue 40: a read cut after lane 2 of a DR4 (4 media lanes) ends cleanly between two lanes: held to the module's count
    {"check": "optics_rx", "name": "NX-OS: a DR4's details cut after lane 2: ERROR about the read, not two lanes judged",
     "raw": {"sw_optics": {"Ethernet1/63": _cut_before_lane(fixture("cisco_nxos_show_interface_transceiver_details", "optics_400g_dr4_real"), 3)}},
     "expect": dict(NXOS, pyramid_switch_ports=plan(("Ethernet1/63", "node-001", "ens1np0"))), "status": "ERROR",
     "contains": ["Ethernet1/63: diagnostics of 2 lanes for a module with 4 media lanes (truncated?)"]},
    {"check": "optics_rx", "name": "SONiC: OSFP DR4 in range",
     "raw": {"sw_optics": fixture("sonic_show_interfaces_transceiver_eeprom_dom", "healthy_osfp_dr4")},
     "expect": SONIC, "status": "PASS"},
    {"check": "optics_rx", "name": "SONiC: no light and a dim lane",
     "raw": {"sw_optics": fixture("sonic_show_interfaces_transceiver_eeprom_dom", "dim_lane_and_absent")},
     "expect": dict(SONIC, pyramid_switch_ports=SONIC_PLAN + plan(("Ethernet24", "node-004", "ens4np0"))), "status": "FAIL",
     "contains": ["Ethernet0: lane 1 -40.00 dBm", "Ethernet24: lane 2 -11.50 dBm"]},
    {"check": "optics_rx", "name": "Cumulus: 8 lanes in range",
     "raw": {"sw_optics": per_port("cumulus_nv_show_interface_transceiver", "twin_osfp_8_lanes", CUMULUS_PORTS)}, "expect": CUMULUS, "status": "PASS"},
    {"check": "optics_rx", "name": "Cumulus: lane 2 low, an unplugged port",
     "raw": {"sw_optics": per_port("cumulus_nv_show_interface_transceiver", "twin_osfp_8_lanes", CUMULUS_PORTS, swp1="twin_low_rx_lane2", swp2="unplugged")},
     "expect": CUMULUS, "status": "FAIL", "contains": ["swp1: lane 2 -14.50 dBm", "swp2: no optic or no RX power reading"]},
    {"check": "optics_rx", "name": "at the minimum", "facts": {"sw_optics": optics(Ethernet1_1={"rx_dbm": [-7.0, -5.0, -5.0, -5.0], "tx_dbm": []})},
     "expect": LEAF, "status": "PASS", "contains": ["every lane's RX power -7.0 to 4.0 dBm"]},
    {"check": "optics_rx", "name": "just under the minimum", "facts": {"sw_optics": optics(Ethernet1_1={"rx_dbm": [-5.0, -7.01, -5.0, -5.0], "tx_dbm": []})},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet1/1: lane 2 -7.01 dBm"]},
    {"check": "optics_rx", "name": "at the maximum", "facts": {"sw_optics": optics(Ethernet2_1={"rx_dbm": [4.0, -5.0, -5.0, -5.0], "tx_dbm": []})},
     "expect": LEAF, "status": "PASS"},
    {"check": "optics_rx", "name": "a healthy DR4 lane at -2 dBm passes the default",
     "facts": {"sw_optics": optics(Ethernet2_1={"rx_dbm": [-2.1, -1.9, -2.0, -2.2], "tx_dbm": []})},
     "expect": LEAF, "status": "PASS"},
    {"check": "optics_rx", "name": "just over the maximum", "facts": {"sw_optics": optics(Ethernet2_1={"rx_dbm": [4.01, -5.0, -5.0, -5.0], "tx_dbm": []})},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet2/1: lane 1 4.01 dBm"]},
    {"check": "optics_rx", "name": "a narrower range", "facts": {"sw_optics": optics()},
     "expect": dict(LEAF, pyramid_optics_rx_min_dbm=-4.5, pyramid_optics_rx_max_dbm=-1.0), "status": "FAIL", "contains": ["lane 1 -5.00 dBm"]},
    {"check": "optics_rx", "name": "a lane without a reading", "facts": {"sw_optics": optics(Ethernet33_1={"rx_dbm": [-5.0, None, -5.0, -5.0], "tx_dbm": []})},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet33/1: lane 2 no reading"]},
    {"check": "optics_rx", "name": "a read cut after one lane of the last port",
     "facts": {"sw_optics": optics(Ethernet33_1={"rx_dbm": [-5.0], "tx_dbm": [0.5]})},
     "expect": LEAF, "status": "ERROR", "contains": ["optics read incomplete: Ethernet33/1: 1 of 4 lanes read"]},
    {"check": "optics_rx", "name": "a planned port without an optic", "facts": {"sw_optics": {"ports": {"Ethernet1/1": optics()["ports"]["Ethernet1/1"]}}},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet2/1: no optic or no RX power reading"]},
    {"check": "optics_rx", "name": "an unplanned port dark is not judged",
     "facts": {"sw_optics": {"ports": dict(optics()["ports"], **{"Ethernet9/1": {"rx_dbm": [-40.0], "tx_dbm": []}})}}, "expect": LEAF, "status": "PASS",
     "contains": ["3 ports, every lane in range"]},
    {"check": "optics_rx", "name": "EOS: legend only", "raw": {"sw_optics": fixture("arista_eos_show_interfaces_transceiver", "legend_only")},
     "expect": EOS, "status": "ERROR"},
    {"check": "optics_rx", "name": "NX-OS: every port's query failed",
     "raw": {"sw_optics": per_port("cisco_nxos_show_interface_transceiver_details", "invalid_command", ["Ethernet1/1", "Ethernet1/3"])},
     "expect": dict(NXOS, pyramid_switch_ports=[NXOS_PLAN[0], NXOS_PLAN[2]]), "status": "ERROR", "contains": ["Invalid command"]},

    # --- cabling: every planned port's LLDP neighbor is its planned peer (and peer port)
    {"check": "cabling", "name": "EOS: 5 ports as planned", "raw": {"sw_lldp": fixture("arista_eos_show_lldp_neighbors", "healthy")},
     "expect": EOS, "status": "PASS", "contains": ["5 ports proven by LLDP"]},
    # issue 68: a planned port the read does not prove is not a pass, LLDP required or not: two host ports silent beside
    # a host port LLDP proves (it passed as "3 ports proven by LLDP; no LLDP neighbor (not proven) on ...")
    {"check": "cabling", "name": "EOS: two silent host ports beside a proven one, LLDP not required: FAIL, not proven",
     "raw": {"sw_lldp": fixture("arista_eos_show_lldp_neighbors", "unhealthy")}, "expect": EOS, "status": "FAIL",
     "contains": ["no LLDP neighbor on Ethernet1/1, Ethernet3/1 while LLDP answers on other host ports (not proven)",
                  "Cabling not proven"]},
    # where no host runs lldpd (what pyramid_lldp_required false is for) the host ports are not checked; the uplinks are
    {"check": "cabling", "name": "EOS: no host port sends LLDP, the uplinks proven: PASS naming the host ports not checked",
     "raw": {"sw_lldp": _edited_raw(_edited_raw(fixture("arista_eos_show_lldp_neighbors", "unhealthy"),
                                                "Et2/1         node-002                 ens1np0             120\n", ""),
                                    "inserts  : 3", "inserts  : 2")},
     "expect": EOS, "status": "PASS",
     "contains": ["2 ports proven by LLDP; not checked: no host port sends LLDP (Ethernet1/1, Ethernet2/1, Ethernet3/1; "
                  "pyramid_lldp_required is false)"]},
    # issue 68's damage: Et3/1's row read as another well-formed port (Et7/1, not planned); it passed as "not proven"
    {"check": "cabling", "name": "EOS: Et3/1's row read as Et7/1, LLDP not required: FAIL naming where its peer answers",
     "raw": {"sw_lldp": _edited_raw(fixture("arista_eos_show_lldp_neighbors", "healthy"), "Et3/1         node-003",
                                    "Et7/1         node-003")},
     "expect": EOS, "status": "FAIL", "contains": ["Ethernet3/1: plan node-003 ens1np0, LLDP sees it on Ethernet7/1", CAUSE]},
    {"check": "cabling", "name": "NX-OS: Eth1/3's row read as Eth1/9 (the count whole), LLDP not required: FAIL",
     "raw": {"sw_lldp": _edited_raw(fixture("cisco_nxos_show_lldp_neighbors", "healthy_leaf"), "Eth1/3 ", "Eth1/9 ")},
     "expect": NXOS, "status": "FAIL", "contains": ["Ethernet1/3: plan node-003 ens1np0, LLDP sees it on Ethernet1/9", CAUSE]},
    {"check": "cabling", "name": "EOS: two silent ports, LLDP required", "raw": {"sw_lldp": fixture("arista_eos_show_lldp_neighbors", "unhealthy")},
     "expect": dict(EOS, pyramid_lldp_required=True), "status": "FAIL", "contains": ["no LLDP neighbor on Ethernet1/1, Ethernet3/1", CAUSE]},
    {"check": "cabling", "name": "NX-OS: spine on a host port", "raw": {"sw_lldp": fixture("cisco_nxos_show_lldp_neighbors", "faulty_leaf")},
     "expect": NXOS, "status": "FAIL", "contains": ["Ethernet1/3: plan node-003 ens1np0, LLDP sees a-very-long-spine-hostname-01.example.net Ethernet1/7"]},
    {"check": "cabling", "name": "NX-OS: 4 hosts as planned", "raw": {"sw_lldp": fixture("cisco_nxos_show_lldp_neighbors", "healthy_leaf")},
     "expect": NXOS, "status": "PASS", "contains": ["4 ports proven by LLDP"]},
    # issue 40: a NUL in a port id read as another port was a miscabling (FAIL); it is damage, an ERROR about the read
    {"check": "cabling", "name": "NX-OS: a NUL in a neighbor's port id: ERROR about the read, not a miscabling",
     "raw": {"sw_lldp": _edited_raw(fixture("cisco_nxos_show_lldp_neighbors", "healthy_leaf"), "ens1np0\nnode-003", "ens1\x00p0\nnode-003")},
     "expect": NXOS, "status": "ERROR", "contains": ["a control character ('\\x00') in line 6"]},
    {"check": "cabling", "name": "SONiC: 5 ports as planned", "raw": {"sw_lldp": fixture("sonic_show_lldp_table", "healthy")}, "expect": SONIC,
     "status": "PASS"},
    {"check": "cabling", "name": "SONiC: a nameless neighbor and missing ports", "raw": {"sw_lldp": fixture("sonic_show_lldp_table", "missing_and_nameless")},
     "expect": dict(SONIC, pyramid_lldp_required=True), "status": "FAIL", "contains": ["no LLDP neighbor on Ethernet0, Ethernet32"]},
    {"check": "cabling", "name": "Cumulus: 4 ports as planned", "raw": {"sw_lldp": fixture("cumulus_nv_show_interface_lldp", "twin_healthy")},
     "expect": CUMULUS, "status": "PASS"},
    {"check": "cabling", "name": "Cumulus: swp1 silent, LLDP required",
     "raw": {"sw_lldp": fixture("cumulus_nv_show_interface_lldp", "twin_port_down_no_neighbor")},
     "expect": dict(CUMULUS, pyramid_lldp_required=True), "status": "FAIL", "contains": ["no LLDP neighbor on swp1"]},
    {"check": "cabling", "name": "Cumulus: the table cut after swp2", "raw": {"sw_lldp": _cumulus_lldp_cut()}, "expect": CUMULUS,
     "status": "ERROR", "contains": ["planned ports not listed: swp49; swp50; the read has no trailer", "cannot prove itself complete"]},
    {"check": "cabling", "name": "Cumulus: swp2 miscabled, the table cut after it",
     "raw": {"sw_lldp": _cumulus_lldp_cut(("node-002 ", "node-009 "))}, "expect": CUMULUS, "status": "FAIL",
     "contains": ["swp2: plan node-002 ens1np0, LLDP sees node-009 ens1np0; not listed: swp49, swp50", "Miscabled"]},
    {"check": "cabling", "name": "Cumulus: swp1 silent and the table cut, LLDP required",
     "raw": {"sw_lldp": _cumulus_lldp_cut(("swp1       up     400G   9216   swp       node-001         ens1np0    ",
                                           "swp1       down          9216   swp                                   "))},
     "expect": dict(CUMULUS, pyramid_lldp_required=True), "status": "FAIL", "contains": ["no LLDP neighbor on swp1; not listed: swp49, swp50"]},
    # swp1's own row is read whole and silent beside swp2's neighbor: not proven (issue 68), as with LLDP required
    {"check": "cabling", "name": "Cumulus: swp1 silent and the table cut, LLDP not required",
     "raw": {"sw_lldp": _cumulus_lldp_cut(("swp1       up     400G   9216   swp       node-001         ens1np0    ",
                                           "swp1       down          9216   swp                                   "))},
     "expect": CUMULUS, "status": "FAIL",
     "contains": ["no LLDP neighbor on swp1 while LLDP answers on other host ports (not proven); not listed: swp49, swp50"]},
    {"check": "cabling", "name": "Cumulus JSON: swp1 down without a neighbor, LLDP required",
     "raw": {"sw_lldp": fixture("cumulus_nv_show_interface_lldp_json", "twin_miscabled_and_down")},
     "expect": dict(CUMULUS, pyramid_lldp_required=True), "status": "FAIL", "contains": ["no LLDP neighbor on swp1"]},
    {"check": "cabling", "name": "Cumulus JSON: a planned port the document does not list is silent (a document is whole)",
     "raw": {"sw_lldp": fixture("cumulus_nv_show_interface_lldp_json", "twin_miscabled_and_down")},
     "expect": dict(CUMULUS, pyramid_switch_ports=CUMULUS_PLAN[1:] + plan(("swp3", "node-003", "ens1np0"))), "status": "FAIL",
     "contains": ["no LLDP neighbor on swp3 while LLDP answers on other host ports (not proven)"]},
    {"check": "cabling", "name": "FQDN system name", "facts": {"sw_lldp": lldp(Ethernet1_1=[{"system": "node-001.pod1.example", "port": "ens1np0"}])},
     "expect": LEAF, "status": "PASS", "contains": ["3 ports proven by LLDP"]},
    {"check": "cabling", "name": "planned as FQDN, seen short", "facts": {"sw_lldp": lldp()},
     "expect": dict(LEAF, pyramid_switch_ports=[dict(PLAN[0], peer="node-001.pod1.example"), PLAN[1], PLAN[2]]), "status": "PASS"},
    {"check": "cabling", "name": "another host's name prefix", "facts": {"sw_lldp": lldp(Ethernet1_1=[{"system": "node-0011", "port": "ens1np0"}])},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet1/1: plan node-001 ens1np0, LLDP sees node-0011 ens1np0"]},
    {"check": "cabling", "name": "right host, wrong port", "facts": {"sw_lldp": lldp(Ethernet2_1=[{"system": "node-002", "port": "ens2np0"}])},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet2/1: plan node-002 ens1np0, LLDP sees node-002 ens2np0"]},
    {"check": "cabling", "name": "no peer port planned", "facts": {"sw_lldp": lldp(Ethernet2_1=[{"system": "node-002", "port": "ens2np0"}])},
     "expect": dict(LEAF, pyramid_switch_ports=[PLAN[0], dict(PLAN[1], peer_port=None), PLAN[2]]), "status": "PASS"},
    {"check": "cabling", "name": "wrong host, peer port not planned", "facts": {"sw_lldp": lldp(Ethernet2_1=[{"system": "node-009", "port": "ens1np0"}])},
     "expect": dict(LEAF, pyramid_switch_ports=[PLAN[0], dict(PLAN[1], peer_port=None), PLAN[2]]), "status": "FAIL",
     "contains": ["Ethernet2/1: plan node-002 , LLDP sees node-009 ens1np0"]},
    {"check": "cabling", "name": "two neighbors, one the planned",
     "facts": {"sw_lldp": lldp(Ethernet1_1=[{"system": "bmc", "port": "eth0"}, {"system": "node-001", "port": "ens1np0"}])},
     "expect": LEAF, "status": "PASS"},
    {"check": "cabling", "name": "a port without a planned peer", "facts": {"sw_lldp": lldp(Ethernet1_1=[])},
     "expect": dict(LEAF, pyramid_switch_ports=[{"port": "Ethernet1/1"}, PLAN[1], PLAN[2]], pyramid_lldp_required=True), "status": "PASS",
     "contains": ["2 ports proven by LLDP"]},
    {"check": "cabling", "name": "silent and wrong: both named", "facts": {"sw_lldp": lldp(Ethernet1_1=[], Ethernet2_1=[{"system": "node-009", "port": "x"}])},
     "expect": dict(LEAF, pyramid_lldp_required=True), "status": "FAIL", "contains": ["Ethernet2/1: plan node-002", "no LLDP neighbor on Ethernet1/1"]},
    {"check": "cabling", "name": "wrong, silent not required", "facts": {"sw_lldp": lldp(Ethernet1_1=[], Ethernet2_1=[{"system": "node-009", "port": "x"}])},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet2/1: plan node-002"]},
    {"check": "cabling", "name": "SONiC: lldp docker down", "raw": {"sw_lldp": fixture("sonic_show_lldp_table", "lldp_docker_error")}, "expect": SONIC,
     "status": "ERROR"},
    {"check": "cabling", "name": "NX-OS: footer count mismatch", "raw": {"sw_lldp": fixture("cisco_nxos_show_lldp_neighbors", "lldp_count_mismatch_real")},
     "expect": NXOS, "status": "ERROR", "contains": ["the footer says 3"]},

    # --- bgp_sessions: every expected neighbor Established with >= pyramid_bgp_min_prefixes
    {"check": "bgp_sessions", "name": "EOS: two spines Established", "raw": {"sw_bgp": fixture("arista_eos_show_ip_bgp_summary", "healthy")},
     "expect": EOS, "status": "PASS", "contains": ["2 neighbors Established", "2 neighbors Established, >= 1 prefixes each"]},
    {"check": "bgp_sessions", "name": "EOS: Idle and Active", "raw": {"sw_bgp": fixture("arista_eos_show_ip_bgp_summary", "unhealthy")},
     "expect": dict(EOS, pyramid_bgp_neighbors=EOS_SPINES[:3]), "status": "FAIL",
     "contains": ["10.200.8.0 (spine-02) Idle", "10.200.16.0 (spine-03) Active", CAUSE]},
    {"check": "bgp_sessions", "name": "NX-OS: 4-byte AS Idle", "raw": {"sw_bgp": fixture("cisco_nxos_show_ip_bgp_summary", "faulty_leaf_idle_4byte_as")},
     "expect": NXOS, "status": "FAIL", "contains": ["10.0.1.5 (spine-02) Idle"]},
    {"check": "bgp_sessions", "name": "NX-OS: both Established", "raw": {"sw_bgp": fixture("cisco_nxos_show_ip_bgp_summary", "healthy_leaf")},
     "expect": NXOS, "status": "PASS"},
    {"check": "bgp_sessions", "name": "SONiC: Established with 0 prefixes",
     "raw": {"sw_bgp": fixture("sonic_show_ip_bgp_summary", "idle_active_zero_prefixes")},
     "expect": SONIC, "status": "FAIL", "contains": ["10.200.0.10 (spine-02) Established, 0 prefixes received", NO_PREFIXES]},
    {"check": "bgp_sessions", "name": "SONiC: no neighbors configured", "raw": {"sw_bgp": fixture("sonic_show_ip_bgp_summary", "no_neighbors_real")},
     "expect": SONIC, "status": "FAIL", "contains": ["10.200.0.2 (spine-01) not configured", NOT_CONFIGURED]},
    {"check": "bgp_sessions", "name": "FRR: both Established", "raw": {"sw_bgp": fixture("frr_show_ip_bgp_summary", "twin_healthy")}, "expect": CUMULUS,
     "status": "PASS"},
    {"check": "bgp_sessions", "name": "FRR: one Idle", "raw": {"sw_bgp": fixture("frr_show_ip_bgp_summary", "twin_idle_active_ipv6")}, "expect": CUMULUS,
     "status": "FAIL", "contains": ["10.0.1.3 (spine-02) Idle"]},
    {"check": "bgp_sessions", "name": "exactly the minimum prefixes", "facts": {"sw_bgp": bgp(prefixes=3)},
     "expect": dict(LEAF, pyramid_bgp_neighbors=SPINES, pyramid_bgp_min_prefixes=3), "status": "PASS", "contains": [">= 3 prefixes each"]},
    {"check": "bgp_sessions", "name": "one prefix short", "facts": {"sw_bgp": bgp(prefixes=2)},
     "expect": dict(LEAF, pyramid_bgp_neighbors=SPINES, pyramid_bgp_min_prefixes=3), "status": "FAIL",
     "contains": ["10.200.0.0 (spine-01) Established, 2 prefixes received", NO_PREFIXES]},
    {"check": "bgp_sessions", "name": "prefix count not reported", "facts": {"sw_bgp": bgp(**{"10_200_0_0": {"prefixes_received": None}})},
     "expect": dict(LEAF, pyramid_bgp_neighbors=SPINES), "status": "FAIL", "contains": ["Established, None prefixes received"]},
    {"check": "bgp_sessions", "name": "remote AS differs", "facts": {"sw_bgp": bgp(**{"10_200_8_0": {"remote_as": 65099}})},
     "expect": dict(LEAF, pyramid_bgp_neighbors=SPINES), "status": "FAIL", "contains": ["10.200.8.0 (spine-02) remote AS 65099, want 65000", NOT_CONFIGURED]},
    {"check": "bgp_sessions", "name": "no remote AS planned", "facts": {"sw_bgp": bgp(**{"10_200_8_0": {"remote_as": 65099}})},
     "expect": dict(LEAF, pyramid_bgp_neighbors=[SPINES[0], {"address": "10.200.8.0"}]), "status": "PASS"},
    {"check": "bgp_sessions", "name": "unnamed neighbor not configured", "facts": {"sw_bgp": bgp(**{"10_200_8_0": None})},
     "expect": dict(LEAF, pyramid_bgp_neighbors=[SPINES[0], {"address": "10.200.8.0", "remote_as": 65000}]), "status": "FAIL",
     "contains": ["10.200.8.0 (AS 65000) not configured"]},
    {"check": "bgp_sessions", "name": "down and missing: the catalog cause",
     "facts": {"sw_bgp": bgp(**{"10_200_0_0": {"state": "Connect"}, "10_200_8_0": None})},
     "expect": dict(LEAF, pyramid_bgp_neighbors=SPINES), "status": "FAIL", "contains": ["10.200.0.0 (spine-01) Connect", "not configured", CAUSE]},
    {"check": "bgp_sessions", "name": "missing and few prefixes: missing named", "facts": {"sw_bgp": bgp(prefixes=0, **{"10_200_8_0": None})},
     "expect": dict(LEAF, pyramid_bgp_neighbors=SPINES), "status": "FAIL", "contains": [NOT_CONFIGURED]},
    {"check": "bgp_sessions", "name": "an unexpected neighbor down is not judged",
     "facts": {"sw_bgp": {"neighbors": dict(bgp()["neighbors"], **{"10.9.9.9": {"remote_as": 1, "state": "Idle", "prefixes_received": None}})}},
     "expect": dict(LEAF, pyramid_bgp_neighbors=SPINES), "status": "PASS"},
    {"check": "bgp_sessions", "name": "EOS: BGP inactive", "raw": {"sw_bgp": fixture("arista_eos_show_ip_bgp_summary", "bgp_inactive")}, "expect": EOS,
     "status": "ERROR", "contains": ["% BGP inactive"]},
    {"check": "bgp_sessions", "name": "FRR: vtysh unknown command", "raw": {"sw_bgp": fixture("frr_show_ip_bgp_summary", "vtysh_unknown_command")},
     "expect": CUMULUS, "status": "ERROR", "contains": ["Unknown command"]},

    # --- ecmp: each leaf prefix with >= pyramid_ecmp_paths BGP next hops
    {"check": "ecmp", "name": "EOS: 4-way ECMP", "raw": {"sw_routes": fixture("arista_eos_show_ip_route", "healthy")},
     "facts": {"sw_bgp": {"neighbors": {n["address"]: {"remote_as": 65000, "state": "Established", "prefixes_received": 3} for n in EOS_SPINES}}},
     "expect": EOS_ECMP, "status": "PASS", "contains": ["3 prefixes, 4-way ECMP each", "3 prefixes with 4 BGP next hops each"]},
    {"check": "ecmp", "name": "EOS: short paths, sessions down",
     "raw": {"sw_routes": fixture("arista_eos_show_ip_route", "unhealthy"), "sw_bgp": fixture("arista_eos_show_ip_bgp_summary", "unhealthy")},
     "expect": EOS_ECMP, "status": "FAIL",
     "contains": ["10.51.0.0/24: 1 of 4 next hops (missing via spine-02, spine-03, spine-04)", "10.53.0.0/24: 2 of 4 next hops", SESSION_DOWN]},
    {"check": "ecmp", "name": "NX-OS: 2-way ECMP",
     "raw": {"sw_routes": fixture("cisco_nxos_show_ip_route_bgp", "healthy_leaf"), "sw_bgp": fixture("cisco_nxos_show_ip_bgp_summary", "healthy_leaf")},
     "expect": dict(NXOS, pyramid_bgp_neighbors=NXOS["pyramid_bgp_neighbors"] + [{"address": "10.0.1.3", "name": "spine-03"}]), "status": "PASS"},
    {"check": "ecmp", "name": "FRR: 2-way ECMP",
     "raw": {"sw_routes": fixture("frr_show_ip_route", "twin_healthy"), "sw_bgp": fixture("frr_show_ip_bgp_summary", "twin_healthy")},
     "expect": CUMULUS, "status": "PASS", "contains": ["1 prefixes, 2-way ECMP each"]},
    {"check": "ecmp", "name": "FRR: no BGP routes",
     "raw": {"sw_routes": fixture("frr_show_ip_route", "no_bgp_routes")},
     "facts": {"sw_bgp": {"neighbors": {"10.0.1.1": {"remote_as": 65001, "state": "Active", "prefixes_received": None},
                                        "10.0.1.3": {"remote_as": 65001, "state": "Idle", "prefixes_received": None}}}},
     "expect": CUMULUS, "status": "FAIL", "contains": ["10.2.3.0/24: no BGP route"]},
    {"check": "ecmp", "name": "FRR: `show ip route bgp` printed nothing, every session (Policy)",
     "raw": {"sw_routes": fixture("frr_show_ip_route", "empty_no_bgp_route")},
     "facts": {"sw_bgp": {"neighbors": {"10.0.1.1": {"remote_as": 65001, "state": "Established", "prefixes_received": 0, "no_policy": True},
                                        "10.0.1.3": {"remote_as": 65001, "state": "Established", "prefixes_received": 0, "no_policy": True}}}},
     "expect": CUMULUS, "status": "FAIL", "contains": ["10.2.3.0/24: no BGP route", "sessions without policy (Policy): 10.0.1.1, 10.0.1.3",
                                                       "ebgp-requires-policy"]},
    {"check": "bgp_sessions", "name": "FRR: sessions waiting for a policy on this switch",
     "facts": {"sw_bgp": {"neighbors": {"10.0.1.1": {"remote_as": 65001, "state": "Established", "prefixes_received": 9},
                                        "10.0.1.3": {"remote_as": 65001, "state": "Established", "prefixes_received": 0, "no_policy": True}}}},
     "expect": CUMULUS, "status": "FAIL",
     "contains": ["10.0.1.3 (spine-02) Established, no routes exchanged: no policy on this switch (Policy)", "ebgp-requires-policy"]},
    {"check": "ecmp", "name": "FRR: routes missing while the sessions report prefixes",
     "raw": {"sw_routes": fixture("frr_show_ip_route", "no_bgp_routes"), "sw_bgp": fixture("frr_show_ip_bgp_summary", "twin_healthy")},
     "expect": CUMULUS, "status": "ERROR", "contains": ["no BGP route read, while", "the route table read is incomplete"]},
    {"check": "ecmp", "name": "SONiC: FRR routes, 2 paths wanted 3", "raw": {"sw_routes": fixture("frr_show_ip_route", "twin_healthy")},
     "facts": {"sw_bgp": {"neighbors": {"10.0.1.1": {"remote_as": 65001, "state": "Established", "prefixes_received": 9},
                                        "10.0.1.3": {"remote_as": 65001, "state": "Established", "prefixes_received": 9}}}},
     "expect": dict(CUMULUS, pyramid_switch_os="sonic", pyramid_ecmp_paths=3), "status": "FAIL", "contains": ["10.2.3.0/24: 2 of 3 next hops", CAUSE]},
    {"check": "ecmp", "name": "exactly the paths wanted", "facts": {"sw_routes": routes(), "sw_bgp": bgp()}, "expect": ECMP, "status": "PASS"},
    {"check": "ecmp", "name": "more paths than wanted", "facts": {"sw_routes": routes(), "sw_bgp": bgp()}, "expect": dict(ECMP, pyramid_ecmp_paths=1),
     "status": "PASS", "contains": ["2 prefixes, 1-way ECMP each"]},
    {"check": "ecmp", "name": "every prefix short, sessions up: maximum-paths",
     "facts": {"sw_routes": routes(**{"10_51": ["10.200.0.0"], "10_52": ["10.200.8.0"]}), "sw_bgp": bgp()}, "expect": ECMP, "status": "FAIL",
     "contains": ["10.51.0.0/24: 1 of 2 next hops (missing via spine-02)", "10.52.0.0/24: 1 of 2 next hops (missing via spine-01)", CAUSE]},
    {"check": "ecmp", "name": "one prefix short, sessions up: remote",
     "facts": {"sw_routes": routes(**{"10_52": ["10.200.0.0"]}), "sw_bgp": bgp()}, "expect": ECMP, "status": "FAIL",
     "contains": ["10.52.0.0/24: 1 of 2 next hops (missing via spine-02)", REMOTE]},
    {"check": "ecmp", "name": "one prefix short, its spine's session down",
     "facts": {"sw_routes": routes(**{"10_52": ["10.200.0.0"]}), "sw_bgp": bgp(**{"10_200_8_0": {"state": "Idle"}})}, "expect": ECMP, "status": "FAIL",
     "contains": [SESSION_DOWN]},
    {"check": "ecmp", "name": "a session down whose path is still there",
     "facts": {"sw_routes": routes(**{"10_51": ["10.200.0.0", "10.200.8.0"], "10_52": ["10.200.8.0"]}), "sw_bgp": bgp(**{"10_200_8_0": {"state": "Idle"}})},
     "expect": ECMP, "status": "FAIL", "contains": [REMOTE]},
    {"check": "ecmp", "name": "short via an unnamed hop", "facts": {"sw_routes": routes(**{"10_52": ["10.9.9.9"]}), "sw_bgp": bgp()},
     "expect": ECMP, "status": "FAIL", "contains": ["10.52.0.0/24: 1 of 2 next hops (missing via spine-01, spine-02)"]},
    {"check": "ecmp", "name": "short with no neighbor planned", "facts": {"sw_routes": routes(**{"10_52": ["10.9.9.9"]}), "sw_bgp": bgp()},
     "expect": dict(ECMP, pyramid_bgp_neighbors=[]), "status": "FAIL", "contains": ["10.52.0.0/24: 1 of 2 next hops", REMOTE]},
    {"check": "bgp_sessions", "name": "SONiC: a summary without its total does not prove a neighbor missing",
     "raw": {"sw_bgp": fixture("sonic_show_ip_bgp_summary", "truncated_no_total")},
     "expect": dict(SONIC, pyramid_bgp_neighbors=spines("10.200.0.1", "10.200.0.25", remote_as=65101)), "status": "ERROR",
     "contains": ["10.200.0.25 (spine-02) not configured", "no 'Total number of neighbors' line"]},
    {"check": "bgp_sessions", "name": "SONiC: a summary without its total still fails a listed neighbor",
     "raw": {"sw_bgp": fixture("sonic_show_ip_bgp_summary", "truncated_no_total")},
     "expect": dict(SONIC, pyramid_bgp_neighbors=spines("10.200.0.1", "10.200.0.3", remote_as=65101), pyramid_bgp_min_prefixes=2),
     "status": "FAIL", "contains": ["10.200.0.1 (spine-01) Established, 1 prefixes received"]},
    {"check": "bgp_sessions", "name": "SONiC 201904+: FRR's own summary table",
     "raw": {"sw_bgp": fixture("sonic_show_ip_bgp_summary", "frr_native_201904_real")},
     "expect": dict(SONIC, pyramid_bgp_neighbors=spines("10.0.0.57", "10.0.0.59", remote_as=64600)), "status": "PASS"},
    {"check": "ecmp", "name": "EOS 4.31+: Source Codes legend, every via on its own line",
     "raw": {"sw_routes": fixture("arista_eos_show_ip_route", "eos431_bgp_ecmp"), "sw_bgp": fixture("arista_eos_show_ip_bgp_summary", "healthy")},
     "expect": dict(EOS_ECMP, pyramid_ecmp_prefixes=["10.51.0.0/24"]), "status": "PASS", "contains": ["1 prefixes, 4-way ECMP each"]},
    {"check": "ecmp", "name": "EOS eAPI JSON: 2-way ECMP wanted 4",
     "facts": {"sw_routes": parsed("arista_eos_show_ip_route_json", "anta_ecmp_real"), "sw_bgp": parsed("arista_eos_show_ip_bgp_summary_json", "anta_real")},
     "expect": dict(EOS, pyramid_bgp_neighbors=spines("10.1.255.0", "10.1.255.2", remote_as=65100), pyramid_ecmp_prefixes=["10.10.0.1/32"]),
     "status": "FAIL", "contains": ["10.10.0.1/32: 2 of 4 next hops (missing via spine-01, spine-02)"]},
    {"check": "bgp_sessions", "name": "EOS eAPI JSON: a spine Established with no prefix",
     "facts": {"sw_bgp": parsed("arista_eos_show_ip_bgp_summary_json", "anta_real")},
     "expect": dict(EOS, pyramid_bgp_neighbors=spines("10.1.255.0", "10.1.255.2", remote_as=65100)), "status": "FAIL",
     "contains": ["10.1.255.0 (spine-01) Established, 0 prefixes received"]},
    {"check": "ecmp", "name": "every prefix missing, the sessions up and receiving nothing: the policy on the way in",
     "facts": {"sw_routes": routes(**{"10_51": None, "10_52": None}), "sw_bgp": bgp(prefixes=0)}, "expect": ECMP, "status": "FAIL",
     "contains": ["10.51.0.0/24: no BGP route; 10.52.0.0/24: no BGP route", "0 prefixes received (spine-01, spine-02)", "on the way in"]},
    # EOS counts what a peer sent (PfxRcd, prefixReceived) apart from what the inbound policy let in (PfxAcc,
    # prefixAccepted): the judges read the accepted count (issue 35, a reviewer's finding)
    {"check": "ecmp", "name": "EOS: every prefix missing, the spines send and nothing is accepted: denied on the way in",
     "facts": {"sw_routes": routes(**{"10_51": None, "10_52": None}), "sw_bgp": bgp(prefixes_accepted=0)}, "expect": ECMP,
     "status": "FAIL", "contains": ["10.51.0.0/24: no BGP route", "0 prefixes accepted of those received (spine-01, spine-02)",
                                    "inbound policy accepts none of"]},
    {"check": "ecmp", "name": "EOS: an empty route table beside accepted prefixes is still the read's ERROR",
     "facts": {"sw_routes": routes(**{"10_51": None, "10_52": None}), "sw_bgp": bgp(prefixes_accepted=3)}, "expect": ECMP,
     "status": "ERROR", "contains": ["report 6 prefixes accepted: the route table read is incomplete"]},
    {"check": "ecmp", "name": "EOS: one spine's prefixes denied, the other's accepted: the missing path is that session's",
     "facts": {"sw_routes": routes(**{"10_51": ["10.200.0.0"], "10_52": ["10.200.0.0"]}),
               "sw_bgp": bgp(**{"10_200_8_0": {"prefixes_accepted": 0}})}, "expect": ECMP,
     "status": "FAIL", "contains": ["10.51.0.0/24: 1 of 2 next hops (missing via spine-02)"]},
    {"check": "bgp_sessions", "name": "EOS eAPI JSON (real, edited): a spine's 14 prefixes received and none accepted",
     "raw": {"sw_bgp": _edited_raw(fixture("arista_eos_show_ip_bgp_summary_json", "anta_real"), '"prefixAccepted": 14', '"prefixAccepted": 0')},
     "expect": dict(EOS, pyramid_bgp_neighbors=spines("10.1.255.2", remote_as=65100)), "status": "FAIL",
     "contains": ["10.1.255.2 (spine-01) Established, 14 prefixes received, 0 accepted: the inbound policy denied the rest",
                  "inbound policy accepts too few"]},
    {"check": "bgp_sessions", "name": "EOS text (edited): PfxAcc 0 of PfxRcd 3 is denied in, not a silent peer",
     "raw": {"sw_bgp": _edited_raw(fixture("arista_eos_show_ip_bgp_summary", "healthy"), "Estab   3      3\n  spine-02", "Estab   3      0\n  spine-02")},
     "expect": dict(EOS, pyramid_bgp_neighbors=spines("10.200.0.0", "10.200.8.0")), "status": "FAIL",
     "contains": ["10.200.0.0 (spine-01) Established, 3 prefixes received, 0 accepted", "inbound policy accepts too few"]},
    {"check": "bgp_sessions", "name": "EOS text: PfxAcc equal to PfxRcd passes",
     "raw": {"sw_bgp": fixture("arista_eos_show_ip_bgp_summary", "healthy")},
     "expect": dict(EOS, pyramid_bgp_neighbors=spines("10.200.0.0", "10.200.8.0")), "status": "PASS"},
    {"check": "ecmp", "name": "every prefix missing, one session down and the other silent: not called a policy",
     "facts": {"sw_routes": routes(**{"10_51": None, "10_52": None}),
               "sw_bgp": bgp(prefixes=0, **{"10_200_8_0": {"state": "Idle", "prefixes_received": None}})},
     "expect": ECMP, "status": "FAIL", "contains": ["10.51.0.0/24: no BGP route", NO_ROUTE]},
    {"check": "ecmp", "name": "an empty table beside silent planned sessions and an unplanned one that sent 5: the read",
     "facts": {"sw_routes": routes(**{"10_51": None, "10_52": None}), "sw_bgp": {"neighbors": dict(
         bgp(prefixes=0)["neighbors"], **{"10.200.99.0": {"remote_as": 65009, "state": "Established", "prefixes_received": 5}})}},
     "expect": ECMP, "status": "ERROR", "contains": ["the route table read is incomplete"]},
    {"check": "ecmp", "name": "a prefix missing, one session receiving: not advertised by its leaf",
     "facts": {"sw_routes": routes(**{"10_51": None}), "sw_bgp": bgp(prefixes=0, **{"10_200_0_0": {"prefixes_received": 1}})},
     "expect": ECMP, "status": "FAIL", "contains": ["10.51.0.0/24: no BGP route", NO_ROUTE]},
    {"check": "ecmp", "name": "one missing, one short", "facts": {"sw_routes": routes(**{"10_51": None, "10_52": ["10.200.0.0"]}), "sw_bgp": bgp()},
     "expect": ECMP, "status": "FAIL", "contains": ["10.51.0.0/24: no BGP route", CAUSE]},
    {"check": "ecmp", "name": "a prefix planned with host bits", "facts": {"sw_routes": routes(), "sw_bgp": bgp()},
     "expect": dict(ECMP, pyramid_ecmp_prefixes=["10.51.0.7/24"]), "status": "PASS"},
    {"check": "ecmp", "name": "NX-OS: route table cut short",
     "raw": {"sw_routes": fixture("cisco_nxos_show_ip_route_bgp", "truncated_ecmp"), "sw_bgp": fixture("cisco_nxos_show_ip_bgp_summary", "healthy_leaf")},
     "expect": NXOS, "status": "ERROR", "contains": ["truncated?"]},
    {"check": "ecmp", "name": "no BGP summary", "facts": {"sw_routes": routes(), "sw_bgp": failed("show ip bgp summary", "% BGP inactive")},
     "expect": ECMP, "status": "ERROR", "contains": ["% BGP inactive"]},

    # --- pfc_idle: PFC pause frames per port and priority over the idle soak, <= pyramid_idle_pfc_max
    {"check": "pfc_idle", "name": "EOS: no pauses", "raw": {"sw_pfc": both("arista_eos_show_priority-flow-control_counters", "healthy")},
     "expect": EOS, "status": "PASS", "contains": ["5 ports, none above 0 over 300s", "PFC pause frames (RX/TX per priority) <= 0 per port and priority"]},
    {"check": "pfc_idle", "name": "EOS: pauses on the uplink",
     "raw": {"sw_pfc": both("arista_eos_show_priority-flow-control_counters", "healthy", "unhealthy")},
     "expect": EOS, "status": "FAIL", "contains": ["Ethernet33/1: rx all +1500, tx all +22", CAUSE]},
    {"check": "pfc_idle", "name": "NX-OS: priority 3 pauses",
     "raw": {"sw_pfc": both("cisco_nxos_show_interface_priority-flow-control_detail", "healthy_leaf", "faulty_leaf")},
     "expect": NXOS, "status": "FAIL", "contains": ["Ethernet1/3: rx 3 +12, tx 3 +40"]},
    {"check": "pfc_idle", "name": "SONiC: PFC3 storm", "raw": {"sw_pfc": both("sonic_show_pfc_counters", "healthy_zero", "pfc3_storm")},
     "expect": SONIC, "status": "FAIL", "contains": ["Ethernet40: rx 3 +150000, tx 3 +12"]},
    {"check": "pfc_idle", "name": "SONiC: no pauses", "raw": {"sw_pfc": both("sonic_show_pfc_counters", "healthy_zero")}, "expect": SONIC, "status": "PASS"},
    {"check": "pfc_idle", "name": "Cumulus: priority 3 pauses on swp49",
     "raw": {"sw_pfc": per_port_window("cumulus_nv_show_interface_counters_qos_pfc", "twin_healthy", CUMULUS_PORTS, {"swp49": "twin_nonzero"})},
     "expect": CUMULUS, "status": "FAIL", "contains": ["swp49: rx 3 +812, tx 3 +77"]},
    {"check": "pfc_idle", "name": "Cumulus: no pauses",
     "raw": {"sw_pfc": per_port_window("cumulus_nv_show_interface_counters_qos_pfc", "twin_healthy", CUMULUS_PORTS)},
     "expect": CUMULUS, "status": "PASS"},
    {"check": "pfc_idle", "name": "at the limit", "facts": {"sw_pfc": window(pfc(), pfc(Ethernet2_1={"3": {"rx": 15}}))},
     "expect": dict(LEAF, pyramid_idle_pfc_max=10), "status": "PASS", "contains": ["none above 10"]},
    {"check": "pfc_idle", "name": "one over the limit", "facts": {"sw_pfc": window(pfc(), pfc(Ethernet2_1={"3": {"rx": 16}}))},
     "expect": dict(LEAF, pyramid_idle_pfc_max=10), "status": "FAIL", "contains": ["Ethernet2/1: rx 3 +11"]},
    {"check": "pfc_idle", "name": "one TX pause", "facts": {"sw_pfc": window(pfc(), pfc(Ethernet1_1={"0": {"tx": 6}}))}, "expect": LEAF, "status": "FAIL",
     "contains": ["Ethernet1/1: tx 0 +1"]},
    {"check": "pfc_idle", "name": "counters cleared", "facts": {"sw_pfc": window(pfc(), pfc(Ethernet1_1={"7": {"rx": 0}}))}, "expect": LEAF, "status": "ERROR",
     "contains": ["Ethernet1/1: rx 7 went from 5 to 0"]},
    {"check": "pfc_idle", "name": "SONiC: TX table cut", "raw": {"sw_pfc": both("sonic_show_pfc_counters", "healthy_zero", "truncated_no_tx_table")},
     "expect": SONIC, "status": "ERROR"},

    # --- ecn_idle: ECN-marked packets per port and queue over the idle soak, <= pyramid_idle_ecn_max
    {"check": "ecn_idle", "name": "EOS: none marked", "raw": {"sw_ecn": both("arista_eos_show_qos_interfaces_ecn_counters_queue", "healthy")},
     "expect": EOS, "status": "PASS", "contains": ["ECN-marked packets <= 0 per port and queue"]},
    {"check": "ecn_idle", "name": "EOS: queue 3 marked on the uplink",
     "raw": {"sw_ecn": both("arista_eos_show_qos_interfaces_ecn_counters_queue", "healthy", "unhealthy")}, "expect": EOS, "status": "FAIL",
     "contains": ["Ethernet33/1: ECN-marked q3 +98765", CAUSE]},
    {"check": "ecn_idle", "name": "NX-OS: per-port queuing, marked on 1/3",
     "raw": {"sw_ecn": per_port_window("cisco_nxos_show_queuing_interface_ecn", "healthy_leaf", ["Ethernet1/1", "Ethernet1/3"],
                                       {"Ethernet1/3": "faulty_leaf"})},
     "expect": dict(NXOS, pyramid_switch_ports=[NXOS_PLAN[0], NXOS_PLAN[2]]), "status": "FAIL", "contains": ["Ethernet1/3: ECN-marked q3 +991"]},
    {"check": "ecn_idle", "name": "SONiC: WRED ECN marked", "raw": {"sw_ecn": both("sonic_show_queue_wredcounters", "healthy_zero_ecn", "uc3_ecn_marked")},
     "expect": SONIC, "status": "FAIL", "contains": ["Ethernet40: ECN-marked q3 +98765"]},
    {"check": "ecn_idle", "name": "SONiC: ECN counter not supported", "raw": {"sw_ecn": both("sonic_show_queue_wredcounters", "ecn_not_supported_na")},
     "expect": SONIC, "status": "ERROR", "contains": ["EcnMarked/pkts is N/A"]},
    {"check": "ecn_idle", "name": "Cumulus: marked on swp2",
     "raw": {"sw_ecn": per_port_window("cumulus_nv_show_interface_counters_qos_ecn", "twin_healthy", CUMULUS_PORTS, {"swp2": "twin_nonzero"})},
     "expect": CUMULUS, "status": "FAIL", "contains": ["swp2: ECN-marked qall +5000"]},
    {"check": "ecn_idle", "name": "Cumulus: none marked",
     "raw": {"sw_ecn": per_port_window("cumulus_nv_show_interface_counters_qos_ecn", "twin_healthy", CUMULUS_PORTS)},
     "expect": CUMULUS, "status": "PASS"},
    {"check": "ecn_idle", "name": "at the limit", "facts": {"sw_ecn": window(queues(), queues(Ethernet1_1={"3": 109}))},
     "expect": dict(LEAF, pyramid_idle_ecn_max=100), "status": "PASS"},
    {"check": "ecn_idle", "name": "one over the limit", "facts": {"sw_ecn": window(queues(), queues(Ethernet1_1={"3": 110}))},
     "expect": dict(LEAF, pyramid_idle_ecn_max=100), "status": "FAIL", "contains": ["Ethernet1/1: ECN-marked q3 +101"]},
    {"check": "ecn_idle", "name": "a queue read once", "facts": {"sw_ecn": window(queues(), queues(Ethernet1_1={"5": 0}))},
     "expect": LEAF, "status": "ERROR", "contains": ["Ethernet1/1: ECN-marked q5 not read at the snapshot"]},
    {"check": "ecn_idle", "name": "a queue missing from the second read", "facts": {"sw_ecn": window(queues(Ethernet1_1={"5": 0}), queues())},
     "expect": LEAF, "status": "ERROR", "contains": ["Ethernet1/1: ECN-marked q5 not read now"]},
    {"check": "ecmp", "name": "a via line read twice is one path", "facts": {"sw_routes": routes(**{"10_52": ["10.200.0.0", "10.200.0.0"]}), "sw_bgp": bgp()},
     "expect": ECMP, "status": "FAIL", "contains": ["10.52.0.0/24: 1 of 2 next hops (missing via spine-02)"]},

    # --- discards_idle: queue discards per port and queue over the idle soak, <= pyramid_idle_discards_max
    {"check": "discards_idle", "name": "EOS: no discards", "raw": {"sw_discards": both("arista_eos_show_interfaces_counters_discards", "healthy")},
     "expect": EOS, "status": "PASS", "contains": ["queue discards <= 0 per port and queue"]},
    {"check": "discards_idle", "name": "EOS: discards on the uplink",
     "raw": {"sw_discards": both("arista_eos_show_interfaces_counters_discards", "healthy", "unhealthy", seconds=120)}, "expect": EOS, "status": "FAIL",
     "contains": ["Ethernet33/1: discards qall +4321", "over the 120s window", CAUSE]},
    {"check": "discards_idle", "name": "NX-OS: per-port queuing drops",
     "raw": {"sw_discards": per_port_window("cisco_nxos_show_queuing_interface", "healthy_leaf", ["Ethernet1/1", "Ethernet1/3"],
                                            {"Ethernet1/3": "faulty_leaf"})},
     "expect": dict(NXOS, pyramid_switch_ports=[NXOS_PLAN[0], NXOS_PLAN[2]]), "status": "FAIL", "contains": ["Ethernet1/3: discards q3 +5"]},
    {"check": "discards_idle", "name": "SONiC: queue 3 drops", "raw": {"sw_discards": both("sonic_show_queue_counters", "healthy_zero_drops", "uc3_drops")},
     "expect": SONIC, "status": "FAIL", "contains": ["Ethernet40: discards q3 +4321"]},
    {"check": "discards_idle", "name": "SONiC: no drops", "raw": {"sw_discards": both("sonic_show_queue_counters", "healthy_zero_drops")},
     "expect": SONIC, "status": "PASS"},
    {"check": "discards_idle", "name": "Cumulus: drops on swp50",
     "raw": {"sw_discards": per_port_window("cumulus_nv_show_interface_counters_qos_discards", "twin_healthy", CUMULUS_PORTS, {"swp50": "twin_nonzero"})},
     "expect": CUMULUS, "status": "FAIL", "contains": ["swp50: discards q0 +5242880, discards q3 +900"]},
    {"check": "discards_idle", "name": "Cumulus: one port's snapshot failed",
     "raw": {"sw_discards": {"before": per_port("cumulus_nv_show_interface_counters_qos_discards", "twin_healthy", CUMULUS_PORTS, swp1="nv_error"),
                             "after": per_port("cumulus_nv_show_interface_counters_qos_discards", "twin_healthy", CUMULUS_PORTS), "seconds": 300}},
     "expect": CUMULUS, "status": "ERROR", "contains": ["swp1: no counters at the snapshot", NO_COUNTERS]},
    {"check": "discards_idle", "name": "at the limit", "facts": {"sw_discards": window(queues(0), queues(0, Ethernet33_1={"3": 1}))},
     "expect": dict(LEAF, pyramid_idle_discards_max=1), "status": "PASS"},
    {"check": "discards_idle", "name": "one over the limit", "facts": {"sw_discards": window(queues(0), queues(0, Ethernet33_1={"3": 2}))},
     "expect": dict(LEAF, pyramid_idle_discards_max=1), "status": "FAIL", "contains": ["Ethernet33/1: discards q3 +2"]},
    {"check": "discards_idle", "name": "SONiC: last port cut",
     "raw": {"sw_discards": both("sonic_show_queue_counters", "healthy_zero_drops", "truncated_last_port")},
     "expect": SONIC, "status": "ERROR", "contains": ["cut short?"]},
]

NINE_PORTS = plan(*[("Ethernet%d/1" % index, "node-%03d" % index, "ens1np0") for index in range(1, 10)])
DATA += [
    # --- long lists: 8 problems named then "; and N more"; at most 3 unread ports named
    {"check": "link_status", "name": "9 planned ports not on the switch", "facts": {"sw_interfaces": {"ports": {}}},
     "expect": dict(LEAF, pyramid_switch_ports=NINE_PORTS), "status": "FAIL", "contains": ["Ethernet8/1 not on the switch; and 1 more"]},
    {"check": "link_errors", "name": "4 planned ports the switch does not list",
     "raw": {"sw_errors": both("arista_eos_show_interfaces_counters_errors", "healthy")},
     "expect": dict(EOS, pyramid_switch_ports=EOS_PLAN + NINE_PORTS[4:8]),
     "status": "ERROR", "contains": ["Ethernet7/1: no counters at the snapshot; and 1 more"]},
    {"check": "link_errors", "name": "3 ports not read", "facts": {"sw_errors": window({"ports": {}}, errors())}, "expect": LEAF, "status": "ERROR",
     "contains": ["Ethernet1/1: no counters at the snapshot; Ethernet2/1: no counters at the snapshot; Ethernet33/1: no counters at the snapshot"]},
]
DATA += [
    {"check": "cabling", "name": "9 silent ports: 8 named", "facts": {"sw_lldp": {"neighbors": {}}},
     "expect": dict(LEAF, pyramid_switch_ports=NINE_PORTS, pyramid_lldp_required=True), "status": "FAIL",
     "contains": ["no LLDP neighbor on Ethernet1/1, Ethernet2/1, Ethernet3/1, Ethernet4/1, Ethernet5/1, Ethernet6/1, Ethernet7/1, Ethernet8/1"]},
    # issue 40: nothing proven is never a PASS ("0 ports proven"): not checked, saying why
    {"check": "cabling", "name": "9 silent ports, LLDP not required: not checked, never a PASS", "facts": {"sw_lldp": {"neighbors": {}}},
     "expect": dict(LEAF, pyramid_switch_ports=NINE_PORTS), "status": "SKIP",
     "contains": ["not checked: no planned port has an LLDP neighbor (Ethernet1/1, Ethernet2/1"]},
    # issue 40: a garbled local port moves a miscabled port's row away: that port read silent, and passed
    {"check": "cabling", "name": "a miscabled port's local port garbled by a NUL: ERROR about the read, not a silent port's PASS",
     "facts": {"sw_lldp": {"neighbors": {"Ethernet1/1": [{"system": "node-001", "port": "ens1np0"}],
                                         "Ethernet2/\x00": [{"system": "node-009", "port": "ens1np0"}],
                                         "Ethernet33/1": [{"system": "spine-01", "port": "Ethernet1/1"}]}}},
     "expect": LEAF, "status": "ERROR", "contains": ["LLDP rows with a local port that is no interface name: 'Ethernet2/\\x00'"]},
    {"check": "cabling", "name": "a local port replaced by a dash: ERROR about the read",
     "facts": {"sw_lldp": {"neighbors": {"Ethernet1/1": [{"system": "node-001", "port": "ens1np0"}],
                                         "-": [{"system": "node-009", "port": "ens1np0"}],
                                         "Ethernet33/1": [{"system": "spine-01", "port": "Ethernet1/1"}]}}},
     "expect": LEAF, "status": "ERROR", "contains": ["no interface name: '-'"]},
    # issue 68: a local port damaged into another well-formed name (a negative slot or port): the planned port it
    # belongs to has no row and read silent, so a miscabled port passed ("5 ports proven; no LLDP neighbor (not proven)")
    {"check": "cabling", "name": "an EOS text local port with a negative slot (Et-7/1): ERROR about the read",
     "facts": {"sw_lldp": {"neighbors": {"Ethernet1/1": [{"system": "node-001", "port": "ens1np0"}],
                                         "Et-7/1": [{"system": "node-009", "port": "ens1np0"}],
                                         "Ethernet33/1": [{"system": "spine-01", "port": "Ethernet1/1"}]}}},
     "expect": LEAF, "status": "ERROR", "contains": ["no interface name: 'Et-7/1'"]},
    {"check": "cabling", "name": "an NX-OS local port with a negative port (Eth1/-7): ERROR about the read",
     "facts": {"sw_lldp": {"neighbors": {"Ethernet1/1": [{"system": "node-001", "port": "ens1np0"}],
                                         "Eth1/-7": [{"system": "node-009", "port": "ens1np0"}],
                                         "Ethernet33/1": [{"system": "spine-01", "port": "Ethernet1/1"}]}}},
     "expect": LEAF, "status": "ERROR", "contains": ["no interface name: 'Eth1/-7'"]},
    {"check": "cabling", "name": "a Cumulus JSON local port swp-7 and an EOS JSON Ethernet-7/1: ERROR naming both",
     "facts": {"sw_lldp": {"neighbors": {"Ethernet1/1": [{"system": "node-001", "port": "ens1np0"}],
                                         "swp-7": [{"system": "node-009", "port": "ens1np0"}],
                                         "Ethernet-7/1": [{"system": "node-010", "port": "ens1np0"}],
                                         "Ethernet33/1": [{"system": "spine-01", "port": "Ethernet1/1"}]}}},
     "expect": LEAF, "status": "ERROR", "contains": ["no interface name: 'Ethernet-7/1', 'swp-7'"]},
    {"check": "cabling", "name": "a port-channel's dash before a letter is a name, not damage",
     "facts": {"sw_lldp": {"neighbors": {"Ethernet1/1": [{"system": "node-001", "port": "ens1np0"}],
                                         "Ethernet2/1": [{"system": "node-002", "port": "ens1np0"}],
                                         "Port-Channel10": [{"system": "leaf1-r1", "port": "Port-Channel10"}],
                                         "Ethernet33/1": [{"system": "spine-01", "port": "Ethernet1/1"}]}}},
     "expect": LEAF, "status": "PASS", "contains": ["3 ports proven by LLDP"]},
    {"check": "cabling", "name": "a garbled row beside a miscabled port: FAIL naming both",
     "facts": {"sw_lldp": {"neighbors": {"Ethernet1/1": [{"system": "node-007", "port": "ens1np0"}],
                                         "Eth-": [{"system": "node-002", "port": "ens1np0"}],
                                         "Ethernet33/1": [{"system": "spine-01", "port": "Ethernet1/1"}]}}},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet1/1: plan node-001 ens1np0, LLDP sees node-007 ens1np0",
                                                    "rows with a garbled local port: 'Eth-'"]},
]
DATA += [
    {"check": "link_errors", "name": "a counter not kept, the next one grew",
     "facts": {"sw_errors": window(errors(Ethernet1_1={"crc": None}), errors(Ethernet1_1={"crc": None, "in_errors": 101}))},
     "expect": LEAF, "status": "FAIL", "contains": ["Ethernet1/1: in_errors +1"]},
    {"check": "link_errors", "name": "errors on one port, 4 others not read",
     "facts": {"sw_errors": window({"ports": {"Ethernet%d/1" % index: {"crc": 0, "in_errors": 0, "out_errors": 0} for index in range(1, 6)}},
                                   {"ports": {"Ethernet%d/1" % index: {"crc": index // 5, "in_errors": 0, "out_errors": 0} for index in range(1, 6)}})},
     "expect": dict(LEAF, pyramid_switch_ports=NINE_PORTS), "status": "FAIL",
     "contains": ["Ethernet5/1: crc +1; not read: Ethernet6/1: no counters at the snapshot", "Ethernet8/1: no counters at the snapshot; and 1 more"]},
]
DATA += [
    {"check": "cabling", "name": "a port without a peer, then a wrong one", "facts": {"sw_lldp": lldp(Ethernet2_1=[{"system": "node-009", "port": "ens1np0"}])},
     "expect": dict(LEAF, pyramid_switch_ports=[{"port": "Ethernet1/1"}, PLAN[1], PLAN[2]]), "status": "FAIL", "contains": ["Ethernet2/1: plan node-002"]},
    {"check": "cabling", "name": "two neighbors, neither planned", "facts": {"sw_lldp": lldp(Ethernet1_1=[{"system": "bmc", "port": "eth0"},
                                                                                                          {"system": "node-009", "port": "ens1np0"}])},
     "expect": LEAF, "status": "FAIL", "contains": ["LLDP sees bmc eth0, node-009 ens1np0"]},
    {"check": "ecmp", "name": "short via an unnamed neighbor", "facts": {"sw_routes": routes(**{"10_52": ["10.200.0.0"]}), "sw_bgp": bgp()},
     "expect": dict(ECMP, pyramid_bgp_neighbors=[{"address": "10.200.0.0"}, {"address": "10.200.8.0"}]), "status": "FAIL",
     "contains": ["10.52.0.0/24: 1 of 2 next hops (missing via 10.200.8.0)"]},
]
