"""The twin's EOS leaf in "host and switch agree" (issue 14): `show interfaces | json` read back by the product's
parser (arista_eos_show_interfaces_mtu_json), every host port at EOS's jumbo 9214 and the mtu_small switch fault on
one port alone, judged by port_mtu as a run would (PASS healthy, FAIL naming that port and its peer)."""

import time

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from pyramid_twin import formats_eos, switch_model, switch_session

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}
LEAF, PORT = "leaf1-r0", "Ethernet2/1"  # rail 0's leaf runs leaf_os[0] (eos); node-002's port


def _scenario(*switch_faults):
    return {"pod": {"nodes": 4, "gpus_per_node": 8, "rails": 8},
            "switches": {"spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                         "spine_os": ["eos"], "faults": list(switch_faults)},
            "faults": []}


def _judge(parsers, scenario):
    state = switch_session.snapshot_now(dict(switch_model.switch_state(scenario, LEAF), rendered_at=time.time() - 60))
    facts = {"sw_port_mtu": parsers.parse("arista_eos_show_interfaces_mtu_json", formats_eos.COMMANDS["show interfaces | json"](state))}
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(scenario), LEAF))
    assert not errors, errors
    return facts, _engine.judge_host(LEAF, CHECKS["port_mtu"], CATALOG, facts, expect)


def test_a_healthy_eos_leaf_passes_port_mtu(parsers):
    facts, record = _judge(parsers, _scenario())
    assert set(facts["sw_port_mtu"]["mtu"].values()) == {formats_eos.DEFAULT_MTU}
    assert record["status"] == "PASS" and record["actual"] == "4 host ports at MTU 9214", record


def test_mtu_small_fails_port_mtu_on_that_eos_port_alone(parsers):
    facts, record = _judge(parsers, _scenario({"switch": LEAF, "kind": "mtu_small", "port": PORT, "mtu": 1500}))
    assert facts["sw_port_mtu"]["mtu"][PORT] == 1500
    assert {m for p, m in facts["sw_port_mtu"]["mtu"].items() if p != PORT} == {9214}
    assert record["status"] == "FAIL" and record["actual"] == "Ethernet2/1 MTU 1500 < 9000 (node-002 ens1np0)", record
    assert record["detail"]["ports"] == [PORT]
