"""The cutting-plane iterations of a chunked fit, held by Dask actors.

A chunked fit runs Algorithm 1 of Narasimhan & Agarwal (2017) for tens to
hundreds of iterations, each a map-reduce over the row chunks.  Run as task
graphs (:mod:`._graphs`), every dependency level of an iteration is a trip
through the scheduler, several milliseconds each, against a few milliseconds
for a whole iteration in memory.  On a ``dask.distributed`` cluster the fit
therefore keeps its chunks in *actors* (``Client.submit(..., actor=True)``):
one :class:`ChunkActor` per worker, created on the worker that already holds
the persisted chunks (a chunk moves only to balance the rows between the
workers), and an iteration is one call per actor:

1. the client sends ``w`` (d floats) to every actor;
2. each actor scores its chunks, ``X_k @ w``, and sends what the search needs
   from it to the other actors, directly, worker to worker, without the
   scheduler or the client:

   * AUC (Joachims): its sorted negatives and sorted shifted positives
     ``p - 1`` (every positive is counted against every negative; 8 bytes
     per row);
   * tight pAUC (Algorithms 2 and 3): its top-``j_beta`` negatives, merged
     by every actor into the same list ``T``; then its chunks' counts at the
     border ``t_beta`` and the histogram of their rows ``r_i`` (``j_beta + 1``
     integers), from which every actor derives the same plan (tie quotas in
     row order, ``c_j = #{i : r_i >= j}``);

3. each actor computes its chunks' coefficients with the per-chunk steps of
   :mod:`._chunks` (so the cut equals the in-memory search's, ties and the
   row-order tie-break included) and returns ``sum_k X_k^T coef_k`` over its
   chunks, ``scores . coef`` and the loss count: d + 2 numbers reach the
   client, which :class:`ActorDesign` returns as a
   :class:`~pauc.svm._design.Cut`.  The coefficients never leave the workers.

The threshold of ``predict`` is the package's rule
(:func:`pauc._threshold.threshold_rule`) with its four order statistics
answered by one actor call each.

References
----------
Narasimhan & Agarwal (2017), Algorithms 1-3; Joachims (2005). Full entries in
``docs/references.rst``.
"""

import asyncio
import logging
import time
import uuid
import weakref

import dask
import distributed
import numpy as np
from dask.sizeof import sizeof
from distributed.actor import Actor
from distributed.protocol import to_serialize

from .._threshold import best_youden, threshold_rule
from ..svm._design import Cut, Design
from ._chunks import (auc_coef, auc_sort, max_below, matvec_block, min_above, rmatvec_block,
                      totals, window_coef, window_plan, window_rows)
from ._collections import merge_top, sum_arrays, top_values
from ._graphs import check_chunked_search
from ._labels import ChunkedLabels

_logger = logging.getLogger(__name__)

__all__ = ["ChunkActor", "ActorDesign", "distributed_client", "bytes_received",
           "bytes_exchanged"]

# Bytes of the actors' replies received by this process (the client), and
# bytes the actors received from each other, for the benchmark and the test
# that bound the per-iteration traffic.
_received = [0]
_exchanged = [0]


def bytes_received():
    """Bytes received by this process from :class:`ChunkActor` calls so far."""
    return _received[0]


def bytes_exchanged():
    """Bytes the actors of this process's fits received from each other so far."""
    return _exchanged[0]


class PeerFailed(RuntimeError):
    """An actor's step stopped because another actor's step failed."""


_FAILED = "pauc: a step failed"
# Below this many stored values of X per worker an iteration's work takes a
# few milliseconds at most: it runs on the worker's event loop (a thread hop
# would cost as much).  Above, it runs in a thread, so that the worker keeps
# answering the scheduler and its peers meanwhile.
_INLINE_VALUES = 4_000_000


def _consume(task):
    """Done-callback of a task whose outcome nobody awaits (a failure marker
    sent to a possibly lost peer, a wait given up): read its exception so
    that asyncio does not report it as never retrieved."""
    if not task.cancelled():
        task.exception()


def _stored_values(block):
    return int(block.nnz) if hasattr(block, "nnz") else int(np.size(block))


