"""Confidence interval of the TPR at a false-positive rate, by the stratified bootstrap.

The statistic is :func:`pauc.metrics.tpr_at_fpr` (the threshold rule): with
``n`` negatives, a rule ``score >= t`` may pass ``k`` of them, ``k`` the
largest count with ``k / n <= fpr``, and the best such rule passes the
positives scored strictly above ``v``, the ``(k + 1)``-th highest negative:
``TPR = #{positives > v} / m``.

A stratified bootstrap resample redraws ``n`` negatives and ``m`` positives,
independently.  Its statistic is therefore known in law, with no rows drawn:

* the resampled threshold ``v*`` is the ``(k + 1)``-th highest of ``n``
  draws from the negatives, and ``v* <= u`` exactly when at most ``k`` draws
  exceed ``u``: ``P(v* <= u) = P(Binomial(n, q(u)) <= k)``, ``q(u)`` the
  share of negatives above ``u`` (the order statistic's law, David &
  Nagaraja, Sec. 2.1);
* given ``v* = u``, the resampled positives above it are
  ``Binomial(m, p(u))``, ``p(u)`` the share of positives above ``u``.

So the resampled TPR is a mixture of binomials, one per distinct negative
score, weighted by the order statistic's law.  ``method="exact"`` computes
this mixture -- the bootstrap distribution itself, the limit of infinitely
many resamples, with no Monte Carlo error -- and its percentile interval;
``method="bootstrap"`` draws ``n_resamples`` values from it (the threshold by
inverting its distribution function, then the binomial count), which is the
same in law as redrawing the rows and computing ``tpr_at_fpr`` on each, at
O(log n) per resample.  Either way the cost is one sort of each class.
"""

import warnings

import numpy as np
from scipy.stats import binom

from ._clusters import ClusterBootstrap, check_groups
from ._intervals import (FEW_WINDOW_NEGATIVES, ConfidenceInterval, _check_choice,
                         _check_common, check_bootstrap, resampled_interval)
from ._resampling import seed_sequence
from .._validation import check_binary_scores, check_rate


def allowed_negatives(n_neg, fpr):
    """The most negatives ``k`` a threshold rule may pass at FPR ``fpr``: the largest
    ``k`` with ``k / n_neg <= fpr`` in floating point, as :func:`pauc.metrics.roc_curve`
    computes the FPR."""
    k = min(int(np.floor(fpr * n_neg)), n_neg)
    while k < n_neg and (k + 1) / n_neg <= fpr:
        k += 1
    while k > 0 and k / n_neg > fpr:
        k -= 1
    return k


def _first(predicate, size):
    """The first index in [0, size) where a monotone ``predicate`` (False, then True)
    holds, or ``size`` (bisection)."""
    low, high = 0, size
    while low < high:
        mid = (low + high) // 2
        if predicate(mid):
            high = mid
        else:
            low = mid + 1
    return low


