"""Early stopping of one candidate on one held-out fold.

The criterion (:class:`ValidationCriterion`) is the mean partial AUC
(``normalize="range"``, Narasimhan & Agarwal, eq. (2)) over the FPR window and,
when the held-out rows' window holds fewer than ``VALIDATION_MIN_NEGATIVES``
negatives, a widened window (:func:`validation_windows`): lower variance, the
same top of the list.  :class:`Stopping` records it every round and stops on it
(window losses) or on the held-out log-loss (log-loss candidates), whichever
engine boosts.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import numpy as np

from .. import metrics
from .._validation import empirical_indices

# The held-out log-loss counts as improved when it falls below its best by this share
# of its first round's value, per LOGLOSS_GAIN_RATE of learning rate (a slower learner
# gains less per round).  On separable data it falls forever by ever smaller steps
# that no longer move the ranking: a share of the *best* value shrinks with it, and
# a reference stopped that way ran to the round cap on separable data for no test
# pAUC (measured: docs/developer/measurements.rst, 'The log-loss rule's least gain').
LOGLOSS_MIN_GAIN = 1e-3
LOGLOSS_GAIN_RATE = 0.1
# The log-loss rule's patience is relative to its best round, at least this many
# rounds (and at most the estimator's n_iter_no_change): on small data LightGBM's
# held-out log-loss is least after a few rounds and then only rises, and a hundred
# more rounds cost more than the whole model (measured:
# docs/developer/measurements.rst, 'The GIL-free round loop').
LOGLOSS_MIN_PATIENCE = 20
# Stop a candidate's folds on the evidence of every fold (PooledStopping) where the
# trainer boosts them side by side and the training rows hold fewer than
# POOLED_MAX_POSITIVES positives; False: each fold on its own held-out rows (the
# reference of the benchmarks).  Where a fold holds a dozen positives the pooled
# round gains test pAUC; with thousands of positives it gains little and costs fit
# time: all folds in one phase of the race (a loser runs on every fold until
# dropped, not on the first alone) and the kept round that of the slowest folds
# (measured: docs/developer/measurements.rst, 'One stopping round for every fold').
POOLED = True
POOLED_MAX_POSITIVES = 1000


def pooled_round(n_pos):
    """Whether a fit on ``n_pos`` training positives stops each candidate's folds
    together (:data:`POOLED`, fewer than ``POOLED_MAX_POSITIVES`` positives)."""
    return bool(POOLED) and n_pos < POOLED_MAX_POSITIVES
# A window with fewer held-out negatives is averaged with a widened one.
VALIDATION_MIN_NEGATIVES = 100


def validation_windows(n_neg, fpr_range):
    """The windows averaged by the criterion for ``n_neg`` held-out negatives:
    the FPR window alone when it holds at least ``VALIDATION_MIN_NEGATIVES`` of
    them (or reaches FPR 1), else also ``(alpha, beta')`` with ``beta'`` the FPR
    of ``floor(n alpha) + 100`` negatives."""
    alpha, beta = fpr_range
    j_alpha, j_beta = empirical_indices(n_neg, fpr_range)
    if j_beta - j_alpha >= VALIDATION_MIN_NEGATIVES or beta >= 1.0:
        return [fpr_range]
    wide = min(1.0, (j_alpha + VALIDATION_MIN_NEGATIVES) / n_neg)
    return [fpr_range, (alpha, wide)] if wide > beta else [fpr_range]


class ValidationCriterion:
    """Mean partial AUC over ``windows`` of the held-out rows ``is_pos``; also
    LightGBM's ``feval`` (the labels are checked once here, not every round)."""

    def __init__(self, windows, is_pos):
        self.windows = windows
        self.is_pos = np.ascontiguousarray(is_pos, dtype=np.bool_)
        self.name = "+".join(f"pauc[{a:g},{b:g}]" for a, b in windows)

    def value(self, is_pos, scores):
        scores = np.asarray(scores, dtype=np.float64).ravel()
        return metrics.mean_partial_auc(is_pos, scores, self.windows, check_input=False)

    def __call__(self, preds, data):
        return self.name, self.value(self.is_pos, preds), True


def middle_of_stretch(end, width):
    """The kept round (1-based) of a best trailing stretch ending at round
    ``end`` (0-based): its middle.  A stretch that ends before ``width``
    rounds holds rounds ``0 .. end`` only, so its middle is ``end // 2``."""
    start = max(0, end - width + 1)
    return (start + end) // 2 + 1


class Stopping:
    """The stopping rule: record the criterion every round, stop on it or on log-loss.

    ``rule="window"``: the criterion averaged over the last ``width`` rounds
    (a trailing mean, so that one lucky round -- a fold's window holds few
    negatives and its pAUC jumps by whole positives -- neither stops the
    boosting nor becomes the kept model); the kept round is the middle of the
    best stretch (:func:`middle_of_stretch`).  ``rule="logloss"``: the round of
    least held-out log-loss, a new least only when it falls below the best so
    far by ``LOGLOSS_MIN_GAIN`` of the first round's log-loss, scaled by
    ``learning_rate / LOGLOSS_GAIN_RATE``.  ``rule="fixed"``: no stopping, every
    round kept (a fixed budget; the criterion is recorded).  Boosting stops once the rule has
    not improved for ``patience`` rounds; the log-loss rule's patience is
    relative: as many rounds as its best round took, at least
    ``LOGLOSS_MIN_PATIENCE``, at most ``patience``.

    Each engine's callback (:mod:`pauc.gbm.engines`) calls :meth:`update`
    after every round and stops the boosting when it returns True.  A fold of
    a candidate whose round is chosen on every fold's evidence
    (:class:`PooledStopping`) records its curve and never stops itself
    (``stops=False``).

    Parameters
    ----------
    criterion_name : str or None
        The criterion's name (None: not recorded).
    rule : {"window", "logloss", "fixed"}
    patience : int
    width : int
        Rounds of the window rule's trailing mean.
    learning_rate : float, default=LOGLOSS_GAIN_RATE
        The candidate's learning rate (scales the log-loss rule's least gain).
    stops : bool, default=True
        False: :meth:`update` never stops the boosting (the kept round so far
        is still followed).

    Attributes
    ----------
    history : list of float
        The criterion after every round (none recorded when ``criterion_name``
        is None: a log-loss rule does not need it).
    losses : list of float
        The held-out log-loss after every round (the log-loss rule's only).
    best_round : int
        The kept number of rounds (1-based).
    best : float
        The criterion at the kept stretch (its trailing mean) or round.
    improved : bool
        Whether the last :meth:`update` moved the kept round.
    """

    def __init__(self, criterion_name, rule, patience, width, learning_rate=LOGLOSS_GAIN_RATE,
                 stops=True):
        self.criterion_name, self.rule = criterion_name, rule
        self.patience, self.width, self.stops = patience, width, bool(stops)
        self.min_gain = LOGLOSS_MIN_GAIN * learning_rate / LOGLOSS_GAIN_RATE
        self._loss_first = None
        self.history, self.losses = [], []
        self._t = -1
        self._best, self._best_end = -np.inf, 0
        self._loss_best, self._loss_end = np.inf, 0
        self.improved = False

    @property
    def best_round(self):
        if self.rule == "fixed":
            return self._t + 1
        if self.rule == "logloss":
            return self._loss_end + 1
        return middle_of_stretch(self._best_end, self.width)

    @property
    def best(self):
        if self.rule == "fixed":
            return self.history[-1] if self.history else np.nan
        if self.rule == "logloss":
            return self.history[self._loss_end] if self.history else np.nan
        return self._best

    @property
    def rounds(self):
        """Rounds recorded."""
        return self._t + 1

    @property
    def deadline(self):
        """The rounds after which the rule stops unless the kept round moves
        (None: it never stops)."""
        if self.rule == "fixed":
            return None
        if self.rule == "logloss":
            return self._loss_end + self._loss_patience() + 1
        return self._best_end + self.patience + 1

    def _loss_patience(self):
        return min(self.patience, max(LOGLOSS_MIN_PATIENCE, self._loss_end + 1))

    def update(self, value, logloss=None):
        """Record one round's held-out criterion ``value`` (None when not computed)
        and held-out ``logloss`` (read by the log-loss rule); True: stop."""
        self._t += 1
        t = self._t
        self.improved = False
        if self.criterion_name is not None:
            self.history.append(value)
        if self.rule == "fixed":
            self.improved = True
            return False
        if self.rule == "logloss":
            self.losses.append(logloss)
            if self._loss_first is None:
                self._loss_first = abs(logloss)
            if logloss < self._loss_best - self.min_gain * self._loss_first:
                self._loss_best, self._loss_end = logloss, t
                self.improved = True
            return self.stops and t - self._loss_end >= self._loss_patience()
        mean = float(np.mean(self.history[max(0, t + 1 - self.width):]))
        if mean > self._best:
            self._best, self._best_end = mean, t
            self.improved = True
        return self.stops and t - self._best_end >= self.patience


class PooledStopping:
    """A candidate's stopping rule on the evidence of every fold: its round is
    chosen on the *pooled* out-of-fold curve, and every fold model ends there.

    A fold's stopping round rests on its own held-out rows -- on small data a
    dozen positives, whose curve peaks early by chance as often as not -- and
    each fold then keeps a different round.  Here the folds boost side by side
    and record their curves without stopping (``Stopping(stops=False)``); the
    rule (``rule``, a fresh :class:`Stopping`) reads, round by round, the
    curve of every held-out row of every fold: for the log-loss rule the
    pooled held-out log-loss (each fold's mean log-loss weighted by its
    held-out rows: the log-loss of all of them), for the window rule the
    folds' mean window criterion (each fold's partial AUC over its own
    windows, Narasimhan & Agarwal eq. (2)).  When it stops, or the folds reach
    the cap, every fold keeps ``best_round``; no fold boosts past
    :attr:`deadline`, the round where the pooled rule stops unless it improves.

    Parameters
    ----------
    rule : Stopping
        The rule applied to the pooled curve (fresh, ``stops=True``).
    held_out_sizes : sequence of int
        Each fold's held-out rows (the weights of its log-loss).
    """

    def __init__(self, rule, held_out_sizes):
        if rule.rule == "fixed":
            raise ValueError("a fixed budget has no stopping round to pool")
        self.rule = rule
        self.weights = np.asarray(held_out_sizes, dtype=np.float64)
        self.weights = self.weights / self.weights.sum()
        self.stopped = False

    @property
    def rounds(self):
        """Rounds of the pooled curve read so far."""
        return self.rule.rounds

    @property
    def best_round(self):
        """The kept round of every fold (1-based)."""
        return self.rule.best_round

    @property
    def deadline(self):
        """The rounds no fold boosts past before the next :meth:`extend`."""
        return self.rule.deadline

    def extend(self, folds, rounds):
        """Read the pooled curve up to ``rounds`` from ``folds`` (each fold's
        :class:`Stopping`, having recorded at least ``rounds`` rounds); True
        once the pooled rule stops (the rounds after its stop are not read)."""
        rule = self.rule
        while not self.stopped and rule.rounds < rounds:
            t = rule.rounds
            if rule.rule == "logloss":
                loss = float(np.dot(self.weights, [f.losses[t] for f in folds]))
                self.stopped = rule.update(None, loss)
            else:
                self.stopped = rule.update(float(np.mean([f.history[t] for f in folds])))
        return self.stopped
