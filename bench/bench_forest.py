"""Benchmark of RankingForest against scikit-learn's RandomForestClassifier (issue 6).

Every figure is a ratio against a reference measured in the same run:

* fit time of ``RankingForest(n_estimators=50, n_jobs=2)`` (defaults otherwise,
  Kendall-median aggregation included) over that of
  ``RandomForestClassifier(n_estimators=50, n_jobs=2)``, on RF 20 (n = 2,000)
  and on a9a (n = 32,561, densified);  target <= 3;
* test AUC of the two on the same data; target >= 1.0 on RF 20;
* predict time on 10^5 rows of RF 20 with ``aggregation="kemeny"`` (unseen
  cells placed by their Kendall cost, O(K·B) per row) over the time with
  ``"mean_score"`` (mean of the trees' scores); reported.

Fit times are the best of ``--repeat`` runs (the machine is shared).

Run:  python bench/bench_forest.py [--repeat 1] [--skip-a9a]
"""

import argparse
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from pauc.datasets import load_a9a, make_ranking_forest_data
from pauc.metrics import roc_auc
from pauc.tree import RankingForest


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-a9a", action="store_true")
    args = parser.parse_args()

    X, y, _ = make_ranking_forest_data("RF20", 5000, random_state=0)
    datasets = {"RF20": (X[:2000], y[:2000], X[2000:], y[2000:])}
    if not args.skip_a9a:
        X_tr, y_tr, X_te, y_te = load_a9a()
        datasets["a9a"] = (X_tr.toarray(), y_tr, X_te.toarray(), y_te)

    rows = []
    forests = {}
    for name, (X_tr, y_tr, X_te, y_te) in datasets.items():
        t_rf, rf = best_time(lambda: RandomForestClassifier(
            n_estimators=50, n_jobs=2, random_state=0).fit(X_tr, y_tr), args.repeat)
        t_rkf, rkf = best_time(lambda: RankingForest(
            n_estimators=50, n_jobs=2, random_state=0).fit(X_tr, y_tr), args.repeat)
        auc_rf = roc_auc(y_te, rf.predict_proba(X_te)[:, 1])
        auc_rkf = roc_auc(y_te, rkf.decision_function(X_te))
        rows.append((name, t_rkf, t_rf, auc_rkf, auc_rf))
        forests[name] = rkf

    print(f"{'data':<5} {'RkF fit s':>9} {'RF fit s':>8} {'fit ratio':>9} {'RkF AUC':>8} "
          f"{'RF AUC':>7} {'AUC ratio':>9}")
    for name, t_rkf, t_rf, auc_rkf, auc_rf in rows:
        print(f"{name:<5} {t_rkf:9.2f} {t_rf:8.2f} {t_rkf / t_rf:9.2f} {auc_rkf:8.4f} "
              f"{auc_rf:7.4f} {auc_rkf / auc_rf:9.4f}")

    X_big, _, _ = make_ranking_forest_data("RF20", 100_000, random_state=1)
    forest = forests["RF20"]
    t_kem, _ = best_time(lambda: forest.decision_function(X_big), args.repeat)
    forest.set_params(aggregation="mean_score")
    t_mean, _ = best_time(lambda: forest.decision_function(X_big), args.repeat)
    forest.set_params(aggregation="kemeny")
    print(f"\npredict 10^5 rows (RF20 forest, K = {forest.n_cells_} cells): kemeny {t_kem:.2f} s, "
          f"mean_score {t_mean:.2f} s, ratio {t_kem / t_mean:.1f}")


if __name__ == "__main__":
    main()
