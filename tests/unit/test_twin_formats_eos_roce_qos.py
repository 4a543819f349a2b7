"""The twin's EOS side of roce_port_qos (issue 14): its host ports' running-config stanzas (`qos trust dscp`, the RoCE
tx-queue's `random-detect ecn` line) and its `show running-config section qos` maps, read back by the product's parsers
and judged through the engine: a healthy EOS leaf passes; the switch fault ecn_off leaves that port's ECN unproven (its
stanza has no closing line, so a missing tx-queue block cannot be told from a read cut short: an ERROR naming the port,
never a PASS); PFC's read of the same stanzas is unchanged."""

import time

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from pyramid_twin import formats_eos, switch_model, switch_session

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}
LEAF = "leaf1-r0"  # rail 0's leaf runs leaf_os[0]: EOS


def _scenario(switch_faults=()):
    return {"pod": {"nodes": 4, "gpus_per_node": 8, "rails": 8},
            "switches": {"spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                         "spine_os": ["eos"], "faults": list(switch_faults)}, "faults": []}


def _judge(parsers, scenario, check):
    state = switch_session.snapshot_now(dict(switch_model.switch_state(scenario, LEAF), rendered_at=time.time() - 60))
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(scenario), LEAF))
    assert not errors, errors
    stanzas = {entry["port"]: formats_eos.COMMANDS.get("show running-config interfaces %s" % entry["port"])(state)
               for entry in expect["pyramid_switch_ports"]}
    facts = {"sw_roce_map": {port: parsers.parse("arista_eos_show_running-config_interfaces_qos", text) for port, text in stanzas.items()},
             "sw_pfc_state": {port: parsers.parse("arista_eos_show_running-config_interfaces_pfc", text) for port, text in stanzas.items()},
             "sw_qos_config": parsers.parse("arista_eos_show_running-config_section_qos",
                                            formats_eos.COMMANDS.get("show running-config section qos")(state))}
    return _engine.judge_host(LEAF, CHECKS[check], CATALOG, facts, expect)


def test_a_healthy_eos_leaf_passes_roce_port_qos(parsers):
    record = _judge(parsers, _scenario(), "roce_port_qos")
    assert record["status"] == "PASS", record
    assert record["actual"] == ("4 host ports: trust dscp, DSCP 26 -> priority 3, ECN on traffic class 3 "
                                "(configured: the running-config, not the operational state)"), record


def test_the_qos_lines_leave_pfc_enabled_as_it_was(parsers):
    assert _judge(parsers, _scenario(), "pfc_enabled")["status"] == "PASS"


def test_ecn_off_leaves_that_port_unproven(parsers):
    record = _judge(parsers, _scenario([{"switch": LEAF, "kind": "ecn_off", "port": "Ethernet2/1"}]), "roce_port_qos")
    assert record["status"] == "ERROR", record
    assert "Ethernet2/1: no random-detect ecn on tx-queue 3 in the stanza as read" in record["actual"], record
    assert "Ethernet1/1" not in record["actual"], record
    assert record["detail"] == {"ports": ["Ethernet2/1"], "device": False}  # the nodes behind other ports go on


def test_ecn_min_th_high_still_configures_ecn(parsers):
    scenario = _scenario([{"switch": LEAF, "kind": "ecn_min_th_high", "port": "Ethernet2/1"}])
    state = switch_session.snapshot_now(dict(switch_model.switch_state(scenario, LEAF), rendered_at=time.time() - 60))
    stanza = formats_eos.COMMANDS.get("show running-config interfaces Ethernet2/1")(state)
    assert "      random-detect ecn minimum-threshold 12 mbytes maximum-threshold 12 mbytes max-mark-probability 100" in stanza
    assert _judge(parsers, scenario, "roce_port_qos")["status"] == "PASS"  # the threshold is the incast's finding


NXOS_LEAF = "leaf1-r1"  # rail 1's leaf runs leaf_os[1]: NX-OS


def _judge_nxos(parsers, scenario):
    from pyramid_twin import formats_nxos  # pylint: disable=import-outside-toplevel
    state = switch_session.snapshot_now(dict(switch_model.switch_state(scenario, NXOS_LEAF), rendered_at=time.time() - 60))
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(scenario), NXOS_LEAF))
    assert not errors, errors
    config = parsers.parse("cisco_nxos_show_running-config_ipqos", formats_nxos.COMMANDS.get("show running-config ipqos")(state))
    return _engine.judge_host(NXOS_LEAF, CHECKS["roce_port_qos"], CATALOG, {"sw_roce_map": config, "sw_qos_config": config}, expect)


def test_a_healthy_nxos_leaf_passes_roce_port_qos(parsers):
    record = _judge_nxos(parsers, _scenario())
    assert record["status"] == "PASS", record
    assert record["actual"] == ("4 host ports: trust dscp, DSCP 26 -> priority 3, ECN on traffic class 3 "
                                "(configured: the running-config, not the operational state)"), record


def test_ecn_off_on_nxos_fails_that_port(parsers):
    record = _judge_nxos(parsers, _scenario([{"switch": NXOS_LEAF, "kind": "ecn_off", "port": "Ethernet1/2"}]))
    assert record["status"] == "FAIL", record
    assert record["actual"] == ("Ethernet1/2 (node-002 ens2np0): no random-detect ... ecn in queuing class c-out-8q-q3 of "
                                "QOS_EGRESS_NO_ECN (ECN on qos-group none)"), record
    assert record["detail"]["ports"] == ["Ethernet1/2"]
