"""Why CatBoost's defaults win small imbalanced sets: its ingredients taken away one at a time.

Two tables on the small sets of the real-data panel (10 repeated stratified 70/30
splits, mean test pAUC over the windows [0, 0.05], [0, 0.1], [0.02, 0.05]):

* ``catboost``: ``CatBoostClassifier()`` (one thread) and one parameter changed
  per column;
* ``oblivious``: pauc's oblivious-tree booster (:mod:`pauc.gbm.engines._oblivious`,
  1000 rounds at CatBoost's learning rate for the training rows,
  :func:`pauc.gbm._candidates.fixed_learning_rate`, no early stopping, like
  CatBoost's defaults) and one ingredient changed per column; ``catboost``
  is CatBoost's whole recipe (each leaf 10 damped Newton steps on every row, the
  random strength fading with the model's length: the trees of
  ``CatBoostClassifier(bootstrap_type="No", random_strength=0)`` to 1e-14 with
  the same two switched off), ``fixed`` the candidate ``"logloss-fixed"``.

::

    python bench/catboost_ablation.py catboost winequality-red-4 car-good
    python bench/catboost_ablation.py oblivious winequality-red-4 car-good
    python bench/catboost_ablation.py oblivious car-good --columns defaults l2-0.3 l2-0.03
    python bench/catboost_ablation.py oblivious car-good yeast4 --columns defaults \
        leaves-all newton-10 strength-decay catboost
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from panel_real import BASE_WINDOWS, SMALL, load  # noqa: E402

from pauc.metrics import partial_auc  # noqa: E402

CATBOOST = {
    "defaults": {},
    "border32": {"border_count": 32},
    "no-random-strength": {"random_strength": 0},
    "depthwise": {"grow_policy": "Depthwise"},
    "lossguide-31": {"grow_policy": "Lossguide", "max_leaves": 31},
    "ordered": {"boosting_type": "Ordered"},
    "bayesian-bootstrap": {"bootstrap_type": "Bayesian"},
    "no-bootstrap": {"bootstrap_type": "No"},
    "one-newton-step": {"leaf_estimation_iterations": 1},
    "l2-0.3": {"l2_leaf_reg": 0.3},
    "l2-30": {"l2_leaf_reg": 30},
}
OBLIVIOUS = {
    "defaults": {},
    "border32": {"border_count": 32},
    "no-random-strength": {"random_strength": 0.0},
    "l2-score": {"score": "l2"},
    "bayesian-bootstrap": {"bootstrap": "bayesian"},
    "no-bootstrap": {"bootstrap": "none"},
    "l2-0.3": {"l2_leaf_reg": 0.3},
    "l2-0.03": {"l2_leaf_reg": 0.03},
    # CatBoost's ingredients (issue 44), one at a time and together
    "leaves-all": {"leaves": "all"},
    "newton-10": {"leaf_iterations": 10},
    "strength-decay": {"strength_decay": True},
    "catboost": {"leaves": "all", "leaf_iterations": 10, "strength_decay": True},
    "catboost-3-steps": {"leaves": "all", "leaf_iterations": 3, "strength_decay": True},
    "catboost-no-noise": {"leaves": "all", "leaf_iterations": 10, "random_strength": 0.0},
}


def catboost_scores(config, X, y, Xt, seed):
    import catboost
    model = catboost.CatBoostClassifier(thread_count=1, verbose=0, random_seed=seed,
                                        allow_writing_files=False, **config)
    return model.fit(X, y).predict(Xt, prediction_type="RawFormulaVal")


def oblivious_scores(config, X, y, Xt, seed):
    from pauc.gbm._candidates import fixed_learning_rate
    from pauc.gbm.engines._oblivious import OBLIVIOUS_DEFAULTS, boost
    params = dict(OBLIVIOUS_DEFAULTS, learning_rate=fixed_learning_rate(X.shape[0]), seed=seed)
    params.update(config)
    return boost(params, "logloss", (0.0, 0.1), 1000, X, y.astype(bool)).predict(Xt)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("family", choices=("catboost", "oblivious"))
    parser.add_argument("sets", nargs="*", default=list(SMALL))
    parser.add_argument("--columns", nargs="+", default=None)
    args = parser.parse_args()
    configs = CATBOOST if args.family == "catboost" else OBLIVIOUS
    scores = catboost_scores if args.family == "catboost" else oblivious_scores
    columns = args.columns or list(configs)
    print(f"{'set':<28}" + "".join(f"{c:>20}" for c in columns) + f"{'seconds':>10}")
    for name in args.sets:
        start = time.perf_counter()
        means = []
        for column in columns:
            values = []
            for k, (X, y, Xt, yt) in enumerate(load(name)):
                s = scores(configs[column], X, y, Xt, k)
                values.append(np.mean([partial_auc(yt, s, fpr_range=w) for w in BASE_WINDOWS]))
            means.append(np.mean(values))
        print(f"{name:<28}" + "".join(f"{m:>20.4f}" for m in means)
              + f"{time.perf_counter() - start:>10.0f}", flush=True)


if __name__ == "__main__":
    main()
