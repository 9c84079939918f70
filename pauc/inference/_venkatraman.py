"""Venkatraman's permutation tests: are two ROC curves the same curve?

DeLong's and the bootstrap's tests compare two areas; two ROC curves that cross
can have equal areas and still differ at every operating point. Venkatraman's
tests compare the curves themselves: the statistic is the area between two
"error curves" (false negatives plus false positives at every threshold), and its
null distribution comes from permuting ranks, not from a normal approximation.

* paired (Venkatraman & Begg, 1996): both rankers score the same rows. Each
  score is replaced by its rank among all rows (ties broken by row order, the
  paper's and pROC's ``ties.method = "first"``). At a cut after rank ``k`` the
  rows ranked at most ``k`` are called negative; the error count is ``e(k) =
  #positives ranked <= k + #negatives ranked > k``, and ``E = sum_k |e_A(k) -
  e_B(k)|``. Under the null hypothesis of one ROC curve, a row's two ranks are
  exchangeable: a permutation swaps them on a random half of the rows, breaks the
  ties this makes at random, re-ranks each column and recomputes ``E``.
  ``E`` is equal to pROC's ``roc.test(method = "venkatraman", paired = TRUE)``
  statistic, an integer.
* unpaired (Venkatraman, 2000): each ranker scores its own rows. Within each
  sample a row's score is replaced by its quantile in the mixture of the two
  classes with one mixing proportion ``π`` for both samples (the pooled share of
  positives): ``x = π F(t) + (1 - π) G(t)``, ``F`` and ``G`` the empirical
  distribution functions of the sample's positives and negatives. The error
  curve of a sample is ``e(x) = π F + (1 - π)(1 - G)`` against ``x``, piecewise
  linear from ``(0, 1 - π)`` to ``(1, π)``; two samples have one ROC curve
  exactly when they have one error curve, and ``E = ∫_0^1 |e_A(x) - e_B(x)| dx``
  (computed exactly). Under the null hypothesis the mixture quantiles of the
  positives of both samples are exchangeable, and so are the negatives'; a
  permutation reassigns them between the samples (class sizes kept), breaks ties
  at random, and recomputes ``E``.

  pROC 1.18's unpaired statistic is not this area in general. When both samples
  have the same numbers of cases and of controls it is the area from the later of
  the two curves' first knots on (the part before them left out); on other designs
  it is not an area between the two curves at all: it depends on the order of the
  two curves, is not 0 for one ROC curve sampled at different sizes, exceeds 1 (a
  perfect ranker on 1 + 1 rows against a reversed one on 50 + 50: 14.7), is 0 for a
  reversed ranker on 1 + 1 rows against a perfect one on 4 + 4 or more, and fails on
  some designs. pauc keeps the exact area (the probes and the rules tried are in
  tests/inference/test_inference_proc_47.py). On the random inputs of the tests the two
  statistics differ by a few per cent (median 1.8 %), and the p-values agree within
  Monte Carlo error.

The p-value is ``(1 + #{E* >= E}) / (1 + n_permutations)``: a permutation
p-value that is never 0 (pROC reports ``#{E* >= E} / n_permutations``; the two
differ by at most ``1 / n_permutations``).
"""

from dataclasses import dataclass, field

import numpy as np

from ._resampling import seed_sequence
from .._validation import check_binary_scores, check_int

# Paired permutations are computed in blocks, each a (permutations x rows) array of
# at most this many entries (32 MB of float64), whatever n_permutations and rows.
_BLOCK_ENTRIES = 2 ** 22


@dataclass(frozen=True, repr=False)
class VenkatramanTest:
    """Result of :func:`venkatraman_test`.

    Attributes
    ----------
    statistic : float
        ``E``, the area between the two error curves: an integer count for the
        paired test (pROC's ``E``), an area in [0, 1] for the unpaired test.
    pvalue : float
        ``(1 + #{permuted E >= E}) / (1 + n_permutations)``.
    paired : bool
    n_permutations : int
    mixing_proportion : float or None
        Unpaired only: the share of positives ``π`` of both samples together.
    permuted : float array of shape (n_permutations,)
        The statistic of every permutation (the null distribution).
    """

    statistic: float
    pvalue: float
    paired: bool
    n_permutations: int
    mixing_proportion: float = None
    permuted: np.ndarray = field(default=None, compare=False, repr=False)

    def __repr__(self):
        kind = "paired" if self.paired else "unpaired"
        return (f"VenkatramanTest({kind}, statistic={self.statistic:.6g}, "
                f"pvalue={self.pvalue:.4g}, n_permutations={self.n_permutations})")


