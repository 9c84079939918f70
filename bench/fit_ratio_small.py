"""GradientBoostingRanker's fit time against CatBoost's defaults on the small real sets,
both in the same run: per set, the first of bench/panel_real.py's stratified splits,
window [0, 0.1], one thread each, the two fits one after the other; the ratio and its
median over the sets (issue 44: the price of the thin-evidence pool's fixed budget)::

    python bench/fit_ratio_small.py
    python bench/fit_ratio_small.py car-good kr-vs-k-zero-one_vs_draw
    python bench/fit_ratio_small.py --no-saturation car-good vowel0   # also the fit
        # without the saturated window's rule (pauc.gbm._plan.SATURATED_CRITERION = inf)
    python bench/fit_ratio_small.py --no-pooling   # also the fit with each fold
        # stopped on its own held-out rows (pauc.gbm._stopping.POOLED = False)
"""

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from panel_real import SMALL, load, peer_scores  # noqa: E402

from pauc.gbm import GradientBoostingRanker, _stopping
from pauc.gbm import _plan as _fit  # noqa: E402


def _seconds(fit):
    start = time.perf_counter()
    fit()
    return time.perf_counter() - start


def _pauc_fit(X, y, saturation=True, pooling=True):
    limit, pooled = _fit.SATURATED_CRITERION, _stopping.POOLED
    _fit.SATURATED_CRITERION = limit if saturation else float("inf")
    _stopping.POOLED = pooling
    try:
        GradientBoostingRanker((0.0, 0.1), random_state=0, n_jobs=1).fit(X, y)
    finally:
        _fit.SATURATED_CRITERION, _stopping.POOLED = limit, pooled


def main(sets, no_saturation=False, no_pooling=False):
    extra = f"{'no rule s':>10}{'ratio':>7}" if no_saturation else ""
    extra += f"{'per fold s':>11}{'ratio':>7}" if no_pooling else ""
    print(f"{'set':<32}{'pauc s':>8}{'catboost s':>11}{'ratio':>7}" + extra)
    ratios = []
    for name in sets:
        X, y, Xt, _ = load(name)[0]
        ours = _seconds(lambda: _pauc_fit(X, y))
        theirs = _seconds(lambda: peer_scores("catboost", X, y, Xt, 0))
        ratios.append(ours / theirs)
        line = f"{name[:31]:<32}{ours:8.2f}{theirs:11.2f}{ours / theirs:7.2f}"
        if no_saturation:
            without = _seconds(lambda: _pauc_fit(X, y, saturation=False))
            line += f"{without:10.2f}{without / theirs:7.2f}"
        if no_pooling:
            per_fold = _seconds(lambda: _pauc_fit(X, y, pooling=False))
            line += f"{per_fold:11.2f}{per_fold / theirs:7.2f}"
        print(line, flush=True)
    print(f"median ratio {np.median(ratios):.2f}")


if __name__ == "__main__":
    flags = ("--no-saturation", "--no-pooling")
    args = [a for a in sys.argv[1:] if a not in flags]
    main(args or list(SMALL), no_saturation=flags[0] in sys.argv[1:],
         no_pooling=flags[1] in sys.argv[1:])
