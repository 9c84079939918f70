"""The in-memory trainer of GradientBoostingRanker (:class:`pauc.gbm._plan.Trainer`).

The rows are arrays in this process.  The (candidate, fold) sessions of the
race's phases (:mod:`pauc.gbm._race`: every fold side by side, so that each
candidate's folds stop together on the evidence of all of them,
:class:`pauc.gbm._stopping.PooledStopping`; without it the first fold, then
the others) advance a block of rounds at a time on ``n_jobs`` threads
(:mod:`pauc.gbm._schedule`: no thread idles while a block can run, the next
phase starts early on a free thread).  LightGBM and XGBoost release the GIL
while they grow a tree, pauc's oblivious trees in their kernels; each fit has
its own seed, every engine is deterministic and the race decides on snapshots
taken after each block, so the fitted model does not depend on the number of
threads.  Every training call goes through an engine
(:mod:`pauc.gbm.engines`).
"""

import numpy as np

from .._threshold import operating_threshold
from ._crossfit import plan_folds
from ._plan import FoldBag, FoldFit, Trainer
from ._schedule import Schedule
from ._stopping import ValidationCriterion

__all__ = ["LocalTrainer", "fold_fit"]


class LocalTrainer(Trainer):
    """Training rows ``X`` (dense or CSR) with labels ``is_pos``, in memory, boosted
    with the plan's threads.  Each engine bins the rows once
    per fit (:meth:`pauc.gbm.engines.Engine.rows`); the folds' parts are
    subsets of that binning, shared by every candidate."""

    def __init__(self, X, is_pos):
        self.X, self.labels = X, is_pos
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
        if candidate.rule != "window" and k != 0:
            criterion = None
        stopping = plan.stopping_rule(candidate, None if criterion is None else criterion.name,
                                      stops=not plan.pools(candidate, len(self.folds)))
        return plan.engine_of(candidate).session(
            plan.params(candidate, k, n_threads), candidate.loss, plan.fpr_range, plan.rounds,
            train, held_out, criterion=criterion, stopping=stopping, log=plan.verbose >= 2)

    # ------------------------------------------------------------ boosting
    def boost_folds(self, plan, race):
        own = {c.name: [None] * len(self.folds) for c in plan.pool}
        by_name = {c.name: c for c in plan.pool}

        def new_session(name, k, n_threads):
            return self.session(plan, by_name[name], k, n_threads)

        def pooled(name, folds):
            candidate = by_name[name]
            if not plan.pools(candidate, len(self.folds)):
                return None
            return plan.pooled_stopping(candidate, [len(self.held_out_rows(k)) for k in folds])

        Schedule(race, new_session, list(by_name), plan.n_threads, fold_fit, pooled).run(own)
        return own

    def boost_all(self, plan, candidate, n_rounds):
        engine = plan.engine_of(candidate)
        session = engine.session(plan.params(candidate, 0, plan.n_threads), candidate.loss,
                                 plan.fpr_range, n_rounds, self.rows(plan, candidate))
        session.advance(n_rounds)
        booster = session.finish()
        return FoldBag([booster], [engine.n_rounds(booster)])

    def threshold(self, plan, model, operating_fpr):
        return operating_threshold(model.predict(self.X, plan.n_threads), self.labels,
                                   operating_fpr)


def fold_fit(session, held_out=True):
    """The record of a session that has ended (or was dropped): its booster, kept
    round, criterion history and (``held_out``) raw held-out scores at the kept
    round."""
    scores = session.held_out_scores() if held_out else None
    history = np.asarray(session.stopping.history, dtype=np.float64)
    return FoldFit(session.finish(), session.kept_round, history, scores, session.seconds,
                   session.rounds, session.ended_by_pool)
