"""A twin node's vendor tools: ``main([_, TOOL, NODE_DIR, ARGS...])``, run by run_tool.py (the stubs in NODE_DIR/bin).

Prints what formats.py renders for the argv the real tool understands, with the real tool's
exit codes; argv the real tool rejects gets its usage error. Valid argv the twin does not
simulate gets a message saying so and rc 2, never made-up output.
"""

import marshal
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pyramid_twin import changes, formats, timing  # noqa: E402  (path set above)

NOT_SIMULATED = 2


def not_simulated(tool, args):
    return NOT_SIMULATED, "", "pyramid twin: `%s` is not simulated\n" % " ".join([tool] + args)


# --- ibstat (infiniband-diags) ---------------------------------------------------------------

IBSTAT_USAGE = ("Usage: ibstat [options] <ca_name> [portnum]\n\nOptions:\n"
                "  --list_of_cas, -l       list all IB devices\n"
                "  --short, -s             short output\n"
                "  --port_list, -p         show port list\n"
                "  --help, -h              help message\n")


def _ca_blocks(state):
    """{device: lines of its ibstat block}, in ibstat order."""
    blocks, current = {}, None
    for line in formats.ibstat(state).splitlines(True):
        if line.startswith("CA '"):
            current = line[4:line.rindex("'")]
            blocks[current] = []
        blocks[current].append(line)
    return blocks


def ibstat(state, args, env):
    flags = [a for a in args if a.startswith("-")]
    names = [a for a in args if not a.startswith("-")]
    known = {"-l", "--list_of_cas", "-s", "--short", "-p", "--port_list"}
    if any(flag not in known for flag in flags) or len(names) > 2 or len(flags) > 1:
        return 2, "", IBSTAT_USAGE  # ibdiag_show_usage() exits 2
    blocks = _ca_blocks(state)
    if flags and flags[0] in ("-l", "--list_of_cas"):
        return 0, "".join(name + "\n" for name in blocks), ""
    if names:
        if names[0] not in blocks:
            return 255, "", "ibpanic: [%d] main: stat of IB device '%s' failed: No such file or directory\n" % (
                os.getpid(), names[0])
        blocks = {names[0]: blocks[names[0]]}
        if len(names) == 2:
            return not_simulated("ibstat", args)
    if flags and flags[0] in ("-p", "--port_list"):
        guids = [line.split(":", 1)[1].strip() for lines in blocks.values() for line in lines
                 if line.strip().startswith("Port GUID:")]
        return 0, "".join(guid + "\n" for guid in guids), ""
    if flags:  # --short: the CA part without the port sections
        return 0, "".join(line for lines in blocks.values() for line in lines[:7]), ""
    return 0, "".join(line for lines in blocks.values() for line in lines), ""


# --- mlxconfig (mstflint / MFT) --------------------------------------------------------------

MLXCONFIG_VERSION = "mlxconfig, mft 4.28.0-92, built on Jun 05 2024, 11:38:29. Git SHA Hash: N/A\n"


def mlxconfig(state, args, env):
    device, command, params = None, None, []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg in ("-d", "--dev"):
            if not rest:
                return 1, "-E- Missing argument for flag: %s\n" % arg, ""
            device = rest.pop(0)
        elif arg in ("-e", "--enable_verbosity", "-y", "--yes", "-q", "--quiet"):
            pass
        elif arg in ("-v", "--version"):
            return 0, MLXCONFIG_VERSION, ""
        elif arg.startswith("-"):
            return 1, "-E- Unknown flag: %s\n" % arg, ""
        elif command is None:
            command = arg
        else:
            params.append(arg)
    if command is None:
        return 1, "-E- No command found. For more information please read the help message:\n", ""
    if command in ("set", "s") and device is not None:
        return mlxconfig_set(state, device, params, "-y" in args or "--yes" in args)
    if command not in ("q", "query"):
        if command in ("set", "s", "reset", "r", "show_confs", "i", "backup", "set_raw", "get_raw"):
            return not_simulated("mlxconfig", args)
        return 1, "-E- Unknown command: %s\n" % command, ""
    if device is None:
        return not_simulated("mlxconfig", args)  # querying every device found by mst
    # The twin renders the -e (default/current/next boot) layout whether or not -e was given.
    rc, out, err = formats.mlxconfig_query(state, device)
    if rc or not params:
        return rc, out, err
    lines = out.splitlines(True)
    head = next(i for i, line in enumerate(lines) if line.startswith("Configurations:")) + 1
    rows = {line.lstrip("* ").split()[0]: line for line in lines[head:] if line.startswith(" ") or line.startswith("*")}
    unknown = [param for param in params if param not in rows]
    if unknown:
        return 1, "-E- The Device doesn't support %s parameter\n" % unknown[0], ""
    picked = [rows[param] for param in params]
    if any(row.startswith("*") for row in picked):
        picked.append(lines[-1])  # the "'*' shows parameters ..." note
    return 0, "".join(lines[:head] + picked), ""


