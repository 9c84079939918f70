"""Real-data panel of GradientBoostingRanker against the boosting peers at their defaults.

The sets (issue 25):

* the five small imbalanced KEEL sets of the data folder (``page-blocks0``,
  ``winequality-red-4``, ``car-good``, ``kr-vs-k-zero-one_vs_draw``,
  ``abalone-17_vs_7-8-9-10``) and the six of 25-55 positives (``cm1``, ``yeast4``,
  ``yeast-1-2-8-9_vs_7``, ``winequality-white-3-9_vs_5``, ``spectf``, ``yeast5``),
  10 repeated stratified 70/30 splits each, read from ``../shared/data`` beside
  the repository;
* ``a9a`` and ``reuters``, their shipped training / test splits;
* the generators of ``bench/panel_boost.py``: ``mc-issue`` (issue 18's
  ``make_classification``) and ``hastie-imb``, their fixed splits.

The peers, each at its defaults with one thread: ``lightgbm``
(``LGBMClassifier()``), ``lightgbm-es`` (LightGBM stopped on the log-loss of a
stratified 10 % validation split, patience 100, up to 2000 rounds),
``xgboost`` (``XGBClassifier()``), ``catboost`` (``CatBoostClassifier()``),
``histgbc`` (``HistGradientBoostingClassifier()``).  pauc's variants
(``VARIANTS``) are fitted once per window (the window is a parameter).

Windows: [0, 0.05], [0, 0.1], [0.02, 0.05], and [0, 0.01] where the test split
holds at least 5000 negatives (50 in the window).  Test partial AUC with
``normalize="range"`` (Narasimhan & Agarwal).

Every (set, split, method) result -- the test pAUC of each window and the fit
seconds -- is cached as a JSON file under ``--cache`` (``bench/.cache/panel``,
ignored by git), so the peers are
measured once and pauc's variants can be iterated on::

    python bench/panel_real.py run --methods peers
    python bench/panel_real.py run --methods gbm
    python bench/panel_real.py report --methods gbm catboost xgboost lightgbm lightgbm-es histgbc
    python bench/panel_real.py margin --methods gbm --peer catboost --sets page-blocks0 car-good

``report`` prints mean +- standard deviation over the splits per (set, window)
cell, the mean over the windows per set, and the number of cells and sets where
the first method listed is first (ties within 0.0005 count as first).
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.model_selection import StratifiedShuffleSplit, train_test_split

from pauc.metrics import partial_auc

sys.path.insert(0, str(Path(__file__).parent))

from _paths import DATA, PANEL_CACHE  # noqa: E402

SMALL = ("page-blocks0", "winequality-red-4", "car-good", "kr-vs-k-zero-one_vs_draw",
         "abalone-17_vs_7-8-9-10",
         # the six sets of 25-55 positives added to the shared data later
         "cm1", "yeast4", "yeast-1-2-8-9_vs_7", "winequality-white-3-9_vs_5", "spectf", "yeast5",
         # the six of issue 44: 17 small real sets in all
         "wisconsin", "vowel0", "led7digit-0-2-4-5-6-7-8-9_vs_1", "winequality-white-3_vs_7",
         "page-blocks-1-3_vs_4", "winequality-red-8_vs_6")
FIXED = ("a9a", "reuters", "mc-issue", "hastie-imb")
SETS = SMALL + FIXED
N_SPLITS = 10
BASE_WINDOWS = ((0.0, 0.05), (0.0, 0.1), (0.02, 0.05))
NARROW = (0.0, 0.01)
PEERS = ("lightgbm", "lightgbm-es", "xgboost", "catboost", "histgbc")
# pauc's variants: GradientBoostingRanker keyword arguments (fpr_range added per window);
# "_patch": {module: {name: value}} replaces module constants during the fit (to measure
# another rule before making it the default); "_seed_offset" is added to random_state
VARIANTS = {
    "gbm": {},              # the defaults (the exploratory runs of issue 25 were cached as "gbm")
    "gbm-final": {},        # the defaults as committed, run again after the rules were fixed
    "gbm-oblivious": {},    # the defaults with the oblivious-tree reference on small data
    "gbm-grower": {},       # ... their rounds GIL-free in Cython, relative log-loss patience
    # the same with other seeds (random_state = split + offset): the spread of a 10-split mean
    "gbm-grower-s100": {"_seed_offset": 100},
    "gbm-grower-s200": {"_seed_offset": 200},
    # the reference alone below 100 training positives (the five small sets)
    "gbm-minpos": {},
    "gbm-minpos-s100": {"_seed_offset": 100},
    "gbm-minpos-s200": {"_seed_offset": 200},
    # ... and the oblivious candidate's L2 penalty 0.3 (the committed defaults)
    "gbm-l2": {},
    "gbm-l2-s100": {"_seed_offset": 100},
    "gbm-l2-s200": {"_seed_offset": 200},
    # 4 folds instead of 5 up to 10 000 rows (cv="auto"), held-out log-loss in the kernel
    "gbm-k4": {"_patch": {"pauc.gbm._crossfit": {"SMALL_DATA_FOLDS": 4}}},
    "gbm-k4-s100": {"_patch": {"pauc.gbm._crossfit": {"SMALL_DATA_FOLDS": 4}},
                    "_seed_offset": 100},
    "gbm-k4-s200": {"_patch": {"pauc.gbm._crossfit": {"SMALL_DATA_FOLDS": 4}},
                    "_seed_offset": 200},
    # the defaults again after the held-out log-loss and criterion moved into the kernel
    "gbm-heldout": {},
    # every candidate at most 500 rounds (not kept: car-good 0.9925 against 0.9929)
    "gbm-cap500": {"_patch": {"pauc.gbm._ranker": {"AUTO_ROUNDS": {True: 500, False: 100}}}},
    # the log-loss rule's least gain a share of the first round's log-loss, not of the
    # best (run with a switch since removed: the defaults on the small-data pool, whose
    # candidates all learn at 0.1; on a9a and reuters the gain was not scaled by the
    # learning rate), then scaled by the learning rate (the committed defaults)
    "gbm-absgain": {},
    "gbm-absgain-s100": {"_seed_offset": 100},
    "gbm-absgain-s200": {"_seed_offset": 200},
    "gbm-lrgain": {},
    "gbm-stopgain": {},     # the committed defaults, run again
    # issue 34: the race, one binning per fit, held-out scores kept from the training loop
    # (the same names run on the tree before it, d901a4c, for the before/after table)
    "gbm-race": {},
    "gbm-race-s100": {"_seed_offset": 100},
    "gbm-race-s200": {"_seed_offset": 200},
    # ... and without the race (every candidate on every fold): the full run
    "gbm-norace": {"_patch": {"pauc.gbm._race": {"RACING": False}}},
    # 2 folds instead of 3 above 10 000 rows (cv="auto"): half the boosted row-rounds
    "gbm-k2": {"_patch": {"pauc.gbm._crossfit": {"LARGE_DATA_FOLDS": 2}}},
    "gbm-k2-s100": {"_patch": {"pauc.gbm._crossfit": {"LARGE_DATA_FOLDS": 2}},
                    "_seed_offset": 100},
    "gbm-k2-s200": {"_patch": {"pauc.gbm._crossfit": {"LARGE_DATA_FOLDS": 2}},
                    "_seed_offset": 200},
    # issue 44: the defaults before it (the "before" column), and after
    "gbm-before44": {},
    "gbm-44": {},
    "gbm-44sat": {},        # ... with the saturated window's fixed budget on every row (raw 0.9)
    "gbm-44sat2": {},       # ... judged from chance, one standard error below (the defaults)
    # the defaults without the saturated rule (the fixed budget cross-fitted after the
    # reference, not raced against it as in gbm-44)
    "gbm-nosat": {"_patch": {"pauc.gbm._plan": {"SATURATED_CRITERION": float("inf")}}},
    # issue 44 item 2: every candidate's folds stopped together on the pooled curve
    "gbm-44pool": {},       # (the defaults)
    "gbm-nopool": {"_patch": {"pauc.gbm._stopping": {"POOLED": False}}},
    # the defaults of 0978bc7 (before the pooled round), run from a build of that commit
    "gbm-0978": {},
    # exploring past the pooled round: 10 folds on small data, a smaller least log-loss gain
    "gbm-p-k10": {"_patch": {"pauc.gbm._crossfit": {"SMALL_DATA_FOLDS": 10}}},
    "gbm-p-gain": {"_patch": {"pauc.gbm._stopping": {"LOGLOSS_MIN_GAIN": 1e-4}}},
}


def _reference_trees(**config):
    """A patch: the small-data reference's oblivious trees with ``config``."""
    from pauc.gbm import _candidates
    import dataclasses
    reference = _candidates.SMALL_DATA[0]
    pool = ((dataclasses.replace(reference, config=dict(reference.config, **config)),)
            + _candidates.SMALL_DATA[1:])
    return {"pauc.gbm._candidates": {"SMALL_DATA": pool}}


