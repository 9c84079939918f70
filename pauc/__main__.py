"""``pauc compare`` (or ``python -m pauc compare``): fit rankers on one data set, compare them.

The rankers come from :mod:`pauc._registry`; a new estimator appears here by
adding one entry there.  Exit code 2 means a usage or input error.
"""

import argparse
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

from . import metrics
from ._registry import METHODS
from ._validation import check_fpr_range, check_rate
from .exceptions import DegenerateSolutionWarning


def _parser():
    parser = argparse.ArgumentParser(
        prog="pauc", description="Bipartite ranking for the AUC and the partial AUC.")
    sub = parser.add_subparsers(dest="command")
    cmp = sub.add_parser(
        "compare", help="fit rankers on one data set and print one table",
        description="Fit rankers on a training set and report, on the test set, the AUC, the "
                    "partial AUC in the FPR window (normalised by its width) and the TPR at "
                    "FPR = beta.")
    cmp.add_argument("--data", help="training data: an svmlight file, or a CSV file (.csv) with "
                                    "--label-column (default: the bundled a9a split)")
    cmp.add_argument("--test", help="test file in the same format (default: a seeded, "
                                    "stratified 1/3 split of --data)")
    cmp.add_argument("--label-column", help="name of the label column of a CSV file (a --test "
                                            "CSV must hold the same columns, matched by name)")
    cmp.add_argument("--pos-label", help="the positive label when it is not 1")
    cmp.add_argument("--fpr-range", nargs=2, type=float, default=(0.0, 0.1),
                     metavar=("ALPHA", "BETA"), help="FPR window of the partial AUC "
                                                     "(default: 0 0.1)")
    cmp.add_argument("--methods", nargs="+", default=None, choices=sorted(METHODS),
                     metavar="METHOD",
                     help="rankers to fit, from: " + ", ".join(sorted(METHODS)) + " (default: all)")
    tune = cmp.add_mutually_exclusive_group()
    tune.add_argument("--tune", action="store_true",
                      help="choose each method's hyper-parameters (C, depth) by 3-fold "
                           "cross-validation on the training part, scored by the partial AUC "
                           "(the SVMs' C is chosen so by default)")
    tune.add_argument("--no-tune", action="store_true",
                      help="keep the SVMs' fixed C (by default they choose it by 3-fold "
                           "cross-validation over a warm-started path, AUCSVMCV / "
                           "PartialAUCSVMCV, scored by the partial AUC)")
    cmp.add_argument("--n-jobs", type=int, default=None,
                     help="parallel jobs (folds) of the cross-validations")
    cmp.add_argument("--seed", type=int, default=0, help="seed of the split and the rankers")
    cmp.add_argument("--plot", metavar="PNG", help="write the test ROC curves with the FPR "
                                                   "window shaded to this file")
    cmp.add_argument("--ci", action=argparse.BooleanOptionalAction, default=True,
                     help="95%% bootstrap interval of each method's test pAUC, and each "
                          "method's difference to the best with its paired-bootstrap p-value "
                          "(default: on; --no-ci to skip); with --plot, a bootstrap band around "
                          "the best method's curve")
    cmp.add_argument("--tpr-at", type=float, default=None, metavar="FPR",
                     help="add a column: each method's test TPR at this FPR (a threshold "
                          "passing at most that share of the negatives), with --ci its 95%% "
                          "interval (the exact stratified bootstrap, tpr_at_fpr_ci)")
    cmp.add_argument("--resamples", type=int, default=2000,
                     help="bootstrap resamples of --ci (default: 2000)")
    cmp.add_argument("--json", action="store_true", help="print the table as a JSON list")
    cmp.add_argument("--quiet", action="store_true", help="no progress lines")
    _reader_study_parser(sub)
    return parser


