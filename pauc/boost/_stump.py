"""The ranking stump: the single feature (and sign) of highest weighted AUC.

Spec ``seed-001-aucboost.md`` §7, candidate 1: ``h(x) = s·x_j`` for the feature
``j`` and sign ``s ∈ {±1}`` maximising the weighted AUC.  Each column is sorted
once (:class:`ColumnStore`); every later search is one O(nnz) sweep per column
in Cython (:func:`pauc.boost._weak.column_aucs`), whatever the weights, so a
booster pays the sort once for all its rounds.  ``AUC(−h) = 1 − AUC(h)`` gives
the other orientation for free.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ._weak import column_aucs


class ColumnStore:
    """The columns of ``X``, each sorted ascending once (CSC-like arrays).

    Column ``j`` holds ``values[indptr[j]:indptr[j+1]]`` (ascending) and the
    row of each value in ``rows``.  Zeros of a sparse matrix are not stored;
    the sweep gives them the class weight left over.
    """

    def __init__(self, indptr, rows, values, n_samples):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.intp)
        self.rows = np.ascontiguousarray(rows, dtype=np.intp)
        self.values = np.ascontiguousarray(values, dtype=np.float64)
        self.n_samples = n_samples

    @classmethod
    def from_matrix(cls, X):
        """Presort a dense array or a sparse matrix (O(nnz log n), done once)."""
        if sp.issparse(X):
            Xc = sp.csc_matrix(X, dtype=np.float64)
            Xc.sum_duplicates()
            cols = np.repeat(np.arange(Xc.shape[1]), np.diff(Xc.indptr))
            order = np.lexsort((Xc.data, cols))
            return cls(Xc.indptr, Xc.indices[order], Xc.data[order], Xc.shape[0])
        X = np.asarray(X, dtype=np.float64)
        n, q = X.shape
        order = np.argsort(X, axis=0, kind="stable")
        values = np.take_along_axis(X, order, axis=0)
        return cls(np.arange(q + 1) * n, order.T.ravel(), values.T.ravel(), n)

    def subset(self, mask):
        """The store restricted to the rows where ``mask`` is True (order kept)."""
        keep = np.asarray(mask, dtype=bool)[self.rows]
        cum = np.concatenate(([0], np.cumsum(keep)))
        return ColumnStore(cum[self.indptr], self.rows[keep], self.values[keep],
                           self.n_samples)

    def aucs(self, weight, is_pos, tot_pos, tot_neg):
        """Weighted AUC of each column used as a score (ascending orientation)."""
        return column_aucs(self.indptr, self.rows, self.values,
                           np.ascontiguousarray(weight, dtype=np.float64),
                           np.ascontiguousarray(is_pos, dtype=np.uint8),
                           float(tot_pos), float(tot_neg))


def best_feature(aucs):
    """(feature, sign, AUC) of the best column and orientation; first index on ties."""
    oriented = np.maximum(aucs, 1.0 - aucs)
    j = int(np.argmax(oriented))
    sign = 1.0 if aucs[j] >= 0.5 else -1.0
    return j, sign, float(oriented[j])


def column_scores(X, feature, sign):
    """``sign · X[:, feature]`` as a dense float64 vector."""
    if sp.issparse(X):
        col = np.asarray(X[:, [feature]].todense(), dtype=np.float64).ravel()
    else:
        col = np.asarray(X[:, feature], dtype=np.float64)
    return sign * col


class RankingStump(BaseEstimator):
    """Ranking stump ``h(x) = s·x_j`` maximising the weighted AUC (spec §7).

    The default weak ranker of :class:`AUCBoost` and :class:`MartiRank`
    (paper 001, Def. 1: a weak ranker returns ``h`` with AUC ≥ ½ + γ on any
    distribution it is given).

    Attributes
    ----------
    feature_ : int
        Index of the chosen feature ``j``.
    sign_ : float
        Orientation ``s`` (+1: larger values rank higher).
    auc_ : float
        Weighted training AUC of ``h`` (ties ½), ``≥ ½`` by construction.
    classes_ : array of shape (2,)
        ``classes_[1]`` is the positive class.
    n_features_in_ : int

    Notes
    -----
    Ties between features keep the lowest index; a feature with AUC exactly ½
    gets ``s = +1``.
    """

    def fit(self, X, y, sample_weight=None):
        """Search all features and both orientations, one sweep per feature.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), two classes
        sample_weight : array-like of shape (n_samples,), optional, non-negative

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, accept_sparse=["csc", "csr", "coo"],
                             dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_index = np.unique(y, return_inverse=True)
        if classes.shape[0] != 2:
            raise ValueError(f"RankingStump needs exactly two classes in y, got "
                             f"{classes.shape[0]}")
        w = _check_sample_weight(sample_weight, X, dtype=np.float64)
        if (w < 0).any():
            raise ValueError("sample_weight must be non-negative")
        is_pos = (y_index == 1).astype(np.uint8)
        tot_pos, tot_neg = w[is_pos == 1].sum(), w[is_pos == 0].sum()
        if tot_pos <= 0 or tot_neg <= 0:
            raise ValueError("sample_weight gives one class a total weight of zero")
        aucs = ColumnStore.from_matrix(X).aucs(w, is_pos, tot_pos, tot_neg)
        self.classes_ = classes
        self._set(*best_feature(aucs))
        return self

    def _set(self, feature, sign, auc):
        self.feature_, self.sign_, self.auc_ = feature, sign, auc
        return self

    def decision_function(self, X):
        """``h(x) = s·x_j``; higher means more likely positive."""
        check_is_fitted(self, "feature_")
        X = validate_data(self, X, reset=False, accept_sparse=["csc", "csr", "coo"],
                          dtype=np.float64)
        return column_scores(X, self.feature_, self.sign_)
