"""The panel behind GradientBoostingRanker's defaults: varied nonlinear problems, 3 windows.

Each candidate loss is boosted once per (problem, window, configuration) with
LightGBM on a stratified training part of the training rows (the other
``--validation-fraction`` held out for validation), for up to
``--max-rounds`` rounds, stopping only after ``--patience-cap`` rounds without
a better validation window pAUC; the validation *and test* window pAUC of every
round are recorded.  Early stopping with any patience up to the cap, and every
selection rule ("auto"), are then replayed offline from the curves, so that
the defaults are chosen on the whole panel from one run.

    python bench/panel_boost.py run --out /tmp/panel            # curves (~1 h, 1 thread)
    python bench/panel_boost.py report --out /tmp/panel         # tables
    python bench/panel_boost.py run --out /tmp/panel_lr01 --learning-rate 0.1

The problems (train / test rows; positives in train):

* ``mc-issue``: the issue's ``make_classification(60000, 20 features, 10
  informative, flip_y=0.02, weights=[0.9], class_sep=0.8, random_state=0)``,
  first half train;
* ``mc-clusters``, ``mc-noisy``, ``mc-clean``: ``make_classification`` with other
  seeds, separations, label noise, class balances and clusters per class;
* ``hastie``, ``hastie-imb``: ``make_hastie_10_2`` (chi-square boundary),
  balanced and with the positives thinned to 10 %;
* ``rf20``, ``rf10-sparse``: the Ranking Forests generators
  (:func:`pauc.datasets.make_ranking_forest_data`);
* ``circles``, ``moons``: two-dimensional shapes with label noise and 8 / 10
  pure-noise features, circles with the positives thinned to 20 %;
* ``friedman``: ``make_friedman1`` (noise 1) thresholded at its 90 % quantile;
* ``checker``: a 4 x 4 checkerboard with 10 % label flips and 6 noise features;
* ``a9a``: the shipped split; ``reuters``: ``../shared/data`` beside the repository, if present.
"""

import argparse
import json
import time
import zlib
from pathlib import Path

import lightgbm as lgb
import numpy as np
from sklearn.datasets import (make_circles, make_classification, make_friedman1,
                              make_hastie_10_2, make_moons)
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

from pauc.datasets import load_a9a, make_ranking_forest_data
from pauc.metrics import partial_auc
from pauc.objectives import window_objective

from _paths import DATA

WINDOWS = ((0.0, 0.01), (0.02, 0.05), (0.0, 0.1))
REUTERS = DATA


def _halves(X, y, n_train):
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def _thin_positives(X, y, keep, rng):
    drop = (y == 1) & (rng.random(y.shape[0]) > keep)
    return X[~drop], y[~drop]


def _noise_features(X, k, rng):
    return np.hstack([X, rng.standard_normal((X.shape[0], k))])


