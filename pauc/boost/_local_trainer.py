"""The in-memory trainer of GradientBoostingRanker (:class:`pauc.boost._fit.Trainer`).

The rows are arrays in this process.  The (candidate, fold) fits are
independent and run in parallel threads (LightGBM and XGBoost release the GIL
while they grow a tree, pauc's oblivious trees in their kernels); each has its
own seed and every engine is deterministic, so the fitted model does not depend
on the number of threads.  Every training call goes through an engine
(:mod:`pauc.boost._engines`).
"""

import time

import numpy as np
from joblib import Parallel, delayed

from .._threshold import operating_threshold
from ._crossfit import plan_folds
from ._fit import FoldBag, FoldFit, Trainer
from ._stopping import ValidationCriterion

__all__ = ["LocalTrainer", "boost_fold", "run_parallel"]


class LocalTrainer(Trainer):
    """Training rows ``X`` (dense or CSR) with labels ``is_pos``, in memory; the final
    model scores them with ``n_threads`` threads."""

    def __init__(self, X, is_pos, n_threads=1):
        self.X, self.labels, self.n_threads = X, is_pos, n_threads
        n_pos = int(is_pos.sum())
        self.counts = (n_pos, is_pos.shape[0] - n_pos)
        self.folds = None

    def split(self, plan):
        self.folds = plan_folds(plan.cv, plan.validation_fraction, self.X, self.labels,
                                plan.fpr_range, plan.fold_seed)
        return len(self.folds)

    def held_out_rows(self, k):
        return self.folds[k][1]

    def boost_folds(self, plan):
        pool = plan.pool
        per_job = max(1, plan.n_threads // (len(pool) * len(self.folds)))
        # fold after fold, each fold's candidates in turn: threads running side by
        # side then mostly pair a GIL-free oblivious fit with a LightGBM one, whose
        # per-round callbacks hold the GIL (two of those wait for each other)
        jobs = [(boost_fold, (plan, c, self.X, self.labels, train, held_out,
                              plan.params(c, k, per_job)),
                 {"history": k == 0})
                for k, (train, held_out) in enumerate(self.folds) for c in pool]
        fits = run_parallel(jobs, plan.n_threads)
        return [fits[i::len(pool)] for i in range(len(pool))]

    def boost_all(self, plan, candidate, n_rounds):
        engine = plan.engine_of(candidate)
        booster = engine.boost(plan.params(candidate, 0, plan.n_threads), candidate.loss,
                               plan.fpr_range, n_rounds, (self.X, self.labels))
        return FoldBag([booster], [engine.n_rounds(booster)])

    def threshold(self, model, operating_fpr):
        return operating_threshold(model.predict(self.X, self.n_threads), self.labels,
                                   operating_fpr)


def boost_fold(plan, candidate, X, is_pos, train, held_out, params, history=True):
    """Boost ``candidate`` on the rows ``train``, stop it on ``held_out``
    (``plan.stopping_rule``).  A log-loss candidate computes the window criterion
    every round only with ``history`` (it stops on its log-loss: the criterion is
    for the record)."""
    start = time.perf_counter()
    engine = plan.engine_of(candidate)
    X_tr, pos_tr, X_va, pos_va = X[train], is_pos[train], X[held_out], is_pos[held_out]
    criterion = ValidationCriterion(plan.windows(int((~pos_va).sum())), pos_va)
    if candidate.rule == "logloss" and not history:
        criterion = None
    stopping = plan.stopping_rule(candidate, None if criterion is None else criterion.name)
    booster = engine.boost(params, candidate.loss, plan.fpr_range, plan.rounds, (X_tr, pos_tr),
                           (X_va, pos_va), criterion=criterion, stopping=stopping,
                           log=plan.verbose >= 2)
    rounds = min(stopping.best_round, engine.n_rounds(booster))
    return FoldFit(booster, rounds, np.asarray(stopping.history, dtype=np.float64),
                   engine.predict(booster, X_va, rounds), time.perf_counter() - start)


def run_parallel(jobs, n_threads):
    """Run the ``(function, args, kwargs)`` jobs in ``min(n_threads, len(jobs))``
    threads, results in the jobs' order."""
    n_workers = max(1, min(n_threads, len(jobs)))
    if n_workers == 1:
        return [f(*a, **kw) for f, a, kw in jobs]
    return Parallel(n_jobs=n_workers, prefer="threads")(delayed(f)(*a, **kw) for f, a, kw in jobs)
