"""The engines of GradientBoostingRanker: the only place where pauc calls a tree library.

:class:`pauc.boost.GradientBoostingRanker` runs the same candidates,
cross-fitting, stopping rule, selection and fold bagging on LightGBM (Ke et al.
2017) or XGBoost (Chen & Guestrin 2016), ``engine="lightgbm" | "xgboost"``.
Everything it asks of an engine is the small interface of :class:`Engine`:

* :meth:`~Engine.params`: the engine's parameters for a base configuration and
  a candidate's configuration, both written in LightGBM's names
  (:mod:`pauc.boost._candidates`);
* :meth:`~Engine.rows`: the rows binned once (a LightGBM ``Dataset``, an
  XGBoost ``QuantileDMatrix``, the oblivious trees' codes), whose ``subset``
  shares the bins: every fold and candidate of a fit boosts on subsets of one
  binning;
* :meth:`~Engine.session`: boost one loss on such rows a block of rounds at a
  time (:class:`Session`), optionally evaluating held-out rows every round and
  handing the criterion and the held-out log-loss to a
  :class:`pauc.boost._stopping.Stopping`, which says when to stop (the race of
  :mod:`pauc.boost._race` advances candidates side by side);
  :meth:`~Engine.boost` runs one session to its end;
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
* on a cluster, XGBoost's callback feeds the same
  :class:`~pauc.boost._stopping.Stopping` (:mod:`pauc.boost._xgboost_stopping`).

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
import scipy.sparse as sp

from .._loss import loss_row
from ..objectives import WindowObjective
from ._oblivious import OBLIVIOUS_DEFAULTS, ObliviousBooster, ObliviousRows, ObliviousSession

__all__ = ["ENGINES", "CANDIDATE_ENGINES", "Engine", "Session", "LightGBMEngine", "XGBoostEngine",
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
    """The interface of an engine (module docstring); the three below implement it."""

    name = None

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
        criterion : pauc.boost._stopping.ValidationCriterion or None
            Computed on ``valid`` every round (None: only the held-out
            log-loss, when ``stopping`` stops on it).
        stopping : pauc.boost._stopping.Stopping or None
            Fed every round; boosting ends when it says so.
        log : bool
            Print the held-out values every round.
        """
        return self.session_type(params, loss, fpr_range, cap, train, valid, criterion,
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


class Session(ABC):
    """One candidate boosting on one set of training rows, a block of rounds at a
    time (:meth:`advance`): the held-out rows are scored every round and handed
    to the :class:`~pauc.boost._stopping.Stopping`, and the held-out scores of
    the kept round so far are kept (:meth:`kept_scores`), so that neither the
    race nor the fold's record predicts the held-out rows again.

    Attributes
    ----------
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

    def __init__(self, cap, valid, criterion, stopping, log):
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
        evidence than its own held-out rows (:class:`pauc.boost._stopping.PooledStopping`)."""
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


class _LightGBMRows:
    """Rows as one LightGBM ``Dataset`` (binned once), subsets sharing its bins;
    ``X`` (the raw rows, for predictions) is taken only when asked for."""

    def __init__(self, dataset, is_pos, source, rows=None):
        self.dataset, self.is_pos = dataset, is_pos
        self._source, self._rows, self._X = source, rows, None

    @classmethod
    def of(cls, X, is_pos, params):
        import lightgbm as lgb
        # feature_pre_filter off: on small data LightGBM would otherwise drop every
        # feature that min_data_in_leaf cannot split, and refuse a custom objective.
        # data_random_seed, not seed: a Booster takes the Dataset's parameters over
        # its own, and each fold boosts with its own seed
        dataset = lgb.Dataset(X, label=is_pos.astype(np.float64),
                              params={"verbosity": -1, "data_random_seed": int(params["seed"]),
                                      "num_threads": int(params.get("num_threads", 0)),
                                      "feature_pre_filter": False}, free_raw_data=False)
        return cls(dataset.construct(), is_pos, X)

    @property
    def X(self):
        if self._X is None:
            self._X = self._source if self._rows is None else self._source[self._rows]
        return self._X

    def subset(self, rows):
        rows = np.sort(rows)        # LightGBM keeps a subset's rows in increasing order
        return _LightGBMRows(self.dataset.subset(rows).construct(), self.is_pos[rows],
                             self._source, rows if self._rows is None else self._rows[rows])

    def like(self, X, is_pos):
        import lightgbm as lgb
        dataset = lgb.Dataset(X, label=is_pos.astype(np.float64), reference=self.dataset,
                              params=self.dataset.params, free_raw_data=False)
        return _LightGBMRows(dataset.construct(), is_pos, X)


def _quiet_lightgbm(n_threads):
    """Silence LightGBM in the calling thread and give it ``n_threads`` OpenMP threads.
    Its log level and thread count are per thread, set when the thread creates a
    ``Dataset`` or a ``Booster``: a session created in one thread and advanced in
    another (a block of rounds in a worker thread) would log there at LightGBM's
    default level, and grow its trees with as many threads as that thread last set
    (a ``Dataset`` without ``num_threads``: every core, under ``n_jobs=1`` too).  A
    one-row ``Dataset`` with ``verbosity=-1`` and the session's ``num_threads`` sets
    both (about 0.1 ms)."""
    import lightgbm as lgb
    lgb.Dataset(np.zeros((1, 1)),
                params={"verbosity": -1, "num_threads": int(n_threads)}).construct()


# the least 1 - p at which a raw score is read back from LightGBM's probability
# (_LightGBMSession._raw_of): p near 1 is off by an ulp or two of LightGBM's exp and
# division (2.2e-16 each), which log1p(-p) turns into 1e-12 of the raw score at most
LOGIT_MIN_TAIL = 1e-3


class _LightGBMSession(Session):
    """LightGBM's training loop (``lightgbm.train``'s, without its callbacks):
    the binary objective for log-loss, :mod:`pauc.objectives` otherwise."""

    def __init__(self, params, loss, fpr_range, cap, train, valid, criterion, stopping, log):
        import lightgbm as lgb
        super().__init__(cap, valid, criterion, stopping, log)
        params = dict(params)
        self._fobj = None
        if not loss_row(loss).window:
            # the pointwise log-loss: LightGBM's own binary objective, whose held-out
            # scores LightGBM reports as probabilities
            params["objective"], self.raw_scores = "binary", False
            if valid is not None and stopping is not None and stopping.rule == "logloss":
                params["metric"] = "binary_logloss"
        else:
            # built from validated labels: no second validation (objectives.window_objective)
            params["objective"] = "none"
            self._fobj = WindowObjective(train.is_pos, fpr_range, loss, 0.0)
        self.booster = lgb.Booster(params=params, train_set=train.dataset)
        self._n_threads = int(params["num_threads"])
        self._evaluated = valid is not None and stopping is not None
        if self._evaluated:
            self.booster.add_valid(valid.dataset, "validation")
        self._scores = None

    def _feval(self, scores, data):
        self._scores = scores
        return [] if self.criterion is None else [self.criterion(scores, data)]

    def _boost(self, n_rounds):
        _quiet_lightgbm(self._n_threads)
        # without a criterion (a log-loss rule on a fold after the first) the held-out
        # scores are read only at a new kept round (about a quarter of the rounds on
        # a9a): LightGBM's own metric needs no copy of them
        feval = None if self.criterion is None else self._feval
        for _ in range(n_rounds):
            self.booster.update(fobj=self._fobj)
            self.rounds += 1
            if self._evaluated:
                results = {r[1]: r[2] for r in self.booster.eval_valid(feval)}
                value = None if self.criterion is None else results[self.criterion.name]
                scores = self._scores if feval is not None else self._read_scores
                if self._after_round(value, results.get("binary_logloss"), scores):
                    return True
        return False

    def _read_scores(self):
        self.booster.eval_valid(self._feval)
        return self._scores

    def _predict_held_out(self, n_rounds):
        return ENGINES["lightgbm"].predict(self.booster, self.valid.X, n_rounds)

    def _raw_of(self, p, n_rounds):
        """The binary objective's raw scores, read back from its probabilities
        ``p = 1 / (1 + exp(-s))`` (as LightGBM computes them): ``s = log(p) -
        log1p(-p)`` is within 1e-12 of the raw score where ``1 - p >=
        LOGIT_MIN_TAIL`` (``1 - p`` is exact there, ``p`` off by an ulp or two),
        at a fraction of the cost of predicting the held-out rows again (a ninth
        of a9a's fit); the rows past it are predicted."""
        with np.errstate(divide="ignore"):
            raw = np.log(p) - np.log1p(-p)
        far = ~((p > 0.0) & (p <= 1.0 - LOGIT_MIN_TAIL))
        if far.any():
            raw[far] = ENGINES["lightgbm"].predict(self.booster, self.valid.X[far], n_rounds)
        return raw

    def finish(self):
        self.booster.free_dataset()
        return self.booster


class LightGBMEngine(Engine):
    """LightGBM: the binary objective for log-loss, :mod:`pauc.objectives` otherwise."""

    name = "lightgbm"
    rows_type, session_type = _LightGBMRows, _LightGBMSession

    def params(self, base, config, seed, n_threads):
        params = dict(base, num_threads=int(n_threads), seed=int(seed),
                      # identical models for any number of threads, and no timing test
                      # to choose the histogram layout (docs/developer/measurements.rst)
                      deterministic=True, force_row_wise=True, verbosity=-1, metric="None")
        params.update(config)
        return params

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


class _XGBoostRows:
    """Rows as XGBoost's quantised matrices: the bins (quantile cuts) sketched once
    on every row, each subset quantised at them (``ref``); only the rows of the
    sketch keep their values (the subsets' are read once, when quantised)."""

    def __init__(self, matrix, is_pos, n_threads, X=None, cuts=None):
        self.matrix, self.is_pos, self._X = matrix, is_pos, X
        self._n_threads, self._cuts = n_threads, matrix if cuts is None else cuts

    @classmethod
    def of(cls, X, is_pos, params):
        import xgboost as xgb
        X, n_threads = _dense(X), int(params["nthread"])
        matrix = xgb.QuantileDMatrix(X, label=is_pos.astype(np.float32), max_bin=MAX_BIN,
                                     nthread=n_threads)
        return cls(matrix, is_pos, n_threads, X)

    def like(self, X, is_pos):
        import xgboost as xgb
        matrix = xgb.QuantileDMatrix(_dense(X), label=is_pos.astype(np.float32),
                                     max_bin=MAX_BIN, ref=self._cuts,
                                     nthread=int(self._n_threads))
        return _XGBoostRows(matrix, is_pos, self._n_threads, cuts=self._cuts)

    def subset(self, rows):
        return self.like(self._X[rows], self.is_pos[rows])


class _XGBoostSession(Session):
    """XGBoost's training loop (``xgboost.train``'s, without its callbacks):
    every loss a custom objective, raw margins from 0; the held-out margins are
    read from the booster's prediction cache every round."""

    def __init__(self, params, loss, fpr_range, cap, train, valid, criterion, stopping, log):
        import xgboost as xgb
        super().__init__(cap, valid, criterion, stopping, log)
        self._evaluated = valid is not None and stopping is not None
        self.booster = xgb.Booster(params, [train.matrix] + ([valid.matrix]
                                                             if self._evaluated else []))
        self._train = train.matrix
        self._objective = WindowObjective(train.is_pos, fpr_range, loss, 0.0)
        self._with_logloss = stopping is not None and stopping.rule == "logloss"

    def _boost(self, n_rounds):
        for _ in range(n_rounds):
            self.booster.update(self._train, self.rounds, fobj=self._objective)
            self.rounds += 1
            if self._evaluated:
                scores = np.asarray(self.booster.predict(self.valid.matrix, output_margin=True),
                                    dtype=np.float64).ravel()
                value = (None if self.criterion is None
                         else self.criterion.value(self.valid.is_pos, scores))
                logloss = (held_out_logloss(self.valid.is_pos, scores) if self._with_logloss
                           else None)
                if self._after_round(value, logloss, scores):
                    return True
        return False

    def _predict_held_out(self, n_rounds):
        return np.asarray(self.booster.predict(self.valid.matrix, output_margin=True,
                                               iteration_range=(0, int(n_rounds))),
                          dtype=np.float64).ravel()

    def finish(self):
        return self.booster.reset()


class XGBoostEngine(Engine):
    """XGBoost: every loss a custom objective, trees grown leaf-wise (module docstring)."""

    name = "xgboost"
    max_bin = MAX_BIN
    rows_type, session_type = _XGBoostRows, _XGBoostSession

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


class _ObliviousSession(Session):
    """pauc's oblivious trees (:class:`pauc.boost._oblivious.ObliviousSession`):
    the kernel scores the held-out rows and computes their log-loss and
    criterion; the kept round's scores are predicted from the codes when asked."""

    def __init__(self, params, loss, fpr_range, cap, train, valid, criterion, stopping, log):
        super().__init__(cap, valid, criterion, stopping, log)
        self._with_logloss = stopping is not None and stopping.rule == "logloss"
        evaluated = valid is not None and stopping is not None
        self._inner = ObliviousSession(
            params, loss, fpr_range, train, valid, self._on_round if evaluated else None,
            () if criterion is None or valid is None else criterion.windows)
        self.booster = self._inner.booster

    def _on_round(self, loss_va, value):
        # the kernel's held-out log-loss and criterion (the same windows and walk as
        # criterion.value: pauc.boost._oblivious_tree.HeldOut)
        self.rounds += 1
        return self._after_round(None if self.criterion is None else float(value),
                                 float(loss_va) if self._with_logloss else None, None)

    def _boost(self, n_rounds):
        stopped = self._inner.advance(n_rounds)
        self.rounds = self.booster.n_trees
        return stopped

    def _predict_held_out(self, n_rounds):
        return self.booster.predict_codes(self.valid.codes, n_rounds)


class ObliviousEngine(Engine):
    """pauc's own oblivious trees (:mod:`pauc.boost._oblivious`): any loss,
    CatBoost's tree shape, score function, random strength and bootstrap.  Its
    parameters are its own (``OBLIVIOUS_DEFAULTS``), not the estimator's
    LightGBM-named tree parameters; one thread per fit (the folds run in
    parallel threads, and the kernels release the GIL)."""

    name = "oblivious"
    rows_type, session_type = ObliviousRows, _ObliviousSession

    def params(self, base, config, seed, n_threads):
        unknown = set(config) - set(OBLIVIOUS_DEFAULTS)
        if unknown:
            raise ValueError(f"unknown oblivious-tree parameters {sorted(unknown)}; known: "
                             f"{sorted(OBLIVIOUS_DEFAULTS)}")
        return dict(OBLIVIOUS_DEFAULTS, **config, seed=int(seed))

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
    if isinstance(booster, ObliviousBooster):
        return CANDIDATE_ENGINES["oblivious"]
    return ENGINES["xgboost" if hasattr(booster, "inplace_predict") else "lightgbm"]
