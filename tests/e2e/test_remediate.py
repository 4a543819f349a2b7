"""remediate.yml on the twin: a reimaged node gets its firmware config and GPUDirect back, then passes."""

import pytest
import yaml

pytestmark = [pytest.mark.twin, pytest.mark.slow]

REIMAGED = {"pod": {"nodes": 3}, "faults": [
    {"node": "node-002", "kind": "mlxconfig", "set": {"ROCE_CC_PRIO_MASK_P1": 0}},
    {"node": "node-002", "kind": "module_missing", "module": "nvidia_peermem"},
]}


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    path = tmp_path_factory.mktemp("reimaged") / "scenario.yml"
    path.write_text(yaml.safe_dump(REIMAGED))
    return str(path)


def test_remediate_brings_a_reimaged_node_back(validate, scenario):
    before = validate(scenario)
    assert before.host("node-002")["verdict"] == "NO-GO"
    assert {c for c, r in before.not_passing("node-002").items() if r["status"] == "FAIL"} == {"gpudirect", "mlxconfig"}

    # As the report tells an operator: the GO nodes' baseline goes into the inventory, so a node validated
    # alone later (--limit) is judged against the pod's figures, not against nothing (a lone node has no median).
    with open(before.run_dirs[-1] + "/baseline.yml", encoding="utf-8") as handle:
        baseline = yaml.safe_load(handle)
    assert set(baseline) == {"pyramid_nccl_node_busbw", "pyramid_train_step_ms_baseline"}

    dry = validate(scenario, playbook="playbooks/remediate.yml", limit="node-002", cmdline="--check --diff", **baseline)
    assert "ROCE_CC_PRIO_MASK_P1" in dry.stdout  # the diff shows what would change
    assert dry.host("node-002")["verdict"] == "NO-GO"  # ... and nothing changed

    fixed = validate(scenario, playbook="playbooks/remediate.yml", limit="node-002", **baseline)
    assert fixed.rc == 0 and fixed.status == "successful", fixed.stdout[-3000:]
    assert len(fixed.run_dirs) == 1  # pre-flight before remediating opened the run directory the validation used
    assert fixed.changed.get("node-002", 0) >= 3  # mlxconfig set + mlxfwreset, modprobe, modules-load.d
    assert list(fixed.report["hosts"]) == ["node-002"]  # --limit scopes the report too
    assert fixed.host("node-002")["verdict"] == "GO"

    again = validate(scenario, playbook="playbooks/remediate.yml", limit="node-002", **baseline)
    assert again.rc == 0 and again.changed.get("node-002", 0) == 0  # idempotent


def test_remediate_checks_the_expectations_before_it_changes_anything(validate, scenario):
    # pyramid_mlxconfig is written to the NICs: a malformed one must stop the run in pre-flight (issue 17).
    bad = validate(scenario, playbook="playbooks/remediate.yml", limit="node-002", pyramid_mlxconfig=["ROCE_CC_PRIO_MASK_P1=255"])
    assert bad.rc != 0 and bad.status == "failed"
    assert "pyramid_mlxconfig" in bad.stdout
    assert "Apply the NIC firmware config" not in bad.stdout  # the remediation play never started
    assert bad.changed.get("node-002", 0) == 0 and bad.report is None
