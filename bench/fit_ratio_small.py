"""GradientBoostingRanker's fit time against CatBoost's defaults on the small real sets,
both in the same run: per set, the first of bench/panel_real.py's stratified splits,
window [0, 0.1], one thread each, the two fits one after the other; the ratio and its
median over the sets (issue 44: the price of the thin-evidence pool's fixed budget)::

    python bench/fit_ratio_small.py
    python bench/fit_ratio_small.py car-good kr-vs-k-zero-one_vs_draw
"""

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from panel_real import SMALL, load, peer_scores  # noqa: E402

from pauc.boost import GradientBoostingRanker  # noqa: E402


def main(sets):
    print(f"{'set':<32}{'pauc s':>8}{'catboost s':>11}{'ratio':>7}")
    ratios = []
    for name in sets:
        X, y, Xt, _ = load(name)[0]
        start = time.perf_counter()
        GradientBoostingRanker((0.0, 0.1), random_state=0, n_jobs=1).fit(X, y)
        ours = time.perf_counter() - start
        start = time.perf_counter()
        peer_scores("catboost", X, y, Xt, 0)
        theirs = time.perf_counter() - start
        ratios.append(ours / theirs)
        print(f"{name[:31]:<32}{ours:8.2f}{theirs:11.2f}{ours / theirs:7.2f}", flush=True)
    print(f"median ratio {np.median(ratios):.2f}")


if __name__ == "__main__":
    main(sys.argv[1:] or list(SMALL))
