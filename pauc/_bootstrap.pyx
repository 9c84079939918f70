# cython: language_level=3
"""The stratified bootstrap of ROC areas as weighted counts (Cython, no re-sort).

A stratified bootstrap resample (Efron & Tibshirani, Ch. 6; pROC's default)
draws ``m`` positives among the ``m`` positives and ``n`` negatives among the
``n`` negatives, with replacement.  Its ROC curve is the curve of the original
scores in which row ``r`` counts ``c_r`` times, ``c`` the vector of
*multiplicities*.  So the scores are sorted **once**, and every resample is
one walk down the sorted classes adding ``c_r`` instead of 1 per row: the
same tie groups, the same segments, the same floating-point operations as
:func:`pauc._ranking.partial_area` on the resampled rows (counts are integers,
exact in double), hence the same area, bit for bit.

Only the top of the ranking matters to a window [α, β] with β < 1: the walk
stops once the resampled negatives reach FPR β.  The multiplicities are drawn
lazily, by an exact two-stage construction of the multinomial: with the rows of
a class split into a *prefix* of ``k`` slots (the rows that can reach the
window) and the rest, the number ``K`` of the ``N`` draws that land in the
prefix is Binomial(N, k/N) (drawn by numpy, before the call), and given
``K`` the draws are uniform over the prefix.  When a resample's walk runs out
of the prefix (``K`` fell short of β·n, a 6-sigma event by the prefix's
choice) the remaining ``N - K`` draws are spread uniformly over the rest of
the class and the walk is redone: still exact.  A resample so costs
O(k_pos + k_neg), not O(m + n).

Each call runs a block of resamples from one ``numpy`` bit generator (its
own, seeded by the caller), without the GIL; blocks run in parallel threads.

References
----------
Efron, B. and Tibshirani, R. J. "An Introduction to the Bootstrap." Chapman &
Hall, 1993.  Lemire, D. "Fast Random Integer Generation in an Interval." ACM
Transactions on Modeling and Computer Simulation 29(1), 2019.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memset
from libc.math cimport INFINITY

import numpy as np
from numpy.random cimport bitgen_t

from ._ranking cimport clipped_area


cdef inline uint32_t bounded_uint32(bitgen_t* rng, uint32_t size) noexcept nogil:
    """Uniform integer in [0, size), without bias (Lemire 2019, Algorithm 5)."""
    cdef uint64_t product = <uint64_t>rng.next_uint32(rng.state) * size
    cdef uint32_t low = <uint32_t>product
    cdef uint32_t threshold
    if low < size:
        threshold = (<uint32_t>0 - size) % size
        while low < threshold:
            product = <uint64_t>rng.next_uint32(rng.state) * size
            low = <uint32_t>product
    return <uint32_t>(product >> 32)


cdef void scatter_draws(bitgen_t* rng, int[::1] counts, Py_ssize_t start, Py_ssize_t size,
                        Py_ssize_t n_draws) noexcept nogil:
    """Add ``n_draws`` uniform draws over the slots ``[start, start + size)`` to ``counts``."""
    cdef Py_ssize_t d
    for d in range(n_draws):
        counts[start + bounded_uint32(rng, <uint32_t>size)] += 1


cdef double walk(const double[::1] pos, const long long[::1] pos_slot,
                 const double[::1] neg, const long long[::1] neg_slot,
                 const int[::1] c_pos, const int[::1] c_neg, double cutoff,
                 double tp_total, double fp_total, double lo, double hi, double floor,
                 const double[::1] grid, double[::1] grid_tpr, bint* exhausted) noexcept nogil:
    """Clipped ROC area of one resample: :func:`pauc._ranking.roc_walk` with the
    multiplicities as weights, on scores sorted **descending**.

    Groups scored below ``cutoff`` lie outside the drawn prefix: reaching one
    sets ``exhausted`` and returns (the caller completes the draws and walks
    again).  With a non-empty ``grid`` (increasing FPRs) the height of the
    curve at each grid point is written to ``grid_tpr``.
    """
    cdef Py_ssize_t i = 0, j = 0, g = 0
    cdef Py_ssize_t n_pos = pos.shape[0], n_neg = neg.shape[0], n_grid = grid.shape[0]
    cdef double tp = 0.0, fp = 0.0, tp_new, fp_new, t, x0, x1, y0, y1
    cdef double acc = 0.0
    exhausted[0] = False
    while i < n_pos or j < n_neg:
        if j >= n_neg or (i < n_pos and pos[i] >= neg[j]):
            t = pos[i]
        else:
            t = neg[j]
        if t < cutoff:
            exhausted[0] = True
            return 0.0
        tp_new = tp
        fp_new = fp
        while i < n_pos and pos[i] == t:
            tp_new += c_pos[pos_slot[i]]
            i += 1
        while j < n_neg and neg[j] == t:
            fp_new += c_neg[neg_slot[j]]
            j += 1
        # the same expression as roc_walk, so that the sums agree to the last bit
        x0, y0, x1, y1 = fp / fp_total, tp / tp_total, fp_new / fp_total, tp_new / tp_total
        acc += clipped_area(x0, y0, x1, y1, lo, hi, floor)
        # grid points inside this (non-vertical) segment: interpolate
        while g < n_grid and x1 > x0 and grid[g] < x1:
            grid_tpr[g] = y0 + (y1 - y0) * (grid[g] - x0) / (x1 - x0) if grid[g] > x0 else y0
            g += 1
        tp = tp_new
        fp = fp_new
        if fp >= hi * fp_total:
            break   # the rest of the curve lies right of the window
    while g < n_grid:
        grid_tpr[g] = tp / tp_total
        g += 1
    return acc


cdef void draw_prefix(bitgen_t* rng, int[::1] counts, Py_ssize_t k, Py_ssize_t n_draws) noexcept nogil:
    memset(&counts[0], 0, k * sizeof(int))
    scatter_draws(rng, counts, 0, k, n_draws)


cdef void draw_rest(bitgen_t* rng, int[::1] counts, Py_ssize_t k, Py_ssize_t n_drawn) noexcept nogil:
    """The draws that did not land in the prefix, spread uniformly over the rest."""
    cdef Py_ssize_t size = counts.shape[0]
    if size > k:
        memset(&counts[k], 0, (size - k) * sizeof(int))
        scatter_draws(rng, counts, k, size - k, size - n_drawn)


def resample_areas(const double[:, ::1] pos, const long long[:, ::1] pos_slot,
                   const double[:, ::1] neg, const long long[:, ::1] neg_slot,
                   const double[::1] cutoff, Py_ssize_t k_pos, Py_ssize_t k_neg,
                   const long long[::1] in_prefix_pos, const long long[::1] in_prefix_neg,
                   bit_generator, double lo, double hi, double floor,
                   grid=None, bint complete=False, int[::1] counts_pos=None,
                   int[::1] counts_neg=None):
    """Clipped ROC areas of a block of stratified bootstrap resamples.

    Parameters
    ----------
    pos, neg : float64 arrays of shape (S, m) and (S, n)
        Each row: one score vector's positives / negatives sorted descending
        (S = 1, or 2 for a paired comparison over the same resamples).
    pos_slot, neg_slot : int64 arrays of the same shapes
        The multiplicity slot of each sorted entry (slots ``< k_*`` form the
        prefix; a slot is a row of the class).
    cutoff : float64 array of shape (S,)
        Score ``s`` may walk down to ``cutoff[s]`` inside the prefix (every row
        scored at least that high by ``s`` has a prefix slot); ``-inf`` when
        the prefix is the whole class.
    k_pos, k_neg : int
        Prefix sizes.
    in_prefix_pos, in_prefix_neg : int64 arrays of shape (B,)
        Per resample, how many of the class's draws land in its prefix
        (Binomial(m, k_pos/m), Binomial(n, k_neg/n)).
    bit_generator : numpy.random.BitGenerator
        The source of the uniform draws; used by this block alone.
    lo, hi, floor : float
        The area of max(TPR - floor, 0) over FPR in [lo, hi].
    grid : float64 array of shape (G,) or None
        FPRs at which to return the resampled curves' heights (S = 1 only).
    complete : bool
        Draw every multiplicity, not only the prefix's (for tests: the
        counts of the last resample are left in ``counts_*``).
    counts_pos, counts_neg : int32 arrays of shape (m,) and (n,), optional
        Work space (and, with ``complete``, the last resample's multiplicities
        by slot).

    Returns
    -------
    areas : float64 array of shape (B, S)
    heights : float64 array of shape (B, G), only with ``grid``
    """
    cdef Py_ssize_t n_scores = pos.shape[0], m = pos.shape[1], n = neg.shape[1]
    cdef Py_ssize_t n_resamples = in_prefix_pos.shape[0]
    cdef Py_ssize_t b, s
    cdef bint exhausted, full
    cdef double area
    cdef double tp_total = <double>m, fp_total = <double>n
    if neg.shape[0] != n_scores or cutoff.shape[0] != n_scores:
        raise ValueError("pos, neg and cutoff disagree on the number of score vectors")
    if pos_slot.shape[0] != n_scores or pos_slot.shape[1] != m \
            or neg_slot.shape[0] != n_scores or neg_slot.shape[1] != n:
        raise ValueError("slots and scores differ in shape")
    if in_prefix_neg.shape[0] != n_resamples:
        raise ValueError("in_prefix_pos and in_prefix_neg differ in length")
    if not (0 < k_pos <= m and 0 < k_neg <= n):
        raise ValueError("prefix sizes must be in [1, class size]")
    if m >= 2 ** 32 or n >= 2 ** 32:
        raise ValueError("a class of 2**32 rows or more is beyond the bootstrap's draws")
    for b in range(n_resamples):
        if not (0 <= in_prefix_pos[b] <= m and 0 <= in_prefix_neg[b] <= n):
            raise ValueError("draws in the prefix must lie in [0, class size]")
    cdef double[::1] grid_v = (np.empty(0) if grid is None
                               else np.ascontiguousarray(grid, dtype=np.float64))
    if grid is not None and n_scores != 1:
        raise ValueError("a grid of heights is for one score vector")
    heights = np.zeros((n_resamples, grid_v.shape[0]), dtype=np.float64)
    cdef double[:, ::1] heights_v = heights
    areas = np.empty((n_resamples, n_scores), dtype=np.float64)
    cdef double[:, ::1] areas_v = areas
    if counts_pos is None:
        counts_pos = np.zeros(m, dtype=np.intc)
    if counts_neg is None:
        counts_neg = np.zeros(n, dtype=np.intc)
    if counts_pos.shape[0] != m or counts_neg.shape[0] != n:
        raise ValueError("work space of the wrong size")
    cdef double[::1] no_cutoff = np.full(n_scores, -INFINITY)
    cdef bitgen_t* rng = <bitgen_t*>PyCapsule_GetPointer(bit_generator.capsule, "BitGenerator")
    with bit_generator.lock, nogil:
        for b in range(n_resamples):
            draw_prefix(rng, counts_pos, k_pos, in_prefix_pos[b])
            draw_prefix(rng, counts_neg, k_neg, in_prefix_neg[b])
            full = False
            if complete:
                draw_rest(rng, counts_pos, k_pos, in_prefix_pos[b])
                draw_rest(rng, counts_neg, k_neg, in_prefix_neg[b])
                full = True
            s = 0
            while s < n_scores:
                area = walk(pos[s], pos_slot[s], neg[s], neg_slot[s], counts_pos, counts_neg,
                            no_cutoff[s] if full else cutoff[s], tp_total, fp_total,
                            lo, hi, floor, grid_v, heights_v[b], &exhausted)
                if exhausted:
                    # the prefix fell short: draw the rest exactly, walk every score again
                    draw_rest(rng, counts_pos, k_pos, in_prefix_pos[b])
                    draw_rest(rng, counts_neg, k_neg, in_prefix_neg[b])
                    full = True
                    s = 0
                    continue
                areas_v[b, s] = area
                s += 1
    return (areas, heights) if grid is not None else areas


def weighted_areas(const double[:, ::1] pos, const long long[:, ::1] pos_slot,
                   const double[:, ::1] neg, const long long[:, ::1] neg_slot,
                   const int[::1] counts_pos, const int[::1] counts_neg,
                   double lo, double hi, double floor, grid=None):
    """The areas (and grid heights) of the rows counted ``counts_*[slot]`` times each.

    All ones is the sample itself (equal to :func:`pauc.metrics.partial_auc`
    exactly); any other non-negative counts are one resample.  The rates are
    normalised by the counts' totals (``m`` and ``n`` for a bootstrap resample).

    Returns
    -------
    areas : float64 array of shape (S,)
    heights : float64 array of shape (S, G), only with ``grid``
    """
    cdef Py_ssize_t n_scores = pos.shape[0], s
    if counts_pos.shape[0] != pos.shape[1] or counts_neg.shape[0] != neg.shape[1]:
        raise ValueError("counts and scores differ in length")
    cdef long long total_pos = 0, total_neg = 0
    for s in range(counts_pos.shape[0]):
        if counts_pos[s] < 0:
            raise ValueError("counts must be non-negative")
        total_pos += counts_pos[s]
    for s in range(counts_neg.shape[0]):
        if counts_neg[s] < 0:
            raise ValueError("counts must be non-negative")
        total_neg += counts_neg[s]
    if total_pos == 0 or total_neg == 0:
        raise ValueError("the counts leave a class empty")
    cdef double[::1] grid_v = (np.empty(0) if grid is None
                               else np.ascontiguousarray(grid, dtype=np.float64))
    heights = np.zeros((n_scores, grid_v.shape[0]), dtype=np.float64)
    areas = np.empty(n_scores, dtype=np.float64)
    cdef double[:, ::1] heights_v = heights
    cdef double[::1] areas_v = areas
    cdef bint exhausted
    with nogil:
        for s in range(n_scores):
            areas_v[s] = walk(pos[s], pos_slot[s], neg[s], neg_slot[s], counts_pos, counts_neg,
                              -INFINITY, <double>total_pos, <double>total_neg, lo, hi, floor,
                              grid_v, heights_v[s], &exhausted)
    return (areas, heights) if grid is not None else areas
