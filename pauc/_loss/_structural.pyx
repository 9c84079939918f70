# cython: language_level=3
"""Most-violated-constraint searches of the structural SVMs (Algorithms 2 and 3).

One cutting-plane iteration (Algorithm 1, line 10) needs

    argmax_{Z, pi}  H_w(Z, pi) = Delta(pi*, pi) - w^T (phi(pi*) - phi(pi)),

and everything here works on the scores ``s = X w`` alone, in the count
representation of Appendix B.1: an ordering is summarised by ``r_i``, the
number of negatives ranked above positive ``i``, and by ``c_j``, the number
of positives ranked below negative ``j``.  The cut returned to the solver is
``coef`` (``+r_i / N`` on positives, ``-c_j / N`` on negatives) and the loss
``Delta``, so that ``w^T (phi(pi*) - phi(pi_bar)) = s @ coef`` and the cut
vector is ``X.T @ coef``.

The shared shape of every search
--------------------------------
Write ``z_1 >= z_2 >= ... >= z_K`` for the negatives' scores sorted
descending (the top ``j_beta`` negatives for the tight surrogates,
Propositions 1 and 2; all ``n`` negatives for the AUC and the naive
surrogate).  By Theorem 8 (the swap argument) the maximiser ranks the
negatives by score, so each positive's row is a *prefix* ``{1..r}`` of that
list, every tuple of prefixes is a valid ordering, and the objective splits
over the positives (OP3).  With one normaliser ``N = m (j_beta - j_alpha)``
for the loss and the feature map, positive ``i`` with score ``p`` contributes

    N * H^i(r) = g(r) + Z_r - r p,    Z_r = z_1 + ... + z_r,
    g(r) = clip(r - j_alpha, 0, j_beta - j_alpha)   (positions of the window
                                                    that the row covers)

``F(r) = g(r) + Z_r`` has increments ``z_r`` (r <= j_alpha), ``1 + z_r``
(j_alpha < r <= j_beta) and ``z_r`` (r > j_beta): it is concave on each of
these three stretches (the z's decrease) and jumps up by one at
``j_alpha + 1``, down by one after ``j_beta``.  ``max_r F(r) - r p`` is a
query on the upper concave hull of the points ``(r, F(r))``; because each
stretch is itself concave, the hull query is the best of the three stretch
queries, and on a concave stretch the best ``r`` is where the increment
stops exceeding ``p``, i.e. a count of sorted scores (read off by a merge
walk, the positives being sorted too):

* family 1, ``r in {0..j_alpha}``: ``r1 = #{j <= j_alpha : z_j > p}``
  (Algorithm 3, line 4: ``line4_row``);
* family 2, ``r in {j_alpha..j_beta}``:
  ``r2 = j_alpha + #{j_alpha < j <= j_beta : z_j + 1 > p}``, evaluated in
  floating point as ``z_j > p - 1`` (Algorithm 3, line 5: ``line5_row``;
  with ``j_alpha = 0`` this is Algorithm 2, line 3, and with ``j_beta = n``
  Joachims' AUC search, eq. (7));
* family 3, only for the naive surrogate of Section 3.2, eq. (11), whose
  feature map spans *all* negatives: ``r in {j_beta..n}``,
  ``r3 = j_beta + #{j > j_beta : z_j > p}`` (``naive_tail_row``).  These are
  the zero-margin terms on negatives beyond ``j_beta`` that make it looser than the tight
  surrogate (the paper defers this oracle to its conference version; the
  derivation above is ours and ``tests/svm/test_oracles.py`` checks it
  against enumeration of every ordering).

Algorithm 3, line 6: keep the family with the larger ``H^i``; lines 3-7
for every positive are ``positive_rows``.

Coefficients of the negatives: the negative at rank ``j`` is below
``c_j = #{i : r_i >= j}`` positives -- a histogram of the rows, summed from
the top (Appendix B.1's counts, ``negative_counts``).  No ``m x n`` (or
``m x j_beta``) matrix is ever formed.

Sorting with the row numbers attached, at the cost of a plain sort
------------------------------------------------------------------
The rows' counts must be written back in row order, which needs each
score's row number after sorting.  ``numpy.argsort`` is several times slower
than ``numpy.sort``, and looking every score up in the sorted list costs a
cache-missing binary search per row.  Instead each candidate score is packed
into one unsigned 64-bit key -- the class in the top bit (negatives first),
then the leading bits of the score's order-preserving bit pattern, then the
row number in the low ``b = bit_length(n - 1)`` bits -- and the keys are
sorted with ``numpy.sort`` (its SIMD integer sort).  The row
number comes back from the low bits and the exact score from ``scores[row]``.
Scores that agree on their leading ``63 - b`` bits but differ further down
(a relative gap below ``2**(b + 1 - 52)``) may come out in row order instead of
score order; one insertion-sort pass repairs those short runs (a budget
guards against pathological inputs, which fall back to a stable argsort).

Cost: one pass to build the keys, one integer sort of ``m + j_beta`` keys
(``m + n`` for the AUC and the naive surrogate), one pass to unpack them,
one merge walk, and one write per row -- O((m + j_beta) log(m + j_beta) + n)
for the tight surrogates (the top ``j_beta`` negatives come from an O(n)
``numpy.partition``), O((m + n) log(m + n)) otherwise.

Contracts
---------
The ``cdef`` functions named above are declared in ``pauc/_loss/_structural.pxd``
for other Cython modules to ``cimport``.  The Python-level kernels take
validated input and check nothing (the estimators validate the labels once
per fit): :func:`tight_cut` and :func:`naive_cut` (the searches of the
loss table, :mod:`pauc._loss`), :func:`weighted_auc_cut`, and
for row-chunked data :func:`chunk_rows` (lines 3-7 of one chunk's positives
against the whole set's top list) and :func:`sorted_candidates`.  Every
numeric step of a search is in this module; the chunked designs of
:mod:`pauc.distributed` call these same functions per chunk.

References
----------
Narasimhan & Agarwal (2017): Algorithms 2 and 3, Theorem 8, Appendix B.1;
Section 3.2 for the naive surrogate. Joachims (2005) for the AUC search. Full
entries in ``docs/references.rst``.
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdint cimport uint64_t
from libc.string cimport memcpy

from pauc._ranking cimport copy_class, floating

cnp.import_array()


cdef extern from *:
    """
    #include <string.h>
    static inline unsigned long long pauc_ordered_bits(double x) {
        /* IEEE-754 bits mapped so that unsigned order == numeric order. */
        unsigned long long u;
        memcpy(&u, &x, sizeof u);
        return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
    }
    """
    uint64_t pauc_ordered_bits(double x) nogil


# The oracles index rows with C ints (the packed keys and the row arrays).
_MAX_ROWS = 2**31 - 1


def _check_rows(Py_ssize_t n):
    if n >= _MAX_ROWS:
        raise ValueError(f"{n} rows: the oracles index rows with 32-bit integers; hold the "
                         "data as row chunks of a dask array (pauc.distributed fits them "
                         "chunk by chunk)")


# --------------------------------------------------------------------------
# Step 1: candidates as packed keys
# --------------------------------------------------------------------------

cdef inline uint64_t _key(double q, uint64_t label, int bits, Py_ssize_t row) noexcept nogil:
    return label | (((pauc_ordered_bits(q) >> 1) >> bits) << bits) | <uint64_t> row


cdef Py_ssize_t _pack(const floating[::1] scores, const unsigned char[::1] is_pos,
                      double t_beta, Py_ssize_t quota, int bits,
                      uint64_t[::1] keys, double[::1] coef) noexcept nogil:
    """Keys of the positives and of the selected negatives (scores above
    ``t_beta``, plus the first ``quota`` scores equal to it); the other
    negatives get coefficient 0.  Returns the number of keys."""
    cdef Py_ssize_t k, out = 0, n = scores.shape[0]
    cdef double q
    if t_beta == -INFINITY:
        # every row is a candidate: branch-free (labels come in random order)
        for k in range(n):
            keys[k] = _key(scores[k], (<uint64_t> (is_pos[k] != 0)) << 63, bits, k)
        return n
    for k in range(n):
        q = scores[k]
        if is_pos[k]:
            keys[out] = _key(q, (<uint64_t> 1) << 63, bits, k)
            out += 1
        elif q > t_beta or (q == t_beta and quota > 0):
            quota -= q == t_beta
            keys[out] = _key(q, 0, bits, k)
            out += 1
        else:
            coef[k] = 0.0
    return out


cdef bint _unpack(const floating[::1] scores, uint64_t[::1] keys, int bits,
                  Py_ssize_t n_neg_keys, int[::1] rows) noexcept nogil:
    """Row numbers and exact scores in key order, the scores written over
    the keys (``keys`` viewed as float64 afterwards); True if some class
    block is not yet sorted by score (equal leading bits, see the module
    docstring)."""
    cdef Py_ssize_t t
    cdef uint64_t mask = ((<uint64_t> 1) << bits) - 1
    cdef bint unsorted = False
    cdef double v, prev = -INFINITY
    for t in range(keys.shape[0]):
        rows[t] = <int> (keys[t] & mask)
        v = scores[rows[t]]
        memcpy(&keys[t], &v, sizeof(double))     # no type punning through pointers
        if v < prev and t != n_neg_keys:
            unsorted = True
        prev = v
    return unsorted


cdef bint _insertion_repair(double[::1] values, int[::1] rows,
                            Py_ssize_t lo, Py_ssize_t hi,
                            Py_ssize_t budget) noexcept nogil:
    """Insertion sort of ``values[lo:hi]`` (and ``rows``), which is sorted up
    to short runs; False if more than ``budget`` moves would be needed."""
    cdef Py_ssize_t t, s
    cdef double v
    cdef int r
    for t in range(lo + 1, hi):
        v = values[t]
        if v >= values[t - 1]:
            continue
        r = rows[t]
        s = t
        while s > lo and values[s - 1] > v:
            values[s] = values[s - 1]
            rows[s] = rows[s - 1]
            s -= 1
            budget -= 1
            if budget < 0:
                values[s] = v       # leave a permutation behind for the fallback
                rows[s] = r
                return False
        values[s] = v
        rows[s] = r
    return True


def sorted_candidates(const floating[::1] scores, const unsigned char[::1] is_pos,
                      Py_ssize_t n_neg_keys, double t_beta, Py_ssize_t quota,
                      double[::1] coef):
    """``(values, rows)`` of the selected negatives then the positives, each
    block ascending by score, with the other negatives' coefficients set to 0.

    The negatives selected are those scored above ``t_beta`` and the first
    ``quota`` (in row order) scored at it: ``t_beta = -inf`` takes every
    row, ``t_beta = +inf`` none (the positives alone).  ``n_neg_keys`` is
    how many negatives that selects.
    """
    cdef Py_ssize_t n = scores.shape[0]
    _check_rows(n)
    cdef int bits = 1
    while ((<Py_ssize_t> 1) << bits) < n:
        bits += 1
    keys_arr = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] keys = keys_arr
    cdef Py_ssize_t size
    with nogil:
        size = _pack(scores, is_pos, t_beta, quota, bits, keys, coef)
    keys_arr = keys_arr[:size]
    keys_arr.sort()
    keys = keys_arr
    rows_arr = np.empty(size, dtype=np.intc)
    cdef int[::1] rows = rows_arr
    values_arr = keys_arr.view(np.float64)
    cdef double[::1] values = values_arr
    cdef bint unsorted, repaired = True
    with nogil:
        unsorted = _unpack(scores, keys, bits, n_neg_keys, rows)
        if unsorted:
            repaired = (_insertion_repair(values, rows, 0, n_neg_keys, 8 * size + 64)
                        and _insertion_repair(values, rows, n_neg_keys, size,
                                              8 * size + 64))
    if not repaired:
        # Pathological clustering (long runs of distinct scores sharing all
        # leading bits): fall back to a stable argsort of each block.
        for lo, hi in ((0, n_neg_keys), (n_neg_keys, size)):
            order = np.argsort(values_arr[lo:hi], kind="stable")
            values_arr[lo:hi] = values_arr[lo:hi][order]
            rows_arr[lo:hi] = rows_arr[lo:hi][order]
    return values_arr, rows_arr


# --------------------------------------------------------------------------
# Step 2: the best row of every positive (Algorithm 3, lines 3-7), one cdef
# per family of rows, then the counts of the negatives (Appendix B.1)
# --------------------------------------------------------------------------

cdef double line4_row(Py_ssize_t above, double sum_above, Py_ssize_t j_alpha,
                             double top_alpha, double p, Py_ssize_t* r) noexcept nogil:
    """Algorithm 3, line 4: the best ``r in {0..j_alpha}`` (zero margin on the
    first ``j_alpha`` positions) is ``#{z > p}`` capped at ``j_alpha``;
    ``above = #{z > p}`` and ``sum_above`` their sum."""
    if above < j_alpha:
        r[0] = above
        return sum_above - above * p
    r[0] = j_alpha
    return top_alpha - j_alpha * p