def venkatraman_test(y_true, score_a, score_b, *, y_true_b=None, n_permutations=2000,
                     random_state=None, pos_label=None):
    """Venkatraman's permutation test that two ROC curves are the same curve.

    Paired (``y_true_b=None``): rankers A and B score the same rows, labelled
    ``y_true`` (Venkatraman & Begg [1]_). Unpaired: ranker A scores rows
    labelled ``y_true``, ranker B other rows labelled ``y_true_b`` (Venkatraman
    [2]_). The null hypothesis is one ROC curve at every operating point, not
    one area: crossing curves of equal AUC are told apart. The paired statistic
    equals pROC's ``roc.test(method = "venkatraman", paired = TRUE)`` [3]_; the
    p-values agree with pROC's up to Monte Carlo error (see the module
    :mod:`pauc.inference._venkatraman` for the statistics and for pROC's unpaired one).

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        Labels of the rows scored by ``score_a`` (and by ``score_b`` if paired).
    score_a : array of shape (n_samples,)
    score_b : array of shape (n_samples,) or (n_samples_b,)
    y_true_b : array of shape (n_samples_b,), default=None
        Labels of the rows scored by ``score_b``: the unpaired test. None: paired.
    n_permutations : int, default=2000
        pROC's ``boot.n``.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
    pos_label : label, default=None
        The positive class (of both label vectors), as in scikit-learn.

    Returns
    -------
    VenkatramanTest
        ``statistic``, ``pvalue``, ``permuted`` (the null distribution), ...

    References
    ----------
    .. [1] Venkatraman, E. S. and Begg, C. B. "A distribution-free procedure for
       comparing receiver operating characteristic curves from a paired
       experiment." Biometrika 83(4), 835-848, 1996.
    .. [2] Venkatraman, E. S. "A permutation test to compare receiver operating
       characteristic curves." Biometrics 56(4), 1134-1138, 2000.
    .. [3] Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez,
       J.-C. and Müller, M. "pROC: an open-source package for R and S+ to analyze
       and compare ROC curves." BMC Bioinformatics 12:77, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from pauc.metrics import venkatraman_test
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([1, 0], 50)
    >>> a = rng.normal(size=100) + y
    >>> venkatraman_test(y, a, a, n_permutations=200, random_state=0).statistic
    0.0
    """
    n_permutations = check_int(n_permutations, "n_permutations", 1)
    # exact_ranks: integer scores beyond 2**53 keep their order and ties (as ranks)
    is_pos_a, a, _, _ = check_binary_scores(y_true, score_a, pos_label=pos_label,
                                            exact_ranks=True)
    if y_true_b is None:
        _, b, _, _ = check_binary_scores(y_true, score_b, pos_label=pos_label, exact_ranks=True)
        return paired_test(is_pos_a, a, b, n_permutations, random_state)
    is_pos_b, b, _, _ = check_binary_scores(y_true_b, score_b, pos_label=pos_label,
                                            exact_ranks=True)
    rng = np.random.default_rng(seed_sequence(random_state))
    mixing = float((is_pos_a.sum() + is_pos_b.sum()) / (is_pos_a.size + is_pos_b.size))
    statistic, permuted = _unpaired(is_pos_a, a, is_pos_b, b, mixing, n_permutations, rng)
    return _result(statistic, permuted, False, mixing)


def paired_test(is_pos, a, b, n_permutations, random_state):
    """The paired test on checked rows (also :func:`pauc.metrics.compare_rankers`'s
    ``method="venkatraman"``)."""
    rng = np.random.default_rng(seed_sequence(random_state))
    statistic, permuted = _paired(is_pos, a, b, n_permutations, rng)
    return _result(statistic, permuted, True, None)


def _result(statistic, permuted, paired, mixing):
    # a tolerance for the float areas of the unpaired statistic: a permutation that
    # reproduces the observed curves must count as "at least as extreme"
    extreme = np.count_nonzero(permuted >= statistic - 1e-12 * max(1.0, abs(statistic)))
    pvalue = (1.0 + extreme) / (1.0 + permuted.shape[0])
    return VenkatramanTest(float(statistic), float(pvalue), paired, int(permuted.shape[0]),
                           mixing, permuted)


def first_ranks(score):
    """Ranks 0..n-1 of ``score``, ties broken by row order (R's ``ties.method =
    "first"``, Venkatraman & Begg's convention and pROC's default)."""
    order = np.argsort(score, kind="stable")
    ranks = np.empty(score.shape[0], dtype=np.int64)
    ranks[order] = np.arange(score.shape[0])
    return ranks


def _error_walk(sign_in_rank_order):
    """``e(k) - #negatives`` for k = 1..n along the last axis: the cumulative sum of
    +1 for a positive, -1 for a negative in increasing rank order (the ``#negatives``
    cancels between two rankers of the same rows)."""
    return np.cumsum(sign_in_rank_order, axis=-1)


def paired_statistic(is_pos, rank_a, rank_b):
    """Venkatraman & Begg's ``E = sum_k |e_A(k) - e_B(k)|`` from ranks 0..n-1."""
    sign = np.where(is_pos, 1, -1)
    walk_a = _error_walk(sign[np.argsort(rank_a)])
    walk_b = _error_walk(sign[np.argsort(rank_b)])
    return int(np.abs(walk_a - walk_b).sum())


