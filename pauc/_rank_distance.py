"""Distances between two rankings with ties: Kendall τ and Spearman (ρ, footrule).

A ranking of K items is given as a vector of K numbers; only their order
matters, a larger value meaning *ranked higher*, and equal values are tied
(a total preorder, Ranking Forests §2.2 and App. A).  Ranks are **mid-ranks**
(ties share the average of the positions they occupy), as in its App. A
and in the lecture notes ("Distances between rankings").

* Kendall (§3.2.1, before eq. (1)):
  ``d_τ = Σ_{i<j} U_ij`` with ``U_ij = 1{discordant} + ½·1{tied in the first
  only} + ½·1{tied in the second only}``; a pair tied in both costs 0.
  Computed in O(K log K) by sorting and a weighted inversion count
  (:mod:`pauc._inversions`), never by forming the K² pairs.  With
  ``sample_weight`` every pair counts ``w_i·w_j``: this is the cell form
  (4) of the probabilistic Kendall distance, ``d_τX = 2 Σ_{k<l} μ_k μ_l U_kl``.
* Spearman: ``d_2 = Σ_i (R(z_i) − R′(z_i))²`` (eq. (3)) and the footrule
  ``d_1 = Σ_i |R(z_i) − R′(z_i)|`` (eq. (2)).

References
----------
Clémençon, Depecker & Vayatis (2013), Ranking Forests: §2.2, §3.2.1, App. A;
Clémençon, lecture notes on statistical ranking. Full entries in
``docs/references.rst``.
"""

import numpy as np
from scipy.stats import rankdata
from sklearn.utils import column_or_1d

from ._inversions import weighted_inversions

__all__ = ["kendall_tau_distance", "spearman_distance"]


def _check_pair(a, b):
    a = column_or_1d(a).astype(np.float64, copy=False)
    b = column_or_1d(b).astype(np.float64, copy=False)
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"the two rankings differ in length: {a.shape[0]} != {b.shape[0]}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("rankings must not contain NaN or infinity")
    return a, b


def _tied_pairs_weight(keys, w):
    """Σ over groups of equal ``keys`` of Σ_{i<j in group} w_i w_j."""
    if keys.shape[0] == 0:
        return 0.0
    keys = keys.reshape(keys.shape[0], -1)
    order = np.lexsort(keys.T[::-1])
    sorted_keys = keys[order]
    new_group = np.concatenate(([True], (sorted_keys[1:] != sorted_keys[:-1]).any(axis=1)))
    inverse = np.empty(keys.shape[0], dtype=np.int64)
    inverse[order] = np.cumsum(new_group) - 1
    group_w = np.bincount(inverse, weights=w)
    group_w2 = np.bincount(inverse, weights=w * w)
    return 0.5 * float((group_w * group_w - group_w2).sum())


def kendall_tau_distance(a, b, *, sample_weight=None, normalize=False):
    """Kendall τ distance between two rankings with ties ([1]_, §3.2.1).

    ``d_τ = Σ_{i<j} w_i w_j U_ij`` where ``U_ij`` is 1 for a discordant pair,
    ½ for a pair tied in exactly one ranking and 0 otherwise.

    Parameters
    ----------
    a, b : array-like of shape (K,)
        The two rankings as scores (higher = ranked higher; equal = tied).
    sample_weight : array-like of shape (K,), default=None
        Weight (mass) of each item; ``None`` gives every item weight 1.
    normalize : bool, default=False
        If True, divide by ``Σ_{i<j} w_i w_j`` (the number of pairs when
        unweighted): the result is the empirical probabilistic Kendall distance
        ``d̂_τX`` of eq. (6), a discordance probability in [0, 1], and
        ``τ̃ = 1 − 2·d̂_τX``.  (The coefficient of eq. (1) is
        ``τ = 1 − 4 d_τ / (K(K−1)) = 1 − 2·normalized``.)

    Returns
    -------
    float

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010).
    .. [2] Clémençon, S. "A Lecture on Statistical Ranking." Lecture notes,
       Télécom ParisTech.

    Examples
    --------
    >>> from pauc.metrics import kendall_tau_distance
    >>> kendall_tau_distance([1, 2, 3], [3, 2, 1])
    3.0
    >>> kendall_tau_distance([1, 1, 2], [1, 2, 3])   # one pair tied in a only
    0.5
    """
    a, b = _check_pair(a, b)
    n = a.shape[0]
    if sample_weight is None:
        w = np.ones(n)
    else:
        w = column_or_1d(sample_weight).astype(np.float64)
        if w.shape[0] != n:
            raise ValueError(f"sample_weight has length {w.shape[0]}, expected {n}")
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("sample_weight must be finite and non-negative")
    if n < 2:
        return 0.0
    order = np.lexsort((b, a))
    _, b_rank = np.unique(b, return_inverse=True)
    b_rank = np.ascontiguousarray(b_rank.reshape(-1)[order], dtype=np.int64)
    w_sorted = np.ascontiguousarray(w[order])
    discordant = weighted_inversions(b_rank, w_sorted, int(b_rank.max()) + 1)
    tied_a = _tied_pairs_weight(a, w)
    tied_b = _tied_pairs_weight(b, w)
    tied_both = _tied_pairs_weight(np.column_stack((a, b)), w)
    d = discordant + 0.5 * (tied_a - tied_both) + 0.5 * (tied_b - tied_both)
    if normalize:
        total = w.sum()
        pairs = 0.5 * (total * total - float((w * w).sum()))
        return d / pairs if pairs > 0 else 0.0
    return float(d)