LINK_TYPES = {"IB": "IB(1)", "1": "IB(1)", "IB(1)": "IB(1)", "ETH": "ETH(2)", "2": "ETH(2)", "ETH(2)": "ETH(2)"}


def mlxconfig_set(state, device, params, yes):
    """`mlxconfig -d DEV -y set K=V ...`: new next-boot values, active after mlxfwreset or a reboot."""
    if device not in state["mlxconfig"]:
        return 1, "-E- Failed to open the device\n", ""
    config = state["mlxconfig"][device]
    pairs = [param.split("=", 1) for param in params]
    if not pairs or any(len(pair) != 2 for pair in pairs):
        return 1, "-E- Failed to parse configuration: %s\n" % " ".join(params), ""
    for name, _value in pairs:
        if name not in config:
            return 1, "-E- The Device doesn't support %s parameter\n" % name, ""
    rows = "".join("         %-36s%-16s%s\n" % (name, config[name]["next_boot"], value) for name, value in pairs)
    out = "\nDevice #1:\n----------\n\nDevice type:        ConnectX7\nDevice:             %s\n\n" \
          "Configurations:                                     Next Boot       New\n%s\n" % (device, rows)
    if not yes:
        return 1, out + " Apply new Configuration? (y/n) [n] : n\nAborted by user.\n", ""
    for name, value in pairs:
        # mlxconfig takes a LINK_TYPE by name or number and shows it as both, NAME(n)
        config[name]["next_boot"] = LINK_TYPES.get(value.upper(), value) if name.startswith("LINK_TYPE_P") else value
    changes.commit(NODE[0], state)
    return 0, out + " Apply new Configuration? (y/n) [n] : y\nApplying... Done!\n-I- Please reboot machine to load new configurations.\n", ""


def mlxfwreset(state, args, env):
    """`mlxfwreset -d DEV -y reset`: the firmware restarts and its next-boot config becomes current."""
    device = args[args.index("-d") + 1] if "-d" in args[:-1] else None
    if device is None or "reset" not in args:
        return not_simulated("mlxfwreset", args)
    if device not in state["mlxconfig"]:
        return 1, "-E- Failed to open device: %s\n" % device, ""
    if "-y" not in args and "--yes" not in args:
        return 1, "Requested reset level for device, %s:\n\n3: Driver restart and PCI reset\nContinue with reset?[y/N] \n" \
                  "-E- Aborted by user\n" % device, ""
    for values in state["mlxconfig"][device].values():
        values["current"] = values["next_boot"]
    link_type = state["mlxconfig"][device].get("LINK_TYPE_P1", {}).get("current", "")
    for rail in state["rails"]:  # the port comes up in the link layer its firmware now runs
        if rail["device"] == device and link_type in ("IB(1)", "ETH(2)"):
            rail["link_layer"] = "InfiniBand" if link_type == "IB(1)" else "Ethernet"
    changes.commit(NODE[0], state)
    steps = ["Sending Reset Command To Fw", "Stopping Driver", "Resetting PCI", "Starting Driver", "Restarting MST"]
    return 0, "Requested reset level for device, %s:\n\n3: Driver restart and PCI reset\nContinue with reset?[y/N] y\n%s" \
              "-I- FW was loaded successfully.\n" % (device, "".join("-I- %-40s -Done\n" % step for step in steps)), ""


