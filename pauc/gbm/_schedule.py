"""The race's sessions on ``n`` threads: no thread idle while a block of rounds can run.

The race (:mod:`pauc.gbm._race`) judges its candidates after every block of
``RACE_BLOCK`` rounds of a phase.  Run as rounds of blocks -- every session one
block, then the check -- two threads idle whenever the sessions of a round
differ in cost (an oblivious-tree block costs two LightGBM ones) and through a
phase's tail, where one slow candidate runs alone: ``n_jobs=2`` then saved
little over one thread (measured: ``docs/developer/measurements.rst``, 'The race
of the candidates').

Here every session records a :class:`Snapshot` after each of its blocks
(rounds, kept round, kept held-out scores, done), and the check after block
``b`` reads every alive session's snapshot at ``b`` (its last one when it ended
before): the same states as the rounds of blocks, so the same decisions, in
whatever order and on whatever thread the blocks ran.  A free thread takes, in
this order,

1. a block of a session of the phase that has done the fewest blocks (the
   next check waits for it);
2. a block of a session of the phase ahead of the checks, at most ``AHEAD``
   blocks (lost if the check drops its candidate);
3. a block of the next phase's session of a candidate still alive that has
   done the fewest blocks, at most ``EARLY_BLOCKS`` of them (lost if the
   phase's end drops it).

A candidate whose folds stop together (:class:`pauc.gbm._stopping.PooledStopping`)
is judged at the same checks: the check after block ``b`` reads its folds'
curves up to their rounds and, where the pooled rule stops (or the folds reach
the cap), ends every fold at the pooled round.  Its sessions then run no block
ahead of the checks, and once the race is over a block ends at the pooled
rule's deadline, so that no fold boosts past the round where the pooled curve
stops; while the race runs the blocks stay ``RACE_BLOCK`` long (its checks
read every candidate at the same rounds).

One thread always finds work of the first kind: its blocks run as the rounds of
blocks did, nothing is lost.  The sessions of a phase are those of the
candidates alive when the phase starts; a candidate dropped by a check leaves
its record at the check's snapshot (its rounds, kept round and criterion
history then), whatever its session ran past it.
"""

import concurrent.futures
from dataclasses import dataclass

import numpy as np

from ._plan import FoldFit
from ._race import RACE_BLOCK

__all__ = ["Schedule", "Snapshot", "AHEAD"]

# blocks a session may run past the last check of its phase (second kind of work)
AHEAD = 1
# blocks a session of the next phase may run before its phase starts (third kind):
# each keeps its snapshots' held-out scores until its phase's checks read them
EARLY_BLOCKS = 8


@dataclass
class Snapshot:
    """A session after one of its blocks."""
    rounds: int
    kept_round: int
    kept_scores: np.ndarray     # None when no check can read it (the race is over)
    done: bool


class _Track:
    """A (candidate, fold) session and its snapshots, block by block."""

    def __init__(self, name, fold, session):
        self.name, self.fold, self.session = name, fold, session
        self.snapshots = []
        self.running = False
        self._released = 0
        if session.done:                # a cap of 0 rounds: ended before any block
            self.snapshots.append(Snapshot(0, 0, None, True))

    @property
    def blocks(self):
        return len(self.snapshots)

    @property
    def done(self):
        # from the snapshots only: a block in flight may have ended the session
        # before its snapshot is taken
        return bool(self.snapshots) and self.snapshots[-1].done

    def at(self, b):
        """The snapshot after block ``b`` (1-based), or the last one if it ended before."""
        return self.snapshots[min(b, len(self.snapshots)) - 1]

    def ready_at(self, b):
        return len(self.snapshots) >= b or self.done

    def release(self, b):
        """Drop the kept scores that no check after block ``b`` reads: those of the
        blocks up to ``b`` but the last one (a session that has ended shows its last
        snapshot to every later check)."""
        stop = min(b, len(self.snapshots) - 1)
        for j in range(self._released, stop):
            self.snapshots[j].kept_scores = None
        self._released = max(self._released, stop)

    def run_block(self, race, n_rounds=RACE_BLOCK):
        """Advance one block of ``n_rounds`` and snapshot it (in a worker thread)."""
        s = self.session
        s.advance(n_rounds)
        kept = s.kept_scores() if race.racing else None
        self.snapshots.append(Snapshot(s.rounds, s.kept_round, kept, s.done))

    def end_at(self, b, kept_round, with_scores):
        """The pooled rule ended the session at the check after block ``b``: every
        later check reads it done at ``kept_round`` (and, ``with_scores``, its
        held-out scores there)."""
        self.session.end_at(kept_round)
        b = min(b, len(self.snapshots))
        del self.snapshots[b:]
        kept = self.session.kept_scores() if with_scores else None
        self.snapshots[b - 1] = Snapshot(self.snapshots[b - 1].rounds, kept_round, kept, True)

    def record_at(self, b):
        """The :class:`FoldFit` of a session dropped by the check after block ``b``."""
        snap = self.at(b)
        history = np.asarray(self.session.stopping.history[:snap.rounds], dtype=np.float64)
        return FoldFit(self.session.finish(), snap.kept_round, history, None,
                       self.session.seconds, snap.rounds)


