"""The training calls of GradientBoostingRanker's engines, side by side: LightGBM, XGBoost.

:class:`pauc.boost.GradientBoostingRanker` runs the same losses, stopping
rule and selection on either engine (``engine="lightgbm" | "xgboost"``); what
differs is here: how a data set is built, how one candidate is boosted and
stopped, how a booster predicts raw scores and reports its gains.

XGBoost runs every loss as a custom objective of :mod:`pauc.objectives`
(log-loss too, so that the metric sees raw margins and both log-losses are
the same function), and its trees as LightGBM grows them: leaf-wise
(``grow_policy="lossguide"``, ``max_leaves=num_leaves``), 255 histogram
bins, ``lambda=reg_lambda``, ``min_child_weight=1e-3`` (LightGBM's
``min_sum_hessian_in_leaf``).  Sparse ``X`` is densified for XGBoost (which
would read the zeros a sparse matrix leaves out as missing values).  XGBoost
has no minimum row count per leaf: ``min_child_samples`` applies to LightGBM
only.  The stopping rule is
:class:`pauc.boost._xgboost_stopping.XGBoostWindowStopping`, fed by the
unrounded values of the validation criterion (XGBoost's log rounds them);
log-loss candidates also stop on the validation log-loss, computed by the
same metric.

References
----------
Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.

Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.
"""

import json
import os

import numpy as np
import scipy.sparse as sp

from .. import objectives
from .._dispatch import chunked, is_chunked

__all__ = ["ENGINES", "effective_threads", "xgboost_params", "boost_xgboost",
           "train_xgboost_fixed", "xgboost_dataset", "predict", "importances", "CriterionMetric"]

ENGINES = ("lightgbm", "xgboost")
# LightGBM's min_sum_hessian_in_leaf default: the smallest Hessian sum of a leaf
MIN_CHILD_WEIGHT = 1e-3
MAX_BIN = 255


def effective_threads(n_jobs):
    """Threads of either engine for scikit-learn's ``n_jobs`` (None = 1, -1 = all)."""
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs


def xgboost_params(ranker, seed):
    """XGBoost's parameters for the ranker's tree parameters (module docstring)."""
    return {
        "eta": float(ranker.learning_rate),
        "grow_policy": "lossguide",
        "max_leaves": int(ranker.num_leaves),
        "max_depth": 0,
        "tree_method": "hist",
        "max_bin": MAX_BIN,
        "lambda": float(ranker.reg_lambda),
        "min_child_weight": MIN_CHILD_WEIGHT,
        "nthread": effective_threads(ranker.n_jobs),
        "seed": int(seed),
        # raw margins start at 0: the window losses are shift-invariant
        "base_score": 0.0,
        "disable_default_eval_metric": 1,
        "verbosity": 0,
    }


def _logloss(is_pos, scores):
    """Mean binary cross-entropy of raw margins (the validation log-loss)."""
    margin = np.where(is_pos, scores, -scores)
    return float(np.mean(np.logaddexp(0.0, -margin)))


class CriterionMetric:
    """XGBoost custom metric of one process: the ranker's validation criterion
    (:class:`pauc.boost._gbm._ValidationCriterion`), and the validation
    log-loss with ``with_logloss``; keeps every value unrounded in ``records``."""

    def __init__(self, criterion, with_logloss):
        self.criterion, self.with_logloss = criterion, with_logloss
        self.records = []

    def __call__(self, predt, dmatrix):
        objectives.refuse_sample_weights(dmatrix)
        scores = np.asarray(predt, dtype=np.float64).reshape(-1)
        record = {"value": self.criterion.value(self.criterion.is_pos, scores)}
        out = [(self.criterion.name, record["value"])]
        if self.with_logloss:
            record["logloss"] = _logloss(self.criterion.is_pos, scores)
            out.append(("logloss", record["logloss"]))
        self.records.append(record)
        return out

    def values(self):
        return self.records


def _dense(X):
    """XGBoost reads the entries a sparse matrix leaves out as *missing* values (its
    trees then learn a default direction for them), LightGBM as zeros: sparse ``X``
    is densified so that a zero means zero on both engines, and a model predicts
    the same on the sparse and the dense form of the same rows."""
    return X.toarray() if sp.issparse(X) else X


