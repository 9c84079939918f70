"""The operating threshold of ``predict``: one rule for every ranker and every data layout.

A ranker's ``predict`` says "positive" where its score reaches ``threshold_``,
chosen on the training scores (``GradientBoostingRanker`` gives the rule each
fold's held-out scores instead and averages the thresholds:
:func:`pauc.gbm._plan.operating_threshold_of`):

* at an **operating FPR** ``f > 0``: keep the ``ceil(n f)`` highest training
  negatives (training FPR ``ceil(n f) / n`` without ties; the empirical index
  ``j_beta`` of eq. (2) of Narasimhan & Agarwal).  **Ties**: when the negatives
  tied at the ``ceil(n f)``-th score reach past it, the whole tie block is left
  out (the threshold moves just above it), so the training FPR never exceeds
  ``ceil(n f) / n``; constant scores predict every row negative;
* at ``f = 0``: the lowest positive scored above every negative;
* with no operating FPR: **Youden's point** (Youden, 1950), the threshold of largest
  TPR - FPR (the highest such threshold among equals).

The threshold is then moved halfway down to the next lower training score:
the training predictions do not change, but a training row whose score is
recomputed with another summation order (a subset, another BLAS block) cannot
flip.

The rule (:func:`threshold_rule`) reads the training scores only through four
order statistics -- the ``k``-th highest negative, the lowest positive above
a level, the best Youden pair, the highest score below a cut -- so that it is
written once: :class:`SortedScores` answers them for scores in memory, and
the chunked designs of :mod:`pauc.distributed` answer them chunk by chunk
(their Youden step runs :func:`best_youden` on every chunk).

References
----------
Narasimhan & Agarwal (2017), eq. (2); Youden, W. J. "Index for rating
diagnostic tests." Cancer 3(1), 1950. Full entries in ``docs/references.rst``.
"""

import numpy as np

from ._validation import empirical_indices

__all__ = ["operating_threshold", "threshold_rule", "SortedScores", "best_youden",
           "place_between", "predict_labels"]


def place_between(cut, below):
    """Halfway between the rule's ``cut`` and the highest training score ``below`` it."""
    if np.isfinite(cut) and below is not None and np.isfinite(below):
        return 0.5 * (float(cut) + float(below))
    return float(cut)


def best_youden(pos_sorted, m, n, pos_lists, neg_lists):
    """Best ``(TPR - FPR, threshold)`` with the positives ``pos_sorted`` as thresholds.

    Parameters
    ----------
    pos_sorted : ndarray, ascending
        The candidate thresholds: some (one chunk's) or all positives' scores.
    m, n : int
        Numbers of positives and negatives of the whole training set.
    pos_lists, neg_lists : list of ndarray, each ascending
        Every positive and every negative score, in any number of sorted
        pieces (one per chunk, or one each in memory).

    Returns
    -------
    (float, float)
        The largest ``TPR - FPR`` of the rule ``score >= t`` over the
        candidates and the highest candidate reaching it; ``(-inf, -inf)``
        without candidates.
    """
    if pos_sorted.shape[0] == 0:
        return (-np.inf, -np.inf)
    tp = np.zeros(pos_sorted.shape[0], dtype=np.int64)
    fp = np.zeros(pos_sorted.shape[0], dtype=np.int64)
    for other in pos_lists:
        tp += other.shape[0] - np.searchsorted(other, pos_sorted, side="left")
    for other in neg_lists:
        fp += other.shape[0] - np.searchsorted(other, pos_sorted, side="left")
    youden = tp / m - fp / n
    best = youden.max()
    return (float(best), float(pos_sorted[youden == best].max()))


