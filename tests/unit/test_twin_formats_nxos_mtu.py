"""The twin's NX-OS `show interface <port>` (host and switch agree, issue 14) read back by cisco_nxos_show_interface_mtu:
a healthy RoCE leaf's ports at 9216, the mtu_small fault on one port alone (port_mtu FAILs it, naming the node behind
it), and the damaged answers the parser must refuse (an unknown port, a report cut at any line after its head)."""

import time

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from pyramid_twin import formats_nxos, switch_model, switch_session

CATALOG = _catalog.load_catalog()
PORT_MTU = next(check for check in CATALOG["checks"] if check["id"] == "port_mtu")
LEAF, PORT = "leaf1-r1", "Ethernet1/2"  # rail 1's leaf runs leaf_os[1]: nxos; node-002's port


def _scenario(switch_faults=()):
    return {"pod": {"nodes": 4, "gpus_per_node": 8, "rails": 8},
            "switches": {"spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                         "spine_os": ["eos"], "faults": list(switch_faults)}, "faults": []}


def _state(scenario):
    return switch_session.snapshot_now(dict(switch_model.switch_state(scenario, LEAF), rendered_at=time.time() - 60))


def _per_port(parsers, state):
    """sw_port_mtu as the catalog's nxos way collects it: {planned port: that port's facts}."""
    return {port["name"]: parsers.parse("cisco_nxos_show_interface_mtu", formats_nxos.COMMANDS["show interface %s" % port["name"]](state))
            for port in state["ports"]}


def test_the_catalog_reads_nxos_mtu_per_port():
    way = next(way for way in CATALOG["sources"]["sw_port_mtu"]["ways"] if way["platform"] == "nxos")
    assert way["cli"] == "show interface {item}" and way["foreach"] == "pyramid_switch_ports.port"
    assert "nxos" in PORT_MTU["platforms"]


@pytest.mark.parametrize("typed", ["Ethernet1/2", "ethernet1/2", "Eth1/2", "e1/2"])
def test_each_port_answers_for_itself(parsers, typed):
    facts = parsers.parse("cisco_nxos_show_interface_mtu", formats_nxos.COMMANDS["show interface %s" % typed](_state(_scenario())))
    assert facts == {"mtu": {PORT: formats_nxos.ROCE_MTU}}


def test_mtu_small_fails_port_mtu_on_that_port_alone(parsers):
    scenario = _scenario([{"switch": LEAF, "kind": "mtu_small", "port": PORT, "mtu": 1500}])
    facts = {"sw_port_mtu": _per_port(parsers, _state(scenario))}
    assert {name: value["mtu"][name] for name, value in facts["sw_port_mtu"].items()} == {
        "Ethernet1/1": 9216, "Ethernet1/2": 1500, "Ethernet1/3": 9216, "Ethernet1/4": 9216, "Ethernet1/5": 9216, "Ethernet1/6": 9216}
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(scenario), LEAF))
    assert not errors, errors
    record = _engine.judge_host(LEAF, PORT_MTU, CATALOG, facts, expect)
    assert record["status"] == "FAIL" and record["actual"] == "Ethernet1/2 MTU 1500 < 9000 (node-002 ens2np0)", record
    assert record["detail"]["ports"] == [PORT]


def test_a_port_the_switch_lacks_is_an_error(parsers):
    text = formats_nxos.COMMANDS["show interface Ethernet9/9"](_state(_scenario()))
    with pytest.raises(parsers.ParseError):
        parsers.parse("cisco_nxos_show_interface_mtu", text)


def test_other_words_are_not_a_port():
    assert formats_nxos.COMMANDS.get("show interface bogus") is None
    assert formats_nxos.COMMANDS["show interface status"] is formats_nxos.show_interface_status


def test_a_report_cut_at_any_line_is_refused(parsers):
    """Cut after the head line and before its Tx pause line, at a line end: never an MTU read off a partial report."""
    lines = formats_nxos.COMMANDS["show interface %s" % PORT](_state(_scenario())).splitlines()
    last = max(i for i, line in enumerate(lines) if line.strip().endswith("Tx pause"))
    for cut in range(1, last + 1):
        with pytest.raises(parsers.ParseError):
            parsers.parse("cisco_nxos_show_interface_mtu", "\n".join(lines[:cut]) + "\n")


def test_a_healthy_node_agrees_with_its_nxos_leaf_on_mtu(parsers):
    """roce_host_switch_agree over a twin node and its NX-OS leaf as judge_pod gets them: the MTU compared, the PFC
    priority (NX-OS shows only the Oper Mode) and the DSCP map said not compared, never passed."""
    from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.roce_agree import cabled_ports
    from ansible_collections.gpufabric.pyramid.tests.unit.test_twin_formats_roce_agree import _node_facts

    scenario = _scenario()
    state = _state(scenario)
    pfc = parsers.parse("cisco_nxos_show_interface_priority-flow-control_detail_state",
                        formats_nxos.COMMANDS["show interface priority-flow-control detail"](state))
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(scenario), LEAF))
    assert not errors, errors
    docs = [{"host": LEAF, "expect": expect, "facts": {"layer3": {"sw_port_mtu": _per_port(parsers, state), "sw_pfc_state": pfc}}}]
    node = dict(_node_facts(parsers, scenario, "node-002"), cabled_switch_ports=cabled_ports("node-002", docs))
    node_expect, errors = _expectations.resolve(CATALOG, {})
    assert not errors
    agree = next(check for check in CATALOG["checks"] if check["id"] == "roce_host_switch_agree")
    record = _engine.judge_pod(agree, CATALOG, {"node-002": node}, {"node-002": node_expect})["node-002"]
    assert record["status"] == "PASS", record
    assert record["actual"].startswith("1 rail agree with their leaf ports: mlx5_1 MTU 9000 <= leaf1-r1 Ethernet1/2 9216"), record
    assert "leaf1-r1 Ethernet1/2: PFC on, priority not shown by nxos" in record["actual"], record
