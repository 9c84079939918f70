"""Speed of the ROC metrics relative to sorting the same scores.

Every metric in :mod:`pauc.metrics` is one sort per class plus one O(n) merge,
so its natural yardstick is ``numpy.sort`` of the scores, timed in the same
run on the same machine.  Target (issue #2): ``partial_auc`` / ``numpy.sort``
<= 1.5 at 10^7 scores.

The inference rows (issue #28) compare an interval with the metric it is
about, timed in the same run at ``--inference-n`` scores (10^6): 2,000
bootstrap resamples of ``partial_auc_ci`` against one ``partial_auc``
(target <= 60), DeLong's ``roc_auc_ci`` against one ``roc_auc`` (<= 3), and,
with R's pROC installed (``Rscript``), the paired bootstrap
``compare_rankers`` against pROC's ``roc.test(method = "bootstrap")`` with
the same number of resamples at ``--proc-n`` scores (10^5; report only).

The rows beyond pROC (issue #36): ``compare_rankers`` on ``--rankers`` (10)
score vectors, all 45 pairs of their partial AUCs on one set of 2,000 shared
resamples at ``--many-n`` rows (10^5), against one ``partial_auc_ci`` of one
of them (target <= 12); and the cluster bootstrap of ``partial_auc_ci`` at
``--cluster-n`` rows (10^6) in ``--groups`` groups (10^5) against the row
bootstrap of the same scores (target <= 3).  The rankers share a signal and a
common noise, each adding its own (pairwise score correlation
``--ranker-correlation``, 0.8: models fitted to the same data); the union of
their windows' rows, which every resample must draw, grows as they disagree.

    python bench/bench_metrics.py                      # 10^7 scores, then inference
    python bench/bench_metrics.py --n 1e6              # smaller
    python bench/bench_metrics.py --only-inference --no-proc
    python bench/bench_metrics.py --only-beyond-proc      # rankers and clusters only
    python bench/bench_metrics.py --only-reader-study     # reader_study (issue #47) only
"""

import argparse
import os
import shutil
import subprocess
import tempfile
import time

import numpy as np
from sklearn.metrics import roc_auc_score

from pauc.metrics import compare_rankers, partial_auc, partial_auc_ci, roc_auc, roc_auc_ci

from _timing import best_time, interleaved_best_times

_PROC_SCRIPT = """
suppressPackageStartupMessages(library(pROC))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
ra <- roc(d$y, d$a, levels = c(0, 1), direction = "<", quiet = TRUE)
rb <- roc(d$y, d$b, levels = c(0, 1), direction = "<", quiet = TRUE)
set.seed(1)
t <- system.time(roc.test(ra, rb, method = "bootstrap", boot.n = as.integer(args[2]),
                          paired = TRUE, partial.auc = c(1, 1 - as.numeric(args[3])),
                          partial.auc.focus = "specificity", progress = "none"))
cat(t[["elapsed"]], "\n")
"""


def _verdict(ratio, target):
    if target is None:
        return "report"
    return "<= %g %s" % (target, "ok" if ratio <= target else "MISSED")


def _best_cpu_times(fns, repeat):
    """Best process CPU time of each callable, run in turn: on a machine shared with
    other jobs, CPU time of a one-thread call moves less than wall time."""
    best = [np.inf] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            start = time.process_time()
            fn()
            best[k] = min(best[k], time.process_time() - start)
    return best


