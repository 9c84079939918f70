"""Window losses as LightGBM custom objectives, the window pAUC as a custom eval metric.

:func:`window_objective` returns the gradient and Hessian diagonal of a
pairwise loss restricted to the pairs of a positive and a *window negative*
(a negative ranked ``j_alpha + 1 .. j_beta`` by the current scores), so that
gradient boosting spends its trees on the part of the ROC curve in the FPR
range ``[alpha, beta]``; :func:`window_metric` measures the exact partial
AUC over that range (:func:`pauc.metrics.partial_auc`, ``normalize="range"``)
for early stopping.  :class:`pauc.gbm.GradientBoostingRanker` is built on
both; use them directly to put pauc's losses in your own LightGBM loop.

The losses (``loss=``), each averaged over the ``m (j_beta - j_alpha)`` pairs
(``j_alpha = floor(n alpha)``, ``j_beta = ceil(n beta)`` over the ``n``
training negatives, Narasimhan & Agarwal, eq. (2)):

``"exponential"``
    ``exp(-(s_i - s_j))``, RankBoost's pairwise loss; factorises, O(n).
``"squared_hinge"``
    ``max(0, 1 - (s_i - s_j))^2``; prefix sums over the sorted window.
``"tight"`` (also ``"tight_hinge"``)
    the tight structural surrogate of the partial-AUC SVM (Narasimhan &
    Agarwal, eqs. (14), (18)) through its most violated constraint; its
    Hessian is a documented constant.
``"logloss"``
    the pointwise binary cross-entropy, the usual baseline (no window).

With ``logloss_weight=w > 0`` the objective is the mixture ``w * logloss +
window loss``.  Ties, the window's edge and the Hessians used are documented
in :mod:`pauc._loss._window`.  The names are those of the one loss table
(:mod:`pauc._loss`) with a Hessian: a loss added there is accepted here.

Scale.  LightGBM's own objectives sum over rows; these losses are means, so
the gradient and the Hessian are multiplied by the number of rows ``n`` (a
Newton step ``-sum g / sum h`` does not depend on the scale, but LightGBM's
``reg_lambda`` and ``min_sum_hessian_in_leaf`` do, and this keeps their
meaning).  ``loss="exponential"`` is further divided by the largest
gradient entry at every call (``normalize``), because ``exp`` overflows as
the scores separate.

Hessian.  For the pairwise (window) losses LightGBM receives *twice* the
exact Hessian diagonal: a pair's Hessian ``l''(t) [[1, -1], [-1, 1]]`` is at
most ``2 l''(t) I``, so twice the diagonal majorizes the loss along every
direction -- in particular the one a tree takes when it puts positives and
negatives in different leaves -- and each Newton step is a descent step
(half the exact-diagonal step; what it gained is on the developer guide's
measurements page).

Examples
--------
A LightGBM training loop that boosts the window exponential loss of the FPR
range [0, 0.1] and stops on the validation partial AUC of that range:

>>> import lightgbm as lgb
>>> from sklearn.datasets import make_classification
>>> from pauc.objectives import window_metric, window_objective
>>> X, y = make_classification(4000, n_features=10, weights=[0.8], random_state=0)
>>> X_tr, y_tr, X_va, y_va = X[:3000], y[:3000], X[3000:], y[3000:]
>>> params = {"objective": window_objective(y_tr, fpr_range=(0.0, 0.1)),
...           "learning_rate": 0.05, "num_leaves": 15, "metric": "None",
...           "verbosity": -1, "deterministic": True, "force_row_wise": True}
>>> train, valid = lgb.Dataset(X_tr, y_tr), lgb.Dataset(X_va, y_va)
>>> booster = lgb.train(params, train, num_boost_round=300, valid_sets=[valid],
...                     feval=window_metric(fpr_range=(0.0, 0.1)),
...                     callbacks=[lgb.early_stopping(50, verbose=False)])
>>> score = booster.predict(X_va, num_iteration=booster.best_iteration)
>>> best = booster.best_score["valid_0"]["pauc[0,0.1]"]
>>> 0.5 < best <= 1.0
True

The objective and the metric also take the argument order of LightGBM's
scikit-learn estimators, ``(y_true, y_pred)``.  Built without labels,
``lgb.LGBMClassifier(objective=window_objective(fpr_range=(0, 0.1)))`` reads
them at every call, so the estimator can be cloned and cross-validated
(``cross_val_score``, ``GridSearchCV``); ``eval_metric=window_metric((0, 0.1))``.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.

Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.
"""

