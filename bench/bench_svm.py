"""Structural SVMs (issues 3, 4): every benchmark ratio, measured in one run, one table.

Rows (targets of issue 3, then issue 4):

* oracle time / (``X @ w`` + ``numpy.sort`` of the scores), a9a and a dense
  10^6 x 20 synthetic set, each oracle (rows from ``bench/_oracle_timing.py``)  <= 1.5
* ``AUCSVM(C=100)`` fit on a9a / ``sklearn.svm.LinearSVC(C=0.1)`` fit          <= 1
* ``PartialAUCSVM((0.02, 0.05), C=100)`` fit on a9a / ``LinearSVC(C=0.1)``      <= 5
* master-QP share of the ``AUCSVM(C=100)`` fit on a9a                          <= 30 %
  (also printed, no target: the same share with ``solver="cvxpy"``, the
  measurement behind the default ``solver="osqp"``)
* ``AUCSVM`` fit time at n = 10^6 / at n = 10^5 (dense, d = 20, same C)        <= 12
  (default ``coarse_to_fine``: both sizes start from every 10th row; also
  printed, no target: the same ratio from ``w = 0``, and the speed-ups)
* peak RSS of ``AUCSVM`` on 10^6 x 20 dense / size of X (child process)        <= 2.5
* ``PartialAUCSVM((0.02, 0.05), surrogate="hinge", C=100)`` fit on a9a (CCCP,
  Algorithm 4, from the default ``init="tight"``) / ``surrogate="tight"`` fit  <= 3
* its cutting-plane iterations summed over all CCCP steps / those of the
  first step (no target: reusing the cuts of f keeps it well under the
  number of steps)

Rows of issue 20 (the C path and the proximal fit), a9a:

* ``PartialAUCSVMCV((.02,.05), Cs=7 from 1e-2 to 1e4, cv=3)`` fit /
  ``GridSearchCV(PartialAUCSVM)`` over the same Cs and folds, both n_jobs=1,
  a9a and reuters (issue 27; the same C by construction)                        <= 1.0
* the same / one ``PartialAUCSVM`` fit at the largest C                         <= 4
* ``PartialAUCSVM((.02,.05), C=100)`` fit / ``LinearSVC(C=0.1)`` fit            <= 1.5
  (the row above with target 5 is the same ratio)
* iterations of the default fit (``method="proximal"``) / Algorithm 1's
  (``method="cutting_plane"``), same tol, AUC and [.02,.05] at C = 100, 1000    <= 1/3
* ``AUCSVM(C=100)`` fit / ``LinearSVC(C=0.1)`` fit                              <= 0.5

Fit times are the best of ``--repeat`` runs (the machine is shared).

    python bench/bench_svm.py            # full run (a few minutes)
    python bench/bench_svm.py --quick    # a9a rows, n = 10^5 / 10^4, RSS at 10^5
"""

import argparse
import os
import subprocess
import sys
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _oracle_timing import oracle_ratio_rows, synthetic_dense  # noqa: E402

from pauc.datasets import load_a9a  # noqa: E402
from pauc.metrics import partial_auc_scorer  # noqa: E402
from pauc.svm import AUCSVM, PartialAUCSVM, PartialAUCSVMCV  # noqa: E402
from _timing import best_fit, interleaved_best_times  # noqa: E402


_RSS_CHILD = r"""
import resource, sys, warnings
import numpy as np
sys.path.insert(0, {bench!r})
from _oracle_timing import synthetic_dense
from pauc.svm import AUCSVM
X, y = synthetic_dense(n_samples={n}, n_features=20)
warnings.simplefilter("ignore")
AUCSVM(C={C}).fit(X, y)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # Linux: KiB
print(peak, X.nbytes)
"""


def peak_rss_ratio(n, C):
    code = _RSS_CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), n=n, C=C)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    peak, size = int(out[-2]), int(out[-1])
    return peak / size, peak, size


def _iteration_floor(X, w):
    """Seconds of one iteration's unavoidable work: ``X @ w``, a sort, ``X.T @ c``."""
    start = time.perf_counter()
    scores = X @ w
    np.sort(scores)
    X.T @ scores
    return time.perf_counter() - start


def _iterations(est):
    """Iterations on all rows, after those of the coarse levels (coarsest first)."""
    return "+".join(str(k) for k in [*est.coarse_iter_, est.n_iter_])


def _reuters():
    """The reuters training set of the shared data folder, or None where it is absent."""
    from pathlib import Path

    from sklearn.datasets import load_svmlight_file
    path = Path(__file__).resolve().parents[2] / "shared" / "data" / "reuters.trn.bz2"
    if not path.exists():
        return None
    X, y = load_svmlight_file(str(path), n_features=8315)
    return X.tocsr(), (y > 0).astype(int)


