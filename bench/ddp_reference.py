"""PyTorch DistributedDataParallel (gloo) reference of
rlx-bench-data-parallel: the MLP 784-512-512-10 with Adam, a global batch
split over P processes, each pinned to one core with one thread. Prints the
median ms per global step and of an all-reduce of the gradients' size.
Usage: /usr/bin/python3 ddp_reference.py P [steps] [global]
"""
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def timed(count, fn):
    for _ in range(5):
        fn()
    ms = []
    for _ in range(count):
        start = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - start) * 1e3)
    return statistics.median(ms), min(ms)


def worker(rank, world, steps, global_batch, port):
    os.sched_setaffinity(0, {rank % os.cpu_count()})
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    batch = global_batch // world
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(1 + rank)
    x = torch.randn(batch, 784, generator=gen)
    y = torch.randint(0, 10, (batch,), generator=gen)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(ddp(x), y).backward()
        opt.step()

    step_ms, step_min = timed(steps, step)
    count = sum(p.numel() for p in model.parameters())
    g = torch.zeros(count)

    def all_reduce():
        dist.all_reduce(g)
        g.div_(world)

    reduce_ms, reduce_min = timed(steps, all_reduce)
    if rank == 0:
        ring = 2.0 * (world - 1) / world * 4 * count if world > 1 else 0
        print(f"DDP  P={world} global batch {global_batch} ({batch} each): "
              f"{step_ms:.3f} ms/step (min {step_min:.3f}); all-reduce of "
              f"{4 * count / 1e6:.2f} MB: {reduce_ms:.3f} ms (min "
              f"{reduce_min:.3f}), ring moves {ring / 1e6:.2f} MB per "
              f"replica per step", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1])
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    global_batch = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    port = 29500 + os.getpid() % 1000
    mp.spawn(worker, args=(world, steps, global_batch, port), nprocs=world)
