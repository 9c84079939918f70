"""Comparing rankers on the same rows: two (:mod:`pauc.inference._intervals`), or many at once.

:func:`compare_rankers` (public through :mod:`pauc.metrics`) compares two
score vectors, or k of them: every pair (or each against a reference) on one
set of resamples.

k score vectors ranking the same labelled rows are compared pairwise from
**one** joint estimate of their sampling distribution, so the pairs' tests
are consistent with each other:

* DeLong: the k x k covariance matrix ``S`` of the AUCs from the placement
  values (DeLong et al. 1988, eq. (5); Obuchowski 1997 with clusters), and
  for the pair (i, j) the contrast ``c = e_i - e_j``: ``var = c' S c``;
* bootstrap: one set of resamples (multiplicity vectors) scores every ranker;
  the pair's resampled differences are the difference of its two columns.

A pair's result is that of :func:`pauc.metrics.compare_rankers` on the two
score vectors alone: to 1e-12 for DeLong (the same placement values), and for
the bootstrap exactly when the full AUC is compared (both calls draw every row
of each class, in row order, from the same seeds).  For a partial AUC the
resamples draw only the rows that some ranker can bring into the window (the
lazy prefix of :mod:`pauc.inference._resampling`), a set that grows with the rankers: a
pair's resamples then follow the same law as in a two-ranker call, drawn
differently.  The family's p-values are adjusted by Holm's or
Benjamini-Hochberg's rule (:mod:`pauc.inference._p_adjust`); the intervals are each
pair's own (not simultaneous).

References
----------
DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. "Comparing the Areas
under Two or More Correlated Receiver Operating Characteristic Curves: A
Nonparametric Approach." Biometrics 44(3), 1988.  Holm, S. "A Simple
Sequentially Rejective Multiple Test Procedure." Scandinavian Journal of
Statistics 6(2), 1979.  Benjamini, Y. and Hochberg, Y. "Controlling the False
Discovery Rate: A Practical and Powerful Approach to Multiple Testing."
Journal of the Royal Statistical Society B 57(1), 1995.
"""

from collections.abc import Mapping
from dataclasses import dataclass, fields
from itertools import combinations

import numpy as np

from ._clusters import bootstrap_of
from ._intervals import (_check_common, _comparison_scale, _comparison_settings,
                         bootstrap_comparison, check_compared_rows, check_rankers_scores,
                         compare_two_rankers, delong_comparison, venkatraman_comparison)
from ._obuchowski import auc_covariance
from ._p_adjust import adjust_pvalues, check_p_adjust
from ._resampling import seed_sequence


