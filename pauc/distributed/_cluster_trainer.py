"""The cluster's trainer of ``GradientBoostingRanker``: ``xgboost.dask`` on the global window.

:meth:`pauc.gbm.GradientBoostingRanker.fit` fits every engine by the same
free functions over one plan (:mod:`pauc.gbm._plan`); for dask input it asks
for this trainer (registered as ``"boosting_trainer"``, :mod:`pauc._dispatch`),
which holds the rows where they are and answers the plan's requests:

1. labels: the distinct values (a few numbers reach the client); once the
   estimator has named the positive class, ``y == pos_label`` as a lazy
   vector and each chunk's class counts (two numbers per chunk);
2. :meth:`ClusterTrainer.split`: the folds by the plan's reading of ``cv``
   (``"auto"`` or an int; 1: one validation split of ``validation_fraction``).
   Every row gets a fold id on its worker, seeded and stratified by label
   (:mod:`pauc.distributed._folds`); no row moves.  The plan's checks of the
   folds' class counts;
3. ONE ``DaskQuantileDMatrix`` of every row, its labels carrying the fold
   (``is_positive + 2 fold``): the user's ``X`` is never copied or persisted
   here.  :meth:`~ClusterTrainer.boost_folds` boosts each candidate the race
   (:mod:`pauc.gbm._race`, judged after each fold) keeps once per
   held-out fold ``k`` by ``xgboost.dask.train`` with the plan's XGBoost
   parameters and
   :class:`~pauc.distributed._xgboost_window.GlobalWindowObjective` (the window
   exponential loss on the exact global window of the other folds' rows, or
   log-loss; fold ``k``'s rows get a zero gradient and Hessian), stopped by the
   plan's stopping rule on
   :class:`~pauc.distributed._xgboost_window.GlobalWindowMetric` of fold
   ``k``'s rows -- read from XGBoost's prediction cache of the same matrix, the
   exact partial AUC of every held-out row, the same value on every worker, so
   every worker stops at the same round.  Each fold stops on its own held-out
   rows (``cv_results_["stopping"]`` ``"per fold"``): ``xgboost.dask`` boosts
   one fold at a time, so the in-memory trainer's round pooled over the folds
   (:class:`pauc.gbm._stopping.PooledStopping`) is not followed here;
4. the out-of-fold scores: each held-out row scored on its worker by its
   fold's model at its kept round (:func:`out_of_fold_scores`), gathered on
   the client (8 bytes per held-out row and candidate, no feature); the
   pooling, the selection and the fold bagging are the plan's;
5. :meth:`~ClusterTrainer.boost_all`: one booster on every row of the same
   matrix (no early stopping, or ``refit``);
6. the operating threshold: a bag of fold models takes it from the held-out
   rows' scores of step 4 (the mean of the folds' thresholds), on the client
   (:func:`pauc.gbm._plan.operating_threshold_of`); a model boosted on every row
   asks :meth:`~ClusterTrainer.threshold`, :func:`pauc._threshold.threshold_rule`
   on the training scores, which stay on the workers (a few order statistics
   reach the client, as in the chunked SVM fits).

A fitted model scores dask data block by block on the workers
(:func:`model_scores`, registered as ``"model_scores"``), whichever engine grew it.

A worker lost during boosting (killed, out of memory) ends the fit with a
:class:`WorkerLostError` -- XGBoost's communicator gives up after
``COLLECTIVE_TIMEOUT`` seconds at most, so the surviving workers never wait
forever.

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.
"""

import time

import dask
import dask.array as da
import numpy as np
from sklearn.utils import assert_all_finite

from .._threshold import threshold_rule
from ..gbm._plan import FoldBag, FoldFit, Trainer
from ._actors import distributed_client
from ._collections import blocks, check_known_chunks, check_numeric
from ._collective import CollectiveError
from ._folds import (assign_folds, chunk_class_counts, fold_class_counts,
                     fold_labels)
from ._graphs import _GraphOrderStatistics
from ._xgboost_window import DISTRIBUTED_LOSSES, GlobalWindowMetric, GlobalWindowObjective