class SortedScores:
    """The order statistics of :func:`threshold_rule` for training scores in memory.

    Two sorted class copies and binary searches: O(n) extra memory, no full
    ROC curve (the SVM fit's memory budget is 2.5 x the size of X).
    """

    def __init__(self, scores, is_pos):
        self.pos = np.sort(scores[is_pos])
        self.neg = np.sort(scores[~is_pos])
        self.n_pos, self.n_neg = self.pos.shape[0], self.neg.shape[0]

    def kth_highest_negative(self, k):
        """The ``k``-th highest negative score (``k >= 1``)."""
        return float(self.neg[self.n_neg - k])

    def lowest_positive_above(self, level):
        """The lowest positive score above ``level``; ``inf`` if none."""
        i = np.searchsorted(self.pos, level, side="right")
        return float(self.pos[i]) if i < self.n_pos else np.inf

    def youden(self):
        """:func:`best_youden` over every positive."""
        return best_youden(self.pos, self.n_pos, self.n_neg, [self.pos], [self.neg])

    def highest_below(self, cut):
        """The highest training score below ``cut``; ``-inf`` if none."""
        below = [arr[i - 1] for arr in (self.pos, self.neg)
                 for i in [np.searchsorted(arr, cut, side="left")] if i > 0]
        return float(max(below)) if below else -np.inf


def _lowest_score_above(stats, level, k):
    """The lowest training score above ``level``, the ``k``-th highest negative
    (``inf`` if none): the lowest positive above it or the lowest negative above
    it, found by bisection over ``kth_highest_negative(1 .. k - 1)`` (the order
    statistics only, so that the chunked designs answer it too)."""
    lo, hi = 0, k        # kth(lo) > level (lo = 0: no such negative), kth(hi) == level
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if stats.kth_highest_negative(mid) > level:
            lo = mid
        else:
            hi = mid
    negative = stats.kth_highest_negative(lo) if lo > 0 else np.inf
    return min(negative, stats.lowest_positive_above(level))


def threshold_rule(stats, operating_fpr):
    """``threshold_`` from the order statistics ``stats`` of the training scores.

    Parameters
    ----------
    stats : object
        Answers ``n_neg``, ``kth_highest_negative(k)``,
        ``lowest_positive_above(level)``, ``youden()`` and ``highest_below(cut)``
        (see :class:`SortedScores`).
    operating_fpr : float in [0, 1] or None
        None: Youden's point.

    Returns
    -------
    float
    """
    if operating_fpr is None:
        # Lowering the threshold past a score held only by negatives lowers
        # TPR - FPR, so the best threshold is a positive's score (or +inf,
        # where J = 0); among equal J the highest threshold wins.
        youden, at = stats.youden()
        cut = at if youden >= 0 else np.inf
    elif operating_fpr == 0.0:
        level = stats.kth_highest_negative(1)
        lowest = stats.lowest_positive_above(level)
        if not np.isfinite(lowest):
            # no positive above every negative: just above the highest negative
            # (halfway to it would round back onto it and admit it)
            return float(np.nextafter(level, np.inf))
        # halfway down from the lowest such positive, but never onto the
        # highest negative (adjacent floats round the halfway point onto it)
        return max(place_between(lowest, stats.highest_below(lowest)),
                   float(np.nextafter(level, np.inf)))
    else:
        _, k = empirical_indices(stats.n_neg, (0.0, operating_fpr))
        cut = stats.kth_highest_negative(k)
        if k < stats.n_neg and stats.kth_highest_negative(k + 1) == cut:
            # the negatives tied at the k-th score reach past the k-th: admitting
            # the tie block would overshoot the operating FPR, so the threshold
            # moves just above it (constant scores: every row negative)
            cut = _lowest_score_above(stats, cut, k)
            if not np.isfinite(cut):
                return float(np.nextafter(stats.kth_highest_negative(k), np.inf))
    if not np.isfinite(cut):
        return float(cut)
    return place_between(cut, stats.highest_below(cut))


def operating_threshold(scores, is_pos, operating_fpr):
    """``threshold_`` such that ``score >= threshold_`` picks the operating point.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        Training scores.
    is_pos : bool ndarray of shape (n_samples,)
    operating_fpr : float in [0, 1] or None
        None: Youden's point.

    Returns
    -------
    float
    """
    return threshold_rule(SortedScores(scores, is_pos), operating_fpr)


def predict_labels(scores, classes, threshold):
    """``classes[1]`` where ``scores >= threshold``, else ``classes[0]``.

    Written with ``numpy.where`` so that it also applies lazily to the chunked
    scores of a dask array (which implements it), in ``classes``' dtype.
    """
    labels = np.where(scores >= threshold, classes[1], classes[0])
    return labels.astype(classes.dtype, copy=False)
