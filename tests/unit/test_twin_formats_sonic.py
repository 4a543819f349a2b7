"""The twin's SONiC output (formats_sonic) read back by the product's SONiC parsers (parsing.sonic).

Every command the catalog runs on SONiC is rendered from a switch snapshot and parsed; the facts
must be what the snapshot says. The twin's error output must never parse.
"""

import copy

import pytest

from pyramid_twin import formats_sonic

PRIOS = [str(p) for p in range(8)]

PARSER_OF = {
    "show interfaces status": "sonic_show_interfaces_status",
    "show interfaces counters": "sonic_show_interfaces_counters",
    "show interfaces transceiver eeprom --dom": "sonic_show_interfaces_transceiver_eeprom_dom",
    "show lldp table": "sonic_show_lldp_table",
    "show ip bgp summary": "sonic_show_ip_bgp_summary",
    "show pfc counters": "sonic_show_pfc_counters",
    "show queue wredcounters": "sonic_show_queue_wredcounters",
    "show queue counters": "sonic_show_queue_counters",
}


def _port(number, peer, peer_port, **changes):
    port = {
        "name": "Ethernet%d" % (number * 8), "description": "%s %s" % (peer, peer_port),
        "admin": "up", "oper": "up", "speed_gbps": 400, "crc": 0, "in_errors": 0, "out_errors": 0,
        "rx_dbm": [-2.1, -2.3, -1.9, -2.2], "tx_dbm": [0.8, 0.9, 0.7, 0.8], "optic": "400GBASE-DR4",
        "lldp": [{"system": peer, "port": peer_port}],
        "pfc": {p: {"rx": 0, "tx": 0} for p in PRIOS}, "ecn_marked": {p: 0 for p in PRIOS},
        "discards": {p: 0 for p in PRIOS}, "ip": None, "in_packets": 1234567, "out_packets": 1234999,
    }
    port.update(changes)
    return port


def _leaf(ports, neighbors):
    return {"hostname": "leaf1-r0", "os": "sonic", "role": "leaf", "asn": 65101, "router_id": "10.255.0.1",
            "ports": ports, "bgp_neighbors": neighbors, "routes": []}


def _neighbor(address, remote_as, state="Established", prefixes=7, name="spine-01"):
    return {"address": address, "remote_as": remote_as, "state": state, "prefixes_received": prefixes,
            "up_down": "2d03h" if state == "Established" else "00:04:12", "msg_rcvd": 4021, "msg_sent": 4033,
            "description": name}


def healthy_leaf():
    ports = [_port(n, "node-%03d" % (n + 1), "ens%dnp0" % (n + 1)) for n in range(4)]
    ports += [_port(4 + s, "spine-%02d" % (s + 1), "Ethernet0", ip="10.200.0.%d/31" % (2 * s + 1)) for s in range(2)]
    neighbors = [_neighbor("10.200.0.%d" % (2 * s), 65000, name="spine-%02d" % (s + 1)) for s in range(2)]
    return _leaf(ports, neighbors)


def faulty_leaf():
    switch = healthy_leaf()
    ports = switch["ports"]
    ports[0].update(oper="down", lldp=[], rx_dbm=[-40.0, -40.0, -40.0, -40.0])    # rail down
    ports[1].update(speed_gbps=200)                                               # rail at 200G
    ports[2].update(crc=1412, in_errors=1412, out_errors=3)                       # CRC
    ports[3].update(rx_dbm=[-2.1, -11.5, -2.0, -2.2], tx_dbm=[0.8], optic=None)   # one dim lane
    ports[4].update(admin="down", oper="down", lldp=[])                           # shut uplink
    ports[5]["pfc"]["3"] = {"rx": 150000, "tx": 12}
    ports[5]["ecn_marked"]["3"] = 98765
    ports[5]["discards"]["3"] = 4321
    ports.append(_port(6, "", "b8:3f:d2:00:00:07", rx_dbm=[], tx_dbm=[], optic=None))  # DAC, nameless peer
    switch["bgp_neighbors"][0].update(state="Idle", prefixes_received=None)
    switch["bgp_neighbors"].append(_neighbor("10.200.0.4", 65000, state="Active", prefixes=None, name="spine-03"))
    switch["bgp_neighbors"].append(_neighbor("10.200.0.10", 65000, prefixes=0, name="spine-04"))
    return switch


