"""The collection as users get it: ansible-galaxy collection build + install, then the playbook by FQCN."""

import os
import subprocess
import sys
import tarfile

import pytest

pytestmark = [pytest.mark.twin, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)


def test_built_collection_runs_validate_by_fqcn(twin, tmp_path):
    cfg = tmp_path / "ansible.cfg"  # none of the checkout's settings: the installed collection alone
    cfg.write_text("[defaults]\ncallback_result_format = yaml\n[ssh_connection]\npipelining = True\n")
    env = dict(os.environ, ANSIBLE_CONFIG=str(cfg))
    subprocess.run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--output-path", str(tmp_path), ROOT],
                   cwd=tmp_path, env=env, check=True, capture_output=True)
    tarball = tmp_path / "gpufabric-pyramid-0.1.0.tar.gz"
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
    assert "catalog/checks.yml" in names and "parsers/textfsm/linux_ibstat.textfsm" in names and "payloads/train_step.py" in names
    assert not any(name.startswith((".venv", ".twin", ".whl", "reports/")) for name in names)
    dev_only = [name for name in names if name.split("/")[0] in ("twin", "tests", "bench", "scripts", "Makefile", "pytest.ini")]
    assert not dev_only, dev_only[:10]
    assert "plugins/plugin_utils/parsing/eos.py" in names and "docs/checks.md" in names
    assert tarball.stat().st_size < 2 * 1024 * 1024
    subprocess.run([os.path.join(BIN, "ansible-galaxy"), "collection", "install", "-p", str(tmp_path / "collections"),
                    str(tarball)], cwd=tmp_path, env=env, check=True, capture_output=True)
    scenario = tmp_path / "pod.yml"
    scenario.write_text("pod: {nodes: 2}\nfaults: []\n")
    env.update(ANSIBLE_COLLECTIONS_PATH=str(tmp_path / "collections"),
               ANSIBLE_INVENTORY_PLUGINS=os.path.join(ROOT, "twin", "inventory_plugins"), ANSIBLE_INVENTORY_ENABLED="pyramid_twin")
    result = subprocess.run([os.path.join(BIN, "ansible-playbook"), "gpufabric.pyramid.validate",
                             "-i", os.path.join(ROOT, "inventories", "twin"), "-e", "twin_scenario=%s" % scenario,
                             "-e", "pyramid_report_dir=%s" % (tmp_path / "reports")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    # Only the installed copy can have answered: the checkout is on no collection path here.
    assert "GO/NO-GO: GO  (2 of 2 hosts GO)" in result.stdout
