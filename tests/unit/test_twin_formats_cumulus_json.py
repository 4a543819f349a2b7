"""The twin's `nv show interface -o json` (issue 11), read back by the JSON parsers: the same facts as its text table."""

import copy
import json

import pytest

from pyramid_twin import formats_cumulus

from test_twin_formats_cumulus import FAULTY, HEALTHY  # pylint: disable=import-error  # rootdir-relative, as pytest runs it

COMMAND = "nv show interface -o json"


def _small_mtu():
    switch = copy.deepcopy(HEALTHY)
    switch["ports"][1]["mtu"] = 1500  # the twin's mtu_small fault
    return switch


SWITCHES = [HEALTHY, FAULTY, _small_mtu()]
IDS = ["healthy", "faulty", "mtu_small"]


def _facts(parsers, name, switch, command):
    return parsers.parse(name, formats_cumulus.COMMANDS.get(command)(switch))


@pytest.mark.parametrize("switch", SWITCHES, ids=IDS)
def test_json_and_text_agree(parsers, switch):
    """Every fault the text table shows (link down, speed, LLDP neighbor, MTU) reads the same from the JSON."""
    text_ports = _facts(parsers, "cumulus_nv_show_interface", switch, "nv show interface")["ports"]
    assert _facts(parsers, "cumulus_nv_show_interface_json", switch, COMMAND) == {"ports": text_ports}
    assert (_facts(parsers, "cumulus_nv_show_interface_mtu_json", switch, COMMAND)
            == _facts(parsers, "cumulus_nv_show_interface_mtu", switch, "nv show interface"))
    # the table shows a port's first neighbor only; the JSON all of them
    lldp = _facts(parsers, "cumulus_nv_show_interface_lldp_json", switch, COMMAND)
    assert lldp == {"neighbors": {p["name"]: p["lldp"] for p in switch["ports"]}}  # a silent port: []


def test_faults_come_through(parsers):
    ports = _facts(parsers, "cumulus_nv_show_interface_json", FAULTY, COMMAND)["ports"]
    assert ports["swp1"] == {"oper": "down", "admin": None, "speed_gbps": None, "status": "down"}
    assert ports["swp2"]["speed_gbps"] == 200
    lldp = _facts(parsers, "cumulus_nv_show_interface_lldp_json", FAULTY, COMMAND)["neighbors"]
    assert lldp["swp1"] == [] and lldp["swp10"] == [{"system": "node-010", "port": "ens1np0"}]
    assert _facts(parsers, "cumulus_nv_show_interface_mtu_json", _small_mtu(), COMMAND)["mtu"]["swp2"] == 1500


def test_two_neighbors_of_one_name_are_both_listed(parsers):
    switch = copy.deepcopy(HEALTHY)
    switch["ports"][0]["lldp"] = [{"system": "node-001", "port": "ens1np0"}, {"system": "node-001", "port": "ens2np0"}]
    document = json.loads(formats_cumulus.COMMANDS.get(COMMAND)(switch))
    assert len(document["swp1"]["lldp"]["neighbor"]) == 2
    lldp = _facts(parsers, "cumulus_nv_show_interface_lldp_json", switch, COMMAND)["neighbors"]
    assert lldp["swp1"] == switch["ports"][0]["lldp"]


@pytest.mark.parametrize("parser", ["cumulus_nv_show_interface_json", "cumulus_nv_show_interface_lldp_json",
                                    "cumulus_nv_show_interface_mtu_json"])
def test_error_text_is_rejected(parsers, parser):
    text, rc = formats_cumulus.error("nv show interface -o jsn")
    assert rc != 0
    with pytest.raises(parsers.ParseError):
        parsers.parse(parser, text)
