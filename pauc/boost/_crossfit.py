"""K-fold cross-fitting of GradientBoostingRanker's candidates.

Each candidate is boosted on ``K - 1`` folds and stopped on the held-out fold
(:class:`pauc.boost._stopping.Stopping`); the held-out fold's scores at the kept
round are that candidate's out-of-fold (OOF) scores of those rows, from a model
that never saw them.  The (candidate, fold) fits are independent and run in
parallel threads (LightGBM and XGBoost release the GIL while they grow a
tree); each has its own seed and both engines are deterministic, so the
result does not depend on the number of threads.  Every training call goes
through the engine (:mod:`pauc.boost._engines`).

:func:`plan_folds` turns ``cv`` into folds.  ``cv="auto"`` holds out one
stratified validation split of ``validation_fraction`` only where that split's
window already holds ``SINGLE_SPLIT_MIN`` negatives and as many positives;
elsewhere it takes 5 folds up to ``SMALL_DATA_ROWS`` rows and 3 above (fewer
training rows per fold cost more on small data), and never more folds than
positives, so that every held-out fold holds one.
"""

import time
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from .._validation import indices_among
from ._stopping import Stopping, ValidationCriterion, validation_windows

# cv="auto": a single validation split when its window holds this many negatives
# and it holds this many positives
SINGLE_SPLIT_MIN = 1000
# cv="auto": SMALL_DATA_FOLDS folds up to SMALL_DATA_ROWS rows, LARGE_DATA_FOLDS above
SMALL_DATA_ROWS = 10_000
SMALL_DATA_FOLDS = 5
LARGE_DATA_FOLDS = 3


def auto_n_folds(n_pos, n_neg, fpr_range, validation_fraction):
    """The number of folds of ``cv="auto"`` (1: one validation split)."""
    alpha, beta = fpr_range
    if (validation_fraction * n_neg * (beta - alpha) >= SINGLE_SPLIT_MIN
            and validation_fraction * n_pos >= SINGLE_SPLIT_MIN):
        return 1
    n_folds = SMALL_DATA_FOLDS if n_pos + n_neg <= SMALL_DATA_ROWS else LARGE_DATA_FOLDS
    return min(n_folds, n_pos, n_neg)


def plan_folds(cv, validation_fraction, X, is_pos, fpr_range, seed):
    """``[(train_rows, held_out_rows), ...]`` for ``cv`` (int, splitter or "auto").

    Raises
    ------
    ValueError
        When a fold's training or held-out part lacks a class, or the window
        selects no negative of a training part: the message names the fold,
        the part and its counts.
    """
    n_pos = int(is_pos.sum())
    n_neg = is_pos.shape[0] - n_pos
    if cv == "auto":
        cv = auto_n_folds(n_pos, n_neg, fpr_range, validation_fraction)
    if isinstance(cv, (int, np.integer)):
        if cv == 1:
            splitter = StratifiedShuffleSplit(1, test_size=validation_fraction,
                                              random_state=seed)
        else:
            if cv > min(n_pos, n_neg):
                raise ValueError(
                    f"cv={cv} folds need at least {cv} rows of each class (each held-out "
                    f"fold needs a positive and a negative); the data hold {n_pos} positives "
                    f"and {n_neg} negatives: lower cv or pass cv='auto'")
            splitter = StratifiedKFold(int(cv), shuffle=True, random_state=seed)
    else:
        splitter = cv
    folds = [(np.asarray(a), np.asarray(b)) for a, b in splitter.split(X, is_pos)]
    for k, (train, held_out) in enumerate(folds):
        for part, rows in (("training", train), ("held-out", held_out)):
            p = int(is_pos[rows].sum())
            if p == 0 or p == rows.shape[0]:
                raise ValueError(
                    f"fold {k} of cv={cv!r}: its {part} part holds {p} positives and "
                    f"{rows.shape[0] - p} negatives; boosting and stopping need both classes "
                    "in both parts (validation_fraction="
                    f"{validation_fraction} of {n_pos} positives and {n_neg} negatives): "
                    "change cv or validation_fraction, or pass early_stopping=False")
        indices_among(int((~is_pos[train]).sum()), fpr_range,
                      f"negatives of the training part of fold {k}")
    return folds


@dataclass
class FoldFit:
    """One candidate boosted on one fold's training part."""
    booster: object
    rounds: int
    history: np.ndarray
    best: float
    held_out_scores: np.ndarray
    seconds: float


def boost_fold(engine, X, is_pos, train, held_out, candidate, params, n_rounds, fpr_range,
               patience, width, learning_rate, log=False, history=True):
    """Boost ``candidate`` with ``engine`` on the rows ``train``, stop it on
    ``held_out`` (:class:`Stopping`; ``learning_rate`` the candidate's).  A log-loss
    candidate computes the window criterion every round only with ``history`` (it
    stops on its log-loss: the criterion is for the record)."""
    start = time.perf_counter()
    X_tr, pos_tr, X_va, pos_va = X[train], is_pos[train], X[held_out], is_pos[held_out]
    criterion = ValidationCriterion(validation_windows(int((~pos_va).sum()), fpr_range), pos_va)
    if candidate.rule == "logloss" and not history:
        criterion = None
    stopping = Stopping(None if criterion is None else criterion.name, candidate.rule,
                        patience, width, learning_rate)
    booster = engine.boost(params, candidate.loss, fpr_range, n_rounds, (X_tr, pos_tr),
                           (X_va, pos_va), criterion=criterion, stopping=stopping, log=log)
    rounds = min(stopping.best_round, engine.n_rounds(booster))
    scores = engine.predict(booster, X_va, rounds)
    return FoldFit(booster, rounds, np.asarray(stopping.history, dtype=np.float64),
                   float(stopping.best), scores, time.perf_counter() - start)


def run_parallel(jobs, n_threads):
    """Run the ``(function, args, kwargs)`` jobs in ``min(n_threads, len(jobs))``
    threads, results in the jobs' order."""
    n_workers = max(1, min(n_threads, len(jobs)))
    if n_workers == 1:
        return [f(*a, **kw) for f, a, kw in jobs]
    return Parallel(n_jobs=n_workers, prefer="threads")(delayed(f)(*a, **kw) for f, a, kw in jobs)