def inference_rows(args):
    """Intervals and tests against the metric they are about (same run, same data)."""
    n = int(args.inference_n)
    rng = np.random.default_rng(1)
    y = rng.random(n) < args.positives
    s = rng.normal(size=n) + y
    window = (0.0, 0.1)
    print(f"\ninference: n = {n:,} scores, {args.positives:.0%} positives, window {window}, "
          f"{args.resamples} resamples; best of {args.inference_repeat}")
    print(f"{'measure':<52} {'ratio':>8} {'target':>12}   (wall time; CPU time of one thread)")
    one_pauc = lambda: partial_auc(y, s, fpr_range=window)
    rows = []
    for jobs in (1, 2):
        fns = [one_pauc, lambda: partial_auc_ci(y, s, fpr_range=window,
                                                n_resamples=args.resamples, random_state=0,
                                                n_jobs=jobs)]
        ref, contender = interleaved_best_times(fns, args.inference_repeat)
        rows.append((f"partial_auc_ci ({args.resamples}, n_jobs={jobs}) / partial_auc",
                     contender / ref, 60))
        if jobs == 1:
            ref, contender = _best_cpu_times(fns, args.inference_repeat)
            rows.append(("  the same, CPU time", contender / ref, 60))
    fns = [lambda: roc_auc(y, s), lambda: roc_auc_ci(y, s)]
    ref, contender = interleaved_best_times(fns, max(3, args.inference_repeat))
    rows.append(("roc_auc_ci(method='delong') / roc_auc", contender / ref, 3))
    ref, contender = _best_cpu_times(fns, max(3, args.inference_repeat))
    rows.append(("  the same, CPU time", contender / ref, 3))
    for name, ratio, target in rows:
        print(f"{name:<52} {ratio:>8.1f} {_verdict(ratio, target):>12}")
    if args.no_proc:
        return
    if shutil.which("Rscript") is None:
        print("pROC row skipped: Rscript not found (apt-get install r-cran-proc)")
        return
    n = int(args.proc_n)
    y = (rng.random(n) < args.positives).astype(int)
    a = rng.normal(size=n) + y
    b = 0.6 * a + 0.8 * rng.normal(size=n) + 0.3 * y
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "scores.csv")
        script = os.path.join(folder, "roc_test.R")
        np.savetxt(data, np.c_[y, a, b], delimiter=",", header="y,a,b", comments="",
                   fmt=["%d", "%.17g", "%.17g"])
        with open(script, "w") as f:
            f.write(_PROC_SCRIPT)
        start = time.perf_counter()
        out = subprocess.run(["Rscript", script, data, str(args.resamples), str(window[1])],
                             capture_output=True, text=True, check=True)
        proc_seconds = float(out.stdout.split()[0])
        ours = best_time(lambda: compare_rankers(y, a, b, metric="partial_auc",
                                                 fpr_range=window, n_resamples=args.resamples,
                                                 random_state=0, n_jobs=1), 1)
        print(f"{'compare_rankers bootstrap / pROC roc.test bootstrap':<52} "
              f"{ours / proc_seconds:>8.4f} {'report':>12}")
        print(f"  (n = {n:,}; pROC roc.test {proc_seconds:.1f} s of "
              f"{time.perf_counter() - start:.1f} s with R start and roc(); both paired, "
              f"stratified, {args.resamples} resamples, pAUC over FPR {window})")




def beyond_proc_rows(args):
    """Many rankers on shared resamples, and the cluster bootstrap (same run)."""
    window = (0.0, 0.1)
    repeat = args.inference_repeat
    print(f"\nbeyond pROC: window {window}, {args.resamples} resamples, n_jobs=1; best of "
          f"{repeat}")
    print(f"{'measure':<52} {'ratio':>8} {'target':>12}   (wall time)")
    rng = np.random.default_rng(2)
    n, k, rho = int(args.many_n), args.rankers, args.ranker_correlation
    y = rng.random(n) < args.positives
    common = rng.normal(size=n)
    scores = {f"ranker {j}": y * (0.8 + 0.05 * j) + np.sqrt(rho) * common
              + np.sqrt(1.0 - rho) * rng.normal(size=n) for j in range(k)}
    ref, contender = interleaved_best_times([
        lambda: partial_auc_ci(y, scores["ranker 0"], fpr_range=window,
                               n_resamples=args.resamples, random_state=0, n_jobs=1),
        lambda: compare_rankers(y, scores, metric="partial_auc", fpr_range=window,
                                n_resamples=args.resamples, random_state=0, n_jobs=1)], repeat)
    name = f"{k} rankers, {k * (k - 1) // 2} pairs / one partial_auc_ci"
    print(f"{name:<52} {contender / ref:>8.1f} {_verdict(contender / ref, 12):>12}")
    print(f"  (n = {n:,}; one interval {ref:.3f} s, all pairs {contender:.3f} s; score "
          f"correlation {rho:g})")
    n, n_groups = int(args.cluster_n), int(args.groups)
    groups = rng.integers(0, n_groups, size=n)
    y = rng.random(n) < args.positives
    s = rng.normal(size=n) + y
    ref, contender = interleaved_best_times([
        lambda: partial_auc_ci(y, s, fpr_range=window, n_resamples=args.resamples,
                               random_state=0, n_jobs=1),
        lambda: partial_auc_ci(y, s, fpr_range=window, n_resamples=args.resamples,
                               random_state=0, n_jobs=1, groups=groups)], repeat)
    name = "cluster bootstrap / row bootstrap (partial_auc_ci)"
    print(f"{name:<52} {contender / ref:>8.1f} {_verdict(contender / ref, 3):>12}")
    print(f"  (n = {n:,} in {n_groups:,} groups; rows {ref:.3f} s, clusters "
          f"{contender:.3f} s)")


