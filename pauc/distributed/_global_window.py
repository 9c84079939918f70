"""The exact global window of a window loss, over rows spread across workers.

A window loss (:mod:`pauc.objectives`) averages a pairwise loss over the pairs
of a positive and a negative ranked ``j_alpha + 1 .. j_beta`` among *all* the
training negatives (``j_alpha = floor(n alpha)``, ``j_beta = ceil(n beta)``,
Narasimhan & Agarwal, eq. (2)).  When the rows are split over workers, as in
``xgboost.dask.train``, a worker that ranked only its own negatives would use
the wrong window (on rows sorted by the feature that drives the label, each
worker would have its own "top").  :func:`global_window` computes the window
of the concatenated scores on every worker, exactly:

* the global class counts (one ``sum`` of three numbers, once per data set);
* the ``j_alpha + 1``-th and the ``j_beta``-th highest negative score with the
  numbers of negatives above and tied with each, by the distributed
  selection of :mod:`pauc.distributed._rank_selection` (histogram refinement);
* from those, the weight ``omega`` of each local negative in the window, with
  the tie rule of :mod:`pauc._loss._window` (a tie group at a border
  shares the border's places; the weight depends on no row order).

The window exponential loss then factorises over the workers (Freund et al.
2003): ``sum_i sum_j omega_j exp(s_j - s_i) = A B`` with ``A = sum_i
exp(-s_i)`` over every positive and ``B = sum_j omega_j exp(s_j)`` over every
window negative, so :func:`exponential_derivatives` needs two global sums (and
two extrema for the overflow guards) and gives each local row its gradient:
``-exp(-s_i) B / N`` on a positive, ``omega_j exp(s_j) A / N`` on a negative
(``N = m (j_beta - j_alpha)``), the Hessian diagonal their absolute values --
the quantities of :func:`pauc._loss._window.exponential`, with the same
factoring of the largest exponent and the same normalisation.

What a worker sends per call: 3 + 2 ``uint64`` keys, then per selection round
``2 bins`` counts and 4 keys, then 2 sums and 2 extrema -- O(bins), whatever
the number of rows.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.
"""

import math
from dataclasses import dataclass

import numpy as np

from .._loss._window import window_share
from .._validation import empirical_indices
from . import _window_kernels as _kernels
from ._rank_selection import DEFAULT_BINS, select_ranks

__all__ = ["GlobalCounts", "Window", "ExponentialSums", "global_counts", "global_window",
           "exponential_derivatives", "exponential_global"]


@dataclass
class GlobalCounts:
    """Rows of each class over every worker, and the window's positions."""

    n_pos: int
    n_neg: int
    n_rows: int
    j_alpha: int
    j_beta: int


def global_counts(is_pos, fpr_range, comm):
    """:class:`GlobalCounts` of the labels held by every worker (one ``sum``)."""
    n_pos_local = int(np.count_nonzero(is_pos))
    n_pos, n_neg, n_rows = (int(v) for v in comm.sum(
        np.array([n_pos_local, is_pos.shape[0] - n_pos_local, is_pos.shape[0]],
                 dtype=np.int64)))
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"the training rows of all workers hold {n_pos} positives and "
                         f"{n_neg} negatives; the window losses need both classes")
    try:
        j_alpha, j_beta = empirical_indices(n_neg, fpr_range)
    except ValueError as exc:
        raise ValueError(f"{exc} (over the {n_neg} negatives of all workers)") from None
    return GlobalCounts(n_pos, n_neg, n_rows, j_alpha, j_beta)


@dataclass
class Window:
    """The window's borders over every worker: ``v_top`` the score at position
    ``j_alpha + 1`` (highest first), ``v_bot`` at ``j_beta``; the negatives
    strictly above and tied with each; the weight of a negative tied with each.
    ``rounds`` the selection's histogram rounds."""

    v_top: float
    v_bot: float
    above_top: int
    tied_top: int
    above_bot: int
    tied_bot: int
    w_top: float
    w_bot: float
    rounds: int


