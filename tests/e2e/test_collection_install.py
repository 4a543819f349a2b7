"""The collection as users get it: ansible-galaxy collection build + install (offline, its dependencies
from the collections the `ansible` package provides), the playbook by FQCN, and the execution
environment that carries it (ansible-builder create; no container is built here)."""

import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest
import yaml

from ansible_collections.gpufabric.pyramid.tests.e2e.waivers import GPU_ONLY_WAIVERS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
# What galaxy.yml declares: what the code and the inventories name (network_cli and the EOS/NX-OS
# cliconf/terminal plugins); ansible.utils comes in as ansible.netcommon's own dependency.
DEPENDENCIES = {"ansible.netcommon", "arista.eos", "cisco.nxos"}


def _build(tmp_path):
    """(tarball, env): the collection built with none of the checkout's ansible.cfg settings."""
    cfg = tmp_path / "ansible.cfg"
    cfg.write_text("[ssh_connection]\npipelining = True\n")  # the default callback_result_format (json) and no callbacks
    env = dict(os.environ, ANSIBLE_CONFIG=str(cfg))
    subprocess.run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--force", "--output-path", str(tmp_path), ROOT],
                   cwd=tmp_path, env=env, check=True, capture_output=True)
    return tmp_path / "gpufabric-pyramid-0.1.0.tar.gz", env


def _install_offline(tarball, dest, env):
    return subprocess.run([os.path.join(BIN, "ansible-galaxy"), "collection", "install", "--offline", "-p", str(dest), str(tarball)],
                          cwd=tarball.parent, env=env, check=False, capture_output=True, text=True)


def test_built_collection_declares_and_installs_its_dependencies_offline(tmp_path):
    tarball, env = _build(tmp_path)
    with tarfile.open(tarball) as archive:
        manifest = json.load(archive.extractfile("MANIFEST.json"))["collection_info"]
    assert set(manifest["dependencies"]) == DEPENDENCIES
    assert "example.invalid" not in json.dumps(manifest)  # no placeholder address
    # --offline: no distribution server; the dependencies must be satisfied by what is installed,
    # here the collections of the `ansible` package (requirements.txt) - so the ranges admit them.
    result = _install_offline(tarball, tmp_path / "collections", env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "gpufabric.pyramid:0.1.0 was installed successfully" in result.stdout
    for name in DEPENDENCIES | {"ansible.utils"}:
        assert "'%s:" % name in result.stdout and "is already installed" in result.stdout, (name, result.stdout)
    installed = tmp_path / "collections" / "ansible_collections" / "gpufabric" / "pyramid"
    assert (installed / "meta" / "execution-environment.yml").is_file() and (installed / "playbooks" / "validate.yml").is_file()


def test_an_unsatisfiable_range_is_refused_offline(tmp_path):
    # The proof above means something only if a range the installed collections miss is refused.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv*", ".git", ".twin", ".collections", "reports", "tests",
                                                                "twin", "bench", "docs", "*.tar.gz", "__pycache__"))
    galaxy = yaml.safe_load((source / "galaxy.yml").read_text())
    galaxy["dependencies"]["ansible.netcommon"] = ">=99.0.0"
    (source / "galaxy.yml").write_text(yaml.safe_dump(galaxy))
    env = dict(os.environ, ANSIBLE_CONFIG=str(tmp_path / "none.cfg"))
    subprocess.run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--output-path", str(tmp_path), str(source)],
                   cwd=tmp_path, env=env, check=True, capture_output=True)
    result = _install_offline(tmp_path / "gpufabric-pyramid-0.1.0.tar.gz", tmp_path / "collections", env)
    assert result.returncode != 0 and "ansible.netcommon" in result.stdout + result.stderr