cdef double line5_row(Py_ssize_t above_m, double sum_above_m, Py_ssize_t j_alpha,
                             Py_ssize_t j_beta, double top_alpha, double top_beta, double p,
                             Py_ssize_t* r) noexcept nogil:
    """Algorithm 3, line 5 (Algorithm 2, line 3 when ``j_alpha = 0``): the best
    ``r in {j_alpha..j_beta}`` (margin one on the window) is ``#{z > p - 1}``
    clipped to that range; ``above_m = #{z > p - 1}`` and ``sum_above_m``
    their sum."""
    if above_m <= j_alpha:
        r[0] = j_alpha
        return top_alpha - j_alpha * p
    if above_m >= j_beta:
        r[0] = j_beta
        return (j_beta - j_alpha) + top_beta - j_beta * p
    r[0] = above_m
    return (above_m - j_alpha) + sum_above_m - above_m * p


cdef double naive_tail_row(Py_ssize_t above, double sum_above, Py_ssize_t j_alpha,
                                  Py_ssize_t j_beta, double top_beta, double p,
                                  Py_ssize_t* r) noexcept nogil:
    """The naive surrogate's third family (Section 3.2, eq. (11); not in
    Algorithm 3): the best ``r in {j_beta..n}`` (zero margin beyond the
    window) is ``#{z > p}`` floored at ``j_beta``."""
    if above > j_beta:
        r[0] = above
        return (j_beta - j_alpha) + sum_above - above * p
    r[0] = j_beta
    return (j_beta - j_alpha) + top_beta - j_beta * p


