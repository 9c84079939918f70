"""Benchmark of TreeRank against scikit-learn's CART of the same depth (issue 5).

Every figure is a ratio against a reference measured in the same run, so the
table does not depend on the machine's speed:

* fit time of ``TreeRank(max_depth=10, leafrank_max_depth=1)`` (stumps) and of
  ``TreeRank(max_depth=10, leafrank_max_depth=3)`` over the fit time of
  ``sklearn.tree.DecisionTreeClassifier(max_depth=10)``, on a9a (dense) and on
  RF 20 (n = 20,000);
* test AUC of TreeRank(depth 10) over the test AUC of the CART, RF 20 and a9a;
* test AUC of ``TreeRank()`` with its defaults on the shipped a9a split.

Fit times are the best of ``--repeat`` runs (the machine is shared).

Run:  python bench/bench_tree.py [--repeat 3]
"""

import argparse

from sklearn.tree import DecisionTreeClassifier

from pauc.datasets import load_a9a, make_ranking_forest_data
from pauc.metrics import roc_auc
from pauc.tree import TreeRank

from _timing import best_fit


def cart_scores(model, X):
    return model.predict_proba(X)[:, 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    X_tr, y_tr, X_te, y_te = load_a9a()
    datasets = {"a9a": (X_tr.toarray(), y_tr, X_te.toarray(), y_te)}
    X, y, _ = make_ranking_forest_data("RF20", 40_000, random_state=0)
    datasets["RF20"] = (X[:20_000], y[:20_000], X[20_000:], y[20_000:])

    rows = []
    for name, (X_tr, y_tr, X_te, y_te) in datasets.items():
        t_cart, cart = best_fit(
            lambda: DecisionTreeClassifier(max_depth=10, random_state=0), X_tr, y_tr, args.repeat)
        auc_cart = roc_auc(y_te, cart_scores(cart, X_te))
        rows.append((name, "CART depth 10 (reference)", t_cart, 1.0, auc_cart, 1.0))
        for lr_depth in (1, 3):
            t, tr = best_fit(
                lambda: TreeRank(max_depth=10, leafrank_max_depth=lr_depth, random_state=0),
                X_tr, y_tr, args.repeat)
            auc = roc_auc(y_te, tr.decision_function(X_te))
            rows.append((name, f"TreeRank(max_depth=10, leafrank_max_depth={lr_depth})",
                         t, t / t_cart, auc, auc / auc_cart))
        if name == "a9a":
            t, tr = best_fit(lambda: TreeRank(random_state=0), X_tr, y_tr, args.repeat)
            auc = roc_auc(y_te, tr.decision_function(X_te))
            rows.append((name, "TreeRank() defaults", t, t / t_cart, auc, auc / auc_cart))

    header = f"{'data':<5} {'model':<48} {'fit s':>7} {'time/CART':>9} {'test AUC':>8} {'AUC/CART':>8}"
    print(header)
    print("-" * len(header))
    for name, model, t, tr, auc, ar in rows:
        print(f"{name:<5} {model:<48} {t:7.3f} {tr:9.2f} {auc:8.4f} {ar:8.4f}")


if __name__ == "__main__":
    main()
