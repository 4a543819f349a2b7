"""playbooks/report.yml on a run directory (issue 66), through ansible-playbook, touching no device (no twin): the
report validate.yml's report role writes, from the directory's results files and run.json, else from the inventory's
hosts that have a results file there; an interrupted run's directory stays marked; no directory, a clear failure."""

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.report import interrupted as _interrupted
from ansible_collections.gpufabric.pyramid.tests.unit.test_interrupted import DEVICES, WHERE, _judged_up_to

pytestmark = [pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)


def _report_yml(inventory, *args):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH=BIN + os.pathsep + os.environ["PATH"])
    return subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", str(inventory), os.path.join(ROOT, "playbooks", "report.yml"),
                           "-e", "ansible_python_interpreter=" + sys.executable] + list(args),
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=300)


@pytest.fixture(name="inventory")
def _inventory(tmp_path):
    path = tmp_path / "hosts.ini"
    path.write_text("[gpu_nodes]\nnode-001\nnode-002\nnode-003\n")  # node-003: not in the run
    return path


def _run_dir(tmp_path):
    run_dir = tmp_path / "20260101T000000Z-abcdef"
    _judged_up_to(run_dir, "node-001", 8)
    _judged_up_to(run_dir, "node-002", 8, failing=("gpudirect",))
    return run_dir


def test_the_report_of_a_run_directory_is_validate_yml_s(tmp_path, inventory):
    run_dir = _run_dir(tmp_path)
    result = _report_yml(inventory, "-e", "pyramid_run_dir=%s" % run_dir)
    assert result.returncode == 2 and "NO-GO: 1 of 2 hosts GO" in result.stdout, result.stdout[-3000:]
    report = json.loads((run_dir / "report.json").read_text())
    # the inventory's GPU nodes with a results file there: node-003 was not in this run
    assert sorted(report["hosts"]) == ["node-001", "node-002"] and "interrupted" not in report
    assert [r["check"] for r in report["hosts"]["node-002"]["checks"] if r["status"] == "FAIL"] == ["gpudirect"]
    assert report["hosts"]["node-001"]["verdict"] == "GO"
    assert all((run_dir / name).exists() for name in ("report.md", "report.html", "junit.xml"))


def test_an_interrupted_run_s_directory_stays_marked_with_the_devices_it_recorded(tmp_path, inventory):
    run_dir = _run_dir(tmp_path)
    _interrupted.remember_run(str(run_dir), DEVICES, ["node-001", "node-002"])
    _interrupted.write_json(str(run_dir / "interrupted.json"), WHERE)
    result = _report_yml(inventory, "-e", "pyramid_run_dir=%s" % run_dir)
    assert result.returncode == 2 and "NO-GO: interrupted at layer 4" in result.stdout, result.stdout[-3000:]
    report = json.loads((run_dir / "report.json").read_text())
    assert report["verdict"] == "NO-GO" and report["interrupted"]["task"] == WHERE["task"]
    assert sorted(report["hosts"]) == ["node-001", "node-002"]


def test_without_a_run_directory_it_says_what_to_pass(tmp_path, inventory):
    result = _report_yml(inventory, "-e", "pyramid_run_dir=%s" % (tmp_path / "nothing"))
    assert result.returncode == 2 and "pass the run directory to report" in result.stdout, result.stdout[-3000:]
    assert not (tmp_path / "nothing").exists()
