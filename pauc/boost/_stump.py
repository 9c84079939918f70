"""The ranking stump: the single feature (and sign) of highest weighted AUC.

Two kinds of ranking stump, both found by one O(nnz) sweep per presorted column:

* ``criterion="auc"`` -- the plainest weak ranker:
  ``h(x) = s·x_j`` for the feature ``j`` and sign ``s ∈ {±1}`` maximising the
  weighted AUC of the score itself (:func:`pauc.boost._weak.column_aucs`;
  ``AUC(−h) = 1 − AUC(h)`` gives the other orientation for free);
* ``criterion="split_auc"`` -- the two-valued stump ``h(x) = 1[s·x_j ≥ θ]``
  maximising the weighted AUC over ``j``, ``s`` and ``θ``.  A two-valued ranker
  has AUC ``1 − (ε+ + ε−)/2 = ½ + (TPR − FPR)/2`` (Long & Servedio, Lemma 5), so this
  is the split of largest Youden J (:func:`pauc.boost._weak.column_splits`).

Each column is sorted once (:class:`ColumnStore`), whatever the weights, so a
booster pays the sort once for all its rounds.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from .._base import POS_LABEL, BaseRanker, Options

from ._weak import column_aucs, column_splits


class ColumnStore:
    """The columns of ``X``, each sorted ascending once (CSC-like arrays).

    Column ``j`` holds ``values[indptr[j]:indptr[j+1]]`` (ascending) and the
    row of each value in ``rows``.  Zeros of a sparse matrix are not stored;
    the sweep gives them the class weight left over.
    """

    def __init__(self, indptr, rows, values, n_samples, n_rows=None):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.intp)
        self.rows = np.ascontiguousarray(rows, dtype=np.intp)
        self.values = np.ascontiguousarray(values, dtype=np.float64)
        self.n_samples = n_samples
        # Rows the store stands for (all, or a node's subset): a column storing
        # fewer entries has implicit zeros.
        self.n_rows = n_samples if n_rows is None else n_rows

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
                           self.n_samples, int(np.count_nonzero(mask)))

    def aucs(self, weight, is_pos, tot_pos, tot_neg):
        """Weighted AUC of each column used as a score (ascending orientation)."""
        return column_aucs(self.indptr, self.rows, self.values,
                           np.ascontiguousarray(weight, dtype=np.float64),
                           np.ascontiguousarray(is_pos, dtype=np.uint8),
                           float(tot_pos), float(tot_neg))

    def splits(self, weight, is_pos, tot_pos, tot_neg):
        """Best split ``s·x_j ≥ θ`` of each column by TPR − FPR: (gain, sign, θ) arrays."""
        return column_splits(self.indptr, self.rows, self.values,
                             np.ascontiguousarray(weight, dtype=np.float64),
                             np.ascontiguousarray(is_pos, dtype=np.uint8),
                             float(tot_pos), float(tot_neg), self.n_rows)


def best_feature(aucs):
    """(feature, sign, AUC) of the best column and orientation; first index on ties."""
    oriented = np.maximum(aucs, 1.0 - aucs)
    j = int(np.argmax(oriented))
    sign = 1.0 if aucs[j] >= 0.5 else -1.0
    return j, sign, float(oriented[j])


def best_split(gain, sign, theta):
    """(feature, sign, split AUC ½ + J/2, θ) of the best split; first index on ties."""
    j = int(np.argmax(gain))
    return j, float(sign[j]), 0.5 + 0.5 * float(gain[j]), float(theta[j])


def column_scores(X, feature, sign):
    """``sign · X[:, feature]`` as a dense float64 vector."""
    if sp.issparse(X):
        col = np.asarray(X[:, [feature]].todense(), dtype=np.float64).ravel()
    else:
        col = np.asarray(X[:, feature], dtype=np.float64)
    return sign * col


def stump_scores(stump, X):
    """Scores of a fitted :class:`RankingStump` on validated ``X``."""
    h = column_scores(X, stump.feature_, stump.sign_)
    if stump.criterion == "split_auc":
        return (h >= stump.threshold_).astype(np.float64)
    return h


_CRITERIA = ("auc", "split_auc")


class RankingStump(BaseRanker, BaseEstimator):
    """Ranking stump of highest weighted AUC over features and orientations.

    A weak ranker in the sense of Long & Servedio [1]_, Def. 1 (it returns ``h`` with
    AUC ≥ ½ + γ on the distribution it is given); the default weak ranker of
    :class:`AUCBoost` (``criterion="split_auc"``) and of :class:`MartiRank`
    (``criterion="auc"``).

    Parameters
    ----------
    criterion : {"auc", "split_auc"}, default="auc"
        "auc": ``h(x) = s·x_j`` maximising the weighted AUC of the score
        ``s·x_j`` (the plainest weak ranker).  "split_auc": the two-valued
        ``h(x) = 1[s·x_j ≥ θ]`` maximising the weighted AUC over ``j``, ``s``
        and ``θ``; by Lemma 5 its AUC is ``½ + (TPR − FPR)/2``, so this is the
        split of largest Youden J, the very quantity Lemma 4's threshold
        maximises.
    pos_label : label, default=None
        The positive class.  None: 1 (or True) when the labels are {0, 1},
        {-1, 1} or booleans; other label sets must name it.

    Attributes
    ----------
    feature_ : int
        Index of the chosen feature ``j``.
    sign_ : float
        Orientation ``s`` (+1: larger values rank higher).
    threshold_ : float
        θ of the split (``criterion="split_auc"``), midway between two distinct
        values of ``s·x_j``; ``-inf`` when no split separates the classes (then
        ``h ≡ 1`` and the AUC is ½).  NaN for ``criterion="auc"``.
    auc_ : float
        Weighted training AUC of ``h`` (ties ½), ``≥ ½`` by construction.
    classes_ : array of shape (2,)
        ``[negative label, positive label]``.
    n_features_in_ : int

    Notes
    -----
    Ties between features keep the lowest index; a feature with AUC exactly ½
    gets ``s = +1``.  Between splits of equal J the orientation +1 wins, and
    within a column the smaller accepted set (as in Lemma 4's threshold).

    References
    ----------
    .. [1] Long, P. M. and Servedio, R. A. "Boosting the Area Under the ROC
       Curve." NIPS 2007.

    Examples
    --------
    The stump keeps the feature and the sign of highest (weighted) training AUC:

    >>> import numpy as np
    >>> from pauc.boost import RankingStump
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 2] < -0.2).astype(int)          # the third feature, reversed
    >>> stump = RankingStump().fit(X, y)
    >>> int(stump.feature_), int(stump.sign_), float(stump.auc_)
    (2, -1, 1.0)
    """

    _parameter_constraints = {"criterion": [Options(*_CRITERIA)], "pos_label": POS_LABEL}

    def __init__(self, criterion="auc", *, pos_label=None):
        self.criterion = criterion
        self.pos_label = pos_label

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
        self._validate_params()
        X, is_pos, w = self._validate_training_data(
            X, y, sample_weight, accept_sparse=["csc", "csr", "coo"], dtype=[np.float64],
            ensure_min_samples=2)
        if w is None:
            w = np.ones(X.shape[0])
        is_pos = is_pos.astype(np.uint8)
        tot_pos, tot_neg = w[is_pos == 1].sum(), w[is_pos == 0].sum()
        self._search(ColumnStore.from_matrix(X), w, is_pos, tot_pos, tot_neg)
        return self

    def _search(self, store, w, is_pos, tot_pos, tot_neg):
        """Fit the stump on a presorted store (shared with the boosters' oracle)."""
        if self.criterion == "split_auc":
            j, sign, auc, theta = best_split(*store.splits(w, is_pos, tot_pos, tot_neg))
        else:
            j, sign, auc = best_feature(store.aucs(w, is_pos, tot_pos, tot_neg))
            theta = np.nan
        self.feature_, self.sign_, self.auc_, self.threshold_ = j, sign, auc, theta
        return self

    def decision_function(self, X):
        """``h(x)``: ``s·x_j``, or ``1[s·x_j ≥ θ]`` for ``criterion="split_auc"``."""
        X = self._validate_X(X, accept_sparse=["csc", "csr", "coo"], dtype=[np.float64])
        return stump_scores(self, X)


def check_criterion(criterion):
    """Refuse an unknown stump criterion (clear message)."""
    if criterion not in _CRITERIA:
        raise ValueError(f'criterion must be "auc" or "split_auc", got {criterion!r}')