# issue 44: the stopped reference grown as CatBoost grows its trees (10 Newton steps
# per leaf on every row, the random strength fading), L2 3
VARIANTS["gbm-44cb"] = {"_patch": _reference_trees(leaves="all", leaf_iterations=10,
                                                   strength_decay=True, l2_leaf_reg=3.0)}


def _oblivious_learning_rate(rate):
    """A patch: the small-data pool with the oblivious reference at ``rate``."""
    from pauc.gbm import _candidates
    reference = _candidates.SMALL_DATA[0]
    config = dict(reference.config, learning_rate=rate)
    import dataclasses
    pool = (dataclasses.replace(reference, config=config),) + _candidates.SMALL_DATA[1:]
    return {"pauc.gbm._candidates": {"SMALL_DATA": pool}}


# the oblivious reference's learning rate 0.2 instead of 0.1
for _rate, _tag in ((0.2, "lr20"),):
    for _offset in (0, 100, 200):
        VARIANTS[f"gbm-{_tag}" + (f"-s{_offset}" if _offset else "")] = {
            "_patch": _oblivious_learning_rate(_rate), "_seed_offset": _offset}


class _Patched:
    """Set module constants for the duration of a ``with`` block."""

    def __init__(self, patch):
        import importlib
        self.items = [(importlib.import_module(m), k, v) for m, kv in patch.items()
                      for k, v in kv.items()]

    def __enter__(self):
        self.saved = [(mod, k, getattr(mod, k)) for mod, k, _ in self.items]
        for mod, k, v in self.items:
            setattr(mod, k, v)

    def __exit__(self, *exc):
        for mod, k, v in self.saved:
            setattr(mod, k, v)


