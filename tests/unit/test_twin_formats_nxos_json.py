"""The twin's NX-OS JSON (`show ip bgp summary | json`, `show ip route bgp | json`) in the layout of NX-OS 9.3's real
`| json` (tests/unit/parsers/cisco_nxos_*_json/exit01_json_real.raw), read back by the JSON parsers: the same facts as
the twin's text tables say."""

import json
import os

import pytest

from pyramid_twin import formats_nxos

from test_twin_formats_nxos import _faulty, _healthy  # pylint: disable=import-error  # rootdir-relative, as pytest runs it

PARSERS = os.path.join(os.path.dirname(__file__), "parsers")
SUMMARY, ROUTES = "show ip bgp summary | json", "show ip route bgp | json"


def _real(parser, case="exit01_json_real"):
    with open(os.path.join(PARSERS, parser, case + ".raw"), encoding="utf-8") as handle:
        return json.load(handle)


def _first(rows):
    return rows[0] if isinstance(rows, list) else rows


def test_the_summary_has_the_real_switchs_keys():
    real, twin = _real("cisco_nxos_show_ip_bgp_summary_json"), json.loads(formats_nxos.COMMANDS[SUMMARY](_healthy()))
    real_vrf, twin_vrf = _first(real["TABLE_vrf"]["ROW_vrf"]), _first(twin["TABLE_vrf"]["ROW_vrf"])
    real_saf = _first(_first(real_vrf["TABLE_af"]["ROW_af"])["TABLE_saf"]["ROW_saf"])
    twin_saf = _first(_first(twin_vrf["TABLE_af"]["ROW_af"])["TABLE_saf"]["ROW_saf"])
    assert set(twin_saf) <= set(real_saf) and {"configuredpeers", "TABLE_neighbor"} <= set(twin_saf)
    real_neighbor, twin_neighbor = (_first(saf["TABLE_neighbor"]["ROW_neighbor"]) for saf in (real_saf, twin_saf))
    assert set(twin_neighbor) == set(real_neighbor)
    assert all(isinstance(value, str) for value in twin_neighbor.values())  # `| json` prints every value as a string


def test_the_routes_have_the_real_switchs_keys():
    real = _real("cisco_nxos_show_ip_route_bgp_json", "exit01_json_native_real")
    twin = json.loads(formats_nxos.COMMANDS[ROUTES](_healthy()))
    real_prefix = _first(_first(_first(real["TABLE_vrf"]["ROW_vrf"])["TABLE_addrf"]["ROW_addrf"])["TABLE_prefix"]["ROW_prefix"])
    twin_prefix = _first(_first(twin["TABLE_vrf"]["ROW_vrf"])["TABLE_addrf"]["ROW_addrf"]["TABLE_prefix"]["ROW_prefix"])
    assert set(twin_prefix) == set(real_prefix)
    real_path, twin_path = (_first(prefix["TABLE_path"]["ROW_path"]) for prefix in (real_prefix, twin_prefix))
    assert set(twin_path) <= set(real_path) and {"ipnexthop", "ubest", "clientname"} <= set(twin_path)


@pytest.mark.parametrize("make", [_healthy, _faulty], ids=["healthy", "faulty"])
def test_json_and_text_agree(parsers, make):
    switch = make()
    text_bgp = parsers.parse("cisco_nxos_show_ip_bgp_summary", formats_nxos.COMMANDS["show ip bgp summary"](switch))
    text_bgp.pop("unverified")  # the text table has no trailer; the JSON counts its peers
    assert parsers.parse("cisco_nxos_show_ip_bgp_summary_json", formats_nxos.COMMANDS[SUMMARY](switch)) == text_bgp
    text_routes = parsers.parse("cisco_nxos_show_ip_route_bgp", formats_nxos.COMMANDS["show ip route bgp"](switch))
    for key in ("unverified", "next_hops_counted"):
        text_routes.pop(key)
    assert parsers.parse("cisco_nxos_show_ip_route_bgp_json", formats_nxos.COMMANDS[ROUTES](switch)) == text_routes


def test_one_neighbor_and_one_route_print_as_entries_and_none_as_nothing(parsers):
    one = dict(_healthy())
    one["bgp_neighbors"], one["routes"] = one["bgp_neighbors"][:1], one["routes"][1:]
    assert isinstance(json.loads(formats_nxos.COMMANDS[SUMMARY](one))["TABLE_vrf"]["ROW_vrf"]["TABLE_af"]["ROW_af"]
                      ["TABLE_saf"]["ROW_saf"]["TABLE_neighbor"]["ROW_neighbor"], dict)
    assert list(parsers.parse("cisco_nxos_show_ip_bgp_summary_json", formats_nxos.COMMANDS[SUMMARY](one))["neighbors"]) == ["10.0.1.1"]
    assert parsers.parse("cisco_nxos_show_ip_route_bgp_json", formats_nxos.COMMANDS[ROUTES](one)) == {
        "routes": {"10.255.0.2/32": {"next_hops": ["10.0.1.1"]}}}
    empty = dict(_healthy(), bgp_neighbors=[], routes=[])
    assert parsers.parse("cisco_nxos_show_ip_route_bgp_json", formats_nxos.COMMANDS[ROUTES](empty)) == {"routes": {}}
    with pytest.raises(parsers.ParseError, match="0 neighbors listed, 0 in configuredpeers|configuredpeers"):
        parsers.parse("cisco_nxos_show_ip_bgp_summary_json", formats_nxos.COMMANDS[SUMMARY](empty).replace('"0"', '"1"', 1))


@pytest.mark.parametrize("command", [SUMMARY, ROUTES])
def test_the_switchs_refusal_is_no_data(parsers, command):
    text, _rc = formats_nxos.error(command + " bogus")
    with pytest.raises(parsers.ParseError):
        parsers.parse("cisco_nxos_show_ip_bgp_summary_json" if "bgp summary" in command else "cisco_nxos_show_ip_route_bgp_json", text)
