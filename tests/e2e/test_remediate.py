"""remediate.yml on the twin: its expectations are checked before anything is changed. The whole remediation of a
reimaged node (NO-GO, --check --diff, remediate, GO, idempotent) is tests/e2e/test_remediate_node047.py's, on seed
001's node-047, which carries this file's faults (mlxconfig, nvidia_peermem) and the RoCE ones besides."""

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


def test_remediate_checks_the_expectations_before_it_changes_anything(validate, scenario):
    # pyramid_mlxconfig is written to the NICs: a malformed one must stop the run in pre-flight (issue 17).
    bad = validate(scenario, playbook="playbooks/remediate.yml", limit="node-002", pyramid_mlxconfig=["ROCE_CC_PRIO_MASK_P1=255"])
    assert bad.rc != 0 and bad.status == "failed"
    assert "pyramid_mlxconfig" in bad.stdout
    assert "Apply the NIC firmware config" not in bad.stdout  # the remediation play never started
    assert bad.changed.get("node-002", 0) == 0 and bad.report is None
