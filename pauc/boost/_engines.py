"""The engines of GradientBoostingRanker: the only place where pauc calls a tree library.

:class:`pauc.boost.GradientBoostingRanker` runs the same candidates,
cross-fitting, stopping rule, selection and fold bagging on LightGBM (Ke et al.
2017) or XGBoost (Chen & Guestrin 2016), ``engine="lightgbm" | "xgboost"``.
Everything it asks of an engine is the small interface of :class:`Engine`:

* :meth:`~Engine.params`: the engine's parameters for a base configuration and
  a candidate's configuration, both written in LightGBM's names
  (:mod:`pauc.boost._candidates`);
* :meth:`~Engine.boost`: boost one loss, optionally evaluating held-out rows
  every round and handing the criterion and the held-out log-loss to a
  :class:`pauc.boost._stopping.Stopping`, which says when to stop;
* :meth:`~Engine.predict`: raw scores of the first ``n`` rounds;
* :meth:`~Engine.n_rounds` and :meth:`~Engine.gains`.

How XGBoost differs:

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
* XGBoost's callback returns True to stop (``TrainingCallback.after_iteration``)
  where LightGBM's raises; both adapters feed the same
  :class:`~pauc.boost._stopping.Stopping` (:mod:`pauc.boost._xgboost_stopping`).

References
----------
Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.

Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.
"""

import os
from abc import ABC, abstractmethod

import numpy as np
import scipy.sparse as sp

from .._loss import loss_row
from ..objectives import WindowObjective, refuse_sample_weights

__all__ = ["ENGINES", "CANDIDATE_ENGINES", "Engine", "LightGBMEngine", "XGBoostEngine",
           "ObliviousEngine", "get_engine",
           "engine_of", "effective_threads", "held_out_logloss"]

# LightGBM's min_sum_hessian_in_leaf default: XGBoost's smallest Hessian sum of a leaf
MIN_CHILD_WEIGHT = 1e-3
MAX_BIN = 255
# XGBoost's stand-in for extra_trees: the share of features drawn at every node
EXTRA_TREES_COLSAMPLE_BYNODE = 0.5


def effective_threads(n_jobs):
    """Threads of either engine for scikit-learn's ``n_jobs`` (None = 1, -1 = all)."""
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs


def held_out_logloss(is_pos, scores):
    """Mean binary cross-entropy of raw margins (the held-out log-loss)."""
    margin = np.where(is_pos, scores, -scores).astype(np.float64)
    return float(np.mean(np.logaddexp(0.0, -margin)))


class Engine(ABC):
    """The interface of an engine (module docstring); the two below implement it."""

    name = None

    @abstractmethod
    def params(self, base, config, seed, n_threads):
        """The engine's parameters: ``base`` updated by ``config`` (LightGBM names)."""

    @abstractmethod
    def boost(self, params, loss, fpr_range, n_rounds, train, valid=None, *,
              criterion=None, stopping=None, log=False):
        """Boost ``loss`` for up to ``n_rounds`` rounds on ``train = (X, is_pos)``.

        Parameters
        ----------
        params : dict
            From :meth:`params`.
        loss : str
            ``"logloss"`` or a window loss of :mod:`pauc.objectives`.
        fpr_range : (float, float)
        n_rounds : int
        train, valid : (X, is_pos) or None
            Training rows, and held-out rows evaluated every round.
        criterion : pauc.boost._stopping.ValidationCriterion or None
            Computed on ``valid`` every round (None: only the held-out
            log-loss, when ``stopping`` stops on it).
        stopping : pauc.boost._stopping.Stopping or None
            Fed every round; boosting ends when it says so.
        log : bool
            Print the held-out values every round.

        Returns
        -------
        booster
        """

    @abstractmethod
    def predict(self, booster, X, n_rounds, n_threads=None):
        """Raw scores (float64) of the first ``n_rounds`` rounds.

        ``n_threads``: the prediction's threads where the library takes them per
        call (LightGBM, whose call sets a process-wide count: None means the
        booster's training count, never "every core" under parallel fold fits).
        XGBoost's in-place prediction runs with the booster's own ``nthread`` and
        is thread-safe; pauc's oblivious trees predict in one thread.
        """

    @abstractmethod
    def n_rounds(self, booster):
        """Rounds the booster holds."""

    @abstractmethod
    def gains(self, booster, n_rounds, n_features):
        """Total gain of the splits on each feature in the first ``n_rounds`` rounds."""


