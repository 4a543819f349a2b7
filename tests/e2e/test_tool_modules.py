"""The tool modules (ibstat, lsmod, nvidia_topology, host_kernel, mlxconfig) on twin nodes."""

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]


def test_tool_modules_on_twin_nodes(validate):
    run = validate({"pod": {"nodes": 3}, "faults": [
        {"node": "node-002", "kind": "module_missing", "module": "nvidia_peermem"},
        {"node": "node-002", "kind": "rail_rate", "rail": "mlx5_3", "rate": 200},
        {"node": "node-003", "kind": "tool_missing", "tool": "ibstat"},
    ]}, playbook="tests/e2e/playbooks/tool_modules.yml")
    assert run.rc == 0 and run.status == "successful", run.stdout[-3000:]


def test_tool_module_arguments_are_type_checked(validate):
    run = validate({"pod": {"nodes": 2}}, playbook="tests/e2e/playbooks/tool_module_arguments.yml")
    assert run.rc == 0 and run.status == "successful", run.stdout[-3000:]
