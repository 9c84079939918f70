"""The window loss of a batch of scores: pauc's partial-AUC surrogates in torch."""

import functools
import numbers

import numpy as np
import torch
import torch.nn.functional as F

from pauc._loss import loss_names, loss_row
from pauc._loss._window import batch_flags, squared_hinge_batch
from pauc._validation import check_fpr_range, empirical_indices
from pauc.torch._gather import distributed_world, gather_batch
from pauc.torch._kernel import TableKernel, known_gradient
from pauc.torch._memory import NegativeMemory, check_size
from pauc.torch._pairwise import PAIRWISE
from pauc.torch._window import to_numpy, vmapped, window_weights

#: whether a torch.func transform is running (its wrapped tensors have no memory that
#: numpy reads): a C call of some 0.1 us, the only cost of the check on the default path
_transforms_active = getattr(torch._C, "_are_functorch_transforms_active", lambda: False)

#: On CPU tensors without a memory, the table rows with a ``derivatives`` kernel run it
#: (:class:`TableKernel`); the tests switch this off to check the torch forms too.
TABLE_KERNELS_ON_CPU = True


#: the dtypes the loss computes in; scores of a reduced precision (``torch.autocast``'s
#: float16 on CUDA, bfloat16 on the CPU) are computed in float32, returned in their dtype
_KERNEL_DTYPES = (torch.float32, torch.float64)
#: label dtypes that ``tensor.numpy()`` holds (the checks of the kernel path run in numpy)
_NUMPY_LABELS = frozenset([torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
                           torch.int64, torch.float16, torch.float32, torch.float64])
#: numpy label dtypes that :func:`batch_flags` reads (booleans as uint8)
_FLAG_DTYPES = frozenset(np.dtype(t) for t in (np.uint8, np.int32, np.int64, np.float32,
                                               np.float64))
#: torch label dtypes whose numpy view the default loss's kernel reads (booleans as uint8)
_KERNEL_LABELS = frozenset([torch.bool, torch.uint8, torch.int32, torch.int64, torch.float32,
                            torch.float64])
#: the narrowest window accepted: wider, it holds a position among any number of
#: negatives, the tolerance of ``empirical_indices`` (1e-9 relative) included
MIN_WIDTH = 2e-9
_BAD_LABELS = "labels must be 0/1 or boolean (1 for positives)"
_NOT_FINITE = "scores must be finite (NaN or inf found)"


@functools.lru_cache(maxsize=1024)
def _indices(n_negatives, fpr_range):
    """:func:`empirical_indices`, remembered per batch size (the same few every step)."""
    return empirical_indices(n_negatives, fpr_range)


def _check_scores(scores):
    """The scores as a tensor of shape (b,), or a ValueError."""
    if not isinstance(scores, torch.Tensor) or not torch.is_floating_point(scores):
        raise ValueError("scores must be a floating-point torch tensor, got "
                         f"{getattr(scores, 'dtype', type(scores).__name__)}")
    if scores.dim() == 2 and scores.shape[1] == 1:
        scores = scores[:, 0]
    if scores.dim() != 1:
        raise ValueError(f"scores must have shape (b,) or (b, 1), got {tuple(scores.shape)}")
    return scores


def _labels_like(labels, scores):
    """The labels as a tensor on the scores' device and of their shape, or a ValueError."""
    labels = torch.as_tensor(labels, device=scores.device)
    if labels.dim() == 2 and labels.shape[1] == 1:
        labels = labels[:, 0]
    if labels.shape != scores.shape:
        raise ValueError(f"labels have shape {tuple(labels.shape)}, scores "
                         f"{tuple(scores.shape)}")
    return labels


def _numpy_flags(labels):
    """``(flags, n_pos)``: the positives as C-contiguous ``uint8`` and their count, from
    numpy labels; a ValueError unless every label is 0 or 1 (or boolean)."""
    if labels.dtype == np.bool_:
        flags = np.ascontiguousarray(labels).view(np.uint8)
        return flags, int(np.count_nonzero(flags))
    is_pos = labels == 1
    n_pos = int(np.count_nonzero(is_pos))
    # every nonzero label (NaN too) is a 1 exactly when the counts agree
    if np.count_nonzero(labels) != n_pos:
        raise ValueError(_BAD_LABELS)
    return is_pos.view(np.uint8), n_pos


