"""A bounded memory of recent negative scores: the window of the data, not of the batch.

A batch of 256 rows with 10 % positives holds about 230 negatives: the FPR
window [0, 0.01] is two of them, and its borders jump from batch to batch.
The memory keeps the detached scores of the last ``size`` negatives seen in
training (first in, first out); the loss ranks a batch's negatives among
them and its own, so the window's thresholds are those of ``size`` recent
negatives.  What it approximates: the thresholds of the full training set's
negatives at the current parameters.  Two errors separate them, the sample
(``size`` negatives instead of all of them; the border at ``beta`` is a
sample quantile) and the staleness (scores computed by the parameters of up
to ``size / negatives per batch`` steps ago).  When the memory holds every
negative at the current parameters, the thresholds are the full-data ones
(``tests/torch`` checks it); ``bench/bench_torch.py`` measures how close they
stay along training.

References
----------
He, K., Fan, H., Wu, Y., Xie, S. and Girshick, R. "Momentum Contrast for
Unsupervised Visual Representation Learning." CVPR 2020 (a queue of recent
detached outputs standing in for the data set).
"""

import torch

from pauc._validation import check_int, empirical_indices
from pauc.torch._window import plain, window_borders


#: the largest memory: torch indexes (and slices) with int64
MAX_SIZE = 2**63 - 1


def check_size(size, low):
    """``size`` as an int in ``[low, 2**63 - 1]``, or a ValueError naming ``memory``
    (a larger one is no bound torch can slice with: it truncated it with a warning)."""
    size = check_int(size, "memory", low)
    if size > MAX_SIZE:
        raise ValueError(f"memory must be an integer <= 2**63 - 1 (torch's int64 "
                         f"indices), got {size!r}")
    return size


class NegativeMemory(torch.nn.Module):
    """First-in first-out store of the last ``size`` detached negative scores.

    Parameters
    ----------
    size : int
        How many negative scores it keeps (at least 1).

    Attributes
    ----------
    scores : tensor of shape (k,)
        The stored scores, oldest first (``k <= size``), on the module's device.
    """

    def __init__(self, size):
        super().__init__()
        self.size = check_size(size, 1)
        # not persistent: its length changes, and it is a cache of one run
        self.register_buffer("scores", torch.empty(0), persistent=False)

    def push(self, negatives):
        """Append the detached ``negatives``, dropping the oldest beyond ``size``."""
        # plain values: under torch.func a wrapped tensor must not outlive the transform
        # (there even the concatenation of plain tensors returns one)
        self.scores = plain(torch.cat([self.scores.to(negatives.dtype), plain(negatives)])
                            [-self.size:])

    def thresholds(self, fpr_range):
        """``(top, bottom)``: the scores at positions ``j_alpha + 1`` and ``j_beta``
        (highest first) of the stored negatives, the window's borders for
        ``fpr_range``; ``(nan, nan)`` while empty."""
        if self.scores.numel() == 0:
            nan = torch.tensor(float("nan"))
            return nan, nan
        j_alpha, j_beta = empirical_indices(self.scores.numel(), fpr_range)
        return window_borders(self.scores, j_alpha, j_beta)

    def clear(self):
        """Forget every stored score (e.g. before a new training run)."""
        self.scores = self.scores.new_empty(0)

    def extra_repr(self):
        return f"size={self.size}, stored={self.scores.numel()}"