class TPRLaw:
    """The stratified bootstrap distribution of the TPR at ``fpr``: a mixture of
    ``Binomial(m, p_j) / m`` with weights ``w_j``, one per distinct negative score
    ``u_j`` the resampled threshold can be.

    Attributes
    ----------
    m : int
        Positives.
    weight : float array
        The probability of each binomial component: ``P(v* = u_j)`` summed
        over the thresholds with the same ``p(u_j)``, those of positive
        probability only.
    p : float array
        Increasing: ``p(u_j)``, the share of positives scored above ``u_j``.
    estimate : float
        The sample's own TPR (equal to :func:`pauc.metrics.tpr_at_fpr`).
    """

    def __init__(self, pos, neg, fpr):
        self.m, n = pos.shape[0], neg.shape[0]
        k = allowed_negatives(n, fpr)
        if k >= n:
            # every negative may pass: the rule passes every positive, in every resample
            self.weight, self.p, self.estimate = np.ones(1), np.ones(1), 1.0
            return
        neg = np.sort(neg)[::-1]
        pos = np.sort(pos)
        values, first = np.unique(-neg, return_index=True)      # distinct, descending
        values = -values
        above_neg = first / n                                     # q(u_j): negatives > u_j
        above_pos = (self.m - np.searchsorted(pos, values, side="right")) / self.m
        self.estimate = float(above_pos[np.searchsorted(-values, -neg[k])])
        # P(v* <= u_j) falls from 1 (the highest score) as q(u_j) grows, and is 0.0 in
        # double from some score down: compute it above that score only (the same
        # floats as everywhere, where it is not 0)
        stop = _first(lambda j: binom.cdf(k, n, above_neg[j]) == 0.0, values.shape[0])
        at_most = np.r_[binom.cdf(k, n, above_neg[:stop]), 0.0]
        weight = at_most[:-1] - at_most[1:]        # P(v* = u_j)
        # thresholds with the same positives above them are one binomial
        p, component = np.unique(above_pos[:stop], return_inverse=True)
        weight = np.bincount(component, weights=weight)
        keep = weight > 0.0
        self.weight, self.p = weight[keep] / weight[keep].sum(), p[keep]

    def cdf(self, count):
        """``P(m TPR* <= count)``."""
        return float(np.dot(self.weight, binom.cdf(count, self.m, self.p)))

    def quantile(self, q):
        """The smallest TPR whose distribution function reaches ``q`` (by bisection
        over the ``m + 1`` possible counts)."""
        return _first(lambda count: self.cdf(count) >= q, self.m + 1) / self.m

    def standard_error(self):
        """The mixture's standard deviation (variance: mean within + between)."""
        p, w = self.p, self.weight
        mean = np.dot(w, p)
        second = np.dot(w, p * (1.0 - p) / self.m + p * p)
        return float(np.sqrt(max(second - mean * mean, 0.0)))

    def sample(self, size, rng):
        """``size`` draws of the resampled TPR: the threshold by inverting its
        distribution function, then the positives above it."""
        cumulative = np.cumsum(self.weight)
        j = np.searchsorted(cumulative, rng.random(size) * cumulative[-1], side="right")
        j = np.minimum(j, self.weight.shape[0] - 1)
        return rng.binomial(self.m, self.p[j]) / self.m


def _check_threshold_depth(n_neg, fpr):
    """Warn when the threshold is one of the few highest negatives: the window [0, fpr]
    then holds fewer than ``FEW_WINDOW_NEGATIVES`` of them (the rule of the window
    functions), and the resampled TPR takes few values."""
    k = allowed_negatives(n_neg, fpr)
    if k + 1 < FEW_WINDOW_NEGATIVES:
        warnings.warn(
            f"at FPR {fpr:g} the threshold lies among the {k + 1} highest of the {n_neg} "
            f"negatives: the resampled TPRs take few distinct values and the interval is "
            f"coarse (fewer than {FEW_WINDOW_NEGATIVES} negatives in the window); use more "
            "negatives or a larger FPR", UserWarning, stacklevel=3)


