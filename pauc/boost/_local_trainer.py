"""The in-memory trainer of GradientBoostingRanker (:class:`pauc.boost._fit.Trainer`).

The rows are arrays in this process.  While candidates race
(:mod:`pauc.boost._race`), a fold's candidates advance side by side in parallel
threads, a block of rounds at a time, and the folds follow one another; once
one candidate is left (or without a race) its (candidate, fold) fits are
independent and run in parallel threads.  LightGBM and XGBoost release the GIL
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
        k = 0
        while k < len(self.folds) and race.racing:
            self._race_fold(plan, race, k, own)
            k += 1
        # no race left: every candidate alive on every fold left, all in parallel
        rest = [(c, j) for j in range(k, len(self.folds)) for c in plan.pool
                if c.name in race.alive]
        per_job = max(1, plan.n_threads // max(1, len(rest)))
        for c, j in rest:
            self.rows(plan, c, j)
        jobs = [(_run, (self.session(plan, c, j, per_job),), {}) for c, j in rest]
        for (c, j), fit in zip(rest, run_parallel(jobs, plan.n_threads)):
            own[c.name][j] = fit
        return own

    def _race_fold(self, plan, race, k, own):
        """Fold ``k`` of the race: the alive candidates side by side, ``RACE_BLOCK``
        rounds at a time, checked after every block and at the fold's end."""
        pool = [c for c in plan.pool if c.name in race.alive]
        per_job = max(1, plan.n_threads // len(pool))
        sessions = {c.name: self.session(plan, c, k, per_job) for c in pool}
        race.start_fold(k)
        while True:
            running = [s for n, s in sessions.items() if n in race.alive and not s.done]
            if not running:
                break
            run_parallel([(s.advance, (RACE_BLOCK,), {}) for s in running], plan.n_threads)
            for n in race.check(k, {n: (sessions[n].kept_scores(), sessions[n].rounds,
                                        sessions[n].done) for n in race.alive}):
                own[n][k] = fold_fit(sessions[n], held_out=False)
        alive = list(race.alive)
        fits = run_parallel([(fold_fit, (sessions[n],), {}) for n in alive], plan.n_threads)
        for n, fit in zip(alive, fits):
            own[n][k] = fit
        race.end_fold(k, {n: (own[n][k].held_out_scores, own[n][k].boosted) for n in alive})

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


def _run(session):
    session.advance(session.cap)
    return fold_fit(session)


def run_parallel(jobs, n_threads):
    """Run the ``(function, args, kwargs)`` jobs in ``min(n_threads, len(jobs))``
    threads, results in the jobs' order."""
    n_workers = max(1, min(n_threads, len(jobs)))
    if n_workers == 1:
        return [f(*a, **kw) for f, a, kw in jobs]
    return Parallel(n_jobs=n_workers, prefer="threads")(delayed(f)(*a, **kw) for f, a, kw in jobs)
