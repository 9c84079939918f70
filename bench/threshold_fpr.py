"""The FPR that ``threshold_`` keeps on new rows: out-of-fold scores against training scores.

``GradientBoostingRanker`` sets ``threshold_`` of a bag of fold models at the mean
over the folds of the operating threshold of each fold's held-out rows scored by
its models (rows they did not see), and of the training scores where it was
boosted on every row.  Per set: the defaults fitted on each of the panel's
stratified 70/30 splits (window [0, 0.1], one thread), the held-out test rows'
FPR and TPR at ``threshold_`` (now) and at the threshold the same rule gives on
the model's scores of its own training rows (before:
``operating_threshold(decision_function(X_train), y_train, 0.1)``), the mean over
the splits whose model is a bag of fold models (``splits``), and the mean
absolute distance of the test FPR from 0.1.  ``exponential-12k``: a window loss
stopped fold by fold (its fold models on their own scales): ``make_classification``
(24 000 rows, 20 % positives, 3 % flipped labels) halved into training and test
rows, 3 seeds, ``loss="exponential"``::

    python bench/threshold_fpr.py
    python bench/threshold_fpr.py a9a hastie-imb mc-issue exponential-12k
"""

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from panel_real import SMALL, load  # noqa: E402

from pauc._threshold import operating_threshold  # noqa: E402
from pauc.gbm import GradientBoostingRanker  # noqa: E402

FPR = 0.1


def rates(scores, y, threshold):
    return np.mean(scores[y == 0] >= threshold), np.mean(scores[y == 1] >= threshold)


def splits(name):
    """``(splits, estimator parameters)`` of a set."""
    if name != "exponential-12k":
        return load(name), {}
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split
    out = []
    for seed in range(3):
        X, y = make_classification(24000, 10, n_informative=6, weights=[0.8], flip_y=0.03,
                                   random_state=seed)
        X, X_test, y, y_test = train_test_split(X, y, test_size=0.5, stratify=y,
                                                random_state=seed)
        out.append((X, y, X_test, y_test))
    return out, {"loss": "exponential"}


def measure(name):
    """Per split of ``name`` whose model is a bag of fold models: the test (FPR, TPR)
    at the held-out threshold and at the training-score threshold."""
    rows = []
    data, params = splits(name)
    for seed, (X, y, X_test, y_test) in enumerate(data):
        model = GradientBoostingRanker((0.0, FPR), random_state=seed, n_jobs=1,
                                       **params).fit(X, y)
        if model._fitted.held_out_folds() is None:
            continue            # boosted on every row: the training scores, as before
        before = operating_threshold(model.decision_function(X), y == 1, FPR)
        test = model.decision_function(X_test)
        rows.append(rates(test, y_test, model.threshold_) + rates(test, y_test, before))
    return np.array(rows).reshape(-1, 4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=list(SMALL))
    args = parser.parse_args()
    print(f"{'set':<32}{'splits':>7}{'FPR now':>9}{'TPR now':>9}{'FPR before':>12}"
          f"{'TPR before':>12}{'|FPR-0.1| now':>15}{'before':>8}")
    gaps = []
    for name in args.sets:
        r = measure(name)
        if not len(r):
            print(f"{name:<32}{0:>7}  (every split boosted on every row)", flush=True)
            continue
        gap = np.abs(r[:, [0, 2]] - FPR).mean(axis=0)
        gaps.append(gap)
        print(f"{name:<32}{len(r):>7}{r[:, 0].mean():9.4f}{r[:, 1].mean():9.4f}"
              f"{r[:, 2].mean():12.4f}{r[:, 3].mean():12.4f}{gap[0]:15.4f}{gap[1]:8.4f}",
              flush=True)
    gaps = np.array(gaps)
    print(f"{'mean over the sets':<32}{'':>7}{'':>9}{'':>9}{'':>12}{'':>12}"
          f"{gaps[:, 0].mean():15.4f}{gaps[:, 1].mean():8.4f}")
    print(f"sets where now is closer to {FPR}: {(gaps[:, 0] < gaps[:, 1]).sum()} of {len(gaps)}")


if __name__ == "__main__":
    main()
