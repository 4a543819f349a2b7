"""What `mpirun ... all_reduce_perf` and `srun ... all_reduce_perf` print when started on a twin node
across several nodes: nccl-tests built with MPI=1, one rank per GPU (-g 1), NCCL_DEBUG=INFO lines;
and `mpirun/srun ... torchrun --nnodes=N ...` running the built-in training step across nodes.

The bandwidth is the group's: a healthy pair measures a little above the seed's "what good looks
like" figures; the weakest node (fewer rails used, a slow rail, GPUDirect off, DCQCN off, slow) sets the pace,
a larger ring adds its steps' latency (alpha-beta, as judging/scale.py models a real pod: busbw at small sizes falls
with the node count, flat where the run is bandwidth-bound), and the pod's fabric fault (scenario pod.fabric) shows
only above its node count; its spine funnel, and a faulty leaf uplink (switch_model's uplink_slow, uplink_marginal), only
in an all-to-all across scalable units, which records the load it put through the switches (fabric_load.py). Returns
(rc, stdout, stderr, hang) like formats_nccl.
"""

import math
import os
import random

from pyramid_twin import fabric_load
from pyramid_twin.formats_nccl import COLLECTIVES, _opts, _size, render

# Healthy 2-node busbw by message size (GB/s): seed 000's figures, measured 4% above.
HEALTHY_BUSBW = {1 << 20: 52.0, 64 << 20: 208.0, 1 << 30: 312.0, 4 << 30: 343.0}
NCCL_VERSION = "2.21.5+cuda12.4"
# The latency of one step between nodes: the healthy pair's time below 1 MiB (flat there: 1 MiB on 16 ranks at its
# 52 GB/s busbw, 37.8 us) over a 2-node ring all-reduce's 2 steps. A ring across N nodes adds (its steps - the pair's) x this.
STEP_LATENCY_US = (1 << 20) * (2.0 * 15 / 16) / (HEALTHY_BUSBW[1 << 20] * 1e3) / 2
# Steps between nodes of each ring collective across N nodes: all-reduce is a reduce-scatter then an all-gather
RING_STEPS = {"all_reduce": lambda nodes: 2 * (nodes - 1), "all_gather": lambda nodes: nodes - 1,
              "reduce_scatter": lambda nodes: nodes - 1}


def _healthy(size):
    points = sorted(HEALTHY_BUSBW.items())
    if size <= points[0][0]:
        return points[0][1] * size / points[0][0]
    for (low, low_bw), (high, high_bw) in zip(points, points[1:]):
        if size <= high:
            share = (math.log(size) - math.log(low)) / (math.log(high) - math.log(low))
            return low_bw + share * (high_bw - low_bw)
    return points[-1][1]


def _hca_filter(value):
    """NCCL_IB_HCA: "mlx5_0,mlx5_1", "=mlx5_0" (exact), "^mlx5_3" (all but), "mlx5_0:1" (a port)."""
    if not value:
        return lambda device: True
    exclude = value.startswith("^")
    exact = value.lstrip("^").startswith("=")
    names = [item.split(":")[0] for item in value.lstrip("^=").split(",") if item]

    def wanted(device):
        hit = device in names if exact else any(device.startswith(name) for name in names)
        return hit != exclude
    return wanted


def _node_run(state, env):
    """(rails NCCL uses, GPUDirect on, bandwidth factor) of one node in a multi-node run."""
    wanted = _hca_filter(env.get("NCCL_IB_HCA", ""))
    used = [rail for rail in state["rails"] if rail["state"] == "Active" and wanted(rail["device"])]
    # NCCL's channels carry equal shares, one rail each, and the collective ends with its slowest: one slow rail paces all
    rate = len(used) * min([rail["rate"] for rail in used] or [0]) / (400.0 * max(len(state["gpus"]), 1))
    driver = state["nvidia_driver"]
    gdr = bool(used) and not state["nccl"].get("gdr_off") and (
        "nvidia_peermem" in state["modules"] or driver.get("open_kernel_module"))
    dcqcn = all(entry.get("current") == "255" for rail in state["mlxconfig"].values()
                for key, entry in rail.items() if key.startswith("ROCE_CC_PRIO_MASK"))
    factor = (rate if used else 0.03) * (1.0 if gdr else 0.5) * (1.0 if dcqcn else 0.5) * state["nccl"]["peak_busbw"] / 360.0
    return used, gdr, min(factor, 1.0)


