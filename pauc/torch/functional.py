"""The window loss as a function: :func:`window_loss`, the dispatch behind :class:`WindowLoss`.

:class:`pauc.torch.WindowLoss` holds the loss's options (and its
:class:`~pauc.torch.NegativeMemory`) and calls :func:`window_loss`, which owns
every path of the computation: the default squared hinge of CPU tensors in
one C call, the loss table's Cython kernels, the torch forms (GPU tensors, a
memory, several processes, ``torch.func`` transforms), half precision and
autocast, the gather across processes and the cross-entropy mixture.  Each
batch is checked once, by one function (on the default path, by the kernel's
own C pass, with the same messages); the options once per distinct value,
remembered, so that the module's calls cost no check of them.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import functools
import numbers
import threading

import numpy as np
import torch
import torch.nn.functional as F

from pauc._loss import loss_names, loss_row
from pauc._loss._window import batch_flags, squared_hinge_batch
from pauc._validation import check_fpr_range, empirical_indices
from pauc.torch._gather import distributed_world, gather_batch
from pauc.torch._kernel import TableKernel, known_gradient
from pauc.torch._memory import NegativeMemory
from pauc.torch._pairwise import PAIRWISE
from pauc.torch._window import to_numpy, vmapped, window_weights

__all__ = ["window_loss"]

#: whether a torch.func transform is running (its wrapped tensors have no memory that
#: numpy reads): a C call of some 0.1 us, the only cost of the check on the default path
_transforms_active = getattr(torch._C, "_are_functorch_transforms_active", lambda: False)

#: On CPU tensors without a memory, the table rows with a ``derivatives`` kernel run it
#: (:class:`~pauc.torch._kernel.TableKernel`); the tests switch this off to check the
#: torch forms too.
TABLE_KERNELS_ON_CPU = True

#: the dtypes the loss computes in; scores of a reduced precision (``torch.autocast``'s
#: float16 on CUDA, bfloat16 on the CPU) are computed in float32, returned in their dtype
_KERNEL_DTYPES = (torch.float32, torch.float64)
#: label dtypes that ``tensor.numpy()`` holds (the checks of CPU batches run in numpy)
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
_VMAP = ("WindowLoss does not run under torch.vmap: the window is chosen by ranking "
         "each batch's scores, a data-dependent step vmap cannot batch; call the "
         "loss once per batch (torch.func.grad and torch.func.hessian work)")


@functools.lru_cache(maxsize=1024)
def _indices(n_negatives, fpr_range):
    """:func:`empirical_indices`, remembered per batch size (the same few every step)."""
    return empirical_indices(n_negatives, fpr_range)


# --------------------------------------------------------------------------
# the options: checked once per distinct value

def _check_window(fpr_range, surrogate):
    """``(fpr_range, row, pairwise)``: the checked window, the loss table's row of
    ``surrogate`` and its torch form (None for a structural surrogate); a
    ValueError naming what is wrong."""
    checked = check_fpr_range(fpr_range)
    alpha, beta = checked
    if beta - alpha <= MIN_WIDTH:
        # n alpha and n beta within 1e-9 of one integer count as it (floating-point
        # noise, pauc._validation.empirical_indices): such a window holds no
        # position for some batch sizes, and on average one in 5e8 negatives
        raise ValueError(
            f"fpr_range={fpr_range!r} is narrower than {MIN_WIDTH:g}: its window holds "
            "no negative position for some batch sizes; widen it")
    try:
        row = loss_row(surrogate, "window", what="surrogate")
    except ValueError as error:
        aliases = [f"{alias!r} for {name!r}" for name in loss_names("window")
                   for alias in loss_row(name).aliases]
        raise ValueError(f"{error} (aliases: {', '.join(aliases)})"
                         if aliases else str(error)) from None
    pairwise = PAIRWISE.get(row.name)
    if pairwise is None and row.cut is None:
        raise ValueError(f"surrogate={surrogate!r} has no torch form; choose one of "
                         f"{tuple(PAIRWISE)} or a structural surrogate")
    return checked, row, pairwise


def _check_mixture(bce_weight, gather):
    """``(bce_weight, gather)`` checked: a float >= 0, and None, True or False."""
    if isinstance(bce_weight, (bool, np.bool_)) or not isinstance(bce_weight, numbers.Real) \
            or not np.isfinite(bce_weight) or bce_weight < 0:
        raise ValueError(f"bce_weight must be a finite number >= 0, got {bce_weight!r}")
    if gather not in (None, True, False):
        raise ValueError(f"gather must be None, True or False, got {gather!r}")
    return float(bce_weight), gather


class _Options:
    """The checked options of :func:`window_loss`."""

    __slots__ = ("fpr_range", "row", "pairwise", "bce_weight", "gather", "default")

    def __init__(self, fpr_range, surrogate, bce_weight, gather):
        self.fpr_range, self.row, self.pairwise = _check_window(fpr_range, surrogate)
        self.bce_weight, self.gather = _check_mixture(bce_weight, gather)
        #: the default loss (squared hinge, no mixture, not forced to gather): the
        #: options of the default path, which checks the batch itself
        self.default = (self.row.name == "squared_hinge" and not self.bce_weight
                        and gather is not True)

    def indices(self, n_negatives):
        return _indices(n_negatives, self.fpr_range)


# typed: bce_weight=True (refused) and gather=1 are other keys than 1.0 and True; a
# failed check is not remembered, so its message names the value given
_remembered_options = functools.lru_cache(maxsize=256, typed=True)(_Options)


def _options(fpr_range, surrogate, bce_weight, gather):
    """The checked :class:`_Options`, remembered per value (a call of
    :class:`WindowLoss` finds its own, checked in its constructor, in some 0.2 us)."""
    try:
        return _remembered_options(fpr_range, surrogate, bce_weight, gather)
    except TypeError:                    # an unhashable value, say a list for fpr_range
        return _Options(fpr_range, surrogate, bce_weight, gather)


# --------------------------------------------------------------------------
# the batch: checked once

def _check_batch(scores, labels, numpy):
    """The one check of a batch: ``(scores, dtype, values, is_pos, n_pos)`` or a
    ValueError.

    ``scores`` must be a floating-point tensor of shape (b,) or (b, 1), finite;
    ``labels`` anything ``torch.as_tensor`` takes, of shape (b,) or (b, 1), 0/1
    or boolean.  Returned: the scores of shape (b,) in the dtype the loss
    computes in (half precision in float32) and their own ``dtype``.  With
    ``numpy`` (no ``torch.func`` transform running) on CPU tensors whose labels
    numpy holds, the values are checked in numpy, one C pass for the common
    label dtypes (:func:`pauc._loss._window.batch_flags`): ``values`` is the
    scores' numpy view and ``is_pos`` the ``uint8`` positive flags.  Else, with
    one synchronisation of the device, ``values`` is None and ``is_pos`` a bool
    tensor.  Labels other than 0/1 are reported before scores that are not
    finite.
    """
    if not isinstance(scores, torch.Tensor) or not torch.is_floating_point(scores):
        raise ValueError("scores must be a floating-point torch tensor, got "
                         f"{getattr(scores, 'dtype', type(scores).__name__)}")
    if scores.dim() == 2 and scores.shape[1] == 1:
        scores = scores[:, 0]
    if scores.dim() != 1:
        raise ValueError(f"scores must have shape (b,) or (b, 1), got {tuple(scores.shape)}")
    dtype = scores.dtype
    if dtype not in _KERNEL_DTYPES:
        # Half precision sums overflow (float16: the squared hinge's suffix sums pass
        # 65504 at a few thousand rows) or lose the gradient (bfloat16's 8 bits):
        # computed in float32.  Autograd's cast back hands the gradient to the half
        # scores, rounded once.
        scores = scores.float()
    labels = torch.as_tensor(labels, device=scores.device)
    if labels.dim() == 2 and labels.shape[1] == 1:
        labels = labels[:, 0]
    if labels.shape != scores.shape:
        raise ValueError(f"labels have shape {tuple(labels.shape)}, scores "
                         f"{tuple(scores.shape)}")
    if numpy and scores.device.type == "cpu" and labels.dtype in _NUMPY_LABELS:
        values = scores.detach()
        if not values.is_contiguous():
            values = values.contiguous()
        values = values.numpy()
        labels = labels.detach().numpy()
        if labels.dtype == np.bool_:
            labels = labels.view(np.uint8)
        if labels.dtype in _FLAG_DTYPES:
            flags = np.empty(values.shape[0], dtype=np.uint8)
            n_pos = batch_flags(values, np.ascontiguousarray(labels), flags)
            if n_pos < 0:
                raise ValueError(_BAD_LABELS if n_pos == -1 else _NOT_FINITE)
            return scores, dtype, values, flags, n_pos
        # int8, int16, float16: every nonzero label (NaN too) is a 1 exactly when the
        # counts agree
        is_pos = labels == 1
        n_pos = int(np.count_nonzero(is_pos))
        if np.count_nonzero(labels) != n_pos:
            raise ValueError(_BAD_LABELS)
        if not np.isfinite(values).all():
            raise ValueError(_NOT_FINITE)
        return scores, dtype, values, is_pos.view(np.uint8), n_pos
    is_pos = labels if labels.dtype == torch.bool else labels == 1
    counts = torch.stack([is_pos.sum(), torch.count_nonzero(labels),
                          torch.count_nonzero(~torch.isfinite(scores.detach()))]).tolist()
    n_pos, n_nonzero, n_not_finite = counts
    if n_nonzero != n_pos:
        raise ValueError(_BAD_LABELS)
    if n_not_finite:
        raise ValueError(_NOT_FINITE)
    return scores, dtype, None, is_pos, n_pos


# --------------------------------------------------------------------------
# the loss

def window_loss(scores, labels, fpr_range=(0.0, 0.1), surrogate="squared_hinge", *,
                memory=None, bce_weight=0.0, gather=None):
    r"""Partial-AUC surrogate of the FPR window ``[alpha, beta]`` of a batch of raw scores.

    The loss of :class:`pauc.torch.WindowLoss` as a function (whose
    ``forward`` calls it): the average of a pairwise loss ``l(s_i - s_j)``
    over the pairs of every positive ``i`` and every negative ``j`` ranked
    ``j_alpha + 1 .. j_beta`` from the top (``j_alpha = floor(n alpha)``,
    ``j_beta = ceil(n beta)``, eq. (2) of [1]_):

    .. math::

        L(s) = \frac{1}{m (j_\beta - j_\alpha)} \sum_{i \in P}
               \sum_{j \in W(s)} \ell(s_i - s_j).

    The same value and gradient as the module's, in every dtype, on every
    device, under ``torch.func`` transforms (``grad``, ``hessian``; ``vmap``
    is refused) and ``torch.autocast``.  The options are checked once per
    distinct value (remembered), the batch at every call.

    Parameters
    ----------
    scores : tensor of shape (b,) or (b, 1)
        Raw scores (logits), higher for positives; floating point, finite.
        Half precision (float16, bfloat16) is computed in float32 and the
        value returned in the scores' dtype.
    labels : tensor or array of shape (b,) or (b, 1)
        1 (or True) for positives, 0 (or False) for negatives.
    fpr_range : (float, float), default=(0.0, 0.1)
        The FPR window ``[alpha, beta]``, ``0 <= alpha < beta <= 1`` and
        ``beta - alpha > 2e-9`` (see :class:`~pauc.torch.WindowLoss`).
    surrogate : str, default="squared_hinge"
        A window loss of the table: ``"squared_hinge"``, ``"hinge"``,
        ``"exponential"``, or the structural ``"tight"`` (alias
        ``"tight_hinge"``) and ``"naive"``.
    memory : NegativeMemory or None, default=None
        Recent detached negative scores that place the window (the batch's
        negatives are ranked among them and pushed into them, so the call
        updates it); pairwise surrogates only.  None: the batch's own window,
        the exact window loss of the batch.  :class:`~pauc.torch.WindowLoss`
        passes its memory in training mode only.
    bce_weight : float, default=0.0
        Weight ``lambda`` of the binary cross-entropy on the logits in the
        mixture ``L + lambda * BCE``.
    gather : bool or None, default=None
        Place the window on the global batch of every process of
        ``torch.distributed`` (see :class:`~pauc.torch.WindowLoss`).  None:
        when ``torch.distributed`` is initialised with more than one process.

    Returns
    -------
    tensor of shape ()
        The window surrogate (plus ``bce_weight`` times the cross-entropy), in
        the scores' dtype; a batch without a positive or without a negative
        gives a zero that is still part of the graph.

    Raises
    ------
    ValueError
        For options :class:`~pauc.torch.WindowLoss` refuses (with its
        messages), for scores that are not floating point, not of shape (b,)
        or (b, 1), or not finite, for labels of another shape or other than
        0/1, and under ``torch.vmap``.

    See Also
    --------
    pauc.torch.WindowLoss : The module, which holds the options and the memory.

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017.

    Examples
    --------
    >>> import torch
    >>> from pauc.torch.functional import window_loss
    >>> scores = torch.tensor([2.0, 0.5, 1.0, -1.0], requires_grad=True)
    >>> value = window_loss(scores, torch.tensor([1, 1, 0, 0]), fpr_range=(0.0, 0.5))
    >>> round(value.item(), 4)       # pairs (2, 1) and (0.5, 1): 0 and 1.5^2, over 2
    1.125
    >>> value.backward()
    >>> scores.grad
    tensor([ 0.0000, -1.5000,  1.5000,  0.0000])
    """
    options = _options(fpr_range, surrogate, bce_weight, gather)
    if memory is not None:
        _check_memory(memory, options)
    if _transforms_active():
        if vmapped(scores) or (isinstance(labels, torch.Tensor) and vmapped(labels)):
            raise ValueError(_VMAP)
        # the torch forms, whose derivatives of every order are those of the pairwise
        # sums with the window held fixed
        return _general_path(scores, labels, options, memory, kernels=False)
    if (options.default and memory is None and TABLE_KERNELS_ON_CPU
            and type(scores) is torch.Tensor and type(labels) is torch.Tensor
            and scores.is_cpu and labels.is_cpu and scores.dtype in _KERNEL_DTYPES
            and labels.dtype in _KERNEL_LABELS and not labels.requires_grad):
        value = _default_path(scores, labels, options)
        if value is not None:
            return value
    return _general_path(scores, labels, options, memory, kernels=True)


def _check_memory(memory, options):
    """A ValueError unless ``memory`` is a :class:`NegativeMemory` that the surrogate
    can use (a pairwise one)."""
    if not isinstance(memory, NegativeMemory):
        raise ValueError("memory must be a pauc.torch.NegativeMemory or None, got "
                         f"{type(memory).__name__}")
    if options.pairwise is None:
        raise ValueError(f"memory needs a pairwise surrogate {tuple(PAIRWISE)}: the "
                         f"structural surrogate {options.row.name!r} ranks the batch "
                         "itself; pass memory=None")


def _default_path(scores, labels, options):
    """The default loss (squared hinge, no mixture, no memory, one process) of CPU
    tensors that the kernel reads as they are, straight to :func:`_squared_hinge`,
    whose one C call checks the batch too (the messages of :func:`_check_batch`);
    None for anything else, which the general path checks, converts or reports.
    On a small network's training step every Python call of the general path
    costs several times its tight-loop time: this path is what keeps the step
    near BCE's."""
    if scores.ndim == 2 and scores.shape[1] == 1:
        scores = scores[:, 0]
    if labels.ndim == 2 and labels.shape[1] == 1:
        labels = labels[:, 0]
    if (scores.ndim != 1 or labels.shape != scores.shape or not scores.is_contiguous()
            or not labels.is_contiguous()
            or (options.gather is None and distributed_world() > 1)):
        return None
    labels = labels.numpy()
    if labels.dtype == np.bool_:
        labels = labels.view(np.uint8)
    return _squared_hinge(scores, scores.detach().numpy(), labels, options)


