"""Confidence intervals and paired tests for the AUC and the partial AUC.

Public through :mod:`pauc.metrics`:

* :func:`roc_auc_ci` -- DeLong's interval (fast algorithm of Sun & Xu), or
  the stratified bootstrap's;
* :func:`partial_auc_ci`, :func:`two_way_partial_auc_ci` -- the stratified
  bootstrap's percentile interval (one sort, then O(window) per resample);
* :func:`compare_two_rankers` -- the difference of two rankers on the same
  rows: DeLong's paired z test for the AUC, the paired stratified bootstrap
  (the same resamples for both scores) for either metric (public as
  :func:`pauc.metrics.compare_rankers`, with the many-ranker form of
  :mod:`pauc.inference._many_rankers`);
* :func:`roc_confidence_band` -- a pointwise bootstrap band of the ROC curve
  over the FPR window.

A window [α, β] of a test set holds about ``(β − α) n`` negatives: with a
few dozen of them, the partial AUC moves by a whole step of the ROC curve's
staircase when one negative changes place, and so does the difference of two
rankers.  The intervals here say how much.
"""

import math
import numbers
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy.special import ndtr, ndtri

from ._clusters import bootstrap_of, check_cluster_resampling, check_groups
from ._delong import delong_variance
from ._obuchowski import auc_covariance
from ._venkatraman import paired_test
from .._validation import (check_binary_scores, check_fpr_range, check_int, check_rate,
                          empirical_indices)

# Below this many negatives in the window the bootstrap distribution is a
# handful of atoms (the ROC staircase has that many steps there): warn.
FEW_WINDOW_NEGATIVES = 20

# Below this many rows of a class the stratified bootstrap's interval is too narrow:
# it redraws the same few rows of the rarer class.  Measured coverage of the nominal
# 95 % AUC interval (binormal d = 1, 200 negatives, 300 replications, 2,000
# resamples; table in _check_bootstrap_classes): warn below it.
FEW_CLASS_ROWS = 20

_NORMALIZATIONS = ("range", "mcclish", "none")


@dataclass(frozen=True, repr=False)
class ConfidenceInterval:
    """A metric's estimate with its confidence interval.

    Attributes
    ----------
    estimate : float
        The metric on the sample (equal to :func:`roc_auc` / :func:`partial_auc`).
    low, high : float
        The interval's ends.
    standard_error : float
        DeLong's standard error, or the standard deviation of the resampled
        values (bootstrap).
    confidence_level : float
    method : str
        ``"delong"``, ``"percentile"`` (bootstrap), or ``"exact"``
        (:func:`tpr_at_fpr_ci`'s exact bootstrap).
    n_resamples : int or None
        None for DeLong and the exact bootstrap.
    chance : float or None
        The metric of a ranker that ranks at random (the ROC diagonal's area
        over the window, in the metric's normalisation: 0.5 for the AUC,
        ``(α + β) / 2`` for ``normalize="range"``, 0.5 for ``"mcclish"``,
        ``(β² − α²) / 2`` for ``"none"``); None where not computed.
    pvalue_chance : float or None
        Two-sided p-value of "the population metric equals ``chance``": for
        the bootstrap, read off the resampled values that gave the interval
        (:func:`partial_auc_ci`, Notes); for DeLong, the z test.
    resamples : float array of shape (n_resamples,) or None
        The resampled values of the metric, as the interval's quantiles were
        taken from them (None for DeLong and the exact bootstrap).
    """

    estimate: float
    low: float
    high: float
    standard_error: float
    confidence_level: float
    method: str
    n_resamples: int = None
    chance: float = None
    pvalue_chance: float = None
    resamples: np.ndarray = field(default=None, compare=False, repr=False)

    def __repr__(self):
        # the interval only: chance and pvalue_chance are read as attributes
        boot = "" if self.n_resamples is None else f", n_resamples={self.n_resamples}"
        return (f"ConfidenceInterval(estimate={self.estimate:.4f}, "
                f"{100 * self.confidence_level:g}% CI [{self.low:.4f}, {self.high:.4f}], "
                f"standard_error={self.standard_error:.4f}, method={self.method!r}{boot})")


