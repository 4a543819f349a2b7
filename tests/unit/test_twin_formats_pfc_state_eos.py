"""The twin's EOS PFC configuration (issue 11 on EOS) read back by the product's parser and judged by
pfc_enabled as validate.yml would: `show running-config interfaces <port>` once per planned port, each answer
one AVD-style stanza (description, mtu 9214, priority-flow-control on, priority 3 no-drop, spanning-tree portfast:
a line after the PFC lines, so that none of them can have been cut off).

The pfc_off fault renders `no priority-flow-control`, the lossless_priority fault another no-drop priority;
either port alone FAILs, in words that say it is the configuration (running-config), not the operational
state. A port the switch lacks answers nothing, a name EOS does not take `% Invalid input`: errors of the read.
"""

import time

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from pyramid_twin import formats_eos, switch_model, switch_session

CATALOG = _catalog.load_catalog()
CHECK = next(check for check in CATALOG["checks"] if check["id"] == "pfc_enabled")
LEAF = "leaf1-r0"  # rail r's leaf runs leaf_os[r % 4]: rail 0's is EOS
FAULTY_PORT = "Ethernet2/1"
PARSER = "arista_eos_show_running-config_interfaces_pfc"
COMMAND = "show running-config interfaces %s"


def _scenario(*switch_faults):
    return {"pod": {"nodes": 4, "gpus_per_node": 8, "rails": 8},
            "switches": {"spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                         "spine_os": ["eos", "nxos", "sonic", "cumulus"], "faults": list(switch_faults)},
            "faults": []}


def _state(*faults):
    """The switch as a session sees it (counters as numbers, a minute after the render)."""
    state = switch_model.switch_state(_scenario(*faults), LEAF)
    return switch_session.snapshot_now(dict(state, rendered_at=time.time() - 60))


def _answer(state, port):
    return formats_eos.COMMANDS.get(COMMAND % port)(state)


def _facts(parsers, state):
    """sw_pfc_state as the run collects it: one stanza per planned port."""
    return {port["name"]: parsers.parse(PARSER, _answer(state, port["name"])) for port in state["ports"]}


def _judge(parsers, state):
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(_scenario()), LEAF))
    assert not errors, errors
    assert expect["pyramid_switch_os"] == "eos"
    return _engine.judge_host(LEAF, CHECK, CATALOG, {"sw_pfc_state": _facts(parsers, state)}, expect)


def test_pfc_enabled_applies_on_eos():
    assert _catalog.not_applicable(CHECK, {"pyramid_switch_os": "eos"}) is None


def test_every_stanza_parses_back_to_its_port_and_lossless_priority(parsers):
    state = _state({"switch": LEAF, "kind": "pfc_off", "port": FAULTY_PORT},
                   {"switch": LEAF, "kind": "lossless_priority", "port": "Ethernet3/1", "priority": 4})
    for port in state["ports"]:
        facts = parsers.parse(PARSER, _answer(state, port["name"]))
        read = facts["pfc"][port["name"]]
        assert (read["enabled"], read["priorities"], read["source"]) == (bool(port["pfc_priorities"]), port["pfc_priorities"], "running-config")
        assert facts["unverified"]  # a stanza has no trailer
    assert _facts(parsers, state)[FAULTY_PORT]["pfc"][FAULTY_PORT]["lines"] == ["no priority-flow-control"]


def test_the_stanza_is_avd_style():
    text = _answer(_state(), "Ethernet1/1")
    assert text.splitlines() == ["interface Ethernet1/1", "   description node-001 ens1np0", "   mtu 9214", "   qos trust dscp",
                                 "   priority-flow-control on", "   priority-flow-control priority 3 no-drop",
                                 "   spanning-tree portfast", "   !", "   tx-queue 3",
                                 "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100"]
    assert _answer(_state(), "Et1/1") == text  # EOS's short name asks for the same port


def test_a_healthy_eos_leaf_has_pfc_configured_on_every_port(parsers):
    record = _judge(parsers, _state())
    assert record["status"] == "PASS", record
    assert "PFC configured on priority 3 in the running-config" in record["actual"]
    assert "configured" in record["expected"] and "running-config" in record["expected"]


@pytest.mark.parametrize("fault, said", [
    ({"kind": "pfc_off"}, "Ethernet2/1: PFC off in the running-config ('no priority-flow-control')"),
    ({"kind": "lossless_priority", "priority": 4},
     "Ethernet2/1: priority 3 not configured no-drop in the running-config (no-drop priorities: 4)")])
def test_a_fault_fails_that_port_alone_saying_running_config(parsers, fault, said):
    record = _judge(parsers, _state(dict(fault, switch=LEAF, port=FAULTY_PORT)))
    assert record["status"] == "FAIL" and record["actual"] == said, record
    assert record["cause"].startswith("PFC not enabled end to end: RoCE is lossy")
    assert record["detail"]["ports"] == [FAULTY_PORT]


@pytest.mark.parametrize("port", ["Ethernet99/1", "foo"])
def test_a_port_the_switch_lacks_never_parses(parsers, port):
    with pytest.raises(parsers.ParseError):
        parsers.parse(PARSER, _answer(_state(), port))
