"""The race's schedule on threads (pauc.gbm._schedule).

The race sees the same states and takes the same decisions on one thread and
on two, whatever order the blocks ran in; a candidate dropped by a check keeps
the record of that check's snapshot; the next phase starts early on a free
thread, and the sessions of a candidate that the phase's end drops are thrown
away; every session is finished once.

The interleavings are forced, not left to thread timing: ``FakeThreads`` stands in
for the schedule's thread pool and completes the blocks it was handed in an
order a policy picks (oldest first, newest first, seeded random, one session held
back), so each test sees the same interleaving on every run (with real threads,
the tests caught a planted mutant in most runs, not all).  One test still runs
real threads, as a smoke test of the pool itself.
"""

import concurrent.futures
import threading
import time
import weakref
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import make_classification

from pauc.gbm import _schedule
from pauc.gbm._plan import FoldFit, Plan, fit_plan
from pauc.gbm._candidates import EXPONENTIAL, LOGLOSS, Candidate
from pauc.gbm._local_trainer import LocalTrainer
from pauc.gbm._race import RACE_BLOCK
from pauc.gbm._schedule import Schedule

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


class _Block:
    """A block handed to the fake pool: run when the schedule waits for it."""

    def __init__(self, fn, args, number):
        self.fn, self.args, self.number = fn, args, number
        self.track = getattr(fn, "__self__", None)       # the _Track of run_block
        self._done, self._value, self._error = False, None, None

    def run(self):
        if not self._done:
            try:
                self._value = self.fn(*self.args)
            except BaseException as error:               # noqa: BLE001 (re-raised in result)
                self._error = error
            self._done = True

    def done(self):
        return self._done

    def result(self):
        self.run()
        if self._error is not None:
            raise self._error
        return self._value


class FakeThreads:
    """The schedule's ``concurrent.futures`` with a pool that runs no thread: each
    block handed to it runs when the schedule waits for the first one to finish,
    the one ``policy(pending)`` picks (a list in the order they were handed over),
    or when the schedule asks for its result.  The interleaving is the policy's,
    whatever the machine's load."""

    FIRST_COMPLETED = concurrent.futures.FIRST_COMPLETED

    def __init__(self, policy):
        self.policy, self.order = policy, []      # order: (name, fold) of the blocks run
        self._handed = 0
        threads = self

        class Pool:
            def __init__(self, n_threads):
                self.n_threads = n_threads

            def submit(self, fn, *args):
                threads._handed += 1
                return _Block(fn, args, threads._handed)

            def map(self, fn, items):
                return [fn(x) for x in items]

            def shutdown(self, wait=True):
                pass

        self.ThreadPoolExecutor = Pool

    def wait(self, blocks, return_when):
        assert return_when == self.FIRST_COMPLETED
        finished = {b for b in blocks if b.done()}
        if not finished:
            pending = sorted((b for b in blocks if not b.done()), key=lambda b: b.number)
            block = self.policy(pending)
            if block.track is not None:
                self.order.append((block.track.name, block.track.fold))
            block.run()
            finished = {block}
        return finished, set(blocks) - finished


def oldest_first(pending):
    return pending[0]


def newest_first(pending):
    return pending[-1]


def seeded(seed):
    rng = np.random.default_rng(seed)
    return lambda pending: pending[int(rng.integers(len(pending)))]


def holding(name, fold):
    """The blocks of ``(name, fold)`` finish last among those running: a slow
    session, on any machine."""
    def policy(pending):
        others = [b for b in pending if (b.track.name, b.track.fold) != (name, fold)]
        return others[0] if others else pending[0]
    return policy


# the interleavings the schedule's tests force (fresh generators for every run)
POLICIES = {"oldest-first": lambda: oldest_first, "newest-first": lambda: newest_first,
            "a0-held": lambda: holding("a", 0), "c0-held": lambda: holding("c", 0),
            "random-0": lambda: seeded(0), "random-1": lambda: seeded(1),
            "random-2": lambda: seeded(2)}