# Modules a twin node can load: GPUDirect's, which a reimage loses.
LOADABLE = ("nvidia_peermem", "amd_peer_mem")


def modprobe(state, args, env):
    names = [arg for arg in args if not arg.startswith("-")]
    dry_run = "-n" in args or "--dry-run" in args
    if len(names) != 1:
        return not_simulated("modprobe", args)
    name = names[0].replace("-", "_")
    if name in state["modules"]:
        return 0, "", ""
    if name not in LOADABLE:
        return 1, "", "modprobe: FATAL: Module %s not found in directory /lib/modules/%s\n" % (name, state["kernel_release"])
    if not dry_run:
        state["modules"].insert(0, name)
        changes.commit(NODE[0], state)
    return 0, "", ""


# --- nvidia-smi ------------------------------------------------------------------------------

def rising(state):
    """The node's GPU counters as they read now: a fault's rate (model.py: pcie_replays_rising,
    nvlink_errors_rising) times the seconds since this node's first read of them since twin/up; the clock
    lives beside the node's session changes, so twin/up restarts it."""
    if not any(gpu["health"].get("rising") for gpu in state["gpus"]):
        return state
    elapsed = pod_clock(state["hostname"])
    for gpu in state["gpus"]:
        rates, health = gpu["health"].get("rising") or {}, gpu["health"]
        health["pcie_replays"] += int(rates.get("pcie_replays", 0.0) * elapsed)
        for link, per_s in (rates.get("nvlink") or {}).items():
            counts = health["nvlink_errors"].setdefault(link, {"replay": 0, "recovery": 0, "crc": 0})
            counts["recovery"] += int(per_s["recovery"] * elapsed)
            counts["crc"] += int(per_s["crc"] * elapsed)
            counts["replay"] += int(per_s["crc"] * elapsed)
    return state


def pod_clock(name):
    """Seconds since the clock ``name`` was first read in this pod since twin/up (a node's GPU counters: its host name;
    the subnet's error counters: ibqueryerrors), kept beside the pod's session changes so twin/up restarts it: how
    long a rising counter has risen for."""
    clock = os.path.join(changes.changes_dir(NODE[0]), "clock-" + name)
    os.makedirs(os.path.dirname(clock), exist_ok=True)
    try:
        with open(clock, "x", encoding="utf-8") as handle:
            handle.write("%f\n" % time.time())
    except FileExistsError:
        pass
    with open(clock, encoding="utf-8") as handle:
        return max(time.time() - float(handle.read()), 0.0)


def nvidia_smi(state, args, env):
    state = rising(state)
    if args in (["topo", "-m"], ["topo", "--matrix"]):
        return 0, formats.nvidia_smi_topo(state), ""
    if args in (["-L"], ["--list-gpus"]):
        lines = ["GPU %d: %s (UUID: GPU-%08x-%04x-%04x-%04x-%012x)"
                 % (gpu["index"], gpu["name"], state["index"], gpu["index"], 0x4a1b, 0x9c2d, state["index"] * 8 + gpu["index"])
                 for gpu in state["gpus"]]
        return 0, "".join(line + "\n" for line in lines) or "No devices were found\n", ""
    if args in (["-q"], ["--query"]):
        return 0, formats.nvidia_smi_q(state), ""
    if args in (["nvlink", "-s"], ["nvlink", "--status"]):
        return 0, formats.nvidia_smi_nvlink_status(state), ""
    if args in (["nvlink", "-e"], ["nvlink", "--errorcounters"]):
        return 0, formats.nvidia_smi_nvlink_errors(state), ""
    valid_starts = ("topo", "-q", "--query", "--query-gpu", "-h", "--help", "nvlink", "-i", "--id")
    if not args or args[0].split("=")[0] in valid_starts:
        return not_simulated("nvidia-smi", args)
    # NVML's return code 2: "A supplied argument or flag is invalid".
    return 2, "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n\n", ""


