"""``GradientBoostingRanker.fit`` as free functions over a plan, for every engine.

The estimator turns its parameters and the training rows' class counts into one
:class:`Plan` and calls :func:`fit_plan`; the rows stay behind a *trainer*, the one
object that knows where they are:

* :class:`pauc.gbm._local_trainer.LocalTrainer`: rows in memory, each (candidate,
  fold) boosted by an in-process engine (:mod:`pauc.gbm.engines`) in
  parallel threads;
* the cluster's trainer (``pauc.distributed``, handed over under
  ``"boosting_trainer"`` by :mod:`pauc._dispatch`): rows on dask workers, one
  fold-coded ``xgboost.dask`` matrix, every round on the exact global window.

A trainer answers five requests (:class:`Trainer`); everything else -- the
rules of ``cv``, the rounds, the stopping rule, the pooling of out-of-fold
scores, the selection, the refit, the fitted model -- is written once here,
so that a rule cannot drift between engines.  The results are records
(:class:`FoldFit`, :class:`CandidateFit`, :class:`Selection`, :class:`Fitted`)
and the fitted model is a :class:`Model` of :class:`FoldBag` members, which
predict like LightGBM's ``CVBooster``.

References
----------
Caruana, R., Niculescu-Mizil, A., Crew, G. and Ksikes, A. "Ensemble Selection
from Libraries of Models." ICML 2004.

Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace

import numpy as np

from .._threshold import operating_threshold
from ._candidates import FIXED_RATE_ROUNDS
from ._crossfit import check_fold_counts, n_folds
from .engines import engine_of, get_engine
from ._race import Race
from ._selection import (RankScale, blend, bootstrap_criteria, criterion,
                         cross_fitted_ensemble, fold_quantiles, select, win_shares)
from ._stopping import PooledStopping, Stopping, validation_windows

__all__ = ["Plan", "Trainer", "FoldFit", "FoldBag", "CandidateFit", "Selection", "Model",
           "Fitted", "fit_plan", "select_candidates", "SELECTION_CONFIDENCE",
           "BOOTSTRAP_ROUNDS", "SMOOTHING_DIVISOR", "ENSEMBLE_STEPS"]

# A candidate replaces the reference (the first candidate) only if its out-of-fold
# criterion is higher and it beats the reference on this share of paired bootstrap
# resamples (about one standard error).  With LightGBM's log-loss as the reference of
# small data this bar cost test pAUC (measured: docs/developer/measurements.rst, 'The
# selection bar'); with the oblivious trees as that reference it keeps them where a
# small set's out-of-fold rows cannot tell the candidates apart.
SELECTION_CONFIDENCE = 0.84
# Thin evidence (pauc.gbm._candidates.thin_evidence) on a saturated window: where the
# reference's pooled out-of-fold criterion, one standard error below its value, lies
# at least this share of the way from chance to perfect ((v - c) / (1 - c), c the
# criterion of a random ranker: (alpha + beta) / 2 per window), the fixed budget
# (CatBoost's 1000 rounds, FIXED_RATE_ROUNDS) is not cross-fitted but boosted once on
# every row and kept: there the held-out positives sit almost all above the window's
# negatives, the candidates tie and the bar cannot choose, stopping on the held-out
# log-loss ends while the margins still grow, and each fold model misses a fifth of
# the positives (the fixed budget's fold bag trails CatBoost as much as the stopped
# reference does; on every row it is CatBoost).  The reference's criterion splits the
# thin sets in two, near 1 on the near-separable ones and far below this share on the
# noisy ones, where stopping leads (measured: docs/developer/measurements.rst, 'A
# saturated window').
SATURATED_CRITERION = 0.9
BOOTSTRAP_ROUNDS = 100
# The held-out criterion is averaged over n_iter_no_change // SMOOTHING_DIVISOR
# rounds before a window candidate is stopped (pauc.gbm._stopping.Stopping).
SMOOTHING_DIVISOR = 4
# Greedy ensemble selection: steps of Caruana et al.'s forward selection.
ENSEMBLE_STEPS = 20


# ---------------------------------------------------------------------- the plan

@dataclass(frozen=True)
class Plan:
    """Everything a fit decides before it boosts, for any trainer.

    Attributes
    ----------
    fpr_range : (float, float)
    pool : tuple of pauc.gbm._candidates.Candidate
        The candidates, the reference first (one candidate without stopping).
    engine : str
        The engine of the candidates that name none (the estimator's).
    base : dict
        The estimator's tree parameters in LightGBM's names.
    stopping : bool
        Cross-fit and stop on held-out folds; False: ``rounds`` on every row.
    rounds : int
        The cap of rounds with stopping, the number of rounds without.
    patience : int
        ``n_iter_no_change``.
    cv, validation_fraction
        The estimator's (their one interpretation: :meth:`n_folds`,
        :meth:`check_folds`).
    refit : bool
    n_threads : int
        The threads of the whole fit (``n_jobs``, None = 1, -1 = all).
    fold_seed, seed, boot_seed : int
        The folds', the engines' (fold ``k`` boosts with ``seed + k``) and the
        selection bootstrap's seeds.
    verbose : int
    racing : bool
        Race the candidates (:mod:`pauc.gbm._race`; False: every candidate on
        every fold).
    pooled : bool
        Stop each candidate on the evidence of every fold
        (:class:`~pauc.gbm._stopping.PooledStopping`: one round for all its
        fold models) where a trainer boosts the folds side by side (in memory;
        the cluster boosts one fold at a time, each stopped on its own held-out
        rows); False: each fold on its own.
    """

    fpr_range: tuple
    pool: tuple
    engine: str
    base: dict = field(hash=False)
    stopping: bool
    rounds: int
    patience: int
    cv: object
    validation_fraction: float
    refit: bool
    n_threads: int
    fold_seed: int
    seed: int
    boot_seed: int
    verbose: int = 0
    racing: bool = True
    pooled: bool = True

    def engine_of(self, candidate):
        """The in-process engine of ``candidate``: its own, else the estimator's."""
        return get_engine(candidate.engine or self.engine)

    def params(self, candidate, fold, n_threads):
        """``candidate``'s engine parameters for fold ``fold`` (0 on every row)."""
        return self.engine_of(candidate).params(self.base, candidate.config,
                                                self.seed + fold, n_threads)

    def learning_rate(self, candidate):
        """``candidate``'s learning rate: its own, else the estimator's."""
        return float(candidate.config.get("learning_rate", self.base["learning_rate"]))

    def stopping_rule(self, candidate, criterion_name, stops=True):
        """A fresh :class:`~pauc.gbm._stopping.Stopping` of ``candidate`` on one fold:
        the held-out criterion is smoothed over ``patience // SMOOTHING_DIVISOR``
        rounds (``stops=False``: the fold records its curve for a pooled rule)."""
        return Stopping(criterion_name, candidate.rule, self.patience,
                        max(1, self.patience // SMOOTHING_DIVISOR),
                        self.learning_rate(candidate), stops)

    def pools(self, candidate, n_splits):
        """Whether ``candidate``'s folds stop together (:attr:`pooled`, several
        folds, a stopping rule)."""
        return self.pooled and n_splits > 1 and candidate.rule != "fixed"

    def pooled_stopping(self, candidate, held_out_sizes):
        """A fresh :class:`~pauc.gbm._stopping.PooledStopping` of ``candidate``
        over folds of ``held_out_sizes`` held-out rows."""
        name = "pooled" if candidate.rule == "window" else None
        return PooledStopping(self.stopping_rule(candidate, name), held_out_sizes)

    def windows(self, n_neg):
        """The windows of the held-out criterion on ``n_neg`` held-out negatives."""
        return validation_windows(n_neg, self.fpr_range)

    def n_folds(self, n_pos, n_neg):
        """``cv`` as a number of folds (1: one validation split); None for a splitter."""
        return n_folds(self.cv, n_pos, n_neg, self.fpr_range, self.validation_fraction)

    def check_folds(self, k, train_counts, held_counts, totals):
        """Refuse folds whose parts lack a class or whose window lacks a negative;
        ``*_counts[i] = (positives, negatives)`` of fold ``i``'s parts, ``totals``
        the data's (``k``: :meth:`n_folds`'s answer, None for a splitter)."""
        check_fold_counts(self.cv if k is None else k, self.validation_fraction,
                          self.fpr_range, train_counts, held_counts, totals)


# ---------------------------------------------------------------------- records

@dataclass
class FoldFit:
    """One candidate boosted on one fold's training part, stopped on its held-out
    part (or dropped from the race: no held-out scores)."""
    booster: object
    rounds: int                     # kept
    history: np.ndarray
    held_out_scores: np.ndarray     # raw, in the order of the trainer's held-out rows
    seconds: float
    boosted: int = 0                # rounds boosted
    pooled: bool = False            # ended at a round pooled over the folds


class FoldBag:
    """A candidate's boosters (one per fold, or one on every row) and their kept
    rounds; predicts their mean raw score (fold bagging, as LightGBM's
    ``CVBooster``)."""

    def __init__(self, boosters, rounds):
        self.boosters, self.rounds = list(boosters), [int(n) for n in rounds]

    def predict(self, X, n_threads=None):
        """The mean raw score of the boosters, each at its kept round (``n_threads``:
        the engine's prediction threads, None for each booster's training count)."""
        total = 0.0
        for b, n in zip(self.boosters, self.rounds):
            total = total + engine_of(b).predict(b, X, n, n_threads)
        return total / len(self.boosters)

    def gains(self, n_features):
        """Per feature, the boosters' mean share of the total split gain."""
        gain = np.zeros(n_features)
        for b, n in zip(self.boosters, self.rounds):
            g = engine_of(b).gains(b, n, n_features)
            if g.sum() > 0:
                gain += g / g.sum() / len(self.boosters)
        return gain


@dataclass
class CandidateFit:
    """One boosted candidate over every fold.

    ``oof``: each row of the trainer's label vector scored by the fold model
    that did not see it, as its quantile among its fold's held-out scores
    (averaged where a splitter held a row out twice; NaN where no fold held it
    out); ``raw``: the raw held-out scores of the rows some fold held out, the
    reference of the candidate's :class:`~pauc.gbm._selection.RankScale`;
    ``folds``: each fold model's raw scores of its held-out rows."""
    candidate: object
    bag: FoldBag
    oof: np.ndarray = None
    raw: np.ndarray = None
    folds: list = None
    history: np.ndarray = None
    seconds: float = 0.0
    cross_fitted: bool = True     # False: boosted on every row only (a saturated window)
    stopping: str = None          # "pooled", "per fold" or "fixed" when cross-fitted


@dataclass
class Selection:
    """The candidates and blends judged on the pooled out-of-fold rows."""
    windows: list
    names: list            # boosted candidates first, then the blends
    weights: list          # per entry, its weight on each boosted candidate
    values: np.ndarray     # the pooled out-of-fold criterion
    std_errors: np.ndarray
    shares: np.ndarray     # share of resamples beating the reference
    kept: int
    every_row: bool = False   # the kept entry was boosted on every row, unjudged


class Model:
    """The fitted model: ``members = [(name, weight, FoldBag)]``.  One member: its
    mean raw score; several: the weighted mean of each member's score mapped to
    its normalised out-of-fold rank (``scales``)."""

    def __init__(self, members, scales=None):
        self.members, self.scales = members, scales or {}

    def predict(self, X, n_threads=None):
        """Raw scores (one member) or the weighted mean of the members' normalised
        ranks."""
        return self.combine([bag.predict(X, n_threads) for _, _, bag in self.members])

    def combine(self, scores):
        """The model's score from each member's raw score (``scores``, in member
        order): the one member's, or the weighted mean of their normalised ranks."""
        if len(self.members) == 1:
            return scores[0]
        return sum(w * self.scales[n](s) for (n, w, _), s in zip(self.members, scores))


@dataclass
class Fitted:
    """What :func:`fit_plan` returns; the estimator publishes it."""
    model: Model
    fits: dict               # name -> CandidateFit of the race's survivors, pool order
    n_splits: int
    plan: Plan
    selection: Selection = None
    seconds: dict = field(default_factory=dict)
    boosted: dict = field(default_factory=dict)   # name -> rounds boosted per fold
    dropped: dict = field(default_factory=dict)   # name -> pauc.gbm._race.Drop

    def held_out_folds(self):
        """Per fold, the model's score of the rows it held out by that fold's
        models (:meth:`Model.combine` of its members' raw held-out scores); None
        where a member is not a candidate's fold bag."""
        fits = [self.fits.get(name) for name, _, _ in self.model.members]
        if any(f is None or f.folds is None or f.bag is not bag
               for f, (_, _, bag) in zip(fits, self.model.members)):
            return None
        return [self.model.combine([f.folds[k] for f in fits])
                for k in range(len(fits[0].folds))]


class Trainer(ABC):
    """Where the rows are: the five requests :func:`fit_plan` makes (module docstring).

    ``labels`` is the boolean label vector of the rows that can be held out
    (every training row in memory; a cluster's held-out rows), the index space
    of :meth:`held_out_rows` and of the out-of-fold scores; ``counts`` the
    training rows' ``(positives, negatives)``."""

    labels = None
    counts = None

    @abstractmethod
    def split(self, plan):
        """Assign the folds by ``plan``'s rules; return their number (1: one split)."""

    @abstractmethod
    def held_out_rows(self, k):
        """Indices into ``labels`` of fold ``k``'s held-out rows."""

    @abstractmethod
    def boost_folds(self, plan, race):
        """The candidates of ``plan.pool`` on the folds, racing
        (:class:`pauc.gbm._race.Race`: its ``alive`` candidates are boosted, its
        checks drop others): per candidate name, its :class:`FoldFit` of each
        fold (None where it was not boosted; no held-out scores where it was
        dropped during the fold)."""

    @abstractmethod
    def boost_all(self, plan, candidate, n_rounds):
        """``candidate`` boosted ``n_rounds`` rounds on every row: a :class:`FoldBag`."""

    @abstractmethod
    def threshold(self, plan, model, operating_fpr):
        """The score threshold of ``model`` at the FPR ``operating_fpr`` of its
        scores of the training rows (None: Youden's point), scored with the
        plan's threads; for a model boosted on every row
        (:func:`operating_threshold_of`)."""


# --------------------------------------------------------------------- the fit

def operating_threshold_of(fitted, trainer, operating_fpr):
    """``threshold_``.  A bag of fold models: the mean over the folds of the
    operating threshold (:func:`pauc._threshold.operating_threshold`) of the
    fold's held-out rows, scored by the fold's models
    (:meth:`Fitted.held_out_folds`) -- rows the models did not see, so that
    the FPR kept estimates that of new rows, where the training rows' own
    scores sit lower for the negatives the models learnt; and the mean of the
    folds' thresholds, not one threshold of their pooled scores, because the
    bag's score is the mean of its fold models' and a window loss stopped fold
    by fold leaves each on its own scale (measured in
    ``docs/developer/measurements.rst``).  A model boosted on every row
    (``refit``, a fixed budget): the threshold of its training scores."""
    folds = fitted.held_out_folds()
    if folds is None:
        return trainer.threshold(fitted.plan, fitted.model, operating_fpr)
    return float(np.mean([operating_threshold(scores, trainer.labels[trainer.held_out_rows(k)],
                                              operating_fpr)
                          for k, scores in enumerate(folds)]))


def fit_plan(plan, trainer):
    """Boost, cross-fit, select and bag by ``plan`` on ``trainer``'s rows."""
    if not plan.stopping:
        return _fit_fixed(plan, trainer)
    n_splits = trainer.split(plan)
    held_out = [trainer.held_out_rows(k) for k in range(n_splits)]
    own, fits, dropped = {}, {}, {}
    pos = covered = None
    for stage in _stages(plan.pool):
        if fits and _fixed_on_every_row(plan, stage):
            judged = select_candidates(plan, fits, pos, covered)
            if _saturated(judged):
                return _saturated_fit(plan, trainer, n_splits, own, fits, dropped,
                                      judged, stage[0])
        race = Race([c.name for c in stage], trainer.labels, held_out, plan.windows,
                    plan.rounds, plan.boot_seed + 1, BOOTSTRAP_ROUNDS, plan.racing,
                    one_phase=plan.pooled)
        own.update(trainer.boost_folds(replace(plan, pool=stage), race))
        dropped.update(race.dropped)
        fits.update({c.name: _pool(c, own[c.name], trainer, n_splits)
                     for c in stage if c.name in race.alive})
        covered = ~np.isnan(next(iter(fits.values())).oof)
        pos = trainer.labels[covered]
    _report(plan, fits, dropped)
    selection = select_candidates(plan, fits, pos, covered)
    members = [(n, float(w), fits[n].bag)
               for n, w in zip(fits, selection.weights[selection.kept]) if w > 0]
    scales = {n: RankScale(f.raw) for n, f in fits.items()} if len(fits) > 1 else {}
    fitted = Fitted(Model(members, scales), fits, n_splits, plan, selection,
                    _seconds(own), _boosted(own), dropped)
    if plan.refit:
        _refit(plan, trainer, fitted)
    return fitted


def _report(plan, fits, dropped):
    if plan.verbose:
        for name, f in fits.items():
            print(f"[GradientBoostingRanker] {name}: rounds {f.bag.rounds}, "
                  f"{f.seconds:.2f} s")
        for name, drop in dropped.items():
            print(f"[GradientBoostingRanker] {name}: dropped, {drop}")


def _stages(pool):
    """The pool's candidates in the order they are cross-fitted: together (they
    race), except the fixed budget of thin evidence, cross-fitted after the others
    only where the window is not saturated (:func:`_saturated`)."""
    fixed = tuple(c for c in pool if c.rule == "fixed")
    rest = tuple(c for c in pool if c.rule != "fixed")
    if len(fixed) > 1:
        raise RuntimeError("a pool holds one fixed budget at most")
    return [rest, fixed] if fixed and rest else [tuple(pool)]


def _fixed_on_every_row(plan, stage):
    """Whether ``stage`` is a fixed budget of CatBoost's length, which a saturated
    window boosts on every row instead of cross-fitting it (``SATURATED_CRITERION``;
    a shorter budget, ``n_estimators`` below ``FIXED_RATE_ROUNDS``, is under-trained at
    CatBoost's rate for 1000 rounds and left to the selection's bar)."""
    return (len(stage) == 1 and stage[0].rule == "fixed"
            and plan.rounds >= FIXED_RATE_ROUNDS)


def _saturated(judged):
    """Whether the reference's pooled out-of-fold criterion (``judged``: the
    selection of the cross-fitted candidates), one standard error below its value,
    reaches ``SATURATED_CRITERION`` of the way from chance to perfect."""
    chance = float(np.mean([(alpha + beta) / 2.0 for alpha, beta in judged.windows]))
    value = judged.values[0] - judged.std_errors[0]
    return bool((value - chance) / (1.0 - chance) >= SATURATED_CRITERION)


def _saturated_fit(plan, trainer, n_splits, own, fits, dropped, judged, fixed):
    """A saturated window: ``fixed`` (the fixed budget) boosted once on every row is
    the model; the selection records the reference's evidence (``judged``) and the
    fixed budget beside it, unjudged (NaN)."""
    if plan.verbose:
        print(f"[GradientBoostingRanker] window saturated ({judged.names[0]} "
              f"{judged.values[0]:.4f} +- {judged.std_errors[0]:.4f}): {fixed.name} "
              f"on every row")
    bag, seconds = _on_every_row(plan, trainer, fixed)
    # the fixed budget's entry follows the boosted candidates', which precede any
    # blend: judged must hold none (its blends need two candidates)
    if len(judged.names) != len(fits):
        raise RuntimeError("a saturated window is judged on the reference alone")
    fits[fixed.name] = CandidateFit(fixed, bag, seconds=seconds, cross_fitted=False)
    n, nan = len(fits), np.array([np.nan])
    selection = Selection(judged.windows, list(judged.names) + [fixed.name],
                          [np.append(w, 0.0) for w in judged.weights] + [np.eye(n)[n - 1]],
                          np.concatenate([judged.values, nan]),
                          np.concatenate([judged.std_errors, nan]),
                          np.concatenate([judged.shares, nan]), n - 1, True)
    _report(plan, fits, dropped)
    return Fitted(Model([(fixed.name, 1.0, bag)]), fits, n_splits, plan, selection,
                  dict(_seconds(own), **{fixed.name: seconds}), _boosted(own), dropped)


def _on_every_row(plan, trainer, candidate):
    """``candidate`` boosted ``plan.rounds`` rounds on every row: its bag and seconds."""
    start = time.perf_counter()
    bag = trainer.boost_all(plan, candidate, plan.rounds)
    return bag, time.perf_counter() - start


def _seconds(own):
    return {n: float(sum(f.seconds for f in own[n] if f is not None)) for n in own}


def _boosted(own):
    return {n: [0 if f is None else int(f.boosted) for f in own[n]] for n in own}


def _fit_fixed(plan, trainer):
    """No early stopping: the plan's one candidate on every row."""
    candidate = plan.pool[0]
    bag, seconds = _on_every_row(plan, trainer, candidate)
    fits = {candidate.name: CandidateFit(candidate, bag, seconds=seconds)}
    return Fitted(Model([(candidate.name, 1.0, bag)]), fits, 0, plan,
                  seconds={candidate.name: seconds})


def _pool(candidate, own, trainer, n_splits):
    """A candidate's fold fits as one :class:`CandidateFit`: its held-out scores
    pooled over the folds as fold quantiles."""
    n = trainer.labels.shape[0]
    covered = np.zeros(n, dtype=np.int64)
    quantiles, raw = np.zeros(n), np.zeros(n)
    for k, f in enumerate(own):
        rows = trainer.held_out_rows(k)
        covered[rows] += 1
        quantiles[rows] += fold_quantiles(f.held_out_scores)
        raw[rows] += f.held_out_scores
    held = covered > 0
    return CandidateFit(candidate, FoldBag([f.booster for f in own], [f.rounds for f in own]),
                        oof=np.where(held, quantiles / np.maximum(covered, 1), np.nan),
                        raw=raw[held] / covered[held], folds=[f.held_out_scores for f in own],
                        history=own[0].history,
                        seconds=float(sum(f.seconds for f in own)),
                        stopping=_stopping_of(candidate, own))


def _stopping_of(candidate, own):
    """How ``candidate``'s fold models were stopped (``cv_results_["stopping"]``), as
    their records say."""
    if candidate.rule == "fixed":
        return "fixed"
    return "pooled" if all(f.pooled for f in own) else "per fold"


def select_candidates(plan, fits, pos, rows):
    """The candidates' pooled out-of-fold criterion, their blends, the choice.

    ``fits``' out-of-fold scores on ``rows`` (the held-out rows, whose labels
    are ``pos``) are fold quantiles, normalised ranks already, so that they
    blend as they are: ``"blend"`` (log-loss and the exponential loss),
    ``"mean"`` (every candidate), ``"ensemble"`` (Caruana et al.'s greedy
    selection, judged on the half of the rows its weights were not chosen on).
    The reference (the first) is kept unless another beats it on
    ``SELECTION_CONFIDENCE`` of ``BOOTSTRAP_ROUNDS`` paired resamples
    (:func:`pauc.gbm._selection.select`)."""
    names = list(fits)
    oof = [fits[n].oof[rows] for n in names]
    windows = plan.windows(int((~pos).sum()))
    entries = [(n, np.eye(len(names))[i], s) for i, (n, s) in enumerate(zip(names, oof))]
    if len(names) > 1:
        if "logloss" in names and "exponential" in names:
            w = np.array([0.5 if n in ("logloss", "exponential") else 0.0 for n in names])
            entries.append(("blend", w, blend(oof, w)))
        if len(names) > 2:
            w = np.full(len(names), 1.0 / len(names))
            entries.append(("mean", w, blend(oof, w)))
        w, honest = cross_fitted_ensemble(oof, pos, plan.fpr_range,
                                          np.random.RandomState(plan.boot_seed), ENSEMBLE_STEPS)
        if np.count_nonzero(w) > 1:
            entries.append(("ensemble", w, honest))
    values = np.array([criterion(pos, s, windows) for _, _, s in entries])
    boot = bootstrap_criteria(pos, [s for _, _, s in entries], windows,
                              np.random.RandomState(plan.boot_seed), BOOTSTRAP_ROUNDS)
    kept = select(values, boot, SELECTION_CONFIDENCE, 0) if len(entries) > 1 else 0
    return Selection(windows, [e[0] for e in entries], [e[1] for e in entries], values,
                     boot.std(axis=0, ddof=1), win_shares(boot, 0), kept)


def _refit(plan, trainer, fitted):
    """``refit=True``: each kept candidate boosted again on every row for the mean
    of its fold rounds."""
    start = time.perf_counter()
    members = []
    for name, weight, bag in fitted.model.members:
        n_rounds = max(1, int(round(np.mean(bag.rounds))))
        members.append((name, weight,
                        trainer.boost_all(plan, fitted.fits[name].candidate, n_rounds)))
    fitted.model = Model(members, fitted.model.scales)
    fitted.seconds["refit"] = time.perf_counter() - start