class LightGBMEngine(Engine):
    """LightGBM: the binary objective for log-loss, :mod:`pauc.objectives` otherwise."""

    name = "lightgbm"

    def params(self, base, config, seed, n_threads):
        params = dict(base, num_threads=int(n_threads), seed=int(seed),
                      # identical models for any number of threads, and no timing test
                      # to choose the histogram layout (docs/developer/measurements.rst)
                      deterministic=True, force_row_wise=True, verbosity=-1, metric="None")
        params.update(config)
        return params

    @staticmethod
    def dataset(X, is_pos, seed, reference=None):
        import lightgbm as lgb
        # feature_pre_filter off: on small data LightGBM would otherwise drop every
        # feature that min_data_in_leaf cannot split, and refuse a custom objective
        return lgb.Dataset(X, label=is_pos.astype(np.float64), reference=reference,
                           params={"verbosity": -1, "seed": seed, "feature_pre_filter": False},
                           free_raw_data=False)

    def boost(self, params, loss, fpr_range, n_rounds, train, valid=None, *,
              criterion=None, stopping=None, log=False):
        import lightgbm as lgb
        params = dict(params)
        if not loss_row(loss).window:
            # the pointwise log-loss: LightGBM's own binary objective
            params["objective"] = "binary"
            if valid is not None:
                params["metric"] = "binary_logloss"
        else:
            # built from validated labels: no second validation (objectives.window_objective)
            params["objective"] = WindowObjective(train[1], fpr_range, loss, 0.0)
        train_set = self.dataset(*train, params["seed"])
        extra, callbacks = {}, []
        if valid is not None:
            extra = {"valid_sets": [self.dataset(*valid, params["seed"], reference=train_set)],
                     "valid_names": ["validation"], "feval": criterion}
            if stopping is not None:
                callbacks.append(_LightGBMStopping(stopping,
                                                   None if criterion is None else criterion.name))
            if log:
                callbacks.append(lgb.log_evaluation(1))
        # keep_training_booster: LightGBM would otherwise write the model to a string
        # and parse it back at the end of training (a sixth of a small cross-fitted fit)
        booster = lgb.train(params, train_set, num_boost_round=n_rounds, callbacks=callbacks,
                            keep_training_booster=True, **extra)
        booster.free_dataset()
        return booster

    def predict(self, booster, X, n_rounds, n_threads=None):
        # always with a thread count: LightGBM sets a process-wide thread count from
        # each call's parameters, and a prediction without one resets it to every core
        # under the fold fits other threads are boosting (a segfault was seen once)
        if n_threads is None:
            n_threads = int(booster.params.get("num_threads", 0) or 0)
        extra = {"num_threads": int(n_threads)} if n_threads > 0 else {}
        return np.asarray(booster.predict(X, raw_score=True, num_iteration=int(n_rounds),
                                          **extra), dtype=np.float64).ravel()

    def n_rounds(self, booster):
        return booster.current_iteration()

    def gains(self, booster, n_rounds, n_features):
        return np.asarray(booster.feature_importance("gain", iteration=int(n_rounds)),
                          dtype=np.float64)


class _LightGBMStopping:
    """LightGBM callback: hands the round's held-out values to a ``Stopping``, raises
    LightGBM's ``EarlyStopException`` (keeping the stopping's rounds) when it says so."""

    order = 30      # after LightGBM's own callbacks

    def __init__(self, stopping, criterion_name):
        self.stopping, self.criterion_name = stopping, criterion_name

    def __call__(self, env):
        import lightgbm as lgb
        results = {r[1]: r[2] for r in env.evaluation_result_list}
        value = None if self.criterion_name is None else results[self.criterion_name]
        if self.stopping.update(value, results.get("binary_logloss")):
            raise lgb.callback.EarlyStopException(self.stopping.best_round - 1, [])


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


class XGBoostEngine(Engine):
    """XGBoost: every loss a custom objective, trees grown leaf-wise (module docstring)."""

    name = "xgboost"
    max_bin = MAX_BIN

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
    def dataset(X, is_pos, n_threads, reference=None):
        """A quantised data set (a held-out one binned as ``reference``)."""
        import xgboost as xgb
        return xgb.QuantileDMatrix(_dense(X), label=is_pos.astype(np.float32), max_bin=MAX_BIN,
                                   ref=reference, nthread=int(n_threads))

    def boost(self, params, loss, fpr_range, n_rounds, train, valid=None, *,
              criterion=None, stopping=None, log=False):
        import xgboost as xgb
        train_set = self.dataset(*train, params["nthread"])
        objective = WindowObjective(train[1], fpr_range, loss, 0.0)
        extra = {}
        with_logloss = stopping is not None and stopping.rule == "logloss"
        if valid is not None and (criterion is not None or with_logloss):
            metric = CriterionMetric(criterion, valid[1], with_logloss)
            extra = {"evals": [(self.dataset(*valid, params["nthread"], reference=train_set),
                                "validation")],
                     "custom_metric": metric, "verbose_eval": bool(log)}
            if stopping is not None:
                extra["callbacks"] = [self.stopping_callback(stopping, metric.values)]
        return xgb.train(params, train_set, num_boost_round=n_rounds, obj=objective, **extra)

    @staticmethod
    def stopping_callback(stopping, values):
        """The XGBoost callback that feeds ``stopping`` the metric's records
        ``values()`` every round (in this process or on every worker of a
        distributed training: :mod:`pauc.boost._xgboost_stopping`)."""
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


