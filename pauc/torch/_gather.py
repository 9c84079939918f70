"""The global batch of several processes (``torch.distributed``), for the window.

The window is a property of all the negatives, so under data parallelism each
process needs every process's scores.  :func:`gather_batch` all-gathers the
detached scores and labels (batches may differ in size: they are padded to
the largest and trimmed) and puts the process's own scores back in place live,
so that autograd sends the global loss's gradient to this process's rows only.
DDP then *averages* the parameter gradients over the ``W`` processes; the
live rows carry ``W`` times their gradient (the value is unchanged), so that
the average is the gradient of the global loss, as one process on the
concatenated batch computes it.  The ``bce_weight`` mixture's cross-entropy is
taken on the same gathered scores, so it too is the global batch's mean.
"""

import torch
import torch.distributed as dist


def distributed_world():
    """The number of processes of the default group (1 when not initialised)."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size()
    return 1


def gather_batch(scores, is_pos):
    """``(scores, is_pos)`` of the global batch, rank order; this rank's rows live.

    Parameters
    ----------
    scores : tensor of shape (b,)
    is_pos : bool tensor of shape (b,)

    Returns
    -------
    scores : tensor of shape (B,)
        Every process's scores, detached except this process's, whose
        gradient is scaled by the world size (see the module docstring).
    is_pos : bool tensor of shape (B,)
    """
    world, rank = dist.get_world_size(), dist.get_rank()
    size = torch.tensor([scores.shape[0]], device=scores.device)
    sizes = [torch.empty_like(size) for _ in range(world)]
    dist.all_gather(sizes, size)
    sizes = [int(s) for s in sizes]
    longest = max(sizes)
    mine = torch.zeros(2, longest, dtype=scores.dtype, device=scores.device)
    mine[0, :scores.shape[0]] = scores.detach()
    mine[1, :scores.shape[0]] = is_pos.to(scores.dtype)
    parts = [torch.empty_like(mine) for _ in range(world)]
    dist.all_gather(parts, mine)
    live = scores.detach() + world * (scores - scores.detach())
    all_scores = torch.cat([live if r == rank else parts[r][0, :sizes[r]]
                            for r in range(world)])
    all_pos = torch.cat([parts[r][1, :sizes[r]] for r in range(world)]) > 0.5
    return all_scores, all_pos
