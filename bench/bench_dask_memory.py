"""Where a distributed boosting fit's peak memory per worker comes from (issue 26).

Each configuration runs on a fresh 2-worker ``LocalCluster`` (1 thread each) on
the same ``n x 20`` float32 rows, generated on the workers in 10 row chunks dealt
to the workers in turn (:func:`placed_problem`) before anything is measured.  A thread in each worker samples the
process's RSS every 20 ms with a timestamp; the client stamps the phases (its
clock is the workers' on one machine), so each phase's peak is read off the
timeline.  Ratios are peak RSS / the bytes of the worker's partition of X and y.

Configurations:

* ``xgboost``: XGBoost alone -- ``DaskQuantileDMatrix`` of the persisted rows,
  ``xgboost.dask.train`` with its own ``binary:logistic``, ``xgboost.dask.predict``
  (the reference: what any objective run inside XGBoost pays);
* ``objective``: the same pipeline with pauc's ``GlobalWindowObjective``;
* ``fit``: ``GradientBoostingRanker(engine="xgboost", loss="exponential",
  early_stopping=False).fit`` (its phases: the DMatrix, training, the threshold's
  scores);
* ``fit-stopping``: the same with early stopping on one validation split.

    python bench/bench_dask_memory.py --rows 10000000 --rounds 10
"""

import argparse
import os
import threading
import time

import dask.array as da
import distributed
import numpy as np
import psutil
from dask.distributed import Client, LocalCluster

WINDOW = (0.0, 0.1)


def _labels(X, noise):
    score = X[:, 0] + np.sin(2 * X[:, 1]) + X[:, 2] * X[:, 3] + 0.5 * noise
    return (score > 1.3).astype(np.int8)


def _chunk(rows, d, seed):
    """One row chunk: C-contiguous float32 ``X`` and its int8 labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, d), dtype=np.float32)
    return X, _labels(X, rng.standard_normal(rows, dtype=np.float32))


def placed_problem(client, n, d, parts):
    """``(X, y)`` generated on the workers, ``parts`` row chunks dealt to the workers
    in turn (the same bytes on each: the scheduler's own placement and
    ``rebalance`` left 6 chunks on one worker and 4 on the other in some runs)."""
    import dask
    import operator
    workers = sorted(client.scheduler_info()["workers"])
    rows = -(-n // parts)
    sizes = [min(rows, n - i * rows) for i in range(parts)]
    pairs = [client.submit(_chunk, r, d, 1000 + i, workers=[workers[i % len(workers)]],
                           pure=False) for i, r in enumerate(sizes)]
    xs = [client.submit(operator.getitem, f, 0, workers=[workers[i % len(workers)]])
          for i, f in enumerate(pairs)]
    ys = [client.submit(operator.getitem, f, 1, workers=[workers[i % len(workers)]])
          for i, f in enumerate(pairs)]
    distributed.wait(xs + ys)
    del pairs                              # the arrays live on in xs and ys (no copy)
    X = da.concatenate([da.from_delayed(dask.delayed(f), (r, d), np.float32)
                        for f, r in zip(xs, sizes)])
    y = da.concatenate([da.from_delayed(dask.delayed(f), (r,), np.int8)
                        for f, r in zip(ys, sizes)])
    return X, y, xs + ys


def _start(key, dask_worker=None):
    process = psutil.Process()
    state = {"samples": [], "stop": threading.Event()}
    setattr(dask_worker, f"_timeline_{key}", state)

    def run():
        while not state["stop"].is_set():
            state["samples"].append((time.time(), process.memory_info().rss))
            time.sleep(0.02)
    threading.Thread(target=run, daemon=True).start()
    return os.getpid()


def _stop(key, dask_worker=None):
    state = getattr(dask_worker, f"_timeline_{key}")
    state["stop"].set()
    return state["samples"]


def _held(keys, dask_worker=None):
    return sum(dask_worker.data[k].nbytes for k in keys if k in dask_worker.data)


class Phases:
    def __init__(self):
        self.stamps = [("start", time.time())]

    def mark(self, name):
        self.stamps.append((name, time.time()))

    def report(self, label, timelines, held):
        """Print each worker's phases; return its peak RSS / partition."""
        peaks = {}
        for w in sorted(timelines):
            samples = np.array(timelines[w])
            base = samples[0, 1]
            parts = [f"before {base / 2**20:.0f} MiB ({base / held[w]:.2f})"]
            for (_, t0), (name, t1) in zip(self.stamps[:-1], self.stamps[1:]):
                inside = samples[(samples[:, 0] >= t0) & (samples[:, 0] <= t1), 1]
                if inside.size:
                    parts.append(f"{name} {inside.max() / 2**20:.0f} MiB "
                                 f"({inside.max() / held[w]:.2f})")
            peak = samples[:, 1].max()
            print(f"[{label}] {w[-5:]}: partition {held[w] / 2**20:.0f} MiB; "
                  + "; ".join(parts) + f"; peak {peak / held[w]:.2f}", flush=True)
            peaks[w] = peak / held[w]
        return peaks


