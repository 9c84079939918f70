# cython: language_level=3
"""Hot loops of the boosting weak rankers (Long & Servedio, §3).

Two sweeps, each one pass over scores that are **already sorted ascending**
(the sort is done once, by the caller):

* :func:`column_aucs` -- the weighted AUC of every feature used as a score
  ``h(x) = x_j`` (ties counted ½:
  ``AUC_w = Σ_{i∈P} Σ_{k∈N} w_i w_k [1(h_i > h_k) + ½·1(h_i = h_k)] / (W+ W−)``),
  one sweep per column of a presorted column store.  The ranking stump takes
  the best feature and orientation, using ``AUC(−h) = 1 − AUC(h)``.
* :func:`column_splits` -- for every feature, the split ``s·x_j ≥ θ`` (both
  orientations s = ±1) maximising TPR − FPR: the one-split ranking stump of
  highest weighted AUC, since a two-valued ranker has AUC ``½ + (TPR − FPR)/2``
  (Lemma 5 with ε+ = 1 − TPR, ε− = FPR);
* :func:`youden_threshold` -- the threshold θ maximising TPR − FPR with the
  paper's ``h(x) ≥ θ`` convention (Lemma 4, step 1: "minimize the sum of the
  error rates on the positive and negative examples").

The column store is CSC-like: column ``j`` holds ``values[indptr[j]:indptr[j+1]]``
sorted ascending with the row of each value in ``rows``.  Entries that are not
stored are zeros (sparse input); their class weights are the class totals
minus the stored weights, so one code path serves dense and sparse data and a
node's subset (MartiRank) is a filtered store with the node's class totals.
"""

import numpy as np

from libc.math cimport INFINITY


# One column's tie groups in ascending order, with the implicit zeros of
# sparse storage (rows not stored) merged into the group of the stored zeros,
# or emitted as a group of their own at 0.0 between the negative and the
# positive stored values.  Both sweeps below walk a column this way.
cdef struct _Groups:
    const double* values
    const Py_ssize_t* rows
    const double* w
    const unsigned char* is_pos
    Py_ssize_t k, end
    double zpos, zneg             # class weights of the implicit zeros
    bint zero_pending             # the implicit-zero group is still to come


cdef void _groups_init(_Groups* it, const double[::1] values, const Py_ssize_t[::1] rows,
                       Py_ssize_t start, Py_ssize_t end, const double[::1] w,
                       const unsigned char[::1] is_pos, double tot_pos, double tot_neg,
                       bint zero_exists) noexcept nogil:
    cdef double stored_pos = 0.0, stored_neg = 0.0
    cdef Py_ssize_t k, r
    for k in range(start, end):
        r = rows[k]
        if is_pos[r]:
            stored_pos += w[r]
        else:
            stored_neg += w[r]
    it.values = &values[0] if values.shape[0] else NULL
    it.rows = &rows[0] if rows.shape[0] else NULL
    it.w = &w[0]
    it.is_pos = &is_pos[0]
    it.k = start
    it.end = end
    # What the class totals leave over (clipped: rounding can go below zero).
    it.zpos = max(tot_pos - stored_pos, 0.0)
    it.zneg = max(tot_neg - stored_neg, 0.0)
    it.zero_pending = zero_exists


cdef bint _next_group(_Groups* it, double* v, double* gpos, double* gneg) noexcept nogil:
    """The next tie group (value and class weights); False when the column is done."""
    cdef double value
    cdef Py_ssize_t r
    if it.k < it.end:
        value = it.values[it.k]
        gpos[0] = 0.0
        gneg[0] = 0.0
        if it.zero_pending and value >= 0.0:
            it.zero_pending = False
            if value == 0.0:
                gpos[0] = it.zpos          # stored and implicit zeros are one group
                gneg[0] = it.zneg
            else:
                v[0] = 0.0
                gpos[0] = it.zpos
                gneg[0] = it.zneg
                return True
        while it.k < it.end and it.values[it.k] == value:
            r = it.rows[it.k]
            if it.is_pos[r]:
                gpos[0] += it.w[r]
            else:
                gneg[0] += it.w[r]
            it.k += 1
        v[0] = value
        return True
    if it.zero_pending:
        it.zero_pending = False
        v[0] = 0.0
        gpos[0] = it.zpos
        gneg[0] = it.zneg
        return True
    return False


cdef inline void _add_group(double gpos, double gneg, double *neg_below,
                            double *num) noexcept nogil:
    # A group of tied scores: its positives beat every negative below it and
    # tie (½) with the negatives inside the group.
    num[0] += gpos * (neg_below[0] + 0.5 * gneg)
    neg_below[0] += gneg


