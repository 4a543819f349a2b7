"""remediate.yml on the twin: a reimaged node gets its firmware config and GPUDirect back, then passes."""

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]

REIMAGED = {"pod": {"nodes": 3}, "faults": [
    {"node": "node-002", "kind": "mlxconfig", "set": {"ROCE_CC_PRIO_MASK_P1": 0, "ROCE_CC_PRIO_MASK_P2": 0}},
    {"node": "node-002", "kind": "module_missing", "module": "nvidia_peermem"},
]}


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    import yaml
    path = tmp_path_factory.mktemp("reimaged") / "scenario.yml"
    path.write_text(yaml.safe_dump(REIMAGED))
    return str(path)


def test_remediate_brings_a_reimaged_node_back(validate, scenario):
    before = validate(scenario)
    assert before.host("node-002")["verdict"] == "NO-GO"
    assert {c for c, r in before.not_passing("node-002").items() if r["status"] == "FAIL"} == {"gpudirect", "mlxconfig"}

    dry = validate(scenario, playbook="playbooks/remediate.yml", limit="node-002", cmdline="--check --diff")
    assert "ROCE_CC_PRIO_MASK_P1" in dry.stdout  # the diff shows what would change
    assert dry.host("node-002")["verdict"] == "NO-GO"  # ... and nothing changed

    fixed = validate(scenario, playbook="playbooks/remediate.yml", limit="node-002")
    assert fixed.rc == 0 and fixed.status == "successful", fixed.stdout[-3000:]
    assert fixed.changed.get("node-002", 0) >= 3  # mlxconfig set + mlxfwreset, modprobe, modules-load.d
    assert list(fixed.report["hosts"]) == ["node-002"]  # --limit scopes the report too
    assert fixed.host("node-002")["verdict"] == "GO"

    again = validate(scenario, playbook="playbooks/remediate.yml", limit="node-002")
    assert again.rc == 0 and again.changed.get("node-002", 0) == 0  # idempotent
