"""What nccl-tests' <collective>_perf and torchrun print on a twin node, from its Layer 5/6 state.

The table follows nccl-tests' src/common.cu printf layout; busbw rises with message size towards the
node's peak (a saturating curve, as real runs do). Each collective has nccl-tests' own sizes, counts, busbw
factor and reduction column (src/<op>.cu, nccl-tests 2.19; payloads/nccl_bench.py the same); alltoall_perf prints
in-place #wrong N/A, as nccl-tests 2.18.2 does. Returns (rc, stdout, stderr, hang): a hang prints what a hung run
prints before it stops answering, and the fake tool then sleeps.
"""

import random

HALF_PEAK_BYTES = 8 << 20  # message size at which a node reaches half its peak busbw
# Per collective: nccl-tests' reduction column, whether its count is per rank (rounded down to 16 bytes), its busbw
# factor, and its peak busbw against all-reduce's on the same node: the real 2 x H200 runs of payloads/nccl_bench.py at
# 4 GiB (tests/unit/parsers/nccl_tests/h200_x2_builtin_*_real.raw: 307, 303, 338, 365 GB/s beside all-reduce's 322).
COLLECTIVES = {
    "all_reduce": {"redop": "sum", "per_rank": False, "busbw": lambda n: 2.0 * (n - 1) / n, "peak": 1.0},
    "all_gather": {"redop": "none", "per_rank": True, "busbw": lambda n: (n - 1.0) / n, "peak": 0.95},
    "reduce_scatter": {"redop": "sum", "per_rank": True, "busbw": lambda n: (n - 1.0) / n, "peak": 0.94},
    "alltoall": {"redop": "none", "per_rank": True, "busbw": lambda n: (n - 1.0) / n, "peak": 1.05},
    "sendrecv": {"redop": "sum", "per_rank": False, "busbw": lambda n: 1.0, "peak": 1.13},
}


def _size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def _opts(argv, defaults):
    opts, i = dict(defaults), 0
    while i < len(argv):
        if argv[i] in opts and i + 1 < len(argv):
            opts[argv[i]] = argv[i + 1]
            i += 1
        i += 1
    return opts


def _nccl_info(state, gpus, env):
    if env.get("NCCL_DEBUG", "").upper() != "INFO":
        return []
    host = state["hostname"]
    lines = ["%s:4242:4242 [0] NCCL INFO NCCL version %s" % (host, state.get("stack", {}).get("nccl_loaded", "2.21.5+cuda12.4"))]
    for gpu in range(gpus):
        peer = (gpu + 1) % gpus
        lines.append("%s:4242:%d [%d] NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via P2P/CUMEM" % (host, 4300 + gpu, gpu, gpu, gpu, peer, peer))
    return lines


COLUMN_HEAD = [
    "#", "#%61s%35s" % ("out-of-place", "in-place"),
    "#%11s%14s%10s%8s%8s%9s%8s%8s%7s%9s%8s%8s%7s" % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                                                     "#wrong", "time", "algbw", "busbw", "#wrong"),
    "#%11s%14s%35s%8s%8s%16s%8s%8s" % ("(B)", "(elements)", "(us)", "(GB/s)", "(GB/s)", "(us)", "(GB/s)", "(GB/s)")]