__all__ = ["WorkerLostError", "COLLECTIVE_TIMEOUT", "ClusterTrainer", "dask_schema",
           "model_scores", "out_of_fold_scores"]

# seconds an allreduce may wait for a peer before XGBoost's communicator fails
COLLECTIVE_TIMEOUT = 120


class WorkerLostError(RuntimeError):
    """A Dask worker died (or stopped answering) during distributed boosting."""


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


def dask_schema(X):
    """A zero-row in-memory stand-in of dask ``X`` with its columns (their names and
    dtypes for a dataframe): scikit-learn's validation reads it to set and check
    ``n_features_in_`` and ``feature_names_in_``, as the in-memory fit does."""
    if getattr(X, "ndim", 2) != 2:
        raise ValueError(f"X must be 2-d, got shape {X.shape}")
    if hasattr(X, "columns") and hasattr(X, "_meta"):
        return X._meta
    return np.empty((0,) + tuple(X.shape[1:]), dtype=X.dtype)


def _check_finite_block(block, estimator_name):
    """scikit-learn's finiteness check of the in-memory fit, on one block on its worker
    (the ``ValueError`` reaches the client as it is)."""
    assert_all_finite(block, input_name="X", estimator_name=estimator_name)
    return block


def _finite(X, estimator_name):
    """``X`` whose blocks are checked for NaN and infinity when computed (lazily)."""
    return X.map_blocks(_check_finite_block, estimator_name=estimator_name, dtype=X.dtype)


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


def _n_threads(client, n_threads):
    """Each worker's XGBoost threads: the plan's (``n_jobs``: None = 1, -1 = all),
    capped at the threads the worker has (more would only contend)."""
    return max(1, min(n_threads, *client.nthreads().values()))


