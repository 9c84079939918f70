"""``GradientBoostingRanker.fit`` on dask data: ``xgboost.dask`` on the global window.

:meth:`pauc.boost.GradientBoostingRanker.fit` hands dask input here
(registered as ``"boosting_fit"``, :mod:`pauc._dispatch`).  The fit runs the
in-memory fit's steps with the rows left on their workers:

1. labels: the distinct values (a few numbers reach the client), the
   positive class by the estimator's rule, ``y == pos_label`` as a lazy
   vector, each chunk's class counts (two numbers per chunk);
2. the folds, by the in-memory rule: ``cv="auto"`` holds out one validation
   split of ``validation_fraction`` where its window holds plenty of negatives
   (:func:`pauc.boost._crossfit.auto_n_folds`, the large data a cluster is
   for), else K folds; an int ``cv`` is K (1: the split).  Every row gets a
   fold id on its worker, seeded and stratified by label
   (:mod:`pauc.distributed._folds`); no row moves;
3. ONE ``DaskQuantileDMatrix`` of every row, its labels carrying the fold
   (``is_positive + 2 fold``): the user's ``X`` is never copied or persisted
   here.  Each candidate of :func:`pauc.boost._candidates.candidates` is
   boosted once per held-out fold ``k`` by ``xgboost.dask.train`` with the
   engine's parameters (:mod:`pauc.boost._engines`) and
   :class:`~pauc.distributed._xgboost_window.GlobalWindowObjective` (the window
   exponential loss on the exact global window of the other folds' rows, or
   log-loss; fold ``k``'s rows get a zero gradient and Hessian), and stopped
   by the one stopping rule (:class:`pauc.boost._stopping.Stopping`, through
   :class:`pauc.boost._xgboost_stopping.XGBoostStopping`) on
   :class:`~pauc.distributed._xgboost_window.GlobalWindowMetric` of fold
   ``k``'s rows -- read from XGBoost's prediction cache of the same matrix, the
   exact partial AUC of every held-out row, the same value on every worker, so
   every worker stops at the same round;
4. the out-of-fold scores: each held-out row scored on its worker by its
   fold's model at its kept round (:func:`out_of_fold_scores`), gathered on
   the client (8 bytes per held-out row and candidate, no feature), turned
   into fold quantiles and pooled as in memory
   (:func:`pauc.boost._selection.fold_quantiles`); the in-memory selection
   (:meth:`GradientBoostingRanker._select`: the candidates, their rank blends,
   the bootstrap test against log-loss) on them -- its criterion is the exact
   global one;
5. the fitted model in the in-memory format (``members_``: the kept
   candidates' fold models, averaged -- fold bagging -- or, with ``refit``,
   one booster boosted on every row of the same matrix);
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
from sklearn.utils import assert_all_finite, check_random_state
from sklearn.utils.validation import validate_data

from .._threshold import threshold_rule
from .._validation import check_fpr_range, indices_among
from ._actors import distributed_client
from ._collections import blocks, check_known_chunks
from ._collective import CollectiveError
from ._folds import (assign_folds, chunk_class_counts, fold_class_counts,
                     fold_labels)
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


def _schema(X):
    """A zero-row in-memory stand-in of dask ``X`` with its columns (their names and
    dtypes for a dataframe): scikit-learn's validation reads it to set and check
    ``n_features_in_`` and ``feature_names_in_``, as the in-memory fit does."""
    if hasattr(X, "columns") and hasattr(X, "_meta"):
        return X._meta
    return np.empty((0,) + tuple(X.shape[1:]), dtype=X.dtype)


def _check_finite_block(block, estimator_name):
    """scikit-learn's finiteness check of the in-memory fit, on one block on its worker
    (the ``ValueError`` reaches the client as it is)."""
    assert_all_finite(block, input_name="X", estimator_name=estimator_name)
    return block


def _finite(X, ranker):
    """``X`` whose blocks are checked for NaN and infinity when computed (lazily)."""
    return X.map_blocks(_check_finite_block, estimator_name=type(ranker).__name__,
                        dtype=X.dtype)


def _n_threads(client, n_jobs):
    """Each worker's XGBoost threads: ``n_jobs`` as in memory (None = 1, -1 = all
    of them), capped at the threads the worker has (more would only contend)."""
    from ..boost._engines import effective_threads
    return max(1, min(effective_threads(n_jobs), *client.nthreads().values()))


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
                                    and not isinstance(ranker.cv, (bool, np.bool_)))):
        raise ValueError(f"cv={ranker.cv!r}: a distributed fit assigns the folds on the "
                         "workers (seeded, stratified by label; rows never move), so it "
                         "takes cv='auto' or an int, not a splitter")
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


def _n_folds(ranker, n_pos, n_neg, fpr_range):
    """``cv`` as a number of folds (1: one validation split), by the in-memory rule
    (:func:`pauc.boost._crossfit.auto_n_folds` for ``"auto"``)."""
    from ..boost._crossfit import auto_n_folds
    if ranker.cv == "auto":
        return auto_n_folds(n_pos, n_neg, fpr_range, ranker.validation_fraction)
    n_folds = int(ranker.cv)
    if n_folds >= 2 and n_folds > min(n_pos, n_neg):
        raise ValueError(
            f"cv={n_folds} folds need at least {n_folds} rows of each class (each held-out "
            f"fold needs a positive and a negative); the data hold {n_pos} positives "
            f"and {n_neg} negatives: lower cv or pass cv='auto'")
    return n_folds


def _check_folds(ranker, fpr_range, per_fold, n_splits):
    """Each fold's held-out part and the rest need both classes, and the window
    a negative of the rest (the checks of :func:`pauc.boost._crossfit.plan_folds`)."""
    total = per_fold.sum(axis=0)
    for k in range(n_splits):
        held = per_fold[k]
        for part, (p, n) in (("training", total - held), ("held-out", held)):
            if p == 0 or n == 0:
                raise ValueError(
                    f"fold {k} of cv={ranker.cv!r}: its {part} part holds {p} positives and "
                    f"{n} negatives; boosting and stopping need both classes in both parts "
                    f"(validation_fraction={ranker.validation_fraction} of {total[0]} "
                    f"positives and {total[1]} negatives): change cv or "
                    "validation_fraction, or pass early_stopping=False")
        indices_among(int(total[1] - held[1]), ranker.fpr_range,
                      f"negatives of the training part of fold {k}")


def _boost_fold(client, ranker, candidate, params, dtrain, fpr_range, held_out, n_held_neg):
    """``(booster, rounds, history, best)`` of one candidate boosted on every fold
    but ``held_out`` of the fold-coded ``dtrain`` and stopped on the exact global
    criterion of fold ``held_out``'s rows (read from XGBoost's prediction cache of
    the same matrix)."""
    from ..boost._gbm import SMOOTHING_DIVISOR
    from ..boost._stopping import Stopping, validation_windows
    from ..boost._xgboost_stopping import XGBoostStopping, stopping_attributes

    objective = GlobalWindowObjective(fpr_range, candidate.loss, fold_coded=True,
                                      held_out=held_out)
    name = f"pauc-{uuid.uuid4().hex}"
    metric = GlobalWindowMetric(validation_windows(n_held_neg, fpr_range), record=name,
                                with_logloss=candidate.rule == "logloss", fold_coded=True,
                                held_out=held_out)
    stopping = Stopping(metric.name, candidate.rule, ranker.n_iter_no_change,
                        max(1, ranker.n_iter_no_change // SMOOTHING_DIVISOR),
                        ranker._learning_rate(candidate))
    try:
        out = _train(client, params, dtrain, ranker._rounds(True), objective,
                     [(dtrain, "held_out")], metric,
                     [XGBoostStopping(stopping, _RecordedValues(name))])
    finally:
        # the metric's records on the workers; a worker that died has none left
        with contextlib.suppress(Exception):
            client.run(forget, name)
    booster = out["booster"]
    best_round, best, history = stopping_attributes(booster)
    return (booster, min(best_round, booster.num_boosted_rounds()),
            np.asarray(history, dtype=np.float64), best)


def _held_out_block(X, folds, boosters, rounds):
    """Per row of the block, the raw score of the model of its fold (NaN for a row
    of no held-out fold, the training fold of a validation split)."""
    out, folds = np.full(X.shape[0], np.nan), folds.ravel()
    for k, (booster, n) in enumerate(zip(boosters, rounds)):
        rows = folds == k
        if rows.any():
            out[rows] = booster.inplace_predict(np.ascontiguousarray(X[rows]),
                                                iteration_range=(0, int(n)),
                                                predict_type="margin")
    return out


def out_of_fold_scores(boosters, rounds, X, folds):
    """The lazy out-of-fold raw scores: each row scored, on its worker, by the
    model of its fold -- ``boosters[k]``, which was boosted without fold ``k``'s
    rows, at its kept round ``rounds[k]``."""
    return da.map_blocks(_held_out_block, X, folds[:, None], boosters=list(boosters),
                         rounds=[int(n) for n in rounds], drop_axis=1, dtype=np.float64)


def boosting_fit(ranker, X, y, sample_weight):
    """:meth:`GradientBoostingRanker.fit` on dask ``X``, ``y`` (module docstring)."""
    import xgboost.dask as xgb_dask

    from ..boost._candidates import candidates
    from ..boost._engines import MAX_BIN

    ranker._validate_params()
    _check(ranker, sample_weight)
    fpr_range = check_fpr_range(ranker.fpr_range)
    client = distributed_client()
    if client is None:
        raise ValueError("fit on dask data needs a dask.distributed Client (xgboost.dask trains "
                         "on the cluster's workers): create one, e.g. "
                         "Client(LocalCluster(n_workers=2))")
    # the user's X is never persisted here: XGBoost's matrix reads its blocks where
    # they are (a persisted copy would sit beside the user's and the matrix)
    # n_features_in_ and feature_names_in_ by scikit-learn's rule, as in memory
    validate_data(ranker, _schema(X), reset=True, ensure_min_samples=0,
                  ensure_all_finite=False)
    X, y = _as_arrays(X, y)
    _finite(X, ranker).sum().compute()       # one pass: NaN or infinity is a ValueError
    classes = np.unique(da.unique(y).compute())
    pos_label = ranker._set_binary_classes(classes, classes)
    is_pos = y == pos_label
    chunk_counts = chunk_class_counts(is_pos)
    n_pos, n_neg = (int(v) for v in chunk_counts.sum(axis=0))
    ranker.j_alpha_, ranker.j_beta_ = indices_among(n_neg, ranker.fpr_range)
    rng = check_random_state(ranker.random_state)
    # the in-memory fit's draws: the folds, the boosting, the bootstrap
    fold_seed, seed, boot_seed = (int(v) for v in rng.randint(np.iinfo(np.int32).max, size=3))
    # the in-memory rule reads only whether each class has two rows: a stand-in of
    # at most two labels per class (the counts are already on the client)
    use_stopping = ranker._use_stopping(np.repeat(np.array([True, False]),
                                                  [min(n_pos, 2), min(n_neg, 2)]))
    # no shape: the larger-data candidates, all boosted by XGBoost (pauc's oblivious
    # trees, the small-data reference in memory, run in one process only)
    # (the in-memory rule of few positives: the reference alone)
    pool = candidates(ranker.loss, None, n_pos)
    n_threads = _n_threads(client, ranker.n_jobs)
    ranker.cv_results_, ranker.oof_scores_, ranker.validation_windows_ = {}, {}, []
    ranker.validation_history_, ranker.validation_score_ = {}, {}
    ranker.validation_rounds_, ranker.selection_confidence_, ranker.fit_seconds_ = {}, {}, {}
    ranker._candidates, ranker._scales, ranker._rules, ranker._raw_oof = {}, {}, {}, {}
    if not use_stopping:
        c = pool[0]           # as in memory: the one candidate (log-loss for "auto")
        start = time.perf_counter()
        dtrain = xgb_dask.DaskQuantileDMatrix(client, X, is_pos.astype(np.float32),
                                              max_bin=MAX_BIN)
        booster = _train(client, ranker._params(c, seed, n_threads), dtrain,
                         ranker._rounds(False), GlobalWindowObjective(fpr_range, c.loss))
        booster = booster["booster"]
        del dtrain
        ranker.fit_seconds_[c.name] = time.perf_counter() - start
        ranker.n_splits_ = 0
        ranker.selected_ = c.name
        ranker._candidates[c.name] = ([booster], [booster.num_boosted_rounds()])
        ranker._rules[c.name] = "fixed"
        ranker.members_ = [(c.name, 1.0, *ranker._candidates[c.name])]
    else:
        _cross_fit(client, ranker, X, is_pos, chunk_counts, fpr_range, pool,
                   (fold_seed, seed, boot_seed), n_threads)
    ranker._summarise()
    # the operating threshold from a few order statistics of the training scores,
    # which stay on the workers
    (scores,) = dask.persist(_lazy_scores(ranker, X))
    counts = _Counts(n_pos, n_neg)
    operating = ranker.operating_fpr
    if operating is None:
        operating = fpr_range[1] if fpr_range[1] < 1.0 else None
    ranker.threshold_ = threshold_rule(
        _GraphOrderStatistics(blocks(scores), blocks(is_pos), counts), operating)
    return ranker


def _cross_fit(client, ranker, X, is_pos, chunk_counts, fpr_range, pool, seeds, n_threads):
    """Steps 2-5 of the module docstring: the folds, every candidate on every fold,
    the pooled out-of-fold selection, the fold-bagged (or refit) model."""
    import xgboost.dask as xgb_dask

    from ..boost._engines import MAX_BIN
    from ..boost._selection import fold_quantiles

    fold_seed, seed, boot_seed = seeds
    n_pos, n_neg = (int(v) for v in chunk_counts.sum(axis=0))
    n_folds = _n_folds(ranker, n_pos, n_neg, fpr_range)
    folds = assign_folds(is_pos, n_folds, fold_seed, ranker.validation_fraction,
                         counts=chunk_counts)
    (folds,) = dask.persist(folds)         # 1 byte per row, read by every step below
    per_fold = fold_class_counts(is_pos, folds, n_folds)
    n_splits = n_folds                     # a validation split holds out fold 0 only
    _check_folds(ranker, fpr_range, per_fold, n_splits)
    ranker.n_splits_ = n_splits
    # one XGBoost matrix of every row serves every fold: the labels carry the fold
    dtrain = xgb_dask.DaskQuantileDMatrix(client, X, fold_labels(is_pos, folds),
                                          max_bin=MAX_BIN)
    held = folds < n_splits if n_splits == 1 else None
    pos_held, folds_held = dask.compute(is_pos if held is None else is_pos[held],
                                        folds if held is None else folds[held])
    pos_held, folds_held = np.asarray(pos_held, dtype=bool), np.asarray(folds_held)
    for c in pool:
        start = time.perf_counter()
        fits = [_boost_fold(client, ranker, c, ranker._params(c, seed + k, n_threads), dtrain,
                            fpr_range, k, int(per_fold[k, 1])) for k in range(n_splits)]
        ranker.fit_seconds_[c.name] = time.perf_counter() - start
        boosters, rounds = [f[0] for f in fits], [f[1] for f in fits]
        ranker._candidates[c.name] = (boosters, rounds)
        ranker._rules[c.name] = c.rule
        ranker.validation_history_[c.name] = fits[0][2]
        ranker.validation_rounds_[c.name] = rounds[0]
        # the held-out rows' raw scores, each by its own fold's model, gathered on the
        # client (8 bytes per held-out row, no feature): the selection's input
        raw = out_of_fold_scores(boosters, rounds, X, folds)
        raw = np.asarray((raw if held is None else raw[held]).compute(), dtype=np.float64)
        pooled = np.empty_like(raw)
        for k in range(n_splits):
            rows = folds_held == k
            pooled[rows] = fold_quantiles(raw[rows])
        ranker._raw_oof[c.name] = raw
        ranker.oof_scores_[c.name] = pooled
        if ranker.verbose:
            print(f"[GradientBoostingRanker] {c.name} (xgboost.dask): rounds {rounds}, "
                  f"{ranker.fit_seconds_[c.name]:.2f} s")
    names = [c.name for c in pool]
    ranker._select(names, [ranker.oof_scores_[n] for n in names], pos_held, fpr_range,
                   boot_seed)
    if ranker.refit:
        ranker._refit(pool, lambda c, n: (
            _train(client, ranker._params(c, seed, n_threads), dtrain, n,
                   GlobalWindowObjective(fpr_range, c.loss, fold_coded=True))["booster"], n))


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
    if getattr(X, "ndim", 2) != 2:
        raise ValueError(f"X must be 2-d, got shape {X.shape}")
    # the number of features and their names (order included) by scikit-learn's rule
    validate_data(ranker, _schema(X), reset=False, ensure_min_samples=0,
                  ensure_all_finite=False)
    if hasattr(X, "to_dask_array"):
        X = X.to_dask_array(lengths=True)
    return _lazy_scores(ranker, _finite(X, ranker))
