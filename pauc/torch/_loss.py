"""The window loss of a batch of scores: pauc's partial-AUC surrogates in torch.

:class:`WindowLoss` holds the options (checked once, in its constructor) and the
:class:`~pauc.torch.NegativeMemory`; its ``forward`` is one call of
:func:`pauc.torch.functional.window_loss`, which owns the computation.
"""

import torch

from pauc.torch._memory import NegativeMemory, check_size
from pauc.torch._pairwise import PAIRWISE
from pauc.torch.functional import _check_mixture, _check_window, window_loss


class WindowLoss(torch.nn.Module):
    r"""Partial-AUC surrogate of the FPR window ``[alpha, beta]`` on raw scores.

    ``loss(scores, labels)`` averages a pairwise loss ``l(s_i - s_j)`` over the
    pairs of every positive ``i`` and every negative ``j`` ranked ``j_alpha +
    1 .. j_beta`` from the top (``j_alpha = floor(n alpha)``, ``j_beta =
    ceil(n beta)``, eq. (2) of [1]_):

    .. math::

        L(s) = \frac{1}{m (j_\beta - j_\alpha)} \sum_{i \in P}
               \sum_{j \in W(s)} \ell(s_i - s_j),

    the loss of pauc's loss table (:mod:`pauc.surrogates`, the boosting
    objectives of :mod:`pauc.objectives`) under the same name, with the same
    tie rule.  Any batch, any sampler, no dataset index: a batch without a
    positive or without a negative gives a zero loss that is still part of the
    graph.  The pairwise surrogates cost one sort and prefix sums, O(b log b),
    never a pairs matrix (on CPU tensors, the table's own Cython kernel when the
    row has one and there is no memory).

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 0.1)
        The FPR window ``[alpha, beta]``, ``0 <= alpha < beta <= 1`` and
        ``beta - alpha > 2e-9``: such a window holds at least one position
        among any number of negatives, so no batch fails on it (narrower, the
        floating-point tolerance of ``n alpha`` and ``n beta`` can leave it
        empty; it would hold one negative in 5e8 anyway).
    surrogate : str, default="squared_hinge"
        A window loss of the table: ``"squared_hinge"`` (``max(0, 1 - t)^2``),
        ``"hinge"`` (``max(0, 1 - t)``, eqs. (9), (10) of [1]_; not convex
        for ``alpha > 0``), ``"exponential"`` (``exp(-t)``, RankBoost [2]_),
        or the structural surrogates ``"tight"`` (eqs. (14), (18); also
        ``"tight_hinge"``, the boosting objectives' name) and
        ``"naive"`` (eq. (11)), whose most violated constraint the table's
        Cython search finds on the CPU (value ``Delta - s . coef``, gradient
        ``-coef``).
    memory : int, default=0
        How many recent detached negative scores place the window
        (:class:`NegativeMemory`): the batch's negatives are ranked among them
        and among themselves, so the window's thresholds are those of many
        batches, and the loss estimates the window loss of the data (the
        normaliser is the window's expected share of the batch,
        ``(j_beta - j_alpha) n_batch / n_ranked``).  0: the batch's own window
        (the exact window loss of the batch).  Updated in training mode only;
        in evaluation mode (``loss.eval()``) the loss is the exact window loss
        of the scores given.  Pairwise surrogates only; at most ``2**63 - 1``.
    bce_weight : float, default=0.0
        Weight ``lambda`` of the binary cross-entropy on the logits in the
        mixture ``L + lambda * BCE``, the reference loss that pauc's boosting
        selection also mixes in; 0 is the window loss alone.
    gather : bool or None, default=None
        Place the window on the global batch of every process of
        ``torch.distributed`` (scores and labels all-gathered, gradients back
        to this process's rows, scaled so that DDP's average is the global
        loss's gradient); the ``bce_weight`` mixture's cross-entropy is then
        the global batch's too.  None: when ``torch.distributed`` is initialised
        with more than one process.

    Attributes
    ----------
    memory : NegativeMemory or None
        The stored negative scores (``memory.thresholds(fpr_range)`` gives the
        window's current borders).

    See Also
    --------
    pauc.torch.functional.window_loss : The loss as a function, which ``forward``
        calls.

    Examples
    --------
    >>> import torch
    >>> from pauc.torch import WindowLoss
    >>> loss = WindowLoss(fpr_range=(0.0, 0.5))
    >>> scores = torch.tensor([2.0, 0.5, 1.0, -1.0], requires_grad=True)
    >>> value = loss(scores, torch.tensor([1, 1, 0, 0]))
    >>> round(value.item(), 4)       # pairs (2, 1) and (0.5, 1): 0 and 1.5^2, over 2
    1.125
    >>> value.backward()

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017.
    .. [2] Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient
       Boosting Algorithm for Combining Preferences." JMLR 4, 2003.
    """

    def __init__(self, fpr_range=(0.0, 0.1), surrogate="squared_hinge", *, memory=0,
                 bce_weight=0.0, gather=None):
        super().__init__()
        self.fpr_range, self.row, self.pairwise = _check_window(fpr_range, surrogate)
        self.surrogate = self.row.name
        memory = check_size(memory, 0)
        if memory and self.pairwise is None:
            raise ValueError(f"memory needs a pairwise surrogate {tuple(PAIRWISE)}: the "
                             f"structural surrogate {self.surrogate!r} ranks the batch "
                             "itself; use memory=0")
        self.memory = NegativeMemory(memory) if memory else None
        self.bce_weight, self.gather = _check_mixture(bce_weight, gather)

    def forward(self, scores, labels):
        """The loss of a batch (:func:`pauc.torch.functional.window_loss` with this
        module's options, and its memory in training mode).

        Parameters
        ----------
        scores : tensor of shape (b,) or (b, 1)
            Raw scores (logits), higher for positives; floating point.
        labels : tensor or array of shape (b,) or (b, 1)
            1 (or True) for positives, 0 (or False) for negatives.

        Returns
        -------
        tensor of shape ()
            The window surrogate (plus ``bce_weight`` times the cross-entropy).
        """
        return window_loss(scores, labels, self.fpr_range, self.surrogate,
                           memory=self.memory if self.training else None,
                           bce_weight=self.bce_weight, gather=self.gather)

    def extra_repr(self):
        return (f"fpr_range={self.fpr_range}, surrogate={self.surrogate!r}, "
                f"bce_weight={self.bce_weight}")