def _reader_study_parser(sub):
    rs = sub.add_parser(
        "reader-study", help="Obuchowski-Rockette analysis of a multi-reader multi-case table",
        description="Read a tidy CSV table (one row per rating: truth, rating, reader, "
                    "modality, case) and print the reader-averaged figure of merit of each "
                    "modality and the comparison of the modalities, with random readers and "
                    "cases (Hillis's degrees of freedom) unless told otherwise.")
    rs.add_argument("file", help="the CSV file, with a header row naming the columns")
    rs.add_argument("--metric", choices=("auc", "partial_auc", "tpr_at_fpr"), default="auc")
    rs.add_argument("--fpr-range", nargs=2, type=float, default=None,
                    metavar=("ALPHA", "BETA"), help="window of --metric partial_auc "
                                                    "(default: 0 0.1)")
    rs.add_argument("--normalize", choices=("range", "mcclish", "none"), default="range",
                    help="of the partial AUC (default: range)")
    rs.add_argument("--fpr", type=float, default=None,
                    help="the FPR of --metric tpr_at_fpr (default: 0.1)")
    rs.add_argument("--interpolate", action="store_true",
                    help="--metric tpr_at_fpr on the interpolated ROC curve")
    rs.add_argument("--covariance", choices=("jackknife", "delong", "bootstrap"),
                    default="jackknife")
    rs.add_argument("--analysis", choices=("random", "fixed_readers", "fixed_cases"),
                    default=None, help="default: random readers and cases (fixed readers "
                                       "with one reader)")
    rs.add_argument("--model", default=None, metavar="READER",
                    help="the reader whose ratings are a model's scores: compare it with "
                         "the other readers' average (one modality)")
    rs.add_argument("--p-adjust", choices=("holm", "bh", "none"), default="holm")
    rs.add_argument("--resamples", type=int, default=2000,
                    help="resamples of --covariance bootstrap (default: 2000)")
    rs.add_argument("--seed", type=int, default=0, help="seed of --covariance bootstrap")
    rs.add_argument("--pos-label", default=None, help="the truth of the positive cases when "
                                                      "it is not 1")
    for column in ("truth", "rating", "reader", "modality", "case"):
        rs.add_argument(f"--{column}-column", default=column,
                        help=f"name of the {column} column (default: {column})"
                        + ("; a file without it holds one modality" if column == "modality"
                           else ""))
    rs.add_argument("--json", action="store_true",
                    help="print the modalities and the pairs as JSON")


def _load(path, args, n_features=None, feature_names=None):
    """``(X, y, feature names or None)`` of one file; messages name the command's options."""
    from .datasets import load_csv, load_svmlight

    try:
        if Path(path).suffix.lower() == ".csv":
            if args.label_column is None:
                raise ValueError(f"{path} is a CSV file: give --label-column")
            # CSV columns are matched by name: a test file may order them differently
            return load_csv(path, label_column=args.label_column, pos_label=args.pos_label,
                            feature_names=feature_names, return_feature_names=True)
        pos_label = None
        if args.pos_label is not None:
            try:
                pos_label = float(args.pos_label)
            except ValueError:
                raise ValueError(f"--pos-label must be a number for an svmlight file (its "
                                 f"labels are numbers), got {args.pos_label!r}") from None
        X, y = load_svmlight(path, n_features=n_features, pos_label=pos_label)
        return X, y, None
    except ValueError as exc:
        # the loaders speak of their pos_label parameter; here it is an option
        raise ValueError(str(exc).replace("pos_label", "--pos-label")) from None


def load_data(args):
    """Training and test parts as (X, y, X_test, y_test)."""
    from .datasets import load_a9a

    if args.data is None:
        if args.test is not None:
            raise ValueError("--test needs --data")
        return load_a9a()
    X, y, names = _load(args.data, args)
    if args.test is not None:
        X_test, y_test, _ = _load(args.test, args, n_features=X.shape[1], feature_names=names)
        if X_test.shape[1] != X.shape[1]:
            raise ValueError(f"{args.test} has {X_test.shape[1]} features, "
                             f"{args.data} has {X.shape[1]}")
        return X, y, X_test, y_test
    from sklearn.model_selection import train_test_split

    X, X_test, y, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y,
                                            random_state=args.seed)
    return X, y, X_test, y_test


def _scores(estimator, X):
    if hasattr(estimator, "decision_function"):
        return estimator.decision_function(X)
    return estimator.predict_proba(X)[:, 1]