def _xgb_params():
    return {"eta": 0.1, "max_leaves": 31, "grow_policy": "lossguide", "max_depth": 0,
            "tree_method": "hist", "base_score": 0.0, "nthread": 1, "max_bin": 255}


def run_xgboost(client, X, y, rounds, phases, objective=None):
    import xgboost as xgb
    import xgboost.dask  # noqa: F401
    dtrain = xgb.dask.DaskQuantileDMatrix(client, X, y.astype(np.float32), max_bin=255)
    params = _xgb_params()
    if objective is None:
        params["objective"] = "binary:logistic"
    else:
        params["disable_default_eval_metric"] = 1
    # XGBoost builds the quantised matrix on the workers inside train: zero rounds
    # first isolate its construction
    xgb.dask.train(client, params, dtrain, 0, obj=objective)
    phases.mark("dmatrix")
    out = xgb.dask.train(client, params, dtrain, rounds, obj=objective)
    phases.mark("train")
    del dtrain
    scores = xgb.dask.predict(client, out["booster"], X, output_margin=True).persist()
    distributed.wait(scores)
    phases.mark("predict")


def run_fit(client, X, y, rounds, phases, early_stopping):
    from pauc.gbm import GradientBoostingRanker
    from pauc.distributed import _cluster_trainer as _boosting
    train, scores = _boosting._train, _boosting._lazy_scores

    def timed_train(*a, **kw):
        phases.mark("before-train")
        out = train(*a, **kw)
        phases.mark("train")
        return out

    def timed_scores(*a, **kw):
        phases.mark("after-train")
        return scores(*a, **kw)
    _boosting._train, _boosting._lazy_scores = timed_train, timed_scores
    try:
        GradientBoostingRanker(WINDOW, loss="exponential", engine="xgboost",
                               n_estimators=rounds, early_stopping=early_stopping,
                               n_iter_no_change=rounds, random_state=0).fit(X, y)
    finally:
        _boosting._train, _boosting._lazy_scores = train, scores
    phases.mark("threshold")


def measure(label, n, d, rounds):
    from pauc.distributed._xgboost_window import GlobalWindowObjective
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("pauc.distributed._cluster_trainer") and
                   __import__("xgboost.dask"))
        X, y, futures = placed_problem(client, n, d, parts=10)
        held = client.run(_held, [f.key for f in futures])
        key = label
        client.run(_start, key)
        time.sleep(0.2)
        phases = Phases()
        if label == "xgboost":
            run_xgboost(client, X, y, rounds, phases)
        elif label == "objective":
            run_xgboost(client, X, y, rounds, phases, GlobalWindowObjective(WINDOW))
        else:
            run_fit(client, X, y, rounds, phases, label == "fit-stopping")
        time.sleep(0.2)
        phases.mark("end")
        return phases.report(label, client.run(_stop, key), held)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--configs", default="xgboost,objective,fit,fit-stopping")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}", flush=True)
    for label in args.configs.split(","):
        measure(label, args.rows, 20, args.rounds)


if __name__ == "__main__":
    main()