cdef double positive_rows(const double[::1] neg, const double[::1] pos,
                          const int[::1] pos_rows, Py_ssize_t j_alpha, Py_ssize_t j_beta,
                          bint naive, double inv_n, int[::1] hist,
                          double[::1] coef) noexcept nogil:
    """Algorithm 3, lines 3-7: the best row ``r_i`` of every positive.

    ``neg`` holds the candidate negatives ascending (the top ``j_beta``, or
    all of them for the naive surrogate), ``pos`` positives ascending, which
    may be any subset of the positives (one chunk's).  Writes ``r_i * inv_n``
    to ``coef[pos_rows[i]]`` and the histogram of the rows to ``hist`` (``len(neg)
    + 1`` entries); returns the loss count ``sum_i clip(r_i - j_alpha, 0,
    j_beta - j_alpha)``.

    The positives are walked from the top down, so that ``#{z > p}``,
    ``#{z > p - 1}`` and the sums ``Z_r`` of the negatives above them grow
    one negative at a time.  The sums accumulate the negatives in one fixed
    order (from the top), whichever positives are walked: a chunk's
    positives get bit for bit the rows they get among all positives.
    """
    cdef Py_ssize_t size = neg.shape[0], n_pos = pos.shape[0]
    cdef Py_ssize_t width = j_beta - j_alpha
    cdef Py_ssize_t i, t, r, best_r, le = size, le_m = size
    cdef double p, h, best_h, sum_above = 0.0, sum_above_m = 0.0
    cdef double top_alpha = 0.0, top_beta = 0.0, loss = 0.0
    cdef bint need_above = j_alpha > 0 or (naive and size > j_beta)
    # Z_{j_alpha} and Z_{j_beta}: the rows that stop at a window border
    for t in range(size - 1, size - j_beta - 1, -1):
        top_beta += neg[t]
        if t == size - j_alpha:
            top_alpha = top_beta
    for r in range(size + 1):
        hist[r] = 0
    for i in range(n_pos - 1, -1, -1):
        p = pos[i]
        # le = #{z <= p}, le_m = #{z <= p - 1}; both shrink as p decreases
        while need_above and le > 0 and neg[le - 1] > p:
            le -= 1
            sum_above += neg[le]
        while le_m > 0 and neg[le_m - 1] > p - 1.0:
            le_m -= 1
            sum_above_m += neg[le_m]
        best_h = line5_row(size - le_m, sum_above_m, j_alpha, j_beta, top_alpha, top_beta,
                           p, &best_r)
        if j_alpha > 0:
            h = line4_row(size - le, sum_above, j_alpha, top_alpha, p, &r)
            if h > best_h:              # line 6: ties keep line 5's row
                best_r = r
                best_h = h
        if naive and size > j_beta:
            h = naive_tail_row(size - le, sum_above, j_alpha, j_beta, top_beta, p, &r)
            if h > best_h:
                best_r = r
        hist[best_r] += 1
        coef[pos_rows[i]] = best_r * inv_n
        r = best_r - j_alpha
        loss += 0 if r < 0 else (width if r > width else r)
    return loss


