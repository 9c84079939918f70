"""Speed of the ROC metrics relative to sorting the same scores.

Every metric in :mod:`pauc.metrics` is one sort per class plus one O(n) merge,
so its natural yardstick is ``numpy.sort`` of the scores, timed in the same
run on the same machine.  Target (issue #2): ``partial_auc`` / ``numpy.sort``
<= 1.5 at 10^7 scores.

    python bench/bench_metrics.py            # 10^7 scores
    python bench/bench_metrics.py --n 1e6    # smaller
"""

import argparse

import numpy as np
from sklearn.metrics import roc_auc_score

from pauc.metrics import partial_auc, roc_auc

from _timing import best_time




def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--positives", type=float, default=0.1)
    args = parser.parse_args()
    n = int(args.n)
    rng = np.random.default_rng(0)
    y = rng.random(n) < args.positives
    s = rng.normal(size=n) + y

    reference = best_time(lambda: np.sort(s), args.repeat)
    rows = [
        ("partial_auc (0, 0.1)", lambda: partial_auc(y, s, fpr_range=(0.0, 0.1)), 1.5),
        ("partial_auc (0.02, 0.05)", lambda: partial_auc(y, s, fpr_range=(0.02, 0.05)), 1.5),
        ("roc_auc", lambda: roc_auc(y, s), None),
        ("sklearn roc_auc_score", lambda: roc_auc_score(y, s), None),
    ]
    print(f"n = {n:,} scores, {args.positives:.0%} positives; best of {args.repeat}")
    print(f"reference numpy.sort: {reference:.3f} s")
    print(f"{'measure':<28} {'ratio to sort':>14} {'target':>8}")
    for name, fn, target in rows:
        ratio = best_time(fn, args.repeat) / reference
        verdict = "" if target is None else ("<= %.1f %s" % (target, "ok" if ratio <= target
                                                             else "MISSED"))
        print(f"{name:<28} {ratio:>14.2f} {verdict:>8}")


if __name__ == "__main__":
    main()