cdef double _column_auc_num(const double[::1] values, const Py_ssize_t[::1] rows,
                            Py_ssize_t start, Py_ssize_t end,
                            const double[::1] w, const unsigned char[::1] is_pos,
                            double tot_pos, double tot_neg) noexcept nogil:
    """Numerator Σ w_i w_k [1(h_i > h_k) + ½·1(h_i = h_k)] of one column."""
    cdef _Groups it
    # An empty implicit-zero group adds nothing, so it is always walked.
    _groups_init(&it, values, rows, start, end, w, is_pos, tot_pos, tot_neg, True)
    cdef double neg_below = 0.0, num = 0.0, gpos, gneg, v
    while _next_group(&it, &v, &gpos, &gneg):
        _add_group(gpos, gneg, &neg_below, &num)
    return num


def column_aucs(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] rows,
                const double[::1] values, const double[::1] w,
                const unsigned char[::1] is_pos, double tot_pos, double tot_neg):
    """Weighted AUC of every column of a presorted column store as a score.

    Parameters
    ----------
    indptr, rows, values : the column store (values ascending within a column).
    w : float64 array (n_samples,), sample weights indexed by row.
    is_pos : uint8 array (n_samples,), 1 for positives.
    tot_pos, tot_neg : total weight of each class among the rows considered
        (stored or implicit); must be > 0.

    Returns
    -------
    auc : float64 array (n_columns,), ``AUC(x_j)`` with ties counted ½.
    """
    if tot_pos <= 0.0 or tot_neg <= 0.0:
        raise ValueError("both classes need a positive total weight")
    cdef Py_ssize_t q = indptr.shape[0] - 1, j
    out = np.empty(q, dtype=np.float64)
    cdef double[::1] out_v = out
    cdef double denom = tot_pos * tot_neg
    with nogil:
        for j in range(q):
            out_v[j] = _column_auc_num(values, rows, indptr[j], indptr[j + 1], w, is_pos,
                                       tot_pos, tot_neg) / denom
    return out


cdef struct _SplitSweep:
    # Running state of one column's ascending sweep over groups of tied values.
    double below_pos, below_neg      # class weights strictly below the current group
    double prev_v                    # value of the previous (non-empty) group
    bint have_prev
    double best_up, theta_up         # best J of an upper set {x ≥ θ}
    double best_low, theta_low       # best J of a lower set {x ≤ θ}


cdef inline void _split_group(_SplitSweep *s, double v, double gpos, double gneg,
                              double tot_pos, double tot_neg) noexcept nogil:
    # The boundary between the previous group and this one (value v) splits the
    # column into {x ≤ prev_v} and {x ≥ v}: J(upper) = F−(below) − F+(below),
    # J(lower) = −J(upper).  Thresholds sit midway, as in youden_threshold.
    cdef double j_up, mid
    if s.have_prev:
        j_up = s.below_neg / tot_neg - s.below_pos / tot_pos
        mid = 0.5 * s.prev_v + 0.5 * v
        # Ties in J: the smallest accepted set (highest θ for {x ≥ θ}, lowest
        # θ for {x ≤ θ}), the rule youden_threshold follows.
        if j_up > 0.0 and j_up >= s.best_up:
            s.best_up = j_up
            s.theta_up = mid if mid > s.prev_v else v     # adjacent doubles
        if -j_up > s.best_low:
            s.best_low = -j_up
            s.theta_low = mid if mid < v else s.prev_v
    s.below_pos += gpos
    s.below_neg += gneg
    s.prev_v = v
    s.have_prev = True


cdef void _column_split(const double[::1] values, const Py_ssize_t[::1] rows,
                        Py_ssize_t start, Py_ssize_t end, Py_ssize_t n_rows,
                        const double[::1] w, const unsigned char[::1] is_pos,
                        double tot_pos, double tot_neg, double *gain, double *sign,
                        double *theta) noexcept nogil:
    cdef _SplitSweep s
    s.below_pos = 0.0
    s.below_neg = 0.0
    s.prev_v = 0.0
    s.have_prev = False
    s.best_up = 0.0
    s.theta_up = -INFINITY
    s.best_low = 0.0
    s.theta_low = INFINITY
    cdef _Groups it
    # The implicit zeros form a group only if some row is not stored: an empty
    # group would still count as a distinct value for the thresholds.
    _groups_init(&it, values, rows, start, end, w, is_pos, tot_pos, tot_neg,
                 n_rows > end - start)
    cdef double gpos, gneg, v
    while _next_group(&it, &v, &gpos, &gneg):
        _split_group(&s, v, gpos, gneg, tot_pos, tot_neg)
    # Orientation +1 (rule x ≥ θ) first on ties; −1 is the rule −x ≥ −θ_low.
    if s.best_up >= s.best_low:
        gain[0] = s.best_up
        sign[0] = 1.0
        theta[0] = s.theta_up
    else:
        gain[0] = s.best_low
        sign[0] = -1.0
        theta[0] = -s.theta_low


