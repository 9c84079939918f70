"""The window loss of a batch of scores: pauc's partial-AUC surrogates in torch."""

import numbers

import numpy as np
import torch
import torch.nn.functional as F

from pauc._loss import loss_row
from pauc._validation import check_fpr_range, check_int, empirical_indices
from pauc.torch._gather import distributed_world, gather_batch
from pauc.torch._kernel import TableKernel
from pauc.torch._memory import NegativeMemory
from pauc.torch._pairwise import PAIRWISE
from pauc.torch._window import window_weights

#: On CPU tensors without a memory, the table rows with a ``derivatives`` kernel run it
#: (:class:`TableKernel`); the tests switch this off to check the torch forms too.
TABLE_KERNELS_ON_CPU = True


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
        The FPR window ``[alpha, beta]``, ``0 <= alpha < beta <= 1``.
    surrogate : str, default="squared_hinge"
        A window loss of the table: ``"squared_hinge"`` (``max(0, 1 - t)^2``),
        ``"hinge"`` (``max(0, 1 - t)``, eqs. (9), (10) of [1]_; not convex
        for ``alpha > 0``), ``"exponential"`` (``exp(-t)``, RankBoost [2]_),
        or the structural surrogates ``"tight"`` (eqs. (14), (18)) and
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
        of the scores given.  Pairwise surrogates only.
    bce_weight : float, default=0.0
        Weight ``lambda`` of the binary cross-entropy on the logits in the
        mixture ``L + lambda * BCE``, the reference loss that pauc's boosting
        selection also mixes in; 0 is the window loss alone.
    gather : bool or None, default=None
        Place the window on the global batch of every process of
        ``torch.distributed`` (scores and labels all-gathered, gradients back
        to this process's rows, scaled so that DDP's average is the global
        loss's gradient).  None: when ``torch.distributed`` is initialised
        with more than one process.

    Attributes
    ----------
    memory : NegativeMemory or None
        The stored negative scores (``memory.thresholds(fpr_range)`` gives the
        window's current borders).

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
        self.fpr_range = check_fpr_range(fpr_range)
        self.row = loss_row(surrogate, "window", what="surrogate")
        self.surrogate = self.row.name
        self.pairwise = PAIRWISE.get(self.row.name)
        if self.pairwise is None and self.row.cut is None:
            raise ValueError(f"surrogate={surrogate!r} has no torch form; choose one of "
                             f"{tuple(PAIRWISE)} or a structural surrogate")
        memory = check_int(memory, "memory", 0)
        if memory and self.pairwise is None:
            raise ValueError(f"memory needs a pairwise surrogate {tuple(PAIRWISE)}: the "
                             f"structural surrogate {self.surrogate!r} ranks the batch "
                             "itself; use memory=0")
        self.memory = NegativeMemory(memory) if memory else None
        if not isinstance(bce_weight, numbers.Real) or not np.isfinite(bce_weight) \
                or bce_weight < 0:
            raise ValueError(f"bce_weight must be a finite number >= 0, got {bce_weight!r}")
        self.bce_weight = float(bce_weight)
        if gather not in (None, True, False):
            raise ValueError(f"gather must be None, True or False, got {gather!r}")
        self.gather = gather

    def forward(self, scores, labels):
        """The loss of a batch.

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
        scores, is_pos = self._check(scores, labels)
        batch_scores, batch_pos = scores, is_pos
        if self.gather or (self.gather is None and distributed_world() > 1):
            scores, is_pos = gather_batch(scores, is_pos)
        value = self._window_loss(scores, is_pos)
        if self.bce_weight:
            value = value + self.bce_weight * F.binary_cross_entropy_with_logits(
                batch_scores, batch_pos.to(batch_scores.dtype))
        return value

    def _window_loss(self, scores, is_pos):
        use_memory = self.memory is not None and self.training
        n_pos = int(is_pos.sum())
        n_neg = scores.shape[0] - n_pos
        if not use_memory and (n_pos == 0 or n_neg == 0):
            return scores.sum() * 0          # zero, still in the graph
        if not use_memory and self.pairwise is None:
            return self._structural(scores, is_pos, *empirical_indices(n_neg, self.fpr_range))
        if (TABLE_KERNELS_ON_CPU and not use_memory and scores.device.type == "cpu"
                and scores.dtype in (torch.float32, torch.float64)
                and self.row.derivatives is not None):
            j_alpha, j_beta = empirical_indices(n_neg, self.fpr_range)
            return TableKernel.apply(scores, is_pos, self.row, n_pos, j_alpha, j_beta)
        positives, negatives = scores[is_pos], scores[~is_pos]
        reference = negatives.detach()
        if use_memory:
            reference = torch.cat([reference, self.memory.scores.to(reference)])
            self.memory.push(negatives)
            if n_pos == 0 or n_neg == 0:
                return scores.sum() * 0
        j_alpha, j_beta = empirical_indices(reference.numel(), self.fpr_range)
        weights = window_weights(negatives.detach(), reference, j_alpha, j_beta)
        inside = weights > 0
        if not bool(inside.any()):
            return scores.sum() * 0          # no batch negative in the data's window
        count = n_pos * (j_beta - j_alpha) * n_neg / reference.numel()
        return self.pairwise(positives, negatives[inside], weights[inside], count)

    def _structural(self, scores, is_pos, j_alpha, j_beta):
        """``Delta - s . coef`` at the most violated constraint (the table's cut)."""
        flags = is_pos.cpu().numpy().astype(np.uint8)
        coef, delta = self.row.cut(scores.detach().cpu().double().numpy(), flags,
                                   int(flags.sum()), j_alpha, j_beta)
        coef = torch.as_tensor(coef, dtype=scores.dtype, device=scores.device)
        return delta - scores @ coef

    def _check(self, scores, labels):
        if not isinstance(scores, torch.Tensor) or not torch.is_floating_point(scores):
            raise ValueError("scores must be a floating-point torch tensor, got "
                             f"{getattr(scores, 'dtype', type(scores).__name__)}")
        if scores.dim() == 2 and scores.shape[1] == 1:
            scores = scores[:, 0]
        if scores.dim() != 1:
            raise ValueError(f"scores must have shape (b,) or (b, 1), got {tuple(scores.shape)}")
        labels = torch.as_tensor(labels, device=scores.device)
        if labels.dim() == 2 and labels.shape[1] == 1:
            labels = labels[:, 0]
        if labels.shape != scores.shape:
            raise ValueError(f"labels have shape {tuple(labels.shape)}, scores "
                             f"{tuple(scores.shape)}")
        if not bool(((labels == 0) | (labels == 1)).all()):
            raise ValueError("labels must be 0/1 or boolean (1 for positives)")
        if not bool(torch.isfinite(scores.detach()).all()):
            raise ValueError("scores must be finite (NaN or inf found)")
        return scores, labels == 1

    def extra_repr(self):
        return (f"fpr_range={self.fpr_range}, surrogate={self.surrogate!r}, "
                f"bce_weight={self.bce_weight}")