def render(head, busbw_at, world, seed, sizes, hang=False, wrong=0, min_usec=5.0, op="all_reduce", in_place_checked=True):
    """(text, hung): the head lines, the column heads, one row per size from busbw_at(size), the trailer.
    A hang stops halfway, after what a hung run prints."""
    out, rng, busbws, spec = list(head) + COLUMN_HEAD, random.Random(seed), [], COLLECTIVES[op]
    minbytes, maxbytes, factor = sizes
    size, index, count_sizes = minbytes, 0, 0
    while minbytes * factor ** count_sizes <= maxbytes:
        count_sizes += 1
    while size <= maxbytes:
        if hang and index == count_sizes // 2:
            return "\n".join(out) + "\n", True
        if spec["per_rank"]:
            count = (size // 4 // max(world, 1)) & ~3
            moved = count * max(world, 1) * 4
        else:
            count = max(size // 4, 1)
            moved = count * 4
        cells = []
        for side in (0, 1):  # out-of-place, in-place
            busbw = busbw_at(size) * rng.uniform(0.99, 1.01) if moved else 0.0
            ratio = spec["busbw"](world) if world > 1 else 1.0
            algbw = busbw / ratio if ratio else busbw
            usec = max(moved / (algbw * 1e3), min_usec) if algbw else min_usec
            checked = side == 0 or in_place_checked
            bad = "%7d" % (wrong if wrong and size >= (1 << 20) else 0) if checked else "    N/A"
            cells.append("%9.2f%8.2f%8.2f%s" % (usec, algbw, busbw, bad))
            busbws.append(busbw)
        out.append("%12d%14d%10s%8s%8d %s %s" % (moved, count, "float", spec["redop"], -1, cells[0], cells[1]))
        size *= factor
        index += 1
    out += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %.4f " % (sum(busbws) / len(busbws)), "#"]
    return "\n".join(out) + "\n", False


def table(state, minbytes, maxbytes, factor, gpus, env, banner=None, op="all_reduce", in_place_checked=True):
    nccl = state["nccl"]
    faults = nccl if op == "all_reduce" else nccl["collectives"][op]
    head = ["# nThread 1 nGpus %d minBytes %d maxBytes %d step: %d(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
            % (gpus, minbytes, maxbytes, factor)] + ([banner] if banner else []) + ["#", "# Using devices"]
    for gpu in state["gpus"][:gpus]:
        head.append("#  Rank %2d Group  0 Pid   4242 on %10s device %2d [0x%s] %s" % (
            gpu["index"], state["hostname"], gpu["index"], gpu["pci"][5:7], gpu["name"]))
    head += _nccl_info(state, gpus, env)
    peak = nccl["peak_busbw"] * COLLECTIVES[op]["peak"]
    seed = state["hostname"] + ("" if op == "all_reduce" else op)
    text, hung = render(head, lambda size: peak * size / (size + HALF_PEAK_BYTES), gpus, seed,
                        (minbytes, maxbytes, factor), hang=faults["hang"], wrong=faults["wrong"], op=op,
                        in_place_checked=in_place_checked)
    return 0, text, "", hung


def _perf(op, in_place_checked=True):
    """nccl-tests' <op>_perf -b -e -f -g on the node."""
    def run(state, argv, env):
        opts = _opts(argv, {"-b": "8", "-e": "128M", "-f": "2", "-g": "1"})
        return table(state, _size(opts["-b"]), _size(opts["-e"]), int(opts["-f"]), int(opts["-g"]), env, op=op,
                     in_place_checked=in_place_checked)
    return run


all_gather_perf = _perf("all_gather")
reduce_scatter_perf = _perf("reduce_scatter")
alltoall_perf = _perf("alltoall", in_place_checked=False)  # nccl-tests 2.18.2: in-place alltoall's #wrong N/A
sendrecv_perf = _perf("sendrecv")


all_reduce_perf = _perf("all_reduce")


def torchrun(state, argv, env):
    """torchrun --standalone --nproc_per_node=N SCRIPT ARGS: the project's payloads, as they print."""
    nproc = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--nproc_per_node=")), 1)
    script = next((a for a in argv if a.endswith(".py")), "")
    args = argv[argv.index(script) + 1:] if script else []
    if script.endswith("nccl_bench.py"):
        opts = _opts(args, {"-b": "8", "-e": "128M", "-f": "2", "--op": "all_reduce"})
        return table(state, _size(opts["-b"]), _size(opts["-e"]), int(opts["-f"]), nproc, env, op=opts["--op"],
                     banner="# gpufabric.pyramid built-in benchmark: torch 2.4.0 %s over NCCL 2.21.5, CUDA-event timed" % opts["--op"])
    if script.endswith("train_step.py"):
        return train_log(state, nproc, int(_opts(args, {"--steps": "30"})["--steps"]))
    if script.endswith("parity.py"):
        return parity_report(state, nproc)
    if script.endswith("p2p_bench.py"):
        from pyramid_twin import formats_p2p  # pylint: disable=import-outside-toplevel
        return formats_p2p.p2p_builtin(state)
    if script.endswith("pretrain_gpt.py"):  # Megatron-LM, as users launch it
        return megatron_log(state, nproc, int(_opts(args, {"--train-iters": "20"})["--train-iters"]))
    return 1, "", "torchrun: error: the twin knows only the gpufabric.pyramid payloads, not %r\n" % script, False


def parity_report(state, nproc, steps=5):
    """payloads/parity.py's report (its line formats; a real 2 x H200 run is tests/unit/parsers/training_parity/
    h200_x2_real.raw): every rank's DDP loss equal to the single-GPU run's; under parity_divergence the faulty rank's
    loss is off from step 1 and, as DDP averages its gradients into every update, every rank's from step 2, and every
    rank's parameters at the end."""
    train, host = state["training"], state["hostname"]
    rng = random.Random(host + "parity")
    bad, factor = train.get("parity_rank"), train.get("parity_factor", 1.0)
    lines = []
    for step in range(1, steps + 1):
        for rank in range(nproc):
            single = rng.uniform(0.7, 1.5)
            drift = step if rank == bad else step - 1  # the others follow one step later
            ddp = single * (factor ** drift if bad is not None else 1.0)
            lines.append("pyramid-parity step=%d rank=%d host=%s single_loss=%.9g ddp_loss=%.9g" % (step, rank, host, single, ddp))
    for rank in range(nproc):
        lines.append("pyramid-parity params rank=%d host=%s max_diff=%.6g max_abs=0.0313579" % (rank, host, 0.0041 if bad is not None else 0))
    for rank in range(nproc):
        lines.append("pyramid-parity fsdp rank=%d host=%s loss=%.9g finite=yes" % (rank, host, rng.uniform(0.7, 1.5)))
    lines.append("pyramid-parity done ranks=%d steps=%d" % (nproc, steps))
    return 0, "\n".join(lines) + "\n", "", False


def train_log(state, nproc, steps):
    train = state["training"]
    rng = random.Random(state["hostname"] + "train")
    lines = []
    for step in range(1, steps + 1):
        if train["timeout"] and step == steps // 2:
            lines.append("[rank0]:[E1122 20:40:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective "
                         "operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, "
                         "Timeout(ms)=600000) ran for 600018 milliseconds before timing out." % (step * 3))
            return 1, "\n".join(lines) + "\n", "", False
        slowest = train["slow_factor"] if train["slow_rank"] is not None else 1.0
        # DDP: every rank's step waits for the slowest; only forward time shows who is slow
        step_ms = train["step_ms"] * slowest * (3.0 if step == 1 else 1.0) * (1 + rng.gauss(0, train["jitter"]))
        for rank in range(nproc):
            factor = train["slow_factor"] if rank == train["slow_rank"] else 1.0
            fwd_ms = train["step_ms"] * 0.3 * factor * (1 + rng.gauss(0, 0.005))
            lines.append("pyramid-train rank=%d step=%d step_time_ms=%.3f fwd_ms=%.3f loss=%.6f host=%s" % (
                rank, step, step_ms * (1 + rng.gauss(0, 0.001)), fwd_ms, 1.0 / (1 + 0.05 * step), state["hostname"]))
    return 0, "\n".join(lines) + "\n", "", False


def megatron_log(state, nproc, iterations):
    """Megatron-LM's pretrain_gpt.py with --log-interval 1: the last rank prints one line per iteration."""
    train = state["training"]
    rng = random.Random(state["hostname"] + "megatron")
    lines = ["> building GPTTokenizer tokenizer ...", "training ...",
             "[before the start of training step] datetime: 2026-11-22 20:40:00 "]
    slowest = train["slow_factor"] if train["slow_rank"] is not None else 1.0
    for iteration in range(1, iterations + 1):
        if train["timeout"] and iteration == iterations // 2:
            lines.append("[rank%d]:[E1122 20:41:00.000000000 ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught collective "
                         "operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
                         "Timeout(ms)=600000) ran for 600021 milliseconds before timing out." % (
                             nproc - 1, nproc - 1, iteration * 7))
            return 1, "\n".join(lines) + "\n", "", False
        step_ms = train["step_ms"] * 4 * slowest * (2.5 if iteration == 1 else 1.0) * (1 + rng.gauss(0, train["jitter"]))
        lines.append(" iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                     "learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | "
                     "number of skipped iterations: %3d | number of nan iterations: %3d |" % (
                         iteration, iterations, iteration * 8 * nproc, step_ms, 1.5e-4 * min(1.0, iteration / 10.0),
                         8 * nproc, 10.5 / (1 + 0.05 * iteration), 0.3 + 0.01 * rng.random(), 0, 0))
    return 0, "\n".join(lines) + "\n", "", False