def load(name):
    """``[(X_train, y_train, X_test, y_test), ...]``: the splits of a set, labels 0/1."""
    if name in SMALL:
        X, y = load_svmlight_file(str(DATA / f"{name}.svm.bz2"), zero_based=True)
        X, y = X.toarray(), (y > 0).astype(int)
        splitter = StratifiedShuffleSplit(N_SPLITS, test_size=0.3, random_state=0)
        return [(X[a], y[a], X[b], y[b]) for a, b in splitter.split(X, y)]
    from panel_boost import problem
    return [problem(name)]


def windows_for(y_test):
    n_neg = int((y_test == 0).sum())
    return BASE_WINDOWS + ((NARROW,) if n_neg * NARROW[1] >= 50 else ())


def _dense(X):
    return X.toarray() if hasattr(X, "toarray") else X


def _int32_csr(X):
    """CatBoost reads CSR matrices with int32 indices only."""
    if not hasattr(X, "tocsr"):
        return X
    X = X.tocsr(copy=True)
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    return X


def peer_scores(method, X, y, Xt, seed):
    """Test scores of a peer at its defaults, one thread."""
    if method == "lightgbm":
        import lightgbm as lgb
        return lgb.LGBMClassifier(n_jobs=1, verbose=-1, random_state=seed).fit(
            X, y).predict_proba(Xt)[:, 1]
    if method == "lightgbm-es":
        import lightgbm as lgb
        X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.1, stratify=y,
                                                  random_state=seed)
        model = lgb.LGBMClassifier(n_estimators=2000, n_jobs=1, verbose=-1, random_state=seed)
        model.fit(X_tr, y_tr, eval_X=(X_va,), eval_y=(y_va,),
                  callbacks=[lgb.early_stopping(100, verbose=False)])
        return model.predict_proba(Xt)[:, 1]
    if method == "xgboost":
        import xgboost as xgb
        return xgb.XGBClassifier(n_jobs=1, random_state=seed).fit(X, y).predict_proba(Xt)[:, 1]
    if method == "catboost":
        import catboost
        model = catboost.CatBoostClassifier(thread_count=1, verbose=0, random_seed=seed,
                                            allow_writing_files=False)
        return model.fit(_int32_csr(X), y).predict_proba(_int32_csr(Xt))[:, 1]
    if method == "histgbc":
        from sklearn.ensemble import HistGradientBoostingClassifier
        from threadpoolctl import threadpool_limits
        with threadpool_limits(1):
            return HistGradientBoostingClassifier(random_state=seed).fit(
                _dense(X), y).predict_proba(_dense(Xt))[:, 1]
    raise ValueError(f"unknown peer {method!r}")


