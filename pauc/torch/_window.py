"""The window's weights: which negatives of a batch fall in the FPR window.

The window of ``n`` negatives is the positions ``j_alpha + 1 .. j_beta`` by
score, highest first, with ``j_alpha = floor(n alpha)`` and ``j_beta = ceil(n
beta)`` (Narasimhan & Agarwal, eq. (2)).  A negative tied with others shares
their places: if its tie group of ``g`` negatives occupies positions ``a + 1
.. a + g`` (``a`` negatives score strictly higher), it weighs the share ``c /
g`` of those positions inside the window.  This is the rule of
:mod:`pauc._loss._window` (the average over every order of the ties), so the
loss depends on no row order and equals the boosting kernels' loss.

Only the two borders are needed (selections, O(r) whatever the order of the
scores), and the counts above and tied with each.  The positions are counted
in a *reference*: the batch's own negatives (the
exact window loss of the batch), or the batch's negatives together with a
memory of recent negative scores (:class:`pauc.torch.NegativeMemory`), which
places the window on more negatives than one batch holds.  The weights are
constants of the step (no gradient flows through a rank), as the boosting
kernels treat them.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import numpy as np
import torch

#: dtypes whose CPU tensors numpy reads as they are
_NUMPY_DTYPES = (torch.float16, torch.float32, torch.float64)

_functorch = getattr(torch._C, "_functorch", None)


def plain(tensor):
    """``tensor``'s detached values as an ordinary tensor.

    Under ``torch.func`` transforms the loss sees wrapped tensors (one wrapper per
    transform level), whose memory numpy cannot read ("Cannot access data pointer
    of Tensor that doesn't have storage"); their values are those of the
    innermost tensor.  The window is a constant of the step, so reading it there
    is what autograd's ``detach`` does.  (Batched tensors of ``torch.vmap`` are
    refused before: their innermost tensor holds every instance.)
    """
    values = tensor.detach()
    if _functorch is not None:
        while _functorch.is_functorch_wrapped_tensor(values):
            values = _functorch.get_unwrapped(values)
    return values


def to_numpy(tensor):
    """``tensor``'s detached values as a numpy array (the CPU memory shared)."""
    values = plain(tensor)
    if not (_functorch is not None and torch._C._are_functorch_transforms_active()):
        return values.cpu().numpy()
    # under torch.func every torch operation on any tensor, ``.numpy()``'s own
    # included, returns a wrapped tensor; dlpack reads the plain one's memory
    if values.device.type == "cpu":
        return np.from_dlpack(values)
    return np.asarray(values.tolist())


def vmapped(tensor):
    """Whether ``tensor`` is batched by ``torch.vmap`` at some transform level."""
    if _functorch is None:
        return False
    while _functorch.is_functorch_wrapped_tensor(tensor):
        if _functorch.is_batchedtensor(tensor):
            return True
        tensor = _functorch.get_unwrapped(tensor)
    return False


def window_borders(reference, j_alpha, j_beta):
    """``(top, bottom)``: the scores at positions ``j_alpha + 1`` and ``j_beta``
    (highest first) of ``reference``, the window's thresholds; selections, O(r)
    (a sort of a memory of thousands of scores would cost ten times more).

    On the CPU, numpy's introselect (``np.partition``), linear in the worst case
    whatever the order: torch's CPU ``kthvalue`` is a quickselect that turns
    quadratic on scores sorted in descending order (at 10^6 scores, 17 s against
    0.03 s shuffled; ``bench/bench_torch.py --sections borders``), and a network's
    scores can well arrive sorted (a sorted evaluation set, a memory filled in
    order).  On a GPU, ``kthvalue`` is a radix selection, blind to the order.
    """
    r = reference.shape[0]
    if reference.device.type != "cpu":
        return (torch.kthvalue(reference, r - j_alpha).values,
                torch.kthvalue(reference, r - j_beta + 1).values)
    values = plain(reference)
    if values.dtype not in _NUMPY_DTYPES:
        values = values.float()         # bfloat16 (numpy has none): exact in float32
    # ascending positions of the j_beta-th and the (j_alpha + 1)-th highest
    low, high = r - j_beta, r - j_alpha - 1
    kth = np.partition(to_numpy(values), sorted({low, high}))
    return (torch.tensor(float(kth[high]), dtype=reference.dtype),
            torch.tensor(float(kth[low]), dtype=reference.dtype))


def _share(reference, border, j_alpha, j_beta):
    """Share of the positions of ``border``'s tie group inside the window."""
    above = (reference > border).sum()
    tied = (reference == border).sum()
    inside = torch.clamp(above + tied, max=j_beta) - torch.clamp(above, min=j_alpha)
    # in the scores' precision (an integer division would give the default float32)
    return inside.clamp(min=0).to(reference.dtype) / tied.to(reference.dtype)


def window_weights(negatives, reference, j_alpha, j_beta):
    """The weight of each of ``negatives`` in the window of ``reference``.

    Parameters
    ----------
    negatives : tensor of shape (n,)
        Detached scores, each of them also an entry of ``reference``.
    reference : tensor of shape (r,)
        The scores that set the positions (any order).
    j_alpha, j_beta : int
        The window's positions ``j_alpha + 1 .. j_beta`` among the ``r``.

    Returns
    -------
    tensor of shape (n,)
        In [0, 1]: 1 strictly between the borders, the tie group's share at a
        border, 0 outside.  Over a reference equal to ``negatives`` they sum to
        ``j_beta - j_alpha``.
    """
    top, bottom = window_borders(reference, j_alpha, j_beta)
    weights = ((negatives > bottom) & (negatives < top)).to(negatives.dtype)
    weights = torch.where(negatives == bottom, _share(reference, bottom, j_alpha, j_beta),
                          weights)
    # a top border tied with the bottom one has the same tie group, the same share
    return torch.where(negatives == top, _share(reference, top, j_alpha, j_beta), weights)
