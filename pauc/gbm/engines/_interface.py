"""The interface of the engines of GradientBoostingRanker: :class:`Engine` and its :class:`Session`.

:class:`pauc.gbm.GradientBoostingRanker` runs the same candidates,
cross-fitting, stopping rule, selection and fold bagging on LightGBM (Ke et al.
2017), XGBoost (Chen & Guestrin 2016) or pauc's oblivious trees; the engines
(:mod:`pauc.gbm.engines`) are the only place where pauc calls a tree library.
Everything the fit asks of an engine is the small interface of :class:`Engine`:

* :meth:`~Engine.params`: the engine's parameters for a base configuration and
  a candidate's configuration, both written in LightGBM's names
  (:mod:`pauc.gbm._candidates`);
* :meth:`~Engine.rows`: the rows binned once (a LightGBM ``Dataset``, an
  XGBoost ``QuantileDMatrix``, the oblivious trees' codes), whose ``subset``
  shares the bins: every fold and candidate of a fit boosts on subsets of one
  binning;
* :meth:`~Engine.session`: boost one loss on such rows a block of rounds at a
  time (:class:`Session`), optionally evaluating held-out rows every round and
  handing the criterion and the held-out log-loss to a
  :class:`pauc.gbm._stopping.Stopping`, which says when to stop (the race of
  :mod:`pauc.gbm._race` advances candidates side by side);
  :meth:`~Engine.boost` runs one session to its end;
* :meth:`~Engine.predict`: raw scores of the first ``n`` rounds;
* :meth:`~Engine.n_rounds` and :meth:`~Engine.gains`;
* :meth:`~Engine.grew`: whether a booster is of the engine's type (a fitted
  model holds boosters of several engines: :func:`pauc.gbm.engines.engine_of`).

References
----------
Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.

Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.
"""

import os
import time
from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Engine", "Session", "effective_threads", "held_out_logloss"]


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
    """The interface of an engine (module docstring); the three below implement it."""

    name = None
    # whether the estimator's ``engine=`` may name it (else a candidate only)
    selectable = True

    @abstractmethod
    def params(self, base, config, seed, n_threads):
        """The engine's parameters: ``base`` updated by ``config`` (LightGBM names)."""

    # the engine's rows (binned once: ``of(X, is_pos, params)``, ``subset(rows)``,
    # ``like(X, is_pos)``, ``is_pos``) and its Session
    rows_type = session_type = None

    def rows(self, X, is_pos, params):
        """``(X, is_pos)`` binned as this engine reads them (with ``params``' binning
        parameters): an object with ``is_pos``, ``subset(rows)`` (the same bins)
        and ``like(X, is_pos)`` (other rows binned at these bins)."""
        return self.rows_type.of(X, is_pos, params)

    def session(self, params, loss, fpr_range, cap, train, valid=None, *,
                criterion=None, stopping=None, log=False):
        """A :class:`Session` boosting ``loss`` on ``train`` (from :meth:`rows`), up
        to ``cap`` rounds.

        Parameters
        ----------
        params : dict
            From :meth:`params`.
        loss : str
            ``"logloss"`` or a window loss of :mod:`pauc.objectives`.
        fpr_range : (float, float)
        cap : int
        train, valid : rows of :meth:`rows` (``valid`` None or labelled)
            Training rows, and held-out rows evaluated every round.
        criterion : pauc.gbm._stopping.ValidationCriterion or None
            Computed on ``valid`` every round (None: only the held-out
            log-loss, when ``stopping`` stops on it).
        stopping : pauc.gbm._stopping.Stopping or None
            Fed every round; boosting ends when it says so.
        log : bool
            Print the held-out values every round.
        """
        return self.session_type(self, params, loss, fpr_range, cap, train, valid, criterion,
                                 stopping, log)

    def boost(self, params, loss, fpr_range, n_rounds, train, valid=None, *,
              criterion=None, stopping=None, log=False):
        """Boost ``loss`` for up to ``n_rounds`` rounds on ``train = (X, is_pos)``
        (``valid``: held-out ``(X, is_pos)`` binned at the training rows' bins);
        one :meth:`session` run to its end.  Returns the booster."""
        rows = self.rows(*train, params)
        session = self.session(params, loss, fpr_range, n_rounds, rows,
                               None if valid is None else rows.like(*valid),
                               criterion=criterion, stopping=stopping, log=log)
        session.advance(n_rounds)
        return session.finish()

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

    @abstractmethod
    def grew(self, booster):
        """Whether ``booster`` is of this engine's type."""


