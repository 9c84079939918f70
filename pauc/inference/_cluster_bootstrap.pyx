# cython: language_level=3
"""The cluster bootstrap of ROC areas: whole groups drawn, rows weighted by them (Cython).

A cluster bootstrap resample draws groups (clusters) with replacement, within
strata of groups, as many from each stratum as it holds; a row then counts as
many times as its group was drawn.  As in :mod:`pauc.inference._bootstrap` the scores
are sorted once and a resample is a walk down the sorted classes adding
multiplicities, here read through the row's group: ``c[group[row]]``.  The
class totals of a resample (the resampled numbers of positives and negatives,
which vary when groups differ in size or composition) are summed over the
draws, so a resample costs O(groups) for the draws and O(rows walked) for each
score vector's walk, which stops at FPR ``hi``.

The resamples' walk is the row bootstrap's run by run walk
(:mod:`pauc.inference._bootstrap`): each score's merged order is cut into runs once
(stretches of positives only, of negatives only, or one tie group of both), a
run's resampled counts are summed from its rows' groups, and the segments
inside the window add exact integer counts.  The sample's own areas
(:func:`group_areas`) take the tie group by tie group walk, equal to
:func:`pauc.metrics.partial_auc` bit for bit; with one row per group and the
same multiplicities, they are the row bootstrap's areas.

References
----------
Davison, A. C. and Hinkley, D. V. "Bootstrap Methods and their Application."
Cambridge University Press, 1997 (Sec. 3.8, resampling clustered data).
Field, C. A. and Welsh, A. H. "Bootstrapping clustered data." Journal of the
Royal Statistical Society B 69(3), 2007.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memset

import numpy as np

from ._bootstrap cimport gather_entries, run_walk, walk, zero_runs
from .._random cimport Xoshiro, bounded_uint32, xoshiro_from
from .._ranking cimport next_tie_group


cdef void draw_groups(Xoshiro* gen, const long long[::1] stratum_groups,
                      const long long[::1] stratum_start, const long long[::1] group_pos,
                      const long long[::1] group_neg, int[::1] counts, long long* tp_total,
                      long long* fp_total) noexcept nogil:
    """One resample's group multiplicities (each stratum: as many uniform draws among
    its groups as it holds) and the resampled class totals."""
    cdef Py_ssize_t n_groups = counts.shape[0], k, d, g, start, size
    cdef long long tp = 0, fp = 0
    if n_groups:
        memset(&counts[0], 0, n_groups * sizeof(int))
    for k in range(stratum_start.shape[0] - 1):
        start = stratum_start[k]
        size = stratum_start[k + 1] - start
        for d in range(size):
            counts[stratum_groups[start + <Py_ssize_t>bounded_uint32(gen, <uint32_t>size)]] += 1
    # the class totals in one sequential pass (not a random read per draw)
    for g in range(n_groups):
        tp += counts[g] * group_pos[g]
        fp += counts[g] * group_neg[g]
    tp_total[0] = tp
    fp_total[0] = fp


cdef double tpr_walk(const double[::1] pos, const long long[::1] pos_group,
                     const double[::1] neg, const long long[::1] neg_group,
                     const int[::1] counts, double tp_total, double fp_total,
                     double fpr) noexcept nogil:
    """:func:`pauc.metrics.tpr_at_fpr` (threshold rule) of the rows counted as often
    as their group: the TPR after the last tie group whose FPR is at most ``fpr``
    (scores sorted descending; the same division and comparison as roc_curve's)."""
    cdef Py_ssize_t i = 0, j = 0
    cdef double tp = 0.0, fp = 0.0, tp_new, fp_new
    while i < pos.shape[0] or j < neg.shape[0]:
        tp_new = tp
        fp_new = fp
        next_tie_group(pos, neg, counts, pos_group, counts, neg_group, &i, &j, 1,
                       &tp_new, &fp_new)
        if fp_new / fp_total > fpr:
            break
        tp = tp_new
        fp = fp_new
    return tp / tp_total


def _check_layout(pos, pos_group, neg, neg_group, group_pos, group_neg):
    if pos.shape[0] != neg.shape[0] or pos.shape[0] != pos_group.shape[0] \
            or neg.shape[0] != neg_group.shape[0]:
        raise ValueError("scores and groups disagree on the number of score vectors")
    if pos.shape[1] != pos_group.shape[1] or neg.shape[1] != neg_group.shape[1]:
        raise ValueError("scores and their groups differ in length")
    if group_pos.shape[0] != group_neg.shape[0]:
        raise ValueError("group_pos and group_neg differ in length")
    n_groups = group_pos.shape[0]
    for groups in (pos_group, neg_group):
        if groups.size and (np.min(groups) < 0 or np.max(groups) >= n_groups):
            raise ValueError("group indices must lie in [0, number of groups)")


def group_areas(const double[:, ::1] pos, const long long[:, ::1] pos_group,
                const double[:, ::1] neg, const long long[:, ::1] neg_group,
                const long long[::1] group_pos, const long long[::1] group_neg,
                const int[::1] group_counts, double lo, double hi, double floor, grid=None):
    """The areas (and grid heights) of the rows counted as often as their group.

    Parameters
    ----------
    pos, neg : float64 arrays of shape (S, m) and (S, n)
        Each score vector's positives / negatives sorted descending.
    pos_group, neg_group : int64 arrays of shape (S, m) and (S, n)
        The group of each sorted entry.
    group_pos, group_neg : int64 arrays of shape (G,)
        Positives and negatives of each group.
    group_counts : int32 array of shape (G,)
        The multiplicity of each group (all ones: the sample itself).

    Returns
    -------
    areas : float64 array of shape (S,)
    heights : float64 array of shape (S, len(grid)), only with ``grid``
    """
    _check_layout(pos, pos_group, neg, neg_group, group_pos, group_neg)
    cdef Py_ssize_t n_groups = group_pos.shape[0], g, s, n_scores = pos.shape[0]
    if group_counts.shape[0] != n_groups:
        raise ValueError("group_counts must hold one count per group")
    cdef long long tp_total = 0, fp_total = 0
    for g in range(n_groups):
        if group_counts[g] < 0:
            raise ValueError("group counts must be non-negative")
        tp_total += group_counts[g] * group_pos[g]
        fp_total += group_counts[g] * group_neg[g]
    if tp_total <= 0 or fp_total <= 0:
        raise ValueError("the group counts leave a class empty")
    cdef double[::1] grid_v = (np.empty(0) if grid is None
                               else np.ascontiguousarray(grid, dtype=np.float64))
    heights = np.zeros((n_scores, grid_v.shape[0]), dtype=np.float64)
    areas = np.empty(n_scores, dtype=np.float64)
    cdef double[:, ::1] heights_v = heights
    cdef double[::1] areas_v = areas
    with nogil:
        for s in range(n_scores):
            areas_v[s] = walk(pos[s], pos_group[s], neg[s], neg_group[s], group_counts,
                              group_counts, <double>tp_total, <double>fp_total, lo, hi, floor,
                              grid_v, heights_v[s])
    return (areas, heights) if grid is not None else areas


def cluster_resample_areas(const int[:, ::1] pos_group, const int[:, ::1] neg_group,
                           const int[:, ::1] run_of_pos_entry,
                           const int[:, ::1] run_of_neg_entry,
                           const long long[::1] pos_end, const long long[::1] neg_end,
                           const long long[::1] run_start, const long long[::1] prefix_runs,
                           const long long[::1] group_pos, const long long[::1] group_neg,
                           const long long[::1] stratum_groups,
                           const long long[::1] stratum_start, Py_ssize_t n_resamples,
                           uint64_t[::1] state, double lo, double hi, double floor,
                           grid=None, int[:, ::1] counts_out=None):
    """Areas of a block of cluster bootstrap resamples.

    Resample ``b`` draws, for every stratum ``k``, ``stratum_start[k + 1] -
    stratum_start[k]`` groups uniformly with replacement among
    ``stratum_groups[stratum_start[k]:stratum_start[k + 1]]`` (xoshiro256**
    seeded by ``state``, in that order), and walks every score vector with
    the rows counted as often as their group.

    Parameters
    ----------
    pos_group, neg_group : int32 arrays of shape (S, m) and (S, n)
        The group of each sorted entry (int32: the walks stream through them).
    group_pos, group_neg
        As in :func:`group_areas`.
    pos_end, neg_end : int64 arrays of shape (R,)
        The runs of every score's merged order (:func:`pauc.inference._bootstrap.merged_runs`),
        score after score: after run ``r``, the first positive / negative (of
        that score's sorted entries) not yet consumed.
    run_start : int64 array of shape (S + 1,)
        Score ``s`` owns the runs ``run_start[s] <= r < run_start[s + 1]``.
    prefix_runs : int64 array of shape (S,)
        How many of its first runs a resample's walk is expected to need (any
        number >= 1: past them the walk redoes itself over every run, exactly).
    run_of_pos_entry, run_of_neg_entry : int32 arrays of shape (S, m) and (S, n)
        The run (global index) of each score's sorted entries.
    stratum_groups : int64 array of shape (G,)
        The groups, stratum after stratum.
    stratum_start : int64 array of shape (K + 1,)
    n_resamples : int
    state : uint64 array of shape (6,)
        The block's generator (four state words, not all zero; spare half-output
        and its flag).
    lo, hi, floor : float
        The area of max(TPR - floor, 0) over FPR in [lo, hi].
    grid : float64 array of shape (L,) or None
        FPRs at which to return the curves' heights (one score vector only).
    counts_out : int32 array of shape (n_resamples, G), optional
        Receives each resample's group multiplicities (tests, replays).

    Returns
    -------
    areas : float64 array of shape (n_resamples, S)
    heights : float64 array of shape (n_resamples, L), only with ``grid``
    """
    _check_layout(pos_group, pos_group, neg_group, neg_group, group_pos, group_neg)
    cdef Py_ssize_t n_groups = group_pos.shape[0], n_scores = pos_group.shape[0]
    cdef Py_ssize_t n_strata = stratum_start.shape[0] - 1, b, k, d, s, start, size, g
    cdef Py_ssize_t r, i, j, first, stop
    if run_start.shape[0] != n_scores + 1 or run_start[0] != 0 \
            or run_start[n_scores] != pos_end.shape[0] or neg_end.shape[0] != pos_end.shape[0]:
        raise ValueError("runs and scores disagree")
    if prefix_runs.shape[0] != n_scores or run_of_pos_entry.shape[0] != n_scores \
            or run_of_neg_entry.shape[0] != n_scores \
            or run_of_pos_entry.shape[1] != pos_group.shape[1] \
            or run_of_neg_entry.shape[1] != neg_group.shape[1]:
        raise ValueError("prefix runs and run tables: one row per score, one entry per row")
    for s in range(n_scores):
        if not 1 <= prefix_runs[s] <= run_start[s + 1] - run_start[s]:
            raise ValueError("prefix_runs must lie in [1, runs of the score]")
    for s in range(n_scores):
        if run_start[s + 1] <= run_start[s] \
                or pos_end[run_start[s + 1] - 1] != pos_group.shape[1] \
                or neg_end[run_start[s + 1] - 1] != neg_group.shape[1]:
            raise ValueError("each score's runs must cover its sorted entries")
    if stratum_groups.shape[0] != n_groups or n_strata < 1 or stratum_start[0] != 0 \
            or stratum_start[n_strata] != n_groups:
        raise ValueError("the strata must partition the groups")
    for k in range(n_strata):
        if stratum_start[k + 1] < stratum_start[k]:
            raise ValueError("stratum_start must be non-decreasing")
    if n_groups >= 2 ** 31:
        raise ValueError("2**31 groups or more are beyond the cluster bootstrap's counts")
    if state.shape[0] != 6 or (state[0] | state[1] | state[2] | state[3]) == 0:
        raise ValueError("state must be 6 uint64 words, the first four not all zero")
    cdef double[::1] grid_v = (np.empty(0) if grid is None
                               else np.ascontiguousarray(grid, dtype=np.float64))
    if grid is not None and n_scores != 1:
        raise ValueError("a grid of heights is for one score vector")
    heights = np.zeros((n_resamples, grid_v.shape[0]), dtype=np.float64)
    areas = np.empty((n_resamples, n_scores), dtype=np.float64)
    cdef double[:, ::1] heights_v = heights, areas_v = areas
    cdef int[::1] counts = np.zeros(n_groups, dtype=np.intc)
    cdef int[::1] run_pos = np.zeros(pos_end.shape[0], dtype=np.intc)
    cdef int[::1] run_neg = np.zeros(pos_end.shape[0], dtype=np.intc)
    cdef double area
    cdef bint exhausted
    cdef bint record = counts_out is not None
    if record and (counts_out.shape[0] != n_resamples or counts_out.shape[1] != n_groups):
        raise ValueError("counts_out must have shape (n_resamples, number of groups)")
    cdef long long tp_total = 0, fp_total = 0
    cdef Xoshiro gen
    gen = xoshiro_from(state)
    with nogil:
        for b in range(n_resamples):
            draw_groups(&gen, stratum_groups, stratum_start, group_pos, group_neg, counts,
                        &tp_total, &fp_total)
            if record and n_groups:
                counts_out[b, :] = counts
            for s in range(n_scores):
                # the runs' resampled counts over the score's prefix (one branch-free
                # pass), the walk; past the prefix (rare) every entry, the walk again
                first = run_start[s]
                stop = first + prefix_runs[s]
                i = pos_end[stop - 1]
                j = neg_end[stop - 1]
                zero_runs(run_pos, run_neg, first, stop)
                gather_entries(run_of_pos_entry[s], pos_group[s], counts, 0, i, run_pos)
                gather_entries(run_of_neg_entry[s], neg_group[s], counts, 0, j, run_neg)
                area = run_walk(run_pos, run_neg, first, stop, <double>tp_total,
                                <double>fp_total, lo, hi, floor, grid_v, heights_v[b],
                                &exhausted)
                if exhausted:
                    zero_runs(run_pos, run_neg, stop, run_start[s + 1])
                    gather_entries(run_of_pos_entry[s], pos_group[s], counts, i,
                                   pos_group.shape[1], run_pos)
                    gather_entries(run_of_neg_entry[s], neg_group[s], counts, j,
                                   neg_group.shape[1], run_neg)
                    area = run_walk(run_pos, run_neg, first, run_start[s + 1],
                                    <double>tp_total, <double>fp_total, lo, hi, floor, grid_v,
                                    heights_v[b], &exhausted)
                areas_v[b, s] = area
    return (areas, heights) if grid is not None else areas


def cluster_resample_tpr(const double[::1] pos, const long long[::1] pos_group,
                         const double[::1] neg, const long long[::1] neg_group,
                         const long long[::1] group_pos, const long long[::1] group_neg,
                         const long long[::1] stratum_groups,
                         const long long[::1] stratum_start, Py_ssize_t n_resamples,
                         uint64_t[::1] state, double fpr, const int[::1] group_counts=None):
    """TPR at FPR ``fpr`` (threshold rule) of a block of cluster resamples of one score
    vector, drawn as in :func:`cluster_resample_areas`; with ``group_counts`` (and
    ``n_resamples=1``) the rows counted as given instead (all ones: the sample).

    Returns
    -------
    tpr : float64 array of shape (n_resamples,)
    """
    _check_layout(np.asarray(pos)[None, :], np.asarray(pos_group)[None, :],
                  np.asarray(neg)[None, :], np.asarray(neg_group)[None, :], group_pos,
                  group_neg)
    cdef Py_ssize_t n_groups = group_pos.shape[0], b, g
    if stratum_groups.shape[0] != n_groups or stratum_start[0] != 0 \
            or stratum_start[stratum_start.shape[0] - 1] != n_groups:
        raise ValueError("the strata must partition the groups")
    if state.shape[0] != 6 or (state[0] | state[1] | state[2] | state[3]) == 0:
        raise ValueError("state must be 6 uint64 words, the first four not all zero")
    cdef int[::1] counts = np.zeros(n_groups, dtype=np.intc)
    cdef long long tp_total = 0, fp_total = 0
    if group_counts is not None:
        if group_counts.shape[0] != n_groups or n_resamples != 1:
            raise ValueError("group_counts: one count per group, for one resample")
        for g in range(n_groups):
            if group_counts[g] < 0:
                raise ValueError("group counts must be non-negative")
            counts[g] = group_counts[g]
            tp_total += group_counts[g] * group_pos[g]
            fp_total += group_counts[g] * group_neg[g]
        if tp_total <= 0 or fp_total <= 0:
            raise ValueError("the group counts leave a class empty")
    tpr = np.empty(n_resamples, dtype=np.float64)
    cdef double[::1] tpr_v = tpr
    cdef bint drawn = group_counts is None
    cdef Xoshiro gen
    gen = xoshiro_from(state)
    with nogil:
        for b in range(n_resamples):
            if drawn:
                draw_groups(&gen, stratum_groups, stratum_start, group_pos, group_neg, counts,
                            &tp_total, &fp_total)
            tpr_v[b] = tpr_walk(pos, pos_group, neg, neg_group, counts, <double>tp_total,
                                <double>fp_total, fpr)
    return tpr
