"""Choosing among the candidates on their pooled out-of-fold scores.

Every candidate's out-of-fold (OOF) scores -- each row scored by the fold model
that did not see it, as its quantile among that fold's held-out scores
(:func:`fold_quantiles`) -- are pooled over the folds, so the window holds every
training negative instead of a validation split's tenth.  The criterion is the
partial AUC of the FPR window (``normalize="range"``), averaged with a widened
window when the window holds fewer than 100 negatives
(:func:`pauc.gbm._stopping.validation_windows`).

* :func:`bootstrap_criteria`: the criterion of every candidate on the same
  stratified bootstrap resamples of the rows, drawn by the package's
  stratified bootstrap (:mod:`pauc.inference._resampling`; its spread is the standard
  error of ``cv_results_``);
* :func:`select`: the reference (the first candidate) unless another beats it on
  at least ``confidence`` of the paired resamples; among those, the best;
* :class:`RankScale`: a candidate's scores as their normalised rank among its
  OOF scores, so that candidates of different scales can be averaged;
* :func:`greedy_ensemble`: Caruana et al.'s (2004) forward selection with
  replacement of the candidates whose averaged normalised ranks maximise the
  criterion.

References
----------
Caruana, R., Niculescu-Mizil, A., Crew, G. and Ksikes, A. "Ensemble Selection
from Libraries of Models." ICML 2004.

Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import numpy as np
from scipy.stats import rankdata

from .. import metrics
from ..inference._resampling import StratifiedBootstrap


def criterion(is_pos, scores, windows):
    """Mean partial AUC (``normalize="range"``) of ``scores`` over ``windows``."""
    return metrics.mean_partial_auc(is_pos, np.asarray(scores, dtype=np.float64), windows,
                                    check_input=False)


def bootstrap_criteria(is_pos, score_list, windows, rng, n_rounds):
    """Criteria of every score vector on ``n_rounds`` paired stratified resamples.

    Each resample draws, with replacement, as many positives among the
    positive rows and as many negatives among the negative rows as there are
    (the class counts are kept, so the window holds as many negatives); the
    same resample scores every vector (paired).  The draws are those of the
    package's stratified bootstrap (:class:`pauc.inference._resampling.StratifiedBootstrap`,
    its Cython kernels), seeded by one integer drawn from ``rng`` (a
    ``numpy.random.RandomState``): every window is walked on the same
    resamples, and the criterion is the mean over ``windows`` of the partial
    AUC with ``normalize="range"`` (raw area / window width), as
    :func:`criterion` on the resampled rows.  (One window's pass draws the rest
    of the rows when a resample's walk runs out of the rows that can reach the
    widest window, probability ~1e-9; the later resamples of that block then
    differ in that pass only -- the same law, the vectors still paired.)

    Returns
    -------
    ndarray of shape (n_rounds, len(score_list))
    """
    seed = int(rng.randint(np.iinfo(np.int32).max))
    boot = StratifiedBootstrap(is_pos, score_list, max(b for _, b in windows))
    areas = [boot.resample(n_rounds, seed, a, b, 0.0) / (b - a) for a, b in windows]
    return np.mean(areas, axis=0)


def win_shares(boot, reference=0):
    """Per candidate, the share of resamples on which it beats the reference
    (ties count one half)."""
    ref = boot[:, [reference]]
    return np.mean((boot > ref) + 0.5 * (boot == ref), axis=0)


def select(values, boot, confidence, reference=0):
    """Index of the kept candidate: among the reference and the candidates that
    beat it on at least ``confidence`` of the resamples, the one of highest
    ``values`` (the first such on ties)."""
    shares = win_shares(boot, reference)
    kept = reference
    for k in range(len(values)):
        if k != reference and shares[k] >= confidence and values[k] > values[kept]:
            kept = k
    return kept


class RankScale:
    """Monotone map of scores to their normalised rank among reference scores.

    ``RankScale(reference)(s)`` is the mid-rank of ``s`` among the reference
    scores divided by their number, interpolated linearly between the sorted
    distinct reference values; beyond them it goes on with a small slope, so
    that the map stays strictly increasing (the top of the list keeps its
    order).  Independent of the batch it is applied to.
    """

    def __init__(self, reference):
        ref = np.sort(np.asarray(reference, dtype=np.float64).ravel())
        values, first = np.unique(ref, return_index=True)
        last = np.append(first[1:], ref.size) - 1
        self.values = values
        self.ranks = (first + last + 2) / (2.0 * ref.size)        # mid-ranks / n, in (0, 1]
        spread = float(values[-1] - values[0]) if values.size > 1 else 1.0
        self.tail_slope = 1.0 / (ref.size * (spread if spread > 0 else 1.0))

    def __call__(self, scores):
        scores = np.asarray(scores, dtype=np.float64)
        inside = np.clip(scores, self.values[0], self.values[-1])
        return (np.interp(inside, self.values, self.ranks)
                + self.tail_slope * (scores - inside))


def blend(normalized, weights):
    """The weighted mean of normalised scores (``weights`` summing to one)."""
    return sum(w * s for w, s in zip(weights, normalized) if w > 0)


def greedy_ensemble(normalized, is_pos, windows, max_steps=20):
    """Caruana et al.'s (2004) ensemble selection: weights over the candidates.

    Starts from the best single candidate and adds, with replacement, the
    candidate whose addition to the average of normalised ranks gives the
    highest criterion, for ``max_steps`` steps; returns the weights (counts /
    steps) of the best ensemble met on the way (the earliest on ties).

    Parameters
    ----------
    normalized : list of ndarray
        Each candidate's normalised OOF scores (:class:`RankScale`).
    is_pos : ndarray of bool
    windows : list of (float, float)
    max_steps : int

    Returns
    -------
    weights : ndarray of shape (len(normalized),)
    value : float
        The criterion of the returned ensemble.
    """
    values = [criterion(is_pos, s, windows) for s in normalized]
    counts = np.zeros(len(normalized))
    counts[int(np.argmax(values))] = 1
    best_value, best_counts = max(values), counts.copy()
    one = np.eye(len(normalized))
    for step in range(2, max_steps + 1):
        # each trial is scored as it would be deployed (blend of the weights), so
        # that the ties of the averaged ranks are those of the kept model
        trial = [criterion(is_pos, blend(normalized, (counts + one[k]) / step), windows)
                 for k in range(len(normalized))]
        k = int(np.argmax(trial))
        counts += one[k]
        if trial[k] > best_value:
            best_value, best_counts = trial[k], counts.copy()
    return best_counts / best_counts.sum(), best_value


def cross_fitted_ensemble(normalized, is_pos, fpr_range, rng, max_steps=20):
    """Greedy ensemble weights on all rows, and honest scores to judge them by.

    The ensemble's criterion on the rows it was chosen on is optimistic (it is
    the maximum of a search).  So the weights are chosen again on each half of
    the rows (stratified) and applied to the other half: the pooled result is
    an out-of-fold score of the *procedure*, comparable with the single
    candidates' out-of-fold scores.

    Returns
    -------
    weights : ndarray
        The weights chosen on all rows (those the fitted model uses).
    honest : ndarray
        Per row, the blend with the weights chosen on the other half.
    """
    from ._stopping import validation_windows

    windows = validation_windows(int((~is_pos).sum()), fpr_range)
    weights, _ = greedy_ensemble(normalized, is_pos, windows, max_steps)
    half = np.zeros(is_pos.shape[0], dtype=bool)
    for rows in (np.flatnonzero(is_pos), np.flatnonzero(~is_pos)):
        half[rng.permutation(rows)[:rows.size // 2]] = True
    honest = np.empty(is_pos.shape[0])
    for chosen_on in (half, ~half):
        part = is_pos[chosen_on]
        w, _ = greedy_ensemble([s[chosen_on] for s in normalized], part,
                               validation_windows(int((~part).sum()), fpr_range), max_steps)
        honest[~chosen_on] = blend([s[~chosen_on] for s in normalized], w)
    return weights, honest


def fold_quantiles(scores):
    """A held-out fold's scores as their mid-rank quantiles ``(rank - 1/2) / n``
    in (0, 1).

    The fold models of one candidate need not share a scale (the window
    exponential's scores drift with the rounds and the fold), so pooling their
    raw held-out scores would rank one fold's rows above another's; their
    quantiles within each (stratified) fold pool on one scale.  Centred, a
    fold's quantiles average 1/2 whatever its size, so that tied scores are 1/2
    on every fold: with ``rank / n`` a fold's ties sat ``1/(2n)`` above 1/2, so
    a candidate that scores nothing still told the folds apart, and blended
    with another candidate it reordered rows across folds (the race's greedy
    ensemble gave such a constant candidate a large weight; measured:
    ``docs/developer/measurements.rst``, 'Fold quantiles are now centred').
    """
    return (rankdata(scores, method="average") - 0.5) / scores.shape[0]
