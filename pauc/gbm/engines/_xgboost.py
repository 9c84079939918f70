"""XGBoost as an engine of GradientBoostingRanker (:mod:`pauc.gbm.engines._interface`).

How XGBoost differs from LightGBM (:mod:`pauc.gbm.engines._lightgbm`):

* every loss is a custom objective of :mod:`pauc.objectives` (log-loss too,
  so that the metric sees raw margins and the held-out log-loss is computed
  from the same margins as on LightGBM); raw margins start at 0
  (``base_score=0``) where LightGBM's binary objective starts at the log-odds
  of the training rows;
* trees are grown as LightGBM grows them: leaf-wise
  (``grow_policy="lossguide"``, ``max_leaves=num_leaves``), 255 histogram
  bins, ``min_child_weight=1e-3`` (LightGBM's ``min_sum_hessian_in_leaf``);
* LightGBM names map to XGBoost's (``learning_rate -> eta``, ``lambda_l2 ->
  lambda``, ``bagging_fraction -> subsample``, ``feature_fraction ->
  colsample_bytree``); two have no XGBoost equivalent: ``min_data_in_leaf``
  (XGBoost has no minimum row count per leaf: it is dropped) and
  ``extra_trees`` (XGBoost has no random split thresholds: the extra-trees
  candidate randomises its splits by drawing half of the features at every
  node instead, ``colsample_bynode=0.5``);
* sparse ``X`` is densified (XGBoost would read the zeros a sparse matrix
  leaves out as missing values, LightGBM reads them as zeros);
* on a cluster, XGBoost's callback feeds the same
  :class:`~pauc.gbm._stopping.Stopping` (:mod:`pauc.gbm.engines._xgboost_stopping`).

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.
"""

import sys

import numpy as np
import scipy.sparse as sp

from ..objectives import WindowObjective
from ._interface import Engine, Session, held_out_logloss

__all__ = ["XGBoostEngine", "MAX_BIN"]

# LightGBM's min_sum_hessian_in_leaf default: XGBoost's smallest Hessian sum of a leaf
MIN_CHILD_WEIGHT = 1e-3
MAX_BIN = 255
# XGBoost's stand-in for extra_trees: the share of features drawn at every node
EXTRA_TREES_COLSAMPLE_BYNODE = 0.5


# LightGBM names -> XGBoost names (module docstring); None: no XGBoost equivalent
_XGBOOST_NAMES = {"learning_rate": "eta", "num_leaves": "max_leaves",
                  "lambda_l2": "lambda", "bagging_fraction": "subsample",
                  "feature_fraction": "colsample_bytree", "min_data_in_leaf": None,
                  "bagging_freq": None}


def _dense(X):
    """Sparse ``X`` densified: XGBoost reads the entries a sparse matrix leaves out as
    *missing* values (its trees then learn a default direction for them), LightGBM
    as zeros; densified, a zero means zero on both engines, and a model predicts the
    same on the sparse and the dense form of the same rows."""
    return X.toarray() if sp.issparse(X) else X


class _XGBoostRows:
    """Rows as XGBoost's quantised matrices: the bins (quantile cuts) sketched once
    on every row, each subset quantised at them (``ref``); only the rows of the
    sketch keep their values (the subsets' are read once, when quantised)."""

    def __init__(self, matrix, is_pos, n_threads, X=None, cuts=None):
        self.matrix, self.is_pos, self._X = matrix, is_pos, X
        self._n_threads, self._cuts = n_threads, matrix if cuts is None else cuts

    @classmethod
    def of(cls, X, is_pos, params):
        import xgboost as xgb
        X, n_threads = _dense(X), int(params["nthread"])
        matrix = xgb.QuantileDMatrix(X, label=is_pos.astype(np.float32), max_bin=MAX_BIN,
                                     nthread=n_threads)
        return cls(matrix, is_pos, n_threads, X)

    def like(self, X, is_pos):
        import xgboost as xgb
        matrix = xgb.QuantileDMatrix(_dense(X), label=is_pos.astype(np.float32),
                                     max_bin=MAX_BIN, ref=self._cuts,
                                     nthread=int(self._n_threads))
        return _XGBoostRows(matrix, is_pos, self._n_threads, cuts=self._cuts)

    def subset(self, rows):
        return self.like(self._X[rows], self.is_pos[rows])


