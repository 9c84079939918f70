"""pauc's own booster of oblivious trees: CatBoost's strengths on small data,
with any loss of :mod:`pauc.objectives`.

On small imbalanced sets CatBoost's defaults beat LightGBM's and XGBoost's,
and the reasons can be measured one by one (``docs/developer/measurements.rst``):
oblivious (symmetric) trees of depth 6, the cosine score function, random
noise added to the split scores (``random_strength``), rows resampled every
round (minimal variance sampling), a Newton step with an L2 penalty on every
leaf value, and 254 borders per feature.  CatBoost cannot carry a window loss
(its Python objective receives rows in blocks); this booster can: each round
takes the gradient and the Hessian diagonal of the loss at the current scores
(log-loss here, a window loss from :class:`pauc.objectives.WindowObjective`).

One round (Prokhorenkova et al. 2018, Algorithm 1 with plain boosting):

1. ``g, h``: the loss's derivatives at the scores ``F``;
2. row weights: minimal variance sampling (``bootstrap="mvs"``, CatBoost's
   default: a row is kept with probability ``p_i = min(1, g_hat_i / mu)``,
   ``g_hat_i = sqrt(g_i^2 + lambda h_i^2)``, ``lambda`` the squared mean
   ``|g|``, ``mu`` such that ``subsample * n`` rows are kept on average
   (:func:`pauc.gbm.engines._oblivious_tree.mvs_threshold`, Ibragimov & Gusev 2019,
   eq. (6)), and weighted
   ``1 / p_i``), the Bayesian bootstrap ``(-log U_i)^T`` (Rubin 1981) or none;
3. ``depth`` levels, each the (feature, border) of best score over all current
   leaves (:func:`pauc.gbm.engines._oblivious_tree.best_split`), plus normal noise of
   standard deviation ``random_strength * sqrt(mean(g^2))``;
4. leaf values ``-learning_rate * sum_l w g / (sum_l w h + l2_leaf_reg)``.

Steps 2-4 (and step 1 for log-loss), the held-out rows' scores, their
log-loss and their window criterion (the stopping rule's inputs) run in Cython
without the GIL
(:class:`pauc.gbm.engines._oblivious_tree.Grower`), with their own random stream
(:class:`pauc.gbm.engines._oblivious_tree.Random`): folds boosted in parallel
threads do not wait for each other.

References
----------
Prokhorenkova, L., Gusev, G., Vorobev, A., Dorogush, A. V. and Gulin, A.
"CatBoost: unbiased boosting with categorical features." NeurIPS 2018.

Ibragimov, B. and Gusev, G. "Minimal Variance Sampling in Stochastic Gradient
Boosting." NeurIPS 2019.

Rubin, D. B. "The Bayesian Bootstrap." The Annals of Statistics 9(1), 1981.
"""

import numpy as np
import scipy.sparse as sp

from .. import objectives
from ..._loss import loss_row
from ._interface import Engine, Session
from ._oblivious_tree import Grower, HeldOut, Random, add_trees

# the defaults of the oblivious engine (CatBoost's, but the learning rate, which
# CatBoost sets from the data size for a fixed 1000 rounds: here early stopping
# sets the rounds)
OBLIVIOUS_DEFAULTS = {"depth": 6, "learning_rate": 0.05, "l2_leaf_reg": 3.0,
                      "random_strength": 1.0, "bootstrap": "mvs", "subsample": 0.8,
                      "bagging_temperature": 1.0, "border_count": 254, "score": "cosine",
                      "leaves": "sampled", "leaf_iterations": 1, "strength_decay": False}
SCORES = ("cosine", "l2")
# the rows of a leaf's Newton step: the bootstrap's weighted rows, or every row
LEAVES = ("sampled", "all")
MAX_BORDERS = 254
# log-loss rounds grown per call of the kernel (without the GIL) between the
# held-out checks of the stopping rule
ROUNDS_PER_CALL = 16


