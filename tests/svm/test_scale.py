"""Features on a large scale (issue 21, items 9 and 10): a clear error where the
scale overflows, a FeatureScaleWarning where the master QP cannot resolve the
problem, and bounded work where the cutting plane stalls."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from pauc import AUCSVM, PartialAUCSVM
from pauc.exceptions import DegenerateSolutionWarning, FeatureScaleWarning
from pauc.svm._cutting_plane import _STALL_PATIENCE, _StallWatch
from pauc.svm._master import MasterQP
from pauc.svm._scale import RESOLUTION, check_feature_scale, spread


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("make", [lambda: AUCSVM(), lambda: PartialAUCSVM((0.0, 0.3))],
                         ids=["AUCSVM", "PartialAUCSVM"])
def test_overflowing_scale_is_refused_naming_it(make):
    """X * 1e154: the Gram matrix of the cuts would overflow (it raised OSQPException: 4
    after OSQP printed 'non-convex', or a RuntimeError about the master QP)."""
    X, y = _data()
    with pytest.raises(ValueError, match="spread over sigma.*Rescale the features"):
        make().fit(X * 1e154, y)


def test_unresolvable_scale_warns_and_keeps_w():
    """X * 1e10 acts as C = 4e20 on unit-scale features: the fit warns about the scale
    and keeps its w (it ranks: training AUC above 0.8) rather than calling it noise and
    zeroing it, as it did (coef_ exactly 0, degenerate_ True)."""
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = PartialAUCSVM((0.0, 0.3)).fit(X * 1e10, y)
    kinds = {w.category for w in caught}
    assert FeatureScaleWarning in kinds
    assert not est.degenerate_ and np.any(est.coef_ != 0)
    from pauc.metrics import roc_auc
    assert roc_auc(y, est.decision_function(X * 1e10)) > 0.8


def test_standardized_features_do_not_warn():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FeatureScaleWarning)
        AUCSVM(C=100.0).fit(X, y)
        PartialAUCSVM((0.0, 0.3), C=100.0).fit(X, y)


@pytest.mark.parametrize("qp_eps", [1e-7, 1e-5])
def test_the_scale_criterion_is_C_sigma_squared_against_the_resolution(qp_eps):
    X, _ = _data()
    limit = 1.0 / (RESOLUTION * qp_eps * spread(X) ** 2)      # the largest C without warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", FeatureScaleWarning)
        assert check_feature_scale(X, 0.99 * limit, qp_eps, "est") == (spread(X), True)
    with pytest.warns(FeatureScaleWarning, match="acts as C sigma"):
        assert check_feature_scale(X, 1.01 * limit, qp_eps, "est") == (spread(X), False)
    # scaling X by a is scaling C by a**2
    with pytest.warns(FeatureScaleWarning):
        check_feature_scale(X * 10.0, 0.0101 * limit, qp_eps, "est")


def test_hinge_on_unscaled_features_stops_when_it_stalls():
    """surrogate="hinge" on X * 1e5 (200 x 4): the master's rough solutions keep the
    gap open; the solver ran 1000 iterations per CCCP step (2000 in all, 26 s; at
    X * 1000 on the issue's data, 590 s before being killed).  Now each solve stops
    after _STALL_PATIENCE iterations without progress, CCCP stops with it, and both
    say what to change."""
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = PartialAUCSVM((0.05, 0.3), surrogate="hinge").fit(X * 1e5, y)
    messages = [str(w.message) for w in caught]
    assert est.n_iter_ < 500, est.n_iter_
    assert not est.converged_
    assert any(issubclass(w.category, FeatureScaleWarning) for w in caught)
    assert any(issubclass(w.category, ConvergenceWarning)
               and ("did not shrink" in str(w.message) or "shrank too slowly" in str(w.message))
               and "Standardize the features" in str(w.message) for w in caught), messages
    # the CCCP message about dc_max_iter would be wrong here: the inner solve stalled
    assert not any("dc_max_iter" in m for m in messages)


def test_stall_watch():
    watch = _StallWatch()
    # a gap shrinking by 2 % per iteration never stalls
    assert not any(watch.stalled(1.0 + 0.98 ** k, 1.0) for k in range(1000))
    watch = _StallWatch()
    # the first finite gap sets the mark; then _STALL_PATIENCE calls without a 1 % decrease
    results = [watch.stalled(2.0, 1.0 - 1e-4 * k) for k in range(_STALL_PATIENCE + 1)]
    assert results[-1] and not any(results[:-1])
    # no dual bound yet (-inf): not a stall
    watch = _StallWatch()
    assert not any(watch.stalled(1.0, -np.inf) for _ in range(3 * _STALL_PATIENCE))


def test_degenerate_zeroing_still_happens_on_resolvable_problems():
    """The scale rule does not switch the degenerate check off where it applies (item 1's
    tied case: w = 0 is the optimum; coef_ exactly 0)."""
    X = np.array([[1.0]] * 5 + [[0.0]] * 15 + [[1.0]] * 10)
    y = np.array([0] * 20 + [1] * 10)
    with pytest.warns(DegenerateSolutionWarning):
        est = PartialAUCSVM((0.0, 0.1), C=10.0, operating_fpr=0.1).fit(X, y)
    assert est.degenerate_ and np.all(est.coef_ == 0)


def test_hinge_on_features_scaled_by_1000_is_bounded():
    """Issue 46: the same fit on X * 1000 ran 829 cutting-plane iterations (165-234 s)
    on one machine, 395 in one CCCP step here (30 s): its gap crawled (gap / C 1.7e-3
    -> 1.3e-3 over 300 iterations, 2-3 % per 100, so the 1 % stall rule never fired)
    while the master held every cut (350: duals of 1e-9..1e-7 C, OSQP's residue, counted
    as active), every QP on 512 slots.  Now the solve stops when its pace cannot reach
    tol within max_iter, the master drops cuts whose dual is zero to its accuracy, and
    the fit still warns about the scale, now also about the stop."""
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = PartialAUCSVM((0.05, 0.3), surrogate="hinge").fit(X * 1000, y)
    messages = [str(w.message) for w in caught]
    assert est.n_iter_ <= 300, est.n_iter_                        # was 395 here, 829
    assert len(est.dc_inner_iter_) <= 3
    assert est.history_["n_cuts"].max() <= 100, est.history_["n_cuts"].max()   # was 350
    assert any(issubclass(w.category, FeatureScaleWarning) for w in caught), messages
    assert any(issubclass(w.category, ConvergenceWarning) and "shrank too slowly" in m
               and "Standardize the features" in m for w, m in zip(caught, messages)), messages
    assert not est.converged_
    # the crawl gained nothing: the objective is within C tol (1e-3) of the fit that
    # ran it to convergence (0.75639, measured on this data before the change)
    assert est.dc_history_[-1] < 0.75639 + 1e-3
    from pauc.metrics import roc_auc
    assert roc_auc(y, est.decision_function(X)) > 0.8


def test_stall_watch_stops_a_crawl_that_cannot_reach_tol_in_time():
    """A gap that shrinks, but by less per iteration than reaching the target within
    the budget needs, stops as soon as the pace is measured (after _STALL_PATIENCE
    iterations); the same pace with budget to spare goes on."""
    # gap 2.0 falling by 1e-3 per iteration (0.05 % per iteration: never a 1 % stall
    # within 100), target 1.0: 1000 iterations needed
    crawl = [1.0 + (2.0 - 1e-3 * k) for k in range(600)]
    short = _StallWatch(target=1.0, budget=600)
    stops = [short.stalled(primal, 1.0) for primal in crawl]
    assert stops.index(True) == _STALL_PATIENCE and short.reason == "pace"
    roomy = _StallWatch(target=1.0, budget=2000)
    assert not any(roomy.stalled(primal, 1.0) for primal in crawl)


def test_stall_watch_lets_a_solve_that_meets_tol_within_max_iter_run():
    """A gap shrinking like 1/t -- the cutting plane's slow end -- that reaches the
    target before the budget is never stopped: the straight line through the last
    _STALL_PATIENCE iterations overstates its pace."""
    budget, target = 1000, 1.0 / 900           # 1/t reaches it at t = 900
    watch = _StallWatch(target=target, budget=budget)
    for t in range(1, 900):
        assert not watch.stalled(1.0 / t, 0.0), t
    # one that needs 1200 iterations is stopped before the budget is spent
    watch = _StallWatch(target=1.0 / 1200, budget=budget)
    stops = [watch.stalled(1.0 / t, 0.0) for t in range(1, budget + 1)]
    assert any(stops) and watch.reason == "pace"


def test_master_drops_cuts_whose_dual_is_zero_to_its_accuracy(monkeypatch):
    """A dual value at OSQP's residue (at most qp_eps C) counts as zero: such a cut is
    forgotten after inactive_age solves (with 1e-9 C as the line, the residue of a
    rough master kept every cut); one above qp_eps C stays."""
    master = MasterQP(10.0, eps=1e-7)
    rng = np.random.default_rng(0)
    for k in range(3):
        master.add_cut(rng.normal(size=4), 1.0)
    planted = np.array([0.5, 5e-8, 5e-6]) * master.C       # active, residue, small
    monkeypatch.setattr(MasterQP, "_solve_osqp",
                        lambda self: (planted.copy(), "solved", 10))
    for _ in range(3):
        master.solve()
    assert master.drop_inactive(3) == 1
    np.testing.assert_array_equal(master.lam_, planted[[0, 2]])
