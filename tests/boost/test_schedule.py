"""The race's schedule on threads (pauc.boost._schedule).

The race sees the same states and takes the same decisions on one thread and
on two, whatever order the blocks ran in; a candidate dropped by a check keeps
the record of that check's snapshot; the next phase starts early on a free
thread, and the sessions of a candidate that the phase's end drops are thrown
away; every session is finished once.
"""

import threading
import time
import weakref
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import make_classification

from pauc.boost import _schedule
from pauc.boost._fit import FoldFit, Plan, fit_plan
from pauc.boost._candidates import EXPONENTIAL, LOGLOSS, Candidate
from pauc.boost._local_trainer import LocalTrainer
from pauc.boost._race import RACE_BLOCK
from pauc.boost._schedule import Schedule

# rounds each fake candidate boosts before its own rule ends it
LENGTHS = {"a": 230, "b": 120, "c": 400}


class FakeSession:
    """Boosts ``length`` rounds; its kept scores after ``r`` rounds are ``r`` times a
    fixed vector; ``delay`` seconds per block (threads then interleave)."""

    def __init__(self, name, fold, length, delay, log):
        self.name, self.fold, self.length, self.delay, self.log = name, fold, length, delay, log
        self.rounds, self.seconds, self.done = 0, 0.0, False
        self.stopping = SimpleNamespace(history=[])
        self.finished = 0
        self.thread = None

    def advance(self, n):
        time.sleep(self.delay)
        self.log.append((self.name, self.fold, threading.get_ident()))
        step = min(n, self.length - self.rounds)
        self.stopping.history.extend(float(r) for r in range(self.rounds, self.rounds + step))
        self.rounds += step
        self.done = self.rounds >= self.length
        return self.done

    @property
    def kept_round(self):
        return self.rounds

    def kept_scores(self):
        scores = np.arange(5.0) * self.rounds + self.fold
        self.log.append(weakref.ref(scores))
        return scores

    def finish(self):
        self.finished += 1
        return (self.name, self.fold)


class FakeRace:
    """Three candidates, phases (0,) and (1, 2); the first check drops ``c``, the
    end of the first phase drops ``b``; every check's states are recorded."""

    def __init__(self):
        self.alive, self.dropped = ["a", "b", "c"], {}
        self.states, self.ends, self.held, self.log = [], [], [], []

    @property
    def racing(self):
        return len(self.alive) > 1

    def phases(self):
        return [(0,), (1, 2)]

    def start(self, folds):
        self.folds = folds

    def check(self, states):
        self.states.append({n: ([s.tolist() for s in scores], rounds, done)
                            for n, (scores, rounds, done) in states.items()})
        # kept score vectors still held anywhere (the schedule's snapshots)
        self.held.append(sum(r() is not None for r in self.log if isinstance(r, weakref.ref)))
        if "c" in self.alive:
            self.alive.remove("c")
            return ["c"]
        return []

    def end(self, held_out):
        self.ends.append(sorted(held_out))
        if self.folds == (0,):
            self.alive.remove("b")
            return ["b"]
        return []


def _run(n_threads, delays, lengths=LENGTHS):
    race, sessions = FakeRace(), []
    log = race.log

    def new_session(name, k, threads):
        s = FakeSession(name, k, lengths[name], delays.get((name, k), delays[name]), log)
        sessions.append(s)
        return s

    def finish(session):
        return FoldFit(session.finish(), session.kept_round,
                       np.asarray(session.stopping.history), session.kept_scores(),
                       session.seconds, session.rounds)

    own = {n: [None] * 3 for n in "abc"}
    Schedule(race, new_session, ["a", "b", "c"], n_threads, finish).run(own)
    return race, own, sessions, log


def _records(own):
    return {n: [None if f is None else (f.rounds, f.boosted, f.history.tolist(),
                                       None if f.held_out_scores is None
                                       else f.held_out_scores.tolist())
                for f in fits] for n, fits in own.items()}


@pytest.mark.parametrize("delays", [{"a": 0.0, "b": 0.0, "c": 0.0},
                                    {"a": 0.004, "b": 0.0, "c": 0.001},
                                    {"a": 0.0, "b": 0.003, "c": 0.002}])
def test_two_threads_give_the_checks_and_records_of_one(delays):
    race1, own1, sessions1, _ = _run(1, delays)
    race2, own2, sessions2, _ = _run(2, delays)
    assert race2.states == race1.states and race2.ends == race1.ends
    assert _records(own2) == _records(own1)
    # c: dropped by the first check, its record that check's snapshot (one block)
    assert [f is not None for f in own1["c"]] == [True, False, False]
    assert own1["c"][0].boosted == RACE_BLOCK and own1["c"][0].held_out_scores is None
    # b: dropped at the first phase's end, no record of the second phase
    assert own1["b"][1:] == [None, None] and own1["b"][0].boosted == LENGTHS["b"]
    assert [f.boosted for f in own1["a"]] == [LENGTHS["a"]] * 3
    for sessions in (sessions1, sessions2):
        assert all(s.finished == 1 for s in sessions)


