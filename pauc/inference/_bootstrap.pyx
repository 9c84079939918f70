# cython: language_level=3
"""The stratified bootstrap of ROC areas as weighted counts (Cython, no re-sort).

A stratified bootstrap resample (Efron & Tibshirani, Ch. 6; pROC's default)
draws ``m`` positives among the ``m`` positives and ``n`` negatives among the
``n`` negatives, with replacement.  Its ROC curve is the curve of the original
scores in which row ``r`` counts ``c_r`` times, ``c`` the vector of
*multiplicities*.  So the scores are sorted **once**, and every resample is
one walk down the sorted classes adding ``c_r`` instead of 1 per row.
:func:`weighted_areas` does it with the same tie groups, segments and
floating-point operations as :func:`pauc._ranking.partial_area` on the
resampled rows (counts are integers, exact in double), hence the same area
bit for bit; it gives the sample's own estimate.

Only the top of the ranking matters to a window [α, β] with β < 1: the walk
stops once the resampled negatives reach FPR β.  The multiplicities are drawn
lazily, by an exact two-stage construction of the multinomial: with the rows of
a class split into a *prefix* of ``k`` slots (the rows that can reach the
window) and the rest, the number ``K`` of the ``N`` draws that land in the
prefix is Binomial(N, k/N) (drawn by numpy, before the call), and given
``K`` the draws are uniform over the prefix.  When a resample's walk runs out
of the prefix (``K`` fell short of β·n, a 6-sigma event by the prefix's
choice) the remaining ``N - K`` draws are spread uniformly over the rest of
the class and the walk is redone: still exact (when the caller laid out only
the prefix, the block stops there instead and is resumed on the complete
layout, :mod:`pauc.inference._resampling`).  A resample so costs O(k_pos + k_neg), not
O(m + n).

Speed.  Per resample the work is the draws (one uniform integer each) and a
walk whose merge of the two classes was done **once**: the sorted classes are
cut into *runs* of the merged order (a maximal stretch of positives only, of
negatives only, or one group of tied scores holding both), each a straight
piece of every resampled ROC curve.  Each draw is counted straight into the
run holding its row (one table look-up), and the walk adds one segment per
run.
Segments inside the window and above the TPR floor add exact integer counts
(twice the area times ``m n``); only the few that straddle an end of the
window or the floor are clipped in floating point.  The area so equals that
of the resampled rows' walk up to the order of floating-point additions
(|difference| <= a few ulps per straddling segment; the tests use 1e-12).

The uniform integers come from xoshiro256** (Blackman & Vigna), inlined, one
generator per block, seeded from the block's ``numpy`` generator: each call
runs a block of resamples without the GIL; blocks run in parallel threads.

References
----------
Efron, B. and Tibshirani, R. J. "An Introduction to the Bootstrap." Chapman &
Hall, 1993.  Lemire, D. "Fast Random Integer Generation in an Interval." ACM
Transactions on Modeling and Computer Simulation 29(1), 2019.  Blackman, D.
and Vigna, S. "Scrambled Linear Pseudorandom Number Generators." ACM
Transactions on Mathematical Software 47(4), 2021.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memset

import numpy as np

# no weights and no slots: the runs' walk reads where the tie groups end, not their weights
cdef const int[::1] _NO_COUNTS = np.empty(0, dtype=np.intc)
cdef const long long[::1] _NO_SLOTS = np.empty(0, dtype=np.int64)

from .._random cimport Xoshiro, bounded_uint32, xoshiro_from
from .._ranking cimport clipped_area, next_tie_group


# The generator (xoshiro256**, Lemire's bounded integers) is in _random.pxd, shared
# with the cluster bootstrap's kernel.


cdef void scatter_draws(Xoshiro* g, const int[:, ::1] run_of_slot, int[::1] run_counts,
                        Py_ssize_t start, Py_ssize_t size, Py_ssize_t n_draws,
                        int[::1] slot_counts, bint record) noexcept nogil:
    """Add ``n_draws`` uniform draws over the slots ``[start, start + size)``: each
    draw counts once in the run holding its slot, for every score vector (and,
    with ``record``, in ``slot_counts``)."""
    cdef Py_ssize_t d, s, slot, n_scores = run_of_slot.shape[0]
    cdef const int[::1] runs_of_first
    cdef Xoshiro local
    if n_scores == 1 and not record:
        # the common case, without the loops' bookkeeping; the generator in a local
        # copy, which the counts' stores cannot alias (it stays in registers)
        runs_of_first = run_of_slot[0]
        local = g[0]
        for d in range(n_draws):
            run_counts[runs_of_first[start + <Py_ssize_t>bounded_uint32(&local,
                                                                        <uint32_t>size)]] += 1
        g[0] = local
        return
    local = g[0]
    for d in range(n_draws):
        slot = start + <Py_ssize_t>bounded_uint32(&local, <uint32_t>size)
        for s in range(n_scores):
            run_counts[run_of_slot[s, slot]] += 1
        if record:
            slot_counts[slot] += 1
    g[0] = local


cdef double walk(const double[::1] pos, const long long[::1] pos_slot,
                 const double[::1] neg, const long long[::1] neg_slot,
                 const int[::1] c_pos, const int[::1] c_neg,
                 double tp_total, double fp_total, double lo, double hi, double floor,
                 const double[::1] grid, double[::1] grid_tpr) noexcept nogil:
    """Clipped ROC area of the rows counted ``c_*[slot]`` times: the walk of
    :func:`pauc._ranking.roc_walk` with the counts as weights, on scores sorted
    **descending**, one tie group at a time, with its very floating-point
    operations (so the sample's own area equals ``partial_auc`` bit for bit).
    With a non-empty ``grid`` (increasing FPRs) the curve's height at each
    grid point is written to ``grid_tpr``.
    """
    cdef Py_ssize_t i = 0, j = 0, g = 0
    cdef Py_ssize_t n_pos = pos.shape[0], n_neg = neg.shape[0], n_grid = grid.shape[0]
    cdef double tp = 0.0, fp = 0.0, tp_new, fp_new, x0, x1, y0, y1
    cdef double acc = 0.0
    while i < n_pos or j < n_neg:
        tp_new = tp
        fp_new = fp
        next_tie_group(pos, neg, c_pos, pos_slot, c_neg, neg_slot, &i, &j, 1, &tp_new, &fp_new)
        # the same expression as roc_walk, so that the sums agree to the last bit
        x0, y0, x1, y1 = fp / fp_total, tp / tp_total, fp_new / fp_total, tp_new / tp_total
        acc += clipped_area(x0, y0, x1, y1, lo, hi, floor)
        g = heights_on_segment(x0, y0, x1, y1, grid, grid_tpr, g)
        tp = tp_new
        fp = fp_new
        if fp >= hi * fp_total:
            break   # the rest of the curve lies right of the window
    while g < n_grid:
        grid_tpr[g] = tp / tp_total
        g += 1
    return acc


cdef inline Py_ssize_t heights_on_segment(double x0, double y0, double x1, double y1,
                                          const double[::1] grid, double[::1] grid_tpr,
                                          Py_ssize_t g) noexcept nogil:
    """Heights at the grid points inside the segment (x0, x1] (left end: its top);
    returns the next grid index.  Vertical segments hold none."""
    while g < grid.shape[0] and x1 > x0 and grid[g] < x1:
        grid_tpr[g] = y0 + (y1 - y0) * (grid[g] - x0) / (x1 - x0) if grid[g] > x0 else y0
        g += 1
    return g


cdef inline void add_segment(long long tp, long long fp, long long dp, long long dn,
                             double m, double n, double lo, double hi, double floor,
                             long long* twice_area, long long* width,
                             double* acc) noexcept nogil:
    """One segment of a run walk, from ``(fp, tp)`` by ``(dn, dp)`` (``dn > 0``): wholly
    inside the window and above the floor it adds ``dn (2 tp + dp)`` to the integer
    ``twice_area`` (twice its area times ``m n``) and ``dn`` to ``width``, else its
    clipped area in floating point to ``acc``."""
    if fp >= lo * n and fp + dn <= hi * n and tp >= floor * m:
        twice_area[0] += dn * (2 * tp + dp)
        width[0] += dn
    else:
        acc[0] += clipped_area(fp / n, tp / m, (fp + dn) / n, (tp + dp) / m, lo, hi, floor)


cdef double run_walk(const int[::1] run_pos, const int[::1] run_neg,
                     Py_ssize_t first_run, Py_ssize_t stop_run,
                     double m, double n, double lo, double hi, double floor,
                     const double[::1] grid, double[::1] grid_tpr,
                     bint* exhausted) noexcept nogil:
    """Clipped ROC area of one resample, one run of the merged order at a time.

    ``run_pos[r]`` / ``run_neg[r]``: the resampled positives / negatives of run
    ``r``, for the runs ``first_run <= r < stop_run``; running out of them
    before FPR ``hi`` sets ``exhausted`` (the caller draws the rest and walks
    again over every run).  Segments wholly inside the window and above the
    floor add ``dn (2 tp + dp)`` to an integer total (twice their area times
    ``m n``), the others their clipped area in floating point.
    """
    cdef Py_ssize_t r, g = 0
    cdef long long tp = 0, fp = 0, dp, dn, twice_area = 0, width = 0
    cdef double hi_count = hi * n
    cdef double acc = 0.0
    exhausted[0] = False
    for r in range(first_run, stop_run):
        dp = run_pos[r]
        dn = run_neg[r]
        if dn > 0:
            add_segment(tp, fp, dp, dn, m, n, lo, hi, floor, &twice_area, &width, &acc)
            if grid.shape[0]:
                g = heights_on_segment(fp / n, tp / m, (fp + dn) / n, (tp + dp) / m,
                                       grid, grid_tpr, g)
        tp += dp
        fp += dn
        if fp >= hi_count:
            break
    else:
        exhausted[0] = True
        return 0.0
    while g < grid.shape[0]:
        grid_tpr[g] = tp / m
        g += 1
    return twice_area / (2.0 * m * n) - floor * (width / n) + acc


cdef void count_draws(Xoshiro* g, Py_ssize_t start, Py_ssize_t size, Py_ssize_t n_draws,
                      int[::1] slot_counts) noexcept nogil:
    """Add ``n_draws`` uniform draws over the slots ``[start, start + size)``."""
    cdef Py_ssize_t d
    cdef Xoshiro local = g[0]
    for d in range(n_draws):
        slot_counts[start + <Py_ssize_t>bounded_uint32(&local, <uint32_t>size)] += 1
    g[0] = local


cdef void gather_entries(const int[::1] run_of_entry, const int[::1] key,
                         const int[::1] counts, Py_ssize_t start, Py_ssize_t stop,
                         int[::1] run_counts) noexcept nogil:
    """Add the count of each sorted entry ``start <= e < stop`` to its run: one
    branch-free pass (the runs are short; a loop per run would mispredict)."""
    cdef Py_ssize_t e
    for e in range(start, stop):
        run_counts[run_of_entry[e]] += counts[key[e]]


cdef void running_counts(const int[::1] key, const int[::1] counts, Py_ssize_t start,
                         Py_ssize_t stop, int[::1] cum) noexcept nogil:
    """``cum[e + 1] = cum[e] + counts[key[e]]`` for the sorted entries
    ``start <= e < stop`` (``cum[start]`` already set): the running sum kept in a
    register, no read-modify-write of a run's count per entry."""
    cdef Py_ssize_t e
    cdef int acc = cum[start]
    for e in range(start, stop):
        acc = acc + counts[key[e]]
        cum[e + 1] = acc


cdef double cum_walk(const int[::1] cum_pos, const int[::1] cum_neg,
                     const long long[::1] pos_end, const long long[::1] neg_end,
                     Py_ssize_t first_run, Py_ssize_t stop_run,
                     double m, double n, double lo, double hi, double floor,
                     bint* exhausted) noexcept nogil:
    """:func:`run_walk` (without a grid) on the running sums of the sorted entries'
    counts: after run ``r`` the walk stands at ``cum_*[*_end[r]]``, so a run's
    counts are differences of exact integers -- the same counts, the same
    operations, the same area."""
    cdef Py_ssize_t r
    cdef long long tp = 0, fp = 0, dp, dn, twice_area = 0, width = 0
    cdef double hi_count = hi * n
    cdef double acc = 0.0
    exhausted[0] = False
    for r in range(first_run, stop_run):
        dp = cum_pos[pos_end[r]] - tp
        dn = cum_neg[neg_end[r]] - fp
        if dn > 0:
            add_segment(tp, fp, dp, dn, m, n, lo, hi, floor, &twice_area, &width, &acc)
        tp += dp
        fp += dn
        if fp >= hi_count:
            break
    else:
        exhausted[0] = True
        return 0.0
    return twice_area / (2.0 * m * n) - floor * (width / n) + acc


def gather_resample_areas(const int[:, ::1] pos_slot, const int[:, ::1] neg_slot,
                          const int[:, ::1] run_of_pos_entry,
                          const int[:, ::1] run_of_neg_entry,
                          const long long[::1] pos_end, const long long[::1] neg_end,
                          const long long[::1] run_start, const long long[::1] prefix_runs,
                          Py_ssize_t m, Py_ssize_t n, Py_ssize_t k_pos, Py_ssize_t k_neg,
                          const long long[::1] in_prefix_pos,
                          const long long[::1] in_prefix_neg, uint64_t[::1] state,
                          double lo, double hi, double floor):
    """Clipped ROC areas of a block of resamples of several score vectors, by gathering.

    The same resamples and areas as :func:`resample_areas` on the complete
    layout (the same draws in the same order from ``state``; the same runs and
    integer walk), computed the other way round: each draw adds one to its
    slot's count, then each score sums the counts of its own prefix's sorted
    entries (a running sum: :func:`running_counts`) and walks its runs, reading
    each run's counts off the running sums (:func:`cum_walk`).  With S
    score vectors a draw so costs one increment instead of S (scattered into S
    run tables), and a score reads only the entries of its own prefix: the
    cheaper way when S >= 2 and the rankers' prefixes differ.

    Parameters
    ----------
    pos_slot, neg_slot : int32 arrays of shape (S, m) and (S, n)
        The slot of each score's sorted entries.
    run_of_pos_entry, run_of_neg_entry : int32 arrays of shape (S, m) and (S, n)
        The run (global index) of each score's sorted entries (checked for shape
        only: the runs' ends ``pos_end`` / ``neg_end`` say the same).
    pos_end, neg_end : int64 arrays of shape (R,)
        Every score's runs (:func:`merged_runs`), score after score; the values
        index that score's sorted entries.
    run_start, prefix_runs, m, n, k_pos, k_neg, in_prefix_pos, in_prefix_neg, state, lo, hi, floor
        As in :func:`resample_areas` (``state`` is not updated: the block never
        stops early).

    Returns
    -------
    areas : float64 array of shape (B, S)
    """
    cdef Py_ssize_t n_scores = pos_slot.shape[0], n_resamples = in_prefix_pos.shape[0]
    cdef Py_ssize_t b, s, i, j, run, first
    cdef double area
    cdef bint exhausted, full, was_full = False
    if neg_slot.shape[0] != n_scores or run_start.shape[0] != n_scores + 1 \
            or prefix_runs.shape[0] != n_scores:
        raise ValueError("slots and runs disagree on the number of score vectors")
    if pos_slot.shape[1] != m or neg_slot.shape[1] != n \
            or run_of_pos_entry.shape[0] != n_scores or run_of_neg_entry.shape[0] != n_scores \
            or run_of_pos_entry.shape[1] != m or run_of_neg_entry.shape[1] != n:
        raise ValueError("every slot and entry of each class is needed")
    if pos_end.shape[0] != neg_end.shape[0] or run_start[0] != 0 \
            or run_start[n_scores] != pos_end.shape[0]:
        raise ValueError("runs and scores disagree")
    for s in range(n_scores):
        if not (0 <= prefix_runs[s] <= run_start[s + 1] - run_start[s]) \
                or run_start[s + 1] <= run_start[s] or pos_end[run_start[s + 1] - 1] != m \
                or neg_end[run_start[s + 1] - 1] != n:
            raise ValueError("each score's runs must cover its sorted entries")
    if not (0 < k_pos <= m and 0 < k_neg <= n):
        raise ValueError("prefix sizes must be in [1, class size]")
    if m >= 2 ** 31 or n >= 2 ** 31:
        raise ValueError("a class of 2**31 rows or more is beyond the gathering kernel")
    if in_prefix_neg.shape[0] != n_resamples:
        raise ValueError("in_prefix_pos and in_prefix_neg differ in length")
    for b in range(n_resamples):
        if not (0 <= in_prefix_pos[b] <= m and 0 <= in_prefix_neg[b] <= n) \
                or (k_pos == m and in_prefix_pos[b] != m) \
                or (k_neg == n and in_prefix_neg[b] != n):
            raise ValueError("draws in the prefix must lie in [0, class size], all of them "
                             "when the prefix is the whole class")
    if state.shape[0] != 6 or (state[0] | state[1] | state[2] | state[3]) == 0:
        raise ValueError("state must be 6 uint64 words, the first four not all zero")
    areas = np.empty((n_resamples, n_scores), dtype=np.float64)
    cdef double[:, ::1] areas_v = areas
    cdef int[::1] slot_pos = np.zeros(m, dtype=np.intc)
    cdef int[::1] slot_neg = np.zeros(n, dtype=np.intc)
    # running sums of the entries' counts (cum[0] = 0), one per class, reused by every score
    cdef int[::1] cum_pos = np.zeros(m + 1, dtype=np.intc)
    cdef int[::1] cum_neg = np.zeros(n + 1, dtype=np.intc)
    cdef Xoshiro gen
    gen = xoshiro_from(state)
    with nogil:
        for b in range(n_resamples):
            memset(&slot_pos[0], 0, (m if was_full else k_pos) * sizeof(int))
            memset(&slot_neg[0], 0, (n if was_full else k_neg) * sizeof(int))
            count_draws(&gen, 0, k_pos, in_prefix_pos[b], slot_pos)
            count_draws(&gen, 0, k_neg, in_prefix_neg[b], slot_neg)
            full = False
            for s in range(n_scores):
                # the prefix's runs hold drawn rows only: gather them and walk
                first = run_start[s]
                run = first + prefix_runs[s]
                i = pos_end[run - 1] if run > first else 0
                j = neg_end[run - 1] if run > first else 0
                running_counts(pos_slot[s], slot_pos, 0, i, cum_pos)
                running_counts(neg_slot[s], slot_neg, 0, j, cum_neg)
                area = cum_walk(cum_pos, cum_neg, pos_end, neg_end, first, run, <double>m,
                                <double>n, lo, hi, floor, &exhausted)
                if exhausted:
                    # past the prefix: the rest must be drawn (as resample_areas: the rest
                    # of each class, positives first), then every entry counts
                    if not full:
                        count_draws(&gen, k_pos, m - k_pos, m - in_prefix_pos[b], slot_pos)
                        count_draws(&gen, k_neg, n - k_neg, n - in_prefix_neg[b], slot_neg)
                        full = True
                    running_counts(pos_slot[s], slot_pos, i, m, cum_pos)
                    running_counts(neg_slot[s], slot_neg, j, n, cum_neg)
                    area = cum_walk(cum_pos, cum_neg, pos_end, neg_end, first,
                                    run_start[s + 1], <double>m, <double>n, lo, hi, floor,
                                    &exhausted)
                areas_v[b, s] = area
            was_full = full
    return areas


cdef void zero_runs(int[::1] run_pos, int[::1] run_neg, Py_ssize_t start,
                    Py_ssize_t stop) noexcept nogil:
    if stop > start:
        memset(&run_pos[start], 0, (stop - start) * sizeof(int))
        memset(&run_neg[start], 0, (stop - start) * sizeof(int))


def merged_runs(const double[::1] pos, const double[::1] neg, double cutoff):
    """Cut the merged descending order of two sorted classes into runs.

    A run is a maximal stretch of positive-only tie groups, of negative-only
    tie groups, or one tie group holding both classes: a straight piece of the
    ROC curve whatever the multiplicities.  Runs also break where the scores
    pass below ``cutoff`` (the end of the drawn prefix).

    Returns
    -------
    pos_end, neg_end : int64 arrays of shape (R,)
        After run ``r``, the first positive / negative not yet consumed.
    n_prefix_runs : int
        Runs whose scores are all ``>= cutoff``.
    """
    cdef Py_ssize_t n_pos = pos.shape[0], n_neg = neg.shape[0]
    pos_end_a = np.empty(n_pos + n_neg + 1, dtype=np.int64)
    neg_end_a = np.empty(n_pos + n_neg + 1, dtype=np.int64)
    cdef long long[::1] pos_end = pos_end_a, neg_end = neg_end_a
    cdef Py_ssize_t i = 0, j = 0, r = 0, n_prefix = -1, i0, j0
    cdef int kind, last_kind = -1          # 0: positives only, 1: negatives only, 2: both
    cdef bint last_above = True, above
    cdef double n_passed = 0.0             # (the walk's unit weights, not read)
    with nogil:
        while i < n_pos or j < n_neg:
            i0, j0 = i, j
            above = next_tie_group(pos, neg, _NO_COUNTS, _NO_SLOTS, _NO_COUNTS, _NO_SLOTS,
                                   &i, &j, 1, &n_passed, &n_passed) >= cutoff
            kind = 0 if j == j0 else (1 if i == i0 else 2)
            if r > 0 and kind == last_kind and kind != 2 and above == last_above:
                r -= 1                     # extends the previous run
            elif last_above and not above:
                n_prefix = r
            pos_end[r] = i
            neg_end[r] = j
            r += 1
            last_kind = kind
            last_above = above
    if n_prefix < 0:
        n_prefix = r
    return pos_end_a[:r].copy(), neg_end_a[:r].copy(), n_prefix


def resample_areas(const int[:, ::1] run_of_pos_slot, const int[:, ::1] run_of_neg_slot,
                   const long long[::1] run_start, const long long[::1] prefix_runs,
                   const long long[::1] touched_runs, Py_ssize_t m, Py_ssize_t n,
                   Py_ssize_t k_pos, Py_ssize_t k_neg,
                   const long long[::1] in_prefix_pos, const long long[::1] in_prefix_neg,
                   uint64_t[::1] state, double lo, double hi, double floor,
                   grid=None, bint can_complete=True, bint complete=False,
                   int[::1] counts_pos=None, int[::1] counts_neg=None):
    """Clipped ROC areas of a block of stratified bootstrap resamples.

    Parameters
    ----------
    run_of_pos_slot, run_of_neg_slot : int32 arrays of shape (S, m) and (S, n)
        For each score vector, the run (a global index, see :func:`merged_runs`)
        holding the row of each multiplicity slot.  Slots ``< k_*`` form the
        prefix: every row some score vector can reach FPR ``hi`` through.
        Without ``can_complete`` only the prefix's columns are needed.
    run_start : int64 array of shape (S + 1,)
        Score ``s`` owns the runs ``run_start[s] <= r < run_start[s + 1]``.
    prefix_runs : int64 array of shape (S,)
        How many of its runs hold only prefix rows (scores above its cutoff).
    touched_runs : int64 array of shape (S,)
        How many of its runs (from its first) a prefix slot can fall in.
    m, n : int
        The class sizes (the resamples' sizes).
    k_pos, k_neg : int
        Prefix sizes.
    in_prefix_pos, in_prefix_neg : int64 arrays of shape (B,)
        Per resample, how many of the class's draws land in its prefix
        (Binomial(m, k_pos/m), Binomial(n, k_neg/n)).
    state : uint64 array of shape (6,)
        This block's xoshiro256** generator: four state words (not all zero), the
        spare half-output and whether it is valid.  Updated in place when the
        block stops early (below).
    lo, hi, floor : float
        The area of max(TPR - floor, 0) over FPR in [lo, hi].
    grid : float64 array of shape (G,) or None
        FPRs at which to return the resampled curves' heights (S = 1 only).
    can_complete : bool, default=True
        The layout holds every row (runs and slots beyond the prefix).  Without
        it, a resample that runs out of its prefix stops the block: ``state``
        then holds the generator as that resample began, for the caller to
        resume there on the complete layout.
    complete : bool
        Draw every multiplicity, not only the prefix's (tests).
    counts_pos, counts_neg : int32 arrays of shape (m,) and (n,), optional
        When given, the last resample's multiplicities by slot (tests).

    Returns
    -------
    areas : float64 array of shape (B, S)
    heights : float64 array of shape (B, G) (G = 0 without ``grid``)
    n_done : int
        Resamples computed (``B`` unless the block stopped early).
    """
    cdef Py_ssize_t n_scores = run_of_pos_slot.shape[0]
    cdef Py_ssize_t n_resamples = in_prefix_pos.shape[0], n_runs, n_done
    cdef Py_ssize_t b, s
    cdef bint exhausted, full, record = counts_pos is not None
    cdef double area
    if run_of_neg_slot.shape[0] != n_scores or run_start.shape[0] != n_scores + 1 \
            or prefix_runs.shape[0] != n_scores or touched_runs.shape[0] != n_scores:
        raise ValueError("slots and runs disagree on the number of score vectors")
    n_runs = run_start[n_scores]
    if in_prefix_neg.shape[0] != n_resamples:
        raise ValueError("in_prefix_pos and in_prefix_neg differ in length")
    if not (0 < k_pos <= m and 0 < k_neg <= n):
        raise ValueError("prefix sizes must be in [1, class size]")
    if run_of_pos_slot.shape[1] < (m if can_complete else k_pos) \
            or run_of_neg_slot.shape[1] < (n if can_complete else k_neg):
        raise ValueError("run_of_*_slot must cover the prefix (every slot with can_complete)")
    if complete and not can_complete:
        raise ValueError("complete draws need the complete layout")
    if m >= 2 ** 32 or n >= 2 ** 32:
        raise ValueError("a class of 2**32 rows or more is beyond the bootstrap's draws")
    for s in range(n_scores):
        if not (0 <= prefix_runs[s] <= touched_runs[s] <= run_start[s + 1] - run_start[s]):
            raise ValueError("prefix_runs <= touched_runs <= runs of the score, violated")
    for b in range(n_resamples):
        if not (0 <= in_prefix_pos[b] <= m and 0 <= in_prefix_neg[b] <= n):
            raise ValueError("draws in the prefix must lie in [0, class size]")
    if state.shape[0] != 6 or (state[0] | state[1] | state[2] | state[3]) == 0:
        raise ValueError("state must be 6 uint64 words, the first four not all zero")
    cdef double[::1] grid_v = (np.empty(0) if grid is None
                               else np.ascontiguousarray(grid, dtype=np.float64))
    if grid is not None and n_scores != 1:
        raise ValueError("a grid of heights is for one score vector")
    heights = np.zeros((n_resamples, grid_v.shape[0]), dtype=np.float64)
    cdef double[:, ::1] heights_v = heights
    areas = np.empty((n_resamples, n_scores), dtype=np.float64)
    cdef double[:, ::1] areas_v = areas
    if record and (counts_neg is None or counts_pos.shape[0] != m
                   or counts_neg.shape[0] != n):
        raise ValueError("counts_pos and counts_neg: both, of the classes' sizes")
    cdef int[::1] no_counts = np.zeros(0, dtype=np.intc)
    cdef int[::1] slot_pos = counts_pos if record else no_counts
    cdef int[::1] slot_neg = counts_neg if record else no_counts
    cdef int[::1] run_pos = np.zeros(n_runs, dtype=np.intc)
    cdef int[::1] run_neg = np.zeros(n_runs, dtype=np.intc)
    cdef Xoshiro gen, at_start
    gen = xoshiro_from(state)
    n_done = n_resamples
    with nogil:
        for b in range(n_resamples):
            at_start = gen
            for s in range(n_scores):
                zero_runs(run_pos, run_neg, run_start[s], run_start[s] + touched_runs[s])
            if record:
                memset(&slot_pos[0], 0, m * sizeof(int))
                memset(&slot_neg[0], 0, n * sizeof(int))
            scatter_draws(&gen, run_of_pos_slot, run_pos, 0, k_pos, in_prefix_pos[b],
                          slot_pos, record)
            scatter_draws(&gen, run_of_neg_slot, run_neg, 0, k_neg, in_prefix_neg[b],
                          slot_neg, record)
            full = False
            s = 0
            while s < n_scores:
                if complete and not full:
                    exhausted = True
                else:
                    area = run_walk(run_pos, run_neg, run_start[s],
                                    run_start[s + 1] if full else run_start[s] + prefix_runs[s],
                                    <double>m, <double>n, lo, hi, floor, grid_v, heights_v[b],
                                    &exhausted)
                if exhausted and not can_complete:
                    break
                if exhausted:
                    # the prefix fell short (or every count is asked for): draw the rest
                    # exactly, then walk every score again
                    for s in range(n_scores):
                        zero_runs(run_pos, run_neg, run_start[s] + touched_runs[s],
                                  run_start[s + 1])
                    scatter_draws(&gen, run_of_pos_slot, run_pos, k_pos, m - k_pos,
                                  m - in_prefix_pos[b], slot_pos, record)
                    scatter_draws(&gen, run_of_neg_slot, run_neg, k_neg, n - k_neg,
                                  n - in_prefix_neg[b], slot_neg, record)
                    full = True
                    s = 0
                    continue
                areas_v[b, s] = area
                s += 1
            if s < n_scores:
                # stopped: hand back the generator as this resample began
                n_done = b
                gen = at_start
                break
    if n_done < n_resamples:
        state[0], state[1], state[2], state[3] = gen.s0, gen.s1, gen.s2, gen.s3
        state[4] = gen.spare
        state[5] = 1 if gen.has_spare else 0
    return areas, heights, n_done


def weighted_areas(const double[:, ::1] pos, const long long[:, ::1] pos_slot,
                   const double[:, ::1] neg, const long long[:, ::1] neg_slot,
                   const int[::1] counts_pos, const int[::1] counts_neg,
                   double lo, double hi, double floor, grid=None, totals=None):
    """The areas (and grid heights) of the rows counted ``counts_*[slot]`` times each.

    All ones is the sample itself (equal to :func:`pauc.metrics.partial_auc`
    exactly); any other non-negative counts are one resample.  The rates are
    normalised by ``totals = (tp_total, fp_total)``, by default the counts'
    sums (``m`` and ``n`` for a bootstrap resample); with the top of each
    class only (a prefix), give the classes' totals.

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
    if totals is not None:
        total_pos, total_neg = totals
    if total_pos <= 0 or total_neg <= 0:
        raise ValueError("the counts leave a class empty")
    cdef double[::1] grid_v = (np.empty(0) if grid is None
                               else np.ascontiguousarray(grid, dtype=np.float64))
    heights = np.zeros((n_scores, grid_v.shape[0]), dtype=np.float64)
    areas = np.empty(n_scores, dtype=np.float64)
    cdef double[:, ::1] heights_v = heights
    cdef double[::1] areas_v = areas
    with nogil:
        for s in range(n_scores):
            areas_v[s] = walk(pos[s], pos_slot[s], neg[s], neg_slot[s], counts_pos, counts_neg,
                              <double>total_pos, <double>total_neg, lo, hi, floor,
                              grid_v, heights_v[s])
    return (areas, heights) if grid is not None else areas
