"""The weak-ranker oracle of the boosters (Long & Servedio, Def. 1 and Def. 6).

A booster hands the oracle a distribution over its training sample -- weights
(AUCBoost) or the subset of rows reaching a node (MartiRank: conditioning, not
reweighting) -- and gets back a ranking function ``h`` and its scores on those
rows.  Two oracles:

* :class:`StumpLearner` -- the ranking stump (either criterion); the columns
  are sorted once per fit and every call is one Cython sweep;
* :class:`EstimatorLearner` -- any scikit-learn estimator with
  ``decision_function`` or ``predict_proba`` (e.g. ``pauc.tree.TreeRank``),
  cloned and fitted on each distribution, with ``sample_weight`` when its
  ``fit`` takes it and by weighted resampling otherwise.  If its scores rank
  the sample worse than chance, the oracle returns ``−h`` (the negated ranker has AUC 1 − AUC).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from ..metrics import roc_auc
from ._stump import ColumnStore, RankingStump, check_criterion, stump_scores


def check_weak_ranker(weak_ranker):
    """Refuse an object that cannot serve as a weak ranker (clear message)."""
    if weak_ranker is None:
        return
    if not hasattr(weak_ranker, "fit") or not (
            hasattr(weak_ranker, "decision_function") or hasattr(weak_ranker, "predict_proba")):
        raise ValueError(
            "weak_ranker must be None (ranking stump) or a scikit-learn estimator with "
            f"fit and decision_function or predict_proba, got {weak_ranker!r}")


def make_learner(weak_ranker, X, is_pos, classes, rng, default_criterion="auc"):
    """The oracle for ``weak_ranker`` on a training sample.

    None means the booster's default ranking stump,
    ``RankingStump(criterion=default_criterion)``.
    """
    check_weak_ranker(weak_ranker)
    if weak_ranker is None:
        return StumpLearner(X, is_pos, classes, default_criterion)
    if type(weak_ranker) is RankingStump:
        return StumpLearner(X, is_pos, classes, weak_ranker.criterion)
    return EstimatorLearner(weak_ranker, X, is_pos, rng)


def ranker_scores(ranker, orientation, X):
    """Scores ``orientation · h(X)`` of a fitted weak ranker on validated ``X``."""
    if type(ranker) is RankingStump:
        return stump_scores(ranker, X)
    if hasattr(ranker, "decision_function"):
        s = np.asarray(ranker.decision_function(X), dtype=np.float64)
    else:
        proba = np.asarray(ranker.predict_proba(X), dtype=np.float64)
        if proba.ndim != 2 or proba.shape[1] != 2:
            raise ValueError("the weak ranker's predict_proba must return two columns")
        s = proba[:, 1]
    if s.ndim != 1:
        raise ValueError("the weak ranker's decision_function must return one score per row")
    return orientation * s


class StumpLearner:
    """Ranking-stump oracle over a presorted copy of the training columns."""

    def __init__(self, X, is_pos, classes, criterion="auc"):
        check_criterion(criterion)
        self.criterion = criterion
        self.store = ColumnStore.from_matrix(X)
        # Column slices of CSC are cheap; keep the sample in that format.
        self.X = sp.csc_matrix(X) if sp.issparse(X) else X
        self.is_pos = np.ascontiguousarray(is_pos, dtype=np.uint8)
        self.classes = classes

    def fit(self, weight, rows=None):
        """Best stump for ``weight`` on ``rows`` (all rows when None).

        Returns
        -------
        ranker : fitted RankingStump
        orientation : float, always +1 (the stump already carries its sign)
        scores : float array, ``h`` on ``rows``
        """
        store, pos = self.store, self.is_pos == 1
        if rows is not None:
            mask = np.zeros(self.store.n_samples, dtype=bool)
            mask[rows] = True
            store = store.subset(mask)
            pos = pos & mask
            neg = mask & ~pos
        else:
            neg = ~pos
        stump = RankingStump(criterion=self.criterion)._search(
            store, weight, self.is_pos, weight[pos].sum(), weight[neg].sum())
        stump.classes_ = self.classes
        stump.n_features_in_ = self.X.shape[1]
        scores = stump_scores(stump, self.X)
        return stump, 1.0, scores if rows is None else scores[rows]


class EstimatorLearner:
    """Oracle around any scikit-learn estimator (cloned and refitted per call)."""

    def __init__(self, estimator, X, is_pos, rng):
        self.estimator = estimator
        self.X = X
        self.y01 = np.asarray(is_pos, dtype=np.int64)   # so predict_proba[:, 1] = positive
        self.rng = rng
        self.weighted = has_fit_parameter(estimator, "sample_weight")

    def fit(self, weight, rows=None):
        """Fit a clone on the distribution; see :meth:`StumpLearner.fit`."""
        rows = np.arange(self.X.shape[0]) if rows is None else np.asarray(rows)
        X, y, w = self.X[rows], self.y01[rows], weight[rows]
        est = clone(self.estimator)
        if np.allclose(w, w[0]):
            est.fit(X, y)
        elif self.weighted:
            # Mean weight 1 keeps estimators with absolute weight thresholds sane.
            est.fit(X, y, sample_weight=w * (w.shape[0] / w.sum()))
        else:
            # AdaBoost by resampling (Freund & Schapire) for estimators without weights.
            idx = self.rng.choice(w.shape[0], size=w.shape[0], p=w / w.sum())
            if np.unique(y[idx]).shape[0] < 2:
                raise ValueError("the weighted resample lost a class; use a weak ranker "
                                 "whose fit accepts sample_weight")
            est.fit(X[idx], y[idx])
        scores = ranker_scores(est, 1.0, X)
        orientation = 1.0
        if roc_auc(y, scores, sample_weight=w) < 0.5:
            orientation = -1.0
        return est, orientation, orientation * scores
