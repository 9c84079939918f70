"""The operating threshold of ``predict``: one rule for every ranker.

A ranker's ``predict`` says "positive" where its score reaches ``threshold_``,
chosen on the training scores:

* at an **operating FPR** ``f > 0``: keep the ``ceil(n f)`` highest training
  negatives (training FPR ``ceil(n f) / n`` without ties; the empirical index
  ``j_beta`` of Narasimhan & Agarwal, eq. (2));
* at ``f = 0``: the lowest positive scored above every negative;
* with no operating FPR: **Youden's point**, the threshold of largest
  TPR - FPR (the highest such threshold among equals).

The threshold is then moved halfway down to the next lower training score:
the training predictions do not change, but a training row whose score is
recomputed with another summation order (a subset, another BLAS block) cannot
flip.  The distributed fits apply the same rule to chunked scores
(:func:`place_between`).
"""

import numpy as np

from ._validation import empirical_indices

__all__ = ["operating_threshold", "place_between"]


def place_between(cut, below):
    """Halfway between the rule's ``cut`` and the highest training score ``below`` it."""
    if np.isfinite(cut) and below is not None and np.isfinite(below):
        return 0.5 * (float(cut) + float(below))
    return float(cut)


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
    # Two sorted class copies and binary searches: O(n) extra memory, no full
    # ROC curve (the SVM fit's memory budget is 2.5 x the size of X).
    pos = np.sort(scores[is_pos])
    neg = np.sort(scores[~is_pos])
    if operating_fpr is None:
        # Lowering the threshold past a score held only by negatives lowers
        # TPR - FPR, so the best threshold is a positive's score (or +inf,
        # where J = 0); among equal J the highest threshold wins.
        tpr = (pos.shape[0] - np.searchsorted(pos, pos, side="left")) / pos.shape[0]
        fpr = (neg.shape[0] - np.searchsorted(neg, pos, side="left")) / neg.shape[0]
        youden = tpr - fpr
        best = youden.shape[0] - 1 - int(np.argmax(youden[::-1]))
        cut = float(pos[best]) if youden[best] >= 0 else np.inf
    elif operating_fpr == 0.0:
        i = np.searchsorted(pos, neg[-1], side="right")
        cut = float(pos[i]) if i < pos.shape[0] else float(np.nextafter(neg[-1], np.inf))
    else:
        _, k = empirical_indices(neg.shape[0], (0.0, operating_fpr))
        cut = float(neg[neg.shape[0] - k])
    below = [arr[i - 1] for arr in (pos, neg)
             for i in [np.searchsorted(arr, cut, side="left")] if i > 0]
    return place_between(cut, max(below) if below else None)
