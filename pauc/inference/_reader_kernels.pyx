# cython: language_level=3
"""Compiled passes of the reader study (:mod:`pauc.inference._reader_study`,
:mod:`pauc.inference._leave_one_out`): the table arranged in one pass, one score vector
grouped by distinct value, and the jackknife values written to the rows.

A study of ``t`` modalities x ``r`` readers x ``K`` cases is a table of
``t·r·K`` rows (2·10^6 for 10 readers, 2 modalities and 10^5 cases) and
``t·r`` score vectors of ``K``.  The numpy version paid, per vector, an
argsort and some twenty array passes, and for the table a dozen passes with
index arrays of the table's size; here

* :func:`arrange` reads each column once: it computes each row's cell
  ``(modality·r + reader)·K + case``, checks that every cell is filled once,
  that the ratings are finite and that a case has one truth; a table already
  in cell order (as the usual tidy exports and the benchmark are) is used
  as it is, without a copy;
* :func:`group_scores` codes a vector by its distinct values: integer ratings
  on a short scale by counting (O(K)), other scores by one ``numpy.sort`` of
  64-bit integers packing each score's order-preserving key with its row
  (vectorised, and faster than ``numpy.argsort`` of the doubles or the
  package's introsort :mod:`pauc._sort`, whose strength is ties rather than
  distinct doubles: measured in ``docs/developer/measurements.rst``, "The
  reader study's coding of scores");
* :func:`auc_jackknife` does the AUC's whole leave-one-out in one pass per
  vector, without storing the rows' codes;
* :func:`auc_group_values` computes the AUC's leave-one-out values per
  distinct value (the formulas of :mod:`pauc.inference._leave_one_out`), and
  :func:`expand` writes each row's value (centred for the jackknife) for
  :class:`~pauc.inference._leave_one_out.PlacedScores`, whatever the figure.

Every floating-point operation on a figure is the one the numpy version does
(same formula, same order), except the sums over the groups, which are
compensated (Neumaier): they are then within one rounding of the exact sum,
as numpy's pairwise sums are within a few.
"""

import numpy as np

from libc.math cimport fabs
from libc.stdint cimport int64_t, uint64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

ctypedef fused rating_t:
    int64_t
    double

ctypedef fused truth_t:
    int64_t
    double
    uint8_t


# ---------------------------------------------------------------------------
# The table.
# ---------------------------------------------------------------------------

cdef inline bint _finite(double x) noexcept nogil:
    # x - x is 0 for every finite x, NaN for NaN and the infinities
    return x - x == 0.0