def spine():
    ports = [_port(n, "leaf%d-r0" % (n + 1), "Ethernet%d" % (256 + 8 * n)) for n in range(12)]
    neighbors = [_neighbor("10.200.0.%d" % (2 * n + 1), 65101 + n, prefixes=1, name="leaf%d-r0" % (n + 1))
                 for n in range(12)]
    switch = _leaf(ports, neighbors)
    switch.update(hostname="spine-01", role="spine", asn=65000, router_id="10.255.1.1")
    return switch


SWITCHES = {"healthy": healthy_leaf, "faulty": faulty_leaf, "spine": spine}


def expected(switch, fact):
    ports = switch["ports"]
    if fact == "interfaces":
        return {"ports": {p["name"]: {"oper": p["oper"], "admin": p["admin"], "speed_gbps": p["speed_gbps"],
                                      "status": p["oper"]} for p in ports}}
    if fact == "errors":
        return {"ports": {p["name"]: {"crc": p["crc"], "in_errors": p["in_errors"], "out_errors": p["out_errors"]}
                          for p in ports}}
    if fact == "optics":
        # a port without RX power is rendered "SFP EEPROM Not detected": listed, with no optic
        return {"ports": {p["name"]: {"rx_dbm": p["rx_dbm"], "tx_dbm": p["tx_dbm"] if p["rx_dbm"] else []} for p in ports}}
    if fact == "lldp":
        return {"neighbors": {p["name"]: p["lldp"] for p in ports if p["lldp"]}}
    if fact == "bgp":
        return {"neighbors": {n["address"]: {"remote_as": n["remote_as"], "state": n["state"],
                                             "prefixes_received": n["prefixes_received"]}
                              for n in switch["bgp_neighbors"]}}
    if fact == "pfc":
        return {"ports": {p["name"]: copy.deepcopy(p["pfc"]) for p in ports}}
    if fact == "ecn":
        return {"ports": {p["name"]: dict(p["ecn_marked"]) for p in ports}}
    return {"ports": {p["name"]: dict(p["discards"]) for p in ports}}


FACT_OF = {
    "show interfaces status": "interfaces", "show interfaces counters": "errors",
    "show interfaces transceiver eeprom --dom": "optics", "show lldp table": "lldp",
    "show ip bgp summary": "bgp", "show pfc counters": "pfc", "show queue wredcounters": "ecn",
    "show queue counters": "discards",
}


def _listed(facts):
    """The facts without the parser's note that its table has no trailer (the twin's state has no such notion)."""
    return {key: value for key, value in facts.items() if key != "unverified"}


@pytest.mark.parametrize("kind", sorted(SWITCHES))
@pytest.mark.parametrize("command", sorted(PARSER_OF))
def test_rendered_output_parses_to_the_snapshot(parsers, kind, command):
    switch = SWITCHES[kind]()
    text = formats_sonic.COMMANDS[command](switch)
    assert _listed(parsers.parse(PARSER_OF[command], text)) == expected(switch, FACT_OF[command])


