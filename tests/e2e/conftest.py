"""Run playbooks/validate.yml on twin scenarios through ansible-runner, the way AWX runs it."""

import glob
import json
import os
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def twin():
    if os.geteuid() != 0:
        pytest.skip("the twin needs root (sshd, mount namespaces)")
    subprocess.run([os.path.join(ROOT, "twin", "up")], check=True)
    return ROOT


class Run:
    def __init__(self, runner, report_root, control_dir):
        self.rc = runner.rc
        self.status = runner.status
        self.stdout = runner.stdout.read()
        found = sorted(glob.glob(os.path.join(report_root, "*", "report.json")))
        self.report = json.load(open(found[-1], encoding="utf-8")) if found else None
        self.run_dirs = sorted(glob.glob(os.path.join(report_root, "*")))
        self.changed = dict((runner.stats or {}).get("changed", {}))
        # network_cli connections still open (or left behind) when the run ended
        self.open_sockets = sorted(os.path.basename(path) for path in glob.glob(os.path.join(control_dir, "*")))

    def host(self, name):
        return self.report["hosts"][name]

    def not_passing(self, name):
        return {r["check"]: r for r in self.host(name)["checks"] if r["status"] != "PASS"}


@pytest.fixture(scope="session")
def validate(twin, tmp_path_factory):
    """validate(scenario dict or path, playbook=..., limit=..., cmdline=..., **extravars) -> Run."""
    import ansible_runner

    # ansible-runner starts ansible-playbook from PATH: the one installed beside this Python.
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

    def run(scenario, playbook="playbooks/validate.yml", limit=None, cmdline=None, **extravars):
        base = tmp_path_factory.mktemp("run")
        if isinstance(scenario, dict):
            path = base / "scenario.yml"
            path.write_text(yaml.safe_dump(scenario))
            scenario = str(path)
        report_root = str(base / "reports")
        variables = {"twin_scenario": scenario, "pyramid_report_dir": report_root, "pyramid_command_timeout": 5}
        variables.update(extravars)
        (base / "runner").mkdir()
        runner = ansible_runner.run(
            private_data_dir=str(base / "runner"),
            project_dir=ROOT,
            playbook=os.path.join(ROOT, playbook),
            inventory=os.path.join(ROOT, "inventories", "twin"),
            extravars=variables,
            # each run's own persistent-connection sockets, to see which outlive it
            envvars={"ANSIBLE_CONFIG": os.path.join(ROOT, "ansible.cfg"),
                     "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(base / "pc")},
            limit=limit,
            cmdline=cmdline,
            quiet=True,
        )
        return Run(runner, report_root, str(base / "pc"))

    return run