def _general_path(scores, labels, options, memory, kernels):
    """The loss off the default path; ``kernels=False`` keeps to the torch forms
    (differentiable to any order, as ``torch.func`` needs)."""
    scores, dtype, values, is_pos, n_pos = _check_batch(scores, labels, kernels)
    device = scores.device.type
    if dtype is not scores.dtype or torch.is_autocast_enabled(device):
        # autocast would run the loss's own products in half precision: off, and the
        # value returned in the scores' dtype
        with torch.autocast(device, enabled=False):
            return _loss(scores, values, is_pos, n_pos, options, memory,
                         kernels).to(dtype)
    return _loss(scores, values, is_pos, n_pos, options, memory, kernels)


def _loss(scores, values, is_pos, n_pos, options, memory, kernels):
    """The loss of checked scores of shape (b,) in float32 or float64 (see
    :func:`_check_batch` for ``values`` and ``is_pos``)."""
    gather = options.gather or (options.gather is None and distributed_world() > 1)
    if values is not None and not gather and memory is None and (
            options.pairwise is None
            or (TABLE_KERNELS_ON_CPU and options.row.derivatives is not None)):
        return _kernel_loss(scores, values, is_pos, n_pos, options)
    if values is not None:
        is_pos = torch.from_numpy(is_pos).to(torch.bool)
    if gather:
        scores, is_pos = gather_batch(scores, is_pos)
        n_pos = None
    value = _window_loss(scores, is_pos, n_pos, options, memory, kernels)
    if options.bce_weight:
        # gathered, the cross-entropy too is the global batch's mean (this process's
        # rows live and scaled like the window's): every process reports the loss of
        # the concatenated batch, and DDP's average is its gradient
        value = value + options.bce_weight * F.binary_cross_entropy_with_logits(
            scores, is_pos.to(scores.dtype))
    return value


