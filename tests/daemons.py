"""Which daemons of another user than root reach into the checkout (issue 73).

A daemon that drops to its own user (FRR's zebra and bgpd to `frr`, slurmctld to SlurmUser) cannot enter a checkout
that sits under a directory of mode 700 (root's home, `mktemp -d`): a file it must read there is a daemon that starts
with nothing, and a lab that never comes up. So the rule the suite holds every such daemon to is stronger than "it
could read its files here": it reads nothing of the checkout at all, wherever the checkout is.
"""

import os


def _inside(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def _owner(pid):
    with open("/proc/%s/status" % pid, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("Uid:"):
                return int(line.split()[2])  # the effective uid: what the kernel checks a path against
    return 0


def _paths(pid):
    """What the process names or holds: its command line's arguments that are paths, its cwd and its open files."""
    with open("/proc/%s/cmdline" % pid, "rb") as handle:
        argv = [arg.decode(errors="replace") for arg in handle.read().split(b"\0") if arg]
    named = [part for arg in argv for part in arg.split("=") if part.startswith("/")]
    held = []
    for link in ["cwd"] + ["fd/" + fd for fd in _fds(pid)]:
        try:
            target = os.readlink("/proc/%s/%s" % (pid, link))
        except OSError:
            continue
        if target.startswith("/"):  # not "pipe:[...]", "socket:[...]"
            held.append(target)
    return argv, named + held


def _fds(pid):
    try:
        return os.listdir("/proc/%s/fd" % pid)
    except OSError:
        return []


def reaching_into(root):
    """[(pid, uid, command, path)] for each process whose effective user is not root and whose command line, cwd or open
    file is inside `root` (the checkout, as its real path)."""
    root = os.path.realpath(root)
    found = []
    for pid in [entry for entry in os.listdir("/proc") if entry.isdigit()]:
        try:
            uid = _owner(pid)
            if uid == 0:
                continue
            argv, paths = _paths(pid)
        except OSError:  # gone meanwhile
            continue
        for path in paths:
            if _inside(os.path.realpath(path), root):
                found.append((int(pid), uid, " ".join(argv)[:200], path))
                break
    return found