class Quantizer:
    """Borders per feature: the midpoints between consecutive distinct values
    when a feature takes at most ``border_count + 1`` values, else its distinct
    quantiles at the levels ``k / (border_count + 1)``, ``k = 1 .. border_count``
    (a value equal to a border lies below it)."""

    def __init__(self, border_count):
        if not 1 <= border_count <= MAX_BORDERS:
            raise ValueError(f"border_count must lie in [1, {MAX_BORDERS}] (uint8 codes), "
                             f"got {border_count}")
        self.border_count = int(border_count)

    def fit(self, X):
        X = _dense(X)
        self.borders_ = []
        levels = np.linspace(0.0, 1.0, self.border_count + 2)[1:-1]
        for column in X.T:
            values = np.unique(column)
            if values.shape[0] > self.border_count + 1:
                self.borders_.append(np.unique(np.quantile(column, levels)))
            else:
                self.borders_.append((values[1:] + values[:-1]) / 2.0)
        self.n_bins_ = np.array([b.shape[0] + 1 for b in self.borders_], dtype=np.int32)
        self.offsets_ = np.concatenate([[0], np.cumsum(self.n_bins_ - 1)]).astype(np.int64)
        return self

    def codes(self, X):
        """uint8 codes of shape (n_features, n_rows): each value's bin."""
        X = _dense(X)
        if X.shape[1] != len(self.borders_):
            raise ValueError(f"X has {X.shape[1]} features, the booster was fitted on "
                             f"{len(self.borders_)}")
        out = np.empty((X.shape[1], X.shape[0]), dtype=np.uint8)
        for f, borders in enumerate(self.borders_):
            out[f] = np.searchsorted(borders, X[:, f], side="left")
        return out


def _dense(X):
    """float64 rows, a sparse ``X`` densified (small data only: ``pauc.gbm._candidates``)."""
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


class ObliviousBooster:
    """Oblivious trees grown by :func:`boost`: ``features``, ``borders`` (the
    border index of each level; a row goes right when its code is above it),
    ``values`` (one row of ``2 ** depth`` leaf values per tree) and the gain of
    each split, kept as the kernel's blocks of rounds (joined once, on first
    use); ``n_trees`` counts them."""

    def __init__(self, quantizer, depth):
        self.quantizer, self.depth = quantizer, depth
        self._blocks = []           # (features, borders, values, gains) of some rounds
        self._joined = None
        self.n_trees = 0

    def add(self, features, borders, values, gains):
        """Trees given as rows of ``(k, depth)``, ``(k, depth)``, ``(k, 2 ** depth)``
        and ``(k, depth)`` arrays."""
        self._blocks.append((features, borders, values, gains))
        self._joined = None
        self.n_trees += values.shape[0]

    def _all(self):
        if self._joined is None:
            depth, n_leaves = self.depth, 1 << self.depth
            empty = (np.zeros((0, depth), np.int32), np.zeros((0, depth), np.int32),
                     np.zeros((0, n_leaves)), np.zeros((0, depth)))
            parts = list(zip(*self._blocks)) if self._blocks else [[e] for e in empty]
            self._joined = tuple(np.ascontiguousarray(np.concatenate(p), dtype=e.dtype)
                                 for p, e in zip(parts, empty))
            self._blocks = [self._joined]
        return self._joined

    @property
    def gains_per_tree(self):
        """The gain of each split, one row per tree."""
        return self._all()[3]

    def arrays(self):
        """``(features, borders, values)`` as int32 / int32 / float64 arrays."""
        return self._all()[:3]

    def predict(self, X, n_rounds=None):
        """Raw scores of the first ``n_rounds`` trees (all: None)."""
        return self.predict_codes(self.quantizer.codes(X), n_rounds)

    def predict_codes(self, codes, n_rounds=None):
        """:meth:`predict` of rows already quantised (``codes``, feature-major)."""
        n = self.n_trees if n_rounds is None else min(int(n_rounds), self.n_trees)
        scores = np.zeros(codes.shape[1])
        if n > 0:
            add_trees(codes, *self.arrays(), 0, n, scores)
        return scores

    def gains(self, n_rounds, n_features):
        """Each feature's summed split gains over the first ``n_rounds`` trees."""
        features, _, _, gains = self._all()
        n = int(n_rounds)
        return np.bincount(features[:n].ravel(), gains[:n].ravel(), minlength=n_features)


