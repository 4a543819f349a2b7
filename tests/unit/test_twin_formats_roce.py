"""The twin's host RoCE outputs (mlnx_qos -i, ethtool -S, the rails' ecn/, mtu, GID type, traffic class and
hw_counters sysfs files) parse back with the product's parsers and judge as a real node's would: a healthy node
passes every Layer 3 host RoCE check, each host RoCE fault fails its own check alone on the right rail, naming
the netdev, the value found and the value expected. payloads/rail_netdev.py finds a rail's netdev as
ibdev2netdev does and runs the tool with it."""

import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run import engine as _engine
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import expectations as _expectations
from pyramid_twin import fake_tool, formats_roce, model

CATALOG = _catalog.load_catalog()
ROCE_CHECKS = [check for check in CATALOG["checks"] if check["row"] == "roce_host"]
ROCE_HOST_FAULTS = {"dcqcn_off", "trust_pcp", "pfc_priority", "dscp_mark", "mtu"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAYLOAD = os.path.join(ROOT, "payloads", "rail_netdev.py")
SCENARIO = os.path.join(ROOT, "twin", "scenarios", "roce.yml")


def node(tmp_path, faults=(), name="node-001"):
    scenario = {"pod": {"nodes": 2}, "faults": [dict(fault, node=name) for fault in faults]}
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump(scenario))
    return model.node_state(model.load_scenario(str(path)), name)


def _with_netdev(files, rail, argv):
    """What `python3 -c rail_netdev.py <dev> ARGV` prints on the twin node: the netdev put in, then the tool's answer
    (fake_tool's tools; cat of the rendered sysfs files)."""
    argv = [arg.replace("{netdev}", rail["netdev"]) for arg in argv]
    if argv[0] == "cat":
        return 0, "".join(files[path] for path in argv[1:]), ""
    return fake_tool.TOOLS[argv[0]](STATE[0], argv[1:], {})


STATE = [None]


def collected(state, expect):
    """What the collect module would bring back from the node for every roce_host source, as planned."""
    STATE[0] = state
    files = formats_roce.sys_files(state)
    rails = {rail["device"]: rail for rail in state["rails"]}
    raw = {}
    for planned in _engine.reads(_engine.source_names(ROCE_CHECKS), CATALOG, expect):
        way = planned["ways"][0]
        device = planned["id"].split("[")[1].rstrip("]")
        if "list" in way:
            rc, out, err = 0, rails[device]["netdev"] + "\n", ""
        elif "read" in way:
            rc, out, err = 0, files[way["read"]], ""
        elif way["run"][0] == "python3":
            assert way["run"][2] == "{payload_source:rail_netdev.py}" and way["run"][3] == device
            rc, out, err = _with_netdev(files, rails[device], way["run"][4:])
        else:
            assert way["run"][0] == "cat"
            rc, out, err = 0, "".join(files[path] for path in way["run"][1:]), ""
        raw[planned["id"]] = _engine.answered(planned, {"status": "ok" if rc == 0 else "failed", "rc": rc, "stdout": out, "stderr": err,
                                                        "command": " ".join(way.get("run") or [way.get("read") or way.get("list")]), "way": 0})
    return raw


def verdicts(state):
    expect, errors = _expectations.resolve(CATALOG, {})
    assert not errors
    names = _engine.source_names(ROCE_CHECKS)
    facts = _engine.parse_sources(names, CATALOG, collected(state, expect), expect)
    return {check["id"]: _engine.judge_host(state["hostname"], check, CATALOG, facts, expect) for check in ROCE_CHECKS}


def test_healthy_node_passes_every_roce_check(tmp_path):
    results = verdicts(node(tmp_path))
    assert {check: result["status"] for check, result in results.items()} == dict.fromkeys(results, "PASS"), results
    assert "8 rails: DCQCN on for priority 3" in results["roce_dcqcn"]["actual"]
    assert "8 rails: PFC on 3, tc 3 ets 50%, buffer 130944 bytes" in results["roce_pfc"]["actual"]
    assert "8 rails: DSCP 26 -> priority 3 (tc/1/traffic_class 106)" in results["roce_dscp"]["actual"]
    assert "8 rails: MTU 9000" in results["rail_mtu"]["actual"]
    assert "8 rails: GID 3 RoCE v2" in results["roce_gid"]["actual"]
    assert "8 rails: counters read" in results["nic_counters"]["actual"]


def test_default_scenario_gets_no_new_failure():
    """The shipped scenario's nodes, whatever their other faults, pass every host RoCE check: the default demo's
    verdicts do not change (its nodes fail where they failed before, at their own layers)."""
    scenario = model.load_scenario(model.DEFAULT_SCENARIO)
    for name in model.node_names(scenario):
        state = model.node_state(scenario, name)
        if state["unreachable"] or len(state["rails"]) != 8 or state["tools"]["missing"]:
            continue
        results = verdicts(state)
        assert {c: r["status"] for c, r in results.items()} == dict.fromkeys(results, "PASS"), (name, results)