@dataclass(frozen=True, repr=False)
class RankerComparisons:
    """k rankers compared pairwise on the same rows.

    Attributes
    ----------
    metric, method : str
    names : tuple
        The rankers, in the order given.
    estimates : dict
        ``name -> metric`` on the sample.
    pairs : tuple of (name_a, name_b)
        The compared pairs; each row's difference is ``a - b``.
    comparisons : tuple of RankerComparison
        One per pair, as :func:`pauc.metrics.compare_rankers` on the two rankers.
    pvalue_adjusted : float64 array
        The p-values adjusted for the family (``p_adjust``).
    p_adjust : str or None
    confidence_level : float
    n_resamples : int or None
    """

    metric: str
    method: str
    names: tuple
    estimates: dict
    pairs: tuple
    comparisons: tuple
    pvalue_adjusted: np.ndarray
    p_adjust: str
    confidence_level: float
    n_resamples: int = None

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, pair):
        """The comparison of ``(name_a, name_b)``; ``(name_b, name_a)`` is refused
        (its difference has the other sign)."""
        try:
            return self.comparisons[self.pairs.index(tuple(pair))]
        except ValueError:
            raise KeyError(f"no comparison {tuple(pair)!r}; the pairs are {self.pairs}") \
                from None

    def to_dicts(self):
        """One dict per pair: ``ranker_a``, ``ranker_b``, the RankerComparison's
        scalar fields and ``pvalue_adjusted``."""
        rows = []
        for (a, b), comparison, adjusted in zip(self.pairs, self.comparisons,
                                                self.pvalue_adjusted):
            row = {"ranker_a": a, "ranker_b": b}
            # the scalar fields (not the resampled differences)
            row.update({f.name: getattr(comparison, f.name) for f in fields(comparison)
                        if f.compare})
            row["pvalue_adjusted"] = float(adjusted)
            rows.append(row)
        return rows

    def to_frame(self):
        """The table as a pandas DataFrame (pandas needed)."""
        try:
            import pandas as pd
        except ImportError as error:
            raise ImportError("to_frame needs pandas (pip install pandas); to_dicts does "
                              "not") from error
        return pd.DataFrame(self.to_dicts())

    def __repr__(self):
        level = f"{100 * self.confidence_level:g}% CI"
        adjusted = {"holm": "Holm", "bh": "BH", None: "none"}[self.p_adjust]
        head = (f"RankerComparisons(metric={self.metric!r}, method={self.method!r}, "
                f"{len(self.names)} rankers, {len(self)} pairs, p_adjust={self.p_adjust!r}"
                + ("" if self.n_resamples is None else f", n_resamples={self.n_resamples}")
                + ")")
        width = max([8] + [len(str(name)) for name in self.names])
        lines = [head, f"{'A':<{width}} {'B':<{width}} {'est. A':>8} {'est. B':>8} "
                       f"{'A - B':>8} {level:>20} {'p-value':>9} {'adj. ' + adjusted:>9}"]
        for (a, b), c, p in zip(self.pairs, self.comparisons, self.pvalue_adjusted):
            lines.append(f"{str(a):<{width}} {str(b):<{width}} {c.estimate_a:>8.4f} "
                         f"{c.estimate_b:>8.4f} {c.difference:>8.4f} "
                         f"{f'[{c.low:.4f}, {c.high:.4f}]':>20} {c.pvalue:>9.3g} {p:>9.3g}")
        return "\n".join(lines)

    __str__ = __repr__


def _is_data_frame(scores):
    """A pandas DataFrame (or alike: columns, ``iloc``, 2-D), without importing pandas,
    an optional dependency."""
    return getattr(scores, "ndim", None) == 2 and hasattr(scores, "columns") \
        and hasattr(scores, "iloc")


