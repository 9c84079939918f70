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
    assert any(issubclass(w.category, ConvergenceWarning) and "did not shrink" in str(w.message)
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
