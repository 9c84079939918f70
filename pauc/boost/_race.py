"""The race of GradientBoostingRanker's candidates: no rounds for a candidate that cannot be kept.

Without a race every candidate is boosted on every fold until its own stopping
rule ends it, and a candidate far behind after its first fold still runs every
fold to the round cap.  With it, the candidates advance together -- on each
fold ``RACE_BLOCK`` rounds at a time side by side, and fold after fold -- and
after every block and every fold the race compares each candidate with the
leader on the evidence so far: the held-out rows of the finished folds and of
the current fold, each candidate's scores at its kept round so far, as fold
quantiles (:func:`pauc.boost._selection.fold_quantiles`): the selection's
pooled out-of-fold criterion on the rows seen so far.  A candidate is dropped
when::

    leader - candidate - headroom > RACE_Z * se

``se`` the standard deviation of the paired difference over
``BOOTSTRAP_ROUNDS`` stratified resamples (the selection's bootstrap,
:func:`pauc.boost._selection.bootstrap_criteria`), ``headroom`` what the
candidate can still gain on the current fold: its gain per round since the
previous check (the first check: since the fold's start, when its rows of the
current fold all tie), repeated until the round cap -- a boosting curve
flattens, so this overstates it -- and 0 once its stopping rule ended its fold.
A candidate is first judged on a fold after ``RACE_BLOCK`` rounds on it.  The
selection keeps the reference unless another candidate beats it on 84 % of the
resamples (about one standard error): ``RACE_Z`` = 3 standard errors leaves
every close decision to the selection.  A candidate whose held-out scores
equal another's at the same round (the extra-trees candidate on binary
features grows the small-tree candidate's trees) is a copy: the later one in
the pool is dropped.

``RACING = False`` turns the race off (every candidate on every fold, as its
stopping rule says): the reference of the race's tests and benchmarks.
"""

from dataclasses import dataclass

import numpy as np

from ._selection import bootstrap_criteria, criterion, fold_quantiles

__all__ = ["Race", "Drop", "RACING", "RACE_BLOCK", "RACE_Z"]

RACING = True
# rounds between two checks of a fold, and before the first
RACE_BLOCK = 50
# a candidate is dropped this many standard errors of the paired difference behind
RACE_Z = 3.0


@dataclass
class Drop:
    """Why and when a candidate left the race."""
    fold: int
    round: int           # its rounds on that fold when dropped
    reason: str          # "behind" or "copy"
    leader: str          # the leader (the candidate it copies)
    gap: float = 0.0     # leader - candidate on the evidence, and its standard error
    std_error: float = 0.0

    def __str__(self):
        if self.reason == "copy":
            return f"copy of {self.leader} (fold {self.fold}, round {self.round})"
        return (f"behind {self.leader} by {self.gap:.4f} ({self.gap / self.std_error:.1f} "
                f"se) at fold {self.fold}, round {self.round}" if self.std_error > 0 else
                f"behind {self.leader} by {self.gap:.4f} at fold {self.fold}, "
                f"round {self.round}")


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
        (:meth:`pauc.boost._fit.Plan.windows`).
    cap : int
        The round cap of a fold.
    seed : int
        Seeds the bootstrap of every check (one stream, checks in order).
    n_resamples : int
        Resamples of each check's bootstrap.
    enabled : bool
        False: nobody is dropped (``alive`` stays every name).

    Attributes
    ----------
    alive : list of str
    dropped : dict of str -> Drop
    """

    def __init__(self, names, labels, held_out_rows, windows, cap, seed, n_resamples,
                 enabled=True):
        self.alive, self.dropped = list(names), {}
        self.labels, self.rows, self.windows = labels, held_out_rows, windows
        self.cap, self.enabled = int(cap), bool(enabled) and len(names) > 1
        self._rng, self._n_resamples = np.random.RandomState(seed), int(n_resamples)
        self._done_pos, self._done = [], {n: [] for n in names}
        self._last = {}

    @property
    def racing(self):
        """Whether there is a race left to run (two candidates alive, enabled)."""
        return self.enabled and len(self.alive) > 1

    def start_fold(self, k):
        """Fold ``k`` begins: every candidate's rows of it tie (its gain starts there)."""
        pos, scores = self._evidence(k, {n: None for n in self.alive})
        windows = self.windows(int((~pos).sum()))
        self._last = {n: (criterion(pos, s, windows), 0) for n, s in scores.items()}

    def check(self, k, states):
        """After a block of fold ``k``: ``states[name] = (kept held-out scores,
        rounds, done)`` of every alive candidate.  Returns the names dropped."""
        if not self.racing:
            return []
        out = self._copies(k, states)
        out += self._standings(k, states)
        return out

    def end_fold(self, k, held_out):
        """Fold ``k`` ended: ``held_out[name] = (held-out scores at the kept round,
        rounds)`` of every alive candidate become evidence; returns the names
        dropped on the whole evidence (no headroom: every fold so far has ended)."""
        dropped = []
        states = {n: (s, r, True) for n, (s, r) in held_out.items()}
        if self.racing and k + 1 < len(self.rows):
            # (after the last fold the selection judges: nothing left to save)
            dropped = self._copies(k, states) + self._standings(k, states)
        for n in self.alive:
            self._done[n].append(fold_quantiles(states[n][0]))
        self._done_pos.append(self.labels[self.rows[k]])
        return dropped

    # ------------------------------------------------------------------ rules
    def _drop(self, name, drop):
        self.alive.remove(name)
        self.dropped[name] = drop

    def _copies(self, k, states):
        out = []
        for i, n in enumerate(list(self.alive)):
            for m in self.alive[:i]:
                if m in out or n in out:
                    continue
                (sn, rn, _), (sm, rm, _) = states[n], states[m]
                if rn == rm and np.array_equal(sn, sm):
                    out.append(n)
                    self._drop(n, Drop(k, int(rn), "copy", m))
                    break
        return out

    def _evidence(self, k, scores):
        """The labels and, per candidate, the scores of the rows seen up to fold
        ``k`` (finished folds' fold quantiles, then fold ``k``'s; None: tied)."""
        held = self.labels[self.rows[k]]
        pos = np.concatenate(self._done_pos + [held])
        out = {}
        for n, s in scores.items():
            current = np.full(held.shape[0], 0.5) if s is None else fold_quantiles(s)
            out[n] = np.concatenate(self._done[n] + [current])
        return pos, out

    def _standings(self, k, states):
        if len(self.alive) < 2:
            return []
        names = list(self.alive)
        pos, scores = self._evidence(k, {n: states[n][0] for n in names})
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
            elif before is None or rounds < RACE_BLOCK or rounds <= at:
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
        out = []
        for i, n in enumerate(prospects, start=1):
            se = float(np.std(boot[:, 0] - boot[:, i], ddof=1))
            if slack[n] > RACE_Z * se:
                out.append(n)
                self._drop(n, Drop(k, int(states[n][1]), "behind", leader,
                                   float(values[leader] - values[n]), se))
        return out