def global_window(neg_scores, counts, comm, bins=DEFAULT_BINS, mask=None):
    """The :class:`Window` of the negatives of every worker (``neg_scores``: this
    worker's; or ``neg_scores[mask]``, read in blocks without a copy).  Every
    worker calls it; all get the same window."""
    (top, bot), rounds = select_ranks(neg_scores, [counts.j_alpha + 1, counts.j_beta],
                                      counts.n_neg, comm, bins, mask=mask)
    return Window(v_top=top.value, v_bot=bot.value,
                  above_top=top.above, tied_top=top.tied,
                  above_bot=bot.above, tied_bot=bot.tied,
                  w_top=window_share(top.above, top.tied, counts.j_alpha, counts.j_beta),
                  w_bot=window_share(bot.above, bot.tied, counts.j_alpha, counts.j_beta),
                  rounds=rounds)


@dataclass
class ExponentialSums:
    """The global quantities of the factorised window exponential loss:
    ``lo_pos`` the lowest positive score, ``sum_pos = sum_i exp(lo_pos - s_i)``,
    ``sum_neg = sum_j omega_j exp(s_j - v_top)``, ``max_neg`` its largest term,
    and the loss value ``A B / N``."""

    lo_pos: float
    sum_pos: float
    sum_neg: float
    max_neg: float
    value: float


def exponential_derivatives(scores, is_pos, counts, window, comm, grad, hess, *, scale,
                            normalize, curvature):
    """Add the window exponential loss's gradient and Hessian diagonal at the local
    rows into ``grad`` and ``hess``, from the global sums (module docstring).

    ``scale``, ``normalize`` and ``curvature`` as in
    :func:`pauc._loss._window.exponential` (``scale`` the number of rows of
    every worker); returns the :class:`ExponentialSums`.  Two passes over the rows
    in C (:mod:`pauc.distributed._window_kernels`), no temporary per row: the terms
    ``exp(lo_pos - s_i)`` and ``omega_j exp(s_j - v_top)`` are computed again in the
    second pass rather than kept between them (8 bytes per row fewer).  ``scores``
    float32 or float64, C-contiguous; ``grad`` and ``hess`` float32 or float64.
    """
    # a row's role: 1 positive, 0 negative, anything else skipped (a held-out row)
    pos = is_pos if is_pos.dtype == np.uint8 else \
        np.ascontiguousarray(is_pos, dtype=bool).view(np.uint8)
    borders = (window.v_top, window.v_bot, window.w_top, window.w_bot)
    # the lowest positive score over the workers: the largest exp(-s_i) is factored out
    lo_local = _kernels.lowest_positive(scores, pos)
    lo_pos = float(-comm.max(np.array([-lo_local]))[0])
    sum_pos, sum_neg, max_neg = _kernels.exponential_sums(scores, pos, lo_pos, *borders)
    sum_pos, sum_neg = (float(v) for v in comm.sum(np.array([sum_pos, sum_neg])))
    max_neg = float(comm.max(np.array([max_neg]))[0])
    n_pairs = float(counts.n_pos) * float(counts.j_beta - counts.j_alpha)
    log_a = math.log(sum_pos) - lo_pos
    log_b = math.log(sum_neg) + window.v_top
    # the largest |gradient| entry: a positive at lo_pos, or the heaviest window negative
    log_max = max(-lo_pos + log_b, math.log(max_neg) + window.v_top + log_a)
    log_f = math.log(scale) - (log_max if normalize else math.log(n_pairs))
    c_pos = math.exp(log_f - lo_pos + log_b)
    c_neg = math.exp(log_f + window.v_top + log_a)
    # the terms again: an exp per row costs less than keeping them (8 bytes per row)
    _kernels.exponential_add(scores, pos, lo_pos, *borders, c_pos, c_neg, float(curvature),
                             grad, hess)
    value = math.exp(log_a + log_b) / n_pairs if log_a + log_b < 709.0 else math.inf
    return ExponentialSums(lo_pos, sum_pos, sum_neg, max_neg, value)


def exponential_global(scores, role, counts, comm, grad, hess, *, mask, bins, scale, normalize,
                       curvature):
    """The exponential row's global kernel (``global_derivatives`` of
    :mod:`pauc._loss._table`): the exact global window of the negatives ``mask``
    (:func:`global_window`), then the derivatives on it
    (:func:`exponential_derivatives`); returns ``{"window": ..., "sums": ...}``."""
    window = global_window(scores, counts, comm, bins, mask=mask)
    sums = exponential_derivatives(scores, role, counts, window, comm, grad, hess,
                                   scale=scale, normalize=normalize, curvature=curvature)
    return {"window": window, "sums": sums}
