"""Render one twin node's files (what its /proc, /sys and vendor tools show) into a directory.

Run by entry.py only on a cache miss: ``python render.py SCENARIO DIGEST_DIR INDEX``.
Layout of DIGEST_DIR/<node>/ (read by namespace.py and fake_tool.py):

    state.json                the node state (model.node_state)
    state.marshal             the same, for fake_tool.py (no json import at each tool run)
    node.meta                 what entry.py needs: hostname, unreachable, missing tools, placed paths
    fs/<path>                 each file or directory placed over <path> (_files below)
    sys_module/<module>/      /sys/module entries lsmod reads (coresize, refcnt, holders/)
    bin/<tool>                stubs put first on PATH (and over the host's own copy, if any)
    garbage/<tool>            output of a tool_garbage tool
    mnt/{stash,shade}         empty mount points for namespace.py
DIGEST_DIR/@<index> -> <node> is written last: it marks the node as rendered.
The caller (entry.py) holds DIGEST_DIR/.lock, so one process renders while the others wait.
"""

import errno
import json
import marshal
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pyramid_twin import formats, formats_rdma, formats_roce, formats_rpm, model  # noqa: E402  (path set above)

HERE = os.path.dirname(os.path.abspath(__file__))
# The stubs run run_tool.py (fake_tool.main from its cached bytecode, not fake_tool.py compiled at every run)
FAKE_TOOL = os.path.join(HERE, "run_tool.py")
# Tools a twin node simulates; lsmod is the host's real one reading the fake /proc/modules.
SIMULATED = ["ibstat", "mlxconfig", "nvidia-smi", "modinfo", "mlxfwreset", "modprobe", "dmesg", "journalctl", "ib_write_bw", "ping",
             "dcgmi", "mlnx_qos", "ethtool", "fping", "iblinkinfo", "ibqueryerrors", "ibdiagnet", "sminfo", "dump_fts", "dpkg-query",
             "ofed_info", "ibv_devinfo", "p2pBandwidthLatencyTest", "scontrol", "kubectl", "rpm", "rdma", "mlxlink"]
# Layer 5/6 tools, when formats_nccl and formats_fabric (other parts of the twin) provide them.
NCCL_TOOLS = ["all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf", "sendrecv_perf", "torchrun"]
FABRIC_TOOLS = ["mpirun", "srun"]
# Up to this many nodes, the first session renders the whole pod: one YAML load, not one per node.
WHOLE_POD_MAX = 256


class RenderError(Exception):
    pass


def _write(path, text, mode=0o444):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, mode)


def _stub(path, body):
    _write(path, "#!/bin/sh\n" + body + "\n", 0o755)


def _simulated_tools():
    try:
        from pyramid_twin import formats_nccl
    except ImportError:
        return list(SIMULATED)
    tools = SIMULATED + [tool for tool in NCCL_TOOLS if hasattr(formats_nccl, tool)]
    try:
        from pyramid_twin import formats_fabric
    except ImportError:
        return tools
    return tools + [tool for tool in FABRIC_TOOLS if hasattr(formats_fabric, tool)]


def _sys_module(root, modules_text, builtin=None):
    """/sys/module/<name>/ as the kernel shows it, from the same rows as /proc/modules; a built-in module's without
    initstate (only its entries, none where it has neither parameter nor version)."""
    for name, entries in (builtin or {}).items():
        for entry in entries:
            path = os.path.join(root, name, entry)
            if entry == "uevent":
                os.makedirs(os.path.dirname(path), exist_ok=True)
                _write(path, "")
            else:
                os.makedirs(path)
    for line in modules_text.splitlines():
        fields = line.split()
        name, size, refs, holders = fields[0], fields[1], fields[2], fields[3]
        taint = fields[6].strip("()") if len(fields) > 6 else ""
        base = os.path.join(root, name)
        os.makedirs(os.path.join(base, "holders"))
        _write(os.path.join(base, "coresize"), size + "\n")
        _write(os.path.join(base, "refcnt"), refs + "\n")
        _write(os.path.join(base, "initstate"), "live\n")
        _write(os.path.join(base, "taint"), taint + "\n")
        for holder in holders.strip("-").split(","):
            if holder:
                os.symlink("../../" + holder, os.path.join(base, "holders", holder))


def _files(state):
    """{absolute path on the node: text (a file) or list of entry names (a directory)}."""
    return {
        "/proc/meminfo": formats.proc_meminfo(state),
        "/proc/cmdline": formats.proc_cmdline(state),
        "/proc/modules": formats.proc_modules(state),
        "/proc/sys/kernel/osrelease": formats.proc_osrelease(state),
        "/proc/driver/nvidia/version": formats.proc_driver_nvidia_version(state),
        "/sys/class/iommu": list(state["iommu_units"]),
        "/sys/class/infiniband": [rail["device"] for rail in state["rails"]],
        "/etc/os-release": formats_rpm.os_release(state),  # the distribution (issue 67: a RHEL-family node's is Rocky's)
    }


def _absent(state):
    """Tools a node lacks by its kind rather than by a fault (issue 67): rpm but on a RHEL-family node, rdma but on an
    inbox_rdma node; namespace.py masks the host's own copies of them, as of a missing tool."""
    return ([] if state.get("distro") == "rhel" else ["rpm"]) + ([] if state.get("inbox_rdma") else ["rdma"])