class ObliviousRows:
    """Rows quantised once (:class:`Quantizer` fitted on them) with their labels:
    every fold and candidate of a fit boosts on subsets of the same codes."""

    def __init__(self, quantizer, codes, is_pos):
        self.quantizer, self.codes, self.is_pos = quantizer, codes, is_pos

    @classmethod
    def of(cls, X, is_pos, params):
        """The rows ``X`` quantised at ``params["border_count"]`` borders per feature."""
        X = _dense(X)
        quantizer = Quantizer(params["border_count"]).fit(X)
        return cls(quantizer, quantizer.codes(X), is_pos)

    def subset(self, rows):
        return ObliviousRows(self.quantizer, np.ascontiguousarray(self.codes[:, rows]),
                             None if self.is_pos is None else self.is_pos[rows])

    def like(self, X, is_pos):
        """Other rows quantised at these rows' borders."""
        return ObliviousRows(self.quantizer, self.quantizer.codes(_dense(X)), is_pos)


class ObliviousSession:
    """Oblivious trees grown on ``train`` (:class:`ObliviousRows`) a block of rounds
    at a time, the held-out rows ``valid`` scored by the kernel after every tree
    (:class:`pauc.gbm.engines._oblivious_tree.HeldOut`).

    Parameters
    ----------
    params : dict
        ``OBLIVIOUS_DEFAULTS`` keys and ``seed``.
    loss : str
        ``"logloss"`` or a window loss of :mod:`pauc.objectives`.
    fpr_range : (float, float)
    train, valid : ObliviousRows (valid: None or labelled rows)
    on_round : callable or None
        ``on_round(held_out_logloss, held_out_criterion)`` after every round
        (with ``valid``; NaN for what is not computed); True stops the
        boosting.
    windows : sequence of (alpha, beta)
        The held-out criterion's FPR windows (empty: no criterion).
    """

    def __init__(self, params, loss, fpr_range, train, valid=None, on_round=None, windows=()):
        depth = int(params["depth"])
        if params["score"] not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, got {params['score']!r}")
        if params["leaves"] not in LEAVES:
            raise ValueError(f"leaves must be one of {LEAVES}, got {params['leaves']!r}")
        if train.quantizer.border_count != int(params["border_count"]):
            raise ValueError(f"rows quantised with {train.quantizer.border_count} borders, "
                             f"the parameters ask for {params['border_count']}")
        self.grower = Grower(train.codes, train.quantizer.n_bins_, train.quantizer.offsets_,
                             depth, float(params["learning_rate"]),
                             float(params["l2_leaf_reg"]), float(params["random_strength"]),
                             params["bootstrap"], float(params["subsample"]),
                             float(params["bagging_temperature"]), params["score"] == "cosine",
                             Random(params["seed"]), params["leaves"] == "sampled",
                             int(params["leaf_iterations"]), bool(params["strength_decay"]))
        self.booster = ObliviousBooster(train.quantizer, depth)
        self.scores = np.zeros(train.codes.shape[1])
        self.held_out = HeldOut(np.empty((train.codes.shape[0], 0), np.uint8) if valid is None
                                else valid.codes,
                                None if valid is None else valid.is_pos, windows)
        self.valid, self.on_round, self.depth = valid, on_round, depth
        # the pointwise log-loss grows in the kernel's own loop, without the GIL
        self.objective = (objectives.WindowObjective(train.is_pos, fpr_range, loss, 0.0)
                          if loss_row(loss).window else None)
        self.y = train.is_pos.astype(np.float64)
        self.done = False

    def advance(self, n_rounds):
        """Grow up to ``n_rounds`` more trees (fewer when ``on_round`` stops); True
        once stopped."""
        depth, n_leaves = self.depth, 1 << self.depth
        t = 0
        while t < n_rounds and not self.done:
            # log-loss: a chunk of rounds without the GIL (ROUNDS_PER_CALL), then its
            # held-out figures handed to on_round round by round; trees grown past a
            # stop are dropped, so the result does not depend on the chunk
            k = min(ROUNDS_PER_CALL if self.objective is None else 1, n_rounds - t)
            features, borders = np.empty((k, depth), np.int32), np.empty((k, depth), np.int32)
            values, gains = np.empty((k, n_leaves)), np.empty((k, depth))
            losses, criteria = np.empty(k), np.empty(k)
            if self.objective is None:
                self.grower.grow_logloss(self.y, self.scores, k, features, borders, values,
                                         gains, self.held_out, losses, criteria)
            else:
                grad, hess = self.objective.gradient(self.scores)
                self.grower.grow(np.ascontiguousarray(grad, dtype=np.float64),
                                 np.ascontiguousarray(hess, dtype=np.float64), self.scores,
                                 features, borders, values, gains, self.held_out, losses,
                                 criteria)
            if self.valid is not None and self.on_round is not None:
                for r in range(k):
                    if self.on_round(losses[r], criteria[r]):
                        k, self.done = r + 1, True
                        break
            self.booster.add(features[:k], borders[:k], values[:k], gains[:k])
            t += k
        return self.done


