"""ROC metrics: ROC curve, AUC, partial AUC in any FPR range, TPR at a fixed FPR.

All areas are **exact** areas under the empirical, piecewise-linear ROC curve:
a group of tied scores holding ``dp`` positives and ``dn`` negatives is a
straight segment, so a tied positive-negative pair counts one half, and the
area over a window [α, β] whose ends fall inside a segment is interpolated on
that segment (no rounding of α or β to the sample's grid).  One sort per class
and one O(n) merge in :mod:`pauc._ranking`; no pairs are formed.

Normalisations of the partial AUC
---------------------------------
``partial_auc(y, s, fpr_range=(α, β), normalize=...)`` with ``A`` the raw
area of the ROC curve over FPR ∈ [α, β]:

============  ======================================  ==========================================
normalize     value                                   meaning
============  ======================================  ==========================================
``"range"``   ``A / (β − α)``                         Narasimhan & Agarwal (paper 002, Sec. 2.1,
              (default)                               eq. (2)): mean TPR over the window, in [0, 1]
``"mcclish"`` ``½ (1 + (A − A_min)/(A_max − A_min))``  McClish (1989): ``A_min = (β² − α²)/2`` is
              with ``A_max = β − α``                  the chance diagonal, ``A_max`` the perfect
                                                      ranker; 0.5 = chance, 1 = perfect. Equals
                                                      ``sklearn.metrics.roc_auc_score(max_fpr=β)``
                                                      when α = 0
``"none"``    ``A``                                   the raw area, in [0, β − α]
============  ======================================  ==========================================

Worked example (paper 002, Section 2.1, Figure 2): 4 positives and 5
negatives scored by two functions::

    >>> import numpy as np
    >>> from pauc.metrics import roc_auc, partial_auc
    >>> y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0])
    >>> f1 = np.array([9.1, 6.8, 6.1, 5.7, 8.5, 8.1, 4.2, 3.6, 2.3])
    >>> f2 = np.array([9.9, 8.7, 3.3, 2.1, 7.6, 5.3, 4.9, 4.4, 0.8])
    >>> float(roc_auc(y, f1)), float(roc_auc(y, f2))
    (0.7, 0.6)
    >>> [round(float(partial_auc(y, f, fpr_range=(0.1, 0.2), normalize=k)), 4)
    ...  for f in (f1, f2) for k in ("range", "mcclish", "none")]
    [0.25, 0.5588, 0.025, 0.5, 0.7059, 0.05]

``f1`` has the larger AUC, ``f2`` the larger partial AUC in [0.1, 0.2] under
every normalisation.  For a fixed window the three are increasing maps of
``A``, so they never disagree on which scorer is better there; they differ in
scale and in what 0.5 means (``"range"``: half the positives above the
window's negatives; ``"mcclish"``: a random ranker).

Two-way partial AUC
-------------------
:func:`two_way_partial_auc` measures the region with FPR ≤ f0 *and* TPR ≥ t0
(the two-way pAUC of Yang et al. 2022, used by LibAUC, and discussed in
scikit-learn PR #19751): ``∫_0^{f0} max(TPR(u) − t0, 0) du``, divided by
``f0 (1 − t0)`` with ``normalize="range"``.
"""

import numpy as np
from sklearn.metrics import make_scorer

from . import _ranking
from ._dask import is_dask_array
from ._validation import check_binary_scores, check_fpr_range

__all__ = [
    "roc_curve",
    "roc_auc",
    "partial_auc",
    "two_way_partial_auc",
    "tpr_at_fpr",
    "roc_auc_scorer",
    "partial_auc_scorer",
    "tpr_at_fpr_scorer",
    "kendall_tau_distance",
    "spearman_distance",
]

_NORMALIZATIONS = ("range", "mcclish", "none")


def _sorted_classes(is_pos, score, weight):
    """Scores of each class sorted ascending, with their weights aligned."""
    if weight is None:
        pos, neg = _ranking.split_by_label(score, is_pos)
        pos.sort()
        neg.sort()
        return pos, neg, None, None
    pos, neg = score[is_pos], score[~is_pos]
    order_pos = np.argsort(pos, kind="stable")
    order_neg = np.argsort(neg, kind="stable")
    return (pos[order_pos], neg[order_neg],
            weight[is_pos][order_pos], weight[~is_pos][order_neg])


def _top_of_classes(is_pos, score, fpr_hi):
    """The part of each class that can reach FPR <= ``fpr_hi``, sorted ascending.

    Only negatives down to the k-th highest, k = floor(n·fpr_hi) + 1, and the
    positives scored at least as high as that one, can move the ROC curve
    before FPR passes ``fpr_hi`` (ties with it are kept, they share its
    segment).  One O(n) selection replaces most of the sort when the window
    is narrow; the totals are returned because the walk normalises by them.
    """
    pos, neg = _ranking.split_by_label(score, is_pos)
    m, n = pos.shape[0], neg.shape[0]
    k = min(n, int(np.floor(n * fpr_hi)) + 1)
    if k < n:
        neg.partition(n - k)
        cutoff = neg[n - k]
        neg = neg[neg >= cutoff]
        pos = pos[pos >= cutoff]
    pos.sort()
    neg.sort()
    return pos, neg, float(m), float(n)