cdef void negative_counts(int[::1] hist) noexcept nogil:
    """Appendix B.1: the negative at rank ``j`` is below ``c_j = #{i : r_i >= j}``
    positives -- the histogram of the rows summed from the top, in place
    (``hist[j]`` becomes ``c_j``, ``j >= 1``)."""
    cdef Py_ssize_t t
    cdef int below = 0
    for t in range(hist.shape[0] - 1, 0, -1):
        below += hist[t]
        hist[t] = below


def _cut(const floating[::1] scores, const unsigned char[::1] is_pos,
         Py_ssize_t n_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta, bint naive):
    """Most violated constraint as ``(coef, loss)``; no input checks.

    ``j_beta`` counts negatives; ``naive`` adds the third family (Section
    3.2).  The AUC is ``j_alpha = 0, j_beta = n_neg``.
    """
    cdef Py_ssize_t n = scores.shape[0]
    cdef Py_ssize_t n_neg = n - n_pos
    cdef Py_ssize_t size = n_neg if naive else j_beta
    cdef double t_beta = -INFINITY
    cdef Py_ssize_t quota = 0
    _check_rows(n)
    # Algorithm 2/3, line 2: the top j_beta negatives (O(n) selection; ties
    # at the border are taken in row order -- any of them is a top-j_beta set).
    cdef floating[::1] neg_view
    if size < n_neg:
        neg = np.empty(n_neg, dtype=np.float32 if floating is float else np.float64)
        neg_view = neg
        with nogil:
            copy_class(scores, is_pos, 0, neg_view)
        neg.partition(n_neg - size)
        top = neg[n_neg - size:]
        t_beta = top[0]             # partition puts the smallest of the top list first
        quota = size - np.count_nonzero(top > t_beta)
    coef_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] coef = coef_arr
    values_arr, rows_arr = sorted_candidates(scores, is_pos, size, t_beta, quota, coef)
    cdef const double[::1] values = values_arr
    cdef const int[::1] rows = rows_arr
    hist_arr = np.empty(size + 1, dtype=np.intc)
    cdef int[::1] hist = hist_arr
    cdef double inv_n = 1.0 / (<double> n_pos * <double> (j_beta - j_alpha))
    cdef double loss
    cdef Py_ssize_t t
    cdef const double[::1] neg_values = values[:size]
    cdef const double[::1] pos_values = values[size:]
    cdef const int[::1] pos_rows = rows[size:]
    with nogil:
        loss = positive_rows(neg_values, pos_values, pos_rows, j_alpha, j_beta, naive, inv_n,
                             hist, coef)
        negative_counts(hist)
        # the negative at rank t from the top sits at ascending position size - t
        for t in range(size, 0, -1):
            coef[rows[size - t]] = -hist[t] * inv_n
    return coef_arr, loss * inv_n