FAULTS = [
    ({"kind": "dcqcn_off"}, "roce_dcqcn", "mlx5_7 (ens8np0): roce_rp/enable/3 = 0, roce_np/enable/3 = 0", "node-047"),
    ({"kind": "dcqcn_off", "rail": "mlx5_2"}, "roce_dcqcn", "mlx5_2 (ens3np0): roce_rp/enable/3 = 0, roce_np/enable/3 = 0", "node-047"),
    ({"kind": "trust_pcp", "rail": "mlx5_5"}, "roce_trust", "mlx5_5 (ens6np0): trust state pcp, want dscp", "trusts PCP"),
    ({"kind": "pfc_priority", "priority": 4}, "roce_pfc", "mlx5_0 (ens1np0): PFC enabled on priority 4, want 3 alone", "lossless"),
    ({"kind": "dscp_mark", "dscp": 0, "rail": "mlx5_3"}, "roce_dscp",
     "mlx5_3 (ens4np0): marks DSCP 0 (tc/1/traffic_class 2), want 26; dscp2prio maps DSCP 0 to priority 0, want 3", "another DSCP"),
    ({"kind": "mtu", "rail": "mlx5_6", "mtu": 1500}, "rail_mtu", "mlx5_6 (ens7np0): MTU 1500, want 9000", "MTU not as planned"),
]


@pytest.mark.parametrize("fault, check, said, cause", FAULTS, ids=["%s-%s" % (c[0]["kind"], c[0].get("rail", "all")) for c in FAULTS])
def test_fault_fails_its_check(tmp_path, fault, check, said, cause):
    results = verdicts(node(tmp_path, [fault]))
    failing = {name: result["status"] for name, result in results.items() if result["status"] != "PASS"}
    # trust pcp leaves no DSCP mapping at all: the DSCP check says so too
    assert failing == ({check: "FAIL", "roce_dscp": "FAIL"} if fault["kind"] == "trust_pcp" else {check: "FAIL"}), results
    assert said in results[check]["actual"], results[check]
    assert cause in results[check]["cause"] and results[check]["go_back_to"], results[check]


def test_every_roce_fault_kind_is_covered():
    assert {case[0]["kind"] for case in FAULTS} == ROCE_HOST_FAULTS
    assert ROCE_HOST_FAULTS <= set(model.FAULTS)


def test_scenario_has_one_node_per_fault():
    scenario = model.load_scenario(SCENARIO)
    kinds = [fault["kind"] for fault in scenario["faults"]]
    assert sorted(kinds) == sorted(ROCE_HOST_FAULTS)
    assert len({fault["node"] for fault in scenario["faults"]}) == len(kinds)
    for name in model.node_names(scenario):
        model.node_state(scenario, name)  # every fault applies


def test_tools_refuse_what_they_do_not_simulate(tmp_path):
    state = node(tmp_path)
    assert formats_roce.mlnx_qos(state, ["-i", "ens1np0", "--trust", "pcp"], {})[0] == 2
    assert formats_roce.mlnx_qos(state, ["-i", "nope0"], {})[0] != 0
    assert formats_roce.ethtool(state, ["-i", "ens1np0"], {})[0] == 2
    assert formats_roce.ethtool(state, ["-S", "nope0"], {})[0] != 0


# --- payloads/rail_netdev.py: the netdev found as ibdev2netdev finds it, then the tool exec'd ----------------

def _sysfs(tmp_path, device, netdevs):
    base = tmp_path / "infiniband" / device / "device" / "net"
    base.mkdir(parents=True)
    for name, dev_port in netdevs.items():
        (base / name).mkdir()
        (base / name / "dev_port").write_text("%d\n" % dev_port)
        (base / name / "mtu").write_text("9000\n")
    return str(tmp_path / "infiniband")


def _run(root, *argv):
    source = open(PAYLOAD, encoding="utf-8").read().replace('"/sys/class/infiniband/%s/device/net"', repr(root + "/%s/device/net"))
    done = subprocess.run([sys.executable, "-c", source] + list(argv), capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def test_rail_netdev_runs_the_tool_with_the_netdev(tmp_path):
    root = _sysfs(tmp_path, "mlx5_0", {"ens1np0": 0})
    rc, out, err = _run(root, "mlx5_0", "cat", root + "/mlx5_0/device/net/{netdev}/mtu")
    assert (rc, out, err) == (0, "9000\n", "")


def test_rail_netdev_picks_port_1_among_several(tmp_path):
    root = _sysfs(tmp_path, "mlx5_0", {"ens1f0np0": 0, "ens1f1np1": 1})
    assert _run(root, "mlx5_0", "echo", "{netdev}")[1] == "ens1f0np0\n"


def test_rail_netdev_never_guesses(tmp_path):
    root = _sysfs(tmp_path, "mlx5_0", {"a": 0, "b": 0})
    rc, out, err = _run(root, "mlx5_0", "echo", "{netdev}")
    assert rc == 2 and out == "" and "cannot tell which is port 1's" in err
    rc, _out, err = _run(root, "mlx5_9", "echo", "{netdev}")
    assert rc == 2 and "no network interface listed" in err


def test_rail_netdev_passes_the_tool_exit_code(tmp_path):
    root = _sysfs(tmp_path, "mlx5_0", {"ens1np0": 0})
    rc, _out, err = _run(root, "mlx5_0", "cat", root + "/mlx5_0/device/net/{netdev}/ecn/roce_rp/enable/3")
    assert rc == 1 and "No such file or directory" in err
    rc, _out, err = _run(root, "mlx5_0", "no-such-tool-here", "{netdev}")
    assert rc == 127 and "no-such-tool-here" in err
