"""Boosting benchmarks, each against a reference measured in the same run.

Sections (``--section``): ``aucboost`` (the default), ``gbm`` (speed of
GradientBoostingRanker), ``gbm-quality`` (its test pAUC table).

AUCBoost against scikit-learn's AdaBoost with stumps -- issue 7 targets:

* fit time, ``AUCBoost(n_estimators=200)`` with ranking stumps /
  ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=200)``,
  on a9a (32 561 × 123, sparse): ≤ 1.5;
* test AUC, AUCBoost / AdaBoost, on a9a and on RF 20 (Ranking Forests paper's
  generator): ≥ 1.0.

Both estimators get the same data (a9a as CSR, as loaded).  "AUCBoost" is the
default (split ranking stump, soft conversion = ref. [5]'s AdaBoost on Lemma 4's
classifier); the table also shows the randomized conversion, the stump ranked
by the AUC of its raw score (spec §7) and MartiRank for reference.

    python bench/bench_boost.py                 # a9a + RF 20 (3 seeds)
    python bench/bench_boost.py --repeat 3      # best of 3 fit times

GradientBoostingRanker against LightGBM's own log-loss -- issue 18 targets
(``--section gbm``; LightGBM single-threaded on both sides, the reference and
the contender timed alternately, best of ``--repeat``):

* fit with one explicit window loss / ``lightgbm.train`` with its binary
  objective, same rounds, learning rate and leaves, a9a (300 rounds) and a
  10^6 x 20 dense synthetic set (``--big-rounds`` rounds): <= 1.5;
* fit with the defaults (``loss="auto"``, early stopping) / LightGBM
  log-loss, 300 rounds, a9a: <= 3;
* one objective call (gradient and Hessian) / ``numpy.sort`` of the scores,
  n = 10^6, 10 % positives, each loss and three windows: <= 2.

``--section gbm-panel`` -- issue 25 targets, on the real-data panel of
``bench/panel_real.py`` (the first split of each set, window [0, 0.1], best of
``--repeat``, the two fits of a ratio timed alternately):

* defaults fit (one thread) / ``CatBoostClassifier()`` fit (one thread): <= 1;
* defaults fit with ``n_jobs=2`` / with ``n_jobs=1``: <= 0.6;
* the race (issue 34): fit time with / without it, whether the kept model is
  the same (``scores``: the same training scores; ``entry``: the same kept
  entry, e.g. an ensemble of other weights; ``no``), and the share of the boosted
  rounds spent on candidates outside the kept model: <= 0.2;
* the test pAUC table of the panel with the count of first places (read from
  ``bench/panel_real.py``'s cache: run ``panel_real.py run`` first).

    python bench/bench_boost.py --section gbm-panel --sets car-good a9a

``--section gbm-quality`` fits every loss and ``auto`` with the defaults (and
``auto`` with ``refit=True``),
LightGBM log-loss (300 rounds, and with early stopping on the validation
log-loss on the estimator's split) and ``HistGradientBoostingClassifier()``
on the problems of ``bench/panel_boost.py`` and prints the test pAUC in
[0, 0.01], [0.02, 0.05] and [0, 0.1].

    python bench/bench_boost.py --section gbm --repeat 3
    python bench/bench_boost.py --section gbm-quality --problems a9a reuters rf20
"""

import argparse
import time

import lightgbm as lgb
import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.metrics import roc_auc_score
from sklearn.tree import DecisionTreeClassifier

from pauc.boost import AUCBoost, MartiRank, RankingStump
from pauc.datasets import load_a9a, make_ranking_forest_data

from _paths import PANEL_CACHE
from _timing import best_fit, interleaved_best_times


def adaboost(seed):
    return AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=200,
                              random_state=seed)