@dataclass(frozen=True, repr=False)
class RankerComparison:
    """Two rankers scored on the same rows: ``difference = estimate_a - estimate_b``.

    Attributes
    ----------
    metric : str
    method : str
        ``"delong"``, ``"bootstrap"`` or ``"venkatraman"`` (a permutation test
        of the whole curves, :mod:`pauc.inference._venkatraman`: its ``statistic`` is
        Venkatraman & Begg's ``E``, its ``pvalue`` the permutation p-value, and
        ``low``, ``high``, ``standard_error`` are NaN).
    estimate_a, estimate_b : float
    difference : float
    low, high : float
        Confidence interval of the difference.
    standard_error : float
        Of the difference.
    statistic : float
        ``difference / standard_error`` (DeLong's z; for the bootstrap, the
        statistic of pROC's ``roc.test``, D = difference / sd of the resampled
        differences).
    pvalue : float
        Two-sided, from the standard normal: the null hypothesis is equal
        population values of the metric.  With a zero standard error (every
        resample, or every placement value, agrees): statistic 0 and p-value 1
        when the difference is 0, else NaN for both -- the normal approximation
        has no scale, and a handful of positives redrawn alike is no certainty.
    confidence_level : float
    n_resamples : int or None
    resamples : float array of shape (n_resamples,) or None
        Bootstrap: the resampled differences (A − B) whose quantiles are the
        interval; None for DeLong; Venkatraman: the permuted statistics.
    """

    metric: str
    method: str
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    standard_error: float
    statistic: float
    pvalue: float
    confidence_level: float
    n_resamples: int = None
    resamples: np.ndarray = field(default=None, compare=False, repr=False)

    def __repr__(self):
        boot = "" if self.n_resamples is None else f", n_resamples={self.n_resamples}"
        # Venkatraman's permutation test has no interval (NaN): not printed
        ci = "" if self.method == "venkatraman" else (
            f"{100 * self.confidence_level:g}% CI [{self.low:.4f}, {self.high:.4f}], ")
        return (f"RankerComparison(metric={self.metric!r}, method={self.method!r}, "
                f"difference={self.difference:.4f} ({self.estimate_a:.4f} - "
                f"{self.estimate_b:.4f}), {ci}statistic={self.statistic:.3f}, "
                f"pvalue={self.pvalue:.4g}{boot})")


class ROCBand(NamedTuple):
    """A pointwise confidence band of the ROC curve over a grid of FPRs."""

    fpr: np.ndarray
    tpr: np.ndarray
    low: np.ndarray
    high: np.ndarray


# ---------------------------------------------------------------- argument checks

def _check_confidence_level(confidence_level):
    if isinstance(confidence_level, (bool, np.bool_)) \
            or not isinstance(confidence_level, numbers.Real) \
            or not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be a number in (0, 1), got {confidence_level!r}")
    return float(confidence_level)


def _check_choice(value, name, allowed):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _check_window(is_pos, fpr_lo, fpr_hi):
    """Refuse a window holding no negative position; warn when it holds few."""
    n_neg = int(is_pos.shape[0] - np.count_nonzero(is_pos))
    j_alpha, j_beta = empirical_indices(n_neg, (fpr_lo, fpr_hi))
    if j_beta - j_alpha < FEW_WINDOW_NEGATIVES:
        warnings.warn(
            f"the FPR window [{fpr_lo:g}, {fpr_hi:g}] holds {j_beta - j_alpha} of the "
            f"{n_neg} negatives: the resampled areas take few distinct values and the "
            f"interval is coarse (fewer than {FEW_WINDOW_NEGATIVES} negatives); widen the "
            "window or use more negatives", UserWarning, stacklevel=3)


def normalized_area(area, fpr_lo, fpr_hi, normalize):
    """The raw area over FPR in [fpr_lo, fpr_hi] as ``normalize`` reports it: the one
    rule of :func:`pauc.metrics.partial_auc` and of the resampled areas."""
    if normalize == "none":
        return area
    if normalize == "range":
        return area / (fpr_hi - fpr_lo)
    min_area = 0.5 * (fpr_hi * fpr_hi - fpr_lo * fpr_lo)
    max_area = fpr_hi - fpr_lo
    return 0.5 * (1.0 + (area - min_area) / (max_area - min_area))


def _check_bootstrap_classes(is_pos, stacklevel=2):
    """Refuse a class of one row, warn below ``FEW_CLASS_ROWS`` rows.

    A stratified resample redraws each class from its own rows: a class of one
    row is the same row in every resample, so the resampled metric ignores that
    class's spread altogether, and a class of a few rows shows little of it.
    Coverage of the nominal 95 % percentile interval of the AUC, binormal model
    with separation d = 1, 200 negatives, 300 replications, 2,000 resamples:

    ==========  ====  ====  ====  ====  ====  ====
    positives     1     2     5    10    20    50
    coverage    0.14  0.59  0.81  0.90  0.93  0.95
    ==========  ====  ====  ====  ====  ====  ====
    """
    m = int(np.count_nonzero(is_pos))
    n = int(is_pos.shape[0] - m)
    if m < 2 or n < 2:
        raise ValueError(
            f"the stratified bootstrap needs at least 2 positives and 2 negatives (got {m} "
            f"and {n}): it redraws the lone row of a class in every resample, so its "
            "interval would ignore that class's spread; label more rows of the rarer class")
    if min(m, n) < FEW_CLASS_ROWS:
        warnings.warn(
            f"{min(m, n)} {'positives' if m <= n else 'negatives'}: the stratified "
            f"bootstrap redraws the same few rows, and below {FEW_CLASS_ROWS} its intervals "
            "are too narrow (a nominal 95 % AUC interval covers about 0.8 with 5 positives) "
            "and its p-values too small", UserWarning, stacklevel=stacklevel + 1)


