"""Replay GradientBoostingRanker's out-of-fold selection offline, under other rules.

``bench/panel_real.py run --methods gbm`` saves, per (set, split, window), every
boosted candidate's out-of-fold scores on the training rows and its fold-bagged
scores on the test rows.  This script rebuilds the blends and the selection of
:meth:`GradientBoostingRanker._select` from them (the same functions of
:mod:`pauc.gbm._selection`) for each rule -- the reference candidate and the
bootstrap bar -- and prints the mean test pAUC per set, so that a rule is
measured on the whole panel from one run of the boosting::

    python bench/panel_replay.py --references logloss mean logloss-extra --confidence 0.84 0.5

The reference ``first`` is the first candidate (the estimator's rule).
``--bootstrap old new`` replays each rule with both selection bootstraps -- the
package's (``new``, :func:`pauc.gbm._selection.bootstrap_criteria`) and the
hand-written ``rng.choice`` loop it replaced (``old``, kept in
``bench/selection_bootstrap.py``) -- and counts, per set and rule, the (split,
window) cells whose kept candidate differs between the first two::

    python bench/panel_replay.py --references first --confidence 0.84 --bootstrap old new

The choice inside each fit uses the out-of-fold scores only; the test scores are
read only to report.
"""

import argparse
import glob
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from pauc.gbm._ranker import BOOTSTRAP_ROUNDS, ENSEMBLE_STEPS
from pauc.gbm._crossfit import plan_folds
from pauc.gbm._selection import (RankScale, blend, bootstrap_criteria, criterion,
                                   cross_fitted_ensemble, fold_quantiles, select)
from pauc.gbm._stopping import validation_windows
from pauc.metrics import partial_auc

from _paths import PANEL_CACHE
from selection_bootstrap import old_bootstrap_criteria

BOOTSTRAPS = {"new": bootstrap_criteria, "old": old_bootstrap_criteria}


def _fold_quantiles(raw, pos, window, split):
    """Runs saved before the out-of-fold scores were fold quantiles hold the raw
    held-out scores: rebuild the estimator's folds (cv="auto", its seed) and
    convert each fold's scores to quantiles."""
    fold_seed = int(np.random.RandomState(split).randint(np.iinfo(np.int32).max, size=3)[0])
    folds = plan_folds("auto", 0.1, np.zeros((pos.shape[0], 1)), pos, window, fold_seed)
    out = np.empty(pos.shape[0])
    for _, held_out in folds:
        out[held_out] = fold_quantiles(raw[held_out])
    return out


def entries(data, window, split):
    """``(names, oof list, test list)`` of the candidates and blends, as the fit builds them."""
    names = [k[5:] for k in data.files if k.startswith("oof__")]
    pos = data["y_train"]
    if f"raw__{names[0]}" in data.files:
        raw = [data[f"raw__{n}"] for n in names]
        oof = [data[f"oof__{n}"] for n in names]
    else:
        raw = [data[f"oof__{n}"] for n in names]
        oof = [_fold_quantiles(r, pos, window, split) for r in raw]
    test = [data[f"test__{n}"] for n in names]
    windows = validation_windows(int((~pos).sum()), window)
    scales = [RankScale(r) for r in raw]
    norm_oof = oof
    norm_test = [sc(s) for sc, s in zip(scales, test)]
    out = list(zip(names, oof, test))
    weights = []
    if "logloss" in names and "exponential" in names:
        weights.append(("blend", np.array([0.5 if n in ("logloss", "exponential") else 0.0
                                           for n in names])))
    if len(names) > 2:
        weights.append(("mean", np.full(len(names), 1.0 / len(names))))
    for label, w in weights:
        out.append((label, blend(norm_oof, w), blend(norm_test, w)))
    w, honest = cross_fitted_ensemble(norm_oof, pos, window, np.random.RandomState(0),
                                      ENSEMBLE_STEPS)
    if np.count_nonzero(w) > 1:
        out.append(("ensemble", honest, blend(norm_test, w)))
    return out, windows