@pytest.fixture
def forced(monkeypatch):
    """``forced(policy)``: the schedule's pool becomes a FakeThreads of ``policy``
    (returned: its ``order`` lists the blocks in the order they ran)."""
    def install(policy):
        threads = FakeThreads(policy)
        monkeypatch.setattr(_schedule, "concurrent", SimpleNamespace(futures=threads))
        return threads
    return install


def _run(n_threads, delays, lengths=LENGTHS):
    race, sessions = FakeRace(), []
    log = race.log

    def new_session(name, k, threads):
        s = FakeSession(name, k, lengths[name], delays.get((name, k), delays[name]), log)
        s.threads = threads
        sessions.append(s)
        return s

    def finish(session):
        return FoldFit(session.finish(), session.kept_round,
                       np.asarray(session.stopping.history), session.kept_scores(),
                       session.seconds, session.rounds)

    # which sessions had been finished when each phase started
    race.finished_at_start = []
    started = race.start

    def start(folds):
        race.finished_at_start.append({(s.name, s.fold): s.finished for s in sessions})
        started(folds)

    race.start = start
    own = {n: [None] * 3 for n in "abc"}
    Schedule(race, new_session, ["a", "b", "c"], n_threads, finish).run(own)
    return race, own, sessions, log


def _records(own):
    return {n: [None if f is None else (f.rounds, f.boosted, f.history.tolist(),
                                       None if f.held_out_scores is None
                                       else f.held_out_scores.tolist())
                for f in fits] for n, fits in own.items()}


NO_DELAY = {"a": 0.0, "b": 0.0, "c": 0.0}


def _same_as_one_thread(one, many):
    race1, own1, sessions1, _ = one
    race2, own2, sessions2, _ = many
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


@pytest.mark.parametrize("n_threads", [2, 3])
@pytest.mark.parametrize("policy", list(POLICIES))
def test_many_threads_give_the_checks_and_records_of_one(policy, n_threads, forced):
    """Whatever order the blocks finish in (forced: FakeThreads), the checks read
    the states and the records are those of one thread."""
    one = _run(1, NO_DELAY)
    forced(POLICIES[policy]())
    _same_as_one_thread(one, _run(n_threads, NO_DELAY))


def test_a_session_run_past_its_check_keeps_the_checks_snapshot(forced):
    """a's first block finishes last: meanwhile the other thread runs b and c one
    block past the first check (AHEAD), so c's session has boosted two blocks when
    that check drops it -- its record is the check's snapshot, one block, and the
    check read every session's first snapshot, not its latest."""
    forced(holding("a", 0))
    race, own, sessions, _ = _run(2, NO_DELAY)
    (c0,) = [s for s in sessions if (s.name, s.fold) == ("c", 0)]
    assert c0.rounds == 2 * RACE_BLOCK                      # it ran past the check ...
    assert own["c"][0].boosted == RACE_BLOCK                # ... and keeps the check's record
    assert own["c"][0].history.tolist() == [float(r) for r in range(RACE_BLOCK)]
    first = race.states[0]
    assert {n: rounds for n, (_, rounds, _) in first.items()} == {n: RACE_BLOCK for n in "abc"}
    assert first["c"][0] == [(np.arange(5.0) * RACE_BLOCK).tolist()]


def test_real_threads_give_the_checks_and_records_of_one():
    """The thread pool itself (no forced order): the same checks and records."""
    _same_as_one_thread(_run(1, NO_DELAY), _run(2, {"a": 0.004, "b": 0.0, "c": 0.001}))


def test_one_thread_runs_the_blocks_in_rounds_and_starts_nothing_early():
    _, _, sessions, log = _run(1, {"a": 0.0, "b": 0.0, "c": 0.0})
    # no session of the second phase for b, which the first phase's end drops
    assert sorted((s.name, s.fold) for s in sessions) == [
        ("a", 0), ("a", 1), ("a", 2), ("b", 0), ("c", 0)]
    # the first phase's blocks come before any of the second
    blocks = [entry for entry in log if isinstance(entry, tuple)]
    first = [i for i, (n, k, _) in enumerate(blocks) if k == 0]
    assert max(first) < min(i for i, (n, k, _) in enumerate(blocks) if k > 0)


