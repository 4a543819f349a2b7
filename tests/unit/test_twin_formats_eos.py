"""The twin's Arista EOS outputs parse back, through the product's parsers, to the switch they came from."""

import copy

import pytest

from pyramid_twin import formats_eos

PARSERS = {
    "show interfaces status": "arista_eos_show_interfaces_status",
    "show interfaces counters errors": "arista_eos_show_interfaces_counters_errors",
    "show interfaces transceiver": "arista_eos_show_interfaces_transceiver",
    "show lldp neighbors": "arista_eos_show_lldp_neighbors",
    "show ip bgp summary": "arista_eos_show_ip_bgp_summary",
    "show ip route bgp": "arista_eos_show_ip_route",
    "show priority-flow-control counters": "arista_eos_show_priority-flow-control_counters",
    "show qos interfaces ecn counters queue | json": "arista_eos_show_qos_interfaces_ecn_counters_queue",
    "show interfaces counters discards": "arista_eos_show_interfaces_counters_discards",
}
JSON_PARSERS = {  # the `| json` form of each text command: same facts, from eAPI's document
    "show interfaces status": "arista_eos_show_interfaces_status_json",
    "show interfaces counters errors": "arista_eos_show_interfaces_counters_errors_json",
    "show interfaces transceiver": "arista_eos_show_interfaces_transceiver_json",
    "show lldp neighbors": "arista_eos_show_lldp_neighbors_json",
    "show ip bgp summary": "arista_eos_show_ip_bgp_summary_json",
    "show ip route bgp": "arista_eos_show_ip_route_json",
    "show priority-flow-control counters": "arista_eos_show_priority-flow-control_counters_json",
    "show interfaces counters discards": "arista_eos_show_interfaces_counters_discards_json",
}
PRIORITIES = [str(p) for p in range(8)]


def _port(number, peer, peer_port, ip=None):
    return {"name": "Ethernet%d/1" % number, "description": "%s %s" % (peer, peer_port), "admin": "up", "oper": "up",
            "speed_gbps": 400, "crc": 0, "in_errors": 0, "out_errors": 0,
            "rx_dbm": [-2.1, -2.3, -1.9, -2.2], "tx_dbm": [0.8, 0.9, 0.7, 0.8], "optic": "400GBASE-DR4",
            "lldp": [{"system": peer, "port": peer_port}],
            "pfc": {p: {"rx": 0, "tx": 0} for p in PRIORITIES}, "ecn_marked": {p: 0 for p in PRIORITIES},
            "discards": {p: 0 for p in PRIORITIES}, "ip": ip, "in_packets": 123456, "out_packets": 123456}


def healthy_leaf():
    ports = [_port(n, "node-%03d" % n, "ens1np0") for n in (1, 2, 3, 4)]
    ports += [_port(32 + s, "spine-%02d" % s, "Ethernet1/1", "10.200.%d.1/31" % (8 * s)) for s in (1, 2, 3, 4)]
    hops = [{"address": "10.200.%d.0" % (8 * s), "interface": "Ethernet%d/1" % (32 + s)} for s in (1, 2, 3, 4)]
    return {
        "hostname": "leaf1-r0", "os": "eos", "role": "leaf", "asn": 65101, "router_id": "10.255.0.1", "ports": ports,
        "bgp_neighbors": [{"address": "10.200.%d.0" % (8 * s), "remote_as": 65000, "state": "Established",
                           "prefixes_received": 7, "up_down": "2d03h", "msg_rcvd": 4021, "msg_sent": 4033,
                           "description": "spine-%02d" % s} for s in (1, 2, 3, 4)],
        "routes": [{"prefix": "10.50.%d.0/24" % su, "next_hops": list(hops), "age": "2d03h"} for su in range(1, 8)],
    }


def faulty_leaf():
    switch = healthy_leaf()
    ports = switch["ports"]
    ports[0].update(oper="down", lldp=[], rx_dbm=[-40.0] * 4)                    # rail down
    ports[1].update(speed_gbps=200, crc=98765, in_errors=98800)                # 200G, CRC
    ports[2]["rx_dbm"][1] = -12.4                                              # low RX lane
    ports[3].update(admin="down", oper="down", out_errors=3, rx_dbm=[], tx_dbm=[], optic=None, lldp=[])  # shut, no optic
    ports[4]["pfc"]["3"] = {"rx": 12000, "tx": 31}
    ports[4]["ecn_marked"]["3"] = 456789
    ports[5]["discards"]["3"] = 777
    ports[5]["discards"]["0"] = 3
    switch["bgp_neighbors"][1].update(state="Idle", prefixes_received=None, up_down="00:12:41")
    switch["bgp_neighbors"][2].update(state="Active", prefixes_received=None, up_down="00:00:07")
    switch["routes"][0]["next_hops"] = switch["routes"][0]["next_hops"][:3]
    switch["routes"][1]["next_hops"] = switch["routes"][1]["next_hops"][:1]
    return switch


def _listed(facts):
    """The facts without the parser's note that its table has no trailer (the twin's state has no such notion)."""
    return {key: value for key, value in facts.items() if key != "unverified"}