def _paired(is_pos, a, b, n_permutations, rng):
    rank_a, rank_b = first_ranks(a), first_ranks(b)
    statistic = paired_statistic(is_pos, rank_a, rank_b)
    sign = np.where(is_pos, 1, -1)
    n = is_pos.shape[0]
    permuted = np.empty(n_permutations)
    block = max(1, _BLOCK_ENTRIES // n)
    for start in range(0, n_permutations, block):
        k = min(block, n_permutations - start)
        swap = rng.random((k, n)) < 0.5
        # the exchanged ranks collide with the other column's (two rows holding rank
        # r): integer ranks plus a uniform in [0, 1) break such ties at random without
        # reordering distinct ranks
        col_a = np.where(swap, rank_b, rank_a) + rng.random((k, n))
        col_b = np.where(swap, rank_a, rank_b) + rng.random((k, n))
        walk_a = _error_walk(sign[np.argsort(col_a, axis=1)])
        walk_b = _error_walk(sign[np.argsort(col_b, axis=1)])
        permuted[start:start + k] = np.abs(walk_a - walk_b).sum(axis=1)
    return statistic, permuted


def mixture_curve(is_pos_sorted, mixing):
    """Knots ``(x, e)`` of a sample's error curve, its rows in increasing rank order.

    ``x = π F + (1 - π) G`` is the mixture quantile of the cut after each row,
    ``e = π F + (1 - π)(1 - G)`` the error rate there (``F``, ``G``: the shares of
    the sample's positives and negatives ranked at most that row); the curve starts
    at ``(0, 1 - π)`` (nothing called negative) and ends at ``(1, π)``.
    """
    pos = is_pos_sorted.astype(np.float64)
    f = np.cumsum(pos) / pos.sum()
    g = np.cumsum(1.0 - pos) / (pos.shape[0] - pos.sum())
    x = np.concatenate(([0.0], mixing * f + (1.0 - mixing) * g))
    e = np.concatenate(([1.0 - mixing], mixing * f + (1.0 - mixing) * (1.0 - g)))
    return x, e


def area_between(x1, e1, x2, e2):
    """``∫_0^1 |e1 - e2|`` of two piecewise-linear curves on [0, 1], exactly: on each
    interval of the merged knots the difference is linear, and where it changes
    sign the two triangles are counted apart."""
    x = np.union1d(x1, x2)
    d = np.interp(x, x1, e1) - np.interp(x, x2, e2)
    d0, d1, width = d[:-1], d[1:], np.diff(x)
    same_side = d0 * d1 >= 0
    abs_sum = np.abs(d0) + np.abs(d1)
    crossing = np.divide(d0 * d0 + d1 * d1, abs_sum, out=np.zeros_like(abs_sum),
                         where=abs_sum > 0)
    return float((width * np.where(same_side, abs_sum, crossing)).sum() / 2.0)


def _mixture_quantiles(is_pos, score, mixing):
    """Each row's mixture quantile ``π F(t) + (1 - π) G(t)`` (``t`` its score, ties by
    row order), and the rows' classes in rank order."""
    order = np.argsort(score, kind="stable")
    ordered = is_pos[order]
    x, _ = mixture_curve(ordered, mixing)
    quantile = np.empty(score.shape[0])
    quantile[order] = x[1:]
    return quantile, ordered


def _unpaired(is_pos_a, a, is_pos_b, b, mixing, n_permutations, rng):
    q_a, sorted_a = _mixture_quantiles(is_pos_a, a, mixing)
    q_b, sorted_b = _mixture_quantiles(is_pos_b, b, mixing)
    statistic = area_between(*mixture_curve(sorted_a, mixing), *mixture_curve(sorted_b, mixing))
    # the pooled mixture quantiles of each class: a permutation deals them back to the
    # two samples, each keeping its number of positives and of negatives
    pos_pool = np.concatenate((q_a[is_pos_a], q_b[is_pos_b]))
    neg_pool = np.concatenate((q_a[~is_pos_a], q_b[~is_pos_b]))
    m_a, n_a = int(is_pos_a.sum()), int((~is_pos_a).sum())
    labels_a = np.concatenate((np.ones(m_a, bool), np.zeros(n_a, bool)))
    labels_b = np.concatenate((np.ones(pos_pool.size - m_a, bool),
                               np.zeros(neg_pool.size - n_a, bool)))
    permuted = np.empty(n_permutations)
    for i in range(n_permutations):
        pos = rng.permutation(pos_pool)
        neg = rng.permutation(neg_pool)
        values_a = np.concatenate((pos[:m_a], neg[:n_a]))
        values_b = np.concatenate((pos[m_a:], neg[n_a:]))
        # equal quantiles (of the two samples, or tied scores) are ordered at random
        order_a = np.lexsort((rng.random(values_a.size), values_a))
        order_b = np.lexsort((rng.random(values_b.size), values_b))
        permuted[i] = area_between(*mixture_curve(labels_a[order_a], mixing),
                                   *mixture_curve(labels_b[order_b], mixing))
    return statistic, permuted
