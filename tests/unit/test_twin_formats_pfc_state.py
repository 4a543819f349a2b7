"""The twin's PFC state (issue 11, "PFC switched off passes") read back by the product's parsers and
judged by pfc_enabled as validate.yml would: NX-OS `show interface priority-flow-control detail`
(Oper Mode), SONiC `show pfc priority`, NVUE `nv show interface <port> qos roce status` (per port).

Snapshots come from the twin's own model (switch_model.switch_state on a small mixed fabric): every
healthy port has PFC on RoCE's priority 3; the pfc_off fault turns it off on one port, and that port
alone FAILs, named with its priority. EOS reads the running-config: test_twin_formats_pfc_state_eos.py.
"""

import time

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from pyramid_twin import formats_cumulus, formats_nxos, formats_sonic, switch_model, switch_session

CATALOG = _catalog.load_catalog()
CHECK = next(check for check in CATALOG["checks"] if check["id"] == "pfc_enabled")
LEAF = {"nxos": "leaf1-r1", "sonic": "leaf1-r2", "cumulus": "leaf1-r3"}  # rail r's leaf runs leaf_os[r % 4]
FAULTY_PORT = {"nxos": "Ethernet1/2", "sonic": "Ethernet8", "cumulus": "swp2"}
PARSER = {"nxos": "cisco_nxos_show_interface_priority-flow-control_detail_state", "sonic": "sonic_show_pfc_priority",
          "cumulus": "cumulus_nv_show_interface_qos_roce_status_pfc"}


def _scenario(*switch_faults):
    return {"pod": {"nodes": 4, "gpus_per_node": 8, "rails": 8},
            "switches": {"spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                         "spine_os": ["eos", "nxos", "sonic", "cumulus"], "faults": list(switch_faults)},
            "faults": []}


def _state(platform, *faults):
    """The switch as a session sees it (counters as numbers, a minute after the render)."""
    state = switch_model.switch_state(_scenario(*faults), LEAF[platform])
    return switch_session.snapshot_now(dict(state, rendered_at=time.time() - 60))


def _off(platform):
    return {"switch": LEAF[platform], "kind": "pfc_off", "port": FAULTY_PORT[platform]}


def _facts(parsers, platform, state):
    """sw_pfc_state as the run collects it: one read, or one read per planned port on Cumulus."""
    if platform == "nxos":
        return parsers.parse(PARSER[platform], formats_nxos.COMMANDS["show interface priority-flow-control detail"](state))
    if platform == "sonic":
        return parsers.parse(PARSER[platform], formats_sonic.COMMANDS["show pfc priority"](state))
    return {port["name"]: parsers.parse(PARSER[platform], formats_cumulus.COMMANDS.get(
        "nv show interface %s qos roce status" % port["name"])(state)) for port in state["ports"]}


def _judge(parsers, platform, state):
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(_scenario()), LEAF[platform]))
    assert not errors, errors
    return _engine.judge_host(LEAF[platform], CHECK, CATALOG, {"sw_pfc_state": _facts(parsers, platform, state)}, expect)


@pytest.mark.parametrize("platform", ["sonic", "cumulus"])
def test_every_port_parses_back_to_its_lossless_priority(parsers, platform):
    state = _state(platform, _off(platform))
    facts = _facts(parsers, platform, state)
    table = facts["pfc"] if platform == "sonic" else facts
    assert table == {port["name"]: {"enabled": bool(port["pfc_priorities"]), "priorities": port["pfc_priorities"]}
                     for port in state["ports"]}
    assert table[FAULTY_PORT[platform]] == {"enabled": False, "priorities": []}


def test_nxos_oper_mode_follows_the_port(parsers):
    state = _state("nxos", _off("nxos"))
    table = _facts(parsers, "nxos", state)["pfc"]
    assert {port: value["enabled"] for port, value in table.items()} == {
        port["name"]: port["name"] != FAULTY_PORT["nxos"] for port in state["ports"]}
    assert "VL bitmap: (8)" in formats_nxos.COMMANDS["show interface priority-flow-control detail"](state)  # priority 3


@pytest.mark.parametrize("platform", ["nxos", "sonic", "cumulus"])
def test_a_healthy_leaf_has_pfc_on_every_port(parsers, platform):
    record = _judge(parsers, platform, _state(platform))
    assert record["status"] == "PASS", record


@pytest.mark.parametrize("platform, said", [
    ("nxos", "Ethernet1/2: PFC Oper Mode Off"),
    ("sonic", "Ethernet8: PFC off on priority 3 (lossless priorities: none)"),
    ("cumulus", "swp2: PFC off on priority 3 (lossless priorities: none)")])
def test_pfc_off_fails_that_port_alone_naming_its_priority(parsers, platform, said):
    record = _judge(parsers, platform, _state(platform, _off(platform)))
    assert record["status"] == "FAIL" and record["actual"] == said, record
    assert record["cause"].startswith("PFC not enabled end to end: RoCE is lossy")
    assert record["detail"]["ports"] == [FAULTY_PORT[platform]]


def test_pfc_off_leaves_the_pause_counters_at_zero():
    state = switch_model.switch_state(_scenario(_off("sonic")), LEAF["sonic"])
    port = next(p for p in state["ports"] if p["name"] == FAULTY_PORT["sonic"])
    assert all(counter["per_s"] == 0 for prio in port["pfc"].values() for counter in prio.values())  # pfc_idle cannot see it


def test_the_twins_error_output_never_parses(parsers):
    with pytest.raises(parsers.ParseError):
        parsers.parse(PARSER["sonic"], formats_sonic.error("show pfc prio")[0])
    with pytest.raises(parsers.ParseError):
        parsers.parse(PARSER["cumulus"], formats_cumulus.COMMANDS.get("nv show interface swp99 qos roce status")(_state("cumulus")))


def test_the_fault_needs_a_port_of_the_switch():
    with pytest.raises(switch_model.SwitchScenarioError, match="has no port"):
        _state("sonic", {"switch": LEAF["sonic"], "kind": "pfc_off", "port": "Ethernet999"})