import math
import numbers

import numpy as np
from sklearn.utils import column_or_1d

from .. import metrics
from .._validation import _classes, check_fpr_range, check_pos_label
from .._loss import loss_names, loss_row
from .._loss._bound import BoundLoss
from .._loss._table import PAIRWISE_CURVATURE  # noqa: F401 (re-exported)
from ._sample_weights import refuse_sample_weights
# XGBoost: window_objective works as it is (xgb.train(obj=...), XGBClassifier(objective=...));
# the metric returns XGBoost's shapes
from ._xgboost_metric import XGBoostWindowMetric, xgboost_metric

__all__ = ["LOSSES", "WINDOW_LOSSES", "window_objective", "window_metric",
           "refuse_sample_weights", "XGBoostWindowMetric", "xgboost_metric"]

#: The losses with a Hessian of the one loss table (:mod:`pauc._loss`), as at import;
#: the window losses first.  ``"tight"`` is also reached by its boosting name
#: ``"tight_hinge"``; a row added to the table later is accepted too.
LOSSES = loss_names("hessian")
WINDOW_LOSSES = tuple(name for name in LOSSES if loss_row(name).window)
# The Hessian handed to LightGBM for the pairwise losses is twice their exact
# diagonal (module docstring, "Hessian"): PAIRWISE_CURVATURE, a field of their rows.


def check_loss(loss, name="loss"):
    """``loss`` if the loss table has it with a Hessian (boosting needs one), else a
    ValueError naming those that have one."""
    loss_row(loss, "hessian", what=name)
    return loss


def binary_labels(y, pos_label=None, name="y"):
    """``(is_pos, classes, pos_label)`` of binary labels, scikit-learn's ``pos_label`` rule.

    Without ``pos_label`` the labels must be a subset of {-1, 0, 1} (or
    booleans) and 1 (True) is positive; other label sets need ``pos_label``.
    """
    y = column_or_1d(y, warn=True)
    classes = _classes(y)
    if classes.shape[0] != 2:
        raise ValueError(
            f"{name} must hold exactly two classes (positives and negatives), got "
            f"{classes.shape[0]}: {classes[:10].tolist()}")
    pos_label = check_pos_label(classes, pos_label)
    return y == pos_label, classes, pos_label


def _split_call(a, b):
    """``(scores, labels_or_None)`` from LightGBM's two calling conventions.

    ``lgb.train`` calls ``f(preds, dataset)``; LightGBM's scikit-learn
    estimators call ``f(y_true, y_pred)``.
    """
    if hasattr(b, "get_label"):
        return np.asarray(a), b
    return np.asarray(b), a


def as_scores(preds, n):
    """One flat, contiguous score per row: float32 kept as it is (the kernels read
    float32 exactly; a float64 copy would cost 8 bytes per row), else float64."""
    preds = np.asarray(preds)
    if preds.dtype != np.float32:
        preds = preds.astype(np.float64, copy=False)
    preds = np.ascontiguousarray(preds.reshape(-1))
    if preds.shape[0] != n:
        raise ValueError(f"the objective was built for {n} training rows, "
                         f"got {preds.shape[0]} scores (one output per row expected)")
    return preds


def _scores(preds, n):
    preds = as_scores(preds, n)
    if not np.isfinite(preds).all():
        raise ValueError("scores contain NaN or infinity (the boosted scores diverged: "
                         "lower the learning rate)")
    return preds


