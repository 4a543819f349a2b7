"""Cross-check the built-in benchmark (payloads/nccl_bench.py) against the plainest measurement:
PyTorch's NCCL all_reduce in place, timed with CUDA events, repeated, median taken.

    torchrun --standalone --nproc_per_node=N bench/allreduce_crosscheck.py [--reps 5]

Prints, per size, the reference busbw (median of reps, with min..max) and the built-in benchmark's
in-place busbw from its table (run beside it), and their ratio.
"""

import argparse
import os
import statistics
import sys

import torch
import torch.distributed as dist

SIZES = [1 << 20, 64 << 20, 1 << 30, 4 << 30]


def busbw(size, world, iters=20, warmup=5):
    buf = torch.ones(size // 4, device="cuda")
    for _warm in range(warmup):
        dist.all_reduce(buf)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _iteration in range(iters):
        dist.all_reduce(buf)
    end.record()
    torch.cuda.synchronize()
    seconds = start.elapsed_time(end) / 1000.0 / iters
    return size / seconds / 1e9 * 2 * (world - 1) / world


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--builtin", help="the built-in benchmark's output to compare with")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
    world, rank = dist.get_world_size(), dist.get_rank()
    results = {size: [busbw(size, world) for _rep in range(args.reps)] for size in SIZES}
    if rank == 0:
        builtin = {}
        if args.builtin:
            for line in open(args.builtin, encoding="utf-8"):
                fields = line.split()
                if len(fields) == 13 and fields[0].isdigit():
                    builtin[int(fields[0])] = float(fields[11])  # in-place busbw
        print("%12s %12s %16s %12s %7s" % ("size (B)", "ref busbw", "ref min..max", "built-in", "ratio"))
        for size, values in results.items():
            ref = statistics.median(values)
            own = builtin.get(size)
            own_text, ratio = ("%.1f" % own, "%.3f" % (own / ref)) if own else ("-", "-")
            print("%12d %12.1f %7.1f..%-8.1f %12s %7s" % (size, ref, min(values), max(values), own_text, ratio))
        sys.stdout.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