def _store(npz, method, window, value, chosen):
    """Add one window's replayed result to ``method``'s JSON record of the split."""
    import json
    split = npz.name.split("_")[0]
    source = npz.parent / f"{split}.json"
    out = npz.parent.parent / method / f"{split}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    record = (json.loads(out.read_text()) if out.exists()
              else {"pauc": {}, "seconds": {}, "extra": {}})
    if source.exists():
        record["seconds"] = json.loads(source.read_text())["seconds"]
    record["pauc"][str(window)] = value
    record["extra"][str(window)] = {"chosen": chosen, "replayed_from": str(npz)}
    out.write_text(json.dumps(record))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default=str(PANEL_CACHE))
    parser.add_argument("--method", default="gbm")
    parser.add_argument("--sets", nargs="+", default=["*"])
    parser.add_argument("--write-method", default=None,
                        help="store the first rule's choices as this method's results "
                             "(panel_real.py report reads them; fit seconds copied)")
    parser.add_argument("--references", nargs="+", default=["logloss", "mean", "logloss-extra"])
    parser.add_argument("--confidence", nargs="+", type=float, default=[0.84, 0.5])
    parser.add_argument("--bootstrap", nargs="+", choices=sorted(BOOTSTRAPS), default=["new"],
                        help="the selection bootstrap(s) to replay the rules with: the "
                             "package's (new) or the hand-written one it replaced (old)")
    args = parser.parse_args()
    rules = [(r, c) for r in args.references for c in args.confidence]
    table = defaultdict(lambda: defaultdict(list))
    differ = defaultdict(lambda: defaultdict(int))     # set -> rule -> cells kept differently
    paths = [p for s in args.sets for p in glob.glob(f"{args.cache}/{s}/{args.method}/*.npz")]
    for path in sorted(paths):
        name = Path(path).parts[-3]
        m = re.match(r"(\d+)_([\d.e-]+)_([\d.e-]+)\.npz", Path(path).name)
        window = (float(m.group(2)), float(m.group(3)))
        data = np.load(path)
        found, windows = entries(data, window, int(m.group(1)))
        labels = [e[0] for e in found]
        pos, yt = data["y_train"], data["y_test"]
        values = [criterion(pos, e[1], windows) for e in found]
        boots = [BOOTSTRAPS[b](pos, [e[1] for e in found], windows, np.random.RandomState(0),
                               BOOTSTRAP_ROUNDS) for b in args.bootstrap]
        tests = [partial_auc(yt, e[2], fpr_range=window) for e in found]
        for r, c in rules:
            ref = labels.index(r) if r in labels else 0
            kept = [select(values, boot, c, ref) for boot in boots]
            for b, k in zip(args.bootstrap, kept):
                suffix = f"/{b}" if len(args.bootstrap) > 1 else ""
                table[name][f"{r}@{c:g}{suffix}"].append(tests[k])
            differ[name][f"{r}@{c:g}"] += len(kept) > 1 and kept[0] != kept[1]
        if args.write_method:
            r, c = rules[0]
            kept = select(values, boots[0], c, labels.index(r) if r in labels else 0)
            _store(Path(path), args.write_method, window, tests[kept], labels[kept])
        for label, t in zip(labels, tests):
            table[name][f"only:{label}"].append(t)
    keys = sorted({k for v in table.values() for k in v})
    print(f"{'set':<24} {'n':>3} " + " ".join(f"{k[:16]:>16}" for k in keys))
    for name, cols in table.items():
        n = len(next(iter(cols.values())))
        print(f"{name[:24]:<24} {n:>3} " + " ".join(
            f"{np.mean(cols[k]):16.4f}" if k in cols else f"{'':>16}" for k in keys))
    if len(args.bootstrap) > 1:
        a, b = args.bootstrap[:2]
        print(f"\n(split, window) cells whose kept candidate differs, {a} vs {b}")
        print(f"{'set':<24} {'n':>3} " + " ".join(f"{f'{r}@{c:g}'[:16]:>16}" for r, c in rules))
        for name, cols in differ.items():
            n = len(next(iter(table[name].values())))
            print(f"{name[:24]:<24} {n:>3} " + " ".join(
                f"{cols[f'{r}@{c:g}']:16d}" for r, c in rules))


if __name__ == "__main__":
    main()