class WindowObjective:
    """Gradient and Hessian diagonal of a window loss at the boosted scores.

    Built by :func:`window_objective`; calling it with LightGBM's arguments
    returns ``(grad, hess)``.  :meth:`gradient` and :meth:`value` take the
    scores alone.

    With ``is_pos=None`` the labels are read at every call, from LightGBM's
    ``Dataset`` / XGBoost's ``DMatrix`` (``get_label()``) or the ``y_true`` of
    the scikit-learn estimators, with ``pos_label``'s rule: the objective then
    holds no data, so ``sklearn.base.clone`` and ``cross_val_score`` fit each
    fold on its own rows.

    Attributes
    ----------
    loss : str
    fpr_range : (float, float)
    logloss_weight : float
    j_alpha, j_beta : int
        Window positions over the training negatives (of the last call's
        labels when they are read at call time).
    n_pos, n_neg : int
    """

    def __init__(self, is_pos, fpr_range, loss, logloss_weight, pos_label=None):
        self.loss = loss
        self.fpr_range = fpr_range
        self.logloss_weight = logloss_weight
        self.pos_label = pos_label
        self._labels = None            # the labels last read at call time
        self._labels_at_call = is_pos is None
        if not self._labels_at_call:
            self._set_labels(is_pos)

    def _set_labels(self, is_pos):
        # the row of the loss table bound to the labels: the one calling protocol of
        # its kernels (scale, curvature, normalisation, the log-loss mixture)
        self._bound = BoundLoss(self.loss, is_pos, self.fpr_range, self.logloss_weight)
        self._is_pos = self._bound.is_pos
        self.n_pos, self.n_neg = self._bound.n_pos, self._bound.n_neg
        self.j_alpha, self.j_beta = self._bound.j_alpha, self._bound.j_beta

    def _read_labels(self, data):
        """Take the training labels from the call (the same array object every round
        of one fit: read once per fit, not per round)."""
        labels = data.get_label() if hasattr(data, "get_label") else data
        if labels is not self._labels:
            is_pos, _, _ = binary_labels(labels, self.pos_label, name="the training labels")
            self._set_labels(is_pos)
            self._labels = labels

    @property
    def n_rows(self):
        if self._labels_at_call and self._labels is None:
            raise ValueError("this objective reads the labels from LightGBM's or XGBoost's "
                             "call; give window_objective(y, ...) to call gradient() or "
                             "value() directly")
        return self._is_pos.shape[0]

    def _accumulate(self, scores, grad, hess, with_value=True):
        """Add the scaled derivatives into ``grad``, ``hess``; return the loss
        (NaN when log-loss is part of it and ``with_value`` is False)."""
        return self._bound.accumulate(scores, grad, hess, with_value)

    def gradient(self, scores):
        """``(grad, hess)``: float64 arrays, one entry per training row."""
        scores = _scores(scores, self.n_rows)
        grad = np.zeros(self.n_rows)
        hess = np.zeros(self.n_rows)
        self._accumulate(scores, grad, hess, with_value=False)
        return grad, hess

    def value(self, scores):
        """The loss at ``scores`` (the mean over pairs; plus ``w`` times the
        mean log-loss in a mixture)."""
        scores = _scores(scores, self.n_rows)
        scratch = np.zeros(self.n_rows)
        return self._accumulate(scores, scratch, np.zeros(self.n_rows))

    def __call__(self, a, b, sample_weight=None):
        # three parameters: LightGBM's scikit-learn API then passes the weights
        # (None without), XGBoost's passes them by name when there are some
        scores, data = _split_call(a, b)
        refuse_sample_weights(data, sample_weight)
        if self._labels_at_call:
            self._read_labels(data)
        return self.gradient(scores)

    def __repr__(self):
        return (f"window_objective(loss={self.loss!r}, fpr_range={self.fpr_range!r}, "
                f"logloss_weight={self.logloss_weight!r})")


