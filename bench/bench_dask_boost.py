"""Dask (issue 26): window boosting on XGBoost's collective, every row measured in one run.

Rows (targets of issue 26):

* ``GradientBoostingRanker(engine="xgboost")`` fit on a ``LocalCluster`` of 2
  worker processes (1 thread each) / the same fit in one process
  (``n_jobs=2``), 10^6 x 20 float32, rows sorted by the label-driving
  feature (each worker a different top), window exponential loss, fixed
  rounds                                                                <= 2
* the window objective's reduce traffic per round and worker: bytes it
  contributes to ``xgboost.collective.allreduce`` and the number of
  reductions, from the objective's own record (``GlobalWindowObjective(
  record=...)``), at 10^5 and 10^6 rows: O(bins), not O(rows); also the
  validation metric's bytes (it gathers the top of the validation curve)
* ``--big``: 10^7 x 20 float32 generated lazily on the workers
  (``dask.array.random``, never on the client), 2 workers: completes; peak
  RSS of each worker process (sampled every 20 ms by a thread in the worker)
  / the bytes of its partition of ``X`` and ``y``, against XGBoost's own
  ``binary:logistic`` on the same partitions, measured in the same run
  (``bench_dask_memory.py``)                             <= XGBoost's + 0.35
* ``engine="xgboost"`` / ``engine="lightgbm"`` fit in one process: a9a (the
  default ``loss="auto"`` with early stopping) and 10^6 x 20 (exponential,
  fixed rounds)                                                        report
* the cross-fitted selection on the cluster (``loss="auto"``, ``cv=3``, early
  stopping), 10^5 x 20: distributed / one process                      report

    python bench/bench_dask_boost.py            # rows 1, 2, 4 (a few minutes)
    python bench/bench_dask_boost.py --big      # also the 10^7 row
    python bench/bench_dask_boost.py --quick    # 10^5 rows instead of 10^6
"""

import argparse
import os
import time
import uuid

import numpy as np

import dask.array as da
import xgboost as xgb
import xgboost.dask  # noqa: F401
from dask.distributed import Client, LocalCluster

from pauc.gbm import GradientBoostingRanker
from pauc.datasets import load_a9a
from pauc.distributed._xgboost_window import GlobalWindowMetric, GlobalWindowObjective, records

WINDOW = (0.0, 0.1)


def _labels(X, noise):
    """A nonlinear label: feature 0 drives it (the sort key of the adversarial order)."""
    score = X[:, 0] + np.sin(2 * X[:, 1]) + X[:, 2] * X[:, 3] + 0.5 * noise
    return (score > 1.3).astype(np.int8)