def min_resamples(confidence_level):
    """The fewest resamples whose percentile interval and chance test at
    ``confidence_level`` mean something: ``1 + 2 / (1 - level)``, 41 at 95 %.

    With B resamples the interval's lower end is the type-7 quantile at the
    (0-based) position ``(B - 1) t`` of the sorted resampled values, ``t = (1 -
    level) / 2``: below position 1 -- B < 1 + 1 / t -- no resampled value lies
    beyond the end (it is interpolated between the two most extreme ones), and
    the ends are the resamples' range rather than their tails.  And the chance
    test's smallest p-value, ``2 / (B + 1)``, exceeds ``1 - level`` below B =
    2 / (1 - level) - 1: the test could not reject at the interval's own level.
    Both hold from B = 1 + 2 / (1 - level): 21 at 90 %, 41 at 95 %, 201 at 99 %.
    (pROC's and this package's default, 2,000, is far above; it is what a
    stable interval end needs, Efron & Tibshirani, Ch. 19.)
    """
    tail = 0.5 * (1.0 - confidence_level)
    return math.ceil(1.0 + 1.0 / tail - 1e-9)      # (1 / 0.025 is 39.99999999999996)


def check_resample_count(n_resamples, confidence_level, stacklevel=2):
    """Warn below :func:`min_resamples` (``n_resamples = 2`` gave p = 0 and intervals
    excluding the estimate, issue 46)."""
    minimum = min_resamples(confidence_level)
    if n_resamples < minimum:
        warnings.warn(
            f"{n_resamples} resamples: below {minimum} a {100 * confidence_level:g} % "
            "percentile interval has no resample beyond its ends (it spans the resamples' "
            "range, not their tails), the chance p-value cannot fall below "
            f"{1.0 - confidence_level:g} and a paired test divides by the spread of a "
            f"handful of values; use at least {minimum} (2000, the default, gives stable "
            "interval ends)",
            UserWarning, stacklevel=stacklevel + 1)


def check_bootstrap(is_pos, group_index, n_resamples, confidence_level, stacklevel=2):
    """The checks of every bootstrap: the rows of each class
    (:func:`_check_bootstrap_classes`), with ``group_index`` the clusters that the
    resamples can vary (:func:`pauc.inference._clusters.check_cluster_resampling`), and the
    number of resamples (:func:`check_resample_count`; None: nothing drawn).
    ``stacklevel`` 2: the warnings point at the caller's caller (the user)."""
    _check_bootstrap_classes(is_pos, stacklevel + 1)
    if group_index is not None:
        check_cluster_resampling(is_pos, group_index, stacklevel + 1)
    if n_resamples is not None:
        check_resample_count(n_resamples, confidence_level, stacklevel + 1)


def _percentile_interval(values, confidence_level):
    """Efron & Tibshirani's percentile interval (Ch. 13): the resampled values'
    (1 ∓ level)/2 quantiles (linear interpolation, R's type 7, as pROC)."""
    tail = 0.5 * (1.0 - confidence_level)
    low, high = np.quantile(values, [tail, 1.0 - tail])
    # constant values have no spread (np.std's rounding of their mean gives ~1e-16,
    # which a test would read as certainty)
    se = 0.0 if values.min() == values.max() else float(np.std(values, ddof=1))
    return float(low), float(high), se


def chance_area(fpr_lo, fpr_hi, tpr_floor=0.0):
    """The raw area of the ROC diagonal (a random ranking) over FPR in [fpr_lo, fpr_hi]
    above TPR ``tpr_floor``: the integral of max(x - floor, 0)."""
    return 0.5 * (max(fpr_hi - tpr_floor, 0.0) ** 2 - max(fpr_lo - tpr_floor, 0.0) ** 2)


def _percentile_pvalue(values, null):
    """Two-sided bootstrap p-value of "the metric equals ``null``", read off the
    resampled values: twice the smaller share of them on either side of ``null``
    (the test whose acceptance region is the percentile interval), counted as
    (1 + count) / (1 + resamples), so that it is never 0 (Davison & Hinkley 1997,
    Ch. 4)."""
    below = np.count_nonzero(values <= null)
    above = np.count_nonzero(values >= null)
    return float(min(1.0, 2.0 * (1.0 + min(below, above)) / (values.shape[0] + 1.0)))


def _normal_test(difference, standard_error):
    """``(statistic, two-sided p-value)`` of ``difference / standard_error``.

    A zero standard error has two readings.  With a zero difference (identical
    rankings, or rankings that differ only where the metric does not look) the
    metric agrees on every resample: no evidence of a difference, statistic 0
    and p = 1.  With a non-zero difference the normal approximation has no
    scale: every resample (or every placement value) agreed, which with a
    handful of positives is the resampling's degeneracy, not certainty, so the
    statistic and the p-value are NaN rather than ±inf and 0.
    """
    if not standard_error > 0.0:
        if difference == 0.0:
            return 0.0, 1.0
        return math.nan, math.nan
    statistic = difference / standard_error
    return float(statistic), float(2.0 * ndtr(-abs(statistic)))