# --- dcgmi (DCGM) ----------------------------------------------------------------------------

def dcgmi(state, args, env):
    """dcgmi diag -r 1 -j (--run, --json too): level 1 only; levels 2 to 4 would run tests the twin has no
    real layout for, so they are not simulated."""
    words = ["-r" if arg == "--run" else "-j" if arg == "--json" else arg for arg in args]
    if words[:1] != ["diag"]:
        return not_simulated("dcgmi", args)
    if sorted(words[1:]) != sorted(["-r", "1", "-j"]) or words[words.index("-r") + 1:][:1] != ["1"]:
        return not_simulated("dcgmi", args)
    rc, out = formats.dcgmi_diag_json(state)
    return rc, out, ""


# --- the software stack: dpkg-query, ofed_info ------------------------------------------------

# The one -f format the pyramid asks for (catalog/host.yml stack_packages), as the shell-less argv carries it
DPKG_FORMAT = "${db:Status-Abbrev}\\t${Package}\\t${Version}\\n"


def dpkg_query(state, args, env):
    """dpkg-query -W -f <format> <pattern>...: a line per installed package a pattern matches, sorted by name
    (stdout); "no packages found matching" per pattern that matched none (stderr, exit 1), as dpkg 1.22 does."""
    if args[:3] != ["-W", "-f", DPKG_FORMAT] or len(args) < 4:
        return not_simulated("dpkg-query", args)
    # here alone, so that every other tool run stays as quick
    import fnmatch  # pylint: disable=import-outside-toplevel
    installed = state["stack"]["packages"]
    found, missing = set(), []
    for pattern in args[3:]:
        matched = [name for name in installed if fnmatch.fnmatchcase(name, pattern)]
        found.update(matched)
        if not matched:
            missing.append(pattern)
    out = "".join("ii \t%s\t%s\n" % (name, installed[name]) for name in sorted(found))
    err = "".join("dpkg-query: no packages found matching %s\n" % pattern for pattern in missing)
    return (1 if missing else 0), out, err


# ibv_devinfo.c's port states and MTUs ("PORT_ACTIVE (4)", "4096 (5)"), as the real captures print them
# (tests/unit/parsers/linux_ibv_devinfo: a ConnectX-6 on HDR, a ConnectX-7 RoCE port down)
_VERBS_STATES = {"Active": "PORT_ACTIVE (4)", "Down": "PORT_DOWN (1)", "Initializing": "PORT_INIT (2)", "Armed": "PORT_ARMED (3)"}
_MTU_ENUM = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}


