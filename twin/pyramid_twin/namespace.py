"""Give the calling process a private mount namespace that shows one rendered twin node.

Stdlib only (ctypes): this runs on every SSH session. Called by entry.py just before it execs
the session's command; see render.py for the node directory layout.
"""

import ctypes
import os

CLONE_NEWNS, CLONE_NEWUTS = 0x00020000, 0x04000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
MNT_DETACH = 2
AT_FDCWD = -100
SYS_OPEN_TREE, SYS_MOVE_MOUNT = 428, 429  # same number on every architecture
OPEN_TREE_CLONE, OPEN_TREE_CLOEXEC = 1, 0o2000000
MOVE_MOUNT_F_EMPTY_PATH = 4

# Where a node's tools may also live on the host: get_bin_path searches the sbin dirs besides PATH.
SYSTEM_BIN_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
TOOLS = ["ibstat", "lsmod", "mlxconfig", "nvidia-smi", "modinfo", "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
         "alltoall_perf", "sendrecv_perf", "torchrun", "mlxfwreset", "modprobe", "dmesg", "journalctl", "dcgmi", "mlnx_qos",
         "ethtool", "dpkg-query", "rpm", "rdma"]

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result, what):
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, "%s: %s" % (what, os.strerror(code)))
    return result


def _b(path):
    return None if path is None else os.fsencode(path)


def mount(source, target, fstype=None, flags=0, data=None):
    _check(_libc.mount(_b(source), _b(target), _b(fstype), ctypes.c_ulong(flags), _b(data)),
           "mount %s on %s" % (source, target))


def bind_ro(source, target):
    mount(source, target, None, MS_BIND | MS_REC)
    # Read-only, so a session cannot change the shared render cache through the node's /proc.
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY)


def mount_on_entry(source, target):
    """Mount ``source`` on the directory entry ``target`` itself, even when it is a symlink.

    mount(2) follows a final symlink: masking /usr/sbin/lsmod -> /bin/kmod would mask modinfo
    and every other kmod name too. open_tree + move_mount (Linux 5.2) do not follow it.
    """
    fd = _check(_libc.syscall(SYS_OPEN_TREE, AT_FDCWD, _b(source), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC),
                "open_tree %s" % source)
    try:
        _check(_libc.syscall(SYS_MOVE_MOUNT, fd, b"", AT_FDCWD, _b(target), MOVE_MOUNT_F_EMPTY_PATH),
               "move_mount %s on %s" % (source, target))
    finally:
        os.close(fd)