def aucboost_section(args):
    contenders = {
        "AUCBoost": lambda s: AUCBoost(200, random_state=s),
        "AUCBoost (randomized)": lambda s: AUCBoost(200, conversion="randomized",
                                                    random_state=s),
        "AUCBoost (AUC stump)": lambda s: AUCBoost(
            200, weak_ranker=RankingStump(criterion="auc"), random_state=s),
        "MartiRank (T=10)": lambda s: MartiRank(n_levels=10, random_state=s),
    }

    X, y, Xt, yt = load_a9a()
    t_ada, ada = best_fit(lambda: adaboost(0), X, y, args.repeat)
    auc_ada = roc_auc_score(yt, ada.decision_function(Xt))
    print(f"a9a: {X.shape[0]} x {X.shape[1]} train, {Xt.shape[0]} test")
    print(f"{'model':24s} {'fit s':>8s} {'time ratio':>11s} {'test AUC':>9s} {'AUC ratio':>10s}")
    print(f"{'AdaBoost (stumps)':24s} {t_ada:8.2f} {1.0:11.3f} {auc_ada:9.4f} {1.0:10.4f}")
    for name, make in contenders.items():
        t, model = best_fit(lambda: make(0), X, y, args.repeat)
        auc = roc_auc_score(yt, model.decision_function(Xt))
        print(f"{name:24s} {t:8.2f} {t / t_ada:11.3f} {auc:9.4f} {auc / auc_ada:10.4f}")

    print(f"\nRF 20: {args.rf_train} train, {args.rf_test} test, {args.rf_seeds} seeds "
          "(mean test AUC)")
    Xt, yt, _ = make_ranking_forest_data("RF20", args.rf_test, random_state=1000)
    scores = {"AdaBoost (stumps)": [], **{k: [] for k in contenders}}
    for seed in range(args.rf_seeds):
        X, y, _ = make_ranking_forest_data("RF20", args.rf_train, random_state=seed)
        scores["AdaBoost (stumps)"].append(
            roc_auc_score(yt, adaboost(seed).fit(X, y).decision_function(Xt)))
        for name, make in contenders.items():
            scores[name].append(roc_auc_score(yt, make(seed).fit(X, y).decision_function(Xt)))
    ref = np.mean(scores["AdaBoost (stumps)"])
    print(f"{'model':24s} {'test AUC':>9s} {'AUC ratio':>10s}   per seed")
    for name, vals in scores.items():
        print(f"{name:24s} {np.mean(vals):9.4f} {np.mean(vals) / ref:10.4f}   "
              + " ".join(f"{v:.4f}" for v in vals))


# ---------------------------------------------------------------- GradientBoostingRanker

WINDOW_LOSSES = ("exponential", "squared_hinge", "tight_hinge")


def _lightgbm_logloss(X, y, rounds, learning_rate=0.05, num_leaves=31):
    params = {"objective": "binary", "learning_rate": learning_rate,
              "num_leaves": num_leaves, "num_threads": 1, "verbosity": -1, "seed": 0}
    return lambda: lgb.train(params, lgb.Dataset(X, (y > 0).astype(float)), rounds)


def _big_synthetic(n=1_000_000, d=20):
    X, y = make_classification(n, n_features=d, n_informative=10, flip_y=0.02, weights=[0.9],
                               class_sep=0.8, random_state=0)
    return X, y


def gbm_section(args):
    from pauc.gbm import GradientBoostingRanker
    from pauc.objectives import LOSSES, window_objective

    print("GradientBoostingRanker fit / LightGBM log-loss fit (same rounds, learning rate 0.05, "
          "31 leaves, 1 thread), best of", args.repeat)
    print(f"{'data':<18} {'loss':<14} {'rounds':>6} {'LightGBM s':>10} {'ours s':>8} "
          f"{'ratio':>6}  target")
    sets = [("a9a", load_a9a()[:2], 300)]
    if not args.skip_big:
        sets.append(("synthetic 1e6x20", _big_synthetic(), args.big_rounds))
    for name, (X, y), rounds in sets:
        for loss in WINDOW_LOSSES:
            ours = GradientBoostingRanker((0.0, 0.1), loss=loss, n_estimators=rounds,
                                          learning_rate=0.05, early_stopping=False,
                                          random_state=0)
            t_ref, t_ours = interleaved_best_times([_lightgbm_logloss(X, y, rounds),
                                          lambda: ours.fit(X, y)], args.repeat)
            print(f"{name:<18} {loss:<14} {rounds:>6} {t_ref:10.2f} {t_ours:8.2f} "
                  f"{t_ours / t_ref:6.2f}  <= 1.5", flush=True)

    X, y, Xt, yt = load_a9a()
    print("\nGradientBoostingRanker() defaults / LightGBM log-loss 300 rounds "
          "(learning rate 0.1, 31 leaves, 1 thread), a9a, best of", args.repeat)
    print(f"{'window':<14} {'LightGBM s':>10} {'ours s':>8} {'ratio':>6}  target  chosen loss, "
          "rounds, test pAUC")
    for window in [(0.0, 0.1), (0.02, 0.05), (0.0, 0.01)]:
        ours = GradientBoostingRanker(window, random_state=0)
        t_ref, t_ours = interleaved_best_times([_lightgbm_logloss(X, y, 300, learning_rate=0.1),
                                      lambda: ours.fit(X, y)], args.repeat)
        print(f"{str(window):<14} {t_ref:10.2f} {t_ours:8.2f} {t_ours / t_ref:6.2f}  <= 3    "
              f"{ours.best_loss_}, {ours.n_iter_}, {ours.score(Xt, yt):.4f}", flush=True)

    print("\nobjective call (gradient + Hessian) / numpy.sort of the scores, n = 10^6, "
          "10 % positives, best of", max(args.repeat, 5))
    rng = np.random.default_rng(0)
    y = rng.random(1_000_000) < 0.1
    s = rng.normal(size=y.shape[0]) + y
    print(f"{'loss':<14} {'window':<14} {'sort ms':>8} {'call ms':>8} {'ratio':>6}  target")
    for loss in LOSSES:
        for window in [(0.0, 0.1), (0.02, 0.05), (0.0, 1.0)]:
            objective = window_objective(y, window, loss)
            t_sort, t_call = interleaved_best_times([lambda: np.sort(s), lambda: objective.gradient(s)],
                                          max(args.repeat, 5))
            print(f"{loss:<14} {str(window):<14} {1e3 * t_sort:8.1f} {1e3 * t_call:8.1f} "
                  f"{t_call / t_sort:6.2f}  <= 2", flush=True)