def ibv_devinfo(state, args, env):  # pylint: disable=unused-argument
    """`ibv_devinfo -d <device>`: one rail's device and its port. An InfiniBand port negotiates 4096 (its `ib_mtu`, the
    fault of that name); a RoCE port the largest IB MTU under its netdev's (9000 -> 4096); a port not Active 1024."""
    if len(args) != 2 or args[0] != "-d":
        return not_simulated("ibv_devinfo", args)
    rail = next((item for item in state["rails"] if item["device"] == args[1]), None)
    if rail is None:  # ibv_devinfo.c: no device of that name
        return 255, "", "IB device '%s' wasn't found\n" % args[1]
    top = rail.get("ib_max_mtu", 4096)
    if rail["state"] != "Active":
        active = 1024
    elif rail["link_layer"] == "InfiniBand":
        active = rail.get("ib_mtu", top)
    else:
        from pyramid_twin import formats_roce  # pylint: disable=import-outside-toplevel
        netdev_mtu = formats_roce.config(state, rail)["mtu"]  # RoCE's IB MTU fits the netdev's with its headers
        active = max(size for size in _MTU_ENUM if size <= max(netdev_mtu - 100, 256))
    guid = rail["node_guid"][2:].rjust(16, "0")
    lids = rail["link_layer"] == "InfiniBand" and rail["state"] == "Active"  # as ibstat's (formats.ibstat)
    sm_lid = rail.get("sm_lid", (state.get("ib_sm") or {}).get("lid", 1))
    port_lid = state.get("index", 1) * 16 + state["rails"].index(rail) + 1
    lines = ["hca_id:\t%s" % rail["device"], "\ttransport:\t\t\tInfiniBand (0)", "\tfw_ver:\t\t\t\t%s" % rail["firmware"],
             "\tnode_guid:\t\t\t%s" % ":".join(guid[i:i + 4] for i in range(0, 16, 4)),
             "\tsys_image_guid:\t\t\t%s" % ":".join(guid[i:i + 4] for i in range(0, 16, 4)),
             "\tvendor_id:\t\t\t0x02c9", "\tvendor_part_id:\t\t\t4129", "\thw_ver:\t\t\t\t0x0",
             "\tboard_id:\t\t\tMT_0000000838", "\tphys_port_cnt:\t\t\t1", "\t\tport:\t1",
             "\t\t\tstate:\t\t\t%s" % _VERBS_STATES.get(rail["state"], "PORT_DOWN (1)"),
             "\t\t\tmax_mtu:\t\t%d (%d)" % (top, _MTU_ENUM[top]), "\t\t\tactive_mtu:\t\t%d (%d)" % (active, _MTU_ENUM[active]),
             "\t\t\tsm_lid:\t\t\t%d" % (sm_lid if lids else 0), "\t\t\tport_lid:\t\t%d" % (port_lid if lids else 0),
             "\t\t\tport_lmc:\t\t0x00", "\t\t\tlink_layer:\t\t%s" % rail["link_layer"], ""]
    return 0, "\n".join(lines) + "\n", ""


def rpm(state, args, env):
    """A RHEL-family node's rpm (formats_rpm.py; a node of the distro fault, issue 67)."""
    from pyramid_twin import formats_rpm  # pylint: disable=import-outside-toplevel
    return formats_rpm.rpm(state, args, env)


def rdma(state, args, env):
    """iproute2's rdma on an inbox_rdma node (formats_rdma.py, issue 67)."""
    from pyramid_twin import formats_rdma  # pylint: disable=import-outside-toplevel
    return formats_rdma.rdma(state, args, env)


def mlxlink(state, args, env):
    """NVIDIA MFT's mlxlink: one rail's own physical layer (formats_mlxlink.py, issue 67)."""
    from pyramid_twin import formats_mlxlink  # pylint: disable=import-outside-toplevel
    return formats_mlxlink.mlxlink(state, args, env)


def ofed_info(state, args, env):
    if args != ["-s"] or not state["stack"]["ofed"]:
        return not_simulated("ofed_info", args)
    return 0, "%s:\n" % state["stack"]["ofed"], ""


# --- the kernel log (util-linux dmesg, systemd journalctl) -----------------------------------

def dmesg(state, args, env):
    if list(args) in (["--json"], ["-J"]):
        if not state.get("dmesg_json", True):  # util-linux 2.37's getopt_long, then its usage hint
            said = "unrecognized option '--json'" if args[0] == "--json" else "invalid option -- 'J'"
            return 1, "", "dmesg: %s\nTry 'dmesg --help' for more information.\n" % said
        return 0, formats.dmesg_json(state), ""
    if args:
        return not_simulated("dmesg", args)
    return 0, formats.dmesg(state), ""


def journalctl(state, args, env):
    cursor = "--show-cursor" in args  # --all / -a changes nothing: the twin's kernel messages are printable text
    if sorted(arg for arg in args if arg not in ("--show-cursor", "--all", "-a")) != sorted(["-k", "-b", "--no-pager"]):
        return not_simulated("journalctl", args)
    return 0, formats.journalctl_kernel(state, cursor=cursor), ""


# --- modinfo (kmod) --------------------------------------------------------------------------

