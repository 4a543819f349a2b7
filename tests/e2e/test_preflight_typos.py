"""Pre-flight catches what a new user mistypes (issue 37), before any host is touched: a misspelled expectation
(which Ansible would take as a variable of the user's own, leaving the default in force) names the hosts and the
nearest known name; a misspelled group (whose hosts every play would silently leave out) is named, and a run with
no device left stops there instead of ending quietly with nothing checked."""

import os
import re
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


RENAMED_INVENTORY = """all:
  children:
    gpus:
      hosts: {node-002: {}, node-001: {}, node-003: {}, node-004: {}}
      vars: {ansible_host: 127.0.0.1}
    fabric:
      hosts:
        leaf-a:
          ansible_host: 127.0.0.1
          ansible_network_os: arista.eos.eos
          pyramid_switch_ports: [{port: Ethernet1/1, peer: node-001, peer_port: ens1np0}]
    login:
      hosts: {node-002: {}}
"""


def _plan(tmp_path, inventory_text, *extra):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(inventory_text)
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", str(inventory),
               "-e", "pyramid_report_dir=%s" % (tmp_path / "reports"), os.path.join(ROOT, "playbooks", "plan.yml")]
    for item in extra:
        command[-1:-1] = ["-e", item]
    return subprocess.run(command, cwd=ROOT, env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg")),
                          capture_output=True, text=True, check=False, timeout=120)


def test_the_inventorys_own_group_names_given_as_extra_variables_are_the_groups_the_run_reads(tmp_path):
    # plan.yml: pre-flight and the plan, nothing run on any host (no twin needed)
    renamed = ("pyramid_group_gpu_nodes=gpus", "pyramid_group_switches=fabric")
    result = _plan(tmp_path, RENAMED_INVENTORY, *renamed)
    # the launcher group not renamed: the runs across nodes would have nobody to start them
    assert result.returncode != 0 and "no launcher host: the runs across nodes of Layers 5 and 6 start from the first host " \
        "of the group launcher" in result.stdout, result.stdout[-3000:]
    result = _plan(tmp_path, RENAMED_INVENTORY, *renamed, "pyramid_group_launcher=login")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "plan: 4 GPU nodes, 1 switches; nothing run" in result.stdout
    plan = (next((tmp_path / "reports").glob("*")) / "plan.md").read_text()
    # the rail mesh pairs the nodes in the inventory's order of the renamed group (node-002 first)
    assert "round 1: 2 pairs: node-002 <-> node-003, node-001 <-> node-004" in plan, plan[:3000]


def test_a_group_name_variable_set_in_the_inventory_stops_the_run_naming_it(tmp_path):
    result = _plan(tmp_path, RENAMED_INVENTORY.replace("all:\n", "all:\n  vars: {pyramid_group_gpu_nodes: gpus}\n"))
    assert result.returncode != 0, result.stdout[-3000:]
    assert ("pyramid_group_gpu_nodes=gpus is set in the inventory, where the plays, which choose their hosts before they "
            "read any inventory variable, do not see it: give it as an extra variable (-e pyramid_group_gpu_nodes=gpus"
            in result.stdout), result.stdout[-3000:]
    assert not (tmp_path / "reports").exists()


def test_a_switch_login_without_enable_stops_preflight_naming_the_switch_and_the_fix(validate):
    """Issue 71: EOS answers show running-config in privileged mode only; the twin's EOS logins land at `leaf>` and its
    inventory sets become (enable) for every switch but the one named here, whose one harmless read is refused."""
    run = validate({"pod": {"nodes": 2}, "switches": {"spines": 1, "nodes_per_leaf": 2}, "faults": []},
                   twin_switches_without_enable=["leaf1-r0"])
    assert run.rc != 0 and run.report is None, run.stdout[-3000:]  # stopped in pre-flight: no report
    refused = re.search(r"leaf1-r0 \(rail_leaves\): its login lacks the privilege its reads need: `(show running-config "
                        r"[^`]+)` answered \"% Invalid input \(privileged mode required\)\"; set ansible_become", run.stdout)
    assert refused, run.stdout[-3000:]
    assert ("set ansible_become: true, ansible_become_method: enable and ansible_become_password (the enable secret) "
            "for rail_leaves") in run.stdout
    # every other EOS switch entered enable mode and read it: only the one without become is named
    assert not re.search(r"leaf1-r[1-7] \(rail_leaves\): its login lacks|spine1 \(spines\): its login lacks", run.stdout)
    assert "Layer 0" not in run.stdout.split("PLAY RECAP")[0].split("Pre-flight")[-1]  # no host touched


def test_plan_warns_of_a_switch_without_become_without_touching_it(validate):
    """plan.yml touches no device: it names what the inventory says (no ansible_become for privileged reads) as a
    warning, since a login that lands at privilege 15 needs none; validate.yml's read decides."""
    run = validate({"pod": {"nodes": 2}, "switches": {"spines": 1, "nodes_per_leaf": 2}, "faults": []},
                   playbook="playbooks/plan.yml", twin_switches_without_enable=["leaf1-r0"])
    assert run.rc == 0, run.stdout[-3000:]
    assert re.search(r"leaf1-r0 \(rail_leaves\): its checks ask `show running-config interfaces \S+`, which EOS answers in "
                     r"privileged \(enable\) mode only, and ansible_become is not set", run.stdout), run.stdout[-3000:]
    assert "leaf1-r1 (rail_leaves): its checks ask" not in run.stdout
    assert "Try one privileged read" not in run.stdout  # no switch asked
