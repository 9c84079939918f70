"""Issue 44, item 3: does a small-data ensemble beat choosing?

On the panel's 17 small sets, per stratified split and window (the cache of
``bench/panel_real.py run --methods catboost gbm-44pool``): the test pAUC of the
defaults (``gbm-44pool``), of the reference candidate alone (the stopped
oblivious trees, ``logloss-oblivious``) and of the mean of the reference's and
LightGBM's (``LGBMClassifier()`` at its defaults, one thread, the split's seed)
normalised test ranks, each minus CatBoost's defaults, the mean over the splits
+- its standard error.  The ranks are taken within the test rows (a deployed
blend would map each model's scores to its out-of-fold ranks, as the estimator's
blends do; within the test rows the two agree up to the rank scale's
interpolation)::

    python bench/small_ensemble.py
    python bench/small_ensemble.py --method gbm-44pool --sets cm1 yeast4
"""

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from scipy.stats import rankdata

sys.path.insert(0, str(Path(__file__).parent))

from _paths import PANEL_CACHE  # noqa: E402
from panel_real import BASE_WINDOWS, SMALL, load, peer_scores  # noqa: E402

from pauc.metrics import partial_auc  # noqa: E402

REFERENCE = "logloss-oblivious"


def rank01(scores):
    return rankdata(scores) / len(scores)


def margins(name, method):
    """Per split, the mean over the windows of (defaults, reference, ensemble) minus
    CatBoost's test pAUC; splits without the reference's cached scores are left out."""
    cache = Path(PANEL_CACHE) / name
    out = []
    for k, (X, y, X_test, y_test) in enumerate(load(name)):
        catboost = json.loads((cache / "catboost" / f"{k}.json").read_text())["pauc"]
        ours = json.loads((cache / method / f"{k}.json").read_text())["pauc"]
        lgbm = None
        row = []
        for w in BASE_WINDOWS:
            path = cache / method / f"{k}_{w[0]:g}_{w[1]:g}.npz"
            if not path.exists() or f"test__{REFERENCE}" not in np.load(path).files:
                break
            reference = np.load(path)[f"test__{REFERENCE}"]
            if lgbm is None:
                lgbm = peer_scores("lightgbm", X, y, X_test, k)
            both = 0.5 * (rank01(reference) + rank01(lgbm))
            peer = catboost[str(tuple(map(float, w)))]
            row.append([ours[str(tuple(map(float, w)))] - peer,
                        partial_auc(y_test, reference, fpr_range=w) - peer,
                        partial_auc(y_test, both, fpr_range=w) - peer])
        else:
            out.append(np.mean(row, axis=0))
    return np.array(out).reshape(-1, 3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="gbm-44pool")
    parser.add_argument("--sets", nargs="*", default=list(SMALL))
    args = parser.parse_args()
    print(f"{'set':<32}{'splits':>7}  {'defaults':>17}  {'reference':>17}  "
          f"{'mean rank ref+LGBM':>19}")
    means = []
    for name in args.sets:
        m = margins(name, args.method)
        if not len(m):
            print(f"{name:<32}{0:>7}", flush=True)
            continue
        se = m.std(axis=0, ddof=1) / np.sqrt(len(m)) if len(m) > 1 else np.zeros(3)
        means.append(m.mean(axis=0))
        print(f"{name:<32}{len(m):>7}  " + "  ".join(
            f"{v:+.4f} +- {s:.4f}" for v, s in zip(m.mean(axis=0), se)), flush=True)
    means = np.array(means)
    print(f"{'mean over the sets':<32}{'':>7}  " + "  ".join(
        f"{v:+.4f}{'':>10}" for v in means.mean(axis=0)))


if __name__ == "__main__":
    main()
