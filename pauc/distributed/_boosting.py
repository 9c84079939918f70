"""``GradientBoostingRanker.fit`` on dask data: ``xgboost.dask`` on the global window.

:meth:`pauc.boost.GradientBoostingRanker.fit` hands dask input here
(registered as ``"boosting_fit"``, :mod:`pauc._dispatch`).  The fit runs the
in-memory fit's steps with the rows left on their workers, on ONE validation
split instead of K folds (the data this path is for are large, so the split's
window holds plenty of negatives):

1. labels: the distinct values (a few numbers reach the client), the
   positive class by the estimator's rule, ``y == pos_label`` as a lazy vector;
2. the validation split: a seeded uniform draw per row of
   ``validation_fraction`` (row chunks keep their workers; on large data the
   split's class shares are those of the data up to sampling noise, so it is
   not stratified), the window checked non-empty in both parts;
3. each candidate of :func:`pauc.boost._candidates.candidates` boosted by
   ``xgboost.dask.train`` with the engine's parameters
   (:mod:`pauc.boost._engines`) and
   :class:`pauc.distributed._xgboost_window.GlobalWindowObjective` (the window
   exponential loss on the exact global window, or log-loss), stopped by the
   one stopping rule (:class:`pauc.boost._stopping.Stopping`, through
   :class:`pauc.boost._xgboost_stopping.XGBoostStopping`) on
   :class:`~pauc.distributed._xgboost_window.GlobalWindowMetric`, the exact
   partial AUC of every validation row -- the same value on every worker, so
   every worker stops at the same round;
4. the selection of the in-memory fit (:meth:`GradientBoostingRanker._select`:
   the candidates, their rank blends, the bootstrap test against log-loss) on
   the candidates' validation scores, gathered on the client -- 8 bytes per
   validation row and candidate, no feature; its criterion over all the
   validation rows is the exact global one;
5. the fitted model in the in-memory format (``members_``: one booster per
   member, ``n_splits_ = 1``); ``oof_scores_`` holds the validation rows'
   scores only (their quantiles, as the in-memory fit pools its folds');
6. the operating threshold by :func:`pauc._threshold.threshold_rule` on the
   training scores, which stay on the workers (a few order statistics reach
   the client, as in the chunked SVM fits).

A worker lost during boosting (killed, out of memory) ends the fit with a
:class:`WorkerLostError` -- XGBoost's communicator gives up after
``COLLECTIVE_TIMEOUT`` seconds at most, so the surviving workers never wait
forever.

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.

Caruana, R., Niculescu-Mizil, A., Crew, G. and Ksikes, A. "Ensemble Selection
from Libraries of Models." ICML 2004.
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
    if not (ranker.cv == "auto" or (isinstance(ranker.cv, (int, np.integer))
                                    and not isinstance(ranker.cv, (bool, np.bool_))
                                    and ranker.cv == 1)):
        raise ValueError(f"cv={ranker.cv!r}: a distributed fit holds out one validation split "
                         "of validation_fraction (its window holds plenty of negatives on the "
                         "large data it is for); pass cv='auto' or cv=1")
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


def _validation_split(ranker, X, is_pos, seed):
    """The persisted training and validation parts (module docstring, step 2) and
    the validation labels on the client (1 byte per validation row)."""
    held_out = da.random.RandomState(seed).random_sample(X.shape[0], chunks=(X.chunks[0],)) \
        < ranker.validation_fraction
    X_tr, pos_tr, X_va, pos_va = dask.persist(X[~held_out], is_pos[~held_out],
                                              X[held_out], is_pos[held_out])
    return X_tr, pos_tr, X_va, pos_va, np.asarray(pos_va.compute())


def _check_parts(ranker, fpr_range, parts):
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


def _boost_candidate(client, ranker, candidate, params, dtrain, fpr_range, evals):
    """``(booster, rounds, history, best)`` of one candidate: stopped on the global
    validation criterion when ``evals`` is given, else ``n_estimators`` rounds."""
    from ..boost._gbm import SMOOTHING_DIVISOR
    from ..boost._stopping import Stopping
    from ..boost._xgboost_stopping import XGBoostStopping, stopping_attributes

    objective = GlobalWindowObjective(fpr_range, candidate.loss)
    if evals is None:
        booster = _train(client, params, dtrain, ranker._rounds(False), objective)["booster"]
        return booster, booster.num_boosted_rounds(), None, None
    name = f"pauc-{uuid.uuid4().hex}"
    metric = GlobalWindowMetric(ranker.validation_windows_, record=name,
                                with_logloss=candidate.rule == "logloss")
    stopping = Stopping(metric.name, candidate.rule, ranker.n_iter_no_change,
                        max(1, ranker.n_iter_no_change // SMOOTHING_DIVISOR))
    try:
        out = _train(client, params, dtrain, ranker._rounds(True), objective, evals, metric,
                     [XGBoostStopping(stopping, _RecordedValues(name))])
    finally:
        # the metric's records on the workers; a worker that died has none left
        with contextlib.suppress(Exception):
            client.run(forget, name)
    booster = out["booster"]
    best_round, best, history = stopping_attributes(booster)
    return (booster, min(best_round, booster.num_boosted_rounds()),
            np.asarray(history, dtype=np.float64), best)


def boosting_fit(ranker, X, y, sample_weight):
    """:meth:`GradientBoostingRanker.fit` on dask ``X``, ``y`` (module docstring)."""
    import xgboost.dask as xgb_dask

    from ..boost._candidates import candidates
    from ..boost._engines import MAX_BIN, effective_threads
    from ..boost._selection import fold_quantiles
    from ..boost._stopping import validation_windows

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
    # the in-memory fit's draws: the split, the boosting, the bootstrap
    split_seed, seed, boot_seed = (int(v) for v in rng.randint(np.iinfo(np.int32).max, size=3))
    use_stopping = ranker._use_stopping(is_pos)
    if use_stopping:
        X_tr, pos_tr, X_va, pos_va, pos_va_local = _validation_split(ranker, X, is_pos,
                                                                     split_seed)
        # from here on the two parts are the rows: the persisted X is released (a copy
        # of it would double the workers' memory); the threshold and a refit read them
        X, is_pos = da.concatenate([X_tr, X_va]), da.concatenate([pos_tr, pos_va])
    else:
        X_tr, pos_tr, X_va, pos_va, pos_va_local = X, is_pos, None, None, None
    parts = {"training": tuple(int(c) for c in dask.compute(pos_tr.sum(), (~pos_tr).sum()))}
    if use_stopping:
        parts["validation"] = (int(pos_va_local.sum()), int((~pos_va_local).sum()))
    _check_parts(ranker, fpr_range, parts)
    pool = candidates(ranker.loss)
    if not use_stopping:
        pool = pool[:1]        # as in memory: the one candidate (log-loss for "auto")
    n_threads = effective_threads(ranker.n_jobs)
    dtrain = xgb_dask.DaskQuantileDMatrix(client, X_tr, pos_tr.astype(np.float32),
                                          max_bin=MAX_BIN)
    evals = None
    ranker.cv_results_, ranker.oof_scores_, ranker.validation_windows_ = {}, {}, []
    ranker.validation_history_, ranker.validation_score_ = {}, {}
    ranker.validation_rounds_, ranker.selection_confidence_, ranker.fit_seconds_ = {}, {}, {}
    ranker._candidates, ranker._scales, ranker._rules, ranker._raw_oof = {}, {}, {}, {}
    if use_stopping:
        dvalid = xgb_dask.DaskQuantileDMatrix(client, X_va, pos_va.astype(np.float32),
                                              max_bin=MAX_BIN, ref=dtrain)
        evals = [(dvalid, "validation")]
        ranker.validation_windows_ = validation_windows(parts["validation"][1], fpr_range)
    for c in pool:
        start = time.perf_counter()
        booster, rounds, history, best = _boost_candidate(
            client, ranker, c, ranker._params(c, seed, n_threads), dtrain, fpr_range, evals)
        ranker.fit_seconds_[c.name] = time.perf_counter() - start
        ranker._candidates[c.name] = ([booster], [rounds])
        ranker._rules[c.name] = c.rule if use_stopping else "fixed"
        if use_stopping:
            ranker.validation_history_[c.name] = history
            ranker.validation_rounds_[c.name] = rounds
            # the selection reads the validation scores on the client: raw (the
            # reference of the candidate's RankScale) and as quantiles (one fold)
            ranker._raw_oof[c.name] = np.asarray(
                boosting_predict(booster, X_va, rounds).compute(), dtype=np.float64).ravel()
            ranker.oof_scores_[c.name] = fold_quantiles(ranker._raw_oof[c.name])
        if ranker.verbose:
            print(f"[GradientBoostingRanker] {c.name} (xgboost.dask): rounds {rounds}, "
                  f"{ranker.fit_seconds_[c.name]:.2f} s")
    if use_stopping:
        ranker.n_splits_ = 1
        names = [c.name for c in pool]
        ranker._select(names, [ranker.oof_scores_[n] for n in names], pos_va_local,
                       fpr_range, boot_seed)
    else:
        ranker.n_splits_ = 0
        ranker.selected_ = pool[0].name
        ranker.members_ = [(pool[0].name, 1.0, *ranker._candidates[pool[0].name])]
    if use_stopping and ranker.refit:
        start = time.perf_counter()
        dall = xgb_dask.DaskQuantileDMatrix(client, X, is_pos.astype(np.float32),
                                            max_bin=MAX_BIN)
        members = []
        for name, weight, _, (n,) in ranker.members_:
            c = next(c for c in pool if c.name == name)
            booster = _train(client, ranker._params(c, seed, n_threads), dall, n,
                             GlobalWindowObjective(fpr_range, c.loss))["booster"]
            members.append((name, weight, [booster], [n]))
        ranker.members_ = members
        ranker.fit_seconds_["refit"] = time.perf_counter() - start
    ranker._summarise()
    # the operating threshold from a few order statistics of the training scores,
    # which stay on the workers
    (scores,) = dask.persist(_lazy_scores(ranker, X))
    counts = _Counts(*dask.compute(is_pos.sum(), (~is_pos).sum()))
    operating = ranker.operating_fpr
    if operating is None:
        operating = fpr_range[1] if fpr_range[1] < 1.0 else None
    ranker.threshold_ = threshold_rule(
        _GraphOrderStatistics(blocks(scores), blocks(is_pos), counts), operating)
    return ranker


def _lazy_scores(ranker, X):
    """The fitted model's scores on dask ``X`` (as ``GradientBoostingRanker._raw_scores``):
    one member, the mean raw score of its boosters; several, the weighted mean of
    their normalised ranks (each block mapped on its worker)."""
    def bagged(boosters, rounds):
        total = None
        for b, n in zip(boosters, rounds):
            s = boosting_predict(b, X, n).astype(np.float64)
            total = s if total is None else total + s
        return total / len(boosters)

    if len(ranker.members_) == 1:
        _, _, boosters, rounds = ranker.members_[0]
        return bagged(boosters, rounds)
    return sum(w * bagged(b, r).map_blocks(ranker._scales[n], dtype=np.float64)
               for n, w, b, r in ranker.members_)


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
    if not all(hasattr(b, "inplace_predict") for _, _, boosters, _ in ranker.members_
               for b in boosters):
        raise ValueError("scoring dask data needs a model fitted with engine='xgboost'")
    if hasattr(X, "to_dask_array"):
        X = X.to_dask_array(lengths=True)
    if X.ndim != 2 or X.shape[1] != ranker.n_features_in_:
        raise ValueError(f"X has shape {X.shape}; the model was fitted with "
                         f"{ranker.n_features_in_} features")
    return _lazy_scores(ranker, X)