def _kernel_flags(values, labels):
    """``(flags, n_pos)`` of numpy labels beside the numpy scores ``values``, one C
    pass (:func:`pauc._loss._window.batch_flags`) for the common label dtypes; a
    ValueError for labels other than 0/1 (first) or scores that are not finite."""
    if labels.dtype == np.bool_:
        labels = labels.view(np.uint8)
    if labels.dtype in _FLAG_DTYPES:
        flags = np.empty(values.shape[0], dtype=np.uint8)
        n_pos = batch_flags(values, np.ascontiguousarray(labels), flags)
        if n_pos == -1:
            raise ValueError(_BAD_LABELS)
        if n_pos == -2:
            raise ValueError(_NOT_FINITE)
        return flags, n_pos
    flags, n_pos = _numpy_flags(labels)
    if not np.isfinite(values).all():
        raise ValueError(_NOT_FINITE)
    return flags, n_pos


def _check_batch(scores, labels):
    """``(is_pos, n_pos)`` of tensor labels, the label and finiteness checks with one
    synchronisation of the device; a ValueError for labels other than 0/1 or for
    scores that are not finite."""
    is_pos = labels if labels.dtype == torch.bool else labels == 1
    counts = torch.stack([is_pos.sum(), torch.count_nonzero(labels),
                          torch.count_nonzero(~torch.isfinite(scores.detach()))]).tolist()
    n_pos, n_nonzero, n_not_finite = counts
    if n_nonzero != n_pos:
        raise ValueError(_BAD_LABELS)
    if n_not_finite:
        raise ValueError(_NOT_FINITE)
    return is_pos, n_pos


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
        alpha, beta = self.fpr_range
        if beta - alpha <= MIN_WIDTH:
            # n alpha and n beta within 1e-9 of one integer count as it (floating-point
            # noise, pauc._validation.empirical_indices): such a window holds no
            # position for some batch sizes, and on average one in 5e8 negatives
            raise ValueError(
                f"fpr_range={fpr_range!r} is narrower than {MIN_WIDTH:g}: its window holds "
                "no negative position for some batch sizes; widen it")
        try:
            self.row = loss_row(surrogate, "window", what="surrogate")
        except ValueError as error:
            aliases = [f"{alias!r} for {row!r}" for row in loss_names("window")
                       for alias in loss_row(row).aliases]
            raise ValueError(f"{error} (aliases: {', '.join(aliases)})"
                             if aliases else str(error)) from None
        self.surrogate = self.row.name
        self.pairwise = PAIRWISE.get(self.row.name)
        if self.pairwise is None and self.row.cut is None:
            raise ValueError(f"surrogate={surrogate!r} has no torch form; choose one of "
                             f"{tuple(PAIRWISE)} or a structural surrogate")
        memory = check_size(memory, 0)
        if memory and self.pairwise is None:
            raise ValueError(f"memory needs a pairwise surrogate {tuple(PAIRWISE)}: the "
                             f"structural surrogate {self.surrogate!r} ranks the batch "
                             "itself; use memory=0")
        self.memory = NegativeMemory(memory) if memory else None
        if isinstance(bce_weight, (bool, np.bool_)) or not isinstance(bce_weight, numbers.Real) \
                or not np.isfinite(bce_weight) or bce_weight < 0:
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
        if _transforms_active():
            return self._forward_transformed(scores, labels)
        value = self._default_path(scores, labels)
        if value is not None:
            return value
        return self._forward_any(scores, labels)

    def _forward_any(self, scores, labels, kernels=True):
        """:meth:`forward` off the default path; ``kernels=False`` keeps to the torch
        forms (differentiable to any order, as ``torch.func`` needs)."""
        scores = _check_scores(scores)
        device = scores.device.type
        half = scores.dtype not in _KERNEL_DTYPES
        if half or torch.is_autocast_enabled(device):
            # Half precision sums overflow (float16: the squared hinge's suffix sums
            # pass 65504 at a few thousand rows) or lose the gradient (bfloat16's 8
            # bits), and autocast would run the loss's own products in half
            # precision: compute in float32 (or the scores' float64), autocast off,
            # and return the value in the scores' dtype.  Autograd's cast back
            # hands the gradient to the half scores, rounded once.
            with torch.autocast(device, enabled=False):
                return self._forward(scores.float() if half else scores, labels,
                                     kernels).to(scores.dtype)
        return self._forward(scores, labels, kernels)

    def _forward_transformed(self, scores, labels):
        """:meth:`forward` under ``torch.func`` transforms (``grad``, ``hessian``,
        ``jacrev``, ``jvp``...): the torch forms, whose derivatives of every order
        are those of the pairwise sums with the window held fixed; ``vmap`` refused."""
        if vmapped(scores) or (isinstance(labels, torch.Tensor) and vmapped(labels)):
            raise ValueError(
                "WindowLoss does not run under torch.vmap: the window is chosen by ranking "
                "each batch's scores, a data-dependent step vmap cannot batch; call the "
                "loss once per batch (torch.func.grad and torch.func.hessian work)")
        return self._forward_any(scores, labels, kernels=False)

    def _forward(self, scores, labels, kernels=True):
        """:meth:`forward` of checked scores of shape (b,) in float32 or float64."""
        labels = _labels_like(labels, scores)
        gather = self.gather or (self.gather is None and distributed_world() > 1)
        if (kernels and not gather and scores.device.type == "cpu"
                and scores.dtype in _KERNEL_DTYPES
                and labels.dtype in _NUMPY_LABELS
                and (self.memory is None or not self.training)
                and (self.pairwise is None
                     or (TABLE_KERNELS_ON_CPU and self.row.derivatives is not None))):
            return self._forward_kernel(scores, labels)
        is_pos, n_pos = _check_batch(scores, labels)
        if gather:
            scores, is_pos = gather_batch(scores, is_pos)
            n_pos = None
        value = self._window_loss(scores, is_pos, n_pos, kernels)
        if self.bce_weight:
            # gathered, the cross-entropy too is the global batch's mean (this process's
            # rows live and scaled like the window's): every process reports the loss of
            # the concatenated batch, and DDP's average is its gradient
            value = value + self.bce_weight * F.binary_cross_entropy_with_logits(
                scores, is_pos.to(scores.dtype))
        return value

    def _default_path(self, scores, labels):
        """The default loss (squared hinge, no mixture, no memory, one process) of CPU
        tensors that the kernel reads as they are, straight to
        :meth:`_squared_hinge`; None for anything else, which the general path
        checks, converts or reports.  On a small network's training step every
        Python call of the general path's checks costs several times its
        tight-loop time: this path is what keeps the step near BCE's."""
        if not (TABLE_KERNELS_ON_CPU and type(scores) is torch.Tensor
                and type(labels) is torch.Tensor and self.surrogate == "squared_hinge"
                and not self.bce_weight and self.memory is None and self.gather is not True
                and scores.is_cpu and labels.is_cpu and scores.dtype in _KERNEL_DTYPES
                and labels.dtype in _KERNEL_LABELS and not labels.requires_grad):
            return None
        if scores.ndim == 2 and scores.shape[1] == 1:
            scores = scores[:, 0]
        if labels.ndim == 2 and labels.shape[1] == 1:
            labels = labels[:, 0]
        if (scores.ndim != 1 or labels.shape != scores.shape or not scores.is_contiguous()
                or not labels.is_contiguous()
                or (self.gather is None and distributed_world() > 1)):
            return None
        labels = labels.numpy()
        if labels.dtype == np.bool_:
            labels = labels.view(np.uint8)
        return self._squared_hinge(scores, scores.detach().numpy(), labels)

    def _forward_kernel(self, scores, labels):
        """The table's Cython kernel on the scores' own memory (CPU, one process, no
        memory): the checks in numpy, no tensor operation but the output's."""
        values = scores.detach()
        if not values.is_contiguous():
            values = values.contiguous()
        values = values.numpy()
        labels = labels.detach().numpy()
        if self.surrogate == "squared_hinge" and not self.bce_weight:
            if labels.dtype == np.bool_:
                labels = labels.view(np.uint8)
            if labels.dtype in _FLAG_DTYPES:
                return self._squared_hinge(scores, values, np.ascontiguousarray(labels))
        flags, n_pos = _kernel_flags(values, labels)
        n_neg = values.shape[0] - n_pos
        if n_pos == 0 or n_neg == 0:
            value = scores.sum() * 0         # zero, still in the graph
        else:
            j_alpha, j_beta = _indices(n_neg, self.fpr_range)
            if self.pairwise is None:
                value = self._structural(scores, values, flags, n_pos, j_alpha, j_beta)
            else:
                value = TableKernel.apply(scores, values, flags, self.row, n_pos, j_alpha,
                                          j_beta, self._scratch(values.shape[0]))
        if self.bce_weight:
            value = value + self.bce_weight * F.binary_cross_entropy_with_logits(
                scores, torch.from_numpy(flags).to(scores.dtype))
        return value

    def _squared_hinge(self, scores, values, labels):
        """The default loss in one C call: checks, window, value and gradient
        (:func:`pauc._loss._window.squared_hinge_batch`)."""
        grad = torch.empty(values.shape[0], dtype=scores.dtype)
        status, value = squared_hinge_batch(values, labels, grad.numpy(), self._indices)
        if status == 1:
            return known_gradient(scores, value, grad)
        if status == 0:
            return scores.sum() * 0          # zero, still in the graph
        raise ValueError(_BAD_LABELS if status == -1 else _NOT_FINITE)

    def _indices(self, n_negatives):
        return _indices(n_negatives, self.fpr_range)

    def _scratch(self, n):
        """A float64 array of length ``n`` for the kernel's Hessian diagonal (written,
        never read), kept between calls."""
        scratch = self.__dict__.get("_hessian_scratch")
        if scratch is None or scratch.shape[0] != n:
            scratch = self.__dict__["_hessian_scratch"] = np.empty(n)
        return scratch

    def _window_loss(self, scores, is_pos, n_pos=None, kernels=True):
        use_memory = self.memory is not None and self.training
        if n_pos is None:
            n_pos = int(is_pos.sum())
        n_neg = scores.shape[0] - n_pos
        if not use_memory and (n_pos == 0 or n_neg == 0):
            return scores.sum() * 0          # zero, still in the graph
        if not use_memory and self.pairwise is None:
            # (_structural converts the values to float64 itself)
            flags = np.ascontiguousarray(to_numpy(is_pos)).view(np.uint8)
            return self._structural(scores, to_numpy(scores), flags, n_pos,
                                    *_indices(n_neg, self.fpr_range))
        if (TABLE_KERNELS_ON_CPU and kernels and not use_memory and scores.device.type == "cpu"
                and scores.dtype in _KERNEL_DTYPES and self.row.derivatives is not None):
            j_alpha, j_beta = _indices(n_neg, self.fpr_range)
            values = scores.detach().contiguous().numpy()
            flags = np.ascontiguousarray(is_pos.numpy()).view(np.uint8)
            return TableKernel.apply(scores, values, flags, self.row, n_pos, j_alpha, j_beta,
                                     self._scratch(values.shape[0]))
        positives, negatives = scores[is_pos], scores[~is_pos]
        reference = negatives.detach()
        if use_memory:
            reference = torch.cat([reference, self.memory.scores.to(reference)])
            self.memory.push(negatives)
            if n_pos == 0 or n_neg == 0:
                return scores.sum() * 0
        j_alpha, j_beta = _indices(reference.numel(), self.fpr_range)
        weights = window_weights(negatives.detach(), reference, j_alpha, j_beta)
        inside = weights > 0
        if not bool(inside.any()):
            return scores.sum() * 0          # no batch negative in the data's window
        count = n_pos * (j_beta - j_alpha) * n_neg / reference.numel()
        return self.pairwise(positives, negatives[inside], weights[inside], count)

    def _structural(self, scores, values, flags, n_pos, j_alpha, j_beta):
        """``Delta - s . coef`` at the most violated constraint (the table's cut), from
        the scores' numpy ``values`` and the ``uint8`` positive ``flags``."""
        coef, delta = self.row.cut(values.astype(np.float64), flags, n_pos, j_alpha, j_beta)
        coef = torch.as_tensor(coef, dtype=scores.dtype, device=scores.device)
        return delta - scores @ coef

    def extra_repr(self):
        return (f"fpr_range={self.fpr_range}, surrogate={self.surrogate!r}, "
                f"bce_weight={self.bce_weight}")
