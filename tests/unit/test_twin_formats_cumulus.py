"""The twin's Cumulus Linux (NVUE) and FRR (vtysh) output, read back by the product's parsers."""

import copy

import pytest

from pyramid_twin import formats_cumulus, formats_frr


def _port(name, **over):
    port = {"name": name, "description": "", "admin": "up", "oper": "up", "speed_gbps": 400,
            "crc": 0, "in_errors": 0, "out_errors": 0,
            "rx_dbm": [-2.1, -2.0, -2.2, -2.1, -1.9, -2.0, -2.3, -2.2], "tx_dbm": [0.5] * 8,
            "optic": "400GBASE-DR4", "lldp": [{"system": "node-001", "port": "ens1np0"}],
            "pfc": {str(p): {"rx": 0, "tx": 0} for p in range(8)}, "ecn_marked": {str(p): 0 for p in range(8)},
            "discards": {str(p): 0 for p in range(8)}, "ip": None, "in_packets": 123456, "out_packets": 654321}
    port.update(over)
    return port


HEALTHY = {
    "hostname": "leaf-r0", "os": "cumulus", "role": "leaf", "asn": 65101, "router_id": "10.255.0.1",
    "ports": [_port("swp1"), _port("swp2", lldp=[{"system": "node-002", "port": "ens1np0"}]),
              _port("swp10"),
              _port("swp49", ip="10.0.1.0/31", lldp=[{"system": "spine-01", "port": "swp1"}]),
              _port("swp50", ip="10.0.1.2/31", lldp=[{"system": "spine-02", "port": "swp1"}])],
    "bgp_neighbors": [
        {"address": "10.0.1.1", "remote_as": 65001, "state": "Established", "prefixes_received": 9,
         "up_down": "2d03h", "msg_rcvd": 4021, "msg_sent": 4033, "description": "spine-01"},
        {"address": "10.0.1.3", "remote_as": 65001, "state": "Established", "prefixes_received": 9,
         "up_down": "2d03h", "msg_rcvd": 4020, "msg_sent": 4031, "description": "spine-02"}],
    "routes": [{"prefix": "10.2.3.0/24", "age": "2d03h",
                "next_hops": [{"address": "10.0.1.1", "interface": "swp49"}, {"address": "10.0.1.3", "interface": "swp50"}]},
               {"prefix": "10.255.0.2/32", "age": "2d03h",
                "next_hops": [{"address": "10.0.1.1", "interface": "swp49"}]}],
}


def _faulty():
    switch = copy.deepcopy(HEALTHY)
    switch["hostname"] = "leaf-r1"
    ports = {port["name"]: port for port in switch["ports"]}
    ports["swp1"].update(oper="down", admin="down", speed_gbps=None, lldp=[], rx_dbm=[-40.0] * 8)
    ports["swp2"].update(speed_gbps=200, crc=1234, in_errors=1300, out_errors=7,
                         rx_dbm=[-2.1, -14.5, -2.2, -2.1, -1.9, -2.0, -2.3, -2.2],
                         pfc=dict(HEALTHY["ports"][0]["pfc"], **{"3": {"rx": 812, "tx": 77}}),
                         ecn_marked=dict(HEALTHY["ports"][0]["ecn_marked"], **{"3": 5000}),
                         discards=dict(HEALTHY["ports"][0]["discards"], **{"3": 900, "0": 5 * 1024 * 1024}))
    ports["swp10"].update(rx_dbm=[], tx_dbm=[], optic=None, lldp=[{"system": "node-010", "port": "ens1np0"}])
    switch["bgp_neighbors"][1].update(state="Idle", prefixes_received=None, up_down="never", msg_rcvd=0, msg_sent=0)
    switch["bgp_neighbors"].append({"address": "fd00:0:ffff::12", "remote_as": 65002, "state": "Active",
                                    "prefixes_received": None, "up_down": "never", "msg_rcvd": 0, "msg_sent": 0,
                                    "description": ""})
    switch["routes"].append({"prefix": "10.9.0.0/16", "age": "00:12:01", "next_hops": [
        {"address": "10.0.1.1", "interface": "swp49"}, {"address": "10.0.1.3", "interface": "swp50"},
        {"address": "10.0.1.5", "interface": "swp51"}]})
    return switch