def named_scores(scores):
    """``(names, vectors)`` from a dict, a pandas DataFrame (a column per ranker, named
    by the column), a list/tuple of vectors or a 2-D array."""
    if isinstance(scores, Mapping):
        names, vectors = tuple(scores.keys()), list(scores.values())
    elif _is_data_frame(scores):
        names = tuple(scores.columns)
        repeated = sorted({repr(name) for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError("the rankers are the DataFrame's columns: column names must be "
                             f"unique, got {', '.join(repeated)} more than once")
        # by position: the index plays no part (the rows are y_true's, in order)
        vectors = [scores.iloc[:, k].to_numpy() for k in range(len(names))]
    elif isinstance(scores, (list, tuple)):
        names, vectors = tuple(range(len(scores))), list(scores)
    elif isinstance(scores, np.ndarray) and scores.ndim == 2:
        names, vectors = tuple(range(scores.shape[1])), list(scores.T)
    else:
        raise ValueError("compare_rankers needs score_b, or several rankers' scores in "
                         "score_a: a dict {name: scores}, a pandas DataFrame or a 2-D array "
                         "with one column per ranker, or a list of score vectors")
    if len(vectors) < 2:
        raise ValueError(f"comparing rankers needs at least 2 score vectors, got {len(vectors)}")
    return names, vectors


def compared_pairs(names, reference):
    """Index pairs: every pair (i < j), or ``(i, reference)`` for every other i."""
    if reference is None:
        return list(combinations(range(len(names)), 2))
    if reference not in names:
        raise ValueError(f"reference {reference!r} is not one of the rankers {names}")
    ref = names.index(reference)
    return [(i, ref) for i in range(len(names)) if i != ref]


def compare_rankers(y_true, score_a, score_b=None, *, metric="roc_auc", fpr_range=None,
                    normalize="range", method=None, confidence_level=0.95, n_resamples=2000,
                    random_state=None, n_jobs=None, pos_label=None, reference=None,
                    p_adjust="holm", groups=None):
    """Is ranker A's AUC (or partial AUC) different from ranker B's on the same rows?

    A paired comparison: both score vectors rank the same labelled rows, so
    their metrics are correlated and the difference's variance accounts for it.
    ``compare_rankers(y, score_a, score_b)`` compares two rankers;
    ``compare_rankers(y, {"A": a, "B": b, "C": c})`` (or a list of score
    vectors) compares every pair, or each ranker against ``reference``, on one
    shared set of resamples (one covariance matrix for DeLong), with the
    p-values adjusted for the family of tests (:func:`compare_many_rankers`).

    * ``method="delong"`` (``metric="roc_auc"`` only; its default): DeLong's
      covariance of the two AUCs from their placement values ([1]_, eq. (5);
      fast algorithm of [2]_) and the z test ``(θ_A − θ_B) / sqrt(var_A + var_B
      − 2 cov)``, as pROC's ``roc.test(method = "delong", paired = TRUE)`` [3]_;
      the interval is ``difference ± z σ``.
    * ``method="bootstrap"`` (the default for ``metric="partial_auc"``): the
      paired stratified bootstrap, the **same** resamples (multiplicity
      vectors) for both scores; ``statistic = difference / sd(resampled
      differences)`` with a normal p-value (pROC's bootstrap ``roc.test``),
      the interval the percentile interval of the resampled differences [4]_.
    * ``method="venkatraman"`` (``metric="roc_auc"``): Venkatraman & Begg's
      permutation test [8]_ that the two ROC curves are one curve at every
      operating point (crossing curves of equal AUC differ), as pROC's
      ``roc.test(method = "venkatraman", paired = TRUE)``: ``statistic`` is its
      ``E``, ``pvalue`` from ``n_resamples`` permutations, no interval (NaN).
      The unpaired test (two sets of rows) is :func:`venkatraman_test`.

    Parameters
    ----------
    y_true : array of shape (n_samples,)
    score_a : array of shape (n_samples,), or several score vectors
        Ranker A's scores; or, without ``score_b``, k >= 2 rankers' scores: a
        dict ``{name: scores}``, a pandas DataFrame with one column per ranker
        (named by its column; the index plays no part), a list or tuple of
        score vectors (named 0, 1, ...), or a 2-D array with one column per
        ranker.  An error about one ranker's scores (NaN, length) names it.
    score_b : array of shape (n_samples,), default=None
        Ranker B's scores (two rankers); None when ``score_a`` holds them all.
    metric : {"roc_auc", "partial_auc"}, default="roc_auc"
    fpr_range : (float, float), default=None
        The window of ``metric="partial_auc"`` (None: (0, 0.1)); refused with
        ``metric="roc_auc"``.
    normalize : {"range", "mcclish", "none"}, default="range"
        Of the partial AUC.
    method : {"delong", "bootstrap", "venkatraman"}, default=None
        None: "delong" for the AUC, "bootstrap" for the partial AUC.
    confidence_level, n_resamples, random_state, n_jobs, pos_label
        As in :func:`partial_auc_ci`.
    reference : name of one ranker, default=None
        Several rankers only: compare each other ranker with this one (k − 1
        tests) instead of every pair (k (k − 1) / 2 tests).
    p_adjust : {"holm", "bh"} or None, default="holm"
        Several rankers only: Holm's adjustment (family-wise error rate [5]_),
        Benjamini-Hochberg's (false discovery rate [6]_), or none.  Two rankers
        make a family of one test, whose adjusted p-value is its p-value.
    groups : array of shape (n_samples,), default=None
        Cluster labels: the cluster bootstrap (whole groups resampled, strata
        by the groups' class composition, :mod:`pauc.inference._clusters`), or with
        ``method="delong"`` Obuchowski's clustered covariance [7]_.

    Returns
    -------
    RankerComparison, or RankerComparisons for several rankers
        ``difference`` (A − B), ``low``, ``high``, ``statistic``, ``pvalue``, ...;
        for several rankers one such row per pair, with ``pvalue_adjusted``,
        printed as a table.

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
    .. [5] Holm, S. "A Simple Sequentially Rejective Multiple Test Procedure."
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [6] Benjamini, Y. and Hochberg, Y. "Controlling the False Discovery Rate:
       A Practical and Powerful Approach to Multiple Testing." Journal of the
       Royal Statistical Society B 57(1), 1995.
    .. [7] Obuchowski, N. A. "Nonparametric analysis of clustered ROC curve
       data." Biometrics 53(2), 1997.
    .. [8] Venkatraman, E. S. and Begg, C. B. "A distribution-free procedure for
       comparing receiver operating characteristic curves from a paired
       experiment." Biometrika 83(4), 835-848, 1996.
    """
    check_p_adjust(p_adjust)
    if score_b is None:
        return compare_many_rankers(
            y_true, score_a, metric=metric, fpr_range=fpr_range, normalize=normalize,
            method=method, confidence_level=confidence_level, n_resamples=n_resamples,
            random_state=random_state, n_jobs=n_jobs, pos_label=pos_label,
            reference=reference, p_adjust=p_adjust, groups=groups)
    if reference is not None:
        raise ValueError("reference= names one of several rankers: pass the scores as a dict "
                         "or list in score_a, without score_b")
    # a family of one test: its adjusted p-value is its p-value, whatever p_adjust
    return compare_two_rankers(
        y_true, score_a, score_b, metric=metric, fpr_range=fpr_range, normalize=normalize,
        method=method, confidence_level=confidence_level, n_resamples=n_resamples,
        random_state=random_state, n_jobs=n_jobs, pos_label=pos_label, groups=groups)


def compare_many_rankers(y_true, scores, *, metric="roc_auc", fpr_range=None, normalize="range",
                         method=None, confidence_level=0.95, n_resamples=2000,
                         random_state=None, n_jobs=None, pos_label=None, reference=None,
                         p_adjust="holm", groups=None):
    """k >= 2 rankers compared pairwise on one set of resamples.

    Called by :func:`compare_rankers` when ``score_b`` is None; the parameters
    are documented there.

    Returns
    -------
    RankerComparisons
    """
    check_p_adjust(p_adjust)
    confidence_level, n_resamples = _check_common(confidence_level, n_resamples)
    method, alpha, beta = _comparison_settings(metric, method, fpr_range, normalize)
    names, vectors = named_scores(scores)
    index_pairs = compared_pairs(names, reference)
    is_pos, vectors = check_rankers_scores(y_true, vectors, names, pos_label)
    group_index = check_compared_rows(is_pos, method, metric, alpha, beta, groups,
                                      n_resamples, confidence_level)
    if method == "delong":
        estimates, cov = auc_covariance(is_pos, vectors, group_index)
        comparisons = [delong_comparison(estimates[i], estimates[j],
                                         cov[i, i] + cov[j, j] - 2.0 * cov[i, j],
                                         confidence_level) for i, j in index_pairs]
        n_resamples = None
    elif method == "venkatraman":
        estimates, _ = auc_covariance(is_pos, vectors)
        # one independent stream of permutations per pair, all from random_state
        seeds = seed_sequence(random_state).spawn(len(index_pairs))
        comparisons = [venkatraman_comparison(estimates[i], estimates[j], is_pos, vectors[i],
                                              vectors[j], confidence_level, n_resamples, seed)
                       for (i, j), seed in zip(index_pairs, seeds)]
    else:
        scale = _comparison_scale(metric, alpha, beta, normalize)
        boot = bootstrap_of(is_pos, vectors, beta, group_index)
        estimates = scale(boot.observed(alpha, beta, 0.0))
        areas = scale(boot.resample(n_resamples, random_state, alpha, beta, 0.0,
                                    n_jobs=n_jobs))
        comparisons = [bootstrap_comparison(metric, estimates[i], estimates[j],
                                            areas[:, i] - areas[:, j], confidence_level,
                                            n_resamples) for i, j in index_pairs]
    adjusted = adjust_pvalues([c.pvalue for c in comparisons], p_adjust)
    return RankerComparisons(
        metric, method, names, {name: float(e) for name, e in zip(names, estimates)},
        tuple((names[i], names[j]) for i, j in index_pairs), tuple(comparisons), adjusted,
        p_adjust, confidence_level, n_resamples)