# ---------------------------------------------------------------- the bootstrap core

def _bootstrap_interval(is_pos, score, fpr_lo, fpr_hi, tpr_floor, scale, confidence_level,
                        n_resamples, random_state, n_jobs, group_index=None):
    """Estimate and percentile interval of ``scale(area)``: one sort, then the resamples
    (of rows by class, or of whole groups); the same resamples test the chance value."""
    boot = bootstrap_of(is_pos, [score], fpr_hi, group_index)
    estimate = scale(boot.observed(fpr_lo, fpr_hi, tpr_floor)[0])
    areas = boot.resample(n_resamples, random_state, fpr_lo, fpr_hi, tpr_floor,
                          n_jobs=n_jobs)[:, 0]
    chance = float(scale(chance_area(fpr_lo, fpr_hi, tpr_floor)))
    return resampled_interval(estimate, scale(areas), chance, confidence_level)


def resampled_interval(estimate, values, chance, confidence_level):
    """The percentile interval of the resampled ``values``, with what every bootstrap
    interval keeps: the resamples, the ``chance`` value and its test read off the same
    resamples (:func:`partial_auc_ci`, Notes)."""
    low, high, se = _percentile_interval(values, confidence_level)
    return ConfidenceInterval(float(estimate), low, high, se, confidence_level, "percentile",
                              int(values.shape[0]), chance, _percentile_pvalue(values, chance),
                              values)


def _check_common(confidence_level, n_resamples):
    # one resample has no spread: its "interval" is a point and its test certainty
    return _check_confidence_level(confidence_level), check_int(n_resamples, "n_resamples", 2)


# ---------------------------------------------------------------- public functions

def roc_auc_ci(y_true, y_score, *, confidence_level=0.95, method="delong", n_resamples=2000,
               random_state=None, n_jobs=None, pos_label=None, groups=None):
    """Confidence interval of the AUC: DeLong's, or the stratified bootstrap's.

    ``method="delong"``: the AUC's variance from the placement values
    (DeLong et al. 1988 [1]_, eqs. (3)-(5)), computed by Sun & Xu's fast
    algorithm [2]_ (eqs. (8)-(11): midranks from one sort per class, O(n log n),
    no pairs), and the normal interval ``estimate ± z σ`` clipped to [0, 1], as
    R's pROC ``ci.auc(method = "delong")`` [3]_.  ``method="bootstrap"``: the
    percentile interval of ``n_resamples`` stratified bootstrap resamples [4]_.

    Parameters
    ----------
    y_true, y_score, pos_label
        As in :func:`pauc.metrics.roc_auc`.
    confidence_level : float in (0, 1), default=0.95
    method : {"delong", "bootstrap"}, default="delong"
    n_resamples : int >= 2, default=2000
        Bootstrap only.  Below ``1 + 2 / (1 - confidence_level)`` (41 at 95 %)
        a warning: the percentile interval then has no resample beyond its
        ends and the chance test cannot reject at ``1 - confidence_level``
        (:func:`partial_auc_ci`, Notes).
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Bootstrap only: the same value gives the same interval, whatever ``n_jobs``.
    n_jobs : int, default=None
        Bootstrap only: threads running blocks of resamples.
    groups : array of shape (n_samples,), default=None
        Cluster labels (patients, accounts): rows of one group are resampled
        together (the cluster bootstrap, strata by the groups' class
        composition: positives only, negatives only, both); with
        ``method="delong"``, Obuchowski's clustered variance [5]_.  None: the
        rows are independent.

    Returns
    -------
    ConfidenceInterval
        ``estimate`` (equal to :func:`pauc.metrics.roc_auc`), ``low``, ``high``,
        ``standard_error``; ``chance`` (0.5) and ``pvalue_chance``: DeLong's z
        test of AUC = 0.5, or the bootstrap test of :func:`partial_auc_ci`
        (its Notes); ``resamples`` (bootstrap).

    Raises
    ------
    ValueError
        Fewer than 2 positives or 2 negatives (both methods: one row of a class
        shows nothing of that class's spread); with ``groups``, fewer than 2
        groups holding a class, and for the bootstrap a class whose every group
        is alone in its stratum (drawn once in every resample: nothing of that
        class varies; Obuchowski's variance is not concerned); missing group
        ids (NaN, None, NA, NaT).

    Warns
    -----
    UserWarning
        Bootstrap, fewer than 20 rows of a class, or with ``groups`` fewer than
        20 groups holding a class that the resamples redraw: the interval is too
        narrow (coverage tables in the user guide); fewer resamples than the
        level needs (``n_resamples``).

    Notes
    -----
    The stratified bootstrap redraws each class from its own rows, so with a
    few rows of a class its interval misses.  Coverage of the nominal 95 %
    bootstrap interval (binormal model, d = 1, 200 negatives, 300
    replications, 2,000 resamples; measured for this package):

    ==========  ====  ====  ====  ====  ====  ====
    positives     1     2     5    10    20    50
    coverage    0.14  0.59  0.81  0.90  0.93  0.95
    ==========  ====  ====  ====  ====  ====  ====

    One row of a class is refused, fewer than 20 warned about.

    References
    ----------
    .. [1] DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. "Comparing the
       Areas under Two or More Correlated Receiver Operating Characteristic
       Curves: A Nonparametric Approach." Biometrics 44(3), 1988.
    .. [2] Sun, X. and Xu, W. "Fast Implementation of DeLong's Algorithm for
       Comparing the Areas Under Correlated Receiver Operating Characteristic
       Curves." IEEE Signal Processing Letters 21(11), 2014.
    .. [3] Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez,
       J.-C. and Müller, M. "pROC: an open-source package for R and S+ to analyze
       and compare ROC curves." BMC Bioinformatics 12:77, 2011.
    .. [4] Efron, B. and Tibshirani, R. J. "An Introduction to the Bootstrap."
       Chapman & Hall, 1993.
    .. [5] Obuchowski, N. A. "Nonparametric analysis of clustered ROC curve
       data." Biometrics 53(2), 1997.
    """
    confidence_level, n_resamples = _check_common(confidence_level, n_resamples)
    _check_choice(method, "method", ("delong", "bootstrap"))
    is_pos, score, _, _ = check_binary_scores(y_true, y_score, pos_label=pos_label,
                                              exact_ranks=True)
    group_index = check_groups(groups, is_pos.shape[0])
    if method == "bootstrap":
        check_bootstrap(is_pos, group_index, n_resamples, confidence_level)
        return _bootstrap_interval(is_pos, score, 0.0, 1.0, 0.0, lambda a: a, confidence_level,
                                   n_resamples, random_state, n_jobs, group_index)
    if group_index is None:
        auc, variance = delong_variance(is_pos, score)
    else:
        (auc,), ((variance,),) = auc_covariance(is_pos, [score], group_index)
    se = math.sqrt(variance)
    z = float(ndtri(0.5 * (1.0 + confidence_level)))
    _, pvalue = _normal_test(auc - 0.5, se)
    return ConfidenceInterval(float(auc), max(0.0, auc - z * se), min(1.0, auc + z * se), se,
                              confidence_level, "delong", None, 0.5, pvalue)


