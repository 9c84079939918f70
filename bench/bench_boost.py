"""AUCBoost against scikit-learn's AdaBoost with stumps, measured in the same run.

Issue 7 targets:

* fit time, ``AUCBoost(n_estimators=200)`` with ranking stumps /
  ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=200)``,
  on a9a (32 561 × 123, sparse): ≤ 1.5;
* test AUC, AUCBoost / AdaBoost, on a9a and on RF 20 (Ranking Forests paper's
  generator): ≥ 1.0.

Both estimators get the same data (a9a as CSR, as loaded).  "AUCBoost" is the
default (split ranking stump, soft conversion = ref. [5]'s AdaBoost on Lemma 4's
classifier); the table also shows the randomized conversion, the stump ranked
by the AUC of its raw score (spec §7) and MartiRank for reference.

    python bench/bench_boost.py                 # a9a + RF 20 (3 seeds)
    python bench/bench_boost.py --repeat 3      # best of 3 fit times
"""

import argparse

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.metrics import roc_auc_score
from sklearn.tree import DecisionTreeClassifier

from pauc.boost import AUCBoost, MartiRank, RankingStump
from pauc.datasets import load_a9a, make_ranking_forest_data

from _timing import best_fit


def adaboost(seed):
    return AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=200,
                              random_state=seed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--rf-train", type=int, default=5000)
    parser.add_argument("--rf-test", type=int, default=20000)
    parser.add_argument("--rf-seeds", type=int, default=3)
    args = parser.parse_args()

    contenders = {
        "AUCBoost": lambda s: AUCBoost(200, random_state=s),
        "AUCBoost (randomized)": lambda s: AUCBoost(200, conversion="randomized",
                                                    random_state=s),
        "AUCBoost (AUC stump)": lambda s: AUCBoost(
            200, weak_ranker=RankingStump(criterion="auc"), random_state=s),
        "MartiRank (T=10)": lambda s: MartiRank(n_levels=10, random_state=s),
    }

    X, y, Xt, yt = load_a9a()
    t_ada, ada = best_fit(lambda: adaboost(0), X, y, args.repeat)
    auc_ada = roc_auc_score(yt, ada.decision_function(Xt))
    print(f"a9a: {X.shape[0]} x {X.shape[1]} train, {Xt.shape[0]} test")
    print(f"{'model':24s} {'fit s':>8s} {'time ratio':>11s} {'test AUC':>9s} {'AUC ratio':>10s}")
    print(f"{'AdaBoost (stumps)':24s} {t_ada:8.2f} {1.0:11.3f} {auc_ada:9.4f} {1.0:10.4f}")
    for name, make in contenders.items():
        t, model = best_fit(lambda: make(0), X, y, args.repeat)
        auc = roc_auc_score(yt, model.decision_function(Xt))
        print(f"{name:24s} {t:8.2f} {t / t_ada:11.3f} {auc:9.4f} {auc / auc_ada:10.4f}")

    print(f"\nRF 20: {args.rf_train} train, {args.rf_test} test, {args.rf_seeds} seeds "
          "(mean test AUC)")
    Xt, yt, _ = make_ranking_forest_data("RF20", args.rf_test, random_state=1000)
    scores = {"AdaBoost (stumps)": [], **{k: [] for k in contenders}}
    for seed in range(args.rf_seeds):
        X, y, _ = make_ranking_forest_data("RF20", args.rf_train, random_state=seed)
        scores["AdaBoost (stumps)"].append(
            roc_auc_score(yt, adaboost(seed).fit(X, y).decision_function(Xt)))
        for name, make in contenders.items():
            scores[name].append(roc_auc_score(yt, make(seed).fit(X, y).decision_function(Xt)))
    ref = np.mean(scores["AdaBoost (stumps)"])
    print(f"{'model':24s} {'test AUC':>9s} {'AUC ratio':>10s}   per seed")
    for name, vals in scores.items():
        print(f"{name:24s} {np.mean(vals):9.4f} {np.mean(vals) / ref:10.4f}   "
              + " ".join(f"{v:.4f}" for v in vals))


if __name__ == "__main__":
    main()
