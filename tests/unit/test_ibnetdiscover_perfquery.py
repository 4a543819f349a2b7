"""linux_ibnetdiscover read as linux_iblinkinfo's facts (ib_link_info's second way), and linux_perfquery's counters,
against the real captures under tests/unit/parsers (issue 67)."""

import os

FIXTURES = os.path.join(os.path.dirname(__file__), "parsers")


def _raw(parser, case):
    with open(os.path.join(FIXTURES, parser, case + ".raw"), encoding="utf-8", newline="") as handle:
        return handle.read()


def _linked(facts):
    """Each linked port's far end, width and speed: what both tools show of a subnet (iblinkinfo also its down ports,
    its state and its "Could be" hint)."""
    ends = {}
    for guid, switch in facts["switches"].items():
        for number, port in switch["ports"].items():
            if port.get("remote"):
                ends[(guid, number)] = (port["lid"], port["width"], port["speed_gbps"], port["remote"])
    for guid, port in facts["ca_ports"].items():
        ends[(guid, str(port["port"]))] = (port["lid"], port["width"], port["speed_gbps"], port["remote"], port["name"])
    return ends


def test_ibnetdiscover_gives_iblinkinfos_facts_of_the_same_subnet(parsers):
    """The same ibsim subnet (factory descriptions; with and without a node-name map) read by both tools: the same
    switches by GUID with the same names and LIDs, the same links, far ends and CA ports."""
    for case in ("ibsim_factory_descriptions", "ibsim_factory_descriptions_node_name_map"):
        discovered = parsers.parse("linux_ibnetdiscover", _raw("linux_ibnetdiscover", case))
        linked = parsers.parse("linux_iblinkinfo", _raw("linux_iblinkinfo", case))
        assert discovered["reader"] == "ibnetdiscover"
        assert {guid: (switch["name"], switch["description"], switch["lid"]) for guid, switch in discovered["switches"].items()} \
            == {guid: (switch["name"], switch["description"], switch["lid"]) for guid, switch in linked["switches"].items()}
        assert _linked(discovered) == _linked(linked)
        assert {port["state"] for port in discovered["ca_ports"].values()} == {None}  # never said Active


def test_a_real_ndr_fabric_is_read_whole(parsers):
    """NVIDIA topograph's real capture: 40 Quantum-2 switches, 582 CA ports, each link seen from both ends, at 4X NDR."""
    facts = parsers.parse("linux_ibnetdiscover", _raw("linux_ibnetdiscover", "ndr_fabric_40_switches_real"))
    assert (len(facts["switches"]), len(facts["ca_ports"])) == (40, 582)
    leaf = facts["switches"]["0x2c5eab0300b87b40"]
    assert (leaf["name"], leaf["lid"]) == ("MF0;A09-P1-IBLEAF-04-04:MQM9701/U1", 73)
    assert leaf["ports"]["35"]["remote"] == {"lid": 236, "port": 32, "name": "MF0;A10-P1-IBSPINE-02:MQM9701/U1",
                                             "guid": "0x2c5eab0300c26280"}
    assert (leaf["ports"]["35"]["width"], leaf["ports"]["35"]["speed_gbps"]) == ("4X", 106.25)
    ca = facts["ca_ports"]["0xe09d7303007a4bd8"]
    assert (ca["name"], ca["lid"], ca["remote"]["guid"], ca["remote"]["port"]) == ("a08-p1-dgx-04-c01 mlx5_5", 647, "0x2c5eab0300b87b40", 1)


def test_perfquery_plain_and_extended_counters(parsers):
    """The plain form's counts (a 16-bit SymbolErrorCounter at its maximum, as set on ibsim) are PortCounters' widths;
    -x's are 64-bit where the port has the additional counters, and unsupported, never zero, where it has not."""
    plain = parsers.parse("linux_perfquery", _raw("linux_perfquery", "ibsim_hca_port_counters"))["ports"]["17:1"]
    assert (plain["extended"], plain["counters"]["SymbolErrorCounter"], plain["counters"]["PortXmitWait"]) == (False, 65535, 1234)
    assert plain["widths"] == {} and plain["unsupported"] == []
    real = parsers.parse("linux_perfquery", _raw("linux_perfquery", "rhel75_extended_with_error_counters_real"))["ports"]["10:1"]
    assert real["extended"] and real["cap_mask2"] == 2 and real["unsupported"] == []
    assert real["widths"]["SymbolErrorCounter"] == 64 and real["counters"]["LinkDownedCounter"] == 0
    ibsim = parsers.parse("linux_perfquery", _raw("linux_perfquery", "ibsim_hca_extended_without_error_counters"))["ports"]["17:1"]
    assert "SymbolErrorCounter" in ibsim["unsupported"] and "SymbolErrorCounter" not in ibsim["counters"]
    assert ibsim["counters"]["PortXmitData"] == 86688
