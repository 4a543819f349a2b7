"""The twin's switch side of "host and switch agree" (issue 14): the port MTU (SONiC `show interfaces status`, NVUE
`nv show interface`) and the lossless priority read back by the product's parsers, the switch faults mtu_small and
lossless_priority judged by port_mtu and pfc_enabled on that port alone, and roce_host_switch_agree judged over a
twin node's own mlnx_qos and MTU and its leaves' results as judge_pod gives them: a healthy node agrees with its
SONiC and NVUE leaves, a NIC on another priority or at a larger MTU FAILs naming both ends."""

import time

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging.roce_agree import cabled_ports
from pyramid_twin import fake_tool, formats_cumulus, formats_roce, formats_sonic, model, switch_model, switch_session

CATALOG = _catalog.load_catalog()
CHECKS = {check["id"]: check for check in CATALOG["checks"]}
LEAF = {"sonic": "leaf1-r2", "cumulus": "leaf1-r3"}  # rail r's leaf runs leaf_os[r % 4]
PORT = {"sonic": "Ethernet8", "cumulus": "swp2"}  # node-002's port
MTU_PARSER = {"sonic": "sonic_show_interfaces_status_mtu", "cumulus": "cumulus_nv_show_interface_mtu"}
PFC_PARSER = {"sonic": "sonic_show_pfc_priority", "cumulus": "cumulus_nv_show_interface_qos_roce_status_pfc"}


def _scenario(switch_faults=(), faults=()):
    return {"pod": {"nodes": 4, "gpus_per_node": 8, "rails": 8},
            "switches": {"spines": 2, "nodes_per_leaf": 4, "leaf_os": ["eos", "nxos", "sonic", "cumulus"],
                         "spine_os": ["eos"], "faults": list(switch_faults)},
            "faults": list(faults)}


def _state(scenario, name):
    state = switch_model.switch_state(scenario, name)
    return switch_session.snapshot_now(dict(state, rendered_at=time.time() - 60))


def _expect(scenario, name):
    expect, errors = _expectations.resolve(CATALOG, switch_model.inventory_vars(switch_model.topology(scenario), name))
    assert not errors, errors
    return expect


def _layer3(parsers, platform, state):
    """The switch's Layer 3 facts of the two sources the agreement reads, as its run collects them."""
    if platform == "sonic":
        mtu = parsers.parse(MTU_PARSER[platform], formats_sonic.COMMANDS["show interfaces status"](state))
        pfc = parsers.parse(PFC_PARSER[platform], formats_sonic.COMMANDS["show pfc priority"](state))
    else:
        mtu = parsers.parse(MTU_PARSER[platform], formats_cumulus.COMMANDS["nv show interface"](state))
        status = {port["name"]: formats_cumulus.COMMANDS.get("nv show interface %s qos roce status" % port["name"])(state)
                  for port in state["ports"]}
        pfc = {name: parsers.parse(PFC_PARSER[platform], text) for name, text in status.items()}
        qos_map = {name: parsers.parse("cumulus_nv_show_interface_qos_roce_status_map", text) for name, text in status.items()}
        return {"sw_port_mtu": mtu, "sw_pfc_state": pfc, "sw_roce_map": qos_map}
    return {"sw_port_mtu": mtu, "sw_pfc_state": pfc}


@pytest.mark.parametrize("platform", ["sonic", "cumulus"])
def test_mtu_small_fails_port_mtu_on_that_port_alone(parsers, platform):
    scenario = _scenario([{"switch": LEAF[platform], "kind": "mtu_small", "port": PORT[platform], "mtu": 1500}])
    facts = _layer3(parsers, platform, _state(scenario, LEAF[platform]))
    healthy = {"sonic": 9100, "cumulus": 9216}[platform]
    assert facts["sw_port_mtu"]["mtu"][PORT[platform]] == 1500
    assert {m for p, m in facts["sw_port_mtu"]["mtu"].items() if p != PORT[platform]} == {healthy}
    record = _engine.judge_host(LEAF[platform], CHECKS["port_mtu"], CATALOG, facts, _expect(scenario, LEAF[platform]))
    assert record["status"] == "FAIL" and record["actual"] == "%s MTU 1500 < 9000 (node-002 ens%dnp0)" % (
        PORT[platform], {"sonic": 3, "cumulus": 4}[platform]), record
    assert record["detail"]["ports"] == [PORT[platform]]


@pytest.mark.parametrize("platform", ["sonic", "cumulus"])
def test_lossless_priority_moves_that_port_to_another_priority(parsers, platform):
    scenario = _scenario([{"switch": LEAF[platform], "kind": "lossless_priority", "port": PORT[platform], "priority": 4}])
    facts = _layer3(parsers, platform, _state(scenario, LEAF[platform]))
    record = _engine.judge_host(LEAF[platform], CHECKS["pfc_enabled"], CATALOG, facts, _expect(scenario, LEAF[platform]))
    assert record["status"] == "FAIL" and "%s: PFC off on priority 3 (lossless priorities: 4)" % PORT[platform] in record["actual"]
    if platform == "cumulus":  # NVUE's RoCE class moved with it: its own check says so too
        record = _engine.judge_host(LEAF[platform], CHECKS["roce_port_qos"], CATALOG, facts, _expect(scenario, LEAF[platform]))
        assert record["status"] == "FAIL" and record["actual"] == (
            "swp2 (node-002 ens4np0): RoCE on switch-priority 4, not lossless (3); ECN off on RoCE's traffic class 4 (enabled-tc 0,3)"), record