def spearman_distance(a, b, *, p=2, normalize=False):
    """Spearman distance between two rankings with ties, on mid-ranks.

    ``p=2``: ``d_2 = Σ_i (R(z_i) − R′(z_i))²`` ([1]_, eq. (3));
    ``p=1``: the footrule ``d_1 = Σ_i |R(z_i) − R′(z_i)|`` (eq. (2)).
    Mid-ranks follow App. A (tied items share the average position); the
    paper's constant −½ offset cancels in the difference.

    Parameters
    ----------
    a, b : array-like of shape (K,)
        The two rankings as scores (higher = ranked higher; equal = tied).
    p : {1, 2}, default=2
    normalize : bool, default=False
        If True return ``1 − ρ = 6 d_2 / (K(K²−1))`` (p=2) or
        ``1 − F = 3 d_1 / (K²−1)`` (p=1), the complements of the coefficients
        of eqs. (3) and (2).

    Returns
    -------
    float

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010).
    .. [2] Clémençon, S. "A Lecture on Statistical Ranking." Lecture notes,
       Télécom ParisTech.

    Examples
    --------
    >>> from pauc.metrics import spearman_distance
    >>> spearman_distance([1, 2, 3], [3, 2, 1])
    8.0
    >>> spearman_distance([1, 2, 3], [3, 2, 1], p=1)
    4.0
    """
    if p not in (1, 2):
        raise ValueError(f"p must be 1 (footrule) or 2 (Spearman rho), got {p!r}")
    a, b = _check_pair(a, b)
    k = a.shape[0]
    if k < 2:
        return 0.0
    diff = rankdata(a) - rankdata(b)
    if p == 1:
        d = float(np.abs(diff).sum())
        return 3.0 * d / (k * k - 1.0) if normalize else d
    d = float((diff * diff).sum())
    return 6.0 * d / (k * (k * k - 1.0)) if normalize else d


def labels_kendall_distance(a, b, n_a=None, n_b=None, *, normalize=False):
    """Kendall distance between two rankings given by small integer labels.

    Same value as ``kendall_tau_distance(a, b)`` (unit weights) for integer
    arrays, computed from the contingency table ``N[i, j] = #{a = i, b = j}``
    in O(n + n_a·n_b) instead of sorting: the fast path for comparing two
    ranking trees, whose rankings of points are their leaf indices (there
    rank ``0`` = best, i.e. pass ``-leaf`` or simply leaf indices for both:
    reversing both rankings leaves the distance unchanged).
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("a and b must be 1-d integer arrays of the same length")
    n = a.shape[0]
    if n < 2:
        return 0.0
    if (a < 0).any() or (b < 0).any():
        raise ValueError("labels must be non-negative integers")
    n_a = int(a.max()) + 1 if n_a is None else int(n_a)
    n_b = int(b.max()) + 1 if n_b is None else int(n_b)
    table = np.bincount(a * n_b + b, minlength=n_a * n_b).reshape(n_a, n_b).astype(np.float64)
    # below_left[i, j] = Σ_{i' > i, j' < j} N[i', j']: the cells discordant with (i, j).
    tail = table[::-1].cumsum(axis=0)[::-1]                         # rows i' >= i
    tail = np.vstack((tail[1:], np.zeros((1, n_b))))                  # rows i' > i
    below_left = np.hstack((np.zeros((n_a, 1)), tail.cumsum(axis=1)[:, :-1]))
    discordant = float((table * below_left).sum())
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    tied_a = float((rows * (rows - 1)).sum()) / 2
    tied_b = float((cols * (cols - 1)).sum()) / 2
    tied_both = float((table * (table - 1)).sum()) / 2
    d = discordant + 0.5 * (tied_a - tied_both) + 0.5 * (tied_b - tied_both)
    return d / (n * (n - 1) / 2) if normalize else d