class _Progress:
    """One line on stderr while a method fits: elapsed seconds, and for the structural
    SVMs the cutting-plane iteration, delivered by their ``callback`` (lightning's
    way: the solver calls it after every iteration; nothing polls the estimator).

    On a terminal the line is rewritten in place (at most every ``REDRAW`` seconds);
    in a log file or a pipe every rewrite would stay, so one plain line per method is
    printed at the end instead.
    """

    REDRAW = 0.5

    def __init__(self, name, estimator, stream, enabled):
        self.name, self.stream, self.enabled = name, stream, enabled
        isatty = getattr(stream, "isatty", None)
        self.live = bool(enabled and isatty is not None and isatty())
        self.iteration = None
        self._start = self._drawn = time.perf_counter()
        self._attach(estimator)

    def _attach(self, estimator):
        """Give the estimator (or the one a grid search clones) the callback.  A plain
        function, not a bound method: scikit-learn's clone deep-copies parameters, and
        a function is copied as itself, so every clone reports here."""
        def callback(solver):
            self.iteration = solver.n_iter_
            if self.live and time.perf_counter() - self._drawn >= self.REDRAW:
                self._draw()

        inner = getattr(estimator, "estimator", None)      # GridSearchCV (--tune)
        for target, key in ((estimator, "callback"), (inner, "estimator__callback")):
            if target is not None and "callback" in target.get_params(deep=False):
                estimator.set_params(**{key: callback})
                return

    def _line(self):
        text = f"fitting {self.name:<14} {time.perf_counter() - self._start:7.1f} s"
        return text + (f"  iteration {self.iteration}" if self.iteration else "")

    def _draw(self):
        self._drawn = time.perf_counter()
        print("\r" + self._line(), end="", file=self.stream, flush=True)

    def __enter__(self):
        if self.live:
            print(self._line(), end="", file=self.stream, flush=True)
        return self

    def __exit__(self, *exc):
        if self.live:
            print("\r" + self._line() + "  done", file=self.stream, flush=True)
        elif self.enabled:
            print(self._line() + "  done", file=self.stream, flush=True)
        return False


