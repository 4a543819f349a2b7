"""Training parity (seed 002: "a single faulty collective can cause silent training divergence"): the same seeded
model and data trained for a few SGD steps on one GPU and under DDP on every GPU of the node, and an FSDP forward and
backward pass. Run under torchrun, one process per GPU.

Rank 0 first trains alone on the whole batch and, at every step, computes each rank's shard loss before the update:
what each rank of the DDP run must see. The DDP run then trains the same model (same seed) with each rank on its
shard; equal shards make DDP's averaged gradient the whole batch's, so every rank's loss and, at the end, every rank's
parameters must match the single-GPU run up to float summation order (TF32 off: fp32 throughout). A rank whose GPU
computes wrong, or a gradient all-reduce that sums wrong, shows as that rank's (or every rank's) divergence.

Prints, from rank 0 (the others' figures gathered to it), lines the training_parity parser reads:
  pyramid-parity step=S rank=R host=H single_loss=X ddp_loss=Y
  pyramid-parity params rank=R host=H max_diff=D max_abs=A
  pyramid-parity fsdp rank=R host=H loss=L finite=yes|no
  pyramid-parity done ranks=N steps=S
"""

import argparse
import math
import os
import socket

import torch
import torch.distributed as dist
from torch import nn


def build(hidden, layers, batch, steps):
    """The seeded model (on the current GPU) and the steps' batches (on the CPU, the same on every rank)."""
    torch.manual_seed(0)
    blocks = [nn.Sequential(nn.Linear(hidden, hidden), nn.GELU()) for _layer in range(layers)]
    model = nn.Sequential(*blocks, nn.Linear(hidden, 1)).cuda()
    generator = torch.Generator().manual_seed(1234)
    data = [(torch.randn(batch, hidden, generator=generator), torch.randn(batch, 1, generator=generator)) for _step in range(steps)]
    return model, data


def flat(model):
    return torch.cat([parameter.detach().flatten() for parameter in model.parameters()])


def single_gpu(args, world):
    """Rank 0 alone: per step, every shard's loss before the update; then the parameters after the last step."""
    model, data = build(args.hidden, args.layers, args.batch, args.steps)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    per, shard_losses = args.batch // world, []
    for x, y in data:
        x, y = x.cuda(), y.cuda()
        losses = [nn.functional.mse_loss(model(x[r * per:(r + 1) * per]), y[r * per:(r + 1) * per]) for r in range(world)]
        shard_losses.append([loss.item() for loss in losses])
        optimizer.zero_grad()
        torch.stack(losses).mean().backward()  # equal shards: the whole batch's mean loss
        optimizer.step()
    return shard_losses, flat(model)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--batch", type=int, default=64, help="the whole batch, split evenly over the ranks")
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    args.batch = max(args.batch - args.batch % world, world)  # equal shards, one sample each at least (a pod's many ranks)
    reference, reference_params = single_gpu(args, world) if rank == 0 else (None, None)

    model, data = build(args.hidden, args.layers, args.batch, args.steps)
    ddp = nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=args.lr)
    per, mine = args.batch // world, []
    for x, y in data:
        loss = nn.functional.mse_loss(ddp(x[rank * per:(rank + 1) * per].cuda()), y[rank * per:(rank + 1) * per].cuda())
        mine.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    params = flat(model)
    expected = reference_params if rank == 0 else torch.empty_like(params)
    dist.broadcast(expected, 0)
    max_diff, max_abs = (params - expected).abs().max().item(), expected.abs().max().item()

    from torch.distributed.fsdp import FullyShardedDataParallel  # pylint: disable=import-outside-toplevel
    sharded_model, sharded_data = build(args.hidden, args.layers, args.batch, 1)
    sharded = FullyShardedDataParallel(sharded_model)
    x, y = sharded_data[0]
    fsdp_loss = nn.functional.mse_loss(sharded(x[rank * per:(rank + 1) * per].cuda()), y[rank * per:(rank + 1) * per].cuda())
    fsdp_loss.backward()
    finite = math.isfinite(fsdp_loss.item()) and all(
        bool(torch.isfinite(p.grad).all()) for p in sharded.parameters() if p.grad is not None)

    mine = {"rank": rank, "host": socket.gethostname(), "losses": mine, "max_diff": max_diff, "max_abs": max_abs,
            "fsdp_loss": fsdp_loss.item(), "finite": finite}
    everyone = [None] * world
    dist.all_gather_object(everyone, mine)
    if rank == 0:
        for step in range(args.steps):
            for each in everyone:
                print("pyramid-parity step=%d rank=%d host=%s single_loss=%.9g ddp_loss=%.9g" % (
                    step + 1, each["rank"], each["host"], reference[step][each["rank"]], each["losses"][step]))
        for each in everyone:
            print("pyramid-parity params rank=%d host=%s max_diff=%.6g max_abs=%.6g" % (
                each["rank"], each["host"], each["max_diff"], each["max_abs"]))
        for each in everyone:
            print("pyramid-parity fsdp rank=%d host=%s loss=%.9g finite=%s" % (
                each["rank"], each["host"], each["fsdp_loss"], "yes" if each["finite"] else "no"))
        print("pyramid-parity done ranks=%d steps=%d" % (world, args.steps), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
