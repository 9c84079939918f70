# cython: language_level=3
"""Sort-based counting primitives of bipartite ranking (no pairs, O(n log n)).

Everything in :mod:`pauc` that looks at a ranking reduces to one walk: the
positive and the negative scores, each sorted ascending, are merged from the
top down, one *group of tied scores* at a time.  A group holding ``dp``
positive and ``dn`` negative weight moves the empirical ROC curve from
``(FP, TP)`` to ``(FP + dn, TP + dp)`` along a straight line, so ties are
counted one half (the AUC of eq. (1) of Narasimhan & Agarwal with ties;
Clémençon's lecture notes, Section 2).

The functions here take scores that are **already sorted ascending** per
class (``numpy.sort`` is the only O(n log n) step, done by the caller) and
run one O(m + n) merge in C without the GIL:

* :func:`roc_knots` -- the ROC curve's knots (cumulative weights and the
  threshold of each distinct score), the input of ``metrics.roc_curve``;
* :func:`partial_area` -- the exact area between the piecewise-linear
  empirical ROC curve and the line TPR = ``tpr_floor`` over an FPR window,
  without storing the knots (full AUC, partial AUC, two-way partial AUC);
* :func:`count_above` -- for each query score, how many reference scores are
  strictly greater and how many are equal (the count representation of
  Appendix B.1 of Narasimhan & Agarwal);
* :func:`split_by_label` -- the two classes' scores in one pass.

Their loops are ``cdef`` functions declared in ``pauc/_ranking.pxd``, for
other Cython modules to ``cimport`` (the oracles of :mod:`pauc.svm` take the
negatives' scores with ``copy_class``).

References
----------
Narasimhan & Agarwal (2017), eq. (1) and Appendix B.1; Clémençon, lecture notes
on statistical ranking, Section 2. Full entries in ``docs/references.rst``.
"""

import numpy as np

# no slots: the walk reads each entry's own weight (next_tie_group)
cdef const long long[::1] _NO_SLOTS = np.empty(0, dtype=np.int64)


cdef double clipped_area(double x0, double y0, double x1, double y1,
                         double lo, double hi, double floor) noexcept nogil:
    """Area of max(y(x) - floor, 0) over [x0, x1] ∩ [lo, hi] for the segment
    (x0, y0) -> (x1, y1), y non-decreasing.  Vertical segments have no area."""
    cdef double a, b, ya, yb, slope, xc
    if x1 <= x0:
        return 0.0
    a = x0 if x0 > lo else lo
    b = x1 if x1 < hi else hi
    if b <= a:
        return 0.0
    slope = (y1 - y0) / (x1 - x0)
    ya = y0 + slope * (a - x0)
    yb = y0 + slope * (b - x0)
    if yb <= floor:
        return 0.0
    if ya >= floor:
        return (b - a) * (0.5 * (ya + yb) - floor)
    # The segment crosses the floor inside [a, b]: only the triangle above it counts.
    xc = a + (floor - ya) / slope
    return 0.5 * (b - xc) * (yb - floor)


cdef Py_ssize_t roc_walk(const floating[::1] pos, const floating[::1] neg,
                         const double[::1] w_pos, const double[::1] w_neg,
                         double[::1] out_fp, double[::1] out_tp, double[::1] out_thr,
                         bint store, double tp_total, double fp_total,
                         double lo, double hi, double floor, double* area) noexcept nogil:
    """Merge the two ascending arrays from the top, one tie group at a time.

    With ``store`` the knots are written to ``out_*`` and their number is
    returned; otherwise the clipped ROC area over FPR in [lo, hi] above TPR =
    ``floor`` is accumulated into ``area[0]`` (coordinates normalised by the
    totals).
    """
    cdef Py_ssize_t i = pos.shape[0] - 1
    cdef Py_ssize_t j = neg.shape[0] - 1
    cdef Py_ssize_t k = 0
    cdef double tp = 0.0, fp = 0.0, tp_new, fp_new
    cdef floating t
    cdef double acc = 0.0
    while i >= 0 or j >= 0:
        tp_new = tp
        fp_new = fp
        t = next_tie_group(pos, neg, w_pos, _NO_SLOTS, w_neg, _NO_SLOTS, &i, &j, -1,
                           &tp_new, &fp_new)
        if store:
            out_fp[k] = fp_new
            out_tp[k] = tp_new
            out_thr[k] = t
        else:
            acc += clipped_area(fp / fp_total, tp / tp_total,
                                 fp_new / fp_total, tp_new / tp_total, lo, hi, floor)
        k += 1
        tp = tp_new
        fp = fp_new
        if not store and fp >= hi * fp_total:
            break   # the rest of the curve lies right of the window
    area[0] = acc
    return k