class Session(ABC):
    """One candidate boosting on one set of training rows, a block of rounds at a
    time (:meth:`advance`): the held-out rows are scored every round and handed
    to the :class:`~pauc.gbm._stopping.Stopping`, and the held-out scores of
    the kept round so far are kept (:meth:`kept_scores`), so that neither the
    race nor the fold's record predicts the held-out rows again.

    Attributes
    ----------
    engine : Engine
        The engine whose session it is.
    booster
    rounds : int
        Rounds boosted.
    done : bool
        Stopped by the rule, or at the cap.
    seconds : float
        Time spent in :meth:`advance`.
    """

    # whether the per-round held-out scores are raw margins (else a monotone
    # transform of them: LightGBM's binary objective reports probabilities)
    raw_scores = True

    def __init__(self, engine, cap, valid, criterion, stopping, log):
        self.engine = engine
        self.cap, self.valid, self.criterion = int(cap), valid, criterion
        self.stopping, self.log = stopping, log
        self.rounds, self.seconds = 0, 0.0
        self.done = self.cap <= 0
        self._kept, self._kept_at, self._ring = None, 0, None
        self._kept_raw = False      # _kept predicted (raw), not copied from a round's report
        self._ended_at = None

    def advance(self, n_rounds):
        """Boost up to ``n_rounds`` more rounds (never past the cap); True once done."""
        if not self.done:
            start = time.perf_counter()
            stopped = self._boost(min(int(n_rounds), self.cap - self.rounds))
            self.done = bool(stopped) or self.rounds >= self.cap
            self.seconds += time.perf_counter() - start
        return self.done

    @abstractmethod
    def _boost(self, n_rounds):
        """Boost up to ``n_rounds`` rounds, calling :meth:`_after_round` after each
        (with held-out rows and a stopping rule); True when the rule stops."""

    @abstractmethod
    def _predict_held_out(self, n_rounds):
        """Raw held-out scores of the first ``n_rounds`` rounds."""

    def _after_round(self, value, logloss, scores):
        """Round ``self.rounds``' held-out criterion ``value``, log-loss and
        ``scores`` (None: not reported; a function: read when needed): to the
        stopping rule, and the scores of a new kept round kept (the window rule
        keeps the middle of a trailing stretch: the last ``width`` rounds' scores
        are held).  True: stop."""
        if self.log:
            print(f"[{self.rounds}] criterion {value} logloss {logloss}")
        stop = self.stopping.update(value, logloss)
        # a fixed budget keeps every round, so no round's scores are worth a copy: the
        # latest round's are predicted when asked (kept_scores)
        if scores is not None and self.stopping.rule != "fixed":
            if self.stopping.rule == "logloss":
                if self.stopping.improved:
                    scores = scores() if callable(scores) else scores
                    self._kept, self._kept_at = np.array(scores, dtype=np.float64), self.rounds
                    self._kept_raw = False
            else:
                scores = scores() if callable(scores) else scores
                width = self.stopping.width
                if self._ring is None:
                    self._ring = np.empty((width, len(scores)))
                self._ring[(self.rounds - 1) % width] = scores
                if self.stopping.improved:
                    self._kept_at = self.stopping.best_round
                    self._kept = self._ring[(self._kept_at - 1) % width].copy()
                    self._kept_raw = False
        return stop

    def end_at(self, kept_round):
        """End the session keeping ``kept_round`` rounds, a round chosen on more
        evidence than its own held-out rows (:class:`pauc.gbm._stopping.PooledStopping`)."""
        if not 1 <= kept_round <= self.rounds:
            raise ValueError(f"kept round {kept_round} outside the {self.rounds} boosted")
        self.done, self._ended_at = True, int(kept_round)

    @property
    def ended_by_pool(self):
        """Whether :meth:`end_at` ended the session."""
        return self._ended_at is not None

    @property
    def kept_round(self):
        """The kept number of rounds so far (all rounds without a stopping rule)."""
        if self._ended_at is not None:
            return self._ended_at
        if self.stopping is None:
            return self.rounds
        return max(1, min(self.stopping.best_round, self.rounds)) if self.rounds else 0

    def kept_scores(self):
        """Held-out scores of the kept round so far, raw or in a monotone
        transform of them (what a ranking criterion reads)."""
        n = self.kept_round
        if self._kept is None or self._kept_at != n:
            # a session that reports no scores per round (the oblivious kernel)
            self._kept, self._kept_at, self._kept_raw = self._predict_held_out(n), n, True
        return self._kept

    def held_out_scores(self):
        """Raw held-out scores of the kept round."""
        scores = self.kept_scores()
        if self.raw_scores or self._kept_raw:
            return scores
        return self._raw_of(scores, self.kept_round)

    def _raw_of(self, scores, n_rounds):
        """The raw held-out scores of the first ``n_rounds`` rounds, whose reported
        transform is ``scores``."""
        return self._predict_held_out(n_rounds)

    def finish(self):
        """Release the training caches; return the booster."""
        return self.booster
