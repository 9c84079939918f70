"""Reproduce Table 1 of "Ranking Forests" (Clémençon, Depecker & Vayatis, JMLR 2013, §5).

Protocol (§5): for each simulated problem, ``--runs`` independent training
samples of 2,000 points (paper: 30) and one common test sample of 3,000; a
single TreeRank (no bagging, no feature randomisation) against Ranking Forests
of B = 50 bootstrap trees of size 2,000 with FR1/FR2 ("TRK rfs" = q0,
"LRK rfs" = q1), aggregated by an approximate Kendall median; master trees of
depth 10, LeafRank trees of depth 10 (7 for "RF 10 sparse").  The stopping
rules, which the paper does not state, are the estimators' defaults
(RankingForest: 150 / 40 samples with a Gini LeafRank; TreeRank: 50 / 10 with
the gain criterion).

Columns, ours next to the paper's:

* ``AUC*``   test AUC of the optimal (Bayes) scoring function;
* ``AUC``    mean test AUC over the runs, ``sd`` its standard deviation;
* ``Red``    envelope reduction: 1 − area_RF / area_TreeRank, the area between
             the pointwise max and min of the runs' test ROC curves (on a
             1001-point FPR grid);
* ``Stab``   eq. (9) over the independent training samples: the mean over
             pairs of runs of the empirical probabilistic Kendall distance
             d̂_τX (eq. (6)) between their rankings of the test sample.  The
             paper's normalisation of Stab_τ is not stated (its values are
             ~100× smaller), so compare orderings, not levels.

The generators and their documented assumptions (RF 10 variance ratio, RF 10
sparse construction, the direction of RF 20's mean shift) are in
:func:`pauc.datasets.make_ranking_forest_data`.  ``--rf20-orientation oblique``
spreads RF 20's mean shift over the 20 features, which reproduces the single
TreeRank row and the ordering of the forests' rows (see the generator's notes).

Usage::

    python bench/reproduce_ranking_forests.py --runs 30            # the full table
    python bench/reproduce_ranking_forests.py --runs 3 --data RF20 --cases 0 7
    python bench/reproduce_ranking_forests.py --runs 10 --data RF20 --rf20-orientation oblique
"""

import argparse
import time

import numpy as np

from pauc.datasets import make_ranking_forest_data
from pauc.metrics import kendall_tau_distance, roc_auc, roc_curve
from pauc.tree import RankingForest, TreeRank

# Table 1 verbatim: (case, TRK rfs, LRK rfs, AUC*, mean AUC, sd, Red. Env. %, Stab_τ);
# case 0 is the single TreeRank row.
PAPER = {
    "RF10": [(0, 10, 10, .756, .588, .127, None, .0084), (1, 5, 5, .756, .721, .003, 58, .0026),
             (2, 10, 5, .756, .717, .003, 55, .0027), (3, 8, 5, .756, .718, .003, 56, .0027)],
    "RF20": [(0, 20, 20, .773, .605, .011, None, .0134), (1, 15, 15, .773, .744, .003, 47, .0043),
             (2, 20, 15, .773, .743, .002, 50, .0042), (3, 18, 15, .773, .744, .003, 50, .0042),
             (4, 10, 10, .773, .748, .003, 54, .0043), (5, 20, 10, .773, .743, .003, 49, .0043),
             (6, 15, 10, .773, .744, .004, 46, .0043), (7, 5, 5, .773, .75, .004, 48, .0047),
             (8, 20, 5, .773, .744, .003, 46, .0043), (9, 8, 5, .773, .747, .002, 47, .0044)],
    "RF10-sparse": [(0, 10, 10, .89, .83, .007, None, .0068), (1, 5, 5, .89, .88, .002, 67, .0016),
                    (2, 10, 5, .89, .88, .001, 73, .0014), (3, 8, 5, .89, .88, 7e-4, 73, .0015),
                    (4, 3, 3, .89, .87, .002, 58, .0023), (5, 10, 3, .89, .88, .001, 71, .0016),
                    (6, 5, 3, .89, .88, .002, 63, .0019), (7, 1, 1, .89, .83, .009, 10, .0053),
                    (8, 10, 1, .89, .87, .002, 60, .0026), (9, 3, 1, .89, .86, .003, 53, .0031)],
}
LEAFRANK_DEPTH = {"RF10": 10, "RF20": 10, "RF10-sparse": 7}
GRID = np.linspace(0.0, 1.0, 1001)


