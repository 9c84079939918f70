"""Dask (issue 9): chunked structural SVMs on a LocalCluster, every row measured in one run.

Rows (targets of issue 9):

* chunked ``AUCSVM(C=100)`` fit on a9a (4 row chunks of CSR) on a
  ``LocalCluster`` of 2 worker processes / the in-memory fit             <= 3
  (also measured, as a report: the same on a ``LocalCluster`` of 2
  in-process workers, ``processes=False``, where the messages between the
  client and the workers do not cross process boundaries)
* bytes received by the client per cutting-plane iteration / (8 n) for
  ``PartialAUCSVM((0, 0.1), C=100)`` on a9a in 10 chunks                  < 1
  (also printed: the same for ``AUCSVM``, and the worker-to-worker bytes,
  which carry the AUC oracle's sorted score lists)
* ``PartialAUCSVM((0, 0.1), C=1)`` fit on a 10^7 x 20 dense synthetic set
  held as 10 chunks, generated lazily by ``dask.array.random`` (never on the
  client): completes; wall time and the client process's peak RSS

The client's received bytes are the results of every task graph (counted by
wrapping ``Client.gather``, which every ``compute`` goes through) plus the
replies of the fit's actors (``pauc.distributed._actors.bytes_received``), both
measured with ``dask.sizeof``; the worker-to-worker bytes are the workers'
``transfer_outgoing_bytes_total`` (task data) plus what the fits' actors
received from each other (``bytes_exchanged``: the AUC oracle's sorted lists,
the tight oracle's top lists and row histograms; see the module docstring of
``pauc/distributed/_actors.py``).  Fit times are the best of ``--repeat`` runs
after one warm-up fit (the machine is shared; the first chunked fit on a new
cluster also pays the workers' imports); the ratios come from the same run.

    python bench/bench_dask.py            # all rows (about two minutes)
    python bench/bench_dask.py --quick    # the last row at 10^6 x 20
"""

import argparse
import os
import sys
import threading
import time
import warnings

import numpy as np
import psutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import best_fit  # noqa: E402

import dask.array as da  # noqa: E402
from dask.distributed import Client, LocalCluster  # noqa: E402
from dask.sizeof import sizeof  # noqa: E402

from pauc.datasets import load_a9a  # noqa: E402
from pauc.svm import AUCSVM, PartialAUCSVM  # noqa: E402
from pauc.distributed._actors import bytes_exchanged, bytes_received  # noqa: E402


class _RssSampler:
    """Peak resident memory of this (the client's) process while a block runs,
    sampled every 10 ms (the process's lifetime peak would include a9a's load)."""

    def __enter__(self):
        self._process = psutil.Process()
        self.before = self.peak = self._process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self._process.memory_info().rss)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        return False


def _row_chunks(n, k):
    edges = np.linspace(0, n, k + 1).round().astype(int)
    return tuple(int(c) for c in np.diff(edges))


class _Traffic:
    """Bytes the client receives (results of every compute) and workers send each other."""

    def __init__(self, client):
        self.client = client
        self.received = 0
        self._gather = client.gather

        def counting_gather(futures, *args, **kwargs):
            result = self._gather(futures, *args, **kwargs)
            self.received += sizeof(result)
            return result

        client.gather = counting_gather

    def worker_bytes(self):
        """Task data sent between workers, and what the fits' actors received from each other."""
        sent = self.client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total)
        return sum(sent.values()) + bytes_exchanged()

    def measure(self, fit):
        self.received = 0
        before, from_actors = self.worker_bytes(), bytes_received()
        fit()
        return (self.received + bytes_received() - from_actors,
                self.worker_bytes() - before)