def _window_paucs(is_pos, score, windows):
    """``partial_auc(..., normalize="range")`` over each window, no input checks.

    ``is_pos`` a bool array with both classes, ``score`` finite float32/float64:
    the inner loop of early stopping, where the labels were checked once.  The
    top of the list is selected once, for the widest window.
    """
    pos, neg, m, n = _top_of_classes(is_pos, score, max(b for _, b in windows))
    return [_ranking.partial_area(pos, neg, a, b, 0.0, tp_total=m, fp_total=n) / (b - a)
            for a, b in windows]


def _raw_area(y_true, y_score, fpr_lo, fpr_hi, tpr_floor, pos_label, sample_weight):
    if is_dask_array(y_score) or is_dask_array(y_true):
        # row-chunked scores: the same area, reduced on the workers (pauc._dask_metrics)
        from ._dask_metrics import raw_area
        return raw_area(y_true, y_score, fpr_lo, fpr_hi, tpr_floor, pos_label, sample_weight)
    is_pos, score, weight = check_binary_scores(
        y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    if weight is None:
        pos, neg, m, n = _top_of_classes(is_pos, score, fpr_hi)
        return _ranking.partial_area(pos, neg, fpr_lo, fpr_hi, tpr_floor,
                                     tp_total=m, fp_total=n)
    pos, neg, w_pos, w_neg = _sorted_classes(is_pos, score, weight)
    return _ranking.partial_area(pos, neg, fpr_lo, fpr_hi, tpr_floor, w_pos, w_neg)


def roc_curve(y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=True):
    """Receiver operating characteristic, with the contract of scikit-learn's.

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        Binary labels; with labels other than {0, 1} or {-1, 1} give ``pos_label``.
    y_score : array of shape (n_samples,)
        Scores, higher meaning more likely positive.
    pos_label : label, default=None
    sample_weight : array of shape (n_samples,), default=None
        Samples of weight zero are dropped (they would only add thresholds).
    drop_intermediate : bool, default=True
        Drop knots that lie on a straight line between their neighbours.

    Returns
    -------
    fpr, tpr : arrays of shape (K + 1,)
        Starting at (0, 0) and ending at (1, 1).
    thresholds : array of shape (K + 1,)
        Decreasing; ``thresholds[0] = inf`` (nothing predicted positive), then
        the distinct scores, so that ``(fpr[k], tpr[k])`` are the rates of
        ``score >= thresholds[k]``.
    """
    is_pos, score, weight = check_binary_scores(
        y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    if weight is not None:
        keep = weight != 0
        is_pos, score, weight = is_pos[keep], score[keep], weight[keep]
    pos, neg, w_pos, w_neg = _sorted_classes(is_pos, score, weight)
    fps, tps, thresholds = _ranking.roc_knots(pos, neg, w_pos, w_neg)
    if drop_intermediate and fps.shape[0] > 2:
        # A knot is kept when the curve bends there (second difference != 0).
        bends = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
        keep = np.concatenate(([True], bends, [True]))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    fpr = np.concatenate(([0.0], fps / fps[-1]))
    tpr = np.concatenate(([0.0], tps / tps[-1]))
    thresholds = np.concatenate(([np.inf], thresholds.astype(np.float64)))
    return fpr, tpr, thresholds


def roc_auc(y_true, y_score, *, pos_label=None, sample_weight=None):
    """Area under the empirical ROC curve, ties counted one half (paper 002, eq. (1)).

    Equal to ``sklearn.metrics.roc_auc_score`` for binary labels; computed by
    one sort per class and an O(n) merge, without forming pairs.
    """
    return _raw_area(y_true, y_score, 0.0, 1.0, 0.0, pos_label, sample_weight)


def partial_auc(y_true, y_score, *, fpr_range=(0.0, 0.1), normalize="range",
                pos_label=None, sample_weight=None):
    """Partial area under the ROC curve for FPR in ``fpr_range = (α, β)``.

    The exact area of the piecewise-linear empirical ROC curve over [α, β],
    for any 0 <= α < β <= 1.  Without ties and with nα, nβ integers,
    ``normalize="range"`` is exactly eq. (2) of paper 002 (Section 2.1);
    elsewhere the window's ends are interpolated on the curve.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`roc_auc`.
    fpr_range : (float, float), default=(0.0, 0.1)
        The window (α, β) of false-positive rates.
    normalize : {"range", "mcclish", "none"}, default="range"
        ``"range"``: area / (β − α), in [0, 1] (paper 002).  ``"mcclish"``:
        McClish's standardisation ½(1 + (A − A_min)/(A_max − A_min)) with
        ``A_min = (β² − α²)/2`` and ``A_max = β − α``; equals
        ``sklearn.metrics.roc_auc_score(max_fpr=β)`` when α = 0.  ``"none"``:
        the raw area.  See the module docstring for a worked example.
    """
    alpha, beta = check_fpr_range(fpr_range)
    if normalize not in _NORMALIZATIONS:
        raise ValueError(f"normalize must be one of {_NORMALIZATIONS}, got {normalize!r}")
    area = _raw_area(y_true, y_score, alpha, beta, 0.0, pos_label, sample_weight)
    if normalize == "none":
        return area
    if normalize == "range":
        return area / (beta - alpha)
    min_area = 0.5 * (beta * beta - alpha * alpha)
    max_area = beta - alpha
    return 0.5 * (1.0 + (area - min_area) / (max_area - min_area))


def two_way_partial_auc(y_true, y_score, *, max_fpr=0.3, min_tpr=0.7, normalize="range",
                        pos_label=None, sample_weight=None):
    """Two-way partial AUC: the ROC area with FPR <= ``max_fpr`` and TPR >= ``min_tpr``.

    ``A = ∫_0^{max_fpr} max(TPR(u) − min_tpr, 0) du`` on the exact
    piecewise-linear empirical ROC curve.  With ``normalize="range"`` (default)
    it is divided by ``max_fpr · (1 − min_tpr)`` (the area of a perfect
    ranker), so it lies in [0, 1]; ``"none"`` returns ``A``.  With
    ``min_tpr=0`` it is ``partial_auc(fpr_range=(0, max_fpr))``.
    """
    _, max_fpr = check_fpr_range((0.0, max_fpr), name="max_fpr")
    min_tpr, _ = check_fpr_range((min_tpr, 1.0), name="min_tpr")
    if normalize not in ("range", "none"):
        raise ValueError(f"normalize must be 'range' or 'none', got {normalize!r}")
    area = _raw_area(y_true, y_score, 0.0, max_fpr, min_tpr, pos_label, sample_weight)
    return area / (max_fpr * (1.0 - min_tpr)) if normalize == "range" else area


def tpr_at_fpr(y_true, y_score, fpr, *, interpolate=False, pos_label=None,
               sample_weight=None):
    """True-positive rate at a false-positive rate ``fpr``.

    ``interpolate=False`` (default): the best TPR of a threshold rule
    ``score >= t`` whose FPR is at most ``fpr`` (what a deployed classifier
    achieves).  ``interpolate=True``: the height of the piecewise-linear
    empirical ROC curve at ``fpr`` (what a randomised threshold achieves, and
    the curve whose area :func:`partial_auc` measures).
    """
    _, fpr = check_fpr_range((0.0, fpr), name="fpr") if fpr > 0 else (0.0, 0.0)
    roc_fpr, roc_tpr, _ = roc_curve(y_true, y_score, pos_label=pos_label,
                                    sample_weight=sample_weight, drop_intermediate=False)
    if interpolate:
        # roc_fpr is non-decreasing; at a vertical jump take its top (max TPR).
        k = np.searchsorted(roc_fpr, fpr, side="right")
        if k >= roc_fpr.shape[0] or roc_fpr[k - 1] == fpr:
            return float(roc_tpr[k - 1])
        x0, x1, y0, y1 = roc_fpr[k - 1], roc_fpr[k], roc_tpr[k - 1], roc_tpr[k]
        return float(y0 + (y1 - y0) * (fpr - x0) / (x1 - x0))
    feasible = roc_fpr <= fpr
    return float(roc_tpr[feasible].max())


_RESPONSE = ("decision_function", "predict_proba")


def roc_auc_scorer(**kwargs):
    """Scorer for ``GridSearchCV(scoring=...)``: :func:`roc_auc` of ``decision_function``."""
    return make_scorer(roc_auc, response_method=_RESPONSE, **kwargs)


def partial_auc_scorer(fpr_range=(0.0, 0.1), normalize="range", **kwargs):
    """Scorer for ``GridSearchCV(scoring=...)``: :func:`partial_auc` of ``decision_function``.

    Example: ``GridSearchCV(est, grid, scoring=partial_auc_scorer(fpr_range=(0, 0.1)))``.
    """
    check_fpr_range(fpr_range)
    return make_scorer(partial_auc, response_method=_RESPONSE,
                       fpr_range=tuple(fpr_range), normalize=normalize, **kwargs)


def tpr_at_fpr_scorer(fpr=0.1, interpolate=False, **kwargs):
    """Scorer for ``GridSearchCV(scoring=...)``: :func:`tpr_at_fpr` of ``decision_function``."""
    return make_scorer(tpr_at_fpr, response_method=_RESPONSE, fpr=fpr,
                       interpolate=interpolate, **kwargs)


from ._rank_distance import kendall_tau_distance, spearman_distance  # noqa: E402