def test_one_thread_runs_the_blocks_in_rounds_and_starts_nothing_early():
    _, _, sessions, log = _run(1, {"a": 0.0, "b": 0.0, "c": 0.0})
    # no session of the second phase for b, which the first phase's end drops
    assert sorted((s.name, s.fold) for s in sessions) == [
        ("a", 0), ("a", 1), ("a", 2), ("b", 0), ("c", 0)]
    # the first phase's blocks come before any of the second
    blocks = [entry for entry in log if isinstance(entry, tuple)]
    first = [i for i, (n, k, _) in enumerate(blocks) if k == 0]
    assert max(first) < min(i for i, (n, k, _) in enumerate(blocks) if k > 0)


def test_a_free_thread_starts_the_next_phase_and_its_losers_are_thrown_away():
    # a is slow on the first fold: while it runs, the other thread starts fold 1 and 2
    _, own, sessions, log = _run(2, {"a": 0.0, ("a", 0): 0.02, "b": 0.0, "c": 0.0})
    early = {(s.name, s.fold) for s in sessions if s.fold > 0}
    assert ("b", 1) in early                      # started before b was dropped ...
    assert own["b"][1:] == [None, None]           # ... and thrown away
    assert all(s.finished == 1 for s in sessions)
    assert len({entry[2] for entry in log if isinstance(entry, tuple)}) == 2


def test_the_next_phase_starts_level():
    """The free thread spreads its early blocks over the next phase's sessions, the
    least advanced first: none is left blocks behind, for the phase's first checks
    to wait on one thread.  (a, 0) ends only once four early blocks have run."""
    race, sessions, early_blocks = FakeRace(), [], []
    enough = threading.Event()
    lengths = {"a": 20 * RACE_BLOCK, "b": 20 * RACE_BLOCK, "c": 400}

    class Gated(FakeSession):
        def advance(self, n):
            if self.fold > 0:
                early_blocks.append((self.name, self.fold))
                if len(early_blocks) >= 4:
                    enough.set()
            elif self.name == "a" and self.rounds + n >= self.length:
                assert enough.wait(10)
            return super().advance(n)

    def new_session(name, k, threads):
        sessions.append(Gated(name, k, lengths[name], 0.0 if k == 0 else 0.002, race.log))
        return sessions[-1]

    def finish(session):
        return FoldFit(session.finish(), session.kept_round,
                       np.asarray(session.stopping.history), session.kept_scores(),
                       session.seconds, session.rounds)

    started = race.start

    def start(folds):
        if folds == (1, 2):             # the early sessions as the phase starts
            race.level = [s.rounds // RACE_BLOCK for s in sessions if s.fold > 0]
        started(folds)

    race.start = start
    Schedule(race, new_session, ["a", "b", "c"], 2,
             finish).run({n: [None] * 3 for n in "abc"})
    assert len(race.level) == 4 and sum(race.level) >= 4
    assert max(race.level) - min(race.level) <= 1


@pytest.mark.parametrize("n_threads", [1, 2])
def test_checked_snapshots_let_their_scores_go(n_threads):
    # a runs 40 blocks: the snapshots of checked blocks hold no scores, so the
    # vectors held stay a few per session instead of one per block (the next
    # phase's early sessions: at most EARLY_BLOCKS each)
    race, own, _, _ = _run(n_threads, {"a": 0.0, "b": 0.0, "c": 0.0},
                           {"a": 40 * RACE_BLOCK, "b": 120, "c": 400})
    assert len(race.states) > 30
    early = 2 * _schedule.EARLY_BLOCKS if n_threads > 1 else 0    # a on folds 1 and 2
    assert max(race.held) <= 12 + early
    assert [f.boosted for f in own["a"]] == [40 * RACE_BLOCK] * 3


def test_real_fits_do_not_depend_on_the_order_of_the_blocks(monkeypatch):
    """Random delays before each block (three draws) reorder the blocks of two
    threads; the fit equals the one-thread fit: drops, rounds, scores."""
    X, y = make_classification(2500, 10, n_informative=5, weights=[0.8], flip_y=0.02,
                               random_state=3)
    pool = (LOGLOSS, EXPONENTIAL,
            Candidate("small", "logloss", "logloss", {"num_leaves": 4, "learning_rate": 0.05}))
    base = {"learning_rate": 0.1, "num_leaves": 15, "min_data_in_leaf": 20, "lambda_l2": 0.0}

    def plan(n_threads):
        return Plan((0.0, 0.2), pool, "lightgbm", base, True, 300, 50, 3, 0.1, False,
                    n_threads, 0, 1, 2, 0, True)

    def summary(fitted):
        return ({n: str(d) for n, d in fitted.dropped.items()}, fitted.boosted,
                {n: (f.bag.rounds, f.oof.tolist()) for n, f in fitted.fits.items()})

    reference = summary(fit_plan(plan(1), LocalTrainer(X, y == 1)))
    run_block = _schedule._Track.run_block
    for seed in range(3):
        rng = np.random.default_rng(seed)
        lock = threading.Lock()

        def delayed(self, race):
            with lock:
                pause = rng.uniform(0, 0.01)
            time.sleep(pause)
            return run_block(self, race)

        monkeypatch.setattr(_schedule._Track, "run_block", delayed)
        assert summary(fit_plan(plan(2), LocalTrainer(X, y == 1, 2))) == reference
