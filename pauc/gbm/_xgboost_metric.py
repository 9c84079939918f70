"""The window objective and the window pAUC metric in XGBoost's training APIs.

:func:`pauc.objectives.window_objective` is an XGBoost custom objective as
it is: ``xgb.train(params, dtrain, obj=objective)`` calls it with
``(predt, dtrain)`` and ``XGBClassifier(objective=objective)`` with
``(y_true, y_pred)``; in both it returns the gradient and the Hessian
diagonal of the window loss at the raw margins.  XGBoost's metrics return
other shapes than LightGBM's, so the window pAUC has its own adapter here,
:func:`xgboost_metric`:

* ``xgb.train(..., custom_metric=metric)`` calls ``metric(predt, dmatrix)``
  and reads ``(name, value)``;
* ``XGBClassifier(eval_metric=metric)`` calls ``metric(y_true, y_score)``
  and reads a float, under the name ``metric.__name__``.

The partial AUC is to be *maximised*: pass ``maximize=True`` to
``xgb.train`` or to ``xgb.callback.EarlyStopping``.  XGBoost prints and logs
custom metric values rounded to six digits; :attr:`XGBoostWindowMetric.history`
keeps them exactly.

Sample weights (``DMatrix(weight=...)``, ``fit(sample_weight=...)``) are
refused with a clear error by both (see
:func:`pauc.objectives.refuse_sample_weights`).  For training on several
workers (``xgboost.dask``) use :mod:`pauc.distributed`'s global-window
objective and metric: these here rank the rows of one process.

This module does not import XGBoost (the adapters only read what XGBoost
hands them), so :mod:`pauc.objectives` can export them without it.

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.

Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import numpy as np

from .. import metrics
from ._sample_weights import refuse_sample_weights
from .._validation import check_fpr_range

__all__ = ["XGBoostWindowMetric", "xgboost_metric"]


class XGBoostWindowMetric:
    """Exact partial AUC over ``fpr_range`` of the raw margins, for XGBoost.

    Attributes
    ----------
    name, __name__ : str
        ``"pauc[alpha,beta]"``.
    history : list of float
        Every value computed, unrounded.
    """

    def __init__(self, fpr_range, pos_label=None):
        self.fpr_range = check_fpr_range(fpr_range)
        self.pos_label = pos_label
        self.name = self.__name__ = f"pauc[{self.fpr_range[0]:g},{self.fpr_range[1]:g}]"
        self.history = []

    def __call__(self, a, b, sample_weight=None):
        if hasattr(b, "get_label"):          # xgb.train: (predt, dmatrix)
            refuse_sample_weights(b, sample_weight)
            value = self._value(b.get_label(), a)
            return self.name, value
        refuse_sample_weights(a, sample_weight)   # XGBClassifier: (y_true, y_score)
        return self._value(a, b)

    def _value(self, labels, scores):
        scores = np.asarray(scores).reshape(-1)
        value = float(metrics.partial_auc(labels, scores, fpr_range=self.fpr_range,
                                          normalize="range", pos_label=self.pos_label))
        self.history.append(value)
        return value

    def __repr__(self):
        return f"xgboost_metric(fpr_range={self.fpr_range!r})"


def xgboost_metric(fpr_range=(0.0, 0.1), *, pos_label=None):
    """An XGBoost custom metric: the partial AUC over ``fpr_range`` (higher is better).

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 0.1)
    pos_label : label, default=None
        The positive class of the evaluation labels (XGBoost stores them as
        floats: 1.0 is positive by default).

    Returns
    -------
    metric : XGBoostWindowMetric
        ``metric(predt, dmatrix) -> (name, value)`` for ``xgb.train``'s
        ``custom_metric``, ``metric(y_true, y_score) -> value`` for
        ``XGBClassifier(eval_metric=...)``.

    Examples
    --------
    >>> import xgboost as xgb
    >>> from sklearn.datasets import make_classification
    >>> from pauc.objectives import window_objective, xgboost_metric
    >>> X, y = make_classification(3000, n_features=10, weights=[0.8], random_state=0)
    >>> dtrain, dvalid = xgb.DMatrix(X[:2000], y[:2000]), xgb.DMatrix(X[2000:], y[2000:])
    >>> booster = xgb.train(
    ...     {"eta": 0.1, "max_depth": 4, "base_score": 0.0, "disable_default_eval_metric": 1},
    ...     dtrain, num_boost_round=200, obj=window_objective(y[:2000], (0.0, 0.1)),
    ...     custom_metric=xgboost_metric((0.0, 0.1)), evals=[(dvalid, "valid")],
    ...     early_stopping_rounds=30, maximize=True, verbose_eval=False)
    >>> 0.5 < booster.best_score <= 1.0
    True
    """
    return XGBoostWindowMetric(fpr_range, pos_label)