def lazy_problem(n, d, parts, seed=0):
    """``(X, y)`` as dask arrays generated on the workers, ``parts`` row chunks."""
    rows = -(-n // parts)
    # one more column for the label noise, so that the labels are a blockwise function
    full = da.random.RandomState(seed).standard_normal((n, d + 1), chunks=(rows, d + 1))
    full = full.astype(np.float32)
    y = full.map_blocks(lambda b: _labels(b[:, :d], b[:, d]), drop_axis=1, dtype=np.int8)
    return full[:, :d], y


def sorted_problem(n, d, seed=0):
    """In memory, rows sorted by feature 0 (each of two halves holds its own top)."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d)).astype(np.float32)
    y = _labels(X, rng.standard_normal(n).astype(np.float32))
    order = np.argsort(X[:, 0], kind="stable")
    return X[order], y[order]


def ranker(engine, n_rounds, n_jobs=None):
    return GradientBoostingRanker(WINDOW, loss="exponential", engine=engine,
                                  n_estimators=n_rounds, early_stopping=False,
                                  random_state=0, n_jobs=n_jobs)


def timed(fit):
    start = time.perf_counter()
    model = fit()
    return time.perf_counter() - start, model


def row_distributed_over_single(client, n, d, n_rounds):
    X, y = sorted_problem(n, d)
    rows = -(-n // 2)
    dX, dy = da.from_array(X, chunks=(rows, d)), da.from_array(y, chunks=(rows,))
    dX, dy = client.persist([dX, dy])
    ranker("xgboost", 2).fit(dX[:20_000], dy[:20_000])        # warm-up: imports, tracker
    t_dist, m_dist = timed(lambda: ranker("xgboost", n_rounds).fit(dX, dy))
    t_one, m_one = timed(lambda: ranker("xgboost", n_rounds, n_jobs=2).fit(X, y))
    print(f"[1] distributed fit (2 workers x 1 thread) / one process (2 threads), {n:.0e} x {d}, "
          f"{n_rounds} rounds: {t_dist / t_one:.2f}  (target <= 2)")
    return X, y, dX, dy


def row_cross_fitted(client, n, d, n_rounds):
    """The cross-fitted selection on the cluster: ``loss="auto"`` (4 candidates), 3
    folds, early stopping, distributed / one process (``n_jobs=2``)."""
    X, y = sorted_problem(n, d, seed=1)
    rows = -(-n // 2)
    dX, dy = client.persist([da.from_array(X, chunks=(rows, d)), da.from_array(y, chunks=(rows,))])
    make = lambda **kw: GradientBoostingRanker(WINDOW, engine="xgboost", cv=3,  # noqa: E731
                                               n_estimators=n_rounds, n_iter_no_change=10,
                                               random_state=0, **kw)
    t_dist, m_dist = timed(lambda: make().fit(dX, dy))
    t_one, m_one = timed(lambda: make(n_jobs=2).fit(X, y))
    print(f"[5] cross-fitted fit (loss='auto', cv=3, early stopping, at most {n_rounds} "
          f"rounds), {n:.0e} x {d}: distributed / one process {t_dist / t_one:.2f}; "
          f"selected {m_dist.selected_} / {m_one.selected_}", flush=True)


def row_traffic(client, n, d, n_rounds=10):
    name, mname = f"bench-{uuid.uuid4().hex}", f"bench-{uuid.uuid4().hex}"
    n_val = n // 10
    dX, dy = client.persist(list(lazy_problem(n, d, parts=2, seed=3)))
    vX, vy = client.persist(list(lazy_problem(n_val, d, parts=2, seed=4)))
    train = xgb.dask.DaskQuantileDMatrix(client, dX, dy.astype(np.float32))
    valid = xgb.dask.DaskQuantileDMatrix(client, vX, vy.astype(np.float32), ref=train)
    params = {"eta": 0.1, "max_leaves": 31, "grow_policy": "lossguide", "max_depth": 0,
              "tree_method": "hist", "base_score": 0.0, "disable_default_eval_metric": 1}
    xgb.dask.train(client, params, train, n_rounds,
                   obj=GlobalWindowObjective(WINDOW, record=name),
                   evals=[(valid, "valid")],
                   custom_metric=GlobalWindowMetric([WINDOW], record=mname))
    per_worker = client.run(records, name)
    metric = client.run(records, mname)
    for worker, recs in sorted(per_worker.items(), key=lambda kv: kv[1][0]["rank"]):
        sent = np.array([r["bytes_sent"] for r in recs])
        calls = np.array([r["allreduces"] for r in recs])
        rounds = np.array([r["window"].rounds for r in recs])
        m_sent = np.array([r["bytes_sent"] for r in metric[worker]])
        print(f"[2] n={n:.0e} rank {recs[0]['rank']}: objective bytes/round mean "
              f"{sent.mean():.0f} max {sent.max()}, allreduces/round "
              f"mean {calls.mean():.1f}, selection rounds {rounds.min()}-{rounds.max()}; "
              f"validation metric bytes/round mean {m_sent.mean():.0f} "
              f"({n_val} validation rows)")


def row_big(n, d, n_rounds):
    """The 10^7 row: XGBoost alone (its own ``binary:logistic``, the reference) and the
    distributed fit, each on a fresh 2-worker cluster holding the same persisted,
    balanced partitions (``bench_dask_memory.py`` prints each phase's peak)."""
    from bench_dask_memory import measure
    start = time.perf_counter()
    alone = measure("xgboost", n, d, n_rounds)
    fit = measure("fit", n, d, n_rounds)
    over = max(f - a for f, a in zip(sorted(fit.values()), sorted(alone.values())))
    print(f"[3] {n:.0e} x {d} float32 on 2 workers, {n_rounds} rounds: completed "
          f"({time.perf_counter() - start:.0f} s for both); peak RSS / partition of X and y "
          f"per worker: fit {', '.join(f'{v:.2f}' for v in fit.values())}; XGBoost's own "
          f"binary:logistic {', '.join(f'{v:.2f}' for v in alone.values())}; "
          f"fit - XGBoost at most {over:+.2f} (target <= +0.35)", flush=True)


def row_engines(X, y, n_rounds):
    a9a = load_a9a()
    X_a, y_a = a9a[0], a9a[1]
    auto = lambda e: GradientBoostingRanker(WINDOW, engine=e, random_state=0,  # noqa: E731
                                            n_jobs=2)
    t_x, _ = timed(lambda: auto("xgboost").fit(X_a, y_a))
    t_l, _ = timed(lambda: auto("lightgbm").fit(X_a, y_a))
    print(f"[4] xgboost / lightgbm fit, one process, a9a (loss='auto', early stopping): "
          f"{t_x / t_l:.2f}")
    t_x, _ = timed(lambda: ranker("xgboost", n_rounds, n_jobs=2).fit(X, y))
    t_l, _ = timed(lambda: ranker("lightgbm", n_rounds, n_jobs=2).fit(X, y))
    print(f"[4] xgboost / lightgbm fit, one process, {X.shape[0]:.0e} x {X.shape[1]} "
          f"(exponential, {n_rounds} rounds): {t_x / t_l:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10^5 rows instead of 10^6")
    parser.add_argument("--big", action="store_true", help="also the 10^7 x 20 row")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--only-big", action="store_true", help="only the 10^7 x 20 row")
    args = parser.parse_args()
    n, d = (100_000 if args.quick else 1_000_000), 20
    print(f"load average {os.getloadavg()}", flush=True)
    if args.only_big:
        row_big(10_000_000, d, 20)
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        X, y, dX, dy = row_distributed_over_single(client, n, d, args.rounds)
        del dX, dy
        row_traffic(client, n // 10, d)
        row_traffic(client, n, d)
        row_cross_fitted(client, n // 10, d, args.rounds)
    if args.big:
        row_big(10_000_000, d, 20)
    row_engines(X, y, args.rounds)
    print(f"load average {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