def column_splits(const Py_ssize_t[::1] indptr, const Py_ssize_t[::1] rows,
                  const double[::1] values, const double[::1] w,
                  const unsigned char[::1] is_pos, double tot_pos, double tot_neg,
                  Py_ssize_t n_rows):
    """Best split ``s·x_j ≥ θ`` of every column of a presorted store, by TPR − FPR.

    Parameters
    ----------
    indptr, rows, values : the column store (values ascending within a column).
    w : float64 array (n_samples,), sample weights indexed by row.
    is_pos : uint8 array (n_samples,), 1 for positives.
    tot_pos, tot_neg : total weight of each class among the rows considered
        (stored or implicit); must be > 0.
    n_rows : number of rows considered; a column storing fewer has implicit zeros.

    Returns
    -------
    gain : float64 array (n_columns,), ``max_{s,θ} TPR − FPR ≥ 0`` of the rule
        ``s·x_j ≥ θ``; the split's weighted AUC is ``½ + gain/2``.
    sign : float64 array, the orientation s (+1 on ties).
    theta : float64 array, θ midway between two distinct values of ``s·x_j``
        (``-inf`` when no split has a positive gain).
    """
    if tot_pos <= 0.0 or tot_neg <= 0.0:
        raise ValueError("both classes need a positive total weight")
    cdef Py_ssize_t q = indptr.shape[0] - 1, j
    gain = np.empty(q, dtype=np.float64)
    sign = np.empty(q, dtype=np.float64)
    theta = np.empty(q, dtype=np.float64)
    cdef double[::1] g_v = gain, s_v = sign, t_v = theta
    with nogil:
        for j in range(q):
            _column_split(values, rows, indptr[j], indptr[j + 1], n_rows, w, is_pos,
                          tot_pos, tot_neg, &g_v[j], &s_v[j], &t_v[j])
    return gain, sign, theta


def youden_threshold(const double[::1] score, const unsigned char[::1] is_pos,
                     const double[::1] w):
    """Threshold maximising TPR − FPR for the rule ``h(x) ≥ θ`` (Lemma 4, step 1).

    Parameters
    ----------
    score : float64 array, sorted ascending.
    is_pos, w : uint8 labels and float64 weights in the same order.

    Returns
    -------
    theta : float, midway between two distinct scores, or ``-inf`` when the
        best rule is "everything positive" (then J = 0).
    tpr, fpr : the class rates ``D+[h ≥ θ]`` and ``D−[h ≥ θ]`` at θ.

    Notes
    -----
    Candidate thresholds lie only between distinct scores, so tied points fall
    on the same side (Lemma 4's degenerate cases).  Among equal J the highest θ
    (the smallest accepted set, met first from the top) is kept.
    """
    cdef Py_ssize_t n = score.shape[0], k, top
    cdef double tot_pos = 0.0, tot_neg = 0.0
    for k in range(n):
        if is_pos[k]:
            tot_pos += w[k]
        else:
            tot_neg += w[k]
    if tot_pos <= 0.0 or tot_neg <= 0.0:
        raise ValueError("both classes need a positive total weight")
    cdef double tp = 0.0, fp = 0.0, best_j = 0.0, best_tp = tot_pos, best_fp = tot_neg
    cdef double theta = -INFINITY, v, j_stat
    with nogil:
        k = n - 1
        while k >= 0:
            v = score[k]
            while k >= 0 and score[k] == v:
                if is_pos[k]:
                    tp += w[k]
                else:
                    fp += w[k]
                k -= 1
            if k < 0:
                break           # the rule "everything positive" is the J = 0 default
            j_stat = tp / tot_pos - fp / tot_neg
            if j_stat > best_j:
                best_j = j_stat
                best_tp = tp
                best_fp = fp
                # The midpoint keeps unseen scores between the two groups on
                # a definite side; the training points are unaffected.
                theta = 0.5 * v + 0.5 * score[k]
                if theta == score[k]:       # adjacent doubles: keep h ≥ θ exact
                    theta = v
    return theta, best_tp / tot_pos, best_fp / tot_neg