def boost(params, loss, fpr_range, n_rounds, X, is_pos, valid=None, on_round=None,
          valid_is_pos=None, windows=()):
    """Grow up to ``n_rounds`` oblivious trees on ``(X, is_pos)`` for ``loss``
    (:class:`ObliviousSession` on rows quantised here; ``valid``: held-out ``X``
    with labels ``valid_is_pos``).

    Returns
    -------
    ObliviousBooster
    """
    train = ObliviousRows.of(X, is_pos, params)
    session = ObliviousSession(params, loss, fpr_range, train,
                               None if valid is None else train.like(valid, valid_is_pos),
                               on_round, windows)
    session.advance(n_rounds)
    return session.booster


class _EngineSession(Session):
    """pauc's oblivious trees (:class:`pauc.gbm.engines._oblivious.ObliviousSession`):
    the kernel scores the held-out rows and computes their log-loss and
    criterion; the kept round's scores are predicted from the codes when asked."""

    def __init__(self, engine, params, loss, fpr_range, cap, train, valid, criterion,
                 stopping, log):
        super().__init__(engine, cap, valid, criterion, stopping, log)
        self._with_logloss = stopping is not None and stopping.rule == "logloss"
        evaluated = valid is not None and stopping is not None
        self._inner = ObliviousSession(
            params, loss, fpr_range, train, valid, self._on_round if evaluated else None,
            () if criterion is None or valid is None else criterion.windows)
        self.booster = self._inner.booster

    def _on_round(self, loss_va, value):
        # the kernel's held-out log-loss and criterion (the same windows and walk as
        # criterion.value: pauc.gbm.engines._oblivious_tree.HeldOut)
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
    """pauc's own oblivious trees (:mod:`pauc.gbm.engines._oblivious`): any loss,
    CatBoost's tree shape, score function, random strength and bootstrap.  Its
    parameters are its own (``OBLIVIOUS_DEFAULTS``), not the estimator's
    LightGBM-named tree parameters; one thread per fit (the folds run in
    parallel threads, and the kernels release the GIL)."""

    name = "oblivious"
    # a candidate's engine only: its parameters are its own, not the estimator's
    selectable = False
    rows_type, session_type = ObliviousRows, _EngineSession

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


    def grew(self, booster):
        return isinstance(booster, ObliviousBooster)
