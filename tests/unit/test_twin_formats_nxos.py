"""The twin's NX-OS renderer (twin/pyramid_twin/formats_nxos.py) read back by the product's NX-OS parsers."""

import copy

import pytest

from pyramid_twin import formats_nxos

PARSER = {
    "show interface status": "cisco_nxos_show_interface_status",
    "show interface counters errors": "cisco_nxos_show_interface_counters_errors",
    "show interface transceiver details": "cisco_nxos_show_interface_transceiver_details",
    "show lldp neighbors": "cisco_nxos_show_lldp_neighbors",
    "show ip bgp summary": "cisco_nxos_show_ip_bgp_summary",
    "show ip route bgp": "cisco_nxos_show_ip_route_bgp",
    "show interface priority-flow-control detail": "cisco_nxos_show_interface_priority-flow-control_detail",
    "show queuing interface": "cisco_nxos_show_queuing_interface",
}
ZERO8 = {str(prio): 0 for prio in range(8)}


def _port(name, **changes):
    port = {"name": name, "description": "node-001 rail0", "admin": "up", "oper": "up", "speed_gbps": 400,
            "crc": 0, "in_errors": 0, "out_errors": 0, "rx_dbm": [-2.1, -2.0, -2.2, -2.1],
            "tx_dbm": [0.5, 0.6, 0.4, 0.5], "optic": "QSFP-DD-400G-DR4",
            "lldp": [{"system": "node-001", "port": "ens1np0"}],
            "pfc": {str(prio): {"rx": 0, "tx": 0} for prio in range(8)}, "ecn_marked": dict(ZERO8),
            "discards": dict(ZERO8), "ip": "10.0.1.0/31", "in_packets": 123456, "out_packets": 123456}
    port.update(changes)
    return port


def _healthy():
    return {
        "hostname": "leaf-r0", "os": "nxos", "role": "leaf", "asn": 65101, "router_id": "10.255.0.1",
        "ports": [_port("Ethernet1/%d" % n, description="node-00%d rail0" % n,
                        lldp=[{"system": "node-00%d" % n, "port": "ens1np0"}]) for n in range(1, 5)]
        + [_port("Ethernet1/49", description="spine-01", lldp=[{"system": "spine-01", "port": "Ethernet1/1"}])],
        "bgp_neighbors": [
            {"address": "10.0.1.1", "remote_as": 65001, "state": "Established", "prefixes_received": 9,
             "up_down": "2d03h", "msg_rcvd": 4021, "msg_sent": 4033, "description": "spine-01"},
            {"address": "10.0.1.3", "remote_as": 65001, "state": "Established", "prefixes_received": 9,
             "up_down": "2d03h", "msg_rcvd": 4020, "msg_sent": 4031, "description": "spine-02"}],
        "routes": [{"prefix": "10.2.3.0/24", "age": "2d03h",
                    "next_hops": [{"address": "10.0.1.1", "interface": "Ethernet1/49"},
                                  {"address": "10.0.1.3", "interface": "Ethernet1/50"}]},
                   {"prefix": "10.255.0.2/32", "age": "2d03h",
                    "next_hops": [{"address": "10.0.1.1", "interface": "Ethernet1/49"}]}],
    }


def _faulty():
    switch = copy.deepcopy(_healthy())
    switch["hostname"] = "leaf-r1"
    ports = switch["ports"]
    ports[1].update(oper="down", speed_gbps=None, rx_dbm=[], tx_dbm=[], optic=None, lldp=[])  # no optic, down
    ports[2].update(speed_gbps=200, crc=1234, in_errors=1240, out_errors=3, rx_dbm=[-2.0, -12.4, -2.1, -2.3],
                    lldp=[{"system": "a-very-long-spine-hostname-01.example.net", "port": "Ethernet1/7"}])
    ports[3].update(admin="down", oper="down", lldp=[])
    ports[4]["pfc"]["3"] = {"rx": 1200, "tx": 77}
    ports[4]["ecn_marked"]["3"] = 98765
    ports[4]["discards"]["3"] = 42
    switch["bgp_neighbors"][1].update(state="Idle", prefixes_received=None, up_down="00:00:12", msg_rcvd=0, msg_sent=0)
    switch["bgp_neighbors"].append({"address": "10.0.1.5", "remote_as": 4200000001, "state": "Active",
                                    "prefixes_received": None, "up_down": "01:00:00", "msg_rcvd": 0, "msg_sent": 0})
    switch["routes"][0]["next_hops"].append({"address": "10.0.1.5", "interface": "Ethernet1/51"})
    return switch