class ChunkActor:
    """The row chunks held by one worker during one chunked fit.

    Parameters
    ----------
    indices : list of int
        The chunks' positions in the row order.
    peers : list of (address, key)
        The other workers' actors, exchanged with in each step.
    *blocks
        The ``X`` blocks of those chunks, then their label blocks, in the
        order of ``indices``.
    """

    def __init__(self, indices, peers, *blocks):
        count = len(indices)
        self.indices = list(indices)
        self._peer_addresses = list(peers)
        self.X = list(blocks[:count])
        self.y = [np.asarray(b).ravel() for b in blocks[count:]]
        self.pos = self.all_pos = None
        self.bytes_from_peers = 0
        self._last_scores = None
        self._inline = sum(_stored_values(x) for x in self.X) < _INLINE_VALUES
        self._received = {}        # (step, name) -> ({sender: value}, all received)
        self._sent = {}            # (step, name) -> the sends (tasks)
        self._failures = {}        # step -> event set when the step failed somewhere
        self._closed = False

    async def distinct_labels(self):
        """The distinct values of this worker's labels."""
        return await self._run(lambda: np.unique(np.concatenate(self.y)))

    async def set_positive(self, positive):
        """Take ``y == positive`` as the positives; ``{chunk: number of positives}``."""
        def split():
            self.pos = [b == positive for b in self.y]
            self.all_pos = np.concatenate(self.pos)
            self.y = None
            return {k: int(np.count_nonzero(p)) for k, p in zip(self.indices, self.pos)}

        return await self._run(split)

    async def release(self):
        """Drop the chunks; a step still running (the fit was interrupted)
        stops at its next wait."""
        self._closed = True
        for failed in self._failures.values():
            failed.set()
        self.X = self.y = self.pos = self.all_pos = self._last_scores = None

    # -- exchange between the actors ------------------------------------
    #
    # Each actor *sends* what it publishes to every peer (one message one
    # way, sent as soon as it is ready) and waits until its own inbox holds
    # every peer's value of the same step and name.  Every wait of a step
    # also ends when the step is marked failed: by a peer's failure marker,
    # by the client's abort (another actor's call failed), or by release.

    def _inbox(self, key):
        if key not in self._received:
            self._received[key] = ({}, asyncio.Event())
        return self._received[key]

    def _failure(self, step):
        if step not in self._failures:
            self._failures[step] = asyncio.Event()
            if self._closed:
                self._failures[step].set()
        return self._failures[step]

    async def _until(self, step, awaitable):
        """``await awaitable``, or raise :class:`PeerFailed` when ``step`` fails first."""
        work = asyncio.ensure_future(awaitable)
        failed = asyncio.ensure_future(self._failure(step).wait())
        await asyncio.wait({work, failed}, return_when=asyncio.FIRST_COMPLETED)
        failed.cancel()
        if self._failure(step).is_set():
            work.cancel()
            work.add_done_callback(_consume)
            raise PeerFailed(f"step {step} failed on another worker (or the fit was stopped)")
        return work.result()

    async def receive(self, step, name, sender, value):
        """A peer's publication ``name`` of ``step`` (called by the peers);
        ``value`` is ``_FAILED`` when the peer's step failed."""
        if isinstance(value, str) and value == _FAILED:
            self._failure(step).set()
            return
        values, complete = self._inbox((step, name))
        values[sender] = value
        if len(values) == len(self._peer_addresses):
            complete.set()

    async def abort(self, step):
        """Stop waiting in ``step`` (called by the client when another actor failed)."""
        self._failure(step).set()

    def _begin(self, step):
        # Nothing of an earlier step is still awaited: the client starts a
        # step only when every actor has returned from the previous one, and
        # an actor returns only after receiving from all its peers (or after
        # its step failed).  Late messages of an earlier step are harmless:
        # they are keyed by their step.
        self._received = {k: v for k, v in self._received.items() if k[0] >= step}
        self._sent = {k: v for k, v in self._sent.items() if k[0] >= step}
        self._failures = {k: v for k, v in self._failures.items() if k >= step}

    def _send(self, step, name, value):
        """Start sending ``value`` to every peer's :meth:`receive`.

        A worker-to-worker RPC of Dask's ``actor_execute`` handler -- the call
        an actor handle makes -- but without a handle: a handle made on a
        worker holds a future on the peer's key, which keeps the peer alive
        and, after a failed send, waits on that future for ever.  Here a send
        to a lost worker fails with ``OSError``."""
        if self._closed:
            raise PeerFailed("the fit's actors were released")
        rpc = distributed.get_worker().rpc
        args = [step, name, self.indices[0], to_serialize(value)]

        async def send(address, key):
            reply = await rpc(address).actor_execute(actor=key, function="receive",
                                                     args=args, kwargs={})
            if reply["status"] != "OK":
                raise reply["exception"]

        self._sent[(step, name)] = [asyncio.ensure_future(send(address, key))
                                    for address, key in self._peer_addresses]

    async def _exchange(self, step, name, value):
        """Send ``value`` to the peers; their values of the same step and name."""
        self._send(step, name, value)
        values, complete = self._inbox((step, name))
        if self._peer_addresses:
            await self._until(step, complete.wait())
            await self._until(step, asyncio.gather(*self._sent[(step, name)]))
        values = [values[sender] for sender in sorted(values)]
        self.bytes_from_peers += sizeof(values)
        return values

    def _fail(self, step):
        # Unblock the peers waiting in this step; never mask the step's error
        # (nor wait: a peer may be the lost worker).
        try:
            self._send(step, "*", _FAILED)
            for send in self._sent[(step, "*")]:
                send.add_done_callback(_consume)
        except Exception as exc:
            _logger.debug("step %s: could not tell the peers it failed: %r", step, exc)

    async def _run(self, func, *args):
        if self._inline:
            return func(*args)
        return await asyncio.get_running_loop().run_in_executor(None, func, *args)

    async def _step(self, step, work, *args):
        """``(work's result, bytes received from the peers meanwhile)``."""
        self._begin(step)
        before = self.bytes_from_peers
        try:
            return await work(step, *args), self.bytes_from_peers - before
        except BaseException:
            self._fail(step)
            raise

    def _scores(self, w):
        """``X_k @ w`` of this worker's chunks (kept for the ``w`` of the last call:
        the threshold's order statistics ask several times at one ``w``)."""
        key = w.tobytes()
        if self._last_scores is None or self._last_scores[0] != key:
            self._last_scores = (key, [matvec_block(x, w) for x in self.X])
        return self._last_scores[1]

    # -- the two searches -------------------------------------------------

    async def auc_cut(self, step, w, inv_n):
        """Joachims' AUC cut on this worker's chunks: ``(g, dot, loss count)``."""
        return await self._step(step, self._auc_cut, w, inv_n)

    async def _auc_cut(self, step, w, inv_n):
        def prepare():
            scores = np.concatenate(self._scores(w))
            return (scores,) + auc_sort(scores, self.all_pos)

        scores, mine, rows = await self._run(prepare)
        lists = [mine] + await self._exchange(step, "auc", mine)

        def finish():
            # all this worker's rows at once: their counts are against every
            # worker's sorted lists, whatever their chunk
            coef, loss = auc_coef(mine, rows, inv_n, lists, scores.shape[0])
            return self._products(scores, coef) + (loss,)

        return await self._run(finish)

    def _products(self, scores, coef):
        """``(sum_k X_k^T coef_k, scores . coef)`` over this worker's chunks."""
        edges = np.cumsum([0] + [x.shape[0] for x in self.X])
        g = sum_arrays(*[rmatvec_block(x, coef[a:b])
                         for x, a, b in zip(self.X, edges[:-1], edges[1:])])
        return g, float(np.dot(scores, coef))

    async def window_cut(self, step, w, j_alpha, j_beta, inv_n):
        """Tight-surrogate cut (Algorithms 2 and 3) on this worker's chunks:
        ``(g, dot, loss count)``."""
        return await self._step(step, self._window_cut, w, j_alpha, j_beta, inv_n)

    async def _window_cut(self, step, w, j_alpha, j_beta, inv_n):
        def prepare():
            scores = self._scores(w)
            return scores, top_values(np.concatenate(scores)[~self.all_pos], j_beta)

        scores, mine = await self._run(prepare)
        top = merge_top(j_beta, mine, *await self._exchange(step, "top", mine))

        def positives_rows():
            # each positive's row r_i (Algorithm 3, lines 3-7), their
            # histogram, and the chunks' counts at the border of T
            rows = [window_rows(s, pos, top, j_alpha, j_beta, inv_n)
                    for s, pos in zip(scores, self.pos)]
            borders = {k: {name: border[name] for name in ("above", "at", "straddle", "loss")}
                       for k, (_, border) in zip(self.indices, rows)}
            return rows, borders, sum_arrays(*[border["hist"] for _, border in rows])

        rows, borders, hist = await self._run(positives_rows)
        for other_borders, other_hist in await self._exchange(step, "borders", (borders, hist)):
            borders.update(other_borders)
            hist = sum_arrays(hist, other_hist)
        # every actor derives the same plan from the same sums
        plan = window_plan(j_alpha, j_beta, top, hist, [borders[k] for k in sorted(borders)])

        def finish():
            return totals(*[window_coef(s, pos, top, coef, border, plan, k, inv_n, x)
                            for k, s, pos, (coef, border), x
                            in zip(self.indices, scores, self.pos, rows, self.X)])

        return await self._run(finish)

    # -- the order statistics of the threshold rule ------------------------

    async def kth_highest_negative(self, step, w, k):
        """The ``k``-th highest negative of all chunks (every actor returns it)."""
        return await self._step(step, self._kth_highest_negative, w, k)

    async def _kth_highest_negative(self, step, w, k):
        s = await self._run(lambda: np.concatenate(self._scores(w)))
        mine = await self._run(top_values, s[~self.all_pos], k)
        return float(merge_top(k, mine, *await self._exchange(step, "top", mine))[0])

    async def lowest_positive_above(self, step, w, level):
        """This worker's lowest positive above ``level`` (the client takes the least)."""
        return await self._step(step, self._local, min_above, w, self.all_pos, level)

    async def highest_below(self, step, w, cut):
        """This worker's highest score below ``cut`` (the client takes the largest)."""
        return await self._step(step, self._local, max_below, w, cut)

    async def _local(self, step, func, w, *args):
        return await self._run(lambda: func(np.concatenate(self._scores(w)), *args))

    async def youden(self, step, w, m, n):
        """The best Youden pair over this worker's positives, against every
        worker's sorted scores (the client takes the largest)."""
        return await self._step(step, self._youden, w, m, n)

    async def _youden(self, step, w, m, n):
        s = await self._run(lambda: np.concatenate(self._scores(w)))
        pos = self.all_pos
        mine = await self._run(lambda: (np.sort(s[pos]), np.sort(s[~pos])))
        lists = [mine] + await self._exchange(step, "sorted", mine)
        return await self._run(best_youden, mine[0], m, n, [pl for pl, _ in lists],
                               [nl for _, nl in lists])