def _as_weights(w, Py_ssize_t size):
    if w is None:
        return np.empty(0, dtype=np.float64), False
    w = np.ascontiguousarray(w, dtype=np.float64)
    if w.shape[0] != size:
        raise ValueError("weights and scores differ in length")
    return w, True


def roc_knots(const floating[::1] pos, const floating[::1] neg, w_pos=None, w_neg=None):
    """Knots of the empirical ROC curve, one per distinct score, top down.

    Parameters
    ----------
    pos, neg : 1-d arrays sorted ascending (same float dtype)
        Scores of the positives and of the negatives.
    w_pos, w_neg : 1-d float64 arrays or None
        Sample weights aligned with ``pos`` / ``neg`` (both or neither).

    Returns
    -------
    fps, tps : float64 arrays of length K
        Cumulative negative / positive weight scored ``>= thresholds[k]``.
    thresholds : float64 array of length K, decreasing
        The distinct scores.
    """
    cdef Py_ssize_t size = pos.shape[0] + neg.shape[0]
    wp, _ = _as_weights(w_pos, pos.shape[0])
    wn, _ = _as_weights(w_neg, neg.shape[0])
    if (w_pos is None) != (w_neg is None):
        raise ValueError("give weights for both classes or for neither")
    fps = np.empty(size, dtype=np.float64)
    tps = np.empty(size, dtype=np.float64)
    thr = np.empty(size, dtype=np.float64)
    cdef double[::1] fps_v = fps, tps_v = tps, thr_v = thr, wp_v = wp, wn_v = wn
    cdef double unused
    cdef Py_ssize_t k
    with nogil:
        k = roc_walk(pos, neg, wp_v, wn_v, fps_v, tps_v, thr_v,
                  True, 1.0, 1.0, 0.0, 0.0, 0.0, &unused)
    return fps[:k], tps[:k], thr[:k]


def partial_area(const floating[::1] pos, const floating[::1] neg,
                 double fpr_lo=0.0, double fpr_hi=1.0, double tpr_floor=0.0,
                 w_pos=None, w_neg=None, tp_total=None, fp_total=None):
    """Exact raw area under the empirical ROC curve over an FPR window.

    Returns ``∫_{fpr_lo}^{fpr_hi} max(TPR(u) - tpr_floor, 0) du`` where TPR(u)
    is the piecewise-linear empirical ROC curve (tie groups are diagonal
    segments, i.e. ties count one half).  ``(0, 1, 0)`` is the AUC; ``(α, β, 0)``
    the unnormalised partial AUC of Narasimhan & Agarwal, eq. (2); ``(0, f0, t0)`` the
    two-way partial AUC.  Scores must be sorted ascending per class; both
    classes must have positive total weight.

    ``tp_total`` / ``fp_total`` (default: the weight of ``pos`` / ``neg``)
    let the caller pass only the top of each class: positives and negatives
    scored below the negative at FPR ``fpr_hi`` never reach the window, so
    they may be left out as long as the totals still count them.
    """
    cdef bint has_w
    wp, has_w = _as_weights(w_pos, pos.shape[0])
    wn, _ = _as_weights(w_neg, neg.shape[0])
    if (w_pos is None) != (w_neg is None):
        raise ValueError("give weights for both classes or for neither")
    if tp_total is None:
        tp_total = float(wp.sum()) if has_w else float(pos.shape[0])
    if fp_total is None:
        fp_total = float(wn.sum()) if has_w else float(neg.shape[0])
    cdef double tp_tot = tp_total, fp_tot = fp_total
    if tp_tot <= 0 or fp_tot <= 0:
        raise ValueError("both classes need a positive total weight")
    cdef double[::1] wp_v = wp, wn_v = wn
    cdef double[::1] no_knots = np.empty(0, dtype=np.float64)
    cdef double area = 0.0
    with nogil:
        roc_walk(pos, neg, wp_v, wn_v, no_knots, no_knots, no_knots,
              False, tp_tot, fp_tot, fpr_lo, fpr_hi, tpr_floor, &area)
    return area


cdef void count_above_into(const floating[::1] ref, const floating[::1] query,
                           long long[::1] greater, long long[::1] equal) noexcept nogil:
    """``greater[q]`` / ``equal[q]``: the ``ref`` scores above / equal to ``query[q]``
    (both ascending; one merge)."""
    cdef Py_ssize_t q, lo = 0, hi = 0, nr = ref.shape[0]
    for q in range(query.shape[0]):
        # lo: first ref >= query[q]; hi: first ref > query[q]
        while lo < nr and ref[lo] < query[q]:
            lo += 1
        if hi < lo:
            hi = lo
        while hi < nr and ref[hi] <= query[q]:
            hi += 1
        greater[q] = nr - hi
        equal[q] = hi - lo


