"""ansible-lint (production profile) and ansible-test sanity, as part of the one test command."""

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)


def test_ansible_lint_production_profile():
    # Its syntax checks run without an inventory, which ansible.cfg's unparsed_is_failed refuses.
    env = dict(os.environ, ANSIBLE_INVENTORY_UNPARSED_FAILED="false")
    result = subprocess.run([os.path.join(BIN, "ansible-lint"), "--profile", "production", "--nocolor"],
                            cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    shutil.rmtree(os.path.join(ROOT, ".ansible"), ignore_errors=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]


def test_ansible_test_sanity():
    result = subprocess.run(["bash", os.path.join(ROOT, "scripts", "sanity")], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]


def test_ansible_doc_renders_every_module():
    modules = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules")) if name.endswith(".py"))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    for module in modules:
        result = subprocess.run([os.path.join(BIN, "ansible-doc"), "gpufabric.pyramid." + module], cwd=ROOT, env=env,
                                capture_output=True, text=True, check=False)
        assert result.returncode == 0 and "EXAMPLES" in result.stdout, (module, result.stderr)