def test_ansible_builder_creates_the_execution_environment_context(tmp_path):
    tarball, env = _build(tmp_path)
    work = tmp_path / "ee"
    work.mkdir()
    shutil.copy(os.path.join(ROOT, "execution-environment.yml"), work)
    shutil.copytree(os.path.join(ROOT, "ee"), work / "ee")
    (work / "build").mkdir()
    shutil.copy(tarball, work / "build")  # where docs/awx.md's `ansible-galaxy collection build --output-path build` puts it
    result = subprocess.run([os.path.join(BIN, "ansible-builder"), "create", "-f", "execution-environment.yml", "-c", "context"],
                            cwd=work, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    context = work / "context"
    containerfile = (context / "Dockerfile").read_text()
    assert "ansible-galaxy collection install" in containerfile and "ansible-core==2.19.14" in containerfile
    assert (context / "_build" / "pyramid" / tarball.name).is_file()
    requirements = yaml.safe_load((context / "_build" / "requirements.yml").read_text())
    assert requirements["collections"] == [{"name": "/build/pyramid/" + tarball.name, "type": "file"}]
    # The build's introspection step, run on the collection installed offline: it finds the collection's
    # Python and system needs through meta/execution-environment.yml (not the checkout's dev requirements).
    installed = tmp_path / "collections"
    assert _install_offline(tarball, installed, env).returncode == 0
    introspect = subprocess.run([sys.executable, str(context / "_build" / "scripts" / "introspect.py"), "introspect", str(installed)],
                                capture_output=True, text=True, check=True)
    found = yaml.safe_load(introspect.stdout)
    python = {line.split("#")[0].strip() for line in found["python"]}
    assert python == {"textfsm>=1.1.3", "ntc-templates>=4.0.0", "ansible-pylibssh>=1.1.0", "prometheus-client>=0.17.0"}
    assert not any("pytest" in line or "hypothesis" in line for line in found["python"])
    # What the EE's bindep step installs on its (rpm) base image: the SSH client, none of the twin's packages.
    from bindep.depends import Depends  # pylint: disable=import-outside-toplevel
    system = Depends("\n".join(line.split("#")[0].strip() for line in found["system"]))
    assert [rule[0] for rule in system.active_rules(["default", "platform:rpm", "platform:redhat", "platform:centos"])] == ["openssh-clients"]


@pytest.mark.twin
@pytest.mark.slow
def test_built_collection_runs_validate_by_fqcn(twin, tmp_path):
    tarball, env = _build(tmp_path)  # none of the checkout's settings: the installed collection alone
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
    assert "catalog/checklist.yml" in names and "parsers/textfsm/linux_ibstat.textfsm" in names and "payloads/train_step.py" in names
    assert not any(name.startswith((".venv", ".twin", ".whl", ".hypothesis", "reports/")) for name in names)
    dev_only = [name for name in names if name.split("/")[0] in ("twin", "tests", "bench", "scripts", "Makefile", "pytest.ini")]
    assert not dev_only, dev_only[:10]
    assert "plugins/plugin_utils/parsing/eos.py" in names and "docs/checks.md" in names
    assert tarball.stat().st_size < 2 * 1024 * 1024
    installed = _install_offline(tarball, tmp_path / "collections", env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    scenario = tmp_path / "pod.yml"
    scenario.write_text("pod: {nodes: 2}\nfaults: []\n")
    env.update(ANSIBLE_COLLECTIONS_PATH=str(tmp_path / "collections"),
               ANSIBLE_INVENTORY_PLUGINS=os.path.join(ROOT, "twin", "inventory_plugins"), ANSIBLE_INVENTORY_ENABLED="pyramid_twin")
    result = subprocess.run([os.path.join(BIN, "ansible-playbook"), "gpufabric.pyramid.validate",
                             "-i", os.path.join(ROOT, "inventories", "twin"), "-e", "twin_scenario=%s" % scenario,
                             "-e", "pyramid_report_dir=%s" % (tmp_path / "reports"),
                             "-e", "pyramid_rdma_duration=1", "-e", "pyramid_soak_seconds=1",  # the suite's windows
                             "-e", json.dumps({"pyramid_waive": GPU_ONLY_WAIVERS})],  # no switch in its pod (tests/e2e/waivers.py)
                            cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    # Only the installed copy can have answered: the checkout is on no collection path here.
    # the checklist as plain lines, not one escaped JSON string: the progress callback that the collection's playbooks
    # load themselves prints it (issue 39), with no ansible.cfg of the user's enabling anything
    lines = result.stdout.splitlines()
    assert "GO/NO-GO: GO  (2 of 2 hosts GO)" in lines, result.stdout[-3000:]
    assert "[✓] L0  RDMA driver loaded, all rails present" in lines
