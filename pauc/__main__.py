"""``python -m pauc`` / ``pauc``: fit rankers on one data set and compare them on the ROC curve."""

import argparse
import json
import sys
import time

import numpy as np

from . import metrics
from ._registry import METHODS
from ._validation import check_fpr_range


def _parser():
    parser = argparse.ArgumentParser(
        prog="pauc", description="Bipartite ranking for the AUC and the partial AUC.")
    sub = parser.add_subparsers(dest="command")
    cmp = sub.add_parser("compare", help="fit rankers on one data set and print one table")
    cmp.add_argument("--data", help="svmlight training file (default: the bundled a9a split)")
    cmp.add_argument("--test", help="svmlight test file (default: a seeded 1/3 split of --data)")
    cmp.add_argument("--fpr-range", nargs=2, type=float, default=(0.0, 0.1),
                     metavar=("ALPHA", "BETA"), help="FPR window of the partial AUC")
    cmp.add_argument("--methods", nargs="+", default=None, choices=sorted(METHODS),
                     help="rankers to fit (default: all)")
    cmp.add_argument("--seed", type=int, default=0, help="seed of the split and the rankers")
    cmp.add_argument("--json", action="store_true", help="print the table as JSON")
    cmp.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def _load(args):
    from .datasets import load_a9a, load_svmlight

    if args.data is None:
        return load_a9a()
    X, y = load_svmlight(args.data)
    if args.test is not None:
        X_test, y_test = load_svmlight(args.test, n_features=X.shape[1])
        return X, y, X_test, y_test
    from sklearn.model_selection import train_test_split

    X, X_test, y, y_test = train_test_split(X, y, test_size=1 / 3, stratify=y,
                                            random_state=args.seed)
    return X, y, X_test, y_test


def _scores(estimator, X):
    if hasattr(estimator, "decision_function"):
        return estimator.decision_function(X)
    return estimator.predict_proba(X)[:, 1]


def compare(args, out=None, err=None):
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    fpr_range = check_fpr_range(args.fpr_range, name="--fpr-range")
    X, y, X_test, y_test = _load(args)
    rows = []
    for name in args.methods or list(METHODS):
        method = METHODS[name]
        estimator = method.make(fpr_range)
        if not args.quiet:
            print(f"fitting {name} ...", file=err, flush=True)
        start = time.perf_counter()
        estimator.fit(X, y)
        seconds = time.perf_counter() - start
        s = _scores(estimator, X_test)
        rows.append({
            "method": name,
            "parameters": {k: v for k, v in estimator.get_params().items() if k in method.params
                           or k == "fpr_range"},
            "fit_seconds": round(seconds, 3),
            "test_auc": metrics.roc_auc(y_test, s),
            "test_pauc": metrics.partial_auc(y_test, s, fpr_range=fpr_range),
            "tpr_at_beta": metrics.tpr_at_fpr(y_test, s, fpr_range[1]),
        })
    if args.json:
        json.dump(rows, out, indent=2, default=str)
        out.write("\n")
        return rows
    a, b = fpr_range
    header = f"{'method':<12} {'fit s':>8} {'AUC':>7} {f'pAUC[{a:g},{b:g}]':>15} {f'TPR@{b:g}':>9}"
    print(header, file=out)
    print("-" * len(header), file=out)
    for r in rows:
        print(f"{r['method']:<12} {r['fit_seconds']:>8.2f} {r['test_auc']:>7.4f} "
              f"{r['test_pauc']:>15.4f} {r['tpr_at_beta']:>9.4f}", file=out)
    return rows


def main(argv=None):
    args = _parser().parse_args(argv if argv is not None else sys.argv[1:] or ["compare"])
    if args.command in (None, "compare"):
        if args.command is None:
            args = _parser().parse_args(["compare"])
        try:
            compare(args)
        except (ValueError, FileNotFoundError) as exc:
            print(f"pauc: error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