def tight_cut(scores, is_pos, Py_ssize_t n_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta):
    """The tight surrogate's search (Algorithms 2 and 3): ``(coef, loss)``, no checks.

    ``scores`` float32/float64, ``is_pos`` uint8 0/1, both C-contiguous;
    ``0 <= j_alpha < j_beta <= n_neg``.
    """
    return _cut(scores, is_pos, n_pos, j_alpha, j_beta, False)


def naive_cut(scores, is_pos, Py_ssize_t n_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta):
    """The naive surrogate's search (Section 3.2, eq. (11)): ``(coef, loss)``, no checks."""
    return _cut(scores, is_pos, n_pos, j_alpha, j_beta, True)


def chunk_rows(const double[::1] top, const floating[::1] scores,
               const unsigned char[::1] is_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta,
               double inv_n):
    """Algorithm 3, lines 3-7 for one chunk of rows against the whole set's top list.

    Parameters
    ----------
    top : float64 array, ascending
        The top ``j_beta`` negatives of *all* chunks (line 2, merged).
    scores, is_pos : the chunk's scores and 0/1 labels.
    j_alpha, j_beta : int
    inv_n : float
        ``1 / (m (j_beta - j_alpha))`` for the ``m`` positives of all chunks.

    Returns
    -------
    coef : float64 array of the chunk's length
        ``r_i * inv_n`` on its positives, 0 on its negatives (their counts
        need every chunk's rows).
    hist : int array of length ``len(top) + 1``
        How many of its positives take each row.
    loss : float
        Its loss count (the cut's loss is the sum over chunks times ``inv_n``).
    """
    coef_arr = np.empty(scores.shape[0], dtype=np.float64)
    cdef double[::1] coef = coef_arr
    # the positives alone, ascending, with their rows (t_beta = +inf keeps no negative)
    values_arr, rows_arr = sorted_candidates(scores, is_pos, 0, INFINITY, 0, coef)
    cdef const double[::1] values = values_arr
    cdef const int[::1] rows = rows_arr
    hist_arr = np.empty(top.shape[0] + 1, dtype=np.intc)
    cdef int[::1] hist = hist_arr
    cdef double loss
    with nogil:
        loss = positive_rows(top, values, rows, j_alpha, j_beta, False, inv_n, hist, coef)
    return coef_arr, hist_arr, loss