class _XGBoostSession(Session):
    """XGBoost's training loop (``xgboost.train``'s, without its callbacks):
    every loss a custom objective, raw margins from 0; the held-out margins are
    read from the booster's prediction cache every round."""

    def __init__(self, engine, params, loss, fpr_range, cap, train, valid, criterion,
                 stopping, log):
        import xgboost as xgb
        super().__init__(engine, cap, valid, criterion, stopping, log)
        self._evaluated = valid is not None and stopping is not None
        self.booster = xgb.Booster(params, [train.matrix] + ([valid.matrix]
                                                             if self._evaluated else []))
        self._train = train.matrix
        self._objective = WindowObjective(train.is_pos, fpr_range, loss, 0.0)
        self._with_logloss = stopping is not None and stopping.rule == "logloss"

    def _boost(self, n_rounds):
        for _ in range(n_rounds):
            self.booster.update(self._train, self.rounds, fobj=self._objective)
            self.rounds += 1
            if self._evaluated:
                scores = np.asarray(self.booster.predict(self.valid.matrix, output_margin=True),
                                    dtype=np.float64).ravel()
                value = (None if self.criterion is None
                         else self.criterion.value(self.valid.is_pos, scores))
                logloss = (held_out_logloss(self.valid.is_pos, scores) if self._with_logloss
                           else None)
                if self._after_round(value, logloss, scores):
                    return True
        return False

    def _predict_held_out(self, n_rounds):
        return np.asarray(self.booster.predict(self.valid.matrix, output_margin=True,
                                               iteration_range=(0, int(n_rounds))),
                          dtype=np.float64).ravel()

    def finish(self):
        return self.booster.reset()


class XGBoostEngine(Engine):
    """XGBoost: every loss a custom objective, trees grown leaf-wise (module docstring)."""

    name = "xgboost"
    max_bin = MAX_BIN
    rows_type, session_type = _XGBoostRows, _XGBoostSession

    def params(self, base, config, seed, n_threads):
        merged = dict(base)
        merged.update(config)
        params = {"grow_policy": "lossguide", "max_depth": 0, "tree_method": "hist",
                  "max_bin": MAX_BIN, "min_child_weight": MIN_CHILD_WEIGHT,
                  "nthread": int(n_threads), "seed": int(seed),
                  # raw margins start at 0: the window losses are shift-invariant
                  "base_score": 0.0, "disable_default_eval_metric": 1, "verbosity": 0}
        for key, value in merged.items():
            if key == "extra_trees":
                if value:
                    params["colsample_bynode"] = EXTRA_TREES_COLSAMPLE_BYNODE
                continue
            if key not in _XGBOOST_NAMES:
                raise ValueError(f"no XGBoost equivalent is known for LightGBM's {key!r}")
            if _XGBOOST_NAMES[key] is not None:
                params[_XGBOOST_NAMES[key]] = value
        return params

    @staticmethod
    def stopping_callback(stopping, values):
        """The XGBoost callback that feeds ``stopping`` the metric's records
        ``values()`` every round (in this process or on every worker of a
        distributed training: :mod:`pauc.gbm.engines._xgboost_stopping`)."""
        from ._xgboost_stopping import XGBoostStopping
        return XGBoostStopping(stopping, values)

    @staticmethod
    def stopped(booster):
        """``(kept rounds, history)`` the stopping callback left on ``booster``."""
        from ._xgboost_stopping import stopping_attributes
        best_round, _, history = stopping_attributes(booster)
        return min(best_round, booster.num_boosted_rounds()), np.asarray(history, dtype=np.float64)

    def predict(self, booster, X, n_rounds, n_threads=None):
        return np.asarray(booster.inplace_predict(_dense(X), iteration_range=(0, int(n_rounds)),
                                                  predict_type="margin"),
                          dtype=np.float64).ravel()

    def n_rounds(self, booster):
        return booster.num_boosted_rounds()

    def gains(self, booster, n_rounds, n_features):
        gains = np.zeros(n_features)
        if n_rounds <= 0:
            return gains
        scores = booster[:int(n_rounds)].get_score(importance_type="total_gain")
        names = booster.feature_names
        for name, gain in scores.items():
            gains[names.index(name) if names else int(name[1:])] = gain
        return gains


    def grew(self, booster):
        # a booster of XGBoost's type exists only once xgboost is imported (an extra)
        xgb = sys.modules.get("xgboost")
        return xgb is not None and isinstance(booster, xgb.Booster)