def test_a_free_thread_starts_the_next_phase_and_its_losers_are_thrown_away(forced):
    # a's blocks on the first fold finish last: the other thread starts folds 1 and 2
    threads = forced(holding("a", 0))
    race, own, sessions, _ = _run(2, NO_DELAY)
    early = {(s.name, s.fold) for s in sessions if s.fold > 0}
    assert ("b", 1) in early                      # started before b was dropped ...
    assert own["b"][1:] == [None, None]           # ... and thrown away
    # ... as the next phase starts (not at the end of the fit: a session holds its
    # engine's memory)
    second = race.finished_at_start[1]
    assert second["b", 1] == second["b", 2] == 1
    assert all(s.finished == 1 for s in sessions)
    # blocks of the next phase ran before the first phase's last block
    last_first = max(i for i, (n, k) in enumerate(threads.order) if k == 0)
    assert any(k > 0 for _, k in threads.order[:last_first])


@pytest.mark.parametrize("n_threads", [2, 3, 4, 6])
def test_the_next_phase_starts_early_only_where_its_threads_are_known(n_threads, forced):
    """A session's thread count is fixed when it is made: the next phase's sessions
    start early only while they get one thread whoever survives this phase
    (``n_threads < 2 * folds``); with more threads they wait for the phase and get
    their share of the threads (4 threads, one survivor on two folds: two each)."""
    forced(holding("a", 0))
    race, _, sessions, _ = _run(n_threads, NO_DELAY)
    survivors = 1                                  # FakeRace: c and b are dropped
    later = [s for s in sessions if s.fold > 0]
    assert later
    if n_threads < 2 * 2:
        assert any(s.name != "a" for s in later)     # started before the drops
        assert all(s.threads == 1 for s in later)
    else:
        assert all(s.name == "a" for s in later)
        assert all(s.threads == n_threads // (2 * survivors) for s in later)


def test_the_next_phase_starts_level(forced):
    """The free thread spreads its early blocks over the next phase's sessions, the
    least advanced first: none is left blocks behind, for the phase's first checks
    to wait on one thread.  a's last block on the first fold finishes only once four
    early blocks have run (FakeThreads; the others in the order they started)."""
    race, sessions = FakeRace(), []
    lengths = {"a": 20 * RACE_BLOCK, "b": 20 * RACE_BLOCK, "c": 400}

    def held(block):
        s = block.track.session
        return ((s.name, s.fold) == ("a", 0) and s.rounds + RACE_BLOCK >= s.length
                and sum(e.rounds // RACE_BLOCK for e in sessions if e.fold > 0) < 4)

    forced(lambda pending: next((b for b in pending if not held(b)), pending[0]))

    def new_session(name, k, threads):
        sessions.append(FakeSession(name, k, lengths[name], 0.0, race.log))
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
def test_checked_snapshots_let_their_scores_go(n_threads, forced):
    # a runs 40 blocks: the snapshots of checked blocks hold no scores, so the
    # vectors held stay a few per session instead of one per block (the next
    # phase's early sessions: at most EARLY_BLOCKS each)
    forced(oldest_first)
    race, own, _, _ = _run(n_threads, {"a": 0.0, "b": 0.0, "c": 0.0},
                           {"a": 40 * RACE_BLOCK, "b": 120, "c": 400})
    assert len(race.states) > 30
    early = 2 * _schedule.EARLY_BLOCKS if n_threads > 1 else 0    # a on folds 1 and 2
    assert max(race.held) <= 12 + early
    assert [f.boosted for f in own["a"]] == [40 * RACE_BLOCK] * 3


@pytest.mark.parametrize("policy", ["newest-first", "random-0", "random-1"])
def test_real_fits_do_not_depend_on_the_order_of_the_blocks(policy, forced):
    """Real LightGBM sessions on two threads whose blocks finish in a forced order
    (FakeThreads): the fit equals the one-thread fit: drops, rounds, scores."""
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
    forced(POLICIES[policy]())
    assert summary(fit_plan(plan(2), LocalTrainer(X, y == 1))) == reference
