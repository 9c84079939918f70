"""Benchmark of TreeRank and RankingForest against scikit-learn (issues 5 and 6).

One run, one table per estimator family; every figure is a ratio against a
reference measured in the same run, so the tables do not depend on the
machine's speed.

TreeRank (issue 5), reference ``DecisionTreeClassifier(max_depth=10)``:

* fit time of ``TreeRank(max_depth=10, leafrank_max_depth=1)`` (stumps) and of
  ``TreeRank(max_depth=10, leafrank_max_depth=3)`` over the CART's, on a9a
  (dense) and on RF 20 (n = 20,000);
* test AUC of TreeRank(depth 10) over the CART's, RF 20 and a9a;
* test AUC of ``TreeRank()`` with its defaults on the shipped a9a split.

RankingForest (issue 6), reference ``RandomForestClassifier(n_estimators=50,
n_jobs=2)``:

* fit time of ``RankingForest(n_estimators=50, n_jobs=2)`` (defaults otherwise,
  Kendall-median aggregation included) over the random forest's, on RF 20
  (n = 2,000, test 3,000) and on a9a (n = 32,561, densified);  target <= 3;
* test AUC of the two; target >= 1.0 on RF 20;
* predict time on 10^5 rows of RF 20 with ``aggregation="kemeny"`` (unseen
  cells placed by their Kendall cost, O(K·B) per row) and with
  ``"mean_score"`` (mean of the trees' scores, not from the paper); reported.

Fit and predict times are the best of ``--repeat`` runs (the machine is shared);
the forest and its reference are fitted in alternation.

Run:  python bench/bench_tree.py [--repeat 3] [--only tree|forest]
"""

import argparse

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from pauc.datasets import load_a9a, make_ranking_forest_data
from pauc.metrics import roc_auc
from pauc.tree import RankingForest, TreeRank

from _timing import best_fit, best_time


def proba(model, X):
    return model.predict_proba(X)[:, 1]




def print_table(rows, reference):
    header = (f"{'data':<5} {'model':<52} {'fit s':>7} {'time/ref':>8} {'test AUC':>8} "
              f"{'AUC/ref':>8}")
    print(header)
    print("-" * len(header))
    for name, model, t, tr, auc, ar in rows:
        print(f"{name:<5} {model:<52} {t:7.3f} {tr:8.2f} {auc:8.4f} {ar:8.4f}")
    print(f"(ref = {reference}, fitted in the same run)\n")


def tree_rows(a9a, repeat):
    X, y, _ = make_ranking_forest_data("RF20", 40_000, random_state=0)
    datasets = {"a9a": a9a, "RF20": (X[:20_000], y[:20_000], X[20_000:], y[20_000:])}
    rows = []
    for name, (X_tr, y_tr, X_te, y_te) in datasets.items():
        t_cart, cart = best_fit(
            lambda: DecisionTreeClassifier(max_depth=10, random_state=0), X_tr, y_tr, repeat)
        auc_cart = roc_auc(y_te, proba(cart, X_te))
        rows.append((name, "CART depth 10 (reference)", t_cart, 1.0, auc_cart, 1.0))
        for lr_depth in (1, 3):
            t, tr = best_fit(
                lambda: TreeRank(max_depth=10, leafrank_max_depth=lr_depth, random_state=0),
                X_tr, y_tr, repeat)
            auc = roc_auc(y_te, tr.decision_function(X_te))
            rows.append((name, f"TreeRank(max_depth=10, leafrank_max_depth={lr_depth})",
                         t, t / t_cart, auc, auc / auc_cart))
        if name == "a9a":
            t, tr = best_fit(lambda: TreeRank(random_state=0), X_tr, y_tr, repeat)
            auc = roc_auc(y_te, tr.decision_function(X_te))
            rows.append((name, "TreeRank() defaults", t, t / t_cart, auc, auc / auc_cart))
    print_table(rows, "DecisionTreeClassifier(max_depth=10)")


def forest_rows(a9a, repeat):
    X, y, _ = make_ranking_forest_data("RF20", 5000, random_state=0)
    datasets = {"RF20": (X[:2000], y[:2000], X[2000:], y[2000:]), "a9a": a9a}
    rows, forests = [], {}
    for name, (X_tr, y_tr, X_te, y_te) in datasets.items():
        # Interleaved repeats: both estimators see the same (shared, varying) load.
        t_rf = t = np.inf
        for _ in range(repeat):
            t_rf_now, rf = best_fit(lambda: RandomForestClassifier(
                n_estimators=50, n_jobs=2, random_state=0), X_tr, y_tr, 1)
            t_now, forest = best_fit(lambda: RankingForest(
                n_estimators=50, n_jobs=2, random_state=0), X_tr, y_tr, 1)
            t_rf, t = min(t_rf, t_rf_now), min(t, t_now)
        auc_rf = roc_auc(y_te, proba(rf, X_te))
        rows.append((name, "RandomForestClassifier(50, n_jobs=2) (reference)", t_rf, 1.0,
                     auc_rf, 1.0))
        auc = roc_auc(y_te, forest.decision_function(X_te))
        rows.append((name, "RankingForest(n_estimators=50, n_jobs=2)", t, t / t_rf, auc,
                     auc / auc_rf))
        forests[name] = forest
    print_table(rows, "RandomForestClassifier(n_estimators=50, n_jobs=2)")

    X_big, _, _ = make_ranking_forest_data("RF20", 100_000, random_state=1)
    forest = forests["RF20"]
    t_kemeny = best_time(lambda: forest.decision_function(X_big), repeat)
    forest.set_params(aggregation="mean_score")
    t_mean = best_time(lambda: forest.decision_function(X_big), repeat)
    forest.set_params(aggregation="kemeny")
    print(f"predict 10^5 rows of RF 20 (forest fitted on n = 2,000, K = {forest.n_cells_} "
          f"cells, n_jobs=2): kemeny {t_kemeny:.2f} s, mean_score {t_mean:.2f} s, "
          f"ratio {t_kemeny / t_mean:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("tree", "forest"), default=None)
    args = parser.parse_args()

    X_tr, y_tr, X_te, y_te = load_a9a()
    a9a = (X_tr.toarray(), y_tr, X_te.toarray(), y_te)
    if args.only in (None, "tree"):
        tree_rows(a9a, args.repeat)
    if args.only in (None, "forest"):
        forest_rows(a9a, args.repeat)


if __name__ == "__main__":
    main()