def run_one(name, k, split, method, cache):
    path = cache / name / method / f"{k}.json"
    if path.exists():
        return
    X, y, Xt, yt = split
    windows = windows_for(yt)
    record = {"pauc": {}, "seconds": {}, "extra": {}}
    if method in PEERS:
        start = time.perf_counter()
        s = peer_scores(method, X, y, Xt, seed=k)
        record["seconds"]["fit"] = time.perf_counter() - start
        for w in windows:
            record["pauc"][str(w)] = partial_auc(yt, s, fpr_range=w)
    else:
        from pauc.gbm import GradientBoostingRanker
        params = dict(VARIANTS[method])
        patch = params.pop("_patch", {})
        seed = k + params.pop("_seed_offset", 0)
        for w in windows:
            model = GradientBoostingRanker(w, random_state=seed, n_jobs=1, **params)
            start = time.perf_counter()
            with _Patched(patch):
                model.fit(X, y)
            record["seconds"][str(w)] = time.perf_counter() - start
            record["pauc"][str(w)] = model.score(Xt, yt)
            record["extra"][str(w)] = _describe(model, Xt, yt, w)
            _save_scores(path.parent / f"{k}_{w[0]:g}_{w[1]:g}.npz", model, y, Xt, yt)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record))


def _save_scores(path, model, y, Xt, yt):
    """Each boosted candidate's out-of-fold and fold-bagged test scores, to replay
    selection rules offline (``bench/panel_replay.py``)."""
    if not getattr(model, "oof_scores_", None):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    test = {n: s for n, s in model._candidate_test_scores(Xt).items()
            if n in model.oof_scores_}
    np.savez_compressed(path, y_train=(np.asarray(y) == 1), y_test=(np.asarray(yt) == 1),
                        **{f"oof__{n}": v for n, v in model.oof_scores_.items()},
                        **{f"raw__{n}": f.raw for n, f in model._fitted.fits.items()},
                        **{f"test__{n}": v for n, v in test.items()})


def _describe(model, Xt, yt, window):
    """What the model chose, and each candidate's test pAUC (to replay selection rules)."""
    out = {"chosen": getattr(model, "best_loss_", None),
           "selected": getattr(model, "selected_", None)}
    results = getattr(model, "cv_results_", None)
    if results:
        out["cv"] = {k: v for k, v in results.items() if k in ("candidate", "oof_score",
                                                               "oof_std_error", "win_share",
                                                               "rounds", "boosted_rounds",
                                                               "dropped")}
        test_scores = getattr(model, "_candidate_test_scores", None)
        if test_scores is not None:
            out["test"] = {c: partial_auc(yt, s, fpr_range=window)
                           for c, s in test_scores(Xt).items()}
    return out


def run(args):
    cache = Path(args.cache)
    methods = [m for spec in args.methods
               for m in (PEERS if spec == "peers" else (spec,))]
    for name in args.sets:
        splits = load(name)
        if args.max_splits:
            splits = splits[:args.max_splits]
        for method in methods:
            start = time.perf_counter()
            for k, split in enumerate(splits):
                run_one(name, k, split, method, cache)
            print(f"{name:<28} {method:<14} {time.perf_counter() - start:7.1f} s", flush=True)


def _results(cache, name, method):
    files = sorted((cache / name / method).glob("*.json"), key=lambda p: int(p.stem))
    return [json.loads(p.read_text()) for p in files]


def report(args):
    cache = Path(args.cache)
    methods = args.methods
    ours = methods[0]
    print(f"test pAUC (normalize='range'), mean +- std over the splits; first = best mean "
          f"(within 0.0005); '{ours}' first-place counts at the bottom")
    head = f"{'set':<22} {'window':<12} " + " ".join(f"{m[:15]:>15}" for m in methods)
    print(head)
    cells_first = n_cells = sets_first = n_sets = 0
    set_gaps = {}
    for name in args.sets:
        res = {m: _results(cache, name, m) for m in methods}
        n = min(len(r) for r in res.values())
        if n == 0:
            continue
        windows = list(res[methods[0]][0]["pauc"])
        per_set = {m: [] for m in methods}
        for w in windows:
            vals = {m: np.array([r["pauc"][w] for r in res[m][:n]]) for m in methods}
            means = {m: v.mean() for m, v in vals.items()}
            best = max(means.values())
            cells_first += means[ours] >= best - 0.0005
            n_cells += 1
            for m in methods:
                per_set[m].append(means[m])
            print(f"{name[:22]:<22} {w:<12} " + " ".join(
                f"{means[m]:7.4f}+-{vals[m].std():.3f}{'*' if means[m] >= best - 0.0005 else ' '}"
                for m in methods))
        set_means = {m: np.mean(v) for m, v in per_set.items()}
        best = max(set_means.values())
        peer_best = max(v for m, v in set_means.items() if m != ours)
        set_gaps[name] = set_means[ours] - peer_best
        sets_first += set_means[ours] >= best - 0.0005
        n_sets += 1
        secs = {m: np.mean([sum(r["seconds"].values()) / max(1, len(r["seconds"]))
                            for r in res[m][:n]]) for m in methods}
        print(f"{name[:22]:<22} {'mean (' + str(n) + ')':<12} " + " ".join(
            f"{set_means[m]:7.4f}      {'*' if set_means[m] >= best - 0.0005 else ' '}"
            for m in methods))
        print(f"{'':<22} {'fit s':<12} " + " ".join(f"{secs[m]:12.2f}   " for m in methods))
    if getattr(args, "rst", False):
        _rst_table(cache, args.sets, methods)
    print(f"\n'{ours}' first on {cells_first} of {n_cells} (set, window) cells and on "
          f"{sets_first} of {n_sets} sets (mean over the windows)")
    print("set mean - best peer: " + ", ".join(f"{k} {v:+.4f}" for k, v in set_gaps.items()))