def gbm_quality_section(args):
    from sklearn.ensemble import HistGradientBoostingClassifier

    from pauc.gbm import GradientBoostingRanker
    from pauc.metrics import partial_auc
    from panel_boost import WINDOWS, problem

    losses = args.losses
    print("test pAUC (normalize='range'); ours = GradientBoostingRanker(window, loss=...) "
          "with the defaults, random_state=0")
    print(f"{'problem':<12} {'window':<13} {'HistGBC':>8} {'LGB300':>7} {'LGB-ES':>7} "
          + " ".join(f"{k[:9]:>9}" for k in losses) + "  auto: loss/rounds, s")
    for name in args.problems:
        X, y, Xt, yt = problem(name)
        dense = (lambda A: A.toarray()) if hasattr(X, "toarray") else (lambda A: A)
        s_hist = HistGradientBoostingClassifier(random_state=0).fit(
            dense(X), y).predict_proba(dense(Xt))[:, 1]
        s_300 = lgb.LGBMClassifier(n_estimators=300, verbose=-1, n_jobs=1,
                                   random_state=0).fit(X, y).predict(Xt, raw_score=True)
        for window in WINDOWS:
            row, extra = [], ""
            for loss in losses:
                start = time.perf_counter()
                model = GradientBoostingRanker(window, loss=loss.split("+")[0],
                                               refit=loss.endswith("+refit"),
                                               random_state=0).fit(X, y)
                row.append(model.score(Xt, yt))
                if loss == "auto":
                    extra = (f"{model.best_loss_[:5]}@{model.stopped_on_[:3]}/{model.n_iter_}, "
                             f"{time.perf_counter() - start:.0f}")
            s_es = _early_stopped_logloss(GradientBoostingRanker(window, random_state=0),
                                          X, y).predict(Xt, raw_score=True)
            base = [partial_auc(yt, s, fpr_range=window) for s in (s_hist, s_300, s_es)]
            print(f"{name:<12} {str(window):<13} {base[0]:8.4f} {base[1]:7.4f} {base[2]:7.4f} "
                  + " ".join(f"{v:9.4f}" for v in row) + f"  {extra}", flush=True)


def _early_stopped_logloss(model, X, y):
    """LightGBM log-loss with the estimator's rounds, learning rate and leaves, stopped
    on the log-loss of a stratified 10 % validation split (patience n_iter_no_change)."""
    from sklearn.model_selection import train_test_split
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.1, stratify=y,
                                              random_state=model.random_state)
    return lgb.LGBMClassifier(
        n_estimators=model._rounds(True), learning_rate=model.learning_rate,
        num_leaves=model.num_leaves, verbose=-1, n_jobs=1, random_state=0).fit(
        X_tr, y_tr, eval_X=(X_va,), eval_y=(y_va,),
        callbacks=[lgb.early_stopping(model.n_iter_no_change, verbose=False)])