FAULTY = _faulty()


def _run(switch, command):
    handler = formats_cumulus.COMMANDS.get(command)
    assert handler is not None, command
    return handler(switch)


def _listed(facts):
    """The facts without the parser's note that its table has no trailer (the twin's state has no such notion)."""
    return {key: value for key, value in facts.items() if key != "unverified"}


@pytest.mark.parametrize("switch", [HEALTHY, FAULTY], ids=["healthy", "faulty"])
def test_nv_show_interface(parsers, switch):
    text = _run(switch, "nv show interface")
    facts = parsers.parse("cumulus_nv_show_interface", text)
    expected = {p["name"]: {"oper": p["oper"], "admin": None, "speed_gbps": p["speed_gbps"] if p["oper"] == "up" else None,
                            "status": p["oper"]} for p in switch["ports"]}
    assert _listed(facts) == {"ports": expected}
    lldp = parsers.parse("cumulus_nv_show_interface_lldp", text)
    assert _listed(lldp) == {"neighbors": {p["name"]: p["lldp"][:1] for p in switch["ports"]}}  # a silent port: []


@pytest.mark.parametrize("switch", [HEALTHY, FAULTY], ids=["healthy", "faulty"])
def test_per_port_commands(parsers, switch):
    for port in switch["ports"]:
        name = port["name"]
        errors = parsers.parse("cumulus_nv_show_interface_counters_errors",
                               _run(switch, "nv show interface %s counters errors" % name))
        assert errors == {"crc": port["crc"], "in_errors": port["in_errors"], "out_errors": port["out_errors"]}
        optics = parsers.parse("cumulus_nv_show_interface_transceiver", _run(switch, "nv show interface %s transceiver" % name))
        assert optics == {"rx_dbm": port["rx_dbm"], "tx_dbm": port["tx_dbm"] if port["rx_dbm"] else []}
        qos = _run(switch, "nv show interface %s counters qos" % name)
        assert parsers.parse("cumulus_nv_show_interface_counters_qos_pfc", qos) == port["pfc"]
        assert parsers.parse("cumulus_nv_show_interface_counters_qos_ecn", qos) == {"all": sum(port["ecn_marked"].values())}
        discards = parsers.parse("cumulus_nv_show_interface_counters_qos_discards", qos)
        assert set(discards) == set(port["discards"])
        for queue, count in port["discards"].items():  # NVUE prints bytes, humanized above 1 KB
            assert discards[queue] == pytest.approx(count, rel=0.01)
            assert bool(discards[queue]) == bool(count)


def test_faulty_values_come_through(parsers):
    qos = _run(FAULTY, "nv show interface swp2 counters qos")
    assert parsers.parse("cumulus_nv_show_interface_counters_qos_pfc", qos)["3"] == {"rx": 812, "tx": 77}
    assert parsers.parse("cumulus_nv_show_interface_counters_qos_ecn", qos) == {"all": 5000}
    assert parsers.parse("cumulus_nv_show_interface_counters_qos_discards", qos)["3"] == 900
    interfaces = parsers.parse("cumulus_nv_show_interface", _run(FAULTY, "nv show interface"))["ports"]
    assert interfaces["swp1"]["oper"] == "down" and interfaces["swp2"]["speed_gbps"] == 200
    optics = parsers.parse("cumulus_nv_show_interface_transceiver", _run(FAULTY, "nv show interface swp2 transceiver"))
    assert min(optics["rx_dbm"]) == -14.5


@pytest.mark.parametrize("switch", [HEALTHY, FAULTY], ids=["healthy", "faulty"])
def test_frr(parsers, switch):
    bgp = parsers.parse("frr_show_ip_bgp_summary", _run(switch, "vtysh -c show ip bgp summary"))
    assert bgp == {"neighbors": {n["address"]: {"remote_as": n["remote_as"], "state": n["state"],
                                                "prefixes_received": n["prefixes_received"]}
                                 for n in switch["bgp_neighbors"]}}
    routes = _listed(parsers.parse("frr_show_ip_route", _run(switch, "vtysh -c show ip route bgp")))
    assert routes == {"routes": {r["prefix"]: {"next_hops": [h["address"] for h in r["next_hops"]]}
                                 for r in switch["routes"]}}
    assert formats_frr.show_ip_route(switch) == _run(switch, "sudo vtysh -c show ip route bgp")