def _expected(switch):
    ports = switch["ports"]
    return {
        "show interface status": {"ports": {p["name"]: {
            "oper": p["oper"], "admin": p["admin"] if p["admin"] == "down" or p.get("optic") else None,
            "speed_gbps": p["speed_gbps"],
            "status": "disabled" if p["admin"] == "down" else "connected" if p["oper"] == "up"
            else "notconnec" if p.get("optic") else "sfpAbsent"} for p in ports}},
        "show interface counters errors": {"ports": {p["name"]: {
            "crc": p["crc"], "in_errors": p["in_errors"], "out_errors": p["out_errors"]} for p in ports}},
        "show interface transceiver details": {"ports": {p["name"]: {
            "rx_dbm": p["rx_dbm"], "tx_dbm": p["tx_dbm"]} for p in ports if p["rx_dbm"]}},
        "show lldp neighbors": {"neighbors": {p["name"]: p["lldp"] for p in ports if p["lldp"]}},
        "show ip bgp summary": {"neighbors": {n["address"]: {
            "remote_as": n["remote_as"], "state": n["state"], "prefixes_received": n["prefixes_received"]}
            for n in switch["bgp_neighbors"]}},
        "show ip route bgp": {"routes": {r["prefix"]: {"next_hops": [h["address"] for h in r["next_hops"]]}
                                         for r in switch["routes"]}, "next_hops_counted": True},
        "show interface priority-flow-control detail": {"ports": {p["name"]: p["pfc"] for p in ports},
                                                        "pfc_oper": {p["name"]: p["oper"] == "up" for p in ports}},
        "show queuing interface": {"ports": {p["name"]: p["discards"] for p in ports}},
    }


def _listed(facts):
    """The facts without the parser's note that its table has no trailer (the twin's state has no such notion)."""
    return {key: value for key, value in facts.items() if key != "unverified"}


@pytest.mark.parametrize("make", [_healthy, _faulty], ids=["healthy", "faulty"])
@pytest.mark.parametrize("command", sorted(PARSER))
def test_rendered_output_parses_to_the_snapshot(parsers, make, command):
    switch = make()
    text = formats_nxos.COMMANDS[command](switch)
    assert _listed(parsers.parse(PARSER[command], text)) == _expected(switch)[command]


@pytest.mark.parametrize("make", [_healthy, _faulty], ids=["healthy", "faulty"])
def test_ecn_counters(parsers, make):
    switch = make()
    text = formats_nxos.COMMANDS["show queuing interface"](switch)
    facts = parsers.parse("cisco_nxos_show_queuing_interface_ecn", text)
    assert facts == {"ports": {p["name"]: p["ecn_marked"] for p in switch["ports"]}}


def test_faulty_snapshot_shows_its_faults(parsers):
    switch = _faulty()
    run = {command: parsers.parse(PARSER[command], formats_nxos.COMMANDS[command](switch)) for command in PARSER}
    assert run["show interface status"]["ports"]["Ethernet1/3"]["speed_gbps"] == 200
    assert run["show interface status"]["ports"]["Ethernet1/2"]["oper"] == "down"
    assert run["show interface counters errors"]["ports"]["Ethernet1/3"]["crc"] == 1234
    assert min(run["show interface transceiver details"]["ports"]["Ethernet1/3"]["rx_dbm"]) == -12.4
    assert run["show ip bgp summary"]["neighbors"]["10.0.1.3"]["state"] == "Idle"
    assert len(run["show ip route bgp"]["routes"]["10.2.3.0/24"]["next_hops"]) == 3
    assert run["show interface priority-flow-control detail"]["ports"]["Ethernet1/49"]["3"] == {"rx": 1200, "tx": 77}
    assert run["show queuing interface"]["ports"]["Ethernet1/49"]["3"] == 42