def arrange(const Py_ssize_t[::1] modality, Py_ssize_t modality_low,
            const Py_ssize_t[::1] reader, Py_ssize_t reader_low,
            const Py_ssize_t[::1] case, Py_ssize_t case_low, Py_ssize_t t, Py_ssize_t r,
            Py_ssize_t k, const rating_t[::1] rating, const truth_t[::1] truth,
            rating_t[::1] out, truth_t[::1] case_truth, bint guessed=False):
    """Place each row's rating in its cell of the modality x reader x case table.

    Parameters
    ----------
    modality, reader, case : intp arrays of shape (N,)
        Each row's codes; ``code - low`` is in ``[0, t)``, ``[0, r)``, ``[0, K)``
        (the caller takes ``low`` as the column's minimum and ``t, r, K`` from the
        range).  ``modality`` None: one modality.
    t, r, k : int
        Modalities, readers and cases; the caller has checked ``N == t·r·K``.
    rating : int64 or float64 array of shape (N,)
    truth : int64, float64 or uint8 array of shape (N,)
    out : array of shape (N,), the rating's dtype
        Receives the ratings in cell order when the rows are not in that order.
    case_truth : array of shape (K,), the truth's dtype
        Receives each case's truth.
    guessed : bool, default=False
        The lows and ``t, r, K`` are the first and last rows' labels, not the
        columns' ranges (a table in cell order starts at the smallest labels and
        ends at the largest): only the rows in cell order are accepted, each code
        checked to lie in its range (then the guess was the range).

    Returns
    -------
    int
        0: the rows are already in cell order (``out`` untouched: the rating
        column is the table); 1: the ratings were placed in ``out``; 2: not in
        cell order and ``guessed`` (nothing placed); -1: a cell is empty or
        filled twice, a rating is not finite, or a case has two truths (the
        caller's checking path says which).
    """
    cdef Py_ssize_t n = rating.shape[0], i, c, j
    cdef bint has_modality = modality is not None
    cdef int status = 0
    cdef uint8_t* seen
    cdef uint8_t* case_seen
    with nogil:
        # the rows in cell order: nothing to move, only the checks
        for i in range(n):
            c = reader[i] - reader_low
            j = case[i] - case_low
            if guessed and (<size_t>c >= <size_t>r or <size_t>j >= <size_t>k or (
                    has_modality and <size_t>(modality[i] - modality_low) >= <size_t>t)):
                status = 2
                break
            if has_modality:
                c += (modality[i] - modality_low) * r
            c = c * k + j
            if c != i:
                status = 2 if guessed else 1
                break
            if rating_t is double:
                if not _finite(rating[i]):
                    status = -1
                    break
            # in cell order row j (< k) is the case's first row: its truth is the case's
            if truth[i] != truth[j]:
                status = -1
                break
    if status == 0:
        for j in range(k):
            case_truth[j] = truth[j]
        return 0
    if status != 1:
        return status
    seen = <uint8_t*>calloc(n, 1)
    case_seen = <uint8_t*>calloc(k, 1)
    if seen == NULL or case_seen == NULL:
        free(seen)
        free(case_seen)
        raise MemoryError()
    with nogil:
        for i in range(n):
            c = reader[i] - reader_low
            if has_modality:
                c += (modality[i] - modality_low) * r
            j = case[i] - case_low
            c = c * k + j
            if seen[c]:
                status = -1
                break
            seen[c] = 1
            if rating_t is double:
                if not _finite(rating[i]):
                    status = -1
                    break
            out[c] = rating[i]
            if case_seen[j]:
                if truth[i] != case_truth[j]:
                    status = -1
                    break
            else:
                case_seen[j] = 1
                case_truth[j] = truth[i]
    free(seen)
    free(case_seen)
    # N == t·r·K rows, none in a cell twice: every cell is filled
    return status


def code_ranges(columns):
    """``[(min, max), ...]`` of int64 columns of one length, read in one pass.

    Parameters
    ----------
    columns : list of int64 arrays of shape (N,), N >= 1 (at most 3)

    Returns
    -------
    list of (int, int)
    """
    cdef const int64_t[::1] a, b, c
    cdef Py_ssize_t i, n = columns[0].shape[0], width = len(columns)
    cdef int64_t lo0, hi0, lo1 = 0, hi1 = 0, lo2 = 0, hi2 = 0, v
    a = columns[0]
    b = columns[1] if width > 1 else columns[0]
    c = columns[2] if width > 2 else columns[0]
    lo0 = hi0 = a[0]
    lo1 = hi1 = b[0]
    lo2 = hi2 = c[0]
    with nogil:
        # one pass over the columns instead of two per column: the table is read from
        # memory, and at millions of rows reading is the cost
        for i in range(n):
            v = a[i]
            lo0 = v if v < lo0 else lo0
            hi0 = v if v > hi0 else hi0
            v = b[i]
            lo1 = v if v < lo1 else lo1
            hi1 = v if v > hi1 else hi1
            v = c[i]
            lo2 = v if v < lo2 else lo2
            hi2 = v if v > hi2 else hi2
    return [(lo0, hi0), (lo1, hi1), (lo2, hi2)][:width]


# ---------------------------------------------------------------------------
# One score vector in order.
# ---------------------------------------------------------------------------

cdef enum:
    # integer ratings spanning fewer than this many values per score are counted
    _COUNTING_SPAN = 4


cdef inline uint64_t _double_key(double x) noexcept nogil:
    """An unsigned key ordered as the doubles (NaN excluded), -0.0 the key of 0.0."""
    cdef double y = x + 0.0           # -0.0 + 0.0 is +0.0: the two compare equal
    cdef uint64_t bits, flip
    memcpy(&bits, &y, 8)
    # negatives (sign bit set) flip every bit: larger magnitude, smaller key; the
    # others flip the sign bit only.  Without a branch: the signs of scores are a coin
    # toss the processor would mispredict half the time.
    flip = (<uint64_t>(-<int64_t>(bits >> 63))) | (<uint64_t>1 << 63)
    return bits ^ flip