def partial_auc_ci(y_true, y_score, *, fpr_range=(0.0, 0.1), normalize="range",
                   confidence_level=0.95, n_resamples=2000, method="percentile",
                   random_state=None, n_jobs=None, pos_label=None, groups=None):
    """Confidence interval of the partial AUC by the stratified bootstrap.

    Positives and negatives are resampled separately (the stratified bootstrap,
    pROC's default [2]_), ``n_resamples`` times; the interval is the percentile
    interval of the resampled partial AUCs ([1]_, Ch. 13).  The scores are
    sorted once: a resample is a vector of multiplicities, and its partial
    area follows from weighted counts in sorted order, equal to
    :func:`pauc.metrics.partial_auc` on the resampled rows to the last bit.
    Only the rows that can reach FPR β are drawn, so a resample costs
    O(β n + the positives above them) (:mod:`pauc.inference._bootstrap`).

    Parameters
    ----------
    y_true, y_score, pos_label
        As in :func:`pauc.metrics.partial_auc`.
    fpr_range : (float, float), default=(0.0, 0.1)
    normalize : {"range", "mcclish", "none"}, default="range"
        As in :func:`pauc.metrics.partial_auc`.
    confidence_level : float in (0, 1), default=0.95
    n_resamples : int >= 2, default=2000
        Below ``1 + 2 / (1 - confidence_level)`` (41 at 95 %, 201 at 99 %) a
        warning (Notes).
    method : {"percentile"}, default="percentile"
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        The same value gives the same interval, whatever ``n_jobs``.
    n_jobs : int, default=None
        Threads running blocks of resamples (the kernel releases the GIL).
    groups : array of shape (n_samples,), default=None
        Cluster labels (patients, accounts): rows of one group are resampled
        together (the cluster bootstrap, strata by the groups' class
        composition: positives only, negatives only, both; [5]_,
        :mod:`pauc.inference._clusters`).  None: the rows are independent.

    Returns
    -------
    ConfidenceInterval
        ``estimate`` (equal to :func:`pauc.metrics.partial_auc`), ``low``,
        ``high``, ``standard_error``; ``chance`` and ``pvalue_chance`` (Notes);
        ``resamples``, the resampled partial AUCs.

    Raises
    ------
    ValueError
        Fewer than 2 positives or 2 negatives (see :func:`roc_auc_ci`); a window
        holding no negative (``ceil(n β) - floor(n α) < 1``); ``confidence_level``
        outside (0, 1); ``n_resamples < 2``; with ``groups``, missing ids or a
        class whose every group is alone in its stratum (:func:`roc_auc_ci`).

    Warns
    -----
    UserWarning
        When the window holds fewer than 20 negatives: the resampled areas take
        few values and the interval is coarse; when a class holds fewer than 20
        rows, or with ``groups`` fewer than 20 redrawn groups: the interval is
        too narrow (coverage table in :func:`roc_auc_ci`); with fewer than
        ``1 + 2 / (1 - confidence_level)`` resamples (Notes).

    Notes
    -----
    **Against chance.**  ``pvalue_chance`` tests "the population partial AUC
    equals ``chance``", the area of the ROC diagonal over the window in the
    chosen normalisation (``"range"``: ``(α + β) / 2``; ``"mcclish"``: 0.5;
    ``"none"``: ``(β² − α²) / 2``), with the resamples of the interval: twice
    the smaller share of resampled values on either side of ``chance``,
    ``2 (1 + #) / (1 + n_resamples)`` so that it is never 0 ([4]_, Ch. 4; the
    achieved significance level read off the bootstrap distribution, [1]_,
    Ch. 16).  This is the test whose acceptance region is the percentile
    interval: it rejects at ``1 − confidence_level`` when ``chance`` lies
    outside the interval (up to the interval's quantile interpolation), so
    the two never disagree.  A normal test (estimate − chance) / standard
    error is not used: over a narrow window the resampled partial AUC is
    bounded, skewed and takes few values (a staircase of few negatives), and
    its normal tail would misstate the p-value.  The normalisations are
    increasing affine maps of the raw area, so they give the same p-value.
    With ``n_resamples`` resamples the smallest p-value is
    ``2 / (n_resamples + 1)``.

    **How many resamples.**  The interval's lower end is the type-7 quantile
    at the (0-based) position ``(B - 1)(1 - level) / 2`` of the B sorted
    resampled values: below position 1 no resample lies beyond it, and the
    interval is the resamples' range rather than their tails (with B = 2 it
    may even exclude the estimate); the chance test's smallest p-value,
    ``2 / (B + 1)``, exceeds ``1 - level`` below ``B = 2 / (1 - level) - 1``.
    Both mean something from ``B = 1 + 2 / (1 - level)``: 41 at 95 %, 201 at
    99 %.  Fewer are warned about.  That is a floor, not a recommendation:
    the interval's ends settle with a couple of thousand resamples ([1]_,
    Ch. 19).

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. "An Introduction to the Bootstrap."
       Chapman & Hall, 1993.
    .. [2] Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez,
       J.-C. and Müller, M. "pROC: an open-source package for R and S+ to analyze
       and compare ROC curves." BMC Bioinformatics 12:77, 2011.
    .. [3] McClish, D. K. "Analyzing a portion of the ROC curve." Medical
       Decision Making 9(3), 1989.
    .. [4] Davison, A. C. and Hinkley, D. V. "Bootstrap Methods and their
       Application." Cambridge University Press, 1997.
    .. [5] Field, C. A. and Welsh, A. H. "Bootstrapping clustered data." Journal
       of the Royal Statistical Society B 69(3), 2007.
    """
    confidence_level, n_resamples = _check_common(confidence_level, n_resamples)
    alpha, beta = check_fpr_range(fpr_range)
    _check_choice(normalize, "normalize", _NORMALIZATIONS)
    _check_choice(method, "method", ("percentile",))
    is_pos, score, _, _ = check_binary_scores(y_true, y_score, pos_label=pos_label,
                                              exact_ranks=True)
    group_index = check_groups(groups, is_pos.shape[0])
    check_bootstrap(is_pos, group_index, n_resamples, confidence_level)
    _check_window(is_pos, alpha, beta)
    return _bootstrap_interval(is_pos, score, alpha, beta, 0.0,
                               lambda a: normalized_area(a, alpha, beta, normalize),
                               confidence_level, n_resamples, random_state, n_jobs, group_index)


