"""The folds of GradientBoostingRanker's cross-fitting: one reading of ``cv`` for every engine.

Each candidate is boosted on ``K - 1`` folds and stopped on the held-out fold;
the held-out fold's scores at the kept round are that candidate's out-of-fold
scores of those rows, from a model that never saw them.  The rules here are
read by the in-memory trainer (:mod:`pauc.gbm._local_trainer`) and by the
cluster's (through :class:`pauc.gbm._plan.Plan`): :func:`n_folds` turns ``cv``
into a number of folds and :func:`check_fold_counts` refuses folds that cannot
stop a candidate (naming ``cv``, or the number of folds ``"auto"`` chose);
:func:`plan_folds` draws in-memory folds.  ``cv="auto"`` holds out one
stratified validation split of ``validation_fraction`` only where that split's
window already holds ``SINGLE_SPLIT_MIN`` negatives and as many positives;
elsewhere it takes 5 folds up to ``SMALL_DATA_ROWS`` rows and 3 above (fewer
training rows per fold cost more on small data), and never more folds than
positives, so that every held-out fold holds one.
"""

import numpy as np
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from .._validation import indices_among

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


def n_folds(cv, n_pos, n_neg, fpr_range, validation_fraction):
    """The number of folds of ``cv`` (1: one validation split; None: a splitter's own).

    Raises
    ------
    ValueError
        When an int ``cv >= 2`` asks for more folds than a class has rows.
    """
    if cv == "auto":
        return auto_n_folds(n_pos, n_neg, fpr_range, validation_fraction)
    if not isinstance(cv, (int, np.integer)):
        return None
    if cv >= 2 and cv > min(n_pos, n_neg):
        raise ValueError(
            f"cv={cv} folds need at least {cv} rows of each class (each held-out "
            f"fold needs a positive and a negative); the data hold {n_pos} positives "
            f"and {n_neg} negatives: lower cv or pass cv='auto'")
    return int(cv)


def check_fold_counts(cv, validation_fraction, fpr_range, train_counts, held_counts, totals):
    """Refuse folds that cannot stop a candidate.

    ``train_counts[k]`` and ``held_counts[k]`` are the ``(positives, negatives)``
    of fold ``k``'s training and held-out parts, ``totals`` the data's.

    Raises
    ------
    ValueError
        When a fold's training or held-out part lacks a class, or the window
        selects no negative of a training part: the message names the fold,
        the part and its counts.
    """
    n_pos, n_neg = (int(v) for v in totals)
    for k, (train, held) in enumerate(zip(train_counts, held_counts)):
        for part, (p, n) in (("training", train), ("held-out", held)):
            if p == 0 or n == 0:
                raise ValueError(
                    f"fold {k} of cv={cv!r}: its {part} part holds {int(p)} positives and "
                    f"{int(n)} negatives; boosting and stopping need both classes in both "
                    f"parts (validation_fraction={validation_fraction} of {n_pos} "
                    f"positives and {n_neg} negatives): change cv or "
                    "validation_fraction, or pass early_stopping=False")
        indices_among(int(train[1]), fpr_range, f"negatives of the training part of fold {k}")


def plan_folds(cv, validation_fraction, X, is_pos, fpr_range, seed):
    """``[(train_rows, held_out_rows), ...]`` for ``cv`` (int, splitter or "auto"):
    stratified K-fold (shuffled, seeded), one stratified validation split, or the
    splitter's ``split(X, is_pos)``; checked by :func:`check_fold_counts`."""
    n_pos = int(is_pos.sum())
    n_neg = is_pos.shape[0] - n_pos
    k = n_folds(cv, n_pos, n_neg, fpr_range, validation_fraction)
    if k == 1:
        splitter = StratifiedShuffleSplit(1, test_size=validation_fraction, random_state=seed)
    elif k is not None:
        splitter = StratifiedKFold(k, shuffle=True, random_state=seed)
    else:
        splitter = cv
    # each part in increasing row order (LightGBM's subsets keep that order)
    folds = [(np.sort(a), np.sort(b)) for a, b in splitter.split(X, is_pos)]

    def counts(rows):
        p = int(is_pos[rows].sum())
        return p, rows.shape[0] - p
    check_fold_counts(cv if k is None else k, validation_fraction, fpr_range,
                      [counts(a) for a, _ in folds], [counts(b) for _, b in folds],
                      (n_pos, n_neg))
    return folds
