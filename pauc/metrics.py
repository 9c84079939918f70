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
``"range"``   ``A / (β − α)``                         Narasimhan & Agarwal (Sec. 2.1,
              (default)                               eq. (2)): mean TPR over the window, in [0, 1]
``"mcclish"`` ``½ (1 + (A − A_min)/(A_max − A_min))``  McClish: ``A_min = (β² − α²)/2`` is
              with ``A_max = β − α``                  the chance diagonal, ``A_max`` the perfect
                                                      ranker; 0.5 = chance, 1 = perfect. Equals
                                                      ``sklearn.metrics.roc_auc_score(max_fpr=β)``
                                                      when α = 0
``"none"``    ``A``                                   the raw area, in [0, β − α]
============  ======================================  ==========================================

Worked example (Narasimhan & Agarwal, Section 2.1, Figure 2): 4 positives and 5
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
(the two-way pAUC of Yang et al., also discussed in scikit-learn PR
#19751): ``∫_0^{f0} max(TPR(u) − t0, 0) du``, divided by ``f0 (1 − t0)``
with ``normalize="range"``.

Row-chunked dask arrays of scores and labels give the same values, exactly,
computed on the workers (:mod:`pauc.distributed`).

Uncertainty
-----------
:func:`roc_auc_ci` (DeLong's interval by Sun & Xu's O(n log n) algorithm, or
the bootstrap's), :func:`partial_auc_ci` and :func:`two_way_partial_auc_ci`
(stratified bootstrap, one sort then weighted counts per resample),
:func:`compare_rankers` (DeLong's paired test for the AUC, the paired
stratified bootstrap for either metric) and :func:`roc_confidence_band`
(pointwise bootstrap band of the ROC curve in the window) say whether a
difference is real; see the user guide's "Is the difference real?".
:func:`venkatraman_test` (and ``compare_rankers(method="venkatraman")``) tests
whole curves by permutations, :func:`power_roc_test` gives the power or the
sample size of a test on the (partial) AUC, :func:`multiclass_roc_auc` is Hand &
Till's AUC of several classes: each as R's pROC computes it.
:func:`reader_study` analyses multi-reader multi-case studies (Obuchowski &
Rockette's model with Hillis's degrees of freedom) for the AUC, a partial AUC
or the TPR at an FPR; see the user guide's "Reader studies".

References
----------
Narasimhan & Agarwal (2017), Section 2.1; McClish (1989); Yang et al. (2021)
for the two-way partial AUC; DeLong, DeLong & Clarke-Pearson (1988), Sun & Xu
(2014), Robin et al. (2011), Efron & Tibshirani (1993) for the intervals and
tests; Venkatraman & Begg (1996), Venkatraman (2000), Obuchowski & McClish
(1997), Hand & Till (2001); Obuchowski & Rockette (1995), Hillis (2007) for
reader studies. Full entries in ``docs/references.rst``.
"""

import numpy as np

from . import _ranking
from ._dispatch import chunked, is_chunked
from .inference._intervals import normalized_area
from .inference._intervals import (ConfidenceInterval, RankerComparison, ROCBand,
                         partial_auc_ci, roc_auc_ci, roc_confidence_band, two_way_partial_auc_ci)
from .inference._many_rankers import RankerComparisons, compare_rankers
from ._multiclass import multiclass_roc_auc
from .inference._power import RocPower, power_roc_test
from ._rank_distance import kendall_tau_distance, spearman_distance
from .inference._reader_study import ModalityComparison, ModalityEstimate, ReaderStudy, reader_study
from .inference._tpr_interval import tpr_at_fpr_ci
from ._validation import check_binary_scores, check_fpr_range, check_rate
from .inference._venkatraman import VenkatramanTest, venkatraman_test

__all__ = [
    "roc_curve",
    "roc_auc",
    "partial_auc",
    "mean_partial_auc",
    "two_way_partial_auc",
    "tpr_at_fpr",
    "roc_auc_scorer",
    "partial_auc_scorer",
    "tpr_at_fpr_scorer",
    "kendall_tau_distance",
    "spearman_distance",
    "roc_auc_ci",
    "partial_auc_ci",
    "two_way_partial_auc_ci",
    "compare_rankers",
    "roc_confidence_band",
    "tpr_at_fpr_ci",
    "ConfidenceInterval",
    "RankerComparison",
    "RankerComparisons",
    "ROCBand",
    "venkatraman_test",
    "VenkatramanTest",
    "power_roc_test",
    "RocPower",
    "multiclass_roc_auc",
    "reader_study",
    "ReaderStudy",
    "ModalityEstimate",
    "ModalityComparison",
]

_NORMALIZATIONS = ("range", "mcclish", "none")


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def _check_normalize(normalize, allowed=_NORMALIZATIONS):
    if not isinstance(normalize, str) or normalize not in allowed:
        raise ValueError(f"normalize must be one of {allowed}, got {normalize!r}")


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


def mean_partial_auc(y_true, y_score, fpr_ranges, *, pos_label=None, check_input=True):
    """The mean of ``partial_auc(..., normalize="range")`` over several FPR windows.

    The criterion on which ``GradientBoostingRanker`` stops each candidate and
    chooses among them: the window itself, averaged with a widened window
    ``(α, β')`` when the held-out rows' window holds few negatives (lower
    variance, the same top of the list).  The top of the list is selected once,
    for the widest window, so that the criterion costs one partial sort per
    call however many windows it averages.

    Parameters
    ----------
    y_true, y_score, pos_label
        As in :func:`roc_auc`.
    fpr_ranges : list of (float, float)
        The windows (α, β), each as ``fpr_range`` of :func:`partial_auc`.
    check_input : bool, default=True
        False skips every check (a training loop calls it every round on labels
        it checked once): ``y_true`` must then be a boolean array holding both
        classes (True: positive) and ``y_score`` finite float32 / float64.

    Returns
    -------
    float
        ``mean_k partial_auc(y_true, y_score, fpr_range=fpr_ranges[k])``, each
        ``normalize="range"`` (eq. (2) of [1]_).

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).

    Examples
    --------
    >>> from pauc.metrics import mean_partial_auc, partial_auc
    >>> y, s = [0, 0, 1, 0, 1, 1, 0, 0], [0.1, 0.4, 0.35, 0.8, 0.9, 0.7, 0.2, 0.3]
    >>> windows = [(0.0, 0.2), (0.0, 0.5)]
    >>> mean_partial_auc(y, s, windows) == (partial_auc(y, s, fpr_range=windows[0])
    ...                                     + partial_auc(y, s, fpr_range=windows[1])) / 2
    True
    """
    if check_input:
        windows = [check_fpr_range(w) for w in fpr_ranges]
        if not windows:
            raise ValueError("fpr_ranges holds no window")
        is_pos, score, _, _ = check_binary_scores(y_true, y_score, pos_label=pos_label,
                                                  exact_ranks=True)
    else:
        windows, is_pos, score = fpr_ranges, y_true, y_score
    pos, neg, m, n = _top_of_classes(is_pos, score, max(b for _, b in windows))
    return float(sum(_ranking.partial_area(pos, neg, a, b, 0.0, tp_total=m, fp_total=n)
                     / (b - a) for a, b in windows) / len(windows))


def raw_area(y_true, y_score, fpr_lo, fpr_hi, tpr_floor, pos_label, sample_weight):
    """``∫_{fpr_lo}^{fpr_hi} max(TPR(u) - tpr_floor, 0) du`` on the empirical ROC
    curve: the raw area every metric here normalises (not public API)."""
    if is_chunked(y_score, y_true):
        # row-chunked scores: the same area, reduced on the workers (pauc._dispatch)
        return chunked("raw_area")(y_true, y_score, fpr_lo, fpr_hi, tpr_floor, pos_label,
                                   sample_weight)
    is_pos, score, weight, _ = check_binary_scores(
        y_true, y_score, pos_label=pos_label, sample_weight=sample_weight, exact_ranks=True)
    if weight is None:
        pos, neg, m, n = _top_of_classes(is_pos, score, fpr_hi)
        return _ranking.partial_area(pos, neg, fpr_lo, fpr_hi, tpr_floor,
                                     tp_total=m, fp_total=n)
    pos, neg, w_pos, w_neg = _sorted_classes(is_pos, score, weight)
    return _ranking.partial_area(pos, neg, fpr_lo, fpr_hi, tpr_floor, w_pos, w_neg)


def roc_curve(y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=True):
    """Receiver operating characteristic, with the contract of scikit-learn's (but see Notes).

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

    Notes
    -----
    Two departures from ``sklearn.metrics.roc_curve``:

    * ``y_true`` holding one class only is an error here (``ValueError``);
      scikit-learn warns and returns NaN rates for the missing class.  A ROC
      curve, and every area on it, needs both classes.
    * labels other than {0, 1}, {-1, 1} or booleans need ``pos_label`` (as in
      scikit-learn), and so do {-1, 0}: the positive class is never guessed.

    Integer scores are ranked exactly, also beyond 2**53 (where float64 can
    no longer hold every integer): the rates are those of the integers, as in
    scikit-learn; the thresholds are the distinct scores converted to float64,
    so two distinct integers beyond 2**53 may show the same threshold.
    """
    is_pos, score, weight, values = check_binary_scores(
        y_true, y_score, pos_label=pos_label, sample_weight=sample_weight, exact_ranks=True)
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
    if values is not None:
        # the scores were ranked exactly (integers beyond 2**53): back to scores
        thresholds = values[thresholds.astype(np.intp)]
    thresholds = np.concatenate(([np.inf], thresholds.astype(np.float64)))
    return fpr, tpr, thresholds


def roc_auc(y_true, y_score, *, pos_label=None, sample_weight=None):
    """Area under the empirical ROC curve, ties counted one half (eq. (1) of [1]_).

    Equal to ``sklearn.metrics.roc_auc_score`` for binary labels; computed by
    one sort per class and an O(n) merge, without forming pairs.  Integer
    scores are ranked exactly, also beyond 2**53 (nanosecond timestamps,
    hashed ids), where float64 would round distinct integers together.

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    .. [2] Clémençon, S. "A Lecture on Statistical Ranking." Lecture notes,
       Télécom ParisTech.
    """
    return raw_area(y_true, y_score, 0.0, 1.0, 0.0, pos_label, sample_weight)


def partial_auc(y_true, y_score, *, fpr_range=(0.0, 0.1), normalize="range",
                pos_label=None, sample_weight=None):
    """Partial area under the ROC curve for FPR in ``fpr_range = (α, β)``.

    The exact area of the piecewise-linear empirical ROC curve over [α, β],
    for any 0 <= α < β <= 1.  Without ties and with nα, nβ integers,
    ``normalize="range"`` is exactly eq. (2) of [1]_ (Section 2.1);
    elsewhere the window's ends are interpolated on the curve.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`roc_auc`.
    fpr_range : (float, float), default=(0.0, 0.1)
        The window (α, β) of false-positive rates.
    normalize : {"range", "mcclish", "none"}, default="range"
        ``"range"``: area / (β − α), in [0, 1] ([1]_).  ``"mcclish"``:
        McClish's standardisation [2]_ ½(1 + (A − A_min)/(A_max − A_min)) with
        ``A_min = (β² − α²)/2`` and ``A_max = β − α``; equals
        ``sklearn.metrics.roc_auc_score(max_fpr=β)`` when α = 0.  ``"none"``:
        the raw area.  See the module docstring for a worked example.

    Notes
    -----
    McClish's value is 0.5 for a random ranker and 1 for a perfect one, but
    it is **not** bounded below by 0.5, nor by 0: a ranker worse than chance
    in the window (``A < A_min``) scores below 0.5, and the worst one
    (``A = 0``) scores ``½(1 − A_min/(A_max − A_min))``, which is negative
    when α + β > 1 (−1 for ``fpr_range=(0.5, 1)``).  With α = 0 (scikit-learn's
    ``max_fpr``) the smallest value is ``(1 − β)/(2 − β)``, not 0.

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    .. [2] McClish, D. K. "Analyzing a portion of the ROC curve." Medical
       Decision Making 9(3), 1989.
    """
    alpha, beta = check_fpr_range(fpr_range)
    _check_normalize(normalize)
    area = raw_area(y_true, y_score, alpha, beta, 0.0, pos_label, sample_weight)
    return normalized_area(area, alpha, beta, normalize)


def two_way_partial_auc(y_true, y_score, *, max_fpr=0.3, min_tpr=0.7, normalize="range",
                        pos_label=None, sample_weight=None):
    """Two-way partial AUC: the ROC area with FPR <= ``max_fpr`` and TPR >= ``min_tpr``.

    ``A = ∫_0^{max_fpr} max(TPR(u) − min_tpr, 0) du`` on the exact
    piecewise-linear empirical ROC curve.  With ``normalize="range"`` (default)
    it is divided by ``max_fpr · (1 − min_tpr)`` (the area of a perfect
    ranker), so it lies in [0, 1]; ``"none"`` returns ``A``.  With
    ``min_tpr=0`` it is ``partial_auc(fpr_range=(0, max_fpr))``.  The region
    is the two-way partial AUC of [1]_.

    References
    ----------
    .. [1] Yang, Z., Xu, Q., Bao, S., He, Y., Cao, X. and Huang, Q. "When All We
       Need is a Piece of the Pie: A Generic Framework for Optimizing Two-way
       Partial AUC." ICML 2021.
    """
    max_fpr = check_rate(max_fpr, "max_fpr", low_open=True)
    min_tpr = check_rate(min_tpr, "min_tpr", high_open=True)
    _check_normalize(normalize, ("range", "none"))
    area = raw_area(y_true, y_score, 0.0, max_fpr, min_tpr, pos_label, sample_weight)
    return area / (max_fpr * (1.0 - min_tpr)) if normalize == "range" else area


def tpr_at_fpr(y_true, y_score, fpr, *, interpolate=False, pos_label=None,
               sample_weight=None):
    """True-positive rate at a false-positive rate ``fpr``.

    ``interpolate=False`` (default): the best TPR of a threshold rule
    ``score >= t`` whose FPR is at most ``fpr`` (what a deployed classifier
    achieves).  ``interpolate=True``: the height of the piecewise-linear
    empirical ROC curve at ``fpr`` (what a randomised threshold achieves, and
    the curve whose area :func:`partial_auc` measures).

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`roc_auc`.
    fpr : float in [0, 1]
        The false-positive rate (NaN, strings and None are refused).
    interpolate : bool, default=False
    """
    fpr = check_rate(fpr, "fpr")
    _check_bool(interpolate, "interpolate")
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


class _RankingScorer:
    """A pauc metric as a scikit-learn scorer: ``scorer(estimator, X, y_true)``.

    The positive class is resolved as scikit-learn's own ``"roc_auc"`` scorer
    resolves it: ``pos_label`` when given, else the estimator's
    ``classes_[1]``, the class its ``decision_function`` points to and whose
    ``predict_proba`` column comes last (every pauc ranker puts its positive
    class there).  So labels {1, 2} or strings score as the estimator ranks
    them, and a scorer never fails on labels the estimator could fit.

    The scores are ``decision_function(X)`` (negated when ``pos_label`` is
    ``classes_[0]``), else the ``predict_proba`` column of the positive class.
    An estimator without ``classes_`` is scored with ``pos_label`` as given
    (the metric's own rule when None).
    """

    def __init__(self, name, metric, pos_label, kwargs):
        self._name, self._metric, self._pos_label, self._kwargs = name, metric, pos_label, kwargs
        self._sample_weight_request = None

    def set_score_request(self, *, sample_weight=None):
        """Ask for ``sample_weight`` under scikit-learn's metadata routing.

        With ``sklearn.set_config(enable_metadata_routing=True)``,
        ``scorer.set_score_request(sample_weight=True)`` makes ``GridSearchCV``
        pass the weights given to its ``fit`` on to this scorer (as for the
        scorers of ``sklearn.metrics.make_scorer``).  Returns the scorer.
        """
        self._sample_weight_request = sample_weight
        return self

    def get_metadata_routing(self):
        """The metadata this scorer asks for (scikit-learn's routing protocol)."""
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=type(self).__name__)
        request.score.add_request(param="sample_weight", alias=self._sample_weight_request)
        return request

    def __repr__(self):
        shown = dict(self._kwargs)
        if self._pos_label is not None:
            shown["pos_label"] = self._pos_label
        return f"{self._name}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    def _positive_scores(self, estimator, X):
        """``(scores, pos_label)``: scores ranking ``pos_label`` at the top."""
        pos_label = self._pos_label
        classes = getattr(estimator, "classes_", None)
        if classes is not None and len(classes) == 2:
            if pos_label is None:
                pos_label = classes[1]
            elif pos_label not in set(np.asarray(classes).tolist()):
                raise ValueError(f"pos_label={pos_label!r} is not one of the estimator's "
                                 f"classes {np.asarray(classes).tolist()}")
        if hasattr(estimator, "decision_function"):
            scores = np.asarray(estimator.decision_function(X))
            if scores.ndim == 1 and classes is not None and len(classes) == 2 \
                    and pos_label == classes[0]:
                scores = -scores
            return scores, pos_label
        if hasattr(estimator, "predict_proba"):
            proba = np.asarray(estimator.predict_proba(X))
            if classes is None:
                return proba[:, -1], pos_label
            column = np.asarray(classes).tolist().index(pos_label)
            return proba[:, column], pos_label
        raise ValueError(f"{type(estimator).__name__} has neither decision_function nor "
                         "predict_proba: it gives no scores to rank")

    def __call__(self, estimator, X, y_true, sample_weight=None):
        scores, pos_label = self._positive_scores(estimator, X)
        return self._metric(y_true, scores, pos_label=pos_label, sample_weight=sample_weight,
                            **self._kwargs)


def _check_scorer_pos_label(pos_label):
    if isinstance(pos_label, (list, tuple, dict, set, np.ndarray)):
        raise ValueError(f"pos_label must be one label, got {pos_label!r}")
    if isinstance(pos_label, float) and pos_label != pos_label:
        raise ValueError("pos_label is NaN; name one of the labels")


def roc_auc_scorer(*, pos_label=None):
    """Scorer for ``GridSearchCV(scoring=...)``: :func:`roc_auc` of ``decision_function``.

    Parameters
    ----------
    pos_label : label, default=None
        The positive class; None: the estimator's ``classes_[1]`` (the rule
        of scikit-learn's ``"roc_auc"`` scorer).

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y_true, sample_weight=None)``
        ``decision_function`` is used, else the ``predict_proba`` column of
        the positive class.
    """
    _check_scorer_pos_label(pos_label)
    return _RankingScorer("roc_auc_scorer", roc_auc, pos_label, {})


def partial_auc_scorer(fpr_range=(0.0, 0.1), normalize="range", *, pos_label=None):
    """Scorer for ``GridSearchCV(scoring=...)``: :func:`partial_auc` of ``decision_function``.

    Example: ``GridSearchCV(est, grid, scoring=partial_auc_scorer(fpr_range=(0, 0.1)))``.

    Parameters
    ----------
    fpr_range, normalize
        As in :func:`partial_auc`; checked here, when the scorer is built.
    pos_label : label, default=None
        As in :func:`roc_auc_scorer`.

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y_true, sample_weight=None)``
    """
    fpr_range = check_fpr_range(fpr_range)
    _check_normalize(normalize)
    _check_scorer_pos_label(pos_label)
    return _RankingScorer("partial_auc_scorer", partial_auc, pos_label,
                          {"fpr_range": fpr_range, "normalize": normalize})


def tpr_at_fpr_scorer(fpr=0.1, interpolate=False, *, pos_label=None):
    """Scorer for ``GridSearchCV(scoring=...)``: :func:`tpr_at_fpr` of ``decision_function``.

    Parameters
    ----------
    fpr, interpolate
        As in :func:`tpr_at_fpr`; checked here, when the scorer is built.
    pos_label : label, default=None
        As in :func:`roc_auc_scorer`.

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y_true, sample_weight=None)``
    """
    fpr = check_rate(fpr, "fpr")
    _check_bool(interpolate, "interpolate")
    _check_scorer_pos_label(pos_label)
    return _RankingScorer("tpr_at_fpr_scorer", tpr_at_fpr, pos_label,
                          {"fpr": fpr, "interpolate": bool(interpolate)})