# --------------------------------------------------------------------------
# The client's side: the design the solver, the CCCP loop and the threshold see
# --------------------------------------------------------------------------

class _ActorOrderStatistics:
    """The order statistics of :func:`pauc._threshold.threshold_rule` at ``w``,
    one actor call each."""

    def __init__(self, design, w):
        self._design, self._w = design, w
        self.n_pos, self.n_neg = design.n_pos, design.n_neg

    def kth_highest_negative(self, k):
        return self._design._call("kth_highest_negative", self._w, k)[0]

    def lowest_positive_above(self, level):
        return min(self._design._call("lowest_positive_above", self._w, level))

    def youden(self):
        return max(self._design._call("youden", self._w, self.n_pos, self.n_neg))

    def highest_below(self, cut):
        return max(self._design._call("highest_below", self._w, cut))


def _handle(address, key, direct):
    """A client-side handle on the actor ``key``.

    ``direct``: calls go straight to the actor's worker, as Dask's handles
    do only when the client was made with ``direct_to_workers=True`` (by
    default they go through the scheduler: one hop each way more; measured:
    ``docs/developer/measurements.rst``, 'Chunked fits on actors').  When the
    first call cannot reach the
    workers directly (``OSError``, after Dask's connection timeout),
    :class:`ActorDesign` falls back to Dask's route and remembers it for the
    client; a client made with ``direct_to_workers=False`` never goes direct.
    The override is of a private property: should a later ``distributed``
    drop it, the handles take Dask's route, slower but with the same results.
    """
    if not direct:
        return Actor(ChunkActor, address, key)

    class _DirectActor(Actor):
        @property
        def _worker_rpc(self):
            if self._worker is None and self._client is not None:
                return self._client.rpc(self._address)
            return super()._worker_rpc

        def __reduce__(self):
            return (Actor, (self._cls, self._address, self.key))

    return _DirectActor(ChunkActor, address, key)