def _cv_against_grid(X, y, window, Cs, folds, repeat):
    """Best times of the CV estimator and of GridSearchCV over the same Cs and folds (both
    n_jobs=1, timed alternately: the shared machine's load hits both alike)."""
    made = {}

    def fit(name, make):
        def run():
            made[name] = make().fit(X, y)
        return run

    t_cv, t_grid = interleaved_best_times([
        fit("cv", lambda: PartialAUCSVMCV(window, Cs=Cs, cv=folds)),
        fit("grid", lambda: GridSearchCV(PartialAUCSVM(window), {"C": Cs}, cv=folds,
                                         scoring=partial_auc_scorer(fpr_range=window)))],
        repeat)
    return t_cv, t_grid, made["cv"], made["grid"]


def path_rows(X, y, t_svc, t_auc, t_pauc, auc, pauc, repeat):
    """Issue 20's rows: the CV path against GridSearchCV and one fit, the proximal fit
    against LinearSVC and Algorithm 1's iterations (a9a, same run)."""
    rows = [("AUCSVM(C=100) fit / LinearSVC(C=0.1) fit, a9a (issue 20)", t_auc / t_svc, 0.5,
             "<=", f"{auc.n_iter_} iterations"),
            ("PartialAUCSVM((.02,.05), C=100) fit / LinearSVC fit, a9a (issue 20)",
             t_pauc / t_svc, 1.5, "<=", f"{pauc.n_iter_} iterations, degenerate_="
             f"{pauc.degenerate_} (the surrogate's optimum on a9a is w = 0)")]
    for name, make in (("AUC", lambda C, m: AUCSVM(C=C, method=m)),
                       ("[.02,.05]", lambda C, m: PartialAUCSVM((0.02, 0.05), C=C, method=m))):
        for C in (100.0, 1000.0):
            prox = make(C, "proximal").fit(X, y)
            plain = make(C, "cutting_plane").fit(X, y)
            rows.append((f"iterations proximal / Algorithm 1, {name}, C={C:g}, a9a",
                         prox.n_iter_ / plain.n_iter_, 1 / 3, "<=",
                         f"{prox.n_iter_} vs {plain.n_iter_}; J {prox.history_['primal'][-1]:.4f}"
                         f" vs {plain.history_['primal'][-1]:.4f}"))
    window, Cs = (0.02, 0.05), list(np.logspace(-2, 4, 7))
    reuters = _reuters()
    for name, (Xd, yd) in [("a9a", (X, y))] + ([("reuters", reuters)] if reuters else []):
        folds = list(StratifiedKFold(3).split(Xd, yd))
        t_cv, t_grid, cv, grid = _cv_against_grid(Xd, yd, window, Cs, folds, repeat)
        means = grid.cv_results_["mean_test_score"]
        rows.append((f"PartialAUCSVMCV((.02,.05), 7 Cs, cv=3) / GridSearchCV, {name}",
                     t_cv / t_grid, 1.0, "<=", f"{t_cv:.2f} s vs {t_grid:.2f} s; C_ {cv.C_:g} "
                     f"(mean {cv.scores_.mean(axis=0).max():.4f}) vs "
                     f"{grid.best_params_['C']:g} (mean {means.max():.4f}; at C_ "
                     f"{means[Cs.index(cv.C_)]:.4f})"))
    folds = list(StratifiedKFold(3).split(X, y))
    t_cv, cv = best_fit(lambda: PartialAUCSVMCV(window, Cs=Cs, cv=folds), X, y, 1)
    t_one, one = best_fit(lambda: PartialAUCSVM(window, C=Cs[-1]), X, y, repeat)
    rows.append(("  same / one PartialAUCSVM fit at C=1e4, a9a", t_cv / t_one, 4.0, "<=",
                 f"{t_one:.2f} s, {one.n_iter_} iterations; path iterations per fold "
                 f"{cv.n_iter_.sum(axis=1).tolist()}"))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a9a oracles only, scaling 10^5/10^4, RSS at 10^5")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rows = []          # (measure, value, target, comparison, detail)

    for r in oracle_ratio_rows(large=not args.quick, repeat=5 if args.quick else 15):
        rows.append((f"oracle {r['oracle']} {r['fpr_range']} / (X@w + sort), {r['data']}",
                     r["ratio"], r["target"], "<=",
                     f"{r['oracle_ms']:.2f} ms vs {r['reference_ms']:.2f} ms"))

    X, y, _, _ = load_a9a()
    t_svc, _ = best_fit(lambda: LinearSVC(C=0.1), X, y, args.repeat)
    t_auc, auc = best_fit(lambda: AUCSVM(C=100.0), X, y, args.repeat)
    rows.append(("AUCSVM(C=100) fit / LinearSVC(C=0.1) fit, a9a", t_auc / t_svc, 1.0, "<=",
                 f"{t_auc:.3f} s vs {t_svc:.3f} s, {auc.n_iter_} iterations"))
    t_pauc, pauc = best_fit(lambda: PartialAUCSVM((0.02, 0.05), C=100.0), X, y, args.repeat)
    rows.append(("PartialAUCSVM((.02,.05), C=100) fit / LinearSVC fit, a9a", t_pauc / t_svc,
                 5.0, "<=", f"{t_pauc:.3f} s, {pauc.n_iter_} iterations"))
    h = auc.history_
    share = h["time_qp"].sum() / t_auc
    rows.append(("master-QP share of AUCSVM(C=100) fit, a9a", share, 0.30, "<=",
                 f"QP {h['time_qp'].sum():.3f} s, oracle {h['time_oracle'].sum():.3f} s, "
                 f"matvec {h['time_matvec'].sum():.3f} s"))
    t_cvx, cvx = best_fit(lambda: AUCSVM(C=100.0, solver="cvxpy"), X, y, 1)
    rows.append(("  same with solver='cvxpy' (no target)", cvx.history_["time_qp"].sum() / t_cvx,
                 None, "", f"fit {t_cvx:.3f} s, QP {cvx.history_['time_qp'].sum():.3f} s"))
    share_p = pauc.history_["time_qp"].sum() / t_pauc
    rows.append(("  master-QP share of PartialAUCSVM fit (no target)", share_p, None, "",
                 f"QP {pauc.history_['time_qp'].sum():.3f} s"))
    # Issue 4: the hinge surrogate by CCCP against the tight fit above (same run).
    t_dc, dc = best_fit(lambda: PartialAUCSVM((0.02, 0.05), C=100.0, surrogate="hinge"),
                        X, y, args.repeat)
    rows.append(("PartialAUCSVM((.02,.05), 'hinge', C=100) fit / 'tight' fit, a9a",
                 t_dc / t_pauc, 3.0, "<=",
                 f"{t_dc:.3f} s vs {t_pauc:.3f} s, {len(dc.dc_inner_iter_)} CCCP steps"))
    inner = dc.dc_inner_iter_
    rows.append(("  CCCP: cutting-plane iterations, all steps / first step (no target)",
                 inner.sum() / inner[0], None, "",
                 f"per step {inner.tolist()} (the init='tight' solve not counted)"))
    rows.extend(path_rows(X, y, t_svc, t_auc, t_pauc, auc, pauc, args.repeat))

    n_big, n_small = (10**5, 10**4) if args.quick else (10**6, 10**5)
    C_scale = 10.0
    Xb, yb = synthetic_dense(n_samples=n_big)
    Xs, ys = Xb[:n_small], yb[:n_small]
    t_small, e_small = best_fit(lambda: AUCSVM(C=C_scale), Xs, ys, args.repeat)
    t_big, e_big = best_fit(lambda: AUCSVM(C=C_scale), Xb, yb, args.repeat)
    rows.append((f"AUCSVM(C={C_scale:g}) fit at n={n_big:.0e} / n={n_small:.0e}, d=20",
                 t_big / t_small, 12.0, "<=",
                 f"{t_big:.2f} s ({_iterations(e_big)} it) vs "
                 f"{t_small:.3f} s ({_iterations(e_small)} it)"))
    # The same without the coarse-to-fine start (Algorithm 1 from w = 0 at both sizes).
    t_small0, e_small0 = best_fit(lambda: AUCSVM(C=C_scale, coarse_to_fine=None), Xs, ys,
                                  args.repeat)
    t_big0, e_big0 = best_fit(lambda: AUCSVM(C=C_scale, coarse_to_fine=None), Xb, yb,
                              args.repeat)
    rows.append(("  same, coarse_to_fine=None (no target)", t_big0 / t_small0, None, "",
                 f"{t_big0:.2f} s ({e_big0.n_iter_} it) vs {t_small0:.3f} s "
                 f"({e_small0.n_iter_} it)"))
    rows.append((f"  coarse-to-fine speed-up at n={n_big:.0e} / at n={n_small:.0e} (no target)",
                 t_big0 / t_big, None, "", f"{t_small0 / t_small:.2f} at n={n_small:.0e}"))
    # Context for the row above: the work every iteration cannot avoid (both
    # passes over X and one sort of the scores) at the same two sizes.
    prim = {}
    for name, (Xp, yp) in (("big", (Xb, yb)), ("small", (Xs, ys))):
        w = np.random.default_rng(0).standard_normal(Xp.shape[1])
        with threadpool_limits(limits=1, user_api="blas"):
            prim[name] = min(_iteration_floor(Xp, w) for _ in range(5 * args.repeat))
    rows.append((f"  (X@w + X.T@c + sort) at n={n_big:.0e} / n={n_small:.0e} (no target)",
                 prim["big"] / prim["small"], None, "",
                 f"{prim['big'] * 1e3:.2f} ms vs {prim['small'] * 1e3:.3f} ms per iteration"))
    del Xb, yb, Xs, ys

    ratio, peak, size = peak_rss_ratio(n_big, C_scale)
    rows.append((f"peak RSS of AUCSVM / size of X, {n_big:.0e}x20 dense", ratio, 2.5, "<=",
                 f"{peak / 2**20:.0f} MiB vs {size / 2**20:.0f} MiB"))

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>8}  {'target':>9}  verdict  detail")
    for name, value, target, cmp, detail in rows:
        if target is None:
            verdict, tgt = "", ""
        else:
            verdict = "ok" if value <= target else "MISSED"
            tgt = f"{cmp} {target:g}"
        print(f"{name:<{width}}  {value:>8.3f}  {tgt:>9}  {verdict:>7}  {detail}")


if __name__ == "__main__":
    main()
