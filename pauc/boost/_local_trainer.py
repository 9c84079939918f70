"""The in-memory trainer of GradientBoostingRanker (:class:`pauc.boost._fit.Trainer`).

The rows are arrays in this process.  The (candidate, fold) sessions of a
phase of the race (:mod:`pauc.boost._race`: the first fold, then the others)
advance side by side in parallel threads, a block of rounds at a time while
candidates race, to their ends otherwise.  LightGBM and XGBoost release the GIL
while they grow a tree, pauc's oblivious trees in their kernels; each fit has
its own seed, every engine is deterministic and the race decides between
blocks, so the fitted model does not depend on the number of threads.  Every
training call goes through an engine (:mod:`pauc.boost._engines`).
"""

import numpy as np
from joblib import Parallel, delayed

from .._threshold import operating_threshold
from ._crossfit import plan_folds
from ._fit import FoldBag, FoldFit, Trainer
from ._race import RACE_BLOCK
from ._stopping import ValidationCriterion

__all__ = ["LocalTrainer", "fold_fit", "run_parallel"]


class LocalTrainer(Trainer):
    """Training rows ``X`` (dense or CSR) with labels ``is_pos``, in memory; the final
    model scores them with ``n_threads`` threads.  Each engine bins the rows once
    per fit (:meth:`pauc.boost._engines.Engine.rows`); the folds' parts are
    subsets of that binning, shared by every candidate."""

    def __init__(self, X, is_pos, n_threads=1):
        self.X, self.labels, self.n_threads = X, is_pos, n_threads
        n_pos = int(is_pos.sum())
        self.counts = (n_pos, is_pos.shape[0] - n_pos)
        self.folds = None
        self._binned = {}

    def split(self, plan):
        self.folds = plan_folds(plan.cv, plan.validation_fraction, self.X, self.labels,
                                plan.fpr_range, plan.fold_seed)
        return len(self.folds)

    def held_out_rows(self, k):
        return self.folds[k][1]

    # ----------------------------------------------------------- the rows
    def rows(self, plan, candidate, k=None):
        """``candidate``'s engine's binning of every row (``k`` None), or fold
        ``k``'s ``(training, held-out)`` subsets of it; made once per fit, in
        the calling thread."""
        engine = plan.engine_of(candidate)
        if engine.name not in self._binned:
            self._binned[engine.name] = engine.rows(self.X, self.labels,
                                                    plan.params(candidate, 0, plan.n_threads))
        if k is None:
            return self._binned[engine.name]
        key = (engine.name, k)
        if key not in self._binned:
            whole = self._binned[engine.name]
            self._binned[key] = tuple(whole.subset(rows) for rows in self.folds[k])
        return self._binned[key]

    def session(self, plan, candidate, k, n_threads):
        """A session of ``candidate`` on fold ``k``, stopped on its held-out part by
        ``plan.stopping_rule``.  A log-loss candidate computes the window
        criterion every round on the first fold only (it stops on its log-loss:
        the criterion is for the record)."""
        train, held_out = self.rows(plan, candidate, k)
        criterion = ValidationCriterion(plan.windows(int((~held_out.is_pos).sum())),
                                        held_out.is_pos)
        if candidate.rule == "logloss" and k != 0:
            criterion = None
        stopping = plan.stopping_rule(candidate, None if criterion is None else criterion.name)
        return plan.engine_of(candidate).session(
            plan.params(candidate, k, n_threads), candidate.loss, plan.fpr_range, plan.rounds,
            train, held_out, criterion=criterion, stopping=stopping, log=plan.verbose >= 2)

    # ------------------------------------------------------------ boosting
    def boost_folds(self, plan, race):
        own = {c.name: [None] * len(self.folds) for c in plan.pool}
        for folds in race.phases():
            self._phase(plan, race, folds, own)
        return own

    def _phase(self, plan, race, folds, own):
        """The alive candidates on ``folds`` side by side (pauc.boost._race), in
        parallel threads: ``RACE_BLOCK`` rounds at a time while they race, checked
        after every block and at the phase's end; to their ends otherwise."""
        pool = [c for c in plan.pool if c.name in race.alive]
        per_job = max(1, plan.n_threads // (len(pool) * len(folds)))
        for k in folds:
            for c in pool:
                self.rows(plan, c, k)
        # fold after fold, each fold's candidates in turn: threads running side by
        # side then mostly pair a GIL-free oblivious fit with a LightGBM one, whose
        # per-round loops hold the GIL (two of those wait for each other)
        sessions = {(c.name, k): self.session(plan, c, k, per_job) for k in folds for c in pool}
        race.start(folds)
        while True:
            running = [s for (n, _), s in sessions.items() if n in race.alive and not s.done]
            if not running:
                break
            if not race.racing:
                run_parallel([(s.advance, (plan.rounds,), {}) for s in running], plan.n_threads)
                continue
            run_parallel([(s.advance, (RACE_BLOCK,), {}) for s in running], plan.n_threads)
            states = {n: ([sessions[n, k].kept_scores() for k in folds],
                          max(sessions[n, k].rounds for k in folds),
                          all(sessions[n, k].done for k in folds)) for n in race.alive}
            for n in race.check(states):
                for k in folds:
                    own[n][k] = fold_fit(sessions[n, k], held_out=False)
        keys = [(n, k) for k in folds for n in race.alive]
        for (n, k), fit in zip(keys, run_parallel([(fold_fit, (sessions[key],), {})
                                                   for key in keys], plan.n_threads)):
            own[n][k] = fit
        race.end({n: ([own[n][k].held_out_scores for k in folds],
                      max(own[n][k].boosted for k in folds)) for n in race.alive})

    def boost_all(self, plan, candidate, n_rounds):
        engine = plan.engine_of(candidate)
        session = engine.session(plan.params(candidate, 0, plan.n_threads), candidate.loss,
                                 plan.fpr_range, n_rounds, self.rows(plan, candidate))
        session.advance(n_rounds)
        booster = session.finish()
        return FoldBag([booster], [engine.n_rounds(booster)])

    def threshold(self, model, operating_fpr):
        return operating_threshold(model.predict(self.X, self.n_threads), self.labels,
                                   operating_fpr)


def fold_fit(session, held_out=True):
    """The record of a session that has ended (or was dropped): its booster, kept
    round, criterion history and (``held_out``) raw held-out scores at the kept
    round."""
    scores = session.held_out_scores() if held_out else None
    history = np.asarray(session.stopping.history, dtype=np.float64)
    return FoldFit(session.finish(), session.kept_round, history, scores, session.seconds,
                   session.rounds)


def run_parallel(jobs, n_threads):
    """Run the ``(function, args, kwargs)`` jobs in ``min(n_threads, len(jobs))``
    threads, results in the jobs' order."""
    n_workers = max(1, min(n_threads, len(jobs)))
    if n_workers == 1:
        return [f(*a, **kw) for f, a, kw in jobs]
    return Parallel(n_jobs=n_workers, prefer="threads")(delayed(f)(*a, **kw) for f, a, kw in jobs)
