"""Built-in NCCL benchmark for hosts without nccl-tests: one collective of PyTorch's NCCL (--op: all_reduce,
all_gather, reduce_scatter, alltoall, sendrecv) timed with CUDA events, printed in nccl-tests' table format
(<op>_perf) so the same parser reads both.

Run under torchrun, one process per GPU. Sizes, counts and bus bandwidth are nccl-tests' own (src/<op>.cu,
nccl-tests 2.19): all_gather, reduce_scatter and alltoall move a per-rank count rounded down to 16 bytes, the row's
size is what the whole collective moves (count x ranks x 4 bytes) and busbw is algbw x (n-1)/n; all_reduce's busbw
is algbw x 2(n-1)/n, sendrecv's (each rank to the next in a ring) algbw itself. Out-of-place writes into a second
buffer (all_reduce: a copy then the collective, as torch has no out-of-place all_reduce); in-place works in the
input buffer, except alltoall, which torch has no in-place form of (both its sides run out of place). #wrong counts
elements that differ from the exact result (every element a small integer, exact in float32).
"""

import argparse
import os
import socket

try:
    import torch
    import torch.distributed as dist
except ImportError:  # the table format below is unit-tested on the controller, which has no torch
    torch = dist = None

# Every column is set off by two spaces, as nccl-tests prints them: a fixed width alone lets a wide
# value (10137.90 GB/s algbw with one rank on an H100) run into its neighbour ("26.4810137.90").
COLUMNS = ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong")
HEADER = "#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s"
UNITS = ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")


def format_side(usec, algbw, busbw, wrong):
    """One side (out-of-place or in-place) of a table row."""
    return "  %7.2f  %6.2f  %6.2f  %6d" % (usec, algbw, busbw, wrong)


def format_row(size, count, out_of_place, in_place, redop="sum"):
    """A row of the table: size in bytes, elements, type, reduction ("none" where the collective has none), root,
    then both sides."""
    return "%12d  %12d  %8s  %6s  %6d%s%s" % (size, count, "float", redop, -1, out_of_place, in_place)


# nccl-tests' figures per collective: the reduction it prints, whether the count is per rank (rounded down to 16
# bytes, src/<op>.cu GetCollByteCount), and the bus bandwidth factor of n ranks (GetBw)
COLLECTIVES = {
    "all_reduce": {"redop": "sum", "per_rank": False, "busbw": lambda n: 2.0 * (n - 1) / n},
    "all_gather": {"redop": "none", "per_rank": True, "busbw": lambda n: (n - 1.0) / n},
    "reduce_scatter": {"redop": "sum", "per_rank": True, "busbw": lambda n: (n - 1.0) / n},
    "alltoall": {"redop": "none", "per_rank": True, "busbw": lambda n: (n - 1.0) / n},
    "sendrecv": {"redop": "sum", "per_rank": False, "busbw": lambda n: 1.0},
}


