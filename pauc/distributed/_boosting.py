"""``GradientBoostingRanker.fit`` on dask data: ``xgboost.dask`` on the global window.

:meth:`pauc.boost.GradientBoostingRanker.fit` hands dask input here
(registered as ``"boosting_fit"``, :mod:`pauc._dispatch`).  The fit runs the
in-memory fit's steps with the rows left on their workers:

1. labels: the distinct values (a few numbers reach the client), the
   positive class by the estimator's rule, ``y == pos_label`` as a lazy vector;
2. the validation split: a seeded uniform draw per row (row chunks keep
   their workers; on the large data this path is for, the split's class
   shares are those of the data up to sampling noise, so it is not
   stratified), the window checked non-empty in both parts;
3. each candidate loss boosted by ``xgboost.dask.train`` with
   :class:`pauc.distributed._xgboost_window.GlobalWindowObjective` (the window
   exponential loss on the exact global window, or log-loss) and stopped by
   :class:`pauc.boost._xgboost_stopping.XGBoostWindowStopping` on
   :class:`~pauc.distributed._xgboost_window.GlobalWindowMetric`, the exact
   partial AUC of every validation row -- the same value on every worker, so
   every worker stops at the same round;
4. the selection of :meth:`GradientBoostingRanker._select` (the bootstrap test
   against log-loss): it needs the candidates' validation scores, gathered on
   the client -- 8 bytes per validation row and candidate, no feature;
5. the operating threshold by :func:`pauc._threshold.threshold_rule` on the
   training scores, which stay on the workers (a few order statistics reach
   the client, as in the chunked SVM fits).

A worker lost during boosting (killed, out of memory) ends the fit with a
:class:`WorkerLostError` -- XGBoost's communicator gives up after
``COLLECTIVE_TIMEOUT`` seconds at most, so the surviving workers never wait
forever.

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.
"""

import contextlib
import time
import uuid

import dask
import dask.array as da
import numpy as np
from sklearn.utils import check_random_state

from .._threshold import threshold_rule
from .._validation import check_fpr_range, empirical_indices
from ._actors import distributed_client
from ._collections import blocks, check_known_chunks
from ._collective import CollectiveError
from ._graphs import _GraphOrderStatistics
from ._xgboost_window import (DISTRIBUTED_LOSSES, GlobalWindowMetric, GlobalWindowObjective,
                              forget, records)

__all__ = ["WorkerLostError", "COLLECTIVE_TIMEOUT", "boosting_fit", "boosting_scores",
           "boosting_predict"]

# seconds an allreduce may wait for a peer before XGBoost's communicator fails
COLLECTIVE_TIMEOUT = 120


class WorkerLostError(RuntimeError):
    """A Dask worker died (or stopped answering) during distributed boosting."""


class _RecordedValues:
    """The metric records of one candidate in the calling worker process
    (:class:`~pauc.boost._xgboost_stopping.XGBoostWindowStopping` reads them)."""

    def __init__(self, name):
        self.name = name

    def __call__(self):
        return records(self.name)


class _Counts:
    def __init__(self, n_pos, n_neg):
        self.n_pos, self.n_neg = int(n_pos), int(n_neg)