# Clients whose workers could not be reached directly (see _handle).
_UNREACHABLE = weakref.WeakKeyDictionary()


def assign_chunks(sizes, owners, workers):
    """Chunks to workers, ``{address: [chunk, ...]}`` (chunks in row order).

    As many actors as ``workers`` (at most one per chunk), with about equal
    rows (the slowest actor sets the pace of every step): a chunk stays on
    the worker holding it unless that worker already has a quarter more than
    an equal share (or is not among ``workers``); then it goes to the least
    loaded worker (copied there once, when its actor starts).
    """
    count = min(len(workers), len(sizes))
    holding = [w for w in dict.fromkeys(owners) if w in workers]
    chosen = (holding + [w for w in workers if w not in holding])[:count]
    limit = max(1.25 * sum(sizes) / count, max(sizes))
    load = dict.fromkeys(chosen, 0)
    groups = {w: [] for w in chosen}
    for k, (size, target) in enumerate(zip(sizes, owners)):
        if target not in load or load[target] + size > limit:
            target = min(chosen, key=lambda w: (load[w], chosen.index(w)))
        load[target] += size
        groups[target].append(k)
    return {w: ks for w, ks in groups.items() if ks}


def _raise_errors(futures):
    """Raise the error of the first failed future (e.g. a chunk of X or y
    whose computation failed) instead of a confusing error later."""
    for future in futures:
        if future.status == "error":
            raise future.exception()