def counts(size, op, world):
    """(count printed, size printed) for a size asked, as nccl-tests computes them for floats."""
    if COLLECTIVES[op]["per_rank"]:
        base = (size // 4 // world) & ~3
        return base, base * world * 4
    return size // 4, size // 4 * 4


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def timed(fn, iters, warmup):
    for _warmup in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _iteration in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000.0 / iters  # microseconds per operation


def collective(op, count, rank, world, inplace):
    """(run, check) for one side of a row: run() makes the collective once; check() refills the buffers, makes it
    once more and counts the elements of this rank's result that differ from the exact one. Every value is a small
    integer, computed from int32 positions (a float32 position loses its units above 2**24), so exact in float32:
    where the result says whose element it is (all_gather, alltoall, sendrecv), rank r sends r * 100 + ..."""
    def ints(length):  # int32 halves the memory of the check; past 2**31 elements (an -e of 8G and more) int64
        return torch.arange(length, device="cuda", dtype=torch.int32 if length < 2 ** 31 else torch.int64)

    block = max(count, 1)
    if op == "all_reduce":
        src = torch.empty(count, device="cuda")
        dst = src if inplace else torch.empty(count, device="cuda")

        def fill():
            src.copy_(rank + 1 + ints(count) % 7)

        def want():
            return (world * (world + 1) // 2 + world * (ints(count) % 7)).float()

        def run():
            if inplace:
                dist.all_reduce(src)
            else:
                dst.copy_(src)
                dist.all_reduce(dst)
        result = src if inplace else dst
    elif op == "all_gather":  # in-place: this rank's part sits at its own place in the output buffer
        result = torch.empty(count * world, device="cuda")
        src = result[rank * count:(rank + 1) * count] if inplace else torch.empty(count, device="cuda")

        def fill():
            src.copy_(rank * 100 + ints(count) % 97 + 1)

        def want():
            whole = ints(count * world)
            return ((whole // block) * 100 + (whole % block) % 97 + 1).float()

        def run():
            dist.all_gather_into_tensor(result, src)
    elif op == "reduce_scatter":  # in-place: this rank's result lands at its own place in the input buffer
        src = torch.empty(count * world, device="cuda")
        result = src[rank * count:(rank + 1) * count] if inplace else torch.empty(count, device="cuda")

        def fill():
            src.copy_(rank + 1 + ints(count * world) % 7)

        def want():
            return (world * (world + 1) // 2 + world * ((rank * count + ints(count)) % 7)).float()

        def run():
            dist.reduce_scatter_tensor(result, src)
    elif op == "alltoall":  # torch has no in-place all_to_all: both sides run out of place
        src, result = torch.empty(count * world, device="cuda"), torch.empty(count * world, device="cuda")

        def fill():  # block j goes to rank j
            src.copy_(rank * 100 + ints(count * world) // block + 1)

        def want():  # block j came from rank j
            return ((ints(count * world) // block) * 100 + rank + 1).float()

        def run():
            dist.all_to_all_single(result, src)
    else:  # sendrecv: each rank sends to the next and receives from the one before, at once
        src = torch.empty(count, device="cuda")
        result = src if inplace else torch.empty(count, device="cuda")
        sent = torch.empty(count, device="cuda") if inplace else src
        before = (rank - 1) % world

        def fill():
            src.copy_(rank * 100 + ints(count) % 97 + 1)

        def want():
            return (before * 100 + ints(count) % 97 + 1).float()

        def run():
            if inplace:
                sent.copy_(src)  # the receive lands in the buffer it sends from: send a copy
            requests = dist.batch_isend_irecv([dist.P2POp(dist.isend, sent, (rank + 1) % world),
                                               dist.P2POp(dist.irecv, result, before)])
            for request in requests:
                request.wait()

    def check():
        fill()
        run()
        torch.cuda.synchronize()
        return int((result != want()).sum().item())
    fill()
    return run, check


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-b", "--minbytes", default="8")
    parser.add_argument("-e", "--maxbytes", default="128M")
    parser.add_argument("-f", "--stepfactor", type=int, default=2)
    parser.add_argument("-n", "--iters", type=int, default=20)
    parser.add_argument("-w", "--warmup_iters", type=int, default=5)
    parser.add_argument("--op", choices=sorted(COLLECTIVES), default="all_reduce")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    lo, hi = parse_size(args.minbytes), parse_size(args.maxbytes)
    props = torch.cuda.get_device_properties(local)
    line = "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0x%02x] %s" % (
        rank, os.getpid(), socket.gethostname(), local, getattr(props, "pci_bus_id", 0), props.name)
    lines = [None] * world
    dist.all_gather_object(lines, line)
    out = print if rank == 0 else (lambda *a, **k: None)
    out("# nThread 1 nGpus 1 minBytes %d maxBytes %d step: %d(factor) warmup iters: %d iters: %d agg iters: 1 validation: 1 graph: 0"
        % (lo, hi, args.stepfactor, args.warmup_iters, args.iters))
    out("# gpufabric.pyramid built-in benchmark: torch %s %s over NCCL %s, CUDA-event timed" % (
        torch.__version__, args.op, ".".join(str(v) for v in torch.cuda.nccl.version())))
    out("#\n# Using devices")
    for text in lines:
        out(text)
    out("#\n#%74s%39s" % ("out-of-place", "in-place"))
    out(HEADER % COLUMNS)
    out((HEADER % UNITS).rstrip())
    busbws, size = [], lo
    while size <= hi:
        count, printed = counts(size, args.op, world)
        fields = []
        for inplace in (False, True):
            run, check = collective(args.op, count, rank, world, inplace)
            usec = timed(run, args.iters, args.warmup_iters)
            wrong = torch.tensor([check()], device="cuda")
            del run, check  # this side's buffers go before the next side's come: the peak stays one side's
            dist.all_reduce(wrong)
            algbw = printed / usec / 1e3 if usec else 0.0
            busbw = algbw * COLLECTIVES[args.op]["busbw"](world)
            busbws.append(busbw)
            fields.append(format_side(usec, algbw, busbw, int(wrong.item())))
        out(format_row(printed, count, fields[0], fields[1], COLLECTIVES[args.op]["redop"]))
        size *= args.stepfactor
    out("# Out of bounds values : 0 OK")
    out("# Avg bus bandwidth    : %g " % (sum(busbws) / len(busbws)))
    out("#")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