def _as_arrays(X, y):
    """``X`` and ``y`` as dask arrays with known row chunks, ``y``'s matching ``X``'s."""
    if hasattr(X, "to_dask_array"):
        X = X.to_dask_array(lengths=True)
    if hasattr(y, "to_dask_array"):
        y = y.to_dask_array(lengths=True)
    if not isinstance(X, da.Array):
        raise TypeError("a distributed fit needs X as a dask array or dataframe when y is one, "
                        f"got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-d, got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    check_known_chunks(X, "X")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    if not isinstance(y, da.Array):
        y = np.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows, y has {y.shape[0]}")
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-d with X's {X.shape[0]} rows, got shape {y.shape}")
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    return X, y


def _check(ranker, sample_weight):
    if ranker.engine != "xgboost":
        raise ValueError(
            "fit on dask data trains with xgboost.dask: pass engine='xgboost'. LightGBM's Dask "
            "interface calls a custom objective on each worker's own rows and exposes no "
            "collective, so its window would be each worker's, not the data's.")
    if sample_weight is not None:
        raise NotImplementedError("fit does not take sample_weight with dask data: a weighted "
                                  "window would need the FPR range measured in negative "
                                  "weight; pass sample_weight=None")
    if ranker.loss not in ("auto",) + DISTRIBUTED_LOSSES:
        raise ValueError(f"loss={ranker.loss!r} needs the sorted window and runs on one machine "
                         f"only; a distributed fit takes loss in "
                         f"{['auto', *DISTRIBUTED_LOSSES]}")


def _train(client, params, dtrain, n_rounds, objective, evals=None, metric=None,
           callbacks=None):
    """``xgboost.dask.train`` with a bounded collective timeout; a lost worker
    becomes a :class:`WorkerLostError`."""
    import xgboost as xgb
    import xgboost.dask  # noqa: F401 - registers xgb.dask

    before = set(client.scheduler_info()["workers"])
    try:
        return xgb.dask.train(client, params, dtrain, num_boost_round=n_rounds, obj=objective,
                              evals=evals, custom_metric=metric, callbacks=callbacks,
                              verbose_eval=False,
                              coll_cfg=xgb.collective.Config(timeout=COLLECTIVE_TIMEOUT))
    except (ValueError, TypeError, NotImplementedError):
        raise
    except Exception as exc:
        lost = before - set(client.scheduler_info()["workers"])
        if lost or isinstance(exc, CollectiveError) or "Killed" in type(exc).__name__ \
                or "Cancelled" in type(exc).__name__ or "CommClosed" in type(exc).__name__:
            raise WorkerLostError(
                "distributed boosting failed: a Dask worker was lost or stopped answering "
                f"({', '.join(sorted(lost)) or 'see the cause'}); no model was fitted. "
                f"Cause: {type(exc).__name__}: {exc}") from exc
        raise


def boosting_fit(ranker, X, y, sample_weight):
    """:meth:`GradientBoostingRanker.fit` on dask ``X``, ``y`` (module docstring)."""
    import xgboost.dask as xgb_dask

    from ..boost import _engines
    from ..boost._gbm import (AUTO_CANDIDATES, EARLY_STOPPING_MIN_ROWS, SMOOTHING_DIVISOR,
                              _label, _ValidationCriterion, validation_windows)
    from ..boost._xgboost_stopping import XGBoostWindowStopping

    ranker._validate_params()
    _check(ranker, sample_weight)
    fpr_range = check_fpr_range(ranker.fpr_range)
    client = distributed_client()
    if client is None:
        raise ValueError("fit on dask data needs a dask.distributed Client (xgboost.dask trains "
                         "on the cluster's workers): create one, e.g. "
                         "Client(LocalCluster(n_workers=2))")
    X, y = _as_arrays(X, y)
    (X, y) = dask.persist(X, y)
    classes = np.unique(da.unique(y).compute())
    pos_label = ranker._set_binary_classes(classes, classes)
    ranker.n_features_in_ = int(X.shape[1])
    is_pos, y = y == pos_label, None
    rng = check_random_state(ranker.random_state)
    n = int(X.shape[0])
    use_validation = (ranker.early_stopping if isinstance(ranker.early_stopping, bool)
                      else n >= EARLY_STOPPING_MIN_ROWS)
    if use_validation:
        seed = int(rng.randint(np.iinfo(np.int32).max))
        held_out = da.random.RandomState(seed).random_sample(n, chunks=(X.chunks[0],)) \
            < ranker.validation_fraction
        X_tr, pos_tr = X[~held_out], is_pos[~held_out]
        X_va, pos_va = X[held_out], is_pos[held_out]
        X_tr, pos_tr, X_va, pos_va = dask.persist(X_tr, pos_tr, X_va, pos_va)
        # from here on the two parts are the rows: the persisted X is released (a copy
        # of it would double the workers' memory); the threshold and a refit read the
        # parts
        X, is_pos = da.concatenate([X_tr, X_va]), da.concatenate([pos_tr, pos_va])
        pos_va_local = np.asarray(pos_va.compute())       # 1 byte per validation row
    else:
        X_tr, pos_tr, X_va, pos_va, pos_va_local = X, is_pos, None, None, None
    parts = {"training": tuple(int(c) for c in dask.compute(pos_tr.sum(), (~pos_tr).sum()))}
    if use_validation:
        parts["validation"] = (int(pos_va_local.sum()), int((~pos_va_local).sum()))
    for name, (m_part, n_part) in parts.items():
        if m_part == 0 or n_part == 0:
            raise ValueError(f"the {name} split holds {m_part} positives and {n_part} "
                             "negatives; both are needed (use more rows or early_stopping=False)")
        try:
            indices = empirical_indices(n_part, fpr_range)
        except ValueError:
            raise ValueError(f"fpr_range={ranker.fpr_range!r} selects no negative position in "
                             f"the {name} split ({n_part} negatives); widen fpr_range or "
                             "use more rows") from None
        if name == "training":
            ranker.j_alpha_, ranker.j_beta_ = indices
    seed = int(rng.randint(np.iinfo(np.int32).max))
    candidates = ((ranker.loss,) if ranker.loss != "auto"
                  else AUTO_CANDIDATES if use_validation else ("logloss",))
    params = _engines.xgboost_params(ranker, seed)
    params["nthread"] = _engines.effective_threads(ranker.n_jobs)
    dtrain = xgb_dask.DaskQuantileDMatrix(client, X_tr, pos_tr.astype(np.float32),
                                          max_bin=_engines.MAX_BIN)
    evals, criterion = None, None
    ranker.validation_windows_ = []
    if use_validation:
        dvalid = xgb_dask.DaskQuantileDMatrix(client, X_va, pos_va.astype(np.float32),
                                              max_bin=_engines.MAX_BIN, ref=dtrain)
        evals = [(dvalid, "validation")]
        ranker.validation_windows_ = validation_windows(parts["validation"][1], fpr_range)
        criterion = _ValidationCriterion(ranker.validation_windows_, pos_va_local)
    ranker.validation_history_, ranker.validation_score_ = {}, {}
    ranker.fit_seconds_ = {}
    boosted = []
    for loss in candidates:
        start = time.perf_counter()
        objective = GlobalWindowObjective(fpr_range, loss)
        n_rounds = ranker._rounds(use_validation)
        if not use_validation:
            out = _train(client, params, dtrain, n_rounds, objective)
            booster = out["booster"]
            rounds = {"fixed": booster.num_boosted_rounds()}
        else:
            name = f"pauc-{uuid.uuid4().hex}"
            metric = GlobalWindowMetric(ranker.validation_windows_, record=name,
                                        with_logloss=loss == "logloss")
            stopping = XGBoostWindowStopping(
                _RecordedValues(name), ranker.n_iter_no_change,
                max(1, ranker.n_iter_no_change // SMOOTHING_DIVISOR),
                with_logloss=loss == "logloss")
            try:
                out = _train(client, params, dtrain, n_rounds, objective, evals, metric,
                             [stopping])
            finally:
                # the metric's records on the workers; a worker that died has none left
                with contextlib.suppress(Exception):
                    client.run(forget, name)
            booster, rounds, curve, score, _ = _engines.stopping_results(out["booster"], loss)
            ranker.validation_history_[loss] = curve
            ranker.validation_score_[loss] = score
        ranker.fit_seconds_[loss] = time.perf_counter() - start
        for rule in ("fixed", "logloss", "window"):
            if rule in rounds and not (rule == "window" and rounds.get("logloss")
                                       == rounds["window"]):
                boosted.append((loss, rule, booster, rounds[rule]))
        if ranker.verbose:
            print(f"[GradientBoostingRanker] {loss} (xgboost.dask): rounds {rounds}, "
                  f"{ranker.fit_seconds_[loss]:.2f} s")
    ranker.validation_rounds_ = {_label(loss, rule): k for loss, rule, _, k in boosted
                                 if rule != "fixed"}
    ranker.best_loss_, ranker.stopped_on_, ranker.booster_, ranker.n_iter_ = ranker._select(
        boosted, X_va, pos_va_local, criterion, rng)
    if use_validation and ranker.refit:
        start = time.perf_counter()
        dall = xgb_dask.DaskQuantileDMatrix(client, X, is_pos.astype(np.float32),
                                            max_bin=_engines.MAX_BIN)
        ranker.booster_ = _train(client, params, dall, ranker.n_iter_,
                                 GlobalWindowObjective(fpr_range, ranker.best_loss_))["booster"]
        ranker.fit_seconds_["refit"] = time.perf_counter() - start
    gain = _engines.importances(ranker.booster_, ranker.n_iter_, X.shape[1])
    total = gain.sum()
    ranker.feature_importances_ = gain / total if total > 0 else np.zeros_like(gain)
    # the operating threshold from a few order statistics of the training scores,
    # which stay on the workers
    (scores,) = dask.persist(boosting_predict(ranker.booster_, X, ranker.n_iter_))
    counts = _Counts(*dask.compute(is_pos.sum(), (~is_pos).sum()))
    operating = ranker.operating_fpr
    if operating is None:
        operating = fpr_range[1] if fpr_range[1] < 1.0 else None
    ranker.threshold_ = threshold_rule(
        _GraphOrderStatistics(blocks(scores), blocks(is_pos), counts), operating)
    return ranker


def boosting_predict(booster, X, n_iter):
    """Raw scores of the first ``n_iter`` rounds of ``booster`` on dask ``X``, lazily."""
    import xgboost.dask as xgb_dask
    client = distributed_client()
    if client is None:
        raise ValueError("scoring dask data with an XGBoost model needs a dask.distributed "
                         "Client")
    return xgb_dask.predict(client, booster, X, output_margin=True,
                            iteration_range=(0, int(n_iter)))


def boosting_scores(ranker, X):
    """``decision_function`` of a fitted ranker on dask ``X``: a lazy dask vector."""
    from sklearn.utils.validation import check_is_fitted
    check_is_fitted(ranker)
    if not hasattr(ranker.booster_, "inplace_predict"):
        raise ValueError("scoring dask data needs a model fitted with engine='xgboost'")
    if hasattr(X, "to_dask_array"):
        X = X.to_dask_array(lengths=True)
    if X.ndim != 2 or X.shape[1] != ranker.n_features_in_:
        raise ValueError(f"X has shape {X.shape}; the model was fitted with "
                         f"{ranker.n_features_in_} features")
    return boosting_predict(ranker.booster_, X, ranker.n_iter_).astype(np.float64)