def _build(method, fpr_range, args):
    """The estimator of ``method``: the SVMs' CV estimators unless ``--no-tune``, the
    others wrapped in a grid search with ``--tune``."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    if method.cv_target and not args.no_tune:
        # C along a warm-started path per fold (pauc.svm's CV estimators), scored as
        # --tune scores the others
        return method.make_cv(fpr_range, n_jobs=args.n_jobs,
                              scoring=metrics.partial_auc_scorer(fpr_range=fpr_range),
                              cv=StratifiedKFold(3, shuffle=True, random_state=args.seed))
    estimator = method.make(fpr_range)
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=args.seed)
    if args.tune and method.grid:
        estimator = GridSearchCV(
            estimator, method.grid, n_jobs=args.n_jobs,
            scoring=metrics.partial_auc_scorer(fpr_range=fpr_range),
            cv=StratifiedKFold(3, shuffle=True, random_state=args.seed))
    return estimator


def _check_plot_path(path):
    """Refuse a ``--plot`` file that cannot be written, before any fitting."""
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise ValueError(f"--plot: the folder {str(folder)!r} does not exist")
    if target.is_dir():
        raise ValueError(f"--plot: {path!r} is a folder, not a file name")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"--plot: cannot write into the folder {str(folder)!r}")
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise ValueError("--plot needs matplotlib (pip install matplotlib)") from None
    suffix = target.suffix.lower().lstrip(".")
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise ValueError(f"--plot: matplotlib cannot write .{suffix} files; use one of "
                         + ", ".join(sorted(formats)))


def _fit(estimator, X, y):
    """Fit, and return the messages of the warnings meant for the user (``UserWarning``:
    convergence, degenerate solutions), shown in the table; others (deprecations in the
    libraries) go their usual way."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    messages, degenerate = [], []
    for w in caught:
        if not issubclass(w.category, UserWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        text = f"{w.category.__name__}: {w.message}"
        if issubclass(w.category, DegenerateSolutionWarning):
            degenerate.append(text)
        elif text not in messages:
            messages.append(text)
    if degenerate:
        # a grid (or a CV estimator) warns once per value of C, each message naming
        # its C: keep the last one -- the refit at the chosen C comes last -- once
        more = len(degenerate) - 1
        messages.append(degenerate[-1] + (f" ({more} other fits of the grid warned the same "
                                          "way)" if more else ""))
    return messages


def compare(args, out=None, err=None):
    """Fit each chosen method and return the table's rows (also printed)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    fpr_range = check_fpr_range(args.fpr_range, name="--fpr-range")
    if args.tpr_at is not None:
        check_rate(args.tpr_at, "--tpr-at")
    if args.ci and args.resamples < 2:
        raise ValueError(f"--resamples must be >= 2, got {args.resamples}")
    if args.plot:
        _check_plot_path(args.plot)
    X, y, X_test, y_test = load_data(args)
    rows, test_scores = [], {}
    # each method once, in the order given
    for name in dict.fromkeys(args.methods or list(METHODS)):
        method = METHODS[name]
        estimator = _build(method, fpr_range, args)
        with _Progress(name, estimator, err, not args.quiet):
            start = time.perf_counter()
            messages = _fit(estimator, X, y)
            seconds = time.perf_counter() - start
        estimator = getattr(estimator, "best_estimator_", estimator)
        s = _scores(estimator, X_test)
        test_scores[name] = s
        params = estimator.get_params()
        if hasattr(estimator, "C_"):
            params["C"] = estimator.C_         # the CV estimators' choice
        shown = set(method.params) | set(method.grid) | ({"fpr_range"} if method.uses_fpr_range
                                                         else set())
        rows.append({
            "method": name,
            "parameters": {k: params[k] for k in sorted(shown) if k in params},
            "fit_seconds": round(seconds, 3),
            "test_auc": metrics.roc_auc(y_test, s),
            "test_pauc": metrics.partial_auc(y_test, s, fpr_range=fpr_range),
            "tpr_at_beta": metrics.tpr_at_fpr(y_test, s, fpr_range[1]),
            **({} if args.tpr_at is None else
               {"tpr_at": args.tpr_at, "test_tpr_at": metrics.tpr_at_fpr(y_test, s, args.tpr_at)}),
            # a model whose optimum is w = 0 ranks nothing: its scores all tie
            "degenerate": bool(getattr(estimator, "degenerate_", False)),
            "warnings": messages,
        })
    ci_notes = _add_intervals(rows, y_test, test_scores, fpr_range, args) if args.ci else []
    if args.plot:
        from .plotting import plot_roc, plot_roc_band

        ax = plot_roc(y_test, test_scores, fpr_range=fpr_range,
                      title=f"test ROC curves, window [{fpr_range[0]:g}, {fpr_range[1]:g}]")
        best = _best_method(rows)
        if args.ci and best is not None:
            plot_roc_band(y_test, test_scores[best], fpr_range=fpr_range, ax=ax, label=best,
                          n_resamples=args.resamples, random_state=args.seed)
        # the scores the picture shows, as the table prints them: a README can check
        # that its table and its picture come from the same run (PNG/PDF/SVG text)
        summary = "\n".join(f"{r['method']} {r['test_auc']:.4f} {r['test_pauc']:.4f}"
                             for r in rows)
        ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight",
                          metadata=_plot_metadata(args.plot, summary))
    if args.json:
        json.dump(_json_ready(rows), out, indent=2, default=str)
        out.write("\n")
    else:
        _print_table(rows, fpr_range, out)
        if ci_notes:
            print(file=out)
        for note in ci_notes:
            print(note, file=out)
    return rows


def _json_ready(value):
    """``value`` with NaN (a test without spread) as null: JSON has no NaN."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_ready(v) for v in value]
    return value


def _pvalue_text(p):
    if p is None:
        return "best"
    if math.isnan(p):
        return "n/a"        # no spread in the resampled differences (see compare_rankers)
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _best_method(rows):
    """The method of the highest test pAUC (the first of equals), or None."""
    return max(rows, key=lambda r: r["test_pauc"])["method"] if rows else None


def _add_intervals(rows, y_test, test_scores, fpr_range, args):
    """Add to each row its test pAUC's bootstrap interval and AUC's DeLong interval,
    and its pAUC difference to the best method with the paired bootstrap's p-value
    (the same resamples for both). Returns the notes to print under the table."""
    best = _best_method(rows)
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        try:
            for r in rows:
                s = test_scores[r["method"]]
                ci = metrics.partial_auc_ci(y_test, s, fpr_range=fpr_range,
                                            n_resamples=args.resamples, random_state=args.seed)
                r["test_pauc_ci"] = [ci.low, ci.high]
                if args.tpr_at is not None:
                    tpr = metrics.tpr_at_fpr_ci(y_test, s, args.tpr_at)
                    r["test_tpr_at_ci"] = [tpr.low, tpr.high]
                try:
                    auc = metrics.roc_auc_ci(y_test, s)
                    r["test_auc_ci"] = [auc.low, auc.high]
                except ValueError:          # fewer than 2 test rows of a class
                    r["test_auc_ci"] = None
                if r["method"] == best:
                    r["pauc_diff_to_best"], r["pauc_diff_pvalue"] = 0.0, None
                    continue
                c = metrics.compare_rankers(y_test, test_scores[best], s, metric="partial_auc",
                                            fpr_range=fpr_range, n_resamples=args.resamples,
                                            random_state=args.seed)
                r["pauc_diff_to_best"], r["pauc_diff_pvalue"] = -c.difference, c.pvalue
        except ValueError as exc:
            # e.g. a window holding no test negative: the table stands without intervals
            notes.append(f"no intervals: {exc}")
            for r in rows:
                for key in ("test_pauc_ci", "test_auc_ci", "test_tpr_at_ci",
                            "pauc_diff_to_best", "pauc_diff_pvalue"):
                    r.pop(key, None)
    for message in dict.fromkeys(str(w.message) for w in caught):
        notes.append(f"intervals: {message}")
    if rows and "test_pauc_ci" in rows[0]:
        notes.insert(0, f"pAUC CI: 95% stratified bootstrap percentile interval "
                        f"({args.resamples} resamples); diff: pAUC minus the best method's "
                        f"({best}), p: paired bootstrap test of equal pAUC"
                        + ("" if args.tpr_at is None else
                           f"; TPR@{args.tpr_at:g} CI: 95% exact stratified bootstrap "
                           "percentile interval"))
    return notes


def _plot_metadata(path, summary):
    """``savefig``'s metadata holding ``summary``, under the key the format has
    for free text (none for the raster formats that keep no text)."""
    key = {".png": "Description", ".pdf": "Subject", ".svg": "Description"}
    suffix = os.path.splitext(str(path))[1].lower()
    return {key[suffix]: summary} if suffix in key else None


def _print_table(rows, fpr_range, out):
    """The table; a method that warned gets a note, and its warnings are listed below."""
    a, b = fpr_range
    with_ci = bool(rows) and "test_pauc_ci" in rows[0]
    ci_header = f" {'pAUC 95% CI':>17} {'diff':>8} {'p':>7}" if with_ci else ""
    tpr_at = rows[0].get("tpr_at") if rows else None
    tpr_header = ""
    if tpr_at is not None:
        tpr_header = f" {f'TPR@{tpr_at:g}':>9}" + (f" {'95% CI':>17}" if with_ci else "")
    header = (f"{'method':<14} {'fit s':>8} {'AUC':>7} {f'pAUC[{a:g},{b:g}]':>15} "
              f"{f'TPR@{b:g}':>9}{tpr_header}{ci_header}  {'note':<24}  parameters")
    print(header, file=out)
    print("-" * len(header), file=out)
    notes = []
    for r in rows:
        params = ", ".join(f"{k}={v}" for k, v in r["parameters"].items())
        note = ""
        if r["warnings"]:
            notes.append((r["method"], r["warnings"]))
            if r["degenerate"]:
                label = "w = 0, no ranking"
            elif any(m.startswith("DegenerateSolutionWarning") for m in r["warnings"]):
                label = "does not beat w = 0"
            else:
                label = "warned"
            note = f"{label} [{len(notes)}]"
        ci = ""
        if with_ci:
            low, high = r["test_pauc_ci"]
            p = r["pauc_diff_pvalue"]
            ci = (f" {f'[{low:.4f}, {high:.4f}]':>17} {r['pauc_diff_to_best']:>+8.4f} "
                  f"{_pvalue_text(p):>7}")
        tpr = ""
        if tpr_at is not None:
            tpr = f" {r['test_tpr_at']:>9.4f}"
            if with_ci:
                low, high = r["test_tpr_at_ci"]
                tpr += f" {f'[{low:.4f}, {high:.4f}]':>17}"
        print(f"{r['method']:<14} {r['fit_seconds']:>8.2f} {r['test_auc']:>7.4f} "
              f"{r['test_pauc']:>15.4f} {r['tpr_at_beta']:>9.4f}{tpr}{ci}  {note:<24}  "
              f"{params}", file=out)
    if notes:
        print(file=out)
    for k, (method, messages) in enumerate(notes, start=1):
        for message in messages:
            print(f"[{k}] {method}: {message}", file=out)


def reader_study_command(args, out=None):
    """``pauc reader-study FILE``: read the table, print the analysis; returns it."""
    import csv

    import numpy as np

    from .datasets._csv import _as_label, _parse_labels

    out = sys.stdout if out is None else out
    with open(args.file, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    if len(rows) < 2:
        raise ValueError(f"{args.file} holds no ratings (a header row and one row per rating)")
    header, body = [name.strip() for name in rows[0]], rows[1:]
    if any(len(row) != len(header) for row in body):
        raise ValueError(f"{args.file}: every row must have the {len(header)} fields of the "
                         "header")
    names = {c: getattr(args, f"{c}_column") for c in ("truth", "rating", "reader",
                                                        "modality", "case")}
    if names["modality"] not in header and names["modality"] == "modality":
        names["modality"] = None      # no modality column: one modality
    for role, name in names.items():
        if name is not None and name not in header:
            raise ValueError(f"{args.file} has no column {name!r} (--{role}-column); its "
                             f"columns are {header}")
    columns = {name: header.index(name) for name in names.values() if name is not None}
    table = {name: _parse_labels(np.array([row[j].strip() for row in body]))
             for name, j in columns.items()}
    model = None if args.model is None else _as_label(args.model, table[names["reader"]])
    pos_label = None if args.pos_label is None else _as_label(args.pos_label,
                                                               table[names["truth"]])
    result = metrics.reader_study(
        table, metric=args.metric,
        fpr_range=None if args.fpr_range is None else tuple(args.fpr_range),
        normalize=args.normalize, fpr=args.fpr, interpolate=args.interpolate,
        covariance=args.covariance, analysis=args.analysis, model=model,
        p_adjust=None if args.p_adjust == "none" else args.p_adjust,
        n_resamples=args.resamples, random_state=args.seed, pos_label=pos_label,
        truth=names["truth"], rating=names["rating"], reader=names["reader"],
        modality=names["modality"], case=names["case"])
    if args.json:
        def plain(value):
            # JSON has neither NaN nor infinity: null, and "inf" for a normal test's df
            if isinstance(value, float) and math.isinf(value):
                return "inf"
            if isinstance(value, dict):
                return {k: plain(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return [plain(v) for v in value]
            return _json_ready(value)

        print(json.dumps(plain({"metric": result.metric, "analysis": result.analysis,
                                "covariance": result.covariance,
                                "statistic": result.statistic, "df": result.df,
                                "pvalue": result.pvalue,
                                "modalities": result.to_dicts("modalities"),
                                "pairs": result.to_dicts("pairs")}), indent=1), file=out)
    else:
        print(result, file=out)
    return result


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv or ["compare"])
    try:
        if args.command == "reader-study":
            reader_study_command(args)
            return 0
        compare(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"pauc: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