def margin(args):
    """Issue 44's table: per set, the mean over the splits of (method - peer) test pAUC,
    each split's figure the mean over the base windows, with its standard error over
    the splits; the mean margin and the sets at or above -1 standard error."""
    cache = Path(args.cache)
    keys = [str(w) for w in BASE_WINDOWS]
    print(f"{'set':<32} {'rows':>6} {'pos':>5} " + " ".join(
        f"{m[:16] + ' - ' + args.peer[:8]:>28}" for m in args.methods))
    gaps = {m: [] for m in args.methods}
    for name in args.sets:
        peer = _results(cache, name, args.peer)
        row = []
        for m in args.methods:
            ours = _results(cache, name, m)
            n = min(len(ours), len(peer))
            if n == 0:
                row.append(" " * 28)
                continue
            d = np.array([np.mean([ours[k]["pauc"][w] - peer[k]["pauc"][w] for w in keys])
                          for k in range(n)])
            se = d.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
            gaps[m].append((d.mean(), se))
            row.append(f"{d.mean():+.4f} +- {se:.4f} ({d.mean() / se if se > 0 else 0:+.1f} se)"
                       .rjust(28))
        if name in SMALL:
            X, y = load_svmlight_file(str(DATA / f"{name}.svm.bz2"), zero_based=True)
            size = f"{X.shape[0]:>6} {int((y > 0).sum()):>5}"
        else:
            size = f"{'':>6} {'':>5}"
        print(f"{name[:32]:<32} {size} " + " ".join(row))
    for m, g in gaps.items():
        if g:
            g = np.array(g)
            print(f"{m}: mean margin {g[:, 0].mean():+.4f} over {len(g)} sets; at or above -1 se "
                  f"on {int((g[:, 0] >= -g[:, 1]).sum())}, ahead on {int((g[:, 0] > 0).sum())}")


def _rst_table(cache, sets, methods):
    """Per set: the mean over the windows of the test pAUC, mean +- std over the splits."""
    rows = []
    for name in sets:
        res = {m: _results(cache, name, m) for m in methods}
        n = min(len(r) for r in res.values())
        if n == 0:
            continue
        cells = {}
        for m in methods:
            per_split = np.array([np.mean(list(r["pauc"].values())) for r in res[m][:n]])
            cells[m] = (per_split.mean(), per_split.std())
        best = max(v[0] for v in cells.values())
        rows.append([f"{name} ({n})"] + [
            (f"**{mu:.4f}**" if mu >= best - 0.0005 else f"{mu:.4f}")
            + (f" ± {sd:.3f}" if n > 1 else "") for mu, sd in cells.values()])
    head = ["set (splits)"] + list(methods)
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = "  ".join("=" * w for w in widths)
    print("\n" + line)
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print(line)
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for command in ("run", "report", "margin"):
        p = sub.add_parser(command)
        p.add_argument("--cache", default=str(PANEL_CACHE))
        p.add_argument("--sets", nargs="+", default=list(SETS))
        p.add_argument("--methods", nargs="+",
                       default=["peers"] if command == "run" else ["gbm", *PEERS])
        p.add_argument("--max-splits", type=int, default=0)
        p.add_argument("--rst", action="store_true", help="report: also an RST table")
        p.add_argument("--peer", default="catboost", help="margin: the peer subtracted")
    args = parser.parse_args()
    {"run": run, "report": report, "margin": margin}[args.command](args)


if __name__ == "__main__":
    main()