def two_way_partial_auc_ci(y_true, y_score, *, max_fpr=0.3, min_tpr=0.7, normalize="range",
                           confidence_level=0.95, n_resamples=2000, random_state=None,
                           n_jobs=None, pos_label=None, groups=None):
    """Confidence interval of the two-way partial AUC by the stratified bootstrap.

    As :func:`partial_auc_ci`, for :func:`pauc.metrics.two_way_partial_auc`
    (the region FPR <= ``max_fpr``, TPR >= ``min_tpr`` of Yang et al. [2]_);
    ``groups`` as there.  ``chance`` is the diagonal's area over the region (0
    when ``max_fpr <= min_tpr``), tested as in :func:`partial_auc_ci`.

    Returns
    -------
    ConfidenceInterval

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. "An Introduction to the Bootstrap."
       Chapman & Hall, 1993.
    .. [2] Yang, Z., Xu, Q., Bao, S., He, Y., Cao, X. and Huang, Q. "When All We
       Need is a Piece of the Pie: A Generic Framework for Optimizing Two-way
       Partial AUC." ICML 2021.
    """
    confidence_level, n_resamples = _check_common(confidence_level, n_resamples)
    max_fpr = check_rate(max_fpr, "max_fpr", low_open=True)
    min_tpr = check_rate(min_tpr, "min_tpr", high_open=True)
    _check_choice(normalize, "normalize", ("range", "none"))
    is_pos, score, _, _ = check_binary_scores(y_true, y_score, pos_label=pos_label,
                                              exact_ranks=True)
    group_index = check_groups(groups, is_pos.shape[0])
    check_bootstrap(is_pos, group_index, n_resamples, confidence_level)
    _check_window(is_pos, 0.0, max_fpr)
    width = max_fpr * (1.0 - min_tpr) if normalize == "range" else 1.0
    return _bootstrap_interval(is_pos, score, 0.0, max_fpr, min_tpr, lambda a: a / width,
                               confidence_level, n_resamples, random_state, n_jobs, group_index)