def _info(states, env, runs, ranks_per_node):
    if env.get("NCCL_DEBUG", "").upper() != "INFO":
        return []
    lines = []
    for position, state in enumerate(states):
        host, pid = state["hostname"], 5000 + 100 * position
        used, gdr = runs[position][:2]
        oob = "ens%dnp0:10.1.%d.%d<0>" % (9, state["index"] // 256, state["index"] % 256)
        lines.append("%s:%d:%d [0] NCCL INFO NCCL version %s" % (host, pid, pid, state.get("stack", {}).get("nccl_loaded", NCCL_VERSION)))
        sharp = (state.get("sharp") or {}).get("state") if used and used[0]["link_layer"] != "Ethernet" else None
        if used:
            kind = "RoCE" if used[0]["link_layer"] == "Ethernet" else "IB"
            # the RDMA/SHARP plugin marks every InfiniBand port /SHARP (p2p_plugin.c), used or not
            nics = " ".join("[%d]%s:1/%s%s" % (i, rail["device"], kind, "/SHARP" if sharp else "") for i, rail in enumerate(used))
            lines.append("%s:%d:%d [0] NCCL INFO NET/IB : Using %s [RO]; OOB %s" % (host, pid, pid + 40, nics, oob))
            lines.append("%s:%d:%d [0] NCCL INFO Using network %s" % (host, pid, pid + 40, "IBext_v8" if sharp else "IB"))
            transport = "NET/IB/%d" + ("/GDRDMA" if gdr else "")
        else:
            lines.append("%s:%d:%d [0] NCCL INFO NET/Socket : Using [0]%s" % (host, pid, pid + 40, oob))
            lines.append("%s:%d:%d [0] NCCL INFO Using network Socket" % (host, pid, pid + 40))
            transport = "NET/Socket/%d"
        lines += _collnet(host, pid, position * ranks_per_node, len(states) * ranks_per_node, sharp, env, position)
        peer = (position + 1) % len(states)
        for gpu in range(ranks_per_node):
            rank, to = position * ranks_per_node + gpu, peer * ranks_per_node + gpu
            nic = gpu % max(len(used), 1)
            lines.append("%s:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via %s" % (
                host, pid + gpu, pid + 60 + gpu, gpu, gpu, rank, gpu, to, gpu, transport % nic))
    return lines


def _collnet(host, pid, head, world, sharp, env, position):
    """CollNet (IB SHARP) lines of a node's head rank, NCCL 2.21's (tests/unit/parsers/nccl_debug/sharp_*), where the
    pod's fabric runs SHARP (model pod.sharp) and the run asks for it (NCCL_COLLNET_ENABLE=1): connected (state up), or
    the aggregation manager refusing the job and NCCL falling back (state no_job, as in NVIDIA/nccl-tests#311)."""
    prefix = "%s:%d:%d [0]" % (host, pid, pid + 50)
    # NCCL reads the variable whatever the network: the line says only that it was asked
    asked = ["%s NCCL INFO NCCL_COLLNET_ENABLE set by environment to %s." % (prefix, env["NCCL_COLLNET_ENABLE"])
             ] if "NCCL_COLLNET_ENABLE" in env else []
    if not sharp or env.get("NCCL_COLLNET_ENABLE", "0") in ("", "0"):
        return asked
    lines = asked + ["%s NCCL INFO CollNet 00/0 : %d [%s] via COLLNET/SHARP/0/GDRDMA" % (prefix, head, way)
                     for way in ("receive", "send")]
    if sharp == "up":
        return lines + ["%s NCCL INFO Collnet Chains  [0] %d->%d->-1" % (prefix, head + 1, head),
                        "%s NCCL INFO Connected collnet + chain" % prefix,
                        "%s NCCL INFO rank %d Connected CollNet comm 0x55%010x nRanks %02d" % (prefix, head, pid, world)]
    refused = ["%s sharp_plugin.c:365 NCCL WARN NET/IB : SHARP coll init error: Cannot create SHARP job(-11)" % prefix] if position == 0 else []
    return lines + refused + ["%s transport.cc:384 NCCL WARN Cannot initialize CollNet, using point-to-point network instead" % prefix]


def _alltoall_busbw(states, ranks_per_node):
    """busbw (GB/s) by size of a healthy all-to-all across ``states``: the share for other nodes leaves through the
    NICs at 92% of 50 GB/s a GPU (NCCL's maintainers: 46-49 GB/s from a 400G CX-7), so nccl-tests' busbw tops out
    at that x (R - 1)/(R - G) (NVIDIA/nccl-tests#130), approached as a saturating curve."""
    world = len(states) * ranks_per_node
    peak = 46.0 * (world - 1) / max(world - ranks_per_node, 1)
    return lambda size: peak * size / (size + (4 << 20))


def _funnel(states, fabric):
    """The pod's spine funnel (pod.fabric.spine_funnel): the spine layer carries only ``factor`` of the node ports'
    rate (traffic funnelled onto some spines). Of what leaves a node, the share for other scalable units
    (nodes_per_unit consecutive nodes each) crosses it: an all-to-all runs at min(1, factor / that share), the
    worst-placed node setting the pace; within a unit it stays on the rail leaves."""
    funnel = fabric.get("spine_funnel")
    if not funnel or len(states) < 2:
        return 1.0
    units = [(state["index"] - 1) // funnel["nodes_per_unit"] for state in states]
    share = max((len(units) - units.count(unit)) / (len(units) - 1.0) for unit in units)
    return min(1.0, funnel["factor"] / share) if share else 1.0


# The collectives simulated across nodes: all-reduce (rounds 2 and 3), all-gather and reduce-scatter (rings: slowed
# with it by pod.fabric's degraded_above_nodes, never by the spine funnel; at 90% of its curve, where NCCL's
# all-reduce takes algorithms they do not), all-to-all (round 4).
ACROSS_NODES = ("all_reduce", "all_gather", "reduce_scatter", "alltoall")
RING_SHARE = {"all_reduce": 1.0, "all_gather": 0.9, "reduce_scatter": 0.9}


def group_table(states, ranks_per_node, env, minbytes, maxbytes, factor, banner=None, op="all_reduce", builtin=False):
    """nccl-tests' output for one <op>_perf run across ``states`` (one rank per GPU)."""
    runs = [_node_run(state, env) for state in states]
    pace = min(run[2] for run in runs)
    fabric = states[0].get("fabric") or {}
    if op == "alltoall":  # a ring never loads the bisection; many-to-many does (a faulty uplink too: fabric_load.py)
        pace *= _funnel(states, fabric) * fabric_load.uplink_pace(states)
    elif len(states) > fabric.get("degraded_above_nodes", 1 << 30):
        pace *= fabric.get("factor", 0.6)
    if op == "all_reduce":  # a pair across units: its flows hashed onto one uplink per rail (a faulty one paces it)
        pace *= fabric_load.pair_pace(states)
    world = len(states) * ranks_per_node
    busbw_at = (_alltoall_busbw(states, ranks_per_node) if op == "alltoall"
                else _ring_busbw(op, len(states), world, pace))
    head = ["# nThread 1 nGpus 1 minBytes %d maxBytes %d step: %d(factor) warmup iters: 5 iters: 20 agg iters: 1 "
            "validation: 1 graph: 0" % (minbytes, maxbytes, factor)] + ([banner] if banner else []) + ["#", "# Using devices"]
    for position, state in enumerate(states):
        for gpu in state["gpus"][:ranks_per_node]:
            head.append("#  Rank %2d Group  0 Pid %6d on %10s device %2d [0x%s] %s" % (
                position * ranks_per_node + gpu["index"], 5000 + 100 * position + gpu["index"], state["hostname"],
                gpu["index"], gpu["pci"][5:7], gpu["name"]))
    head += _info(states, env, runs, ranks_per_node)
    faults = [state["nccl"] if op == "all_reduce" else state["nccl"]["collectives"][op] for state in states]
    wrong = max(fault["wrong"] for fault in faults)
    corrupt = fabric.get("corrupt") or {}
    if corrupt.get("op") == op:  # pod.fabric.corrupt: this collective wrong across nodes only, every node alone healthy
        wrong = max(wrong, corrupt["wrong"])
    text, hung = render(head, busbw_at if op != "alltoall" else lambda size: busbw_at(size) * pace, world, "+".join(state["hostname"] for state in states) + op,
                        (minbytes, maxbytes, factor), hang=any(fault["hang"] for fault in faults), wrong=wrong,
                        min_usec=20.0, op=op, in_place_checked=builtin or op != "alltoall")  # the built-in checks both sides
    if op == "alltoall" and not hung:  # what it put through the leaf uplinks and spines, for the switches' counters
        fabric_load.record_alltoall(states, ranks_per_node, (minbytes, maxbytes, factor), text)
    elif op == "all_reduce" and not hung:
        fabric_load.record_pair(states, ranks_per_node, (minbytes, maxbytes, factor), text)
    return (1 if wrong and not hung else 0), text, "", hung


def _ring_busbw(op, nodes, world, pace):
    """busbw (GB/s) by size of a ring collective across ``nodes`` nodes: the pair's curve at the group's pace, its time
    grown by the latency of the steps the larger ring adds (time = alpha x steps + size / bandwidth)."""
    ratio = COLLECTIVES[op]["busbw"](world)
    added = RING_STEPS[op](nodes) - RING_STEPS[op](2)

    def busbw(size):
        pair = _healthy(size) * RING_SHARE[op] * pace
        if added <= 0 or pair <= 0:
            return pair
        return size * ratio / (size * ratio / (pair * 1e3) + STEP_LATENCY_US * added) / 1e3
    return busbw


def _torchrun(states, tasks_per_node, argv, env):
    """torchrun --nnodes=N --nproc_per_node=G ... [--no-python python3 -c SCRIPT | SCRIPT.py] ARGS, one per node."""
    options, program = _program(argv, set())
    values = {}
    for option in options:
        key, _equals, value = option[0].partition("=")
        values[key.lstrip("-").replace("-", "_")] = value
    if tasks_per_node != 1 or int(values.get("nnodes", "1")) != len(states):
        return 1, "", "torchrun: rendezvous timed out: --nnodes=%s but %d agents joined\n" % (
            values.get("nnodes"), len(states) * tasks_per_node), False
    nproc = int(values.get("nproc_per_node", "1"))
    code = program[2] if program[:2] == ["python3", "-c"] and len(program) > 2 else ""
    if "pyramid-parity step=" in code:
        return group_parity_report(states, nproc)
    if "pyramid-train rank=" in code:
        return group_train_log(states, nproc, int(_opts(program[3:], {"--steps": "30"})["--steps"]))
    if "gpufabric.pyramid built-in benchmark" in code:
        opts = _opts(program[3:], {"-b": "8", "-e": "128M", "-f": "2", "--op": "all_reduce"})
        if opts["--op"] not in ACROSS_NODES:
            return 2, "", "pyramid twin: across nodes the built-in runs %s, not %s\n" % (", ".join(ACROSS_NODES), opts["--op"]), False
        return group_table(states, nproc, env, _size(opts["-b"]), _size(opts["-e"]), int(opts["-f"]),
                           banner="# gpufabric.pyramid built-in benchmark: torch 2.4.0 %s over NCCL 2.21.5, "
                                  "CUDA-event timed" % opts["--op"], op=opts["--op"], builtin=True)
    return 2, "", "pyramid twin: across nodes torchrun runs only the built-in payloads (python3 -c)\n", False


def group_parity_report(states, nproc, steps=5):
    """payloads/parity.py across nodes (formats_nccl.parity_report's lines, every node's ranks): a node's
    parity_divergence rank is off from step 1 and, DDP averaging its gradient into every update, every rank from step 2."""
    rng = random.Random("+".join(state["hostname"] for state in states) + "parity")
    hosts = [state["hostname"] for state in states for _local in range(nproc)]
    bad = [position * nproc + state["training"]["parity_rank"] for position, state in enumerate(states)
           if state["training"].get("parity_rank") is not None]
    factor = max([state["training"].get("parity_factor", 1.0) for state in states] or [1.0])
    lines = []
    for step in range(1, steps + 1):
        for rank, host in enumerate(hosts):
            single = rng.uniform(0.7, 1.5)
            drift = step if rank in bad else step - 1
            lines.append("pyramid-parity step=%d rank=%d host=%s single_loss=%.9g ddp_loss=%.9g" % (
                step, rank, host, single, single * (factor ** drift if bad else 1.0)))
    for rank, host in enumerate(hosts):
        lines.append("pyramid-parity params rank=%d host=%s max_diff=%.6g max_abs=0.0313579" % (rank, host, 0.0041 if bad else 0))
    for rank, host in enumerate(hosts):
        lines.append("pyramid-parity fsdp rank=%d host=%s loss=%.9g finite=yes" % (rank, host, rng.uniform(0.7, 1.5)))
    lines.append("pyramid-parity done ranks=%d steps=%d" % (len(hosts), steps))
    return 0, "\n".join(lines) + "\n", "", False


def group_train_log(states, nproc, steps):
    """The built-in training step across nodes: DDP makes every step as slow as the slowest rank."""
    trains = [state["training"] for state in states]
    rng = random.Random("+".join(state["hostname"] for state in states) + "train")
    base = max(train["step_ms"] for train in trains)
    slowest = max(train["slow_factor"] if train["slow_rank"] is not None else 1.0 for train in trains)
    jitter = max(train["jitter"] for train in trains)
    lines = []
    for step in range(1, steps + 1):
        if any(train["timeout"] for train in trains) and step == steps // 2:
            lines.append("[rank0]:[E1122 20:40:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective "
                         "operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, "
                         "Timeout(ms)=600000) ran for 600018 milliseconds before timing out." % (step * 3))
            return 1, "\n".join(lines) + "\n", "", False
        step_ms = base * 1.05 * slowest * (3.0 if step == 1 else 1.0) * (1 + rng.gauss(0, jitter))
        for position, state in enumerate(states):
            train = state["training"]
            for local in range(nproc):
                factor = train["slow_factor"] if local == train["slow_rank"] else 1.0
                lines.append("pyramid-train rank=%d step=%d step_time_ms=%.3f fwd_ms=%.3f loss=%.6f host=%s" % (
                    position * nproc + local, step, step_ms * (1 + rng.gauss(0, 0.001)),
                    train["step_ms"] * 0.3 * factor * (1 + rng.gauss(0, 0.005)), 1.0 / (1 + 0.05 * step), state["hostname"]))
    return 0, "\n".join(lines) + "\n", "", False


def _program(argv, takes_value, takes_two=()):
    """(options, program argv): launcher options up to the first word that is not one."""
    options, index = [], 0
    while index < len(argv) and argv[index].startswith("-"):
        width = 3 if argv[index] in takes_two else 2 if argv[index] in takes_value else 1
        options.append(argv[index:index + width])
        index += width
    return options, argv[index:]


def _run(states, ranks_per_node, env, program, load_failed):
    if load_failed:
        return 1, "", load_failed, False
    if program and program[0].endswith("torchrun"):
        return _torchrun(states, ranks_per_node, program[1:], env)
    tool = program[0].rsplit("/", 1)[-1] if program else ""
    if tool[:-len("_perf")] not in ACROSS_NODES or not tool.endswith("_perf"):
        return 2, "", "pyramid twin: across nodes only %s are simulated, not %r\n" % (
            ", ".join(op + "_perf" for op in ACROSS_NODES), " ".join(program)), False
    opts = _opts(program[1:], {"-b": "8", "-e": "128M", "-f": "2", "-g": "1"})
    if opts["-g"] != "1":
        return 2, "", "pyramid twin: across nodes only -g 1 (one rank per GPU) is simulated\n", False
    return group_table(states, ranks_per_node, env, _size(opts["-b"]), _size(opts["-e"]), int(opts["-f"]),
                       op=tool[:-len("_perf")])


def _load(names, load_node, program):
    """(states, [nodes that cannot be reached], [nodes without the program])."""
    states, lost, toolless = [], [], []
    for name in names:
        state = load_node(name)
        if state is None or state["unreachable"]:
            lost.append(name)
            continue
        if program and program[0] in state["tools"]["missing"]:
            toolless.append(name)
        states.append(state)
    return states, lost, toolless


def _mpirun_lost(launcher, lost):
    return "".join("ssh: connect to host %s port 22: Connection refused\n" % name for name in lost) + (
        "--------------------------------------------------------------------------\n"
        "PRTE has lost communication with a remote daemon.\n\n"
        "  HNP daemon   : [prterun-%s-4242@0,0] on node %s\n  Remote daemon: [prterun-%s-4242@0,1] on node %s\n\n"
        "This is usually due to either a failure of the TCP network\nconnection to the node, or possibly an internal failure of\n"
        "the daemon itself. We cannot recover from this failure, and\ntherefore will terminate the job.\n"
        "--------------------------------------------------------------------------\n" % (launcher, launcher, launcher, lost[0]))


# Open MPI 4.1's refusal (orte/tools/orterun/help-orterun.txt, "orterun:root"), printed when mpirun runs as root without
# --allow-run-as-root or both variables set to 1
AS_ROOT = """--------------------------------------------------------------------------
mpirun has detected an attempt to run as root.

Running as root is *strongly* discouraged as any mistake (e.g., in
defining TMPDIR) or bug can result in catastrophic damage to the OS
file system, leaving your system in an unusable state.

We strongly suggest that you run mpirun as a non-root user.

You can override this protection by adding the --allow-run-as-root option
to the cmd line or by setting two environment variables in the following way:
the variable OMPI_ALLOW_RUN_AS_ROOT=1 to indicate the desire to override this
protection, and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 to confirm the choice and
add one more layer of certainty that you want to do so.
We reiterate our advice against doing so - please proceed at your own risk.
--------------------------------------------------------------------------
"""


def _refused_as_root(argv, env):
    allowed = "--allow-run-as-root" in argv or all(env.get(name) == "1" for name in (
        "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"))
    return os.geteuid() == 0 and not allowed


def mpirun(state, argv, env, load_node):
    """Open MPI: mpirun -np N -H a:8,b:8 [-x NAME[=VALUE]]... [--bind-to none] PROGRAM ARGS."""
    if _refused_as_root(argv, env):  # the twin's sshd runs every command as root, as a root-run pod's Ansible does
        return 1, "", AS_ROOT, False
    options, program = _program(argv, {"-np", "-n", "-H", "--host", "-x", "--bind-to", "--map-by", "--mca"}, {"--mca"})
    hosts, np_ranks, rank_env = [], None, {}
    for option in options:
        if option[0] in ("-H", "--host"):
            hosts = [(item.split(":")[0], int(item.split(":")[1]) if ":" in item else 1) for item in option[1].split(",")]
        elif option[0] in ("-np", "-n"):
            np_ranks = int(option[1])
        elif option[0] == "-x":
            name, _equals, value = option[1].partition("=")
            if value or name in env:
                rank_env[name] = value or env[name]
    if not hosts:
        return 1, "", "pyramid twin: mpirun without -H is not simulated (no hostfile in the twin)\n", False
    slots = {count for _name, count in hosts}
    if np_ranks != sum(count for _name, count in hosts) or len(slots) != 1:
        return 1, "", ("--------------------------------------------------------------------------\n"
                       "There are not enough slots available in the system to satisfy the %s\nslots that were requested "
                       "by the application.\n" % np_ranks), False
    per_node = slots.pop()
    states, lost, toolless = _load([name for name, _count in hosts], load_node, program)
    problem = _mpirun_lost(state["hostname"], lost) if lost else None
    if toolless and not problem:
        rank = [s["hostname"] for s in states].index(toolless[0]) * per_node
        problem = ("--------------------------------------------------------------------------\n"
                   "prterun was unable to launch the specified application as it could not access\n"
                   "or execute an executable:\n\nExecutable: %s\nNode: %s\n\nwhile attempting to start process rank %d.\n"
                   "--------------------------------------------------------------------------\n" % (
                       program[0] if program else "?", toolless[0], rank))
    return _run(states, per_node, rank_env, program, problem)


def srun(state, argv, env, load_node):
    """Slurm: srun --nodes=N --nodelist=a,b --ntasks-per-node=8 [--gpus-per-node=8] [--export=ALL] PROGRAM ARGS."""
    options, program = _program(argv, set())
    values = dict(option[0].split("=", 1) for option in options if "=" in option[0])
    names = [name for name in values.get("--nodelist", "").split(",") if name]
    per_node = int(values.get("--ntasks-per-node", "1"))
    if not names or int(values.get("--nodes", len(names))) != len(names):
        return 1, "", "srun: error: Unable to allocate resources: Requested node configuration is not available\n", False
    export = values.get("--export", "ALL")
    rank_env = dict(env) if export.startswith("ALL") else {}
    states, lost, toolless = _load(names, load_node, program)
    if lost:
        return 1, "", "".join("srun: error: Task launch for StepId=4242.0 failed on node %s: Communication connection "
                              "failure\n" % name for name in lost) + "srun: error: Application launch failed\n", False
    if toolless:
        tool = program[0] if program else "?"
        lines = []
        for name in toolless:
            first = names.index(name) * per_node
            lines.append("slurmstepd: error: execve(): %s: No such file or directory\n"
                         "srun: error: %s: tasks %d-%d: Exited with exit code 2\n" % (tool, name, first, first + per_node - 1))
        return 2, "", "".join(lines), False
    return _run(states, per_node, rank_env, program, None)
