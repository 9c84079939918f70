"""LightGBM as an engine of GradientBoostingRanker (:mod:`pauc.gbm.engines._interface`).

Log-loss is LightGBM's own binary objective (held-out scores reported as
probabilities, raw margins starting at the training rows' log-odds); a window
loss is a custom objective of :mod:`pauc.objectives`.  Rows are binned once
into a ``Dataset`` whose subsets share its bins.

References
----------
Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.
"""

import numpy as np

from ..._loss import loss_row
from ..objectives import WindowObjective
from ._interface import Engine, Session

__all__ = ["LightGBMEngine", "LOGIT_MIN_TAIL"]


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
    both, cheaply (measured: ``docs/developer/measurements.rst``, 'The race of the
    candidates')."""
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

    def __init__(self, engine, params, loss, fpr_range, cap, train, valid, criterion,
                 stopping, log):
        import lightgbm as lgb
        super().__init__(engine, cap, valid, criterion, stopping, log)
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
        # scores are read only at a new kept round (a minority of the rounds; measured:
        # docs/developer/measurements.rst, 'The race of the candidates'): LightGBM's own
        # metric needs no copy of them
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
        return self.engine.predict(self.booster, self.valid.X, n_rounds)

    def _raw_of(self, p, n_rounds):
        """The binary objective's raw scores, read back from its probabilities
        ``p = 1 / (1 + exp(-s))`` (as LightGBM computes them): ``s = log(p) -
        log1p(-p)`` is within 1e-12 of the raw score where ``1 - p >=
        LOGIT_MIN_TAIL`` (``1 - p`` is exact there, ``p`` off by an ulp or two),
        at a fraction of the cost of predicting the held-out rows again (measured:
        ``docs/developer/measurements.rst``, 'The time outside the rounds'); the
        rows past it are predicted."""
        with np.errstate(divide="ignore"):
            raw = np.log(p) - np.log1p(-p)
        far = ~((p > 0.0) & (p <= 1.0 - LOGIT_MIN_TAIL))
        if far.any():
            raw[far] = self.engine.predict(self.booster, self.valid.X[far], n_rounds)
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


    def grew(self, booster):
        import lightgbm as lgb
        return isinstance(booster, lgb.Booster)