def check_rankers_scores(y_true, vectors, names, pos_label):
    """``(is_pos, scores)`` of rankers scoring the same rows, each vector checked as
    :func:`pauc.metrics.roc_auc` checks ``y_score``; an error about one vector's
    scores (NaN, length, shape) names its ranker.  The labels are checked first,
    alone, so that an error about them names no ranker."""
    y_true = np.asarray(y_true)
    check_binary_scores(y_true, np.zeros(y_true.shape[0] if y_true.ndim else 0),
                        pos_label=pos_label)
    scores = []
    for name, vector in zip(names, vectors):
        try:
            is_pos, score, _, _ = check_binary_scores(y_true, vector, pos_label=pos_label,
                                                      exact_ranks=True)
        except ValueError as error:
            who = name if isinstance(name, str) and name.startswith("score_") \
                else f"ranker {name!r}"
            raise ValueError(f"{who}: {str(error).replace('y_score', 'its scores')}") \
                from error
        scores.append(score)
    return is_pos, scores


def check_compared_rows(is_pos, method, metric, alpha, beta, groups, n_resamples,
                        confidence_level, stacklevel=3):
    """The checks of rankers compared on rows ``is_pos`` (two or many): the groups
    (their codes, or None), what a bootstrap needs (:func:`check_bootstrap`), the
    window's negatives.  ``stacklevel`` 3: warnings point at the caller of
    :func:`pauc.metrics.compare_rankers`."""
    if method == "venkatraman" and groups is not None:
        raise ValueError("method='venkatraman' permutes each row's two ranks, rows taken as "
                         "independent: it does not take groups=")
    group_index = check_groups(groups, is_pos.shape[0])
    if method == "bootstrap":
        check_bootstrap(is_pos, group_index, n_resamples, confidence_level, stacklevel + 1)
    if metric == "partial_auc":
        _check_window(is_pos, alpha, beta)
    return group_index


def compare_two_rankers(y_true, score_a, score_b, *, metric="roc_auc", fpr_range=None,
                        normalize="range", method=None, confidence_level=0.95,
                        n_resamples=2000, random_state=None, n_jobs=None, pos_label=None,
                        groups=None):
    """Two rankers on the same rows: :func:`pauc.metrics.compare_rankers` with
    ``score_b`` (documented there, :mod:`pauc.inference._many_rankers`)."""
    confidence_level, n_resamples = _check_common(confidence_level, n_resamples)
    method, alpha, beta = _comparison_settings(metric, method, fpr_range, normalize)
    is_pos, (a, b) = check_rankers_scores(y_true, [score_a, score_b], ["score_a", "score_b"],
                                          pos_label)
    group_index = check_compared_rows(is_pos, method, metric, alpha, beta, groups,
                                      n_resamples, confidence_level)
    if method == "delong":
        (auc_a, auc_b), cov = auc_covariance(is_pos, [a, b], group_index)
        return delong_comparison(auc_a, auc_b, cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1],
                                 confidence_level)
    if method == "venkatraman":
        (auc_a, auc_b), _ = auc_covariance(is_pos, [a, b])
        return venkatraman_comparison(auc_a, auc_b, is_pos, a, b, confidence_level,
                                      n_resamples, random_state)
    scale = _comparison_scale(metric, alpha, beta, normalize)
    boot = bootstrap_of(is_pos, [a, b], beta, group_index)
    est_a, est_b = scale(boot.observed(alpha, beta, 0.0))
    areas = scale(boot.resample(n_resamples, random_state, alpha, beta, 0.0, n_jobs=n_jobs))
    return bootstrap_comparison(metric, est_a, est_b, areas[:, 0] - areas[:, 1],
                                confidence_level, n_resamples)