def facts(parsers, switch):
    return {command: _listed(parsers.parse(parser, formats_eos.COMMANDS[command](switch))) for command, parser in PARSERS.items()}


def expected(switch):
    ports = switch["ports"]
    with_optic = [port for port in ports if port["rx_dbm"] or port["tx_dbm"]]
    return {
        "show interfaces status": {"ports": {p["name"]: {
            "oper": p["oper"], "admin": p["admin"], "speed_gbps": p["speed_gbps"],
            "status": "disabled" if p["admin"] == "down" else "connected" if p["oper"] == "up" else "notconnect"}
            for p in ports}},
        "show interfaces counters errors": {"ports": {p["name"]: {
            "crc": p["crc"], "in_errors": p["in_errors"], "out_errors": p["out_errors"]} for p in ports}},
        "show interfaces transceiver": {"ports": {p["name"]: {"rx_dbm": p["rx_dbm"], "tx_dbm": p["tx_dbm"]} for p in with_optic}},
        "show lldp neighbors": {"neighbors": {p["name"]: p["lldp"] for p in ports if p["lldp"]}},
        # EOS prints PfxAcc beside PfxRcd (the twin: all accepted, no inbound policy denies any)
        "show ip bgp summary": {"neighbors": {n["address"]: dict({
            "remote_as": n["remote_as"], "state": n["state"], "prefixes_received": n["prefixes_received"]},
            **({"prefixes_accepted": n["prefixes_received"]} if n["state"] == "Established" else {}))
            for n in switch["bgp_neighbors"]}},
        "show ip route bgp": {"routes": {r["prefix"]: {"next_hops": [h["address"] for h in r["next_hops"]]}
                                         for r in switch["routes"]}},
        "show priority-flow-control counters": {"ports": {p["name"]: {"all": {
            "rx": sum(c["rx"] for c in p["pfc"].values()), "tx": sum(c["tx"] for c in p["pfc"].values())}} for p in ports}},
        "show qos interfaces ecn counters queue | json": {"ports": {p["name"]: p["ecn_marked"] for p in ports}},
        "show interfaces counters discards": {"ports": {p["name"]: {"all": sum(p["discards"].values())} for p in ports}},
    }


@pytest.mark.parametrize("build", [healthy_leaf, faulty_leaf])
def test_every_command_parses_back(parsers, build):
    switch = build()
    assert facts(parsers, switch) == expected(switch)


@pytest.mark.parametrize("build", [healthy_leaf, faulty_leaf])
def test_every_json_form_parses_back_to_the_text_forms_facts(parsers, build):
    switch = build()
    want = expected(switch)
    for command, parser in JSON_PARSERS.items():
        assert parsers.parse(parser, formats_eos.COMMANDS[command + " | json"](switch)) == want[command], command


@pytest.mark.parametrize("parser", sorted(JSON_PARSERS.values()))
def test_json_parsers_reject_the_error_text(parsers, parser):
    with pytest.raises(parsers.ParseError):
        parsers.parse(parser, formats_eos.error("show interfaces bogus | json")[0])


def test_faulty_leaf_shows_its_faults(parsers):
    got = facts(parsers, faulty_leaf())
    assert got["show interfaces status"]["ports"]["Ethernet1/1"]["oper"] == "down"
    assert got["show interfaces status"]["ports"]["Ethernet2/1"]["speed_gbps"] == 200
    assert got["show interfaces counters errors"]["ports"]["Ethernet2/1"]["crc"] == 98765
    assert min(got["show interfaces transceiver"]["ports"]["Ethernet3/1"]["rx_dbm"]) == -12.4
    assert "Ethernet4/1" not in got["show interfaces transceiver"]["ports"]
    assert got["show ip bgp summary"]["neighbors"]["10.200.16.0"]["state"] == "Idle"
    assert len(got["show ip route bgp"]["routes"]["10.50.1.0/24"]["next_hops"]) == 3
    assert got["show priority-flow-control counters"]["ports"]["Ethernet33/1"]["all"] == {"rx": 12000, "tx": 31}
    assert got["show qos interfaces ecn counters queue | json"]["ports"]["Ethernet33/1"]["3"] == 456789
    assert got["show interfaces counters discards"]["ports"]["Ethernet34/1"]["all"] == 780


def test_lane_rows_and_abbreviations():
    text = formats_eos.transceiver(healthy_leaf())
    assert "\nEt1/1 " in text and "\nEt1/4 " in text and "Ethernet1/1" not in text
    assert formats_eos.short_name("Ethernet33/1") == "Et33/1"


def test_snapshot_is_not_modified():
    switch = faulty_leaf()
    before = copy.deepcopy(switch)
    for render in formats_eos.COMMANDS.values():
        render(switch)
    assert switch == before


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_error_output_is_rejected(parsers, command):
    text, rc = formats_eos.error("show interfaces bogus")
    assert rc == 0 and text.startswith("% Invalid input")
    with pytest.raises(parsers.ParseError):
        parsers.parse(PARSERS[command], text)
