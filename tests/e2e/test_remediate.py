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


def test_a_vpi_port_left_in_infiniband_mode_on_a_roce_pod_is_set_back_to_ethernet(validate, tmp_path):
    # issue 36: what a reimaged node can get back by itself includes its ports' link layer (mlxconfig LINK_TYPE_P1):
    # node-002's mlx5_4 came up in InfiniBand mode on the RoCE pod; remediate.yml sets it to ETH, resets the firmware,
    # and the validation it imports reads the port as Ethernet again (the twin's ibstat follows the firmware)
    path = tmp_path / "link-layer.yml"
    path.write_text(yaml.safe_dump({"pod": {"nodes": 2}, "faults": [{"node": "node-002", "kind": "link_layer", "rail": "mlx5_4"}]}))
    run = validate(str(path), playbook="playbooks/remediate.yml", limit="node-002", cmdline="--diff")
    assert "LINK_TYPE_P1" in run.stdout and "mlx5_4" in run.stdout, run.stdout[-3000:]
    records = {r["check"]: r for r in run.host("node-002")["checks"]}
    assert records["rails_link_layer"]["status"] == "PASS", records["rails_link_layer"]
    assert records["rails_link_layer"]["actual"] == "8 ports on Ethernet", records["rails_link_layer"]
    assert run.changed.get("node-002", 0) >= 1