def modinfo(state, args, env):
    field, names, rest = None, [], list(args)
    while rest:
        arg = rest.pop(0)
        if arg in ("-F", "--field"):
            if not rest:
                return 1, "", "modinfo: option requires an argument -- 'F'\n"
            field = rest.pop(0)
        elif arg.startswith("--field="):
            field = arg.split("=", 1)[1]
        elif arg in ("-V", "--version"):
            return 0, "kmod version 30\n+ZSTD +XZ -ZLIB +LIBCRYPTO -EXPERIMENTAL\n", ""
        elif arg.startswith("-"):
            return 1, "", ("modinfo: unrecognized option '%s'\n"
                           "modinfo: ERROR: unexpected getopt_long() value '?'.\n" % arg)
        else:
            names.append(arg)
    if not names:
        return 1, "", "modinfo: ERROR: missing module or filename.\n"
    out, err, rc = [], [], 0
    for name in names:
        if name == "nvidia":
            text = formats.modinfo_nvidia(state)
        elif name in formats.MODULES or name in state.get("builtin_modules", {}):  # installed, loaded or not
            text = formats.modinfo_module(state, name)
        else:
            err.append("modinfo: ERROR: Module %s not found.\n" % name)
            rc = 1
            continue
        if field is None:
            out.append(text)
            continue
        for line in text.splitlines():
            key, value = line.split(":", 1) if ":" in line else ("", "")
            if key == field:
                out.append(value.strip() + "\n")
    return rc, "".join(out), "".join(err)


# --- Layer 5/6 tools (formats_nccl.py returns (rc, stdout, stderr, hang)) ----------------------

def _nccl(name):
    def run(state, args, env):
        from pyramid_twin import formats_nccl
        return getattr(formats_nccl, name)(state, args, env)
    return run


def p2p_bandwidth_latency_test(state, args, env):
    from pyramid_twin import formats_p2p  # pylint: disable=import-outside-toplevel
    return formats_p2p.p2p_bandwidth_latency_test(state, args, env)


def _fabric(name):
    def run(state, args, env):
        from pyramid_twin import formats_fabric
        return getattr(formats_fabric, name)(state, args, env, load_node)
    return run


def _rail_mesh(module, name):
    def run(state, args, env):
        import importlib
        return getattr(importlib.import_module("pyramid_twin." + module), name)(state, args, env, load_node)
    return run


def _roce(name):
    def run(state, args, env):
        from pyramid_twin import formats_roce
        if name == "mlnx_qos" and len(args) > 2:  # a setting (remediate.yml): kept for later sessions
            rc, out, err, changed = formats_roce.mlnx_qos_set(state, args)
            if changed:
                changes.commit(NODE[0], state)
            return rc, out, err
        return getattr(formats_roce, name)(state, args, env)
    return run


def _scheduler(name):
    """Slurm's scontrol, Kubernetes' kubectl: the pod's scheduler, its state kept for later runs (scheduler.py)."""
    def run(state, args, env):  # pylint: disable=unused-argument
        from pyramid_twin import scheduler
        folder = changes.changes_dir(NODE[0])
        os.makedirs(folder, exist_ok=True)
        # the pod's nodes: those rendered for this scenario (render/<digest>/@<n> for node n)
        render_dir = os.path.join(changes.STATE_DIR, "render", os.path.basename(folder))
        count = sum(1 for entry in os.listdir(render_dir) if entry.startswith("@"))
        width = max(3, len(str(count)))
        nodes = ["node-%0*d" % (width, index) for index in range(1, count + 1)]
        return getattr(scheduler, name)(os.path.join(folder, "scheduler.json"), nodes, args)
    return run


def read_state(node_dir):
    """A rendered node's state: its state.marshal, the state.json that render.py wrote, read without json's import."""
    with open(os.path.join(node_dir, "state.marshal"), "rb") as handle:
        return marshal.load(handle)


def load_node(name):
    """Another node of this pod as it is now (its changed render if a session changed it), or None."""
    if not name.startswith("node-") or not name[5:].isdigit():
        return None
    node = os.path.realpath(NODE[0])
    render_dir = os.path.join(changes.STATE_DIR, "render", os.path.basename(os.path.dirname(node)))
    index = int(name[5:])
    path = changes.current(render_dir, index) or os.path.join(render_dir, "@%d" % index)
    try:
        state = read_state(path)
    except OSError:
        return None
    return state if state["hostname"] == name else None