def xgboost_dataset(X, is_pos, n_jobs, reference=None):
    """A quantised XGBoost data set (the validation one binned as ``reference``)."""
    import xgboost as xgb
    return xgb.QuantileDMatrix(_dense(X), label=is_pos.astype(np.float32), max_bin=MAX_BIN,
                               ref=reference, nthread=effective_threads(n_jobs))


def boost_xgboost(ranker, loss, train_set, valid_set, criterion, X_tr, pos_tr, fpr_range,
                  seed, width):
    """One candidate on XGBoost, with the return values of
    :meth:`GradientBoostingRanker._boost`: ``(booster, rounds, history, score,
    training_scores)``; ``width`` the rounds of the stopping rule's trailing mean."""
    import xgboost as xgb
    from ._xgboost_stopping import XGBoostWindowStopping

    params = xgboost_params(ranker, seed)
    objective = objectives.window_objective(pos_tr, fpr_range, loss)
    n_rounds = ranker._rounds(valid_set is not None)
    if valid_set is None:
        booster = xgb.train(params, train_set, num_boost_round=n_rounds, obj=objective)
        n = booster.num_boosted_rounds()
        return booster, {"fixed": n}, None, None, predict(booster, X_tr, n)
    metric = CriterionMetric(criterion, with_logloss=loss == "logloss")
    stopping = XGBoostWindowStopping(metric.values, ranker.n_iter_no_change, width,
                                     with_logloss=loss == "logloss")
    booster = xgb.train(params, train_set, num_boost_round=n_rounds, obj=objective,
                        evals=[(valid_set, "validation")], custom_metric=metric,
                        callbacks=[stopping], verbose_eval=ranker.verbose >= 2)
    return stopping_results(booster, loss)


def stopping_results(booster, loss):
    """``(booster, rounds, history, score, None)`` from the attributes the
    stopping callback left on ``booster``."""
    rounds = {"window": int(booster.attr("pauc_best_round"))}
    if loss == "logloss":
        rounds["logloss"] = int(booster.attr("pauc_loss_round"))
    history = np.asarray(json.loads(booster.attr("pauc_history")), dtype=np.float64)
    return booster, rounds, history, float(booster.attr("pauc_best")), None


def train_xgboost_fixed(ranker, loss, X, is_pos, fpr_range, seed, n_rounds):
    """``(booster, training_scores)``: ``loss`` boosted ``n_rounds`` on every row (refit)."""
    import xgboost as xgb
    booster = xgb.train(xgboost_params(ranker, seed), xgboost_dataset(X, is_pos, ranker.n_jobs),
                        num_boost_round=n_rounds,
                        obj=objectives.window_objective(is_pos, fpr_range, loss))
    return booster, predict(booster, X, n_rounds)


def predict(booster, X, n_iter):
    """Raw scores of the first ``n_iter`` rounds of a LightGBM or XGBoost booster
    (gathered from the workers for dask ``X``: the selection's validation scores)."""
    if is_chunked(X):
        return np.asarray(chunked("boosting_predict")(booster, X, n_iter).compute(),
                          dtype=np.float64).ravel()
    if hasattr(booster, "inplace_predict"):
        return np.asarray(booster.inplace_predict(_dense(X), iteration_range=(0, int(n_iter)),
                                                  predict_type="margin"),
                          dtype=np.float64).ravel()
    return np.asarray(booster.predict(X, raw_score=True, num_iteration=n_iter),
                      dtype=np.float64).ravel()


def importances(booster, n_iter, n_features):
    """Total gain of the splits on each feature in the first ``n_iter`` rounds."""
    if not hasattr(booster, "get_score"):
        return booster.feature_importance("gain", iteration=n_iter)
    gains = np.zeros(n_features)
    scores = booster[:int(n_iter)].get_score(importance_type="total_gain")
    names = booster.feature_names
    for name, gain in scores.items():
        gains[names.index(name) if names else int(name[1:])] = gain
    return gains
