"""sshd ForceCommand of the twin (via twin/ssh_entry): become the node this connection reached.

The node is the server address of SSH_CONNECTION (127.1.x.y, see model.node_address; a switch at
127.2.x.y goes to switch_session.py), the scenario is $PYRAMID_TWIN_SCENARIO (sent with ssh -o SetEnv,
or set by the scenario's own key in authorized_keys, for clients such as paramiko that send no env). The node's files are rendered
once per digest (scenario + twin code) by render.py; then namespace.py mounts them and the
session's command runs with stdin, stdout and exit code untouched.
Hot path: stdlib only, no YAML; errors -> stderr and exit 255, as ssh itself fails.
"""

import os
import sys

try:  # the builtin SHA-256: hashlib loads OpenSSL, a cost every SSH session would pay (issue 33); same digest
    from _sha2 import sha256  # Python 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.8 to 3.11
    except ImportError:
        from hashlib import sha256

HERE = os.path.dirname(os.path.abspath(__file__))
TWIN = os.path.dirname(HERE)
STATE_DIR = os.path.join(os.path.dirname(TWIN), ".twin")
DEFAULT_SCENARIO = os.path.join(TWIN, "scenarios", "default.yml")  # = model.DEFAULT_SCENARIO
CODE_DIGEST = os.path.join(STATE_DIR, "code.digest")  # code_digest's last answer, with the stat it was taken at
HOST_PYTHON = os.path.join(TWIN, "host_python")
sys.path.insert(0, TWIN)  # run as a script under python -I -S


class TwinError(Exception):
    pass


def node_index(address):
    """127.1.x.y -> x * 256 + y (model.node_index_from_address without importing model)."""
    parts = address.split(".")
    if len(parts) != 4 or parts[:2] != ["127", "1"]:
        raise TwinError("connected to %s: twin nodes are at 127.1.x.y" % address)
    return int(parts[2]) * 256 + int(parts[3])


def code_digest():
    """SHA-256 of the twin's code (pyramid_twin/*.py), read and hashed again only when a file's stat changed.

    Every SSH session needs it; hashing the 420 kB each time cost a session 3 ms. A file is unchanged while its inode,
    size, mtime and ctime are (what git's index trusts): an edit, a checkout or a copy changes one of them.
    """
    names = sorted(name for name in os.listdir(HERE) if name.endswith(".py"))
    stamp = sha256()
    for name in names:
        info = os.stat(os.path.join(HERE, name))
        stamp.update(("%s %d %d %d %d\n" % (name, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)).encode())
    stamp = stamp.hexdigest()
    try:
        with open(CODE_DIGEST, "rb") as handle:  # bytes: an ascii text file imports its codec, another 0.6 ms
            cached_stamp, cached = handle.read().decode().split()
        if cached_stamp == stamp:
            return bytes.fromhex(cached)
    except (OSError, ValueError):  # none yet, or unreadable: hash anew
        pass
    sha = sha256()
    for name in names:
        with open(os.path.join(HERE, name), "rb") as handle:
            sha.update(handle.read())
    code = sha.digest()
    try:  # stamped with the stat taken before the read: a file changed in between is hashed again next time
        tmp = "%s.%d" % (CODE_DIGEST, os.getpid())
        with open(tmp, "wb") as handle:
            handle.write(("%s %s\n" % (stamp, code.hex())).encode())
        os.replace(tmp, CODE_DIGEST)
    except OSError:
        pass
    return code


def digest(scenario_bytes):
    """Scenario content plus the twin code that renders it, so a code change re-renders."""
    sha = sha256(code_digest())
    sha.update(scenario_bytes)
    return sha.hexdigest()[:16]


def node_dir(scenario, index):
    try:
        with open(scenario, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise TwinError("scenario %s: %s" % (scenario, exc.strerror)) from exc
    digest_dir = os.path.join(STATE_DIR, "render", digest(data))
    from pyramid_twin import changes
    changed = changes.current(digest_dir, index)
    if changed:  # a remediation earlier in this pod's life changed the node
        return changed
    marker = os.path.join(digest_dir, "@%d" % index)
    if not os.path.exists(marker):
        from pyramid_twin.render_once import render_once  # only on a cache miss
        if not render_once(digest_dir, marker, [os.path.join(HERE, "render.py"), scenario, digest_dir, str(index)]):
            raise TwinError(None)  # render.py said why
    return os.path.realpath(marker)


def read_meta(node):
    """node.meta (render.py): hostname, unreachable, missing tools, placed paths; quicker than JSON."""
    with open(os.path.join(node, "node.meta"), encoding="utf-8") as handle:
        fields = dict(line.rstrip("\n").split(" ", 1) for line in handle)
    return {"hostname": fields["hostname"], "unreachable": fields["unreachable"] == "yes",
            "tools": {"missing": fields["missing"].split()}, "place": fields["place"].split()}


def main():
    connection = os.environ.get("SSH_CONNECTION", "").split()
    if len(connection) != 4:
        raise TwinError("not an SSH session (no SSH_CONNECTION)")
    scenario = os.path.abspath(os.environ.get("PYRAMID_TWIN_SCENARIO") or DEFAULT_SCENARIO)
    # The node's Python compiles Ansible's modules once, not at every module run (twin/host_python/sitecustomize.py).
    os.environ["PYTHONPATH"] = HOST_PYTHON
    if connection[2].startswith("127.2."):  # a switch of the fabric (switch_session.py)
        from pyramid_twin import switch_session
        with open(scenario, "rb") as handle:
            digest_dir = os.path.join(STATE_DIR, "render", digest(handle.read()))
        path = switch_session.switch_json(digest_dir, scenario, switch_session.index_of(connection[2]))
        if path is None:
            raise TwinError(None)
        switch_session.become(path)
    index = node_index(connection[2])
    node = node_dir(scenario, index)
    state = read_meta(node)
    if state["unreachable"]:
        raise TwinError("%s is unreachable in scenario %s" % (state["hostname"], scenario))

    from pyramid_twin import namespace  # only now: an unknown node never pays for ctypes
    try:
        namespace.enter(node, state)
    except OSError as exc:
        raise TwinError("%s: cannot set up the node's mount namespace: %s" % (state["hostname"], exc)) from exc
    # The node's processes see the environment of a plain sshd: no twin variable, no forced command.
    os.environ.pop("PYRAMID_TWIN_SCENARIO", None)
    command = os.environ.pop("SSH_ORIGINAL_COMMAND", None)
    shell = os.environ.get("SHELL") or "/bin/sh"
    if command is None:  # interactive login, as sshd starts it
        os.execv(shell, ["-" + os.path.basename(shell)])
    os.execv(shell, [os.path.basename(shell), "-c", command])


def run():
    try:
        main()
    except TwinError as exc:
        if exc.args[0]:
            sys.stderr.write("pyramid twin: %s\n" % exc)
        sys.exit(255)


if __name__ == "__main__":
    run()