@pytest.mark.parametrize("command", sorted(PARSER))
def test_error_output_is_rejected(parsers, command):
    text, rc = formats_nxos.error(command + " bogus")
    assert rc == 0
    with pytest.raises(parsers.ParseError):
        parsers.parse(PARSER[command], text)
    with pytest.raises(parsers.ParseError):
        parsers.parse("cisco_nxos_show_queuing_interface_ecn", text)


@pytest.mark.parametrize("command", sorted(PARSER))
def test_output_cut_at_a_line_boundary_is_rejected(parsers, command):
    """Cut inside the last port's / neighbor's / route's report, at a line end: never partial facts."""
    text = formats_nxos.COMMANDS[command](_faulty())
    lines = text.splitlines()
    marker = {"show interface status": None, "show ip bgp summary": None}
    if command in marker:
        pytest.skip("a table with no footer: a cut at a row boundary is indistinguishable from fewer rows")
    cut = {"show interface counters errors": "Eth1/49 ",
           "show interface transceiver details": "    Rx Power",
           "show lldp neighbors": "Total entries",
           "show ip route bgp": "    *via 10.0.1.5",
           "show interface priority-flow-control detail": "    Tx  |",
           "show queuing interface": "|                      CONTROL QOS GROUP"}[command]
    last = max(i for i, line in enumerate(lines) if line.startswith(cut))
    if command == "show interface counters errors":
        last = min(i for i, line in enumerate(lines) if line.startswith(cut)) + 1
    with pytest.raises(parsers.ParseError):
        parsers.parse(PARSER[command], "\n".join(lines[:last]) + "\n")


PER_PORT = {"show interface {} transceiver details": "show interface transceiver details",
            "show queuing interface {}": "show queuing interface"}


@pytest.mark.parametrize("typed", ["Ethernet1/49", "ethernet1/49", "Eth1/49", "e1/49"])
@pytest.mark.parametrize("form", sorted(PER_PORT))
def test_a_per_port_form_answers_for_that_port_only(parsers, form, typed):
    """What the catalog runs once per planned port: the same report, for the one port named."""
    switch = _faulty()
    command = PER_PORT[form]
    facts = parsers.parse(PARSER[command], formats_nxos.COMMANDS[form.format(typed)](switch))
    assert facts == {"ports": {"Ethernet1/49": _expected(switch)[command]["ports"]["Ethernet1/49"]}}


@pytest.mark.parametrize("form", sorted(PER_PORT))
def test_a_per_port_form_for_a_port_the_switch_lacks_is_an_error(parsers, form):
    text = formats_nxos.COMMANDS[form.format("Ethernet9/9")](_healthy())
    assert "Invalid range at '^' marker" in text
    with pytest.raises(parsers.ParseError):
        parsers.parse(PARSER[PER_PORT[form]], text)


def test_show_version_and_inventory_answer_what_cisco_nxos_cliconf_reads():
    """cisco.nxos.nxos_command reads device info first (bench/network_cli_answers.py runs it)."""
    import re
    version = formats_nxos.COMMANDS["show version"](_healthy())
    assert re.search(r"\s+NXOS:\s+version\s*(\S+)", version, re.M).group(1) == "10.3(4a)"
    assert re.search(r"\s+Device name:\s*(\S+)", version, re.M).group(1) == "leaf-r0"
    assert "PID: N9K-C9364D-GX2A" in formats_nxos.COMMANDS["show inventory"](_healthy())