# --------------------------------------------------------------------------
# Weighted AUC (sample weights: pair (i, j) weighs w_i w_j)
# --------------------------------------------------------------------------

cdef double _weighted_auc_walk(const double[::1] values, const int[::1] rows,
                               Py_ssize_t size, const double[::1] weight,
                               double inv_n, double[::1] coef) noexcept nogil:
    """Joachims' AUC search with weighted pairs.  The maximiser is the same
    ordering (pair wrong exactly when ``z > p - 1``); the counts become
    weight sums: ``coef_i = w_i sum_{z_j > p_i - 1} w_j / N`` and
    ``coef_j = -w_j sum_{p_i - 1 < z_j} w_i / N`` with ``N = W+ W-``."""
    cdef Py_ssize_t i, j, le_margin = 0, n = values.shape[0]
    cdef double w_neg_below = 0.0, w_neg_total = 0.0, w_pos_below = 0.0
    cdef double above, loss = 0.0
    for j in range(size):
        w_neg_total += weight[rows[j]]
    # positives ascending: negatives with z <= p - 1 are ranked correctly
    for i in range(size, n):
        while le_margin < size and values[le_margin] <= values[i] - 1.0:
            w_neg_below += weight[rows[le_margin]]
            le_margin += 1
        above = w_neg_total - w_neg_below
        coef[rows[i]] = weight[rows[i]] * above * inv_n
        loss += weight[rows[i]] * above
    # negatives ascending: positives with p - 1 < z are ranked below them
    i = size
    for j in range(size):
        while i < n and values[i] - 1.0 < values[j]:
            w_pos_below += weight[rows[i]]
            i += 1
        coef[rows[j]] = -weight[rows[j]] * w_pos_below * inv_n
    return loss * inv_n


def weighted_auc_cut(const floating[::1] scores, const unsigned char[::1] is_pos,
                     Py_ssize_t n_pos, const double[::1] weight):
    """Weighted AUC cut ``(coef, loss)``; no input checks."""
    cdef Py_ssize_t n = scores.shape[0]
    cdef Py_ssize_t n_neg = n - n_pos
    coef_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] coef = coef_arr
    values_arr, rows_arr = sorted_candidates(scores, is_pos, n_neg, -INFINITY, 0, coef)
    cdef const double[::1] values = values_arr
    cdef const int[::1] rows = rows_arr
    w = np.asarray(weight)
    is_pos_arr = np.asarray(is_pos).view(bool)
    cdef double inv_n = 1.0 / (w[is_pos_arr].sum() * w[~is_pos_arr].sum())
    cdef double loss
    with nogil:
        loss = _weighted_auc_walk(values, rows, n_neg, weight, inv_n, coef)
    return coef_arr, loss