def test_faulty_leaf_facts_show_the_faults(parsers):
    switch = faulty_leaf()
    render = {command: formats_sonic.COMMANDS[command](switch) for command in PARSER_OF}
    status = parsers.parse("sonic_show_interfaces_status", render["show interfaces status"])["ports"]
    assert status["Ethernet0"]["oper"] == "down" and status["Ethernet8"]["speed_gbps"] == 200
    assert status["Ethernet32"] == {"oper": "down", "admin": "down", "speed_gbps": 400, "status": "down"}
    errors = parsers.parse("sonic_show_interfaces_counters", render["show interfaces counters"])["ports"]
    assert errors["Ethernet16"] == {"crc": 1412, "in_errors": 1412, "out_errors": 3}
    optics = parsers.parse("sonic_show_interfaces_transceiver_eeprom_dom",
                           render["show interfaces transceiver eeprom --dom"])["ports"]
    assert optics["Ethernet24"]["rx_dbm"][1] == -11.5 and optics["Ethernet48"] == {"rx_dbm": [], "tx_dbm": []}
    lldp = parsers.parse("sonic_show_lldp_table", render["show lldp table"])["neighbors"]
    assert lldp["Ethernet48"] == [{"system": "", "port": "b8:3f:d2:00:00:07"}] and "Ethernet0" not in lldp
    bgp = parsers.parse("sonic_show_ip_bgp_summary", render["show ip bgp summary"])["neighbors"]
    assert bgp["10.200.0.0"] == {"remote_as": 65000, "state": "Idle", "prefixes_received": None}
    assert bgp["10.200.0.4"]["state"] == "Active"
    assert bgp["10.200.0.10"] == {"remote_as": 65000, "state": "Established", "prefixes_received": 0}
    pfc = parsers.parse("sonic_show_pfc_counters", render["show pfc counters"])["ports"]
    assert pfc["Ethernet40"]["3"] == {"rx": 150000, "tx": 12}
    ecn = parsers.parse("sonic_show_queue_wredcounters", render["show queue wredcounters"])["ports"]
    assert ecn["Ethernet40"]["3"] == 98765
    discards = parsers.parse("sonic_show_queue_counters", render["show queue counters"])["ports"]
    assert discards["Ethernet40"]["3"] == 4321


def test_tables_look_like_sonic_utilities():
    switch = healthy_leaf()
    status = formats_sonic.show_interfaces_status(switch).splitlines()
    assert status[0].split() == ["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin",
                                 "Type", "Asym", "PFC"]
    assert status[2].split()[:4] == ["Ethernet0", "0,1,2,3,4,5,6,7", "400G", "9100"]
    bgp = formats_sonic.show_ip_bgp_summary(switch)
    assert bgp.startswith("\nIPv4 Unicast Summary:\n") and "Neighbhor      V     AS" in bgp
    assert bgp.endswith("\nTotal number of neighbors 2\n")
    pfc = formats_sonic.show_pfc_counters(switch)
    assert pfc.startswith("   Port Rx    PFC0") and "\n\n   Port Tx    PFC0" in pfc  # Ethernet40: 10 wide
    lldp = formats_sonic.show_lldp_table(switch)
    assert lldp.endswith("-" * 50 + "\nTotal entries displayed:  6\n")


@pytest.mark.parametrize("command", ["show interfaces stat", "show ip bgp summry", "show interfaces status Ethernet0 x",
                                     "show queue counters --bogus", "show", "nv show interface"])
def test_errors_never_parse(parsers, command):
    text, rc = formats_sonic.error(command)
    assert rc in (2, 127) and text
    for parser in PARSER_OF.values():
        with pytest.raises(parsers.ParseError):
            parsers.parse(parser, text)


def test_click_usage_error_text():
    text, rc = formats_sonic.error("show interfaces stat")
    assert rc == 2
    assert text == ('Usage: show interfaces [OPTIONS] COMMAND [ARGS]...\nTry "show interfaces -h" for help.\n\n'
                    'Error: No such command "stat".\n')


def test_route_command_comes_from_frr_when_present():
    try:
        from pyramid_twin import formats_frr  # noqa: F401  (another helper's module)
    except ImportError:
        assert "show ip route bgp" not in formats_sonic.COMMANDS
    else:
        assert "show ip route bgp" in formats_sonic.COMMANDS