def tpr_at_fpr_ci(y_true, y_score, fpr, *, confidence_level=0.95, method="exact",
                  n_resamples=None, random_state=None, pos_label=None, groups=None):
    """Confidence interval of the TPR at a false-positive rate (stratified bootstrap).

    The statistic is :func:`pauc.metrics.tpr_at_fpr` with its default
    threshold rule: the best TPR of a rule ``score >= t`` whose FPR is at most
    ``fpr``, i.e. the share of positives above the ``(k + 1)``-th highest
    negative, ``k`` the most negatives the FPR allows.  The interval is the
    percentile interval ([1]_, Ch. 13) of its stratified bootstrap (positives
    and negatives redrawn separately, as pROC's [2]_).

    That bootstrap distribution is known exactly: the resampled threshold is
    an order statistic of the redrawn negatives, whose law is binomial
    (``P(v* <= u) = P(Binomial(n, q(u)) <= k)``, ``q(u)`` the share of
    negatives above ``u``; [3]_, Sec. 2.1), and given it the positives above
    it are ``Binomial(m, p(u))``.  ``method="exact"`` computes this mixture of
    binomials -- the bootstrap with infinitely many resamples -- and takes its
    quantiles; nothing is random, however few negatives the window holds (at
    FPR 1e-4 of 10,000 negatives the threshold is the 2nd highest of them,
    and the resamples take a handful of values that Monte Carlo would only
    sample).  ``method="bootstrap"`` draws ``n_resamples`` values from the same
    law (equal in distribution to redrawing the rows) and takes the type-7
    quantiles, as :func:`partial_auc_ci`.

    Parameters
    ----------
    y_true, y_score, pos_label
        As in :func:`pauc.metrics.tpr_at_fpr`.
    fpr : float in [0, 1]
    confidence_level : float in (0, 1), default=0.95
    method : {"exact", "bootstrap"}, default="exact"
    n_resamples : int >= 2, default=None
        ``method="bootstrap"`` only (None: 2000); refused with ``"exact"``,
        which draws nothing.  Below ``1 + 2 / (1 - confidence_level)`` (41 at
        95 %) a warning, as :func:`partial_auc_ci`.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        ``method="bootstrap"`` only; refused with ``"exact"``.
    groups : array of shape (n_samples,), default=None
        Cluster labels, with ``method="bootstrap"`` only (the exact law above
        holds for independent rows): the cluster bootstrap, whole groups
        redrawn within strata by their class composition (positives only,
        negatives only, both; :mod:`pauc.inference._clusters`), and ``tpr_at_fpr``
        computed on each resample's rows, O(rows above the threshold) each.

    Returns
    -------
    ConfidenceInterval
        ``estimate`` (equal to :func:`pauc.metrics.tpr_at_fpr`), ``low``,
        ``high``, ``standard_error`` (of the bootstrap distribution);
        ``method`` is ``"exact"`` or ``"percentile"``.  With
        ``method="bootstrap"``, as every bootstrap interval: ``resamples``
        (the resampled TPRs), ``chance`` (``fpr``: a random ranking's ROC
        curve is the diagonal) and ``pvalue_chance``, read off the same
        resamples (:func:`partial_auc_ci`, Notes).  The exact interval keeps
        none of the three (None).

    Raises
    ------
    ValueError
        Fewer than 2 positives or 2 negatives; ``fpr`` outside [0, 1]; with
        ``groups``, missing ids or a class whose every group is alone in its
        stratum (:func:`roc_auc_ci`).

    Warns
    -----
    UserWarning
        When the threshold is one of the 19 highest negatives (the window
        ``[0, fpr]`` holds fewer than 20: the interval is coarse), or a class
        holds fewer than 20 rows (with ``groups``, fewer than 20 redrawn
        groups hold it); too few resamples (``n_resamples``).

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. "An Introduction to the Bootstrap."
       Chapman & Hall, 1993.
    .. [2] Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez,
       J.-C. and Müller, M. "pROC: an open-source package for R and S+ to analyze
       and compare ROC curves." BMC Bioinformatics 12:77, 2011.
    .. [3] David, H. A. and Nagaraja, H. N. "Order Statistics." 3rd edition,
       Wiley, 2003.
    """
    _check_choice(method, "method", ("exact", "bootstrap"))
    if method == "exact" and groups is not None:
        raise ValueError("groups needs method='bootstrap' (the cluster bootstrap): the exact "
                         "law of the resampled TPR holds for independent rows only")
    if method == "exact" and (n_resamples is not None or random_state is not None):
        raise ValueError("n_resamples and random_state are for method='bootstrap'; the exact "
                         "interval computes the bootstrap distribution and draws nothing")
    confidence_level, n_resamples = _check_common(
        confidence_level, 2000 if n_resamples is None else n_resamples)
    fpr = check_rate(fpr, "fpr")
    is_pos, score, _, _ = check_binary_scores(y_true, y_score, pos_label=pos_label,
                                              exact_ranks=True)
    group_index = check_groups(groups, is_pos.shape[0])
    # the exact interval is the stratified bootstrap too (its classes checked), of
    # infinitely many resamples
    check_bootstrap(is_pos, group_index, n_resamples if method == "bootstrap" else None,
                    confidence_level)
    _check_threshold_depth(int(is_pos.shape[0] - np.count_nonzero(is_pos)), fpr)
    if group_index is not None:
        boot = ClusterBootstrap(is_pos, [score], group_index)
        estimate = boot.weighted_tpr(np.ones(boot.group_pos.shape[0], dtype=np.intc), fpr)
        # chance: a random ranking's TPR at FPR ``fpr`` is ``fpr`` (the ROC diagonal)
        return resampled_interval(estimate, boot.resample_tpr(n_resamples, random_state, fpr),
                                  float(fpr), confidence_level)
    law = TPRLaw(score[is_pos], score[~is_pos], fpr)
    tail = 0.5 * (1.0 - confidence_level)
    if method == "exact":
        return ConfidenceInterval(law.estimate, law.quantile(tail), law.quantile(1.0 - tail),
                                  law.standard_error(), confidence_level, "exact", None)
    rng = np.random.default_rng(seed_sequence(random_state))
    return resampled_interval(law.estimate, law.sample(n_resamples, rng), float(fpr),
                              confidence_level)