class ClusterTrainer(Trainer):
    """The rows of dask ``X`` and ``y`` on their workers (module docstring).

    Parameters
    ----------
    X : dask array or dataframe of shape (n_samples, n_features)
    y : dask array or series, or array-like, of shape (n_samples,)
    sample_weight : None
    engine, loss : str
        The estimator's: ``engine="xgboost"``, a loss with a global kernel.
    cv : "auto" or int
        The estimator's: the folds are assigned on the workers, so no splitter.
    estimator_name : str
        Named in the finiteness messages.

    Attributes
    ----------
    schema
        A zero-row in-memory stand-in of ``X`` (its columns' names and dtypes):
        scikit-learn's validation reads it.
    classes : ndarray
        The distinct labels.
    """

    def __init__(self, X, y, sample_weight, engine, loss, cv, estimator_name):
        if engine != "xgboost":
            raise ValueError(
                "fit on dask data trains with xgboost.dask: pass engine='xgboost'. LightGBM's "
                "Dask interface calls a custom objective on each worker's own rows and exposes "
                "no collective, so its window would be each worker's, not the data's.")
        if sample_weight is not None:
            raise NotImplementedError("fit does not take sample_weight with dask data: a "
                                      "weighted window would need the FPR range measured in "
                                      "negative weight; pass sample_weight=None")
        if isinstance(cv, (bool, np.bool_)) or not isinstance(cv, (str, int, np.integer)):
            raise ValueError(f"cv={cv!r}: a distributed fit assigns the folds on the workers "
                             "(seeded, stratified by label; rows never move), so it takes "
                             "cv='auto' or an int, not a splitter")
        if loss not in ("auto",) + DISTRIBUTED_LOSSES:
            raise ValueError(f"loss={loss!r} needs the sorted window and runs on one machine "
                             "only; a distributed fit takes loss in "
                             f"{['auto', *DISTRIBUTED_LOSSES]}")
        # the columns before the cluster: a column that is not numeric is refused by its
        # name and dtype (after to_dask_array every column is "dtype object")
        self.schema = dask_schema(X)
        check_numeric(X)
        self.client = distributed_client()
        if self.client is None:
            raise ValueError("fit on dask data needs a dask.distributed Client (xgboost.dask "
                             "trains on the cluster's workers): create one, e.g. "
                             "Client(LocalCluster(n_workers=2))")
        # the user's X is never persisted here: XGBoost's matrix reads its blocks where
        # they are (a persisted copy would sit beside the user's and the matrix)
        self.X, self.y = _as_arrays(X, y)
        _finite(self.X, estimator_name).sum().compute()   # NaN or infinity: a ValueError
        self.classes = np.unique(da.unique(self.y).compute())
        self._dtrain = None

    def set_positive(self, pos_label):
        """Name the positive class: the lazy labels and the class counts."""
        self.is_pos = self.y == pos_label
        self.chunk_counts = chunk_class_counts(self.is_pos)
        self.counts = tuple(int(v) for v in self.chunk_counts.sum(axis=0))

    def _threads(self, plan):
        return _n_threads(self.client, plan.n_threads)

    def _matrix(self, plan, folds=None):
        """The one fold-coded XGBoost matrix of every row (labels ``is_pos + 2 fold``;
        no folds: every row in fold 0), binned as the plan's engine bins."""
        import xgboost.dask as xgb_dask
        labels = self.is_pos.astype(np.float32) if folds is None else fold_labels(self.is_pos,
                                                                                  folds)
        return xgb_dask.DaskQuantileDMatrix(self.client, self.X, labels,
                                            max_bin=plan.engine_of(plan.pool[0]).max_bin)

    def split(self, plan):
        n_pos, n_neg = self.counts
        self.n_splits = plan.n_folds(n_pos, n_neg)
        folds = assign_folds(self.is_pos, self.n_splits, plan.fold_seed,
                             plan.validation_fraction, counts=self.chunk_counts)
        (self.folds,) = dask.persist(folds)     # 1 byte per row, read by every step below
        held = fold_class_counts(self.is_pos, self.folds, self.n_splits)[:self.n_splits]
        plan.check_folds(self.n_splits, [(n_pos - p, n_neg - n) for p, n in held], held,
                         (n_pos, n_neg))
        self._held_negatives = [int(n) for _, n in held]
        # the rows some fold holds out (a validation split holds out fold 0 only)
        mask = self.folds < self.n_splits if self.n_splits == 1 else None
        pos, folds = dask.compute(self.is_pos if mask is None else self.is_pos[mask],
                                  self.folds if mask is None else self.folds[mask])
        self.labels, self._held_folds = np.asarray(pos, dtype=bool), np.asarray(folds)
        self._mask = mask
        self._dtrain = self._matrix(plan, self.folds)
        return self.n_splits

    def held_out_rows(self, k):
        return np.flatnonzero(self._held_folds == k)

    def boost_folds(self, plan, race):
        # the race (pauc.gbm._race) in one phase per fold: xgboost.dask boosts a fold
        # in one collective call, so the candidates are judged after each fold, not
        # after each block of rounds
        own = {c.name: [None] * self.n_splits for c in plan.pool}
        for k in range(self.n_splits):
            race.start((k,))
            alive = [c for c in plan.pool if c.name in race.alive]
            fits = []
            for c in alive:
                start = time.perf_counter()
                fits.append((*self._boost_fold(plan, c, k), time.perf_counter() - start))
            # fold k's raw held-out scores, each candidate's by its fold-k model, gathered
            # on the client (8 bytes per held-out row and candidate, no feature)
            lazy = [out_of_fold_scores([b if j == k else None for j in range(self.n_splits)],
                                       [n] * self.n_splits, self.X, self.folds)
                    for b, n, _, _ in fits]
            lazy = [raw if self._mask is None else raw[self._mask] for raw in lazy]
            held = self._held_folds == k
            for c, (b, n, history, seconds), raw in zip(alive, fits, dask.compute(*lazy)):
                own[c.name][k] = FoldFit(b, n, history, np.asarray(raw, dtype=np.float64)[held],
                                         seconds, b.num_boosted_rounds())
            race.end({n: ([own[n][k].held_out_scores], own[n][k].boosted) for n in race.alive})
        return own

    def _boost_fold(self, plan, candidate, k):
        """``(booster, kept rounds, history)`` of ``candidate`` boosted on every fold
        but ``k`` of the fold-coded matrix and stopped on the exact global criterion
        of fold ``k``'s rows (read from XGBoost's prediction cache of the matrix)."""
        engine = plan.engine_of(candidate)
        objective = GlobalWindowObjective(plan.fpr_range, candidate.loss, fold_coded=True,
                                          held_out=k)
        metric = GlobalWindowMetric(plan.windows(self._held_negatives[k]),
                                    with_logloss=candidate.rule == "logloss", fold_coded=True,
                                    held_out=k)
        stopping = plan.stopping_rule(candidate, metric.name)
        # the callback reads the metric's own records: xgboost.dask ships the metric
        # and the callback to each worker in one task, so there they are the same
        # objects (no registry by name in the worker process)
        out = _train(self.client, plan.params(candidate, k, self._threads(plan)),
                     self._dtrain, plan.rounds, objective, [(self._dtrain, "held_out")],
                     metric, [engine.stopping_callback(stopping, metric.values)])
        booster = out["booster"]
        return (booster, *engine.stopped(booster))

    def boost_all(self, plan, candidate, n_rounds):
        if self._dtrain is None:
            self._dtrain = self._matrix(plan)
        booster = _train(self.client, plan.params(candidate, 0, self._threads(plan)),
                         self._dtrain, n_rounds,
                         GlobalWindowObjective(plan.fpr_range, candidate.loss,
                                               fold_coded=True))["booster"]
        return FoldBag([booster], [booster.num_boosted_rounds()])

    def threshold(self, plan, model, operating_fpr):
        # a few order statistics of the training scores, which stay on the workers
        (scores,) = dask.persist(_lazy_scores(model, self.X))
        return threshold_rule(_GraphOrderStatistics(blocks(scores), blocks(self.is_pos),
                                                    _Counts(*self.counts)), operating_fpr)


