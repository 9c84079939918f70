"""The race of GradientBoostingRanker's candidates: no rounds for a candidate that cannot be kept.

Without a race every candidate is boosted on every fold until its own stopping
rule ends it, and a candidate far behind after its first fold still runs every
fold to the round cap.  With it, the candidates advance together, in *phases*:
every fold together where a candidate's folds stop at one pooled round
(:class:`pauc.gbm._stopping.PooledStopping`, in memory), else the first fold,
then the other folds together (a trainer that boosts one fold at a time, the
cluster's, runs one phase per fold).  Within a phase every
(candidate, fold) advances ``RACE_BLOCK`` rounds at a time side by side, and
after every block and every phase the race compares each candidate with the
leader on the evidence so far: the held-out rows of the finished phases and of
the current one, each candidate's scores at its kept round so far, as fold
quantiles (:func:`pauc.gbm._selection.fold_quantiles`) -- the selection's
pooled out-of-fold criterion on the rows seen so far.  A candidate is dropped
when::

    leader - candidate - headroom > RACE_Z * se

``se`` the standard deviation of the paired difference over the stratified
bootstrap resamples of the selection (:func:`pauc.gbm._selection.bootstrap_criteria`),
``headroom`` what the candidate can still gain in the phase: its gain per round
since the previous check (the first check: since the phase's start, when its
rows of the phase all tie), repeated until the round cap -- a boosting curve
flattens, so this overstates it -- and 0 once its stopping rule ended its
folds; unless it holds ``ENSEMBLE_MIN_WEIGHT`` in Caruana et al.'s greedy
ensemble of the alive candidates on the same evidence
(:func:`pauc.gbm._selection.greedy_ensemble`): a candidate behind the leader
can still make the kept ensemble (measured: ``docs/developer/measurements.rst``,
'The race of the candidates').  A candidate is first judged after ``RACE_BLOCK`` rounds of a phase.
The selection keeps the reference unless another candidate beats it on 84 % of
the resamples (about one standard error), and its blends and greedy ensemble
are formed from the survivors: ``RACE_Z`` = 4 standard errors leaves every
close decision to the selection (with 3, drops just past the bar changed which
ensemble was formed; measured: ``docs/developer/measurements.rst``, 'The race of
the candidates').  A candidate whose held-out scores
equal another's at the same rounds (the extra-trees candidate on binary
features grows the small-tree candidate's trees) is a copy: the later one in
the pool is dropped.

``RACING = False`` turns the race off (every candidate on every fold, as its
stopping rule says): the reference of the race's tests and benchmarks.
"""

from dataclasses import dataclass

import numpy as np

from ._selection import bootstrap_criteria, criterion, fold_quantiles, greedy_ensemble

__all__ = ["Race", "Drop", "RACING", "RACE_BLOCK", "RACE_Z"]

RACING = True
# the first fold a phase of its own: its losers leave before the other folds start.
# One phase of every fold cost the default single thread more, and kept two threads
# busier only until the schedule (pauc.gbm._schedule) started the next phase early on
# a free thread (measured: docs/developer/measurements.rst, 'The race of the candidates')
FIRST_FOLD_ALONE = True
# rounds between two checks of a fold, and before the first
RACE_BLOCK = 50
# a candidate is dropped this many standard errors of the paired difference behind
# (module docstring)
RACE_Z = 4.0
# ... unless it holds this weight in the greedy ensemble of the alive candidates (two of
# its 20 steps): a candidate far behind can hold one step by chance and none of the
# full run's kept ensemble, while one that the kept ensemble needs holds several
# (measured: docs/developer/measurements.rst, 'The race of the candidates')
ENSEMBLE_MIN_WEIGHT = 0.1


@dataclass
class Drop:
    """Why and when a candidate left the race."""
    folds: tuple         # the folds of the phase it was dropped in
    round: int           # its rounds in that phase when dropped
    reason: str          # "behind" or "copy"
    leader: str          # the leader (the candidate it copies)
    gap: float = 0.0     # leader - candidate on the evidence, and its standard error
    std_error: float = 0.0

    def __str__(self):
        folds = (f"fold {self.folds[0]}" if len(self.folds) == 1
                 else f"folds {self.folds[0]}-{self.folds[-1]}")
        where = f"{folds}, round {self.round}"
        if self.reason == "copy":
            return f"copy of {self.leader} ({where})"
        z = f" ({self.gap / self.std_error:.1f} se)" if self.std_error > 0 else ""
        return f"behind {self.leader} by {self.gap:.4f}{z} at {where}"