def shadow(target, work, extra, hide=(), keep_host=None):
    """Put a tmpfs copy of directory ``target`` over it, with ``extra`` entries added.

    For pseudo file systems where a file must appear that the host kernel lacks (no
    /proc/modules on a kernel without module support): every host entry is bound back in from
    a stash, entries named in ``hide`` are left out, and ``extra`` maps name -> rendered source.
    ``keep_host`` names a hidden entry where the host's file system stays reachable (the magic
    /proc/self link must resolve into a real procfs).
    """
    stash, shade = os.path.join(work, "stash"), os.path.join(work, "shade")
    mount(target, stash, None, MS_BIND | MS_REC)
    mode = os.stat(target).st_mode & 0o7777
    mount("tmpfs", shade, "tmpfs", MS_NOSUID | MS_NODEV, "mode=%o" % mode)
    for name in os.listdir(stash):
        if name in extra or name in hide:
            continue
        source, entry = os.path.join(stash, name), os.path.join(shade, name)
        if keep_host and (name.isdigit() or name in ("self", "thread-self")):
            os.symlink(os.path.join(keep_host, name), entry)  # pids at session start, and self
        elif os.path.islink(source):
            os.symlink(os.readlink(source), entry)
        elif os.path.isdir(source):
            os.mkdir(entry)
            mount(source, entry, None, MS_BIND | MS_REC)
        else:
            os.close(os.open(entry, os.O_CREAT | os.O_WRONLY, 0o444))
            mount(source, entry, None, MS_BIND | MS_REC)
    for name, source in extra.items():
        entry = os.path.join(shade, name)
        if os.path.isdir(source):
            os.mkdir(entry)
        else:
            os.close(os.open(entry, os.O_CREAT | os.O_WRONLY, 0o444))
        bind_ro(source, entry)
    if keep_host:
        os.mkdir(os.path.join(shade, keep_host))
        mount(stash, os.path.join(shade, keep_host), None, MS_MOVE)
    else:
        _libc.umount2(_b(stash), MNT_DETACH)
    mount(None, shade, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    mount(shade, target, None, MS_MOVE)


def _host_copies(tool):
    """The host's own paths of ``tool`` in the system bin dirs, one per real directory."""
    seen, paths = set(), []
    for directory in SYSTEM_BIN_DIRS:
        path = os.path.join(directory, tool)
        key = (os.path.realpath(directory), tool)
        if key not in seen and os.path.lexists(path):
            seen.add(key)
            paths.append(path)
    return paths


def _place(node, paths):
    """Put the node's rendered fs/<path> over each of ``paths``.

    A path the host has gets a read-only bind mount. One it lacks (no /proc/modules on a kernel
    without module support) is added to a shadow of its nearest existing ancestor, all such
    additions to one ancestor at once, the ancestors nearest the root first.
    """
    def rendered(path):
        return os.path.join(node, "fs", path.lstrip("/"))

    present = [path for path in paths if os.path.exists(path)]
    additions = {}
    for path in paths:
        if path in present:
            continue
        ancestor, child = os.path.split(path)
        while not os.path.exists(ancestor):
            ancestor, child = os.path.split(ancestor)
        additions.setdefault(ancestor, {})[child] = rendered(os.path.join(ancestor, child))
    for ancestor in sorted(additions, key=len):
        # /proc/self is a magic link: it must resolve into a real procfs, kept at /proc/.host.
        shadow(ancestor, os.path.join(node, "mnt"), additions[ancestor],
               keep_host=".host" if ancestor == "/proc" else None)
    for path in present:
        bind_ro(rendered(path), path)


def _sys_module(node):
    """lsmod reads size, use count and holders in /sys/module: the node's modules, not the host's."""
    if not os.path.isdir("/sys/module"):
        return
    modules = os.path.join(node, "sys_module")
    host_loaded = [name for name in os.listdir("/sys/module")
                   if os.path.exists(os.path.join("/sys/module", name, "initstate"))]  # built-ins have none
    extra = {name: os.path.join(modules, name) for name in os.listdir(modules)}
    shadow("/sys/module", os.path.join(node, "mnt"), extra, hide=host_loaded)


def _tools(node, state):
    bin_dir = os.path.join(node, "bin")
    for tool in TOOLS:
        stub = os.path.join(bin_dir, tool)
        if tool in state["tools"]["missing"]:
            # Not executable, so get_bin_path (PATH, then /sbin, /usr/sbin) finds nothing.
            for path in _host_copies(tool):
                mount_on_entry("/dev/null", path)
        elif os.path.exists(stub):
            # The node's version also answers to the host path (/sbin/modinfo, a hung lsmod).
            for path in _host_copies(tool):
                mount_on_entry(stub, path)


def _writable_ecn(node, hostname):
    """Each rail's ecn/ switches writable, as a real netdev's are (echo 1 > .../ecn/roce_rp/enable/3), on the node's
    own copy (changes.writable_sys), mounted over the read-only render."""
    from pyramid_twin import changes
    rendered = os.path.join(node, "fs", "sys", "class", "infiniband")
    for device in sorted(os.listdir(rendered)) if os.path.isdir(rendered) else []:
        net = os.path.join(rendered, device, "device", "net")
        for netdev in sorted(os.listdir(net)) if os.path.isdir(net) else []:
            ecn = os.path.join(net, netdev, "ecn")
            if os.path.isdir(ecn):
                copy = changes.writable_sys(node, hostname, ecn, "%s-%s-ecn" % (device, netdev))
                mount(copy, "/sys/class/infiniband/%s/device/net/%s/ecn" % (device, netdev), None, MS_BIND)


def enter(node, state):
    """Unshare and mount; afterwards this process (and what it execs) sees node ``node``."""
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWUTS), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here leaks to the host
    hostname = os.fsencode(state["hostname"])
    _check(_libc.sethostname(hostname, len(hostname)), "sethostname")
    _place(node, state["place"])
    _sys_module(node)
    _tools(node, state)
    from pyramid_twin import changes
    if os.path.isdir("/etc/modules-load.d"):  # the node's own, writable: persistent module loads land here
        mount(changes.writable_etc(node, state["hostname"]), "/etc/modules-load.d", None, MS_BIND)
    if os.path.isdir("/etc/udev/rules.d"):  # the node's own, writable: remediate.yml's boot-time RoCE QoS rule
        mount(changes.writable_etc(node, state["hostname"], "udev-rules.d"), "/etc/udev/rules.d", None, MS_BIND)
    _writable_ecn(node, state["hostname"])
    os.environ["PATH"] = os.path.join(node, "bin") + ":" + os.environ.get("PATH", "/usr/bin:/bin")