def test_faulty_route_has_three_next_hops(parsers):
    routes = parsers.parse("frr_show_ip_route", formats_frr.show_ip_route(FAULTY))["routes"]
    assert routes["10.9.0.0/16"]["next_hops"] == ["10.0.1.1", "10.0.1.3", "10.0.1.5"]


def test_no_bgp_neighbors(parsers):
    switch = dict(HEALTHY, bgp_neighbors=[])
    assert parsers.parse("frr_show_ip_bgp_summary", formats_frr.show_ip_bgp_summary(switch)) == {"neighbors": {}}


@pytest.mark.parametrize("parser,command", [
    ("cumulus_nv_show_interface", "nv show interfaces"),
    ("cumulus_nv_show_interface_lldp", "nv show interface --view=lldpx"),
    ("cumulus_nv_show_interface_counters_errors", "nv show interface swp1 counters error"),
    ("cumulus_nv_show_interface_transceiver", "nv show interface swp1 transceivers"),
    ("cumulus_nv_show_interface_counters_qos_pfc", "nv show interface swp1 qos counters"),
    ("cumulus_nv_show_interface_counters_qos_ecn", "nv show interface swp1 qos counters"),
    ("cumulus_nv_show_interface_counters_qos_discards", "nv show interface swp1 qos counters"),
    ("frr_show_ip_bgp_summary", "vtysh -c show ip bgp summry"),
    ("frr_show_ip_route", "vtysh -c show ip route bgpp"),
])
def test_errors_are_rejected(parsers, parser, command):
    assert formats_cumulus.COMMANDS.get(command) is None
    text, rc = formats_cumulus.error(command)
    assert rc != 0
    with pytest.raises(parsers.ParseError):
        parsers.parse(parser, text)


@pytest.mark.parametrize("parser,view", [
    ("cumulus_nv_show_interface_counters_errors", "counters errors"),
    ("cumulus_nv_show_interface_transceiver", "transceiver"),
    ("cumulus_nv_show_interface_counters_qos_pfc", "counters qos"),
])
def test_unknown_port_is_rejected(parsers, parser, view):
    text = _run(HEALTHY, "nv show interface swp99 %s" % view)
    with pytest.raises(parsers.ParseError):
        parsers.parse(parser, text)


def test_no_bgp_route_prints_nothing_and_reads_as_no_route(parsers):
    """FRR prints nothing for `show ip route bgp` without a BGP route (sessions down, or waiting for a
    policy): data, an empty route table, not an "empty output" failure."""
    switch = dict(HEALTHY, routes=[])
    assert formats_frr.show_ip_route(switch) == ""
    assert parsers.parse("frr_show_ip_route", formats_frr.show_ip_route(switch)) == {"routes": {}}


# The per-port forms are matched without `re` (commands.PortView: `re`'s import was most of an `nv` run's cost); they
# answer exactly what the pattern they replaced, ^nv show interface (\S+) (view|...)$, answered.
PER_PORT_FORMS = [
    ("nv show interface swp1 counters errors", ("swp1", "counters errors")),
    ("nv show interface swp10 qos roce status", ("swp10", "qos roce status")),
    ("nv show interface swp1s0 transceiver", ("swp1s0", "transceiver")),
    ("nv show interface swp1 counters error", None),  # a view it does not know
    ("nv show interface swp1", None),
    ("nv show interface  swp1 transceiver", None),  # an empty port name
    ("nv show interface swp1\ttransceiver", None),
    ("nv show interfaces swp1 transceiver", None),
    ("nv show interface swp1 transceiver extra", None),
]


@pytest.mark.parametrize("command, expected", PER_PORT_FORMS)
def test_per_port_forms_match_as_the_pattern_did(command, expected):
    import re  # pylint: disable=import-outside-toplevel

    pattern = re.compile(r"^nv show interface (\S+) (%s)$" % "|".join(formats_cumulus.PER_PORT))
    match = formats_cumulus.COMMANDS.per_port[0][0].match(command)
    assert (match.groups() if match else None) == expected
    old = pattern.match(command)
    assert (old.groups() if old else None) == expected
