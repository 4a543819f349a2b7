"""Built-in training step: a small transformer trained with DDP under torchrun, timing every step.

Prints one line per rank per step, `pyramid-train rank=R step=S step_time_ms=T fwd_ms=F loss=L host=H`, which
the training_log parser reads. Step time is measured between CUDA synchronizations, so it includes
the gradient all-reduce that DDP overlaps with the backward pass; every rank waits for the slowest
there, so a slow rank shows in its forward time (no communication), not in step time.
"""

import argparse
import os
import socket
import time

import torch
import torch.distributed as dist
from torch import nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(args.hidden, nhead=16, dim_feedforward=4 * args.hidden, batch_first=True,
                                       dtype=torch.bfloat16, device="cuda")
    model = nn.parallel.DistributedDataParallel(nn.TransformerEncoder(layer, args.layers), device_ids=[local])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    generator = torch.Generator(device="cuda").manual_seed(1234 + rank)
    for step in range(1, args.steps + 1):
        x = torch.randn(args.batch, args.seq, args.hidden, device="cuda", dtype=torch.bfloat16, generator=generator)
        torch.cuda.synchronize()
        start = time.perf_counter()
        loss = model(x).float().pow(2).mean()
        torch.cuda.synchronize()
        forward = (time.perf_counter() - start) * 1000.0
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        elapsed = (time.perf_counter() - start) * 1000.0
        print("pyramid-train rank=%d step=%d step_time_ms=%.3f fwd_ms=%.3f loss=%.6f host=%s" % (
            rank, step, elapsed, forward, loss.item(), socket.gethostname()), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