def _held_out_block(X, folds, boosters, rounds):
    """Per row of the block, the raw score of the model of its fold (NaN for a row
    of no held-out fold, the training fold of a validation split)."""
    out, folds = np.full(X.shape[0], np.nan), folds.ravel()
    for k, (booster, n) in enumerate(zip(boosters, rounds)):
        rows = folds == k
        if booster is not None and rows.any():
            out[rows] = booster.inplace_predict(np.ascontiguousarray(X[rows]),
                                                iteration_range=(0, int(n)),
                                                predict_type="margin")
    return out


def out_of_fold_scores(boosters, rounds, X, folds):
    """The lazy out-of-fold raw scores: each row scored, on its worker, by the
    model of its fold -- ``boosters[k]``, which was boosted without fold ``k``'s
    rows, at its kept round ``rounds[k]`` (NaN for the rows of a fold whose
    booster is None)."""
    return da.map_blocks(_held_out_block, X, folds[:, None], boosters=list(boosters),
                         rounds=[int(n) for n in rounds], drop_axis=1, dtype=np.float64)


def _score_block(block, model):
    return model.predict(block)


def _lazy_scores(model, X):
    """``model``'s scores on dask array ``X``, block by block on the workers (the
    model is one node of the graph, sent to each worker once; not tokenised, which
    would serialise every booster to name it)."""
    return da.map_blocks(_score_block, X, dask.delayed(model, pure=False), drop_axis=1,
                         dtype=np.float64, meta=np.empty(0))


def model_scores(model, X, estimator_name):
    """``decision_function`` of a fitted ``GradientBoostingRanker`` (its model,
    :class:`pauc.gbm._plan.Model`) on dask ``X``: a lazy dask vector; NaN or
    infinity in a block is the in-memory ``ValueError`` when it is computed."""
    if getattr(X, "ndim", 2) != 2:
        raise ValueError(f"X must be 2-d, got shape {X.shape}")
    if hasattr(X, "to_dask_array"):
        X = X.to_dask_array(lengths=True)
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    return _lazy_scores(model, _finite(X, estimator_name))