def gbm_panel_section(args):
    import catboost

    from pauc.gbm import GradientBoostingRanker, _race
    from panel_real import SETS, _int32_csr, load
    from panel_real import report as panel_report

    print("GradientBoostingRanker((0, 0.1)) defaults fit / CatBoostClassifier() fit, "
          "n_jobs=2 / n_jobs=1, the race on / off (fit time, and whether the kept model is "
          "the same), and the share of the boosted rounds spent on candidates outside the "
          "kept model; first split of each set, best of", args.repeat)
    print(f"{'set':<28} {'rows':>6} {'ours/CatBoost':>13}  target  {'n_jobs 2/1':>10}  target"
          f"  {'race on/off':>11}  {'same kept':>9}  {'not kept':>8}  target")
    for name in args.sets or SETS:
        X, y, _, _ = load(name)[0]

        def ours(n_jobs, racing=True):
            saved, _race.RACING = _race.RACING, racing
            try:
                return GradientBoostingRanker((0.0, 0.1), random_state=0, n_jobs=n_jobs).fit(X, y)
            finally:
                _race.RACING = saved
        cat = lambda: catboost.CatBoostClassifier(   # noqa: E731
            thread_count=1, verbose=0, random_seed=0, allow_writing_files=False).fit(
            _int32_csr(X), y)
        t_cat, t_one = interleaved_best_times([cat, lambda: ours(1)], args.repeat)
        t_one2, t_two = interleaved_best_times([lambda: ours(1), lambda: ours(2)], args.repeat)
        t_on, t_off = interleaved_best_times([lambda: ours(1), lambda: ours(1, False)],
                                             args.repeat)
        raced, full = ours(1), ours(1, False)
        same = ("scores" if np.array_equal(raced.decision_function(X),
                                           full.decision_function(X))
                else "entry" if raced.selected_ == full.selected_ else "no")
        print(f"{name:<28} {X.shape[0]:>6} {t_one / t_cat:13.2f}  <= 1    "
              f"{t_two / t_one2:10.2f}  <= 0.6  {t_on / t_off:11.2f}  {same:>9}  "
              f"{_not_kept_share(raced):8.2f}  <= 0.2", flush=True)
    print()
    panel_args = argparse.Namespace(cache=args.cache, sets=args.sets or list(SETS),
                                    methods=[args.method, "catboost", "xgboost", "lightgbm",
                                             "lightgbm-es", "histgbc"])
    panel_report(panel_args)


def _not_kept_share(model):
    """The share of a fit's boosting rounds (every fold, dropped candidates too) spent
    on candidates that are not in the kept model."""
    res = model.cv_results_
    if not res:
        return 0.0
    kept = set(res["weights"][res["candidate"].index(model.selected_)])
    rounds = {n: sum(r) for n, r in zip(res["candidate"], res["boosted_rounds"])
              if r is not None}
    return sum(v for n, v in rounds.items() if n not in kept) / max(1, sum(rounds.values()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=["aucboost", "gbm", "gbm-quality", "gbm-panel"],
                        default="aucboost")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--rf-train", type=int, default=5000)
    parser.add_argument("--rf-test", type=int, default=20000)
    parser.add_argument("--rf-seeds", type=int, default=3)
    parser.add_argument("--big-rounds", type=int, default=100)
    parser.add_argument("--skip-big", action="store_true",
                        help="gbm: leave out the 10^6 x 20 set")
    parser.add_argument("--problems", nargs="+", default=None,
                        help="gbm-quality: problems of bench/panel_boost.py (default: all)")
    parser.add_argument("--losses", nargs="+",
                        default=["logloss", *WINDOW_LOSSES, "auto", "auto+refit"],
                        help="gbm-quality: the columns of ours (loss=..., 'auto+refit' for "
                             "refit=True)")
    parser.add_argument("--sets", nargs="+", default=None,
                        help="gbm-panel: sets of bench/panel_real.py (default: all)")
    parser.add_argument("--cache", default=str(PANEL_CACHE),
                        help="gbm-panel: panel_real.py's cache of test pAUCs")
    parser.add_argument("--method", default="gbm-stopgain",
                        help="gbm-panel: panel_real.py's name of the defaults' run")
    args = parser.parse_args()
    if args.section == "gbm-panel":
        gbm_panel_section(args)
    elif args.section == "aucboost":
        aucboost_section(args)
    elif args.section == "gbm":
        gbm_section(args)
    else:
        if args.problems is None:
            from panel_boost import REAL, SYNTHETIC
            args.problems = list(REAL + SYNTHETIC)
        gbm_quality_section(args)


if __name__ == "__main__":
    main()
