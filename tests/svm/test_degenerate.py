"""A degenerate optimum (w = 0) is reported, not ranked by (issue 21, item 1).

When the surrogate's minimiser is ``w = 0`` the cutting-plane method returns
whatever its master QP makes of cuts that cancel -- ``|coef_|`` of 1e-16 ..
1e-6, a direction that is noise (test AUC 0.15 on the issue's example).  The
estimators compare ``J(w)`` with ``J(0)``, return exactly 0, set
``degenerate_`` and warn.  The references here are the all-pairs QPs solved by
cvxpy (``tests/_all_pairs_qp.py``).
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from _all_pairs_qp import direct_auc, direct_pauc_0_beta
from pauc.exceptions import DegenerateSolutionWarning
from pauc.metrics import roc_auc
from pauc.svm import AUCSVM, PartialAUCSVM


def _issue_problem(seed):
    """The issue's kind of problem: 600 x 10, 4 informative, 5 % flipped labels, halves."""
    X, y = make_classification(600, 10, n_informative=4, flip_y=0.05, class_sep=0.8,
                               random_state=seed)
    return train_test_split(X, y, test_size=0.5, random_state=seed)


def _fit_recording(estimator, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [w for w in caught if issubclass(w.category, DegenerateSolutionWarning)]


def test_issue_reproducer_partial_auc_svm():
    """make_classification(random_state=27), fpr_range=(0, 0.1), C=10: |coef_| ~ 1e-13 and
    test AUC 0.148 before; the optimum is w = 0 (cvxpy: J* = J(0) = C)."""
    Xa, Xb, ya, yb = _issue_problem(27)
    model = PartialAUCSVM((0, 0.1), C=10)
    caught = _fit_recording(model, Xa, ya)
    assert model.degenerate_ and model.converged_
    np.testing.assert_array_equal(model.coef_, np.zeros(10))
    assert roc_auc(yb, model.decision_function(Xb)) == 0.5
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "fpr_range" in message and "AUCSVM" in message and "larger C" in message
    # The reference: w = 0 is the optimum of the tight [0, 0.1] problem.
    n_neg = int((ya == 0).sum())
    assert direct_pauc_0_beta(Xa, ya == 1, 10.0, int(np.ceil(0.1 * n_neg))) == pytest.approx(
        10.0, abs=1e-6)
    # predict: a constant scorer says "negative" everywhere (training FPR 0 <= beta)
    assert model.threshold_ == np.inf
    assert (model.predict(Xa) == model.classes_[0]).all()


def test_issue_reproducer_tied_rows():
    """X = [[1]]*5 + [[0]]*15 + [[1]]*10, y = [0]*20 + [1]*10: coef_ was -1.4e-16 and the
    training FPR at operating_fpr=0.1 was 0.75."""
    X = np.array([[1.0]] * 5 + [[0.0]] * 15 + [[1.0]] * 10)
    y = np.array([0] * 20 + [1] * 10)
    model = PartialAUCSVM(operating_fpr=0.1)
    caught = _fit_recording(model, X, y)
    assert model.degenerate_ and len(caught) == 1
    assert model.coef_.tolist() == [0.0]
    negatives = model.predict(X[y == 0])
    assert np.mean(negatives == 1) <= 0.1


def test_auc_svm_with_equal_class_means():
    """The AUC surrogate's gradient at 0 is mean(x-) - mean(x+): with equal means w = 0 is
    optimal for every C, and AUCSVM returned 1e-17 .. 1e-14 noise (training AUC 0.479)."""
    rng = np.random.default_rng(0)
    Xp = rng.normal(size=(60, 3)) * [1.0, 3.0, 0.3]
    Xn = rng.normal(size=(90, 3))
    Xp += Xn.mean(axis=0) - Xp.mean(axis=0)
    X, y = np.vstack([Xp, Xn]), np.r_[np.ones(60), np.zeros(90)]
    assert direct_auc(X, y == 1, 10.0) == pytest.approx(10.0, abs=1e-6)
    for C in (1.0, 1000.0):
        model = AUCSVM(C=C)
        caught = _fit_recording(model, X, y)
        assert model.degenerate_ and len(caught) == 1 and not model.coef_.any()
        assert "mean" in str(caught[0].message)


def test_cccp_path_is_checked_too():
    """surrogate="hinge" with alpha > 0 (CCCP): the hinge objective against w = 0."""
    Xa, _, ya, _ = _issue_problem(27)
    model = PartialAUCSVM((0.02, 0.1), C=10, surrogate="hinge", init="zeros")
    caught = _fit_recording(model, Xa, ya)
    assert model.dc_history_ is not None
    assert model.degenerate_ and len(caught) == 1 and not model.coef_.any()


@pytest.mark.parametrize("seed, degenerate", [(27, True), (6, True), (13, True),
                                              (1, False), (9, False), (21, False)])
def test_detection_agrees_with_the_exact_optimum(seed, degenerate):
    """degenerate_ exactly where cvxpy's optimum of the tight [0, 0.1] problem is J(0) = C
    (seeds 9 and 21 have the smallest genuine gains of the 30: 0.08 and 0.10)."""
    Xa, _, ya, _ = _issue_problem(seed)
    model = PartialAUCSVM((0, 0.1), C=10)
    caught = _fit_recording(model, Xa, ya)
    n_neg = int((ya == 0).sum())
    optimum = direct_pauc_0_beta(Xa, ya == 1, 10.0, int(np.ceil(0.1 * n_neg)))
    assert (optimum > 10.0 - 1e-6) == degenerate
    assert model.degenerate_ == degenerate == bool(caught)
    assert model.coef_.any() != degenerate


@pytest.mark.parametrize("scale", [1.0, 1e3])
def test_genuine_small_solutions_are_kept(scale):
    """A tiny but genuine w is kept: AUCSVM at C = 1e-4 (w ~ C (mean(x+) - mean(x-))), and
    a pAUC model on features scaled by 1e3 (|w| ~ 1e-3: scaling X by a acts as C a**2,
    so no norm threshold could tell such w from noise; the objective does)."""
    Xa, _, ya, _ = _issue_problem(1)
    small = AUCSVM(C=1e-4)
    assert not _fit_recording(small, Xa * scale, ya) and not small.degenerate_
    assert roc_auc(ya, small.decision_function(Xa * scale)) > 0.75
    model = PartialAUCSVM((0, 0.1), C=10)
    assert not _fit_recording(model, Xa * scale, ya) and not model.degenerate_
    assert roc_auc(ya, model.decision_function(Xa * scale)) > 0.75


def test_gain_below_the_solver_accuracy_and_the_advice_that_recovers_it():
    """Features scaled by 1e-3 act as C = 1e-5: the optimum beats w = 0 by 1e-5 (cvxpy),
    below C * tol = 1e-2, and the solver stops at J(w) = 10.0003 > J(0) = 10.  That w is
    above the QP's resolution: kept, with the warning.  Its advice works: tol=1e-6, or a
    larger C, finds the genuine w (no warning)."""
    Xa, _, ya, _ = _issue_problem(1)
    Z = Xa * 1e-3
    n_neg = int((ya == 0).sum())
    optimum = direct_pauc_0_beta(Z, ya == 1, 10.0, int(np.ceil(0.1 * n_neg)))
    assert 10.0 - 1e-3 < optimum < 10.0 - 1e-6
    # Algorithm 1 stops at a w made of its first cuts (the proximal method, the
    # default, stops at a point within C tol of w = 0 and below the resolution:
    # zeroed, with the same advice)
    model = PartialAUCSVM((0, 0.1), C=10, method="cutting_plane")
    caught = _fit_recording(model, Z, ya)
    assert len(caught) == 1 and not model.degenerate_ and model.coef_.any()
    assert "smaller tol or a larger C" in str(caught[0].message)
    caught = _fit_recording(PartialAUCSVM((0, 0.1), C=10), Z, ya)
    assert len(caught) == 1 and "smaller tol or a larger C" in str(caught[0].message)
    for better in (PartialAUCSVM((0, 0.1), C=10, tol=1e-6), PartialAUCSVM((0, 0.1), C=1e7)):
        assert not _fit_recording(better, Z, ya) and not better.degenerate_
        assert roc_auc(ya, better.decision_function(Z)) > 0.75


def test_early_stop_above_the_resolution_is_kept_with_the_warning():
    """Seed 27 at C = 0.1: the optimum is w = 0 (cvxpy), but the solver stops within
    C * tol = 1e-4 at a w made of its first cuts, |w| / (C sigma) = 6e-3, far above the
    QP's resolution (3e-6): that w ranks (training AUC 0.85), so it is kept, and the
    warning says its ranking is not the optimum's."""
    Xa, _, ya, _ = _issue_problem(27)
    n_neg = int((ya == 0).sum())
    assert direct_pauc_0_beta(Xa, ya == 1, 0.1, int(np.ceil(0.1 * n_neg))) == pytest.approx(
        0.1, abs=1e-8)
    model = PartialAUCSVM((0, 0.1), C=0.1, method="cutting_plane")
    caught = _fit_recording(model, Xa, ya)
    assert len(caught) == 1 and not model.degenerate_
    assert "coef_ is kept" in str(caught[0].message)
    assert roc_auc(ya, model.decision_function(Xa)) > 0.8
    # The proximal method (the default) ends at the optimum's side: zeroed.
    proximal = PartialAUCSVM((0, 0.1), C=0.1)
    assert len(_fit_recording(proximal, Xa, ya)) == 1 and proximal.degenerate_


def test_degenerate_is_false_on_ordinary_fits():
    Xa, _, ya, _ = _issue_problem(1)
    for model in (AUCSVM(C=1.0), PartialAUCSVM((0.05, 0.3), C=1.0)):
        assert not _fit_recording(model, Xa, ya)
        assert model.degenerate_ is False


def test_scores_that_all_tie_are_degenerate_whatever_the_path():
    """Issue 27: PartialAUCSVM((0, 0.1), C=1e5) on a9a, beyond the master QP's
    resolution (FeatureScaleWarning), returned coef_ exactly 0 -- one distinct score --
    with degenerate_ False and a warning that coef_ was kept "above the resolution"."""
    from pauc.datasets import load_a9a
    from pauc.exceptions import FeatureScaleWarning
    X, y, Xt, _ = load_a9a()
    model = PartialAUCSVM(fpr_range=(0, 0.1), C=1e5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    categories = [w.category for w in caught]
    assert FeatureScaleWarning in categories
    degenerate = [str(w.message) for w in caught if w.category is DegenerateSolutionWarning]
    assert len(degenerate) == 1 and "same score" in degenerate[0]
    assert "coef_ is kept" not in degenerate[0]
    assert np.unique(model.decision_function(Xt)).size == 1
    assert model.degenerate_ and not model.coef_.any() and model.threshold_ == np.inf


def test_a_w_orthogonal_to_the_rows_is_degenerate(monkeypatch):
    """Tied scores from a non-zero w (orthogonal to every row) are degenerate too."""
    from pauc.svm import _estimators
    Xa, _, ya, _ = _issue_problem(1)
    X = np.hstack([Xa, np.zeros((Xa.shape[0], 1))])
    orthogonal = np.zeros(X.shape[1])
    orthogonal[-1] = 1.0

    real = _estimators.solve_coarse_to_fine

    def returns_orthogonal(*args, **kwargs):
        w, solver, coarse = real(*args, **kwargs)
        solver.objective_ = solver.scores_ = None       # not evaluated by the solver
        return orthogonal, solver, coarse

    monkeypatch.setattr(_estimators, "solve_coarse_to_fine", returns_orthogonal)
    model = AUCSVM(C=1.0)
    caught = _fit_recording(model, X, ya)
    assert len(caught) == 1 and "same score" in str(caught[0].message)
    assert model.degenerate_ and not model.coef_.any()


def test_the_comparison_with_zero_makes_no_pass_over_x(monkeypatch):
    """The solver returns J and the scores at w; R(0) is the search on zero scores:
    after the solve, fit computes no cut and no X @ w (issue 27, item 4)."""
    from pauc.svm._design import InMemoryDesign
    Xa, _, ya, _ = _issue_problem(2)
    for model in (AUCSVM(C=1.0), PartialAUCSVM((0, 0.1), C=0.1),
                  PartialAUCSVM((0.05, 0.3), C=1.0, surrogate="hinge")):
        counts = {"cut": 0, "scores": 0, "zero": 0}
        for name, attr in (("cut", "cut"), ("scores", "scores"), ("zero", "risk_at_zero")):
            real = getattr(InMemoryDesign, attr)

            def spy(self, *args, _real=real, _name=name, **kwargs):
                counts[_name] += 1
                return _real(self, *args, **kwargs)
            monkeypatch.setattr(InMemoryDesign, attr, spy)
        _fit_recording(model, Xa, ya)
        cuts = counts["cut"]
        solver_cuts = model.n_iter_ + model.coarse_iter_.sum()
        if getattr(model, "dc_history_", None) is None:         # (CCCP evaluates J itself)
            assert cuts == solver_cuts, (type(model).__name__, cuts, solver_cuts)
        assert counts["scores"] == 0
        assert counts["zero"] >= 1
        monkeypatch.undo()