def envelope_area(curves):
    """Area between the pointwise max and min of ROC curves sampled on GRID."""
    curves = np.asarray(curves)
    gap = curves.max(axis=0) - curves.min(axis=0)
    return float(np.sum(0.5 * (gap[1:] + gap[:-1]) * np.diff(GRID)))


def stability(test_scores):
    """Mean d̂_τX over pairs of runs (eq. (9) with independent training samples)."""
    r = len(test_scores)
    if r < 2:
        return float("nan")
    return float(np.mean([kendall_tau_distance(test_scores[i], test_scores[j], normalize=True)
                          for i in range(r) for j in range(i + 1, r)]))


def run_config(name, q0, q1, single_tree, args, Xt, yt):
    aucs, curves, scores = [], [], []
    for run in range(args.runs):
        X, y, _ = make_ranking_forest_data(name, 2000, random_state=run,
                                           **data_options(name, args))
        depth = LEAFRANK_DEPTH[name]
        if single_tree:
            model = TreeRank(max_depth=10, leafrank_max_depth=depth, random_state=run)
        else:
            model = RankingForest(n_estimators=args.n_estimators, max_depth=10,
                                  leafrank_max_depth=depth, max_features=q0,
                                  leafrank_max_features=q1, aggregation=args.aggregation,
                                  n_jobs=args.n_jobs, random_state=run)
        s = model.fit(X, y).decision_function(Xt)
        aucs.append(roc_auc(yt, s))
        fpr, tpr, _ = roc_curve(yt, s, drop_intermediate=False)
        curves.append(np.interp(GRID, fpr, tpr))
        scores.append(s)
    return np.mean(aucs), np.std(aucs), envelope_area(curves), stability(scores)


def data_options(name, args):
    """Generator options: the direction of RF 20's mean shift (the paper gives none)."""
    return {"orientation": args.rf20_orientation} if name == "RF20" else {}


def fmt(x, spec):
    return "   -  " if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="training samples (paper: 30)")
    parser.add_argument("--data", nargs="+", default=list(PAPER), choices=list(PAPER))
    parser.add_argument("--cases", nargs="+", type=int, default=None,
                        help="case numbers to run (0 = single TreeRank; default all)")
    parser.add_argument("--n-estimators", type=int, default=50, help="B (paper: 50)")
    parser.add_argument("--aggregation", default="kemeny")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--test-size", type=int, default=3000,
                        help="test sample size (paper: 3000; its AUC* varies by about "
                             "+-0.015, a larger one shows the population level)")
    parser.add_argument("--rf20-orientation", choices=["axis", "oblique"], default="axis",
                        help="RF 20's mean shift along e1 (default) or spread evenly over "
                             "the 20 features (reproduces the single TreeRank row)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    if args.test_size < 2:
        parser.error("--test-size must be >= 2")

    for name in args.data:
        Xt, yt, optimal = make_ranking_forest_data(name, args.test_size, random_state=10_000,
                                                   **data_options(name, args))
        auc_star = roc_auc(yt, optimal(Xt))
        label = f"{name}, {args.rf20_orientation} mean shift" if name == "RF20" else name
        print(f"\n{label}  (runs={args.runs}, B={args.n_estimators}, "
              f"aggregation={args.aggregation}, test AUC* = {auc_star:.3f})")
        print(f"{'case':>4} {'q0':>3} {'q1':>3} | {'AUC':>6} {'paper':>6} | {'sd':>6} "
              f"{'paper':>6} | {'Red%':>5} {'paper':>5} | {'Stab':>7} {'paper':>7} | time")
        tree_area = None
        cases = [row for row in PAPER[name] if args.cases is None or row[0] in args.cases]
        if cases and cases[0][0] != 0 and any(row[0] == 0 for row in PAPER[name]):
            cases = [PAPER[name][0]] + cases            # the TreeRank row sets the envelope
        for case, q0, q1, _, p_auc, p_sd, p_red, p_stab in cases:
            start = time.perf_counter()
            auc, sd, area, stab = run_config(name, q0, q1, case == 0, args, Xt, yt)
            if case == 0:
                tree_area = area
            red = None if case == 0 or not tree_area else 100.0 * (1.0 - area / tree_area)
            print(f"{case:>4} {q0:>3} {q1:>3} | {auc:6.3f} {p_auc:6.3f} | {sd:6.3f} {p_sd:6.3f} | "
                  f"{fmt(red, '5.0f')} {fmt(p_red, '5.0f')} | {fmt(stab, '7.4f')} "
                  f"{p_stab:7.4f} | {time.perf_counter() - start:5.0f}s", flush=True)


if __name__ == "__main__":
    main()