def _comparison_settings(metric, method, fpr_range, normalize):
    """``(method, alpha, beta)`` of a comparison, its arguments checked."""
    _check_choice(metric, "metric", ("roc_auc", "partial_auc"))
    if method is None:
        method = "delong" if metric == "roc_auc" else "bootstrap"
    _check_choice(method, "method", ("delong", "bootstrap", "venkatraman"))
    if method == "venkatraman" and metric != "roc_auc":
        # pROC refuses it too: the test is of the whole curves, it has no window
        raise ValueError("method='venkatraman' tests the whole ROC curves (metric='roc_auc'); "
                         "the partial AUC is compared by method='bootstrap'")
    if metric == "roc_auc":
        if fpr_range is not None:
            raise ValueError("fpr_range is for metric='partial_auc'; the AUC has no window")
        return method, 0.0, 1.0
    if method == "delong":
        raise ValueError("method='delong' is for metric='roc_auc'; the partial AUC is "
                         "compared by method='bootstrap'")
    alpha, beta = check_fpr_range((0.0, 0.1) if fpr_range is None else fpr_range)
    _check_choice(normalize, "normalize", _NORMALIZATIONS)
    return method, alpha, beta


def _comparison_scale(metric, alpha, beta, normalize):
    """Raw areas -> the compared metric."""
    if metric == "roc_auc":
        return lambda x: x
    return lambda x: normalized_area(x, alpha, beta, normalize)


def delong_comparison(auc_a, auc_b, variance, confidence_level):
    """DeLong's z test and normal interval of ``auc_a - auc_b`` given the variance
    of the difference (``var_a + var_b - 2 cov``)."""
    difference = auc_a - auc_b
    se = math.sqrt(max(variance, 0.0))
    statistic, pvalue = _normal_test(difference, se)
    z = float(ndtri(0.5 * (1.0 + confidence_level)))
    return RankerComparison("roc_auc", "delong", float(auc_a), float(auc_b), float(difference),
                            difference - z * se, difference + z * se, se, statistic, pvalue,
                            confidence_level, None)


def venkatraman_comparison(auc_a, auc_b, is_pos, a, b, confidence_level, n_resamples,
                           random_state):
    """Venkatraman & Begg's paired permutation test as a :class:`RankerComparison`: the
    AUCs ``auc_a``, ``auc_b`` (computed by the caller) for the record, ``E`` and its
    p-value; no interval (it tests curves, not a difference of areas)."""
    test = paired_test(is_pos, a, b, n_resamples, random_state)
    return RankerComparison("roc_auc", "venkatraman", float(auc_a), float(auc_b),
                            float(auc_a - auc_b), math.nan, math.nan, math.nan, test.statistic,
                            test.pvalue, confidence_level, n_resamples, test.permuted)


def bootstrap_comparison(metric, est_a, est_b, differences, confidence_level, n_resamples):
    """The paired bootstrap's percentile interval and test of ``est_a - est_b`` from
    the resampled differences."""
    low, high, se = _percentile_interval(differences, confidence_level)
    difference = est_a - est_b
    statistic, pvalue = _normal_test(difference, se)
    return RankerComparison(metric, "bootstrap", float(est_a), float(est_b), float(difference),
                            low, high, se, statistic, pvalue, confidence_level, n_resamples,
                            differences)


def roc_confidence_band(y_true, y_score, *, fpr_range=(0.0, 0.1), n_points=50,
                        confidence_level=0.95, n_resamples=2000, random_state=None,
                        n_jobs=None, pos_label=None, groups=None):
    """Pointwise bootstrap band of the ROC curve over the FPR window.

    At each of ``n_points`` FPRs spaced evenly over ``fpr_range`` the height
    of the (piecewise-linear) empirical ROC curve of each stratified bootstrap
    resample is taken, and the band is their percentile interval, point by
    point ([1]_, Ch. 13).  A pointwise band: each vertical slice covers the
    true curve with the stated level, the whole curve less often.  With
    ``groups`` the resamples draw whole groups (as :func:`partial_auc_ci`).

    Returns
    -------
    ROCBand
        ``fpr`` (the grid), ``tpr`` (the sample's curve there), ``low``, ``high``.

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. "An Introduction to the Bootstrap."
       Chapman & Hall, 1993.
    """
    confidence_level, n_resamples = _check_common(confidence_level, n_resamples)
    alpha, beta = check_fpr_range(fpr_range)
    n_points = check_int(n_points, "n_points", 2)
    is_pos, score, _, _ = check_binary_scores(y_true, y_score, pos_label=pos_label,
                                              exact_ranks=True)
    group_index = check_groups(groups, is_pos.shape[0])
    check_bootstrap(is_pos, group_index, n_resamples, confidence_level)
    _check_window(is_pos, alpha, beta)
    grid = np.linspace(alpha, beta, n_points)
    boot = bootstrap_of(is_pos, [score], beta, group_index)
    _, observed = boot.observed(alpha, beta, 0.0, grid)
    _, heights = boot.resample(n_resamples, random_state, alpha, beta, 0.0, n_jobs=n_jobs,
                               grid=grid)
    tail = 0.5 * (1.0 - confidence_level)
    low, high = np.quantile(heights, [tail, 1.0 - tail], axis=0)
    return ROCBand(grid, observed[0], low, high)
