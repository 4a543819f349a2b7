"""Pre-flight catches what a new user mistypes (issue 37), before any host is touched: a misspelled expectation
(which Ansible would take as a variable of the user's own, leaving the default in force) names the hosts and the
nearest known name; a misspelled group (whose hosts every play would silently leave out) is named, and a run with
no device left stops there instead of ending quietly with nothing checked."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = [pytest.mark.slow]


def test_misspelled_expectations_stop_preflight_naming_hosts_and_the_meant_name(validate):
    run = validate({"pod": {"nodes": 2}, "faults": []}, pyramid_rdma_gbps_mn=300, pyramid_nccl_tolerence=0.2,
                   pyramid_bgp_neighbours=["10.0.0.1"])
    assert run.rc != 0 and run.report is None, run.stdout[-3000:]  # stopped in pre-flight: no report, nothing touched
    for typo, meant in (("pyramid_rdma_gbps_mn", "pyramid_rdma_gbps_min"), ("pyramid_nccl_tolerence", "pyramid_nccl_tolerance"),
                        ("pyramid_bgp_neighbours", "pyramid_bgp_neighbors")):
        assert "node-001, node-002: %s is not a variable of gpufabric.pyramid; did you mean %s?" % (typo, meant) in run.stdout
    assert "Layer 0" not in run.stdout.split("PLAY RECAP")[0].split("Pre-flight")[-1]


def test_a_misspelled_group_stops_the_run_naming_it(tmp_path):
    inventory = tmp_path / "hosts.ini"
    inventory.write_text("[gpu_node]\nnode-001 ansible_host=127.0.0.1\nnode-002 ansible_host=127.0.0.1\n")
    result = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", str(inventory),
                             "-e", "pyramid_report_dir=%s" % (tmp_path / "reports"), os.path.join(ROOT, "playbooks", "validate.yml")],
                            cwd=ROOT, env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg")),
                            capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode != 0, result.stdout[-3000:]
    assert "no devices to validate: the inventory has no hosts in the groups gpu_nodes" in result.stdout, result.stdout[-3000:]
    assert "group gpu_node (node-001, node-002): did you mean gpu_nodes?" in result.stdout
    assert not (tmp_path / "reports").exists()  # no run directory opened: nothing was checked
