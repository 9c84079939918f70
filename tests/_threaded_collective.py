"""Test-only: workers as threads of one process, with the reductions of a communicator.

:func:`run_workers` calls ``function(comm, *args)`` once per partition, each in
its own thread with a :class:`ThreadedComm` of rank ``r``; the reductions
block until every thread has contributed (as an allreduce does), so the
distributed protocols run unchanged on many partitions in milliseconds.
"""

import threading

import numpy as np


class _World:
    def __init__(self, size):
        self.size = size
        self.barrier = threading.Barrier(size, timeout=30)
        self.slots = [None] * size


class ThreadedComm:
    """``sum`` / ``max`` / ``min`` over the threads of one :func:`run_workers` call."""

    def __init__(self, world, rank):
        self._world, self.rank, self.world_size = world, rank, world.size
        self.n_calls, self.bytes_sent = 0, 0

    def _reduce(self, array, ufunc):
        array = np.ascontiguousarray(array)
        self.n_calls += 1
        self.bytes_sent += array.nbytes
        self._world.slots[self.rank] = array.copy()
        self._world.barrier.wait()
        out = ufunc.reduce(np.stack(self._world.slots), axis=0)
        self._world.barrier.wait()      # every thread has read the slots
        return out

    def sum(self, array):
        return self._reduce(array, np.add)

    def max(self, array):
        return self._reduce(array, np.maximum)

    def min(self, array):
        return self._reduce(array, np.minimum)


def run_workers(function, per_rank_args):
    """``[function(comm_r, *per_rank_args[r]) for r]``, the calls run concurrently."""
    world = _World(len(per_rank_args))
    results, errors = [None] * world.size, []

    def target(rank):
        try:
            results[rank] = function(ThreadedComm(world, rank), *per_rank_args[rank])
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)
            world.barrier.abort()

    threads = [threading.Thread(target=target, args=(r,)) for r in range(world.size)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results