class Race:
    """The candidates ``names`` (the pool's order) racing on a trainer's folds.

    Parameters
    ----------
    names : list of str
    labels : bool ndarray
        The trainer's labels (the index space of ``held_out_rows``).
    held_out_rows : list of int ndarray
        Each fold's held-out rows.
    windows : callable
        ``windows(n_neg)``: the criterion's windows on ``n_neg`` negatives
        (:meth:`pauc.gbm._plan.Plan.windows`).
    cap : int
        The round cap of a fold.
    seed : int
        Seeds the bootstrap of every check (one stream, checks in order).
    n_resamples : int
        Resamples of each check's bootstrap.
    enabled : bool
        False: nobody is dropped (``alive`` stays every name).
    one_phase : bool
        Every fold in one phase (a stopping round pooled over the folds needs
        them side by side: :class:`pauc.gbm._stopping.PooledStopping`).

    Attributes
    ----------
    alive : list of str
    dropped : dict of str -> Drop
    """

    def __init__(self, names, labels, held_out_rows, windows, cap, seed, n_resamples,
                 enabled=True, one_phase=False):
        self.alive, self.dropped = list(names), {}
        self.one_phase = bool(one_phase)
        self.labels, self.rows, self.windows = labels, held_out_rows, windows
        self.cap, self.enabled = int(cap), bool(enabled) and len(names) > 1
        self._rng, self._n_resamples = np.random.RandomState(seed), int(n_resamples)
        self._done_pos, self._done = [], {n: [] for n in names}
        self._folds, self._last = (), {}

    @property
    def racing(self):
        """Whether there is a race left to run (two candidates alive, enabled)."""
        return self.enabled and len(self.alive) > 1

    def phases(self):
        """The folds of each phase: the first fold, then the others together (one
        phase of every fold without a race, or with ``one_phase``)."""
        k = len(self.rows)
        if not self.racing or k == 1 or not FIRST_FOLD_ALONE or self.one_phase:
            return [tuple(range(k))]
        return [(0,), tuple(range(1, k))]

    def start(self, folds):
        """A phase of ``folds`` begins: every candidate's rows of them tie (its gain
        starts there)."""
        self._folds = tuple(folds)
        pos, scores = self._evidence({n: None for n in self.alive})
        windows = self.windows(int((~pos).sum()))
        self._last = {n: (criterion(pos, s, windows), 0) for n, s in scores.items()}

    def check(self, states):
        """After a block: ``states[name] = (kept held-out scores of each fold of the
        phase, rounds, done)`` of every alive candidate.  Returns the names dropped."""
        if not self.racing:
            return []
        return self._copies(states) + self._standings(states)

    def end(self, held_out):
        """The phase ended: ``held_out[name] = (held-out scores of each of its folds
        at the kept round, rounds)`` of every alive candidate become evidence;
        returns the names dropped on the whole evidence (no headroom: every
        phase so far has ended; none after the last, where the selection judges)."""
        dropped = []
        states = {n: (s, r, True) for n, (s, r) in held_out.items()}
        if self.racing and self._folds[-1] + 1 < len(self.rows):
            dropped = self._copies(states) + self._standings(states)
        for n in self.alive:
            self._done[n].extend(fold_quantiles(s) for s in states[n][0])
        self._done_pos.extend(self.labels[self.rows[k]] for k in self._folds)
        return dropped

    # ------------------------------------------------------------------ rules
    def _drop(self, name, drop):
        self.alive.remove(name)
        self.dropped[name] = drop

    def _copies(self, states):
        out = []
        for i, n in enumerate(list(self.alive)):
            for m in self.alive[:i]:
                if m in out or n in out:
                    continue
                (sn, rn, _), (sm, rm, _) = states[n], states[m]
                if rn == rm and all(np.array_equal(a, b) for a, b in zip(sn, sm)):
                    out.append(n)
                    self._drop(n, Drop(self._folds, int(rn), "copy", m))
                    break
        return out

    def _evidence(self, scores):
        """The labels and, per candidate, the scores of the rows seen so far: the
        finished phases' fold quantiles, then the current phase's (None: tied)."""
        held = [self.labels[self.rows[k]] for k in self._folds]
        pos = np.concatenate(self._done_pos + held)
        out = {}
        for n, s in scores.items():
            current = ([np.full(h.shape[0], 0.5) for h in held] if s is None
                       else [fold_quantiles(f) for f in s])
            out[n] = np.concatenate(self._done[n] + current)
        return pos, out

    def _standings(self, states):
        if len(self.alive) < 2:
            return []
        names = list(self.alive)
        pos, scores = self._evidence({n: states[n][0] for n in names})
        windows = self.windows(int((~pos).sum()))
        values = {n: criterion(pos, scores[n], windows) for n in names}
        leader = max(names, key=lambda n: values[n])
        slack = {}
        for n in names:
            _, rounds, done = states[n]
            before, at = self._last.get(n, (None, None))
            self._last[n] = (values[n], rounds)
            if n == leader:
                continue
            if done:
                headroom = 0.0
            elif before is None or rounds <= at:
                continue
            else:
                headroom = max(0.0, (values[n] - before) / (rounds - at)) * (self.cap - rounds)
            slack[n] = values[leader] - values[n] - headroom
        prospects = [n for n in slack if slack[n] > 0]
        if not prospects:
            return []
        # the bootstrap only when a candidate can be dropped (it is the check's cost)
        order = [leader] + prospects
        boot = bootstrap_criteria(pos, [scores[n] for n in order], windows, self._rng,
                                  self._n_resamples)
        behind = {}
        for i, n in enumerate(prospects, start=1):
            se = float(np.std(boot[:, 0] - boot[:, i], ddof=1))
            if slack[n] > RACE_Z * se:
                behind[n] = se
        if behind:
            # a candidate that helps the greedy ensemble of the survivors on the
            # evidence stays: the selection's blends and ensemble are formed from them
            # (a candidate whose scores all tie ranks nothing: in the greedy ensemble it
            # only shrinks the others' weights, the same ranking as without it)
            weights, _ = greedy_ensemble([scores[n] for n in names], pos, windows)
            helping = {n for n, w in zip(names, weights)
                       if w >= ENSEMBLE_MIN_WEIGHT and np.ptp(scores[n]) > 0}
            behind = {n: se for n, se in behind.items() if n not in helping}
        for n, se in behind.items():
            self._drop(n, Drop(self._folds, int(states[n][1]), "behind", leader,
                               float(values[leader] - values[n]), se))
        return list(behind)
