"""Built-in all-reduce benchmark for hosts without nccl-tests: PyTorch's NCCL all_reduce timed with
CUDA events, printed in all_reduce_perf's table format so the same parser reads both.

Run under torchrun, one process per GPU. Out-of-place = copy into the output buffer + all_reduce
(torch has no out-of-place all_reduce); in-place = all_reduce alone. #wrong counts elements that
differ from the exact sum (each rank fills rank+1, small integers are exact in float32).
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


def format_row(size, count, out_of_place, in_place):
    """A row of all_reduce_perf's table: size in bytes, elements, type, op, root, then both sides."""
    return "%12d  %12d  %8s  %6s  %6d%s%s" % (size, count, "float", "sum", -1, out_of_place, in_place)


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-b", "--minbytes", default="8")
    parser.add_argument("-e", "--maxbytes", default="128M")
    parser.add_argument("-f", "--stepfactor", type=int, default=2)
    parser.add_argument("-n", "--iters", type=int, default=20)
    parser.add_argument("-w", "--warmup_iters", type=int, default=5)
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
    out("# gpufabric.pyramid built-in benchmark: torch %s all_reduce over NCCL %s, CUDA-event timed" % (
        torch.__version__, ".".join(str(v) for v in torch.cuda.nccl.version())))
    out("#\n# Using devices")
    for text in lines:
        out(text)
    out("#\n#%74s%39s" % ("out-of-place", "in-place"))
    out(HEADER % COLUMNS)
    out((HEADER % UNITS).rstrip())
    expected_sum = world * (world + 1) / 2
    busbws, size = [], lo
    while size <= hi:
        count = max(size // 4, 1)
        src = torch.full((count,), float(rank + 1), device="cuda")
        dst = torch.empty_like(src)
        fields = []
        for inplace in (False, True):
            def op(src=src, dst=dst, inplace=inplace):
                if inplace:
                    dist.all_reduce(src)
                else:
                    dst.copy_(src)
                    dist.all_reduce(dst)
            usec = timed(op, args.iters, args.warmup_iters)
            check = src if inplace else dst
            check.copy_(torch.full_like(check, float(rank + 1)))
            dist.all_reduce(check)
            wrong = torch.tensor([(check != expected_sum).sum().item()], device="cuda")
            dist.all_reduce(wrong)
            src.fill_(float(rank + 1))
            algbw = count * 4 / usec / 1e3
            busbw = algbw * 2 * (world - 1) / world
            busbws.append(busbw)
            fields.append(format_side(usec, algbw, busbw, int(wrong.item())))
        out(format_row(count * 4, count, fields[0], fields[1]))
        size *= args.stepfactor
    out("# Out of bounds values : 0 OK")
    out("# Avg bus bandwidth    : %g " % (sum(busbws) / len(busbws)))
    out("#")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