def _kernel_loss(scores, values, flags, n_pos, options):
    """The table's Cython kernel on the scores' own memory (CPU, one process, no
    memory): no tensor operation but the output's."""
    if options.row.name == "squared_hinge" and not options.bce_weight:
        return _squared_hinge(scores, values, flags, options)
    n_neg = values.shape[0] - n_pos
    if n_pos == 0 or n_neg == 0:
        value = scores.sum() * 0             # zero, still in the graph
    else:
        j_alpha, j_beta = options.indices(n_neg)
        if options.pairwise is None:
            value = _structural(scores, values, flags, n_pos, j_alpha, j_beta, options.row)
        else:
            value = TableKernel.apply(scores, values, flags, options.row, n_pos, j_alpha,
                                      j_beta, _scratch(values.shape[0]))
    if options.bce_weight:
        value = value + options.bce_weight * F.binary_cross_entropy_with_logits(
            scores, torch.from_numpy(flags).to(scores.dtype))
    return value


def _squared_hinge(scores, values, labels, options):
    """The default loss in one C call: checks, window, value and gradient
    (:func:`pauc._loss._window.squared_hinge_batch`)."""
    grad = torch.empty(values.shape[0], dtype=scores.dtype)
    status, value = squared_hinge_batch(values, labels, grad.numpy(), options.indices)
    if status == 1:
        return known_gradient(scores, value, grad)
    if status == 0:
        return scores.sum() * 0              # zero, still in the graph
    raise ValueError(_BAD_LABELS if status == -1 else _NOT_FINITE)


