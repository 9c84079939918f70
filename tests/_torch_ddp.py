"""The worker of tests/torch/test_distributed.py (importable by name in spawned processes)."""

import torch
import torch.distributed as dist


def model_and_batch(seed=0):
    """A linear scorer and a 12-row batch (ties included), the same in every process."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(12, 4, generator=generator, dtype=torch.float64)
    y = torch.tensor([1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0])
    x[5] = x[2]                                      # a tie among the negatives
    model = torch.nn.Linear(4, 1, bias=False).double()
    with torch.no_grad():
        model.weight.copy_(torch.randn(1, 4, generator=generator, dtype=torch.float64))
    return model, x, y


def run(rank, world, init_method, sizes, configs, out):
    """Rank ``rank`` scores its slice of the batch under DDP, once per loss in ``configs``
    (keyword dicts of WindowLoss); saves each loss and parameter gradient."""
    from pauc.torch import WindowLoss
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world)
    try:
        results = []
        for loss_kwargs in configs:
            model, x, y = model_and_batch()
            ddp = torch.nn.parallel.DistributedDataParallel(model)
            start = sum(sizes[:rank])
            rows = slice(start, start + sizes[rank])
            value = WindowLoss(**loss_kwargs)(ddp(x[rows]), y[rows])
            value.backward()
            results.append({"loss": value.item(), "grad": model.weight.grad.clone()})
        torch.save(results, f"{out}.{rank}")
    finally:
        dist.destroy_process_group()