TOOLS = {
    "ib_write_bw": _rail_mesh("formats_perftest", "ib_write_bw"),
    "iblinkinfo": _rail_mesh("formats_infiniband", "iblinkinfo"),  # the whole subnet: every node of the pod
    "ibqueryerrors": _rail_mesh("formats_infiniband", "ibqueryerrors"),
    "ibdiagnet": _rail_mesh("formats_infiniband", "ibdiagnet"),  # NVIDIA's ibutils2: the same counters, its database
    "sminfo": _rail_mesh("formats_infiniband", "sminfo"),  # the subnet's master SM (pod.ib_sm)
    "dump_fts": _rail_mesh("formats_infiniband", "dump_fts"),  # every switch's forwarding table (pod.ib_sm.roots)
    "ping": _rail_mesh("formats_ping", "ping"),
    "fping": _rail_mesh("formats_ping", "fping"),
    "ibstat": ibstat,
    "mlxconfig": mlxconfig,
    "mlxlink": mlxlink,
    "nvidia-smi": nvidia_smi,
    "modinfo": modinfo,
    "all_reduce_perf": _nccl("all_reduce_perf"),
    "all_gather_perf": _nccl("all_gather_perf"),
    "reduce_scatter_perf": _nccl("reduce_scatter_perf"),
    "alltoall_perf": _nccl("alltoall_perf"),
    "sendrecv_perf": _nccl("sendrecv_perf"),
    "torchrun": _nccl("torchrun"),
    "mpirun": _fabric("mpirun"),
    "srun": _fabric("srun"),
    "mlxfwreset": mlxfwreset,
    "modprobe": modprobe,
    "dmesg": dmesg,
    "journalctl": journalctl,
    "dcgmi": dcgmi,
    "dpkg-query": dpkg_query,
    "rpm": rpm,
    "rdma": rdma,
    "p2pBandwidthLatencyTest": p2p_bandwidth_latency_test,
    "ofed_info": ofed_info,
    "ibv_devinfo": ibv_devinfo,
    "mlnx_qos": _roce("mlnx_qos"),
    "ethtool": _roce("ethtool"),
    "scontrol": _scheduler("scontrol"),
    "kubectl": _scheduler("kubectl"),
}
NODE = [None]  # the node directory this tool runs for (changes.commit renders the node's new self there)


def _ran(node, hostname, words):
    """Keep the command line of every simulated tool run, one line each, in .twin/changes/<digest>/ran/<host>.log:
    what the tests read to prove what ran (check mode runs no load tool). One append of one short line: atomic
    beside the node's other tools."""
    folder = os.path.join(changes.changes_dir(node), "ran")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hostname + ".log"), "a", encoding="utf-8") as handle:
        handle.write(" ".join([words[0]] + words[2:]) + "\n")


def main(argv):
    tool, node = argv[1], argv[2]
    NODE[0] = node
    state = read_state(node)
    # A setting made earlier in this same session (one task's mlnx_qos on rail after rail) is there now, as on a
    # real node: the session's node directory is the render it started with, the latest one may be newer.
    state = load_node(state["hostname"]) or state
    _ran(node, state["hostname"], argv[1:])
    result = TOOLS[tool](state, argv[3:], dict(os.environ))
    start = time.time()
    if timing.pause(state, tool, argv[3:], result):  # the scenario's timing mode: what the real run would take
        timing.record(os.path.join(changes.changes_dir(node), "timing"), timing.entry(state, tool, result, time.time() - start, start))
    rc, out, err = result[:3]
    sys.stdout.write(out)
    sys.stderr.write(err)
    if len(result) > 3 and result[3]:  # a hung run: output so far, then no answer
        sys.stdout.flush()
        sys.stderr.flush()
        time.sleep(3600)
    return rc
