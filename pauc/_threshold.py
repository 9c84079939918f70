"""The operating threshold of ``predict``: one rule for every ranker that thresholds a score."""

import numpy as np

from ._validation import empirical_indices


def operating_threshold(scores, is_pos, operating_fpr):
    """Threshold ``t`` so that ``score >= t`` picks the training operating point.

    With ``f = operating_fpr > 0`` the rule keeps the ``ceil(n f)`` highest
    training negatives (training FPR ``ceil(n f) / n`` without ties); with
    None, Youden's point (maximal TPR - FPR); with 0, the lowest positive
    above every negative.  The threshold is then moved halfway down to the
    next lower training score: the training predictions do not change, but a
    training row recomputed with another summation order (a subset, another
    BLAS block) cannot flip.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        Training scores.
    is_pos : bool ndarray of shape (n_samples,)
    operating_fpr : float in [0, 1] or None

    Returns
    -------
    float
    """
    # Two sorted class copies and binary searches: O(n) extra memory, no
    # full ROC curve (the fit's memory budget is 2.5 x the size of X).
    pos = scores[is_pos]
    pos.sort()
    neg = scores[~is_pos]
    neg.sort()
    if operating_fpr is None:
        # Youden's point: max TPR - FPR.  Lowering the threshold past a
        # score held only by negatives lowers TPR - FPR, so the best
        # threshold is a positive's score (or +inf, where J = 0); among
        # equal J the highest threshold wins.
        tpr = (pos.shape[0] - np.searchsorted(pos, pos, side="left")) / pos.shape[0]
        fpr = (neg.shape[0] - np.searchsorted(neg, pos, side="left")) / neg.shape[0]
        youden = tpr - fpr
        best = youden.shape[0] - 1 - int(np.argmax(youden[::-1]))
        cut = float(pos[best]) if youden[best] >= 0 else np.inf
    elif operating_fpr == 0.0:
        # Nothing negative above: cut at the lowest positive above every negative.
        i = np.searchsorted(pos, neg[-1], side="right")
        cut = float(pos[i]) if i < pos.shape[0] else float(np.nextafter(neg[-1], np.inf))
    else:
        _, k = empirical_indices(neg.shape[0], (0.0, operating_fpr))
        cut = float(neg[neg.shape[0] - k])
    below = [arr[i - 1] for arr in (pos, neg)
             for i in [np.searchsorted(arr, cut, side="left")] if i > 0]
    return 0.5 * (cut + float(max(below))) if below and np.isfinite(cut) else cut
