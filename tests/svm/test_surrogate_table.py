"""The one loss table (pauc._loss) is the only place that knows the losses: a row added
there is a surrogate of the SVMs, of pauc.surrogates, a loss of pauc.objectives and of
GradientBoostingRanker, and of the chunked fits -- each where the row's capabilities
allow, with a clear refusal where they do not (the developer guide's recipe, "Adding a
loss")."""

import numpy as np
import pytest

from pauc._loss import LOSSES, Loss, loss_names, loss_row
from pauc._loss import _structural, _window
from pauc.gbm import GradientBoostingRanker
from pauc.objectives import window_objective
from pauc.surrogates import surrogate_at_scores
from pauc.svm import PartialAUCSVM
from pauc.svm._surrogates import Problem, surrogate_names, surrogate_row


def _data(seed=0, n=200, d=5):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    X = rng.normal(size=(n, d)) + np.outer(y, np.linspace(1.0, 0.0, d))
    return X, y


def test_rows_of_the_table():
    assert loss_names() == ("exponential", "squared_hinge", "tight", "naive", "hinge",
                            "logloss")
    assert surrogate_names() == ("tight", "naive", "hinge")
    assert loss_names("hessian") == ("exponential", "squared_hinge", "tight", "logloss")
    assert loss_names("chunked") == ("tight", "hinge")
    for name, row in LOSSES.items():
        assert row.name == name
        if row.cut is not None:
            assert row.solver in ("cutting_plane", "cccp")
            assert row.convex == (row.solver == "cutting_plane")
    # boosting's "tight_hinge" is the SVM's "tight": one row, two names
    assert loss_row("tight_hinge") is LOSSES["tight"] is surrogate_row("tight_hinge")
    assert LOSSES["tight"].cut is _structural.tight_cut
    assert LOSSES["tight"].derivatives is _window.tight_hinge
    with pytest.raises(ValueError, match="surrogate must be one of"):
        surrogate_row("hinged")
    with pytest.raises(ValueError, match="'exponential' cannot be used here.*cut"):
        surrogate_row("exponential")
    # a non-convex row is a problem of Algorithm 1 only where it is convex
    Problem("hinge", 0, 3)
    with pytest.raises(ValueError, match="not convex"):
        Problem("hinge", 1, 3)
    with pytest.raises(ValueError, match="cut or derivatives"):
        Loss("empty", None, None, convex=True, solver=None, chunked=False, window=True,
             equations="", summary="")


def test_value_and_gradient_of_every_row_agree_with_its_kernels():
    """The tight row's two kernels (the cut, the boosting derivatives) give one loss."""
    X, y = _data(3)
    s = X @ np.array([1.0, -0.5, 0.2, 0.0, 0.3])
    is_pos = y == 1
    j_alpha, j_beta = 10, 40
    row = LOSSES["tight"]
    value, grad = row.value_and_gradient(s, is_pos, j_alpha, j_beta)
    g, h = np.zeros(len(s)), np.zeros(len(s))
    boosted = row.derivatives(s, is_pos.view(np.uint8), int(is_pos.sum()), j_alpha, j_beta, g, h)
    assert value == pytest.approx(boosted, abs=1e-12)
    np.testing.assert_allclose(grad, g, atol=1e-12)


# --------------------------------------------------------------------------
# A toy loss with a cut and no Hessian: the SVMs take it, boosting refuses it
# --------------------------------------------------------------------------

def _top_cut(calls):
    def top_cut(scores, is_pos, n_pos, j_alpha, j_beta):
        """The tight surrogate of the window [0, beta]: the window's top, alpha ignored."""
        calls.append(j_beta)
        return _structural.tight_cut(scores, is_pos, n_pos, 0, j_beta)
    return top_cut


def test_a_cut_only_row_is_a_surrogate_everywhere_and_no_boosting_loss(monkeypatch):
    calls = []
    row = Loss("toy_top", _top_cut(calls), None, convex=True, solver="cutting_plane",
               chunked=False, window=True, equations="eq. (14)",
               summary="the tight surrogate of [0, beta]")
    monkeypatch.setitem(LOSSES, "toy_top", row)
    X, y = _data()
    # the SVM: validated against the table, solved by the row's kernel
    fitted = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="toy_top").fit(X, y)
    expected = PartialAUCSVM((0.0, 0.3), C=10.0, surrogate="tight").fit(X, y)
    assert calls and len(calls) >= fitted.n_iter_
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6, atol=1e-9)
    # pauc.surrogates
    s = X @ expected.coef_
    assert surrogate_at_scores("toy_top", s, y, fpr_range=(0.05, 0.3))[0] == pytest.approx(
        surrogate_at_scores("tight", s, y, fpr_range=(0.0, 0.3))[0])
    # boosting needs a Hessian: a clear refusal from the objective and the estimator
    with pytest.raises(ValueError, match="'toy_top' cannot be used here.*Hessian"):
        window_objective(y, (0.05, 0.3), loss="toy_top")
    refusal = "loss must be one of .*'squared_hinge'.*Hessian.*got 'toy_top'"
    with pytest.raises(ValueError, match=refusal):
        GradientBoostingRanker(loss="toy_top").fit(X, y)
    # a name outside the table is refused, naming the table's names
    with pytest.raises(ValueError, match="'toy_top'"):
        PartialAUCSVM(surrogate="other").fit(X, y)


