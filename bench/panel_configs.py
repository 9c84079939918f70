"""LightGBM tree configurations on the small sets of the real-data panel.

Each configuration is boosted on log-loss, 5-fold bagged (each fold model stopped
on its held-out fold's log-loss, patience 200, up to 3000 rounds) on each of the 10
stratified 70/30 splits of ``bench/panel_real.py``; the mean test pAUC over
[0, 0.05], [0, 0.1] and [0.02, 0.05] is printed per configuration.  This chose
GradientBoostingRanker's small-tree candidates (``pauc.gbm._candidates``)::

    python bench/panel_configs.py winequality-red-4 abalone-17_vs_7-8-9-10
"""

import sys

import lightgbm as lgb
import numpy as np
from sklearn.model_selection import StratifiedKFold

from pauc.metrics import partial_auc
from panel_real import BASE_WINDOWS, load

BASE = dict(objective="binary", metric="binary_logloss", verbosity=-1, num_threads=1,
            deterministic=True, force_row_wise=True)
SMALL = dict(num_leaves=7, learning_rate=0.03, min_data_in_leaf=10, lambda_l2=3.0,
             bagging_fraction=0.8, bagging_freq=1, feature_fraction=0.8)
CONFIGS = {
    "small": SMALL,
    "tiny": dict(SMALL, num_leaves=4, min_data_in_leaf=20, lambda_l2=10.0,
                 feature_fraction=0.5),
    "extra": dict(SMALL, extra_trees=True),
    "depth3": dict(SMALL, max_depth=3, num_leaves=8, min_data_in_leaf=5),
    "smooth": dict(SMALL, path_smooth=20.0),
    "stumps": dict(SMALL, num_leaves=2, learning_rate=0.05),
}


def bagged_scores(params, X, y, Xt, seed):
    total = 0.0
    folds = StratifiedKFold(5, shuffle=True, random_state=seed).split(X, y)
    for f, (a, b) in enumerate(folds):
        booster = lgb.train(dict(params, seed=f), lgb.Dataset(X[a], y[a]), 3000,
                            valid_sets=[lgb.Dataset(X[b], y[b])],
                            callbacks=[lgb.early_stopping(200, verbose=False)])
        total = total + booster.predict(Xt, raw_score=True,
                                        num_iteration=booster.best_iteration)
    return total


def main():
    for name in sys.argv[1:]:
        results = {c: [] for c in CONFIGS}
        for k, (X, y, Xt, yt) in enumerate(load(name)):
            for c, config in CONFIGS.items():
                s = bagged_scores(dict(BASE, **config), X, y, Xt, seed=k)
                results[c].append(np.mean([partial_auc(yt, s, fpr_range=w)
                                           for w in BASE_WINDOWS]))
        print(name, {c: round(float(np.mean(v)), 4) for c, v in results.items()}, flush=True)


if __name__ == "__main__":
    main()
