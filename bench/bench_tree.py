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

Out-of-bag AUC (issue 21, item 11), reference: the forest's own fit time.

* time of ``oob_score_`` (one pass over the trees' out-of-bag leaves and one
  sort) over the time of the pairwise vote it replaced (kept below as
  ``pairwise_vote_oob``, O(n+·n-·B)) on RF 20 with n = 20,000 and B = 50
  (that vote took 11.5 s there), and over the fit time at n = 200,000;
* the estimate against the test AUC on RF 20 (n = 2,000, B = 50, test
  3,000): the per-point estimate and the pairwise vote.

Fit and predict times are the best of ``--repeat`` runs (the machine is shared);
the forest and its reference are fitted in alternation.

Run:  python bench/bench_tree.py [--repeat 3] [--only tree|forest|oob]

Notes: how the forest's defaults were chosen (moved here from the estimators'
docstrings; the protocol is Table 1's, see ``bench/reproduce_ranking_forests.py``,
n = 2,000 training points, test 3,000)

* ``min_samples_split=150, min_samples_leaf=40``: on RF 20 Case 7 the mean test
  AUC was 0.7407 (10 training sets), 0.7382 with (100, 25), 0.7377 with
  (200, 50), and about 0.01 lower with (50, 10) (4 training sets).
* ``leafrank_criterion="gini"``: on RF 20 Case 7, 0.7407 against 0.7360 with
  ``"gain"`` (10 training sets).
* ``leafrank_max_features="sqrt"`` (FR2 alone, q1 = ⌊√q0⌋, q0 = q): mean test
  AUC over 6 training sets 0.754 on RF 20 (0.738 with q0 = q1 = 5), 0.878 on
  RF 10 sparse (0.880) and 0.719 on RF 10 (0.727).
* ``kemeny_n_iter=None``: on a forest of 50 trees on RF 20 (K = 2,000 cells),
  20,000 annealing moves at ``temperature=1`` never improved on the mean-rank
  start (0.14 % at ``temperature=0.001``), while the best-insertion descent
  lowered the Kendall objective by 1.7 %.
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


def pairwise_vote_oob(leaves, is_pos, samples):
    """The out-of-bag AUC of pauc up to 7c47197 (the reference of the timing):
    every (positive, negative) pair decided by a majority vote of the trees whose
    resample holds neither point.  O(n+ n- B) time, one positive at a time."""
    n_samples, n_trees = leaves.shape
    oob = np.ones((n_samples, n_trees), dtype=bool)
    for b, rows in enumerate(samples):
        oob[rows, b] = False
    pos, neg = np.flatnonzero(is_pos), np.flatnonzero(~is_pos)
    leaves_neg, oob_neg = leaves[neg], oob[neg]
    total, n_pairs = 0.0, 0
    for i in pos:
        usable = oob_neg & oob[i]
        up = ((leaves[i] < leaves_neg) & usable).sum(axis=1)
        down = ((leaves[i] > leaves_neg) & usable).sum(axis=1)
        voted = usable.any(axis=1)
        total += float((up[voted] > down[voted]).sum()
                       + 0.5 * (up[voted] == down[voted]).sum())
        n_pairs += int(voted.sum())
    return total / n_pairs


def oob_rows(repeat):
    header = f"{'data':<13} {'n':>7} {'B':>3} {'what':<44} {'s':>8} {'ratio':>8}"
    print(header)
    print("-" * len(header))
    for n, n_trees, vote in ((20_000, 50, True), (200_000, 10, False)):
        X, y, _ = make_ranking_forest_data("RF20", n, random_state=0)
        t_fit, forest = best_fit(lambda: RankingForest(
            n_estimators=n_trees, max_depth=6, leafrank_max_depth=4, aggregation="mean_rank",
            n_jobs=2, random_state=0), X, y, 1)
        leaves, is_pos = forest._leaves(X), y == forest.classes_[1]
        t_oob = best_time(lambda: forest._oob_auc(leaves, is_pos), repeat)
        print(f"{'RF20':<13} {n:>7,} {n_trees:>3} {'fit (reference)':<44} {t_fit:8.3f} "
              f"{1.0:8.2f}")
        print(f"{'RF20':<13} {n:>7,} {n_trees:>3} {'oob_score_ / fit':<44} {t_oob:8.3f} "
              f"{t_oob / t_fit:8.4f}")
        if vote:
            t_vote = best_time(lambda: pairwise_vote_oob(leaves, is_pos,
                                                         forest.estimators_samples_), 1)
            print(f"{'RF20':<13} {n:>7,} {n_trees:>3} {'pairwise vote of 7c47197 / fit':<44} "
                  f"{t_vote:8.3f} {t_vote / t_fit:8.4f}")
            print(f"{'RF20':<13} {n:>7,} {n_trees:>3} {'pairwise vote / oob_score_':<44} "
                  f"{'':8} {t_vote / t_oob:8.0f}")
    print("(ratios against the forest's fit, RankingForest(max_depth=6, "
          "leafrank_max_depth=4, n_jobs=2), in the same run)\n")

    X, y, _ = make_ranking_forest_data("RF20", 5000, random_state=1)
    X_tr, y_tr, X_te, y_te = X[:2000], y[:2000], X[2000:], y[2000:]
    forest = RankingForest(n_estimators=50, oob_score=True, n_jobs=2, random_state=0)
    forest.fit(X_tr, y_tr)
    test = roc_auc(y_te, forest.decision_function(X_te))
    vote = pairwise_vote_oob(forest._leaves(X_tr), y_tr == forest.classes_[1],
                             forest.estimators_samples_)
    print(f"RF 20, n = 2,000, B = 50: test AUC {test:.4f}; out-of-bag estimate "
          f"{forest.oob_score_:.4f} (ratio {forest.oob_score_ / test:.3f}), pairwise vote of "
          f"7c47197 {vote:.4f} (ratio {vote / test:.3f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("tree", "forest", "oob"), default=None)
    args = parser.parse_args()

    X_tr, y_tr, X_te, y_te = load_a9a()
    a9a = (X_tr.toarray(), y_tr, X_te.toarray(), y_te)
    if args.only in (None, "tree"):
        tree_rows(a9a, args.repeat)
    if args.only in (None, "forest"):
        forest_rows(a9a, args.repeat)
    if args.only in (None, "oob"):
        oob_rows(args.repeat)


if __name__ == "__main__":
    main()
