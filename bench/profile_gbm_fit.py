"""Where a default GradientBoostingRanker fit spends its time (issue 34, item 4).

One fit of the defaults on a set shaped like issue 34's held-out set G (50,000
rows x 22 features, 10 % positives, window [0, 0.1]; here ``make_classification``),
one thread, under ``cProfile``: the total, the boosting per candidate
(``fit_seconds_``), the rounds per fold, and the cumulative table of the calls
that cost most -- the engines' training, the held-out predictions, the
datasets' binning, the final scores of the threshold::

    OMP_NUM_THREADS=1 python bench/profile_gbm_fit.py
    OMP_NUM_THREADS=1 python bench/profile_gbm_fit.py --rows 20000 --lines 40
    OMP_NUM_THREADS=1 python bench/profile_gbm_fit.py --no-race    # every candidate, every fold
"""

import argparse
import cProfile
import pstats
import time

from sklearn.datasets import make_classification

from pauc.gbm import GradientBoostingRanker


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--features", type=int, default=22)
    parser.add_argument("--lines", type=int, default=28)
    parser.add_argument("--no-race", action="store_true",
                        help="turn the race of the candidates off (pauc.gbm._race.RACING)")
    args = parser.parse_args()
    from pauc.gbm import _race
    _race.RACING = not args.no_race
    X, y = make_classification(args.rows, args.features, n_informative=10, weights=[0.9],
                               flip_y=0.02, class_sep=0.8, random_state=0)
    model = GradientBoostingRanker((0.0, 0.1), random_state=0, n_jobs=1)
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    model.fit(X, y)
    profile.disable()
    print(f"fit {time.perf_counter() - start:.2f} s, selected {model.selected_}; boosting "
          f"seconds {({k: round(v, 2) for k, v in model.fit_seconds_.items()})}")
    res = model.cv_results_
    for name, kept, boosted, dropped in zip(res["candidate"], res["rounds"],
                                            res["boosted_rounds"], res["dropped"]):
        if boosted is not None:
            print(f"{name:<16} kept rounds {kept}, boosted {boosted}"
                  + (f", dropped: {dropped}" if dropped else ""))
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.lines)


if __name__ == "__main__":
    main()