cdef inline uint64_t _int_key(int64_t x) noexcept nogil:
    return (<uint64_t>x) ^ (<uint64_t>1 << 63)


cdef inline void _sift(const rating_t[::1] score, uint64_t* item, uint64_t rows,
                       Py_ssize_t root, Py_ssize_t end) noexcept nogil:
    cdef Py_ssize_t child
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and (score[item[child] >> 1 & rows]
                                < score[item[child + 1] >> 1 & rows]):
            child += 1
        if score[item[root] >> 1 & rows] >= score[item[child] >> 1 & rows]:
            return
        item[root], item[child] = item[child], item[root]
        root = child


cdef void _sort_run(const rating_t[::1] score, uint64_t* item, Py_ssize_t n,
                    uint64_t rows) noexcept nogil:
    """Sort the packed rows ``item`` by their scores (row ``item >> 1 & rows``):
    insertion on short runs, else heapsort (a run is the rows whose keys agree in
    their high bits, nearly always a handful)."""
    cdef Py_ssize_t i, j, end
    cdef uint64_t w
    if n <= 16:
        for i in range(1, n):
            w, j = item[i], i
            while j > 0 and score[item[j - 1] >> 1 & rows] > score[w >> 1 & rows]:
                item[j] = item[j - 1]
                j -= 1
            item[j] = w
        return
    # heapsort: O(n log n) however many keys share their high bits
    for i in range(n // 2 - 1, -1, -1):
        _sift(score, item, rows, i, n)
    for end in range(n - 1, 0, -1):
        item[0], item[end] = item[end], item[0]
        _sift(score, item, rows, 0, end)


cdef uint64_t _sorted_rows(const rating_t[::1] score, const uint8_t[::1] is_pos,
                           object packed) except? 0:
    """Sort the rows by the high bits of their scores' keys into ``packed`` (uint64,
    shape (K,)); returns ``mask``, the low bits (:func:`_run_end` finishes the sort).

    ``numpy.sort`` of 64-bit integers is vectorised (x86-simd-sort, Highway) and
    more than twice as fast as an argsort of the doubles.  So each score's
    order-preserving key gives up its low bits to the row number and class,
    ``packed = high bits | row << 1 | is_pos``, and one sort orders the rows by
    the keys' high bits.  The rows whose keys agree in those bits (tied scores,
    or doubles within a relative 2**-(51 - log2 K) of each other) are put in
    order by their scores as the walk meets them.
    """
    cdef Py_ssize_t n = score.shape[0], i
    cdef int b = 1
    cdef uint64_t mask
    cdef uint64_t[::1] order = packed
    while (<Py_ssize_t>1 << b) < n:
        b += 1
    mask = (<uint64_t>1 << (b + 1)) - 1
    with nogil:
        for i in range(n):
            if rating_t is double:
                order[i] = (_double_key(score[i]) & ~mask) | (<uint64_t>i << 1) | is_pos[i]
            else:
                order[i] = (_int_key(score[i]) & ~mask) | (<uint64_t>i << 1) | is_pos[i]
    packed.sort()
    return mask


cdef inline Py_ssize_t _run_end(const rating_t[::1] score, uint64_t[::1] order, Py_ssize_t i,
                                Py_ssize_t n, uint64_t mask) noexcept nogil:
    """The end of the run of rows from ``i`` whose keys agree in their high bits, the
    run sorted by score."""
    cdef Py_ssize_t e = i + 1, j
    cdef uint64_t high = order[i] & ~mask, rows = mask >> 1
    while e < n and (order[e] & ~mask) == high:
        e += 1
    for j in range(i + 1, e):
        if score[order[j] >> 1 & rows] != score[order[i] >> 1 & rows]:
            _sort_run(score, &order[i], e - i, rows)
            break
    return e


cdef inline bint _counted(int64_t* low, uint64_t* span, const int64_t[::1] score) noexcept nogil:
    """True when integer scores span few enough values to be counted (``low``,
    ``span`` = high - low set)."""
    cdef Py_ssize_t i, n = score.shape[0]
    cdef int64_t lo = score[0], hi = score[0]
    for i in range(n):
        if score[i] < lo:
            lo = score[i]
        elif score[i] > hi:
            hi = score[i]
    low[0] = lo
    # unsigned: the span of int64 extremes does not overflow
    span[0] = <uint64_t>hi - <uint64_t>lo
    return span[0] < <uint64_t>(_COUNTING_SPAN * n)


def group_scores(const rating_t[::1] score, const uint8_t[::1] is_pos):
    """Each score's rank among the distinct scores, and the classes at each.

    Integer ratings on a short scale are counted (O(K)); other scores sorted
    once (:func:`_sorted_rows`).

    Parameters
    ----------
    score : int64 or float64 array of shape (K,), finite, K >= 1
    is_pos : uint8 array of shape (K,), 0 or 1

    Returns
    -------
    codes : intp array of shape (K,)
        The row's distinct value, 0 the lowest.
    pos, neg : float64 arrays of shape (G,)
        Positives and negatives at each distinct value.
    """
    cdef Py_ssize_t n = score.shape[0], i, j, e, v, g = -1
    cdef int64_t low = 0
    cdef uint64_t span = 0, mask, p, rows
    cdef Py_ssize_t* all_count
    cdef Py_ssize_t* pos_count
    codes_array = np.empty(n, dtype=np.intp)
    pos_array = np.zeros(n)
    neg_array = np.zeros(n)
    cdef Py_ssize_t[::1] codes = codes_array
    cdef double[::1] pos = pos_array, neg = neg_array
    cdef uint64_t[::1] order
    if rating_t is int64_t:
        if _counted(&low, &span, score):
            all_count = <Py_ssize_t*>calloc(span + 1, sizeof(Py_ssize_t))
            pos_count = <Py_ssize_t*>calloc(span + 1, sizeof(Py_ssize_t))
            if all_count == NULL or pos_count == NULL:
                free(all_count)
                free(pos_count)
                raise MemoryError()
            with nogil:
                for i in range(n):
                    v = <Py_ssize_t>(score[i] - low)
                    all_count[v] += 1
                    pos_count[v] += is_pos[i]
                # the present values, ascending, become 0, 1, ...: all_count turns into the code
                for v in range(<Py_ssize_t>span + 1):
                    if all_count[v]:
                        g += 1
                        pos[g] = <double>pos_count[v]
                        neg[g] = <double>(all_count[v] - pos_count[v])
                        all_count[v] = g
                for i in range(n):
                    codes[i] = all_count[<Py_ssize_t>(score[i] - low)]
            free(all_count)
            free(pos_count)
            return codes_array, pos_array[:g + 1], neg_array[:g + 1]
    packed = np.empty(n, dtype=np.uint64)
    mask = _sorted_rows(score, is_pos, packed)
    order = packed
    rows = mask >> 1
    with nogil:
        i = 0
        while i < n:
            e = _run_end(score, order, i, n, mask)
            for j in range(i, e):
                if j == i or score[order[j] >> 1 & rows] != score[order[j - 1] >> 1 & rows]:
                    g += 1
                p = order[j]
                codes[p >> 1 & rows] = g
                if p & 1:
                    pos[g] += 1.0
                else:
                    neg[g] += 1.0
            i = e
    return codes_array, pos_array[:g + 1], neg_array[:g + 1]


# ---------------------------------------------------------------------------
# Leave-one-out values.
# ---------------------------------------------------------------------------

cdef inline void _neumaier(double* total, double* carry, double x) noexcept nogil:
    """``total + carry`` is the sum so far, the rounding errors kept in ``carry``."""
    cdef double t = total[0] + x
    if fabs(total[0]) >= fabs(x):
        carry[0] += (total[0] - t) + x
    else:
        carry[0] += (x - t) + total[0]
    total[0] = t


cdef inline double _auc_h(double neg_g, double* cum_neg, double n) noexcept nogil:
    """A positive's placement at a value with ``neg_g`` negatives, the values below it
    counted in ``cum_neg``: the share of negatives below, ties one half."""
    cum_neg[0] += neg_g
    cdef double above = n - cum_neg[0]
    return 1.0 - (above + 0.5 * neg_g) / n


cdef inline double _auc_v01(double pos_g, double* cum_pos, double m) noexcept nogil:
    """A negative's placement: the share of positives above, ties one half."""
    cum_pos[0] += pos_g
    cdef double pos_above = m - cum_pos[0]
    return (pos_above + 0.5 * pos_g) / m


def auc_group_values(const double[::1] pos, const double[::1] neg, Py_ssize_t m,
                     Py_ssize_t n, double[::1] pos_out, double[::1] neg_out):
    """The AUC without one positive (``pos_out``) or one negative (``neg_out``) of
    each distinct value, and the AUC.

    The formulas of :mod:`pauc.inference._leave_one_out`: without a positive the others keep
    their places among the same negatives, ``(Σ h − h_p) / (m − 1)``; the AUC is
    also the mean of the negatives' placements ``v01``, and without a negative
    it is ``(n AUC − v01_q) / (n − 1)``.

    Parameters
    ----------
    pos, neg : float64 arrays of shape (G,)
        Positives and negatives at each distinct value, ascending.
    m, n : int
        Positives and negatives in all (at least 2 each).
    pos_out, neg_out : float64 arrays of shape (G,)
        Receive the values.

    Returns
    -------
    float
        The AUC.
    """
    cdef Py_ssize_t g, n_groups = pos.shape[0]
    cdef double total = 0.0, carry = 0.0, cum_neg = 0.0, cum_pos = 0.0, scaled, h
    with nogil:
        for g in range(n_groups):
            h = _auc_h(neg[g], &cum_neg, n)
            pos_out[g] = h
            _neumaier(&total, &carry, pos[g] * h)
        total += carry
        scaled = total / m * n
        for g in range(n_groups):
            pos_out[g] = (total - pos_out[g]) / (m - 1)
            neg_out[g] = (scaled - _auc_v01(pos[g], &cum_pos, m)) / (n - 1)
    return total / m


def auc_jackknife(const rating_t[::1] score, const uint8_t[::1] is_pos, Py_ssize_t m,
                  Py_ssize_t n, double[::1] out, bint center, work=None):
    """The AUC of one score vector and its K leave-one-out values, in one pass.

    :func:`group_scores`, :func:`auc_group_values` and :func:`expand` fused: the
    rows' codes are never stored.  Counted integer ratings index two tables of
    values; sorted scores are walked once in order, each row receiving its
    placement (``h`` or ``v01``), turned into its leave-one-out value by one
    sequential pass once ``Σ h`` is known.

    Parameters
    ----------
    score : int64 or float64 array of shape (K,), finite
    is_pos : uint8 array of shape (K,), 0 or 1
    m, n : int
        Positives and negatives (at least 2 each).
    out : float64 array of shape (K,)
        Receives the leave-one-out values, in row order.
    center : bool
        Subtract their mean, which is the AUC: the positives' values average to
        it (``Σ_p h_p = m AUC``), and so do the negatives' (``Σ_q v01_q = n AUC``).
    work : uint64 array of shape (K,), optional
        Room for the sort, reused over the vectors of a study (a new array's pages
        are faulted in at every call).

    Returns
    -------
    float
        The AUC.
    """
    cdef Py_ssize_t k = score.shape[0], i, s, e, e_run, v
    cdef int64_t low = 0
    cdef uint64_t span = 0, mask, p, rows
    cdef double total = 0.0, carry = 0.0, cum_neg = 0.0, cum_pos = 0.0, scaled, auc
    cdef double pos_g, neg_g, h, v01, shift, m_less, n_less
    cdef uint8_t c
    cdef double* table
    cdef uint64_t[::1] order
    if rating_t is int64_t:
        if _counted(&low, &span, score):
            # per value: counts, then (h, v01), then the two leave-one-out values
            table = <double*>calloc(4 * (span + 1), sizeof(double))
            if table == NULL:
                raise MemoryError()
            with nogil:
                for i in range(k):
                    v = <Py_ssize_t>(score[i] - low)
                    table[2 * v] += is_pos[i]
                    table[2 * v + 1] += 1.0
                for v in range(<Py_ssize_t>span + 1):
                    pos_g = table[2 * v]
                    neg_g = table[2 * v + 1] - pos_g
                    if neg_g + pos_g == 0.0:
                        continue
                    h = _auc_h(neg_g, &cum_neg, n)
                    _neumaier(&total, &carry, pos_g * h)
                    table[2 * v] = h
                    table[2 * v + 1] = _auc_v01(pos_g, &cum_pos, m)
                total += carry
                scaled = total / m * n
                auc = total / m
                shift = auc if center else 0.0
                for v in range(<Py_ssize_t>span + 1):
                    table[2 * v] = (total - table[2 * v]) / (m - 1) - shift
                    table[2 * v + 1] = (scaled - table[2 * v + 1]) / (n - 1) - shift
                for i in range(k):
                    out[i] = table[2 * <Py_ssize_t>(score[i] - low) + 1 - is_pos[i]]
            free(table)
            return auc
    if work is None or work.shape[0] != k:
        work = np.empty(k, dtype=np.uint64)
    mask = _sorted_rows(score, is_pos, work)
    order = work
    rows = mask >> 1
    with nogil:
        s = 0
        while s < k:
            p = order[s]
            if s + 1 == k or (order[s + 1] ^ p) & ~mask:
                # a value of one row (continuous scores: nearly all), the general
                # path's arithmetic without its loops
                pos_g = <double>(p & 1)
                neg_g = 1.0 - pos_g
                h = _auc_h(neg_g, &cum_neg, n)
                _neumaier(&total, &carry, pos_g * h)
                v01 = _auc_v01(pos_g, &cum_pos, m)
                out[p >> 1 & rows] = h if p & 1 else v01
                s += 1
                continue
            e_run = _run_end(score, order, s, k, mask)
            while s < e_run:
                # the rows of one value: order[s:e]
                pos_g = <double>(order[s] & 1)
                e = s + 1
                while e < e_run and score[order[e] >> 1 & rows] == score[order[s] >> 1 & rows]:
                    pos_g += <double>(order[e] & 1)
                    e += 1
                neg_g = (e - s) - pos_g
                h = _auc_h(neg_g, &cum_neg, n)
                _neumaier(&total, &carry, pos_g * h)
                v01 = _auc_v01(pos_g, &cum_pos, m)
                for i in range(s, e):
                    p = order[i]
                    out[p >> 1 & rows] = h if p & 1 else v01
                s = e
        total += carry
        scaled = total / m * n
        auc = total / m
        shift = auc if center else 0.0
        # a positive: (Σ h - h) / (m - 1); a negative: (n AUC - v01) / (n - 1).  Selects,
        # not a branch: the classes come in no order the processor could predict, and
        # without one the compiler vectorises the division
        m_less, n_less = <double>(m - 1), <double>(n - 1)
        for i in range(k):
            c = is_pos[i]
            out[i] = ((total if c else scaled) - out[i]) / (m_less if c else n_less) - shift
    return auc


def expand(const Py_ssize_t[::1] codes, const uint8_t[::1] is_pos, const double[::1] pos,
           const double[::1] neg, const double[::1] pos_out, const double[::1] neg_out,
           double[::1] out, bint center):
    """Each row's leave-one-out value into ``out``, minus their mean if ``center``.

    Parameters
    ----------
    codes : intp array of shape (K,)
    is_pos : uint8 array of shape (K,)
    pos, neg : float64 arrays of shape (G,)
        Positives and negatives at each distinct value (the mean is their
        weighted sum of the values over K: no pass over the rows).
    pos_out, neg_out : float64 arrays of shape (G,)
        The value without a positive, without a negative, of each distinct value.
    out : float64 array of shape (K,)
    center : bool

    Returns
    -------
    float
        The mean of the values.
    """
    cdef Py_ssize_t i, g, c, n_rows = codes.shape[0], n_groups = pos.shape[0]
    cdef double total = 0.0, carry = 0.0, mean, shift
    with nogil:
        for g in range(n_groups):
            _neumaier(&total, &carry, pos[g] * pos_out[g])
            _neumaier(&total, &carry, neg[g] * neg_out[g])
        mean = (total + carry) / n_rows
        shift = mean if center else 0.0
        for i in range(n_rows):
            c = codes[i]
            out[i] = (pos_out[c] if is_pos[i] else neg_out[c]) - shift
    return mean