def window_objective(y=None, fpr_range=(0.0, 0.1), loss="exponential", *, logloss_weight=0.0,
                     pos_label=None):
    """A LightGBM custom objective: a pairwise loss over the FPR window's pairs.

    Parameters
    ----------
    y : array-like of shape (n_samples,), default=None
        Labels of the training rows, in the order LightGBM sees them.  None:
        the labels are read at every call (from the ``Dataset`` / ``DMatrix``,
        or the ``y_true`` of a scikit-learn estimator), so an estimator holding
        the objective can be cloned and cross-validated
        (``cross_val_score(LGBMClassifier(objective=window_objective(
        fpr_range=...)), X, y)``); an objective built on ``y`` is bound to
        those rows and fails on any other (a fold of them).
    fpr_range : (float, float), default=(0.0, 0.1)
        The FPR window ``(alpha, beta)``; ``(0, 1)`` gives the pairwise loss
        over every pair (an AUC surrogate).
    loss : {"exponential", "squared_hinge", "tight", "logloss"}, default="exponential"
        See the module docstring; ``"tight_hinge"`` is ``"tight"``.  Any loss of
        the loss table with a Hessian diagonal.
    logloss_weight : float >= 0, default=0.0
        ``w`` of the mixture ``w * logloss + window loss`` (window losses only).
    pos_label : label, default=None
        The positive class; needed unless the labels are a subset of {-1, 0, 1}
        or booleans (then 1 / True is positive).

    Returns
    -------
    objective : callable
        ``objective(preds, train_set) -> (grad, hess)`` for ``lgb.train``
        (``params["objective"] = objective``), and ``objective(y_true,
        y_pred)`` for LightGBM's scikit-learn estimators.  Also has
        ``.gradient(scores)`` and ``.value(scores)``.

    Raises
    ------
    ValueError
        When ``y`` does not hold two classes, the window holds no negative
        position (``ceil(n beta) - floor(n alpha) < 1`` for the ``n``
        negatives of ``y``), or ``loss`` is unknown.
    """
    check_loss(loss)
    alpha, beta = check_fpr_range(fpr_range)
    if (not isinstance(logloss_weight, numbers.Real) or isinstance(logloss_weight, bool)
            or not math.isfinite(logloss_weight) or logloss_weight < 0):
        raise ValueError(f"logloss_weight must be a finite number >= 0, got {logloss_weight!r}")
    if not loss_row(loss).window and logloss_weight:
        raise ValueError("logloss_weight mixes log-loss into a window loss; "
                         "it has no meaning with loss='logloss'")
    if y is None:
        return WindowObjective(None, (alpha, beta), loss, float(logloss_weight), pos_label)
    is_pos, _, _ = binary_labels(y, pos_label)
    return WindowObjective(is_pos, (alpha, beta), loss, float(logloss_weight))


class WindowMetric:
    """Exact partial AUC over ``fpr_range`` of the raw scores, for LightGBM's ``feval``."""

    def __init__(self, fpr_range, pos_label):
        self.fpr_range = fpr_range
        self.pos_label = pos_label
        self.name = f"pauc[{fpr_range[0]:g},{fpr_range[1]:g}]"

    def __call__(self, a, b, sample_weight=None):
        scores, labels = _split_call(a, b)
        refuse_sample_weights(labels, sample_weight)
        if hasattr(labels, "get_label"):
            labels = labels.get_label()
        value = metrics.partial_auc(labels, scores.reshape(-1), fpr_range=self.fpr_range,
                                    normalize="range", pos_label=self.pos_label)
        return self.name, float(value), True

    def __repr__(self):
        return f"window_metric(fpr_range={self.fpr_range!r})"


def window_metric(fpr_range=(0.0, 0.1), *, pos_label=None):
    """A LightGBM custom eval metric: the partial AUC over ``fpr_range``.

    The exact area of the empirical ROC curve over FPR in ``[alpha, beta]``
    divided by ``beta - alpha`` (:func:`pauc.metrics.partial_auc`,
    ``normalize="range"``); higher is better.  Its name in LightGBM's logs
    and ``best_score`` is ``"pauc[alpha,beta]"``.

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 0.1)
    pos_label : label, default=None
        The positive class of the evaluation set's labels (LightGBM stores
        them as floats: 1.0 is positive by default).

    Returns
    -------
    metric : callable
        ``metric(preds, eval_set) -> (name, value, True)`` for ``lgb.train``'s
        ``feval``, and ``metric(y_true, y_pred)`` for LightGBM's scikit-learn
        estimators' ``eval_metric``.
    """
    return WindowMetric(check_fpr_range(fpr_range), pos_label)
