"""Per-scenario SSH keys: a switch session's scenario comes from the key it logged in with.

network_cli's SSH clients (paramiko, libssh) send no environment, so ``-o SetEnv`` cannot name the
scenario for them. Each scenario gets its own key; its authorized_keys line carries
``environment="PYRAMID_TWIN_SCENARIO=<path>"`` (sshd: PermitUserEnvironment). twin/up starts
authorized_keys afresh; the inventory plugin adds the scenario's line again when it reads the pod.
"""

import fcntl
import hashlib
import os
import subprocess

STATE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".twin")


def _keygen(path, comment):
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path], check=True,
                       stdin=subprocess.DEVNULL)
    return path


def scenario_key(scenario_path):
    """The private key whose logins become sessions of this scenario."""
    tag = hashlib.sha256(scenario_path.encode()).hexdigest()[:12]
    key = _keygen(os.path.join(STATE_DIR, "keys", tag, "id_ed25519"), "pyramid-twin-%s" % tag)
    with open(key + ".pub", encoding="utf-8") as handle:
        public = handle.read().strip()
    line = 'environment="PYRAMID_TWIN_SCENARIO=%s" %s\n' % (scenario_path.replace('"', ""), public)
    authorized = os.path.join(STATE_DIR, "authorized_keys")
    with open(os.path.join(STATE_DIR, "keys", ".lock"), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(authorized, encoding="utf-8") as handle:
                present = line in handle.read()
        except FileNotFoundError:
            present = False
        if not present:
            with open(authorized, "a", encoding="utf-8") as handle:
                handle.write(line)
    return key


def stranger_key():
    """A key sshd does not know: a switch that refuses the login (auth_fail)."""
    return _keygen(os.path.join(STATE_DIR, "keys", "stranger", "id_ed25519"), "pyramid-twin-stranger")
