"""The example inventory's vault layout survives an AWX inventory sync from the project (SCM), offline.

AWX syncs an inventory sourced from a project with `ansible-inventory --list --export -i <source_path> --output ...`
and no vault password (RunInventoryUpdate.build_args in awx/main/tasks/jobs.py); a job then reads the stored
inventory through a script that prints it as JSON (BaseTask.build_inventory) and decrypts with the job template's
Vault credential. Both steps are replayed here with the real ansible-inventory and ansible: per-variable `!vault`
strings pass the sync still encrypted and decrypt in the job; a whole-file vault stops the sync.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest
from ansible.parsing.dataloader import DataLoader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
EXAMPLE = os.path.join(ROOT, "inventories", "example")
VAULT_FILE = os.path.join("group_vars", "all", "vault.yml")
NO_SECRETS = "Attempting to decrypt but no vault secrets found"


def _run(tmp_path, *argv, check=True):
    (tmp_path / "ansible.cfg").write_text("[defaults]\n")  # AWX's job runs with the project's, not this repository's
    env = dict(os.environ, ANSIBLE_CONFIG=str(tmp_path / "ansible.cfg"), ANSIBLE_HOME=str(tmp_path / ".ansible"))
    result = subprocess.run([os.path.join(BIN, argv[0]), *argv[1:]], cwd=tmp_path, env=env, capture_output=True,
                            text=True, check=False)
    assert not check or result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def _secrets():
    """The example's secrets as its vault file names them, with a value of the test's own."""
    return {name: "test-%s" % name for name in DataLoader().load_from_file(os.path.join(EXAMPLE, VAULT_FILE))}


@pytest.fixture(name="pod")
def _pod(tmp_path):
    """The example inventory as docs/awx.md says to fill it: each CHANGE_ME replaced by `ansible-vault encrypt_string`'s
    entry."""
    (tmp_path / "vault-password").write_text("correct horse battery staple\n")
    inventory = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, inventory)
    names = [argument for name in _secrets() for argument in ("--name", name)]
    entries = _run(tmp_path, "ansible-vault", "encrypt_string", "--vault-password-file", "vault-password", *names,
                   *_secrets().values()).stdout
    (inventory / VAULT_FILE).write_text("---\n" + entries)
    return tmp_path


def _sync(pod, inventory="inventory", check=True):
    return _run(pod, "ansible-inventory", "--list", "--export", "-i", inventory, "--output", "sync.json", check=check)


def test_the_example_ships_no_whole_file_vault():
    for directory, _subdirs, files in os.walk(os.path.join(ROOT, "inventories")):
        for name in files:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                assert not handle.read().lstrip().startswith("$ANSIBLE_VAULT"), os.path.join(directory, name)
    with open(os.path.join(EXAMPLE, VAULT_FILE), encoding="utf-8") as handle:
        assert "encrypt_string" in handle.read()


def test_per_variable_vault_strings_pass_the_sync_encrypted_and_decrypt_in_the_job(pod):
    _sync(pod)
    exported = (pod / "sync.json").read_text()
    synced = json.loads(exported)
    stored = synced["all"]["vars"]
    for name, value in _secrets().items():
        assert set(stored[name]) == {"__ansible_vault"}, name  # stored encrypted in AWX's database
        assert value not in exported, name
    # The job's inventory as AWX writes it: a script printing the synced data.
    script = pod / "job-inventory"
    script.write_text("#! /usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(%r)\n" % json.dumps(synced))
    script.chmod(0o700)
    login = "{{ [ansible_user, ansible_password, ansible_become_password] | join(' ') }}"
    shown = _run(pod, "ansible", "-i", "job-inventory", "leaf-rail0", "-m", "ansible.builtin.debug", "-a",
                 "msg=" + login, "--vault-password-file", "vault-password").stdout
    expected = " ".join(_secrets()[name] for name in ("vault_switch_user", "vault_switch_password",
                                                      "vault_switch_enable_password"))
    assert '"msg": "%s"' % expected in shown, shown
    refused = _run(pod, "ansible", "-i", "job-inventory", "leaf-rail0", "-m", "ansible.builtin.debug", "-a",
                   "var=ansible_password", check=False)  # without the Vault credential
    assert NO_SECRETS in refused.stdout + refused.stderr


def test_a_whole_file_vault_stops_the_sync(pod):
    # What the example used to say (ansible-vault encrypt .../vault.yml): AWX's sync has no vault password to give.
    shutil.copytree(pod / "inventory", pod / "whole-file")
    (pod / "whole-file" / VAULT_FILE).write_text("---\n" + "".join("%s: %s\n" % item for item in _secrets().items()))
    _run(pod, "ansible-vault", "encrypt", "--vault-password-file", "vault-password", os.path.join("whole-file", VAULT_FILE))
    result = _sync(pod, "whole-file", check=False)
    assert result.returncode != 0 and NO_SECRETS in result.stderr
