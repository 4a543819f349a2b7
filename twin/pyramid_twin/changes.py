"""What a session changed on a twin node (mlxconfig set, mlxfwreset, modprobe, mlnx_qos settings, the rails' ecn/
switches, files in /etc/modules-load.d and /etc/udev/rules.d), kept for later sessions.

A real node keeps its NIC firmware config and loaded modules between SSH sessions; so does a twin
node. Its changed state is rendered into .twin/changes/<digest>/<node>-<n>/ and pointed to by
.twin/changes/<digest>/@<index>, which entry.py prefers to the scenario's own render. twin/up
clears .twin/changes: a restarted twin is the pod its scenario describes.
"""

import os
import sys
import time

# json, shutil and subprocess are imported where a change is made: every SSH session and tool run imports this
# module, few change anything (the suite's budget, issue 33).

HERE = os.path.dirname(os.path.abspath(__file__))
STATE_DIR = os.path.join(os.path.dirname(os.path.dirname(HERE)), ".twin")


def changes_dir(node_dir):
    """.twin/changes/<digest> for a node rendered under render/<digest>/ or changes/<digest>/."""
    return os.path.join(STATE_DIR, "changes", os.path.basename(os.path.dirname(os.path.realpath(node_dir))))


def current(digest_dir, index):
    """The changed render of node ``index`` for this digest, or None."""
    marker = os.path.join(STATE_DIR, "changes", os.path.basename(digest_dir), "@%d" % index)
    return os.path.realpath(marker) if os.path.exists(marker) else None


def writable_etc(node_dir, hostname, sub="modules-load.d"):
    """The node's own /etc/<sub>: /etc/modules-load.d (a persistent module load is a file there), /etc/udev/rules.d
    (remediate.yml's rule that puts the RoCE QoS back at every boot)."""
    path = os.path.join(changes_dir(node_dir), "etc-" + hostname, sub)
    os.makedirs(path, exist_ok=True)
    return path


def writable_sys(node_dir, hostname, rendered, name):
    """The node's own writable copy of a rendered sysfs directory (a rail's ecn/ switches, which remediate.yml
    writes), taken from the render the first time and kept across later renders of the node: a real NIC keeps
    what was echoed into its sysfs until it reboots."""
    path = os.path.join(changes_dir(node_dir), "sys-" + hostname, name)
    if not os.path.isdir(path):
        import shutil
        tmp = "%s.tmp%d" % (path, os.getpid())
        shutil.copytree(rendered, tmp)
        try:
            os.rename(tmp, path)
        except OSError:  # another session copied it first
            shutil.rmtree(tmp, ignore_errors=True)
    return path


def commit(node_dir, state):
    """Render ``state`` as the node's new self; sessions started from now on see it."""
    import json
    import subprocess
    base = changes_dir(node_dir)
    os.makedirs(base, exist_ok=True)
    final = os.path.join(base, "%s-%d" % (state["hostname"], time.time_ns()))
    tmp = final + ".tmp"
    with open(tmp + ".json", "w", encoding="utf-8") as handle:
        json.dump(state, handle)
    # render.py needs PyYAML (site-packages); this process may run under python -I -S.
    subprocess.run([sys.executable, os.path.join(HERE, "render.py"), "--state", tmp + ".json", tmp, final],
                   check=True, stdin=subprocess.DEVNULL)
    os.remove(tmp + ".json")
    os.rename(tmp, final)
    link = os.path.join(base, "@%d" % state["index"])
    os.symlink(os.path.basename(final), link + ".new")
    os.replace(link + ".new", link)