def reader_study_rows(args):
    """``reader_study`` (issue #47): readers x 2 modalities x cases in a tidy table, the
    jackknife's covariances, against one ``roc_auc_ci`` (DeLong) of one reader on the
    same cases (target <= 20).  Readers rate on a 0-100 scale (integer ratings, as
    reader studies record them), then on continuous scores (a model's).

    Both ratios are best-of-``repeat`` with the two calls interleaved, wall time and
    process CPU time (the CPU ratio is the one to quote on a shared machine).  At
    10^5 cases on 2 busy cores (Nov 2026, best of 7-9): 0-100 ratings 37x wall /
    37x CPU with the numpy jackknife, 8x / 8x with the compiled kernels
    (:mod:`pauc.inference._reader_kernels`); continuous scores 52-68x / 51-57x before,
    14x / 14x after (48 ms against the interval's 3.6 ms: 20 sorts of 10^5 packed
    keys, about 1.1 ms each, 20 walks scattering the values to the rows, about
    0.8 ms, the table read once, 5 ms, and the 20 x 20 Gram matrix, 3 ms).
    """
    from pauc.metrics import reader_study

    n, readers = int(args.reader_cases), args.readers
    rng = np.random.default_rng(3)
    truth = rng.random(n) < 0.3
    case = rng.normal(size=n)
    latent = np.array([[case + (1.0 + 0.1 * i) * truth + 0.3 * rng.normal()
                        + rng.normal(size=n) for _ in range(readers)] for i in range(2)])
    mod, rdr, cas = np.meshgrid(np.arange(2), np.arange(readers), np.arange(n), indexing="ij")
    print(f"\nreader study: {readers} readers x 2 modalities x {n:,} cases, jackknife; best of "
          f"{max(3, args.inference_repeat)}, interleaved")
    print(f"{'measure':<52} {'ratio':>8} {'target':>12}   (wall time)")
    for label, ratings in (("0-100 ratings", np.clip(np.round((latent + 3) * 12), 0, 100)
                            .astype(np.int64)), ("continuous scores", latent)):
        table = {"truth": truth.astype(np.int64)[cas.ravel()], "rating": ratings.ravel(),
                 "reader": rdr.ravel(), "modality": mod.ravel(), "case": cas.ravel()}
        fns = [lambda: roc_auc_ci(truth, ratings[0, 0]), lambda: reader_study(table)]
        ref, contender = interleaved_best_times(fns, max(3, args.inference_repeat))
        name = f"reader_study / roc_auc_ci, {label}"
        print(f"{name:<52} {contender / ref:>8.1f} {_verdict(contender / ref, 20):>12}")
        print(f"  (one interval {1e3 * ref:.1f} ms, the study {1e3 * contender:.0f} ms)")
        # on a busy machine a long call is preempted more often than a short one: CPU time
        ref, contender = _best_cpu_times(fns, max(3, args.inference_repeat))
        print(f"{'  the same, CPU time':<52} {contender / ref:>8.1f} "
              f"{_verdict(contender / ref, 20):>12}")
        print(f"  (CPU: one interval {1e3 * ref:.1f} ms, the study {1e3 * contender:.0f} ms)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--positives", type=float, default=0.1)
    parser.add_argument("--inference-n", type=float, default=1e6)
    parser.add_argument("--inference-repeat", type=int, default=2)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--proc-n", type=float, default=1e5)
    parser.add_argument("--no-proc", action="store_true", help="skip the R pROC row")
    parser.add_argument("--only-inference", action="store_true")
    parser.add_argument("--rankers", type=int, default=10)
    parser.add_argument("--ranker-correlation", type=float, default=0.8)
    parser.add_argument("--many-n", type=float, default=1e5)
    parser.add_argument("--cluster-n", type=float, default=1e6)
    parser.add_argument("--groups", type=float, default=1e5)
    parser.add_argument("--only-beyond-proc", action="store_true")
    parser.add_argument("--reader-cases", type=float, default=1e5)
    parser.add_argument("--readers", type=int, default=10)
    parser.add_argument("--only-reader-study", action="store_true")
    args = parser.parse_args()
    if args.only_reader_study:
        reader_study_rows(args)
        return
    if args.only_beyond_proc:
        beyond_proc_rows(args)
        return
    if not args.only_inference:
        metric_rows(args)
    inference_rows(args)
    beyond_proc_rows(args)
    reader_study_rows(args)


def metric_rows(args):
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
