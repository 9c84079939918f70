"""The window's weights: which negatives of a batch fall in the FPR window.

The window of ``n`` negatives is the positions ``j_alpha + 1 .. j_beta`` by
score, highest first, with ``j_alpha = floor(n alpha)`` and ``j_beta = ceil(n
beta)`` (Narasimhan & Agarwal, eq. (2)).  A negative tied with others shares
their places: if its tie group of ``g`` negatives occupies positions ``a + 1
.. a + g`` (``a`` negatives score strictly higher), it weighs the share ``c /
g`` of those positions inside the window.  This is the rule of
:mod:`pauc._loss._window` (the average over every order of the ties), so the
loss depends on no row order and equals the boosting kernels' loss.

The positions are counted in a *reference*: the batch's own negatives (the
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

import torch


def window_weights(negatives, reference, j_alpha, j_beta):
    """The weight of each of ``negatives`` in the window of ``reference``.

    Parameters
    ----------
    negatives : tensor of shape (n,)
        Detached scores, each of them also an entry of ``reference``.
    reference : tensor of shape (r,)
        The scores that set the positions, sorted ascending.
    j_alpha, j_beta : int
        The window's positions ``j_alpha + 1 .. j_beta`` among the ``r``.

    Returns
    -------
    tensor of shape (n,)
        In [0, 1]; interior negatives of the window weigh 1.  Over a reference
        equal to ``negatives`` they sum to ``j_beta - j_alpha``.
    """
    r = reference.shape[0]
    below_or_tied = torch.searchsorted(reference, negatives, right=True)
    below = torch.searchsorted(reference, negatives, right=False)
    above = r - below_or_tied
    tied = below_or_tied - below
    inside = (torch.clamp(above + tied, max=j_beta) - torch.clamp(above, min=j_alpha))
    return inside.clamp(min=0).to(negatives.dtype) / tied.to(negatives.dtype)


def window_borders(reference, j_alpha, j_beta):
    """``(top, bottom)``: the scores at positions ``j_alpha + 1`` and ``j_beta``
    (highest first) of the ascending ``reference``, the window's thresholds."""
    r = reference.shape[0]
    return reference[r - 1 - j_alpha], reference[r - j_beta]