#: per thread, the float64 array the table kernels write their Hessian diagonal into
_workspace = threading.local()


def _scratch(n):
    """A float64 array of length ``n`` for the kernel's Hessian diagonal (written,
    never read), kept between calls (one per thread)."""
    scratch = getattr(_workspace, "hessian", None)
    if scratch is None or scratch.shape[0] != n:
        scratch = _workspace.hessian = np.empty(n)
    return scratch


def _window_loss(scores, is_pos, n_pos, options, memory, kernels):
    """The window loss of scores of shape (b,) and their bool tensor ``is_pos``
    (``n_pos`` of them, or None to count), on the torch forms, the structural
    cut, or (CPU, no memory) the table's kernel."""
    if n_pos is None:
        n_pos = int(is_pos.sum())
    n_neg = scores.shape[0] - n_pos
    if memory is None and (n_pos == 0 or n_neg == 0):
        return scores.sum() * 0              # zero, still in the graph
    if memory is None and options.pairwise is None:
        # (_structural converts the values to float64 itself)
        flags = np.ascontiguousarray(to_numpy(is_pos)).view(np.uint8)
        return _structural(scores, to_numpy(scores), flags, n_pos,
                           *options.indices(n_neg), options.row)
    if (TABLE_KERNELS_ON_CPU and kernels and memory is None and scores.device.type == "cpu"
            and scores.dtype in _KERNEL_DTYPES and options.row.derivatives is not None):
        j_alpha, j_beta = options.indices(n_neg)
        values = scores.detach().contiguous().numpy()
        flags = np.ascontiguousarray(is_pos.numpy()).view(np.uint8)
        return TableKernel.apply(scores, values, flags, options.row, n_pos, j_alpha, j_beta,
                                 _scratch(values.shape[0]))
    positives, negatives = scores[is_pos], scores[~is_pos]
    reference = negatives.detach()
    if memory is not None:
        reference = torch.cat([reference, memory.scores.to(reference)])
        memory.push(negatives)
        if n_pos == 0 or n_neg == 0:
            return scores.sum() * 0
    j_alpha, j_beta = _indices(reference.numel(), options.fpr_range)
    weights = window_weights(negatives.detach(), reference, j_alpha, j_beta)
    inside = weights > 0
    if not bool(inside.any()):
        return scores.sum() * 0              # no batch negative in the data's window
    count = n_pos * (j_beta - j_alpha) * n_neg / reference.numel()
    return options.pairwise(positives, negatives[inside], weights[inside], count)


def _structural(scores, values, flags, n_pos, j_alpha, j_beta, row):
    """``Delta - s . coef`` at the most violated constraint (the table's cut), from
    the scores' numpy ``values`` and the ``uint8`` positive ``flags``."""
    coef, delta = row.cut(values.astype(np.float64), flags, n_pos, j_alpha, j_beta)
    coef = torch.as_tensor(coef, dtype=scores.dtype, device=scores.device)
    return delta - scores @ coef
