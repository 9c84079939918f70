# cython: language_level=3
"""Weighted count of discordant pairs: the hot loop of the Kendall τ distance.

Given the rows sorted by the first ranking (ties broken by the second, both
ascending), a pair i < j is discordant exactly when ``b[i] > b[j]``; a Fenwick
tree over the dense ranks of ``b`` accumulates, for each j, the weight of the
earlier rows ranked strictly above it by ``b``.  O(n log n), no pairs formed.
"""

import numpy as np
cimport numpy as cnp

cnp.import_array()


def weighted_inversions(const cnp.int64_t[::1] b_rank, const double[::1] w, Py_ssize_t n_levels):
    """Σ_{i<j, b_rank[i] > b_rank[j]} w[i]·w[j].

    Parameters
    ----------
    b_rank : int64 array of shape (n,)
        Dense ranks 0..n_levels-1 of the second ranking, rows already in the
        order of the first ranking (ties of the first broken by ``b_rank``).
    w : float64 array of shape (n,)
    n_levels : int
        Number of distinct values in ``b_rank``.
    """
    cdef Py_ssize_t n = b_rank.shape[0]
    cdef double[::1] tree = np.zeros(n_levels + 1, dtype=np.float64)
    cdef double total = 0.0, seen = 0.0, below, out = 0.0
    cdef Py_ssize_t j, pos
    with nogil:
        for j in range(n):
            # weight of earlier rows with rank <= b_rank[j] (prefix sum)
            below = 0.0
            pos = b_rank[j] + 1
            while pos > 0:
                below = below + tree[pos]
                pos = pos - (pos & -pos)
            out = out + w[j] * (seen - below)
            pos = b_rank[j] + 1
            while pos <= n_levels:
                tree[pos] = tree[pos] + w[j]
                pos = pos + (pos & -pos)
            seen = seen + w[j]
    return out