def _a9a_row(X, y, dX, dy, workers, repeat, target):
    """Chunked / in-memory ``AUCSVM(C=100)`` fit on a9a, on the current client."""
    start = time.perf_counter()
    AUCSVM(C=100.0).fit(dX, dy)
    cold = time.perf_counter() - start
    t_mem, mem = best_fit(lambda: AUCSVM(C=100.0), X, y, repeat)
    t_dask, chunked = best_fit(lambda: AUCSVM(C=100.0), dX, dy, repeat)
    rel = np.abs(chunked.coef_ - mem.coef_).max() / np.abs(mem.coef_).max()
    print(f"  a9a AUCSVM, {workers}: {chunked.n_iter_} iterations chunked, {mem.n_iter_} in "
          f"memory; max |coef diff| / max |coef| = {rel:.1e}; chunked fit / iterations = "
          f"{1e3 * t_dask / chunked.n_iter_:.1f} ms, in memory {1e3 * t_mem / mem.n_iter_:.1f} "
          f"ms; first chunked fit on the cluster {cold:.2f} s")
    ratio = t_dask / t_mem
    return (f"chunked AUCSVM(C=100) fit / in-memory fit, a9a, 4 chunks, {workers}",
            f"{t_dask:.3f} s / {t_mem:.3f} s = {ratio:.2f}",
            "<= 3" if target else "(report)", (ratio <= 3) if target else None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=50) as cluster, \
            Client(cluster) as client:
        X, y, _, _ = load_a9a()
        n = X.shape[0]

        # 1. AUCSVM(C=100) on a9a: chunked / in memory
        chunks = _row_chunks(n, 4)
        dX = da.from_array(X, chunks=(chunks, -1), asarray=False)
        dy = da.from_array(y, chunks=(chunks,))
        rows.append(_a9a_row(X, y, dX, dy, "2 worker processes", args.repeat, target=True))

        # 2. bytes to the client per iteration, 10 chunks
        traffic = _Traffic(client)
        chunks = _row_chunks(n, 10)
        dX = da.from_array(X, chunks=(chunks, -1), asarray=False)
        dy = da.from_array(y, chunks=(chunks,))
        for label, make in [("PartialAUCSVM((0, 0.1), C=100)",
                             lambda: PartialAUCSVM((0.0, 0.1), C=100.0)),
                            ("AUCSVM(C=100)", lambda: AUCSVM(C=100.0))]:
            est = make()
            # the fit's fixed costs (labels, threshold) are measured apart
            received, between = traffic.measure(lambda: est.fit(dX, dy))
            it = est.n_iter_
            fixed_est = make().set_params(max_iter=1)
            fixed, fixed_between = traffic.measure(lambda: fixed_est.fit(dX, dy))
            per_iter = (received - fixed) / max(it - 1, 1)
            ratio = per_iter / (8 * n)
            target = label.startswith("Partial")
            rows.append((f"bytes to client per iteration / 8n, {label}, a9a, 10 chunks",
                         f"{per_iter:.0f} B / {8 * n} B = {ratio:.4f}",
                         "< 1" if target else "(report)", ratio < 1 if target else None))
            exchanged = (between - fixed_between) / max(it - 1, 1) / (8 * n)
            print(f"  {label}: {it} iterations; client received {received} B in all "
                  f"({fixed} B in a 1-iteration fit: labels, threshold, first iteration); "
                  f"workers sent each other {exchanged:.2f} x 8n bytes per iteration")

        client.gather = traffic._gather

        # 3. 10^7 x 20 held as 10 chunks, generated lazily on the workers
        n_big = 10**6 if args.quick else 10**7
        d = 20
        rng = da.random.default_rng(0)
        big_chunks = _row_chunks(n_big, 10)
        Xb = rng.standard_normal((n_big, d), chunks=(big_chunks, d))
        w_true = np.linspace(1.0, -1.0, d)
        yb = (Xb @ w_true + 2.0 * rng.standard_normal(n_big, chunks=(big_chunks,))) > 2.0
        with _RssSampler() as rss:
            start = time.perf_counter()
            est = PartialAUCSVM((0.0, 0.1), C=1.0).fit(Xb, yb)
            t_big = time.perf_counter() - start
        rows.append((f"PartialAUCSVM((0, 0.1), C=1) fit, {n_big:.0e} x {d} lazy, 10 chunks",
                     f"{t_big:.1f} s, {est.n_iter_} iterations; client RSS peak "
                     f"{rss.peak / 2**20:.0f} MB, {rss.before / 2**20:.0f} MB before (X: "
                     f"{8 * n_big * d / 2**20:.0f} MB)", "completes", est.converged_))

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None, silence_logs=50) as cluster, \
            Client(cluster):
        chunks = _row_chunks(n, 4)
        dX = da.from_array(X, chunks=(chunks, -1), asarray=False)
        dy = da.from_array(y, chunks=(chunks,))
        rows.insert(1, _a9a_row(X, y, dX, dy, "2 in-process workers", args.repeat,
                                target=False))

    width = max(len(r[0]) for r in rows)
    print()
    print(f"{'measure':<{width}}  {'value':<60}  {'target':<10}  met")
    for name, value, target, met in rows:
        flag = "-" if met is None else ("yes" if met else "NO")
        print(f"{name:<{width}}  {value:<60}  {target:<10}  {flag}")


if __name__ == "__main__":
    main()