def render_into(state, path, final):
    """Render into ``path``; the stubs name ``final``, where it will be renamed to."""
    os.makedirs(path)
    for sub in ("fs", "sys_module", "bin", "garbage", "mnt/stash", "mnt/shade"):
        os.makedirs(os.path.join(path, sub))
    text = json.dumps(state, indent=1)  # key order is output order (mlxconfig rows)
    with open(os.path.join(path, "state.json"), "w", encoding="utf-8") as handle:
        handle.write(text)
    # The same state for fake_tool.py, which reads it at every tool run: marshal is built into Python, json's import
    # (re, enum, functools) was a third of a tool run's CPU (the suite's budget). Loaded back from the JSON text, so a
    # tool sees exactly what json.load would give it (string keys, lists), in the same order.
    with open(os.path.join(path, "state.marshal"), "wb") as handle:
        marshal.dump(json.loads(text), handle)
    files = _files(state)
    for where, content in files.items():
        target = os.path.join(path, "fs", where.lstrip("/"))
        if isinstance(content, list):
            for entry in content:
                os.makedirs(os.path.join(target, entry))
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _write(target, content, 0o644 if where.startswith("/proc/sys/") else 0o444)
    for where, content in (list(formats.sys_rail_pcie(state).items()) + list(formats_roce.sys_files(state).items())
                           + list(formats_rdma.sys_files(state).items())):
        # inside a placed directory (/sys/class/infiniband): its mount carries them, so they are not placed
        target = os.path.join(path, "fs", where.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        _write(target, content)
    _sys_module(os.path.join(path, "sys_module"), files["/proc/modules"], state.get("builtin_modules"))
    with open(os.path.join(path, "node.meta"), "w", encoding="utf-8") as handle:
        handle.write("hostname %s\nunreachable %s\nmissing %s\nplace %s\n" % (
            state["hostname"], "yes" if state["unreachable"] else "no", " ".join(state["tools"]["missing"] + _absent(state)),
            " ".join(sorted(files))))

    tools = state["tools"]
    python = sys.executable
    for tool in set(_simulated_tools()) | {"lsmod"}:
        stub = os.path.join(path, "bin", tool)
        if tool in tools["missing"] or tool == "rpm" and state.get("distro") != "rhel":  # rpm: RHEL-family nodes alone
            continue
        if tool == "rdma" and not state.get("inbox_rdma"):  # iproute2's rdma: the inbox_rdma nodes alone (issue 67)
            continue
        if tool in tools["hang"]:
            # exec: the tool's own process sleeps, so coreutils timeout's SIGTERM ends it.
            _stub(stub, "exec sleep 3600")
        elif tool in tools["garbage"]:
            garbage = os.path.join(path, "garbage", tool)
            _write(garbage, formats.garbage(tool))
            _stub(stub, "exec cat '%s'" % os.path.join(final, "garbage", tool))
        elif tool != "lsmod":
            _stub(stub, "exec '%s' -I -S '%s' '%s' '%s' \"$@\"" % (python, FAKE_TOOL, tool, final))


def _checked(call, scenario_path, *args):
    try:
        return call(*args)
    except model.ScenarioError as exc:
        raise RenderError(str(exc)) from exc
    except Exception as exc:  # unreadable file, YAML syntax, a fault naming what the node lacks
        raise RenderError("scenario %s: %s: %s" % (scenario_path, type(exc).__name__, exc)) from exc


def _render_node(scenario, scenario_path, digest_dir, index):
    name = model.node_names(scenario)[index - 1]
    marker = os.path.join(digest_dir, "@%d" % index)
    if os.path.exists(marker):
        return
    state = _checked(model.node_state, scenario_path, scenario, name)
    final = os.path.join(digest_dir, name)
    if not os.path.isdir(final):
        # Render privately, then rename: a killed render never leaves half a node behind.
        tmp = os.path.join(digest_dir, ".tmp-%s-%d" % (name, os.getpid()))
        shutil.rmtree(tmp, ignore_errors=True)
        render_into(state, tmp, final)
        try:
            os.rename(tmp, final)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
    tmp_link = "%s.%d" % (marker, os.getpid())
    os.symlink(name, tmp_link)
    os.replace(tmp_link, marker)


def render(scenario_path, digest_dir, index):
    """Render node number ``index`` (and, for pods up to WHOLE_POD_MAX nodes, all the others)."""
    scenario = _checked(model.load_scenario, scenario_path, scenario_path)
    count = len(model.node_names(scenario))
    if not 1 <= index <= count:
        raise RenderError("no node at %s: scenario %s has %d nodes"
                          % (model.node_address(index), scenario_path, count))
    os.makedirs(digest_dir, exist_ok=True)
    _render_node(scenario, scenario_path, digest_dir, index)
    if count <= WHOLE_POD_MAX:
        for other in range(1, count + 1):
            try:
                _render_node(scenario, scenario_path, digest_dir, other)
            except RenderError:
                pass  # that node's own sessions report it


def main(argv):
    if len(argv) == 5 and argv[1] == "--state":  # changes.py: render a changed node state
        with open(argv[2], encoding="utf-8") as handle:
            render_into(json.load(handle), argv[3], argv[4])
        return 0
    if len(argv) != 4:
        sys.stderr.write("usage: render.py SCENARIO DIGEST_DIR INDEX\n")
        return 2
    try:
        render(argv[1], argv[2], int(argv[3]))
    except RenderError as exc:
        sys.stderr.write("pyramid twin: %s\n" % exc)
        return 255
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
