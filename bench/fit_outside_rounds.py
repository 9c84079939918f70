"""The share of a default GradientBoostingRanker fit spent outside the boosting rounds.

Issue 44's target: the binning, the race's checks, the selection, the threshold's
training scores and the final model's bookkeeping together take at most 10 % of the
fit.  Per problem (the shipped a9a split and bench/panel_boost.py's generators
``hastie-imb`` and ``mc-issue``; window [0, 0.1], one thread): the fit's wall time,
the time inside the candidates' sessions (``fit_seconds_``: every round of every
(candidate, fold), dropped candidates included, with its held-out scoring), and
the rest, with its share::

    python bench/fit_outside_rounds.py
    python bench/fit_outside_rounds.py a9a --repeats 3
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from panel_real import load  # noqa: E402

from pauc.gbm import GradientBoostingRanker  # noqa: E402

PROBLEMS = ("a9a", "hastie-imb", "mc-issue")


def measure(name, repeats):
    """Median over ``repeats`` fits of (wall seconds, seconds in the rounds)."""
    X, y, _, _ = load(name)[0]
    runs = []
    for _ in range(repeats):
        model = GradientBoostingRanker((0.0, 0.1), random_state=0, n_jobs=1)
        start = time.perf_counter()
        model.fit(X, y)
        wall = time.perf_counter() - start
        runs.append((wall, sum(model.fit_seconds_.values())))
    return tuple(np.median(runs, axis=0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="*", default=list(PROBLEMS))
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    print(f"{'problem':<12}{'fit s':>8}{'rounds s':>10}{'outside s':>11}{'share':>8}")
    for name in args.problems:
        wall, rounds = measure(name, args.repeats)
        print(f"{name:<12}{wall:8.2f}{rounds:10.2f}{wall - rounds:11.2f}"
              f"{(wall - rounds) / wall:8.1%}", flush=True)


if __name__ == "__main__":
    main()