def problem(name):
    """``(X_train, y_train, X_test, y_test)`` with labels in {0, 1}."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    if name == "mc-issue":
        X, y = make_classification(60000, n_features=20, n_informative=10, flip_y=0.02,
                                   weights=[0.9], class_sep=0.8, random_state=0)
        return _halves(X, y, 30000)
    if name == "mc-clusters":
        X, y = make_classification(50000, n_features=20, n_informative=6, n_redundant=4,
                                   n_clusters_per_class=4, flip_y=0.01, weights=[0.95],
                                   class_sep=1.0, random_state=1)
        return _halves(X, y, 20000)
    if name == "mc-noisy":
        X, y = make_classification(50000, n_features=30, n_informative=15, flip_y=0.05,
                                   weights=[0.8], class_sep=0.6, random_state=2)
        return _halves(X, y, 20000)
    if name == "mc-clean":
        X, y = make_classification(50000, n_features=10, n_informative=5,
                                   n_clusters_per_class=3, flip_y=0.0, weights=[0.7],
                                   class_sep=1.5, random_state=3)
        return _halves(X, y, 20000)
    if name in ("hastie", "hastie-imb"):
        X, y = make_hastie_10_2(60000, random_state=4)
        y = (y > 0).astype(int)
        if name == "hastie-imb":
            X, y = _thin_positives(X, y, 0.1, rng)
        n = X.shape[0] * 2 // 5
        return _halves(X, y, n)
    if name in ("rf20", "rf10-sparse"):
        gen = {"rf20": "RF20", "rf10-sparse": "RF10-sparse"}[name]
        X, y, _ = make_ranking_forest_data(gen, 20000, random_state=5)
        Xt, yt, _ = make_ranking_forest_data(gen, 20000, random_state=6)
        return X, y, Xt, yt
    if name == "circles":
        X, y = make_circles(80000, noise=0.15, factor=0.6, random_state=7)
        X, y = _thin_positives(_noise_features(X, 8, rng), y, 0.2, rng)
        return _halves(X, y, 20000)
    if name == "moons":
        X, y = make_moons(50000, noise=0.35, random_state=8)
        return _halves(_noise_features(X, 10, rng), y, 20000)
    if name == "friedman":
        X, t = make_friedman1(50000, n_features=10, noise=1.0, random_state=9)
        return _halves(X, (t > np.quantile(t, 0.9)).astype(int), 20000)
    if name == "checker":
        U = rng.uniform(0, 4, size=(50000, 2))
        y = ((np.floor(U[:, 0]) + np.floor(U[:, 1])) % 2).astype(int)
        y = np.where(rng.random(y.shape[0]) < 0.1, 1 - y, y)
        return _halves(_noise_features(U, 6, rng), y, 20000)
    if name == "a9a":
        X, y, Xt, yt = load_a9a()
        return X, (y > 0).astype(int), Xt, (yt > 0).astype(int)
    if name == "reuters":
        from sklearn.datasets import load_svmlight_file
        X, y = load_svmlight_file(str(REUTERS / "reuters.trn.bz2"), n_features=8315)
        Xt, yt = load_svmlight_file(str(REUTERS / "reuters.tst.bz2"), n_features=8315)
        return X.tocsr(), (y > 0).astype(int), Xt.tocsr(), (yt > 0).astype(int)
    raise ValueError(f"unknown problem {name!r}")


SYNTHETIC = ("mc-issue", "mc-clusters", "mc-noisy", "mc-clean", "hastie", "hastie-imb",
             "rf20", "rf10-sparse", "circles", "moons", "friedman", "checker")
REAL = ("a9a", "reuters")


class _Metrics:
    """feval: the window pAUC of each window, per data set."""

    def __init__(self, windows, labels):
        self.windows, self.labels = windows, labels

    def __call__(self, preds, data):
        y = self.labels[id(data)]
        return [(f"pauc{w}", partial_auc(y, preds, fpr_range=w), True) for w in self.windows]


def _stopper(patience, metric):
    """Stop once ``metric`` on the validation set has not improved for ``patience`` rounds."""
    state = {"best": -np.inf, "at": 0}

    def callback(env):
        for data, name, value, _ in env.evaluation_result_list:
            if data == "validation" and name == metric:
                if value > state["best"]:
                    state["best"], state["at"] = value, env.iteration
                elif env.iteration - state["at"] >= patience:
                    raise lgb.callback.EarlyStopException(state["at"], [])
    callback.order = 30
    return callback


def curves(name, data, loss, windows, args):
    """Boost ``loss`` with LightGBM on a stratified training part of the training rows
    (``--validation-fraction`` held out); validation / test pAUC per round."""
    X, y, Xt, yt = data
    is_pos = y == 1
    X_tr, X_va, pos_tr, pos_va = train_test_split(
        X, is_pos, test_size=args.validation_fraction, stratify=is_pos,
        random_state=args.seed)
    params = {"learning_rate": args.learning_rate, "num_leaves": args.num_leaves,
              "min_data_in_leaf": args.min_child_samples, "lambda_l2": args.reg_lambda,
              "seed": args.seed, "num_threads": 1, "deterministic": True,
              "force_row_wise": True, "verbosity": -1, "metric": "None"}
    if loss != "logloss":
        params["objective"] = window_objective(pos_tr, windows[0], loss,
                                               logloss_weight=args.logloss_weight)
    else:
        params["objective"], params["metric"] = "binary", "binary_logloss"
    train = lgb.Dataset(X_tr, label=pos_tr.astype(float), free_raw_data=False)
    valid = lgb.Dataset(X_va, label=pos_va.astype(float), reference=train)
    test = lgb.Dataset(Xt, label=(yt == 1).astype(float), reference=train)
    labels = {id(valid): pos_va, id(test): yt == 1}
    history = {}
    callbacks = [lgb.record_evaluation(history)]
    if loss != "logloss":
        callbacks.append(_stopper(args.patience_cap, f"pauc{windows[0]}"))
    start = time.perf_counter()
    lgb.train(params, train, num_boost_round=args.max_rounds, valid_sets=[valid, test],
              valid_names=["validation", "test"], feval=_Metrics(windows, labels),
              callbacks=callbacks)
    seconds = time.perf_counter() - start
    out = []
    for w in windows:
        rec = {"problem": name, "window": list(w), "loss": loss, "seconds": seconds,
               "val": history["validation"][f"pauc{w}"], "test": history["test"][f"pauc{w}"]}
        if loss == "logloss":
            rec["val_logloss"] = history["validation"]["binary_logloss"]
        out.append(rec)
    return out


def baselines(name, data, args):
    """HistGradientBoostingClassifier() and LightGBM(300 rounds) test pAUC per window."""
    X, y, Xt, yt = data
    out = []
    for label, model in [("histgbc", HistGradientBoostingClassifier(random_state=args.seed)),
                         ("lgbm300", lgb.LGBMClassifier(n_estimators=300, verbose=-1,
                                                        random_state=args.seed, n_jobs=1))]:
        Xf = X.toarray() if label == "histgbc" and hasattr(X, "toarray") else X
        Xtf = Xt.toarray() if label == "histgbc" and hasattr(Xt, "toarray") else Xt
        s = model.fit(Xf, y).predict_proba(Xtf)[:, 1]
        for w in WINDOWS:
            out.append({"problem": name, "window": list(w), "loss": label,
                        "test_final": partial_auc(yt, s, fpr_range=w)})
    return out


def run(args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(vars(args), indent=1))
    for name in args.problems:
        path = out / f"{name}.json"
        if path.exists():
            continue
        data = problem(name)
        records = baselines(name, data, args) if args.baselines else []
        records += curves(name, data, "logloss", WINDOWS, args)
        for w in WINDOWS:
            for loss in args.losses:
                records += curves(name, data, loss, (w,), args)
        path.write_text(json.dumps(records))
        print(f"{name}: done", flush=True)


# ---------------------------------------------------------------- replay

def stopped(val, patience):
    """Round (0-based) kept by early stopping with this patience: the first best
    validation value, once ``patience`` rounds passed without a better one."""
    best, at = -np.inf, 0
    for t, v in enumerate(val):
        if v > best:
            best, at = v, t
        elif t - at >= patience:
            break
    return at


def stopped_logloss(val_logloss, patience):
    best, at = np.inf, 0
    for t, v in enumerate(val_logloss):
        if v < best:
            best, at = v, t
        elif t - at >= patience:
            break
    return at


def load(out):
    recs = []
    for path in sorted(Path(out).glob("*.json")):
        if path.name != "config.json":
            recs += json.loads(path.read_text())
    table = {}
    for r in recs:
        table[(r["problem"], tuple(r["window"]), r["loss"])] = r
    return table


def replay(table, problem, window, loss, patience):
    r = table[(problem, window, loss)]
    t = stopped(r["val"], patience)
    return r["val"][t], r["test"][t], t + 1


def auto(table, problem, window, candidates, patience, margin=0.0):
    """Test pAUC of the selection: best validation pAUC, log-loss unless a window
    loss beats it by more than ``margin``."""
    best = None
    for loss in candidates:
        v, t, n = replay(table, problem, window, loss, patience)
        bar = v - (margin if loss != "logloss" else 0.0)
        if best is None or bar > best[0]:
            best = (bar, loss, t, n)
    return best[1], best[2], best[3]


def report(args):
    table = load(args.out)
    problems = sorted({k[0] for k in table}, key=lambda p: (p in REAL, p))
    losses = [l for l in ("logloss", "exponential", "squared_hinge", "tight_hinge")
              if any(k[2] == l for k in table)]
    for P in args.patience:
        print(f"\n== patience {P}, candidates {args.candidates}, margin {args.margin} ==")
        head = (f"{'problem':<12} {'window':<12} {'histgbc':>8} {'lgb300':>7} {'lgbES':>7} "
                + " ".join(f"{l[:8]:>8}" for l in losses) + f" {'auto':>7}  pick")
        print(head)
        gaps = {w: [] for w in WINDOWS}
        for p in problems:
            for w in WINDOWS:
                if (p, w, "logloss") not in table:
                    continue
                ll = table[(p, w, "logloss")]
                es = stopped_logloss(ll["val_logloss"], P)
                lgb_es = ll["test"][es]
                base = [table.get((p, w, b), {}).get("test_final", np.nan)
                        for b in ("histgbc", "lgbm300")]
                cells = [replay(table, p, w, l, P)[1] if (p, w, l) in table else np.nan
                         for l in losses]
                pick, t_auto, n = auto(table, p, w, args.candidates, P, args.margin)
                ref = np.nanmax([base[0], base[1], lgb_es])
                gaps[w].append(t_auto - ref)
                print(f"{p:<12} {str(w):<12} {base[0]:8.4f} {base[1]:7.4f} {lgb_es:7.4f} "
                      + " ".join(f"{c:8.4f}" for c in cells)
                      + f" {t_auto:7.4f}  {pick[:5]}/{n} {t_auto - ref:+.4f}")
        for w in WINDOWS:
            g = np.array(gaps[w])
            print(f"window {w}: auto - best baseline: mean {g.mean():+.4f}, "
                  f"min {g.min():+.4f}, wins {np.sum(g > 0)}/{g.size}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--problems", nargs="+", default=list(SYNTHETIC + REAL))
    r.add_argument("--losses", nargs="+",
                   default=["exponential", "squared_hinge", "tight_hinge"])
    r.add_argument("--learning-rate", type=float, default=0.05)
    r.add_argument("--num-leaves", type=int, default=31)
    r.add_argument("--min-child-samples", type=int, default=20)
    r.add_argument("--reg-lambda", type=float, default=0.0)
    r.add_argument("--validation-fraction", type=float, default=0.1)
    r.add_argument("--max-rounds", type=int, default=2000)
    r.add_argument("--patience-cap", type=int, default=300)
    r.add_argument("--logloss-weight", type=float, default=0.0)
    r.add_argument("--no-baselines", dest="baselines", action="store_false")
    r.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("report")
    p.add_argument("--out", required=True)
    p.add_argument("--patience", type=int, nargs="+", default=[50, 100, 200])
    p.add_argument("--candidates", nargs="+", default=["logloss", "exponential",
                                                       "squared_hinge"])
    p.add_argument("--margin", type=float, default=0.0)
    args = parser.parse_args()
    run(args) if args.command == "run" else report(args)


if __name__ == "__main__":
    main()
