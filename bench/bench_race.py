"""The race of GradientBoostingRanker's candidates against the full run (issue 34).

On a set shaped like issue 34's held-out set G (``make_classification``: 100,000
rows x 22 features, 10 % positives, half for training, half for the test; window
[0, 0.1]; one thread) and on sets of ``bench/panel_real.py`` (their first
split), the defaults fitted with the race and without it
(``pauc.gbm._race.RACING``), timed alternately in the same run: the time
ratio, the kept entry and its weights, the test pAUC of each, and what the race
dropped::

    python bench/bench_race.py                       # the set shaped like G, seed 0
    python bench/bench_race.py --seeds 0 1 2 --sets a9a mc-issue
"""

import argparse
import sys
import time
from pathlib import Path

from sklearn.datasets import make_classification

from pauc.gbm import GradientBoostingRanker, _race
from pauc.metrics import partial_auc

sys.path.insert(0, str(Path(__file__).parent))

WINDOW = (0.0, 0.1)


def shaped_like_g(seed):
    X, y = make_classification(100_000, 22, n_informative=10, weights=[0.9], flip_y=0.02,
                               class_sep=0.8, random_state=seed)
    return X[:50_000], y[:50_000], X[50_000:], y[50_000:]


def fit(X, y, racing):
    saved, _race.RACING = _race.RACING, racing
    try:
        start = time.perf_counter()
        model = GradientBoostingRanker(WINDOW, random_state=0, n_jobs=1).fit(X, y)
        return model, time.perf_counter() - start
    finally:
        _race.RACING = saved


def compare(name, X, y, Xt, yt):
    raced, t_on = fit(X, y, True)
    full, t_off = fit(X, y, False)
    res = raced.cv_results_
    kept = res["weights"][res["candidate"].index(raced.selected_)]
    full_kept = full.cv_results_["weights"][full.cv_results_["candidate"].index(full.selected_)]
    print(f"{name:<22} {t_on / t_off:8.2f}  {raced.selected_:>12} {full.selected_:>12}  "
          f"{partial_auc(yt, raced.decision_function(Xt), fpr_range=WINDOW):.4f}  "
          f"{partial_auc(yt, full.decision_function(Xt), fpr_range=WINDOW):.4f}  "
          f"{'same' if kept == full_kept else 'differ'}", flush=True)
    for n, d in zip(res["candidate"], res["dropped"]):
        if d:
            print(f"{'':<24}{n}: {d}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0],
                        help="seeds of the set shaped like G")
    parser.add_argument("--sets", nargs="+", default=[],
                        help="sets of bench/panel_real.py (their first split)")
    args = parser.parse_args()
    print(f"{'set':<22} {'on/off':>8}  {'kept (race)':>12} {'kept (full)':>12}  "
          f"{'pAUC':>6}  {'full':>6}  weights")
    for seed in args.seeds:
        compare(f"shaped like G, {seed}", *shaped_like_g(seed))
    if args.sets:
        from panel_real import load
        for name in args.sets:
            compare(name, *load(name)[0])


if __name__ == "__main__":
    main()
