# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of the oblivious-tree booster (:mod:`pauc.boost._oblivious`).

An oblivious (symmetric) tree of depth ``D`` asks the same question -- feature
``f_d`` above border ``b_d`` -- of every row at level ``d``, so a row's leaf is
the ``D``-bit number of its answers (Prokhorenkova et al. 2018, Section 5;
Dorogush et al. 2018).  A level is chosen by one pass over the rows per
feature: per (leaf, bin) histograms of the weighted gradient and of the
weights, then, for every border, the score of splitting *every* current leaf
there, summed over the leaves.

The score of a candidate tree with leaf values ``a_l = -G_l / (W_l + lambda)``
(the regularised least-squares fit of the negative gradient) is

* ``"l2"``: ``sum_l G_l^2 / (W_l + lambda)``, the fall of the squared error;
* ``"cosine"``: that sum divided by ``sqrt(sum_l G_l^2 W_l / (W_l + lambda)^2)``,
  the cosine between the gradient and the tree's outputs up to a constant
  (CatBoost's default score function).

Rows are quantised (``uint8`` codes, at most 255 bins); the codes are stored
feature-major so that a feature's pass reads one contiguous row of codes.

References
----------
Prokhorenkova, L., Gusev, G., Vorobev, A., Dorogush, A. V. and Gulin, A.
"CatBoost: unbiased boosting with categorical features." NeurIPS 2018.

Dorogush, A. V., Ershov, V. and Gulin, A. "CatBoost: gradient boosting with
categorical features support." Workshop on ML Systems, NIPS 2017.
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport sqrt, INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.stdint cimport uint8_t, int32_t, int64_t

cnp.import_array()


def best_split(const uint8_t[:, ::1] codes, const int32_t[::1] leaf,
               const double[::1] weighted_grad, const double[::1] weight,
               const int32_t[::1] n_bins, const int64_t[::1] offsets,
               int n_leaves, double l2, bint cosine, const double[::1] noise):
    """The best (feature, border) of one level: every current leaf split there.

    Parameters
    ----------
    codes : uint8 array of shape (n_features, n_rows)
        Quantised rows, feature-major; bin ``b`` of feature ``f`` lies above
        border ``b - 1`` and not above border ``b``.
    leaf : int32 array of shape (n_rows,)
        Each row's leaf in the tree so far (``0 .. n_leaves - 1``).
    weighted_grad, weight : float64 arrays of shape (n_rows,)
        ``w_i g_i`` and ``w_i`` (bootstrap weights; 0 leaves a row out).
    n_bins : int32 array of shape (n_features,)
        Bins of each feature (its borders + 1).
    offsets : int64 array of shape (n_features + 1,)
        Start of each feature's borders in ``noise``.
    n_leaves : int
    l2 : float
        ``lambda`` of the module docstring.
    cosine : bool
        The cosine score, else the ``"l2"`` score.
    noise : float64 array of shape (offsets[-1],)
        Added to each border's score (random strength; zeros for none).

    Returns
    -------
    feature, border : int
        ``-1, -1`` when no feature has a border.
    score : float
    l2_score : float
        The ``"l2"`` score of that split without noise (its fall of the
        squared error, for the feature's gain).
    """
    cdef Py_ssize_t n_features = codes.shape[0], n_rows = codes.shape[1]
    cdef Py_ssize_t max_bins = 1, f, i, l, b, base
    cdef int best_f = -1, best_b = -1, nb
    cdef double best = -INFINITY, best_l2 = 0.0, g_left, w_left, g_right, w_right, g_tot, w_tot, s
    cdef double num, den, prev_num, prev_den
    cdef double *G
    cdef double *W
    cdef double *NUM
    cdef double *DEN
    for f in range(n_features):
        if n_bins[f] > max_bins:
            max_bins = n_bins[f]
    G = <double *> malloc(n_leaves * max_bins * sizeof(double))
    W = <double *> malloc(n_leaves * max_bins * sizeof(double))
    NUM = <double *> malloc(max_bins * sizeof(double))
    DEN = <double *> malloc(max_bins * sizeof(double))
    if G == NULL or W == NULL or NUM == NULL or DEN == NULL:
        free(G); free(W); free(NUM); free(DEN)
        raise MemoryError()
    try:
        with nogil:
            for f in range(n_features):
                nb = n_bins[f]
                if nb < 2:
                    continue
                memset(G, 0, n_leaves * nb * sizeof(double))
                memset(W, 0, n_leaves * nb * sizeof(double))
                memset(NUM, 0, nb * sizeof(double))
                memset(DEN, 0, nb * sizeof(double))
                for i in range(n_rows):
                    base = leaf[i] * nb + codes[f, i]
                    G[base] += weighted_grad[i]
                    W[base] += weight[i]
                for l in range(n_leaves):
                    base = l * nb
                    g_tot = 0.0
                    w_tot = 0.0
                    for b in range(nb):
                        g_tot = g_tot + G[base + b]
                        w_tot = w_tot + W[base + b]
                    g_left = 0.0
                    w_left = 0.0
                    prev_num = 0.0
                    prev_den = 0.0
                    # border b: bins 0..b go left.  The leaf's term changes only at
                    # a non-empty bin, so NUM and DEN receive its differences there
                    # (prefix-summed below): divisions at non-empty cells only
                    for b in range(nb - 1):
                        if b > 0 and W[base + b] == 0.0 and G[base + b] == 0.0:
                            continue
                        g_left = g_left + G[base + b]
                        w_left = w_left + W[base + b]
                        g_right = g_tot - g_left
                        w_right = w_tot - w_left
                        num = (g_left * g_left / (w_left + l2)
                               + g_right * g_right / (w_right + l2))
                        NUM[b] += num - prev_num
                        prev_num = num
                        if cosine:
                            den = (g_left * g_left * w_left / ((w_left + l2) * (w_left + l2))
                                   + g_right * g_right * w_right
                                   / ((w_right + l2) * (w_right + l2)))
                            DEN[b] += den - prev_den
                            prev_den = den
                for b in range(1, nb - 1):
                    NUM[b] += NUM[b - 1]
                    DEN[b] += DEN[b - 1]
                for b in range(nb - 1):
                    num = NUM[b]
                    if cosine:
                        den = DEN[b]
                        s = num / sqrt(den) if den > 0.0 else 0.0
                    else:
                        s = num
                    s = s + noise[offsets[f] + b]
                    if s > best:
                        best, best_f, best_b, best_l2 = s, <int> f, <int> b, num
    finally:
        free(G); free(W); free(NUM); free(DEN)
    return best_f, best_b, best, best_l2


def descend(const uint8_t[:, ::1] codes, int32_t[::1] leaf, int feature, int border):
    """One level down: ``leaf = 2 leaf + (code of feature > border)``, in place."""
    cdef Py_ssize_t i, n_rows = codes.shape[1]
    with nogil:
        for i in range(n_rows):
            leaf[i] = 2 * leaf[i] + (codes[feature, i] > border)


def leaves_of(const uint8_t[:, ::1] codes, const int32_t[::1] features,
              const int32_t[::1] borders):
    """Each row's leaf in the tree asking ``features[d] > borders[d]`` at level ``d``."""
    cdef Py_ssize_t i, d, n_rows = codes.shape[1], depth = features.shape[0]
    cdef cnp.ndarray[int32_t, ndim=1] out = np.zeros(n_rows, dtype=np.int32)
    cdef int32_t[::1] leaf = out
    with nogil:
        for i in range(n_rows):
            for d in range(depth):
                leaf[i] = 2 * leaf[i] + (codes[features[d], i] > borders[d])
    return out


def add_trees(const uint8_t[:, ::1] codes, const int32_t[:, ::1] features,
              const int32_t[:, ::1] borders, const double[:, ::1] values,
              Py_ssize_t start, Py_ssize_t stop, double[::1] scores):
    """Add trees ``start .. stop - 1`` (rows of ``features``, ``borders``,
    ``values``) to ``scores``, in place."""
    cdef Py_ssize_t i, t, d, depth = features.shape[1], n_rows = codes.shape[1]
    cdef int32_t leaf
    with nogil:
        for i in range(n_rows):
            for t in range(start, stop):
                leaf = 0
                for d in range(depth):
                    leaf = 2 * leaf + (codes[features[t, d], i] > borders[t, d])
                scores[i] += values[t, leaf]