def count_above(const floating[::1] ref, const floating[::1] query):
    """For each query score, the number of ``ref`` scores above it and equal to it.

    Both arrays sorted ascending.  One O(len(ref) + len(query)) merge: with
    ``ref`` the positives and ``query`` the negatives, ``greater[j] +
    equal[j] / 2`` is the number of positives ranked above negative ``j``
    (ties one half), the per-negative term of the AUC (the count
    representation of Narasimhan & Agarwal, Appendix B.1).

    Returns
    -------
    greater, equal : int64 arrays aligned with ``query``
    """
    greater = np.empty(query.shape[0], dtype=np.int64)
    equal = np.empty(query.shape[0], dtype=np.int64)
    cdef long long[::1] g = greater, e = equal
    with nogil:
        count_above_into(ref, query, g, e)
    return greater, equal


cdef Py_ssize_t copy_class(const floating[::1] score, const unsigned char[::1] flag,
                           unsigned char wanted, floating[::1] out) noexcept nogil:
    """Copy the scores whose flag is ``wanted`` (0 or 1) into ``out``, order kept;
    returns how many."""
    cdef Py_ssize_t i, k = 0
    for i in range(score.shape[0]):
        if (flag[i] != 0) == (wanted != 0):
            out[k] = score[i]
            k += 1
    return k


cdef void split_into(const floating[::1] score, const unsigned char[::1] flag,
                     floating[::1] pos, floating[::1] neg) noexcept nogil:
    """Copy the scores into ``pos`` (flag set) and ``neg`` in one pass, order kept."""
    cdef Py_ssize_t i, a = 0, b = 0
    for i in range(score.shape[0]):
        if flag[i]:
            pos[a] = score[i]
            a += 1
        else:
            neg[b] = score[i]
            b += 1


def split_by_label(const floating[::1] score, is_pos):
    """Copy the scores into (positives, negatives) in one pass, order kept.

    The same as ``score[is_pos], score[~is_pos]`` at half the memory traffic:
    at 10^7 scores the two boolean masks cost as much as half a sort.
    """
    cdef const unsigned char[::1] flag = np.ascontiguousarray(is_pos, dtype=np.bool_).view(np.uint8)
    cdef Py_ssize_t n = score.shape[0], m = np.count_nonzero(flag)
    if flag.shape[0] != n:
        raise ValueError("score and is_pos differ in length")
    dtype = np.float32 if floating is float else np.float64
    pos = np.empty(m, dtype=dtype)
    neg = np.empty(n - m, dtype=dtype)
    cdef floating[::1] p = pos, q = neg
    with nogil:
        split_into(score, flag, p, q)
    return pos, neg


def placement_deviations(const floating[::1] pos, const floating[::1] neg, double center):
    """Squared deviations of the placement values from ``center``, in one merge per class.

    With both classes sorted ascending, the placement of positive ``i`` is
    ``V10_i = (#{neg < pos_i} + #{neg = pos_i} / 2) / n`` and that of negative
    ``j`` is ``V01_j = (#{pos > neg_j} + #{pos = neg_j} / 2) / m`` (DeLong et al.
    1988; Sun & Xu 2014 obtain them as differences of midranks).  Returns
    ``(Σ_i (V10_i − center)², Σ_j (V01_j − center)²)`` without storing the
    placements: with ``center`` the AUC (the mean of both), the sums of squares
    of DeLong's variance.
    """
    cdef Py_ssize_t m = pos.shape[0], n = neg.shape[0], i, lo = 0, hi = 0
    cdef double v, s10 = 0.0, s01 = 0.0
    with nogil:
        for i in range(m):
            # lo: first negative >= pos[i]; hi: first negative > pos[i]
            while lo < n and neg[lo] < pos[i]:
                lo += 1
            if hi < lo:
                hi = lo
            while hi < n and neg[hi] <= pos[i]:
                hi += 1
            v = (lo + 0.5 * (hi - lo)) / n - center
            s10 += v * v
        lo = 0
        hi = 0
        for i in range(n):
            while lo < m and pos[lo] < neg[i]:
                lo += 1
            if hi < lo:
                hi = lo
            while hi < m and pos[hi] <= neg[i]:
                hi += 1
            v = ((m - hi) + 0.5 * (hi - lo)) / m - center
            s01 += v * v
    return s10, s01