def test_a_healthy_nvue_leaf_passes_roce_port_qos(parsers):
    scenario = _scenario()
    facts = _layer3(parsers, "cumulus", _state(scenario, LEAF["cumulus"]))
    assert facts["sw_roce_map"]["swp1"] == {"trust": ["pcp", "dscp"], "roce_dscp": 26, "roce_priority": 3, "roce_tc": 3, "ecn_tcs": [0, 3]}
    record = _engine.judge_host(LEAF["cumulus"], CHECKS["roce_port_qos"], CATALOG, facts, _expect(scenario, LEAF["cumulus"]))
    assert record["status"] == "PASS" and record["actual"] == "4 host ports: trust dscp, DSCP 26 -> priority 3, ECN on traffic class 3", record


def test_switch_fault_kinds_refuse_bad_values():
    for item in ({"kind": "lossless_priority", "priority": 9}, {"kind": "mtu_small", "mtu": "big"}):
        with pytest.raises(switch_model.SwitchScenarioError):
            switch_model.switch_state(_scenario([dict(item, switch="leaf1-r2", port="Ethernet8")]), "leaf1-r2")


def _node_facts(parsers, scenario, node):
    """A twin node's roce_qos, rail_mtu and rail_netdev facts, as its Layer 3 reads them."""
    state = model.node_state(scenario, node)
    files = formats_roce.sys_files(state)
    qos, mtu, netdev = {}, {}, {}
    for rail in state["rails"]:
        rc, out, _err = fake_tool.TOOLS["mlnx_qos"](state, ["-i", rail["netdev"]], {})
        assert rc == 0
        qos[rail["device"]] = parsers.parse("linux_mlnx_qos", out)
        path = "/sys/class/infiniband/%s/device/net/%s/mtu" % (rail["device"], rail["netdev"])
        mtu[rail["device"]] = parsers.parse("linux_sysfs_net_mtu", files[path])
        netdev[rail["device"]] = {"entries": [rail["netdev"]]}
    return {"roce_qos": qos, "rail_mtu": mtu, "rail_netdev": netdev}


def _agree(parsers, scenario, node="node-002"):
    docs = []
    for platform, name in LEAF.items():
        docs.append({"host": name, "expect": _expect(scenario, name),
                     "facts": {"layer3": _layer3(parsers, platform, _state(scenario, name))}})
    facts = dict(_node_facts(parsers, scenario, node), cabled_switch_ports=cabled_ports(node, docs))
    expect, errors = _expectations.resolve(CATALOG, {})
    assert not errors
    return _engine.judge_pod(CHECKS["roce_host_switch_agree"], CATALOG, {node: facts}, {node: expect})[node]


def _scenario_file(tmp_path, faults):
    import yaml
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump(_scenario(faults=faults)))
    return model.load_scenario(str(path))


def test_a_healthy_node_agrees_with_its_sonic_and_nvue_leaves(parsers, tmp_path):
    record = _agree(parsers, _scenario_file(tmp_path, []))
    assert record["status"] == "PASS", record
    assert "2 rails agree with their leaf ports" in record["actual"]
    for said in ("mlx5_2 PFC 3 = leaf1-r2 Ethernet8 3", "mlx5_3 MTU 9000 <= leaf1-r3 swp2 9216", "mlx5_3 DSCP 26 -> 3 = leaf1-r3 swp2",
                 "mlx5_3 ECN on tc 3 at leaf1-r3 swp2", "leaf1-r2 Ethernet8: DSCP map not read on sonic"):
        assert said in record["actual"], record


def test_a_nic_on_another_priority_fails_naming_both_ends(parsers, tmp_path):
    record = _agree(parsers, _scenario_file(tmp_path, [{"node": "node-002", "kind": "pfc_priority", "priority": 4}]))
    assert record["status"] == "FAIL", record
    assert "node-002 mlx5_2 (ens3np0) PFC on priority 4; leaf1-r2 Ethernet8 lossless priority 3" in record["actual"]
    assert "node-002 mlx5_3 (ens4np0) PFC on priority 4; leaf1-r3 swp2 lossless priority 3" in record["actual"]
    assert "PFC not configured end to end" in record["cause"]


def test_a_rail_larger_than_its_port_fails_naming_both_ends(parsers, tmp_path):
    record = _agree(parsers, _scenario_file(tmp_path, [{"node": "node-002", "kind": "mtu", "rail": "mlx5_2", "mtu": 9216}]))
    assert record["status"] == "FAIL", record
    assert record["actual"].startswith("node-002 mlx5_2 (ens3np0) MTU 9216; leaf1-r2 Ethernet8 MTU 9100"), record