class ActorDesign(Design):
    """A chunked design whose chunks are held by one :class:`ChunkActor` per
    worker, for the duration of one fit (:meth:`close` releases them).

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Persisted row chunks (dense or scipy.sparse blocks), one column chunk.
    y : dask.array.Array
        The labels, with ``X``'s row chunks; :meth:`set_positive` makes the
        design's positives.
    client : dask.distributed.Client
    """

    def __init__(self, X, y, client):
        self.labels = None
        self._client = client
        self._background = set()
        self.shape = X.shape
        self.row_chunks = tuple(int(c) for c in X.chunks[0])
        self._step = 0
        self.actors, self._futures = [], []
        (y,) = dask.persist(y)
        self._y = y
        x_futures = sorted(client.futures_of(X), key=lambda f: f.key[1])
        y_futures = sorted(client.futures_of(y), key=lambda f: f.key[1])
        distributed.wait(x_futures)     # who_has knows computed chunks only
        _raise_errors(x_futures)
        owners = client.who_has(x_futures)
        running = [address for address, info in client.scheduler_info()["workers"].items()
                   if info.get("status", "running") == "running"]
        groups = assign_chunks(self.row_chunks,
                         [(owners[f.key] or [None])[0] for f in x_futures],
                         running or list(client.scheduler_info()["workers"]))
        # Keys chosen here so that each actor knows its peers from the start.
        token = uuid.uuid4().hex
        keys = {address: f"pauc-chunk-actor-{token}-{i}" for i, address in enumerate(groups)}
        self._futures = [
            client.submit(ChunkActor, ks, [(a, keys[a]) for a in groups if a != address],
                          *[x_futures[k] for k in ks], *[y_futures[k] for k in ks],
                          key=keys[address], actor=True, workers=[address],
                          allow_other_workers=False)
            for address, ks in groups.items()]
        try:
            self._wait_started(groups)
            self._start(groups, keys)
        except BaseException:
            self.close()
            raise

    def _wait_started(self, groups):
        """Wait for the actors; raise their errors (a chunk of X or y that could
        not be computed), or a clear one if a chosen worker left meanwhile (the
        actor, pinned to it, would never start)."""
        while True:
            try:
                distributed.wait(self._futures, timeout=2.0)
                break
            except distributed.TimeoutError:
                workers = self._client.scheduler_info()["workers"]
                gone = [address for address in groups if address not in workers]
                if gone:
                    raise RuntimeError(f"worker(s) {gone} left the cluster while the fit's "
                                       "actors were starting; fit again") from None
        _raise_errors(self._futures)

    def _start(self, groups, keys):
        """The handles on the started actors; their first call (the labels)
        also tells whether the workers can be reached directly."""
        handles = [(address, keys[address]) for address in groups]
        setting = self._client.direct_to_workers
        direct = setting is True or (setting is None and self._client not in _UNREACHABLE)
        self.actors = [_handle(address, key, direct) for address, key in handles]
        try:
            self._classes = self._gather("distinct_labels")
        except OSError:
            if not direct or setting is True:
                raise
            # The workers cannot be reached directly: through the scheduler,
            # for this client's later fits too.
            _UNREACHABLE[self._client] = True
            self.actors = [_handle(address, key, False) for address, key in handles]
            self._classes = self._gather("distinct_labels")

    def distinct_labels(self):
        """The distinct values of ``y`` (each worker's, merged here)."""
        return np.unique(np.concatenate(self._classes))

    def set_positive(self, positive):
        """Take ``y == positive`` as the positive rows; the actors count them."""
        counts = {}
        for part in self._gather("set_positive", positive):
            counts.update(part)
        self.labels = ChunkedLabels(self._y == positive, [counts[k] for k in sorted(counts)])
        self.n_pos, self.n_neg = self.labels.n_pos, self.labels.n_neg

    @property
    def defined(self):
        return self.n_pos > 0 and self.n_neg > 0

    def cut(self, w, problem):
        check_chunked_search(problem.surrogate)
        start = time.perf_counter()
        w = np.asarray(w, dtype=np.float64).ravel()
        if problem.is_auc(self.n_neg):
            inv_n = problem.scale / (float(self.n_pos) * float(self.n_neg))
            parts = self._call("auc_cut", w, inv_n)
        else:
            inv_n = problem.scale / (float(self.n_pos) * float(problem.j_beta - problem.j_alpha))
            parts = self._call("window_cut", w, problem.j_alpha, problem.j_beta, inv_n)
        g = sum_arrays(*[part[0] for part in parts])
        dot = float(sum(part[1] for part in parts))
        loss = float(sum(part[2] for part in parts) * inv_n)
        return Cut(g, loss, loss - dot, time_oracle=time.perf_counter() - start)

    def threshold(self, w, operating_fpr, scores=None):
        stats = _ActorOrderStatistics(self, np.asarray(w, dtype=np.float64).ravel())
        return threshold_rule(stats, operating_fpr)

    def _call(self, method, *args):
        """``method(step, *args)`` on every actor (one step of the exchanges)."""
        self._step += 1
        replies = self._gather(method, self._step, *args, step=self._step)
        _exchanged[0] += sum(from_peers for _, from_peers in replies)
        return [result for result, _ in replies]

    def _gather(self, method, *args, step=None, timeout=None):
        """``method(*args)`` on every actor, awaited together in one trip to
        the client's event loop.  When one actor's call fails in ``step``, the
        actors whose calls are still running are told to stop waiting
        (``abort``, not awaited: the failed one may be a lost worker); the
        failed actor's own error is raised, before any peer's
        :class:`PeerFailed`.  ``timeout``: seconds, then the calls still
        running count as failed (``TimeoutError``)."""

        async def outcome(actor, name, *call_args):
            try:
                return True, await getattr(actor, name)(*call_args)
            except Exception as exc:
                return False, exc

        def abort(pending):
            for actor in pending:
                task = asyncio.ensure_future(outcome(actor, "abort", step))
                self._background.add(task)              # a strong reference until done
                task.add_done_callback(self._background.discard)

        async def call_all():
            calls = {asyncio.ensure_future(outcome(actor, method, *args)): actor
                     for actor in self.actors}
            try:
                aborted = step is None
                for done in asyncio.as_completed(list(calls), timeout=timeout):
                    ok, _ = await done
                    if not ok and not aborted:
                        aborted = True
                        abort([actor for call, actor in calls.items() if not call.done()])
                return [call.result() for call in calls]
            except asyncio.TimeoutError:
                return [call.result() if call.done() else (False, TimeoutError(method))
                        for call in calls]
            finally:
                for call in calls:
                    call.cancel()

        outcomes = self._client.sync(call_all)
        errors = [value for ok, value in outcomes if not ok]
        if errors:
            raise sorted(errors, key=lambda exc: isinstance(exc, PeerFailed))[0]
        results = [value for _, value in outcomes]
        # benchmark instrumentation (pauc's bench/bench_dask.py), one sizeof per step
        _received[0] += sizeof(results)
        return results

    def close(self):
        """Release the actors: each drops its chunks and stops a step still
        running (an interrupted fit), then their keys are released."""
        try:
            if self.actors:
                self._gather("release", timeout=5.0)
        except Exception as exc:       # a lost worker: its actor is gone anyway
            _logger.debug("releasing the chunk actors: %r", exc)
        finally:
            self.actors = []
            for future in self._futures:
                future.release()
            self._futures = []


def distributed_client():
    """The ``dask.distributed`` client that is the current scheduler, else None
    (a chunked fit then runs as task graphs)."""
    try:
        client = distributed.default_client()
    except ValueError:
        return None
    if dask.base.get_scheduler() != client.get:
        return None
    return client
