# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The per-row passes of the global window, in C (one pass each, no temporaries).

Every boosting round the window objective of :mod:`pauc.distributed._xgboost_window`
walks a worker's rows a few times: the order keys of its negatives for the
distributed selection (:mod:`pauc.distributed._rank_selection`), then the two passes of
the factorised window exponential loss (:mod:`pauc.distributed._global_window`).
Written with numpy blocks, those passes cost four times XGBoost's own round on
the same rows (temporaries for every mask, ``astype`` and ``where``); here each
is one loop over typed memoryviews without the GIL, reading float32 or float64
scores in place and allocating nothing per row.  ``is_pos`` is each row's role:
1 a positive, 0 a negative, any other value a row the loss skips (a held-out
row of a cross-fitted fit).

The keys are those of :func:`pauc.distributed._rank_selection.order_keys`: the
IEEE-754 bits of the float64 value (``-0.0`` made ``+0.0``), with the sign bit
set for a non-negative value and every bit inverted for a negative one, so
that the unsigned order of the keys is the order of the values.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.
"""

import numpy as np

from cython cimport floating
from libc.math cimport exp, INFINITY
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

# the window's tie rule, written once (pauc/_loss/_window.pxd)
from pauc._loss._window cimport window_weight as _omega

ctypedef fused output:
    float
    double

cdef uint64_t SIGN = (<uint64_t>1) << 63


cdef inline uint64_t _key(double value) noexcept nogil:
    cdef uint64_t bits
    value = value + 0.0                  # -0.0 -> +0.0: equal values, equal keys
    memcpy(&bits, &value, 8)
    if bits & SIGN:
        return ~bits
    return bits | SIGN


cdef inline bint _selected(const unsigned char[::1] mask, Py_ssize_t k) noexcept nogil:
    return mask.shape[0] == 0 or mask[k] != 0


def key_extremes(const floating[::1] values, const unsigned char[::1] mask):
    """``(max key, ~min key)`` of ``values[mask]`` (an empty ``mask``: every
    value); ``(0, 0)`` when none is selected -- the identity of an unsigned max."""
    cdef Py_ssize_t k, n = values.shape[0]
    cdef uint64_t key, hi = 0, lo = <uint64_t>-1
    cdef bint any_value = False
    with nogil:
        for k in range(n):
            if _selected(mask, k):
                key = _key(values[k])
                any_value = True
                if key > hi:
                    hi = key
                if key < lo:
                    lo = key
    if not any_value:
        return np.zeros(2, dtype=np.uint64)
    return np.array([hi, ~lo], dtype=np.uint64)


def key_counts(const floating[::1] values, const unsigned char[::1] mask,
               const uint64_t[::1] lo, const uint64_t[::1] hi, const int64_t[::1] shift,
               int64_t[:, ::1] counts):
    """Add to ``counts[t, (key - lo[t]) >> shift[t]]`` every key of ``values[mask]``
    in ``[lo[t], hi[t]]``, for each target ``t``: one pass for all targets."""
    cdef Py_ssize_t k, t, n = values.shape[0], n_targets = lo.shape[0]
    cdef uint64_t key
    with nogil:
        for k in range(n):
            if _selected(mask, k):
                key = _key(values[k])
                for t in range(n_targets):
                    if lo[t] <= key <= hi[t]:
                        counts[t, (key - lo[t]) >> shift[t]] += 1


def keys_in_range(const floating[::1] values, const unsigned char[::1] mask,
                  uint64_t lo, uint64_t hi):
    """The keys of ``values[mask]`` in ``[lo, hi]`` (two passes: count, then fill)."""
    cdef Py_ssize_t k, j = 0, n = values.shape[0], size = 0
    cdef uint64_t key
    with nogil:
        for k in range(n):
            if _selected(mask, k):
                key = _key(values[k])
                if lo <= key <= hi:
                    size += 1
    out = np.empty(size, dtype=np.uint64)
    cdef uint64_t[::1] keys = out
    with nogil:
        for k in range(n):
            if _selected(mask, k):
                key = _key(values[k])
                if lo <= key <= hi:
                    keys[j] = key
                    j += 1
    return out


def lowest_positive(const floating[::1] scores, const unsigned char[::1] is_pos):
    """The lowest score of a positive (``inf`` when there is none)."""
    cdef Py_ssize_t k, n = scores.shape[0]
    cdef double low = INFINITY
    with nogil:
        for k in range(n):
            if is_pos[k] == 1 and scores[k] < low:
                low = scores[k]
    return low


def exponential_sums(const floating[::1] scores, const unsigned char[::1] is_pos,
                     double lo_pos, double v_top, double v_bot, double w_top, double w_bot):
    """``(sum_i exp(lo_pos - s_i), sum_j omega_j exp(s_j - v_top), max_j of its
    terms)`` over the local positives ``i`` and negatives ``j``."""
    cdef Py_ssize_t k, n = scores.shape[0]
    cdef double s, omega, term, sum_pos = 0.0, sum_neg = 0.0, max_neg = 0.0
    with nogil:
        for k in range(n):
            s = scores[k]
            if is_pos[k] == 1:
                sum_pos += exp(lo_pos - s)
            elif is_pos[k] == 0:
                omega = _omega(s, v_top, v_bot, w_top, w_bot)
                if omega > 0.0:
                    term = omega * exp(s - v_top)
                    sum_neg += term
                    if term > max_neg:
                        max_neg = term
    return sum_pos, sum_neg, max_neg


def exponential_add(const floating[::1] scores, const unsigned char[::1] is_pos,
                    double lo_pos, double v_top, double v_bot, double w_top, double w_bot,
                    double c_pos, double c_neg, double curvature,
                    output[::1] grad, output[::1] hess):
    """Add each row's gradient and Hessian diagonal: ``-c_pos exp(lo_pos - s_i)`` on
    a positive, ``c_neg omega_j exp(s_j - v_top)`` on a negative, the Hessian
    ``curvature`` times their absolute value."""
    cdef Py_ssize_t k, n = scores.shape[0]
    cdef double s, omega, f
    with nogil:
        for k in range(n):
            s = scores[k]
            if is_pos[k] == 1:
                f = c_pos * exp(lo_pos - s)
                grad[k] += -f
                hess[k] += curvature * f
            elif is_pos[k] == 0:
                omega = _omega(s, v_top, v_bot, w_top, w_bot)
                if omega > 0.0:
                    f = c_neg * (omega * exp(s - v_top))
                    grad[k] += f
                    hess[k] += curvature * f
