"""The exact AUC and window pAUC of every worker's rows, for plain ``xgboost.dask``.

XGBoost documents its distributed ``auc`` as an approximation: each worker
computes the area of its own rows and the areas are averaged, weighted by each
worker's pairs, so a pair of a positive on one worker and a negative on another
is never compared.  When the rows are partitioned by something that drives the
label (by time, by account, by region), the workers' tops differ and the
average can be far from the area of all rows.  :func:`exact_metric` is an
XGBoost custom metric that every worker calls on its own rows and that reduces
across the workers with XGBoost's collective, so that every worker reports
the same, exact value: the one :func:`pauc.metrics.roc_auc` /
:func:`pauc.metrics.partial_auc` give on the gathered scores.

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.

Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import numpy as np

from .._validation import check_fpr_range
from ..gbm.objectives import as_scores
from ._collective import XGBoostCollective
from ._rank_selection import DEFAULT_BINS
from ._xgboost_window import GlobalWindowMetric, global_class_counts

__all__ = ["ExactMetric", "exact_metric"]


class ExactMetric:
    """An XGBoost custom metric: the exact AUC (or window pAUC) over every worker.

    Built by :func:`exact_metric`, which documents it.  Call it as XGBoost does:
    ``metric(predt, dmatrix) -> (name, value)`` (``xgboost.dask.train(...,
    custom_metric=metric)``), or ``metric(y_true, y_score) -> value``
    (``DaskXGBClassifier(eval_metric=metric)``, which names the value
    ``metric.__name__``).

    Attributes
    ----------
    fpr_range : (float, float)
    __name__ : str
        ``"exact-auc"`` for the range (0, 1), else ``"exact-pauc[a,b]"``.
    """

    def __init__(self, fpr_range=(0.0, 1.0), *, bins=DEFAULT_BINS):
        self.fpr_range = check_fpr_range(fpr_range)
        alpha, beta = self.fpr_range
        self.__name__ = ("exact-auc" if (alpha, beta) == (0.0, 1.0)
                         else f"exact-pauc[{alpha:g},{beta:g}]")
        self._metric = GlobalWindowMetric([self.fpr_range], bins)

    def __call__(self, first, second, sample_weight=None):
        if sample_weight is not None and np.size(sample_weight):
            raise NotImplementedError(
                f"{self.__name__} does not take sample weights: a weighted window would need "
                "the FPR range measured in negative weight; pass no weights")
        if hasattr(second, "get_label"):      # (predt, dmatrix): the learning API
            return self.__name__, self._metric.value(first, second)["value"]
        y_true, y_score = np.asarray(first), np.asarray(second)     # scikit-learn's API
        bad = (y_true != 0) & (y_true != 1)
        if bad.any():
            raise ValueError(f"{self.__name__} takes labels 0 / 1 (1 positive), got "
                             f"{np.unique(y_true[bad])[:5].tolist()}")
        is_pos = y_true == 1
        comm = XGBoostCollective()
        m, n = global_class_counts(is_pos, comm)
        scores = as_scores(y_score, is_pos.shape[0])
        return self._metric.value_of(scores, is_pos, m, n, comm)["value"]

    def __repr__(self):
        return f"exact_metric(fpr_range={self.fpr_range!r})"


def exact_metric(fpr_range=(0.0, 1.0), *, bins=DEFAULT_BINS):
    """The exact AUC, or partial AUC over ``fpr_range``, of every worker's rows.

    A custom metric for XGBoost's distributed training (``xgboost.dask``, or
    any training inside XGBoost's communicator): each worker calls it on its
    own rows; it selects the ``floor(n β) + 1``-th highest negative of all rows
    by a histogram selection over the collective, gathers on every worker the
    scores above it (the top of the ROC curve: about ``β n`` negatives and the
    positives above them, 8 bytes each; every row for the AUC) and walks the
    ROC curve there.  Every worker returns the same value, equal to
    :func:`pauc.metrics.partial_auc` (``normalize="range"``) -- or
    :func:`pauc.metrics.roc_auc` for ``fpr_range=(0, 1)`` -- of the gathered
    scores, ties counted one half; so early stopping on it stops every worker
    at the same round.  XGBoost's own distributed ``auc`` averages per-worker
    areas instead (see the user guide's example where the two differ).

    The value is to be maximised: pass ``maximize=True`` to ``xgboost.dask.train``
    or to :class:`xgboost.callback.EarlyStopping`.

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 1.0)
        The FPR window [α, β]; (0, 1) is the AUC.
    bins : int, default=1024
        Histogram bins of each selection round (a power of two).

    Returns
    -------
    metric : ExactMetric
        ``metric(predt, dmatrix) -> (name, value)`` for ``xgboost.dask.train(...,
        custom_metric=metric)``; ``metric(y_true, y_score) -> value`` for
        ``DaskXGBClassifier(eval_metric=metric)``.  Labels must be 0 / 1;
        sample weights are refused.

    Examples
    --------
    >>> from pauc.distributed import exact_metric        # doctest: +SKIP
    >>> out = xgboost.dask.train(client, params, dtrain, 100,
    ...                          evals=[(dvalid, "valid")],
    ...                          custom_metric=exact_metric((0.0, 0.1)),
    ...                          early_stopping_rounds=20, maximize=True)  # doctest: +SKIP

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017.
    .. [2] Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting
       System." KDD 2016.
    """
    return ExactMetric(fpr_range, bins=bins)