class Schedule:
    """Runs the race's phases on a trainer's sessions with ``n_threads`` threads.

    Parameters
    ----------
    race : pauc.gbm._race.Race
    new_session : callable
        ``new_session(name, fold, n_threads)``: a session of candidate ``name``
        on ``fold`` (called in the calling thread only).
    pool : list of str
        The candidates' names, in the pool's order.
    n_threads : int
    finish : callable
        ``finish(session)``: the :class:`FoldFit` of a session that ended, with
        its held-out scores (run on the threads, at each phase's end).
    pooled : callable, optional
        ``pooled(name, folds)``: the :class:`~pauc.gbm._stopping.PooledStopping`
        that ends candidate ``name``'s sessions of the phase's ``folds``
        together, or None (its sessions stop themselves).
    """

    def __init__(self, race, new_session, pool, n_threads, finish, pooled=None):
        self.race, self.new_session, self.pool = race, new_session, list(pool)
        self.n_threads, self.finish = max(1, int(n_threads)), finish
        self.pooled = pooled or (lambda name, folds: None)
        self._pooled = {}           # name -> PooledStopping of the phase, until it ends
        self._tracks = {}           # (name, fold) -> _Track, the current and next phases
        self._executor = None
        self._running = {}          # future -> _Track

    # ------------------------------------------------------------------ run
    def run(self, own):
        """Every phase of the race; ``own[name][fold]`` gets each FoldFit."""
        phases = list(self.race.phases())
        if self.n_threads > 1:
            self._executor = concurrent.futures.ThreadPoolExecutor(self.n_threads)
        try:
            for p, folds in enumerate(phases):
                upcoming = phases[p + 1] if p + 1 < len(phases) else ()
                self._phase(folds, upcoming, own)
        finally:
            self._wait_all()
            if self._executor is not None:
                self._executor.shutdown()
            for track in self._tracks.values():      # speculative sessions left over
                track.session.finish()
            self._tracks = {}

    def _phase(self, folds, upcoming, own):
        race = self.race
        alive = [n for n in self.pool if n in race.alive]
        per_job = max(1, self.n_threads // (len(alive) * len(folds)))
        for key in list(self._tracks):               # next-phase sessions of dropped names
            if key[0] not in race.alive:
                self._discard(key)
        tracks = {}
        for k in folds:
            for n in alive:
                if (n, k) not in self._tracks:
                    self._tracks[n, k] = _Track(n, k, self.new_session(n, k, per_job))
                tracks[n, k] = self._tracks[n, k]
        # the next phase's sessions may start early only where its thread count does
        # not depend on who survives this one
        self._speculate = (upcoming if self.n_threads > 1
                           and self.n_threads < 2 * len(upcoming) else ())
        self._pooled = {n: p for n in alive if (p := self.pooled(n, folds)) is not None}
        race.start(folds)
        checked = 0
        checking = race.racing or bool(self._pooled)
        if not checking:                # no check reads the early sessions' snapshots
            for t in tracks.values():
                t.release(t.blocks)
        dropped = {}
        while True:
            # the checks whose blocks have all run, in order
            while checking and all(
                    t.ready_at(checked + 1) for t in tracks.values() if t.name in race.alive):
                b = checked + 1
                self._stop_pooled(tracks, folds, b)
                states = {}
                for n in race.alive:
                    snaps = [tracks[n, k].at(b) for k in folds]
                    states[n] = ([s.kept_scores for s in snaps], max(s.rounds for s in snaps),
                                 all(s.done for s in snaps))
                for n in race.check(states):
                    dropped[n] = b
                checked = b
                for t in tracks.values():
                    t.release(b)
                # the rounds of blocks went on, checked, while two candidates raced (or
                # a pooled rule had not ended) and an alive session had not ended
                checking = ((race.racing or any(n in race.alive for n in self._pooled))
                            and any(not tracks[n, k].at(b).done
                                    for n in race.alive for k in folds))
            live = [t for t in tracks.values() if t.name in race.alive and not t.done]
            if not live and not any(t.name in race.alive for t in self._running.values()):
                break
            self._dispatch(tracks, checked, checking, live)
        for n, b in dropped.items():
            for k in folds:
                self._settle(tracks[n, k])
                own[n][k] = tracks[n, k].record_at(b)
                del self._tracks[n, k]
        # the alive candidates' records, their held-out scores on the threads
        keys = [(n, k) for k in folds for n in race.alive]
        for key in keys:
            self._settle(tracks[key])
        for key, fit in zip(keys, self._map(self.finish, [tracks[key].session for key in keys])):
            own[key[0]][key[1]] = fit
            del self._tracks[key]
        race.end({n: ([own[n][k].held_out_scores for k in folds],
                      max(own[n][k].boosted for k in folds)) for n in race.alive})

    def _stop_pooled(self, tracks, folds, b):
        """The check after block ``b`` reads each pooled candidate's curve up to its
        folds' rounds; where the pooled rule stops, or the folds reached the cap,
        every fold ends at the pooled kept round (a candidate the race dropped
        leaves with its folds' records at the check that dropped it)."""
        for n in list(self._pooled):
            if n not in self.race.alive:
                del self._pooled[n]
                continue
            pooled = self._pooled[n]
            snaps = [tracks[n, k].at(b) for k in folds]
            stop = pooled.extend([tracks[n, k].session.stopping for k in folds],
                                 min(s.rounds for s in snaps))
            if stop or all(s.done for s in snaps):
                for k in folds:
                    tracks[n, k].end_at(b, pooled.best_round, self.race.racing)
                del self._pooled[n]

    def _block(self, track):
        """The rounds of ``track``'s next block: ``RACE_BLOCK`` while the race runs
        (its checks every ``RACE_BLOCK`` rounds), then, for a pooled candidate,
        never past its pooled rule's deadline (0: wait for the check)."""
        pooled = self._pooled.get(track.name)
        if pooled is None or pooled.deadline is None or self.race.racing:
            return RACE_BLOCK
        return max(0, min(RACE_BLOCK, pooled.deadline - track.session.rounds))

    # ------------------------------------------------------------ the threads
    def _dispatch(self, tracks, checked, checking, live):
        """Start blocks on the free threads (module docstring's order), then wait for
        one to finish; with one thread, run the first block in this thread.  A
        phase with a pooled rule runs no block ahead of the checks: each block's
        length depends on the check before it."""
        free = self.n_threads - len(self._running)
        chosen = []
        idle = sorted((t for t in live if not t.running), key=lambda t: t.blocks)
        ahead = 0 if self._pooled else AHEAD
        limit = checked + 1 + (ahead if checking else 1 << 30)
        for t in idle:                                          # kinds 1 and 2
            if len(chosen) < free and t.blocks < limit and self._block(t) > 0:
                chosen.append(t)
        if len(chosen) < free:                                  # kind 3
            # the least advanced first, so that the next phase starts level: sessions
            # left behind would make its first checks wait on one thread
            early = [(n, k) for k in self._speculate for n in self.pool if n in self.race.alive]
            early.sort(key=lambda key: self._tracks[key].blocks if key in self._tracks else 0)
            for n, k in early:
                if len(chosen) >= free:
                    break
                if (n, k) not in self._tracks:
                    self._tracks[n, k] = _Track(n, k, self.new_session(n, k, 1))
                t = self._tracks[n, k]
                if not t.running and not t.done and t.blocks < EARLY_BLOCKS and t not in chosen:
                    chosen.append(t)
        if not chosen and not self._running:
            raise RuntimeError("the race's schedule has no block to run and none running")
        if self._executor is None:
            chosen[0].run_block(self.race, self._block(chosen[0]))
            return
        for t in chosen:
            t.running = True
            self._running[self._executor.submit(t.run_block, self.race, self._block(t))] = t
        if self._running:
            done, _ = concurrent.futures.wait(list(self._running),
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                self._running.pop(future).running = False
                future.result()

    def _settle(self, track):
        """Wait for ``track``'s block in flight, if any."""
        for future, t in list(self._running.items()):
            if t is track:
                future.result()
                self._running.pop(future)
                t.running = False

    def _wait_all(self):
        for future in list(self._running):
            self._running.pop(future).running = False
            future.result()

    def _discard(self, key):
        self._settle(self._tracks[key])
        self._tracks.pop(key).session.finish()

    def _map(self, function, items):
        if self._executor is None or len(items) < 2:
            return [function(x) for x in items]
        return list(self._executor.map(function, items))