def test_a_row_without_chunked_support_is_refused_on_chunks(monkeypatch):
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    row = Loss("toy_top", _top_cut([]), None, convex=True, solver="cutting_plane",
               chunked=False, window=True, equations="eq. (14)", summary="toy")
    monkeypatch.setitem(LOSSES, "toy_top", row)
    X, y = _data(1)
    with dask.config.set(scheduler="synchronous"), \
            pytest.raises(NotImplementedError, match="toy_top.*'tight', 'hinge'"):
        PartialAUCSVM((0.05, 0.3), surrogate="toy_top").fit(
            da.from_array(X, chunks=(50, -1)), da.from_array(y, chunks=50))


# --------------------------------------------------------------------------
# A toy loss with a Hessian and no cut: boosting takes it, the SVMs refuse it
# --------------------------------------------------------------------------

def _squared_derivatives(scores, is_pos, n_pos, j_alpha, j_beta, grad, hess, scale=1.0,
                         curvature=1.0):
    """The window's squared pairwise loss (1 - (s_i - s_j))^2, by brute force over the
    pairs (tiny inputs only), window weights by the package's tie rule."""
    scores = np.asarray(scores, dtype=np.float64)
    omega = _window.window_weights(scores, is_pos, j_alpha, j_beta)
    pos = np.flatnonzero(is_pos)
    neg = np.flatnonzero(~is_pos.view(bool))
    n_pairs = n_pos * (j_beta - j_alpha)
    margin = 1.0 - (scores[pos][:, None] - scores[neg][None, :])     # m x n, tiny
    weighted = omega[neg][None, :] * margin
    np.add.at(grad, pos, -scale * 2.0 * weighted.sum(axis=1) / n_pairs)
    np.add.at(grad, neg, scale * 2.0 * weighted.sum(axis=0) / n_pairs)
    np.add.at(hess, pos, scale * curvature * 2.0 * omega[neg].sum() / n_pairs)
    np.add.at(hess, neg, scale * curvature * 2.0 * n_pos * omega[neg] / n_pairs)
    return float((weighted * margin).sum() / n_pairs)


def test_a_hessian_only_row_is_a_boosting_loss_and_no_svm_surrogate(monkeypatch):
    row = Loss("toy_squared", None, _squared_derivatives, convex=True, solver=None,
               chunked=False, window=True, equations="-", summary="squared pairwise loss")
    monkeypatch.setitem(LOSSES, "toy_squared", row)
    X, y = _data(2, n=120)
    # pauc.objectives: n times the kernel's derivatives, the curvature of pairwise losses
    objective = window_objective(y, (0.0, 0.3), loss="toy_squared")
    s = X @ np.array([0.5, 0.1, 0.0, -0.2, 0.1])
    grad, hess = objective.gradient(s)
    g, h = np.zeros(len(y)), np.zeros(len(y))
    value = _squared_derivatives(s, (y == 1).view(np.uint8) if y.dtype == bool
                                 else (y == 1).astype(np.uint8), int((y == 1).sum()),
                                 objective.j_alpha, objective.j_beta, g, h)
    np.testing.assert_allclose(grad, len(y) * g)
    np.testing.assert_allclose(hess, 2.0 * len(y) * h)
    assert objective.value(s) == pytest.approx(value)
    # pauc.surrogates: its value and gradient in the scores
    v, gs = surrogate_at_scores("toy_squared", s, y, fpr_range=(0.0, 0.3))
    assert v == pytest.approx(value)
    np.testing.assert_allclose(gs, g)
    # GradientBoostingRanker boosts it
    model = GradientBoostingRanker((0.0, 0.3), loss="toy_squared", n_estimators=5,
                                   random_state=0).fit(X, y)
    assert model.decision_function(X).shape == (len(y),)
    # the SVMs need a cut: a clear refusal
    with pytest.raises(ValueError, match="'toy_squared' cannot be used here.*cut"):
        PartialAUCSVM((0.0, 0.3), surrogate="toy_squared").fit(X, y)


def test_one_row_two_names():
    """Boosting's "tight_hinge" and the SVM's "tight" are one row: either name works in
    every family."""
    X, y = _data(4)
    a = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="tight_hinge").fit(X, y)
    b = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="tight").fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    s = X @ b.coef_
    assert surrogate_at_scores("tight_hinge", s, y, fpr_range=(0.05, 0.3))[0] == \
        surrogate_at_scores("tight", s, y, fpr_range=(0.05, 0.3))[0]
    g1, h1 = window_objective(y, (0.05, 0.3), "tight").gradient(s)
    g2, h2 = window_objective(y, (0.05, 0.3), "tight_hinge").gradient(s)
    np.testing.assert_array_equal(g1, g2)
    np.testing.assert_array_equal(h1, h2)


def test_every_window_row_depends_on_the_window():
    """A row declared ``window=True`` is a loss of the FPR window: moving the window
    moves its value and its gradient (the log-loss declared a window loss passed
    every test before).  The pointwise log-loss, declared so, does not move."""
    rng = np.random.default_rng(3)
    y = (rng.random(300) < 0.3).astype(int)
    s = rng.normal(size=300) + y
    for name in loss_names("window"):
        narrow = surrogate_at_scores(name, s, y, fpr_range=(0.0, 0.1))
        wide = surrogate_at_scores(name, s, y, fpr_range=(0.2, 0.7))
        assert narrow[0] != pytest.approx(wide[0], rel=1e-6), name
        assert not np.allclose(narrow[1], wide[1]), name
    logloss = loss_row("logloss")
    assert not logloss.window
    is_pos = y.astype(bool)
    args = [np.ascontiguousarray(s), np.ascontiguousarray(is_pos, dtype=np.uint8),
            int(is_pos.sum())]
    values = []
    for j_alpha, j_beta in ((0, 21), (42, 147)):
        grad, hess = np.zeros(300), np.zeros(300)
        values.append(logloss.derivatives(*args, j_alpha, j_beta, grad, hess))
    assert values[0] == values[1]
