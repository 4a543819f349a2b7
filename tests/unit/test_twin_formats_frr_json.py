"""The twin's FRR JSON (`vtysh -c 'show bgp ipv4 unicast summary json'`, `vtysh -c 'show ip route bgp json'`) in the
layout of a real FRR 8.4.4 (the lab's captures, tests/unit/parsers/frr_*_json/lab_*_real.raw), read back by the JSON
parsers: the same facts as the twin's text tables say."""

import json
import os

import pytest

from pyramid_twin import formats_cumulus, formats_frr, formats_sonic

from test_twin_formats_cumulus import FAULTY, HEALTHY  # pylint: disable=import-error  # rootdir-relative, as pytest runs it

PARSERS = os.path.join(os.path.dirname(__file__), "parsers")
SUMMARY, ROUTES = "vtysh -c show bgp ipv4 unicast summary json", "vtysh -c show ip route bgp json"


def _real(parser, case="lab_healthy_leaf1_real"):
    with open(os.path.join(PARSERS, parser, case + ".raw"), encoding="utf-8") as handle:
        return json.load(handle)


def test_the_summary_has_the_real_routers_keys():
    real, twin = _real("frr_show_bgp_summary_json"), json.loads(formats_frr.show_bgp_summary_json(HEALTHY))
    assert set(twin) == set(real)
    assert set(next(iter(twin["peers"].values()))) == set(next(iter(real["peers"].values())))


def test_the_routes_have_the_real_routers_keys():
    real, twin = _real("frr_show_ip_route_json"), json.loads(formats_frr.show_ip_route_json(HEALTHY))
    real_route, twin_route = next(iter(real.values()))[0], next(iter(twin.values()))[0]
    assert set(twin_route) == set(real_route)
    assert set(twin_route["nexthops"][0]) == set(real_route["nexthops"][0])


@pytest.mark.parametrize("switch", [HEALTHY, FAULTY], ids=["healthy", "faulty"])
def test_json_and_text_agree(parsers, switch):
    text_bgp = parsers.parse("frr_show_ip_bgp_summary", formats_frr.show_ip_bgp_summary(switch))
    assert parsers.parse("frr_show_bgp_summary_json", formats_frr.show_bgp_summary_json(switch)) == text_bgp
    text_routes = parsers.parse("frr_show_ip_route", formats_frr.show_ip_route(switch))
    text_routes.pop("unverified", None)  # the text table cannot prove itself whole; the JSON can
    assert parsers.parse("frr_show_ip_route_json", formats_frr.show_ip_route_json(switch)) == text_routes


def test_no_neighbor_and_no_route(parsers):
    empty = dict(HEALTHY, bgp_neighbors=[], routes=[])
    assert parsers.parse("frr_show_bgp_summary_json", formats_frr.show_bgp_summary_json(empty)) == {"neighbors": {}}
    assert parsers.parse("frr_show_ip_route_json", formats_frr.show_ip_route_json(empty)) == {"routes": {}}


def test_sonic_and_cumulus_answer_both(parsers):
    for formats in (formats_cumulus, formats_sonic):
        for command in (SUMMARY, ROUTES):
            assert formats.COMMANDS.get(command) is not None, (formats.__name__, command)
