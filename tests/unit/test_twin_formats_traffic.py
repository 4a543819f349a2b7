"""The twin's per-port traffic counters on the four platforms, read back by the product's sw_port_traffic parsers."""

import copy

import pytest

from pyramid_twin import formats_cumulus, formats_eos, formats_nxos, formats_sonic

from test_twin_formats_cumulus import HEALTHY

# The command each platform's way of sw_port_traffic runs (catalog/switch.yml), its parser, and the port names
PLATFORMS = {
    "eos": (formats_eos.COMMANDS, "show interfaces | json", "arista_eos_show_interfaces_traffic_json",
            ["Ethernet1/1", "Ethernet1/2", "Ethernet49/1"]),
    "nxos": (formats_nxos.COMMANDS, "show interface counters", "cisco_nxos_show_interface_counters",
             ["Ethernet1/1", "Ethernet1/2", "Ethernet1/49"]),
    "sonic": (formats_sonic.COMMANDS, "show interfaces counters", "sonic_show_interfaces_counters_traffic",
              ["Ethernet0", "Ethernet8", "Ethernet256"]),
}
# SONiC's portstat prints packets only
FACTS = {"eos": ("in_octets", "out_octets", "in_packets", "out_packets"), "sonic": ("in_packets", "out_packets")}
FACTS["nxos"] = FACTS["eos"]


def _switch(names, load=0):
    """A switch whose ports carry distinct counters; `load` more octets (and packets of 4,096 bytes) on each."""
    switch = copy.deepcopy(HEALTHY)
    switch["ports"] = []
    for index, name in enumerate(names):
        port = copy.deepcopy(HEALTHY["ports"][0])
        port.update(name=name, in_octets=50000000000 + 1000 * index + load, out_octets=60000000000 + 1000 * index + 2 * load,
                    in_packets=7000000 + index + load // 4096, out_packets=8000000 + index + 2 * load // 4096)
        switch["ports"].append(port)
    return switch


def _expected(switch, facts):
    return {port["name"]: {fact: port[fact] for fact in facts} for port in switch["ports"]}


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_each_port_reads_back_the_counters_the_twin_holds(parsers, platform):
    table, command, parser, names = PLATFORMS[platform]
    switch = _switch(names)
    assert parsers.parse(parser, table.get(command)(switch))["ports"] == _expected(switch, FACTS[platform])


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_a_load_between_two_reads_shows_as_the_increase(parsers, platform):
    table, command, parser, names = PLATFORMS[platform]
    load = 4096 * 1000000
    before = parsers.parse(parser, table.get(command)(_switch(names)))["ports"]
    after = parsers.parse(parser, table.get(command)(_switch(names, load)))["ports"]
    want = {"in_octets": load, "out_octets": 2 * load, "in_packets": 1000000, "out_packets": 2000000}
    for name in names:
        assert {fact: after[name][fact] - before[name][fact] for fact in FACTS[platform]} == {
            fact: want[fact] for fact in FACTS[platform]}


def test_eos_show_interfaces_json_still_answers_the_mtu_read(parsers):
    """The counters are added to the document the MTU source reads too: that read is unchanged."""
    switch = _switch(PLATFORMS["eos"][3])
    text = formats_eos.COMMANDS.get("show interfaces | json")(switch)
    assert parsers.parse("arista_eos_show_interfaces_mtu_json", text) == {"mtu": {name: formats_eos.DEFAULT_MTU for name in PLATFORMS["eos"][3]}}


def test_a_model_port_without_octets_yet_reads_zero_octets_not_an_error(parsers):
    """Until the switch model carries in_octets/out_octets, the renderers print 0 for them (packets as they are)."""
    switch = _switch(["Ethernet1/1"])
    for port in switch["ports"]:
        del port["in_octets"], port["out_octets"]
    facts = parsers.parse("cisco_nxos_show_interface_counters", formats_nxos.COMMANDS.get("show interface counters")(switch))
    assert facts["ports"]["Ethernet1/1"] == {"in_octets": 0, "out_octets": 0, "in_packets": 7000000, "out_packets": 8000000}


def test_cumulus_reads_one_port_per_command(parsers):
    switch = _switch(["swp1", "swp49"], load=4096)
    for port in switch["ports"]:
        text = formats_cumulus.COMMANDS.get("nv show interface %s counters" % port["name"])(switch)
        assert parsers.parse("cumulus_nv_show_interface_counters", text) == {
            fact: port[fact] for fact in ("in_octets", "out_octets", "in_packets", "out_packets")}


def test_cumulus_port_the_switch_lacks_is_an_error_not_zero(parsers):
    text = formats_cumulus.COMMANDS.get("nv show interface swp99 counters")(_switch(["swp1"]))
    assert text == formats_cumulus.NO_ITEM
    with pytest.raises(parsers.ParseError, match="no 'Detailed Counters' section"):
        parsers.parse("cumulus_nv_show_interface_counters", text)


def test_existing_per_port_cumulus_views_still_answer():
    """The new `counters` view sits beside `counters errors` and `counters qos`, which keep their own renderers."""
    switch = _switch(["swp1"])
    assert formats_cumulus.COMMANDS.get("nv show interface swp1 counters errors")(switch).startswith("Counter ")
    assert "Detailed Counters" in formats_cumulus.COMMANDS.get("nv show interface swp1 counters")(switch)