class CriterionMetric:
    """XGBoost custom metric of one process: the held-out criterion
    (:class:`pauc.boost._stopping.ValidationCriterion`; None: not computed) and,
    with ``with_logloss``, the held-out log-loss; keeps every value unrounded in
    ``records`` (XGBoost's log rounds them), one dict per round with keys
    ``"value"`` and ``"logloss"``."""

    def __init__(self, criterion, is_pos, with_logloss):
        self.criterion, self.with_logloss = criterion, with_logloss
        self.is_pos = np.ascontiguousarray(is_pos, dtype=np.bool_)
        self.name = "logloss" if criterion is None else criterion.name
        self.records = []

    def __call__(self, predt, dmatrix):
        refuse_sample_weights(dmatrix)
        scores = np.asarray(predt, dtype=np.float64).reshape(-1)
        record = {"value": None, "logloss": None}
        out = []
        if self.criterion is not None:
            record["value"] = self.criterion.value(self.is_pos, scores)
            out.append((self.criterion.name, record["value"]))
        if self.with_logloss:
            record["logloss"] = held_out_logloss(self.is_pos, scores)
            out.append(("logloss", record["logloss"]))
        self.records.append(record)
        return out if len(out) > 1 else out[0]

    def values(self):
        return self.records


class ObliviousEngine(Engine):
    """pauc's own oblivious trees (:mod:`pauc.boost._oblivious`): any loss,
    CatBoost's tree shape, score function, random strength and bootstrap.  Its
    parameters are its own (``OBLIVIOUS_DEFAULTS``), not the estimator's
    LightGBM-named tree parameters; one thread per fit (the folds run in
    parallel threads, and the kernels release the GIL)."""

    name = "oblivious"

    def params(self, base, config, seed, n_threads):
        from ._oblivious import OBLIVIOUS_DEFAULTS
        unknown = set(config) - set(OBLIVIOUS_DEFAULTS)
        if unknown:
            raise ValueError(f"unknown oblivious-tree parameters {sorted(unknown)}; known: "
                             f"{sorted(OBLIVIOUS_DEFAULTS)}")
        return dict(OBLIVIOUS_DEFAULTS, **config, seed=int(seed))

    def boost(self, params, loss, fpr_range, n_rounds, train, valid=None, *,
              criterion=None, stopping=None, log=False):
        from ._oblivious import boost
        on_round = None
        if valid is not None and stopping is not None:
            with_logloss = stopping.rule == "logloss"

            def on_round(loss_va, value):
                # the kernel's held-out log-loss and criterion (the same windows and
                # walk as criterion.value: pauc.boost._oblivious_tree.HeldOut)
                value = None if criterion is None else float(value)
                loss_va = float(loss_va) if with_logloss else None
                if log:
                    print(f"[oblivious] {value} {loss_va}")
                return stopping.update(value, loss_va)
        return boost(params, loss, fpr_range, n_rounds, train[0], train[1],
                     valid=None if valid is None else valid[0], on_round=on_round,
                     valid_is_pos=None if valid is None else valid[1],
                     windows=() if criterion is None or valid is None else criterion.windows)

    def predict(self, booster, X, n_rounds, n_threads=None):
        return booster.predict(X, n_rounds)

    def n_rounds(self, booster):
        return booster.n_trees

    def gains(self, booster, n_rounds, n_features):
        return booster.gains(n_rounds, n_features)


ENGINES = {"lightgbm": LightGBMEngine(), "xgboost": XGBoostEngine()}
# engines a candidate may name (pauc.boost._candidates) besides the estimator's
CANDIDATE_ENGINES = dict(ENGINES, oblivious=ObliviousEngine())


def get_engine(name):
    """The engine called ``name`` (``"lightgbm"``, ``"xgboost"`` or ``"oblivious"``)."""
    return CANDIDATE_ENGINES[name]


def engine_of(booster):
    """The engine that grew ``booster``."""
    from ._oblivious import ObliviousBooster
    if isinstance(booster, ObliviousBooster):
        return CANDIDATE_ENGINES["oblivious"]
    return ENGINES["xgboost" if hasattr(booster, "inplace_predict") else "lightgbm"]
