"""remediate.yml's payloads/roce_qos_apply.py against a twin node: its sysfs ecn/ switches (formats_roce.sys_files,
written into a temporary tree) and its mlnx_qos (formats_roce, settings included). A reimaged node (DCQCN off,
trust pcp, PFC on 4) is put back: DCQCN on for priority 3, trust dscp, PFC on 3 alone; --check reads and changes
nothing; a second run changes nothing. The twin's mlnx_qos settings go into the node's state as the real tool's do."""

import importlib.util
import json
import os

import pytest

from pyramid_twin import formats_roce, model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = importlib.util.spec_from_file_location("roce_qos_apply", os.path.join(ROOT, "payloads", "roce_qos_apply.py"))
PAYLOAD = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(PAYLOAD)


def _node(tmp_path, faults):
    import yaml
    path = tmp_path / "scenario.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 2}, "faults": [dict(f, node="node-001") for f in faults]}))
    return model.node_state(model.load_scenario(str(path)), "node-001")


@pytest.fixture
def node(tmp_path, monkeypatch):
    state = _node(tmp_path, [{"kind": "dcqcn_off", "priority": 3}, {"kind": "trust_pcp"}, {"kind": "pfc_priority", "priority": 4}])
    root = tmp_path / "sys"
    for path, text in formats_roce.sys_files(state).items():
        target = root / path[len("/sys/class/infiniband/"):]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    monkeypatch.setattr(PAYLOAD, "SYS", str(root))
    calls = []

    def mlnx_qos(argv):
        calls.append(argv)
        rc, out, err, _changed = formats_roce.mlnx_qos_set(state, argv) if len(argv) > 2 else formats_roce.mlnx_qos(state, argv, {}) + (None,)
        if rc:
            raise RuntimeError(err)
        return out
    monkeypatch.setattr(PAYLOAD, "_mlnx_qos", mlnx_qos)
    return {"state": state, "root": root, "calls": calls}


def _run(capsys, *args):
    assert PAYLOAD.main(["-c"] + list(args)) == 0
    return json.loads(capsys.readouterr().out)


def _ecn(node, rail, point):
    return (node["root"] / rail / "device" / "net" / ("ens%dnp0" % (int(rail[-1]) + 1)) / "ecn" / ("roce_%s" % point)
            / "enable" / "3").read_text().strip()


def test_check_mode_reads_and_changes_nothing(node, capsys):
    said = _run(capsys, "--check", "3", "mlx5_0", "mlx5_1")
    assert said["changed"] and said["check"]
    assert said["rails"]["mlx5_0"]["before"] == {"dcqcn_rp": "0", "dcqcn_np": "0", "trust": "pcp", "pfc": "0,0,0,0,1,0,0,0"}
    assert said["rails"]["mlx5_0"]["after"] == {"dcqcn_rp": "1", "dcqcn_np": "1", "trust": "dscp", "pfc": "0,0,0,1,0,0,0,0"}
    assert said["rails"]["mlx5_1"]["netdev"] == "ens2np0"
    assert _ecn(node, "mlx5_0", "rp") == "0" and all(len(argv) == 2 for argv in node["calls"])  # queries only


def test_puts_a_reimaged_node_back_then_changes_nothing(node, capsys):
    said = _run(capsys, "3", "mlx5_0", "mlx5_1")
    assert said["changed"] and sorted(said["rails"]["mlx5_1"]["changed"]) == ["dcqcn_np", "dcqcn_rp", "pfc", "trust"]
    assert _ecn(node, "mlx5_0", "rp") == _ecn(node, "mlx5_1", "np") == "1"
    assert ["-i", "ens1np0", "--trust", "dscp"] in node["calls"] and ["-i", "ens1np0", "--pfc", "0,0,0,1,0,0,0,0"] in node["calls"]
    qos = formats_roce.config(node["state"], node["state"]["rails"][0])
    assert qos["trust"] == "dscp" and qos["pfc_priority"] == 3
    again = _run(capsys, "3", "mlx5_0", "mlx5_1")
    assert not again["changed"] and all(not r["changed"] for r in again["rails"].values())


def test_a_rail_it_cannot_read_is_an_error_never_a_guess(node, capsys):
    assert PAYLOAD.main(["-c", "3", "mlx5_9"]) == 1
    assert "mlx5_9" in capsys.readouterr().err
    assert PAYLOAD.main(["-c", "9", "mlx5_0"]) == 2


def test_twin_mlnx_qos_refuses_what_it_does_not_simulate(node):
    state = node["state"]
    assert formats_roce.mlnx_qos_set(state, ["-i", "ens1np0", "--pfc", "0,0,0,1,1,0,0,0"])[0] == 2
    assert formats_roce.mlnx_qos_set(state, ["-i", "ens1np0", "--trust", "l2"])[0] == 2
    assert formats_roce.mlnx_qos_set(state, ["-i", "nope0", "--trust", "dscp"])[0] == 2
    rc, out, _err, changed = formats_roce.mlnx_qos_set(state, ["-i", "ens1np0", "--trust", "dscp"])
    assert rc == 0 and changed and "Priority trust state: dscp" in out
    assert formats_roce.mlnx_qos_set(state, ["-i", "ens1np0", "--trust", "dscp"])[3] is False
