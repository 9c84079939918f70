"""pauc.plotting draws what it says (checked on the artists, not on pixels)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from pauc.gbm import GradientBoostingRanker
from pauc.plotting import plot_roc, plot_surrogates, plot_validation_history
from pauc.surrogates import surrogate


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0.7).astype(int)
    return X, y


def test_plot_roc_band_legend_and_inset(data, tmp_path):
    X, y = data
    ax = plot_roc(y, {"x0": X[:, 0], "x1": X[:, 1]}, fpr_range=(0.05, 0.2))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("x0: AUC") and "window [0.05, 0.2]" in labels[-1]
    band = [p for p in ax.patches if p.get_label().startswith("FPR window")]
    assert len(band) == 1
    assert len(ax.child_axes) == 1                          # the zoomed inset
    ax.figure.savefig(tmp_path / "roc.png")
    assert (tmp_path / "roc.png").stat().st_size > 5000


def test_plot_surrogates_values_are_the_surrogates(data):
    X, y = data
    w0, d = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    t = np.array([-1.0, 0.0, 0.5])
    ax = plot_surrogates(X, y, w0, d, t=t, fpr_range=(0.05, 0.3))
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"zero-one", "hinge", "tight", "naive"}
    expected = [surrogate("tight", w0 + ti * d, X, y, fpr_range=(0.05, 0.3))[0] for ti in t]
    np.testing.assert_allclose(lines["tight"].get_ydata(), expected)


def test_plot_surrogates_shape_mismatch(data):
    X, y = data
    with pytest.raises(ValueError, match="differ in shape"):
        plot_surrogates(X, y, np.zeros(3), np.zeros(2))


def _fitted_svm():
    from pauc.svm import AUCSVM

    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 4))
    y = (X @ np.array([1.0, -0.5, 0.2, 0.0]) + rng.normal(size=80) > 0).astype(int)
    # Algorithm 1's history (the proximal method's is drawn by the test below)
    return AUCSVM(C=10.0, tol=1e-4, method="cutting_plane").fit(X, y)


def test_plot_convergence_draws_the_history():
    from pauc.plotting import plot_convergence

    est = _fitted_svm()
    h = est.history_
    axes = plot_convergence(est)
    assert len(axes) == 3
    n = len(h["violation"])
    assert n >= 2
    viol = axes[0].get_lines()[0]
    np.testing.assert_array_equal(viol.get_xdata(), np.arange(1, n + 1))
    expected = np.where(h["violation"] > 0, h["violation"], np.nan)
    np.testing.assert_array_equal(viol.get_ydata(), expected)
    assert axes[0].get_yscale() == "log" and axes[2].get_yscale() == "log"
    # The tolerance line sits at the estimator's tol.
    assert axes[0].get_lines()[1].get_ydata()[0] == pytest.approx(est.tol)
    np.testing.assert_array_equal(axes[1].get_lines()[0].get_ydata(), h["xi"])
    # Gap: primal minus the best dual value seen so far; none at iteration 1.
    gap = axes[2].get_lines()[0].get_ydata()
    assert np.isnan(gap[0])
    for k in range(1, n):
        best = np.max(h["dual"][1:k + 1])
        g = h["primal"][k] - best
        assert (np.isnan(gap[k]) and g <= 0) or gap[k] == pytest.approx(g)
    # The dual is a lower bound on the optimum: the last gap is small and >= -qp noise.
    assert h["primal"][-1] - np.max(h["dual"][1:]) <= est.C * est.tol + 1e-6


def test_plot_convergence_without_dual_uses_final_primal():
    from pauc.plotting import plot_convergence

    class Fake:
        history_ = {"violation": np.array([1.0, 0.1, 1e-4]), "xi": np.array([0.0, 0.5, 0.6]),
                    "primal": np.array([3.0, 2.0, 1.5]), "dual": np.full(3, -np.inf)}

    axes = plot_convergence(Fake())
    np.testing.assert_array_equal(axes[2].get_lines()[0].get_ydata(), [1.5, 0.5, np.nan])
    assert axes[2].get_lines()[0].get_label() == "primal − final primal"
    assert len(axes[0].get_lines()) == 1               # no tol attribute, no tol line


@pytest.mark.parametrize("proximal, label", [([False] * 3, "H(w) − ξ"), ([True] * 3, "gap / C"),
                                             ([True, False, False],
                                              "H(w) − ξ  or  gap / C (proximal)")])
def test_plot_convergence_names_the_stopping_measure(proximal, label):
    from pauc.plotting import plot_convergence

    class Fake:
        history_ = {"violation": np.array([1.0, 0.1, 1e-4]), "xi": np.zeros(3),
                    "primal": np.array([3.0, 2.0, 1.5]), "dual": np.full(3, -np.inf),
                    "proximal": np.array(proximal)}

    assert plot_convergence(Fake())[0].get_ylabel() == label


def test_plot_convergence_errors():
    from sklearn.linear_model import LogisticRegression

    from pauc.plotting import plot_convergence
    from pauc.svm import AUCSVM

    with pytest.raises(ValueError, match="has no history_"):
        plot_convergence(AUCSVM())
    with pytest.raises(ValueError, match="has no history_"):
        plot_convergence(LogisticRegression())

    class Broken:
        history_ = {"violation": np.ones(2)}

    with pytest.raises(ValueError, match="lacks the cutting-plane records"):
        plot_convergence(Broken())


def test_plot_validation_history_draws_each_candidate():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2000, 4))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=2000) > 1.5).astype(int)
    ranker = GradientBoostingRanker((0.0, 0.2), n_estimators=40, n_iter_no_change=8,
                                    early_stopping=True, random_state=0).fit(X, y)
    ax = plot_validation_history(ranker)
    curves = [line for line in ax.get_lines() if line.get_marker() in ("None", None, "")]
    assert len(curves) == len(ranker.validation_history_)
    for line, (loss, history) in zip(curves, ranker.validation_history_.items()):
        np.testing.assert_array_equal(line.get_ydata(), history)
        assert loss in line.get_label()
    marks = [line for line in ax.get_lines() if line.get_marker() in ("o", "s")]
    assert sorted(int(m.get_xdata()[0]) for m in marks) == \
        sorted(ranker.validation_rounds_.values())
    assert sum("(kept)" in line.get_label() for line in curves) == 1
    with pytest.raises(ValueError, match="no validation history"):
        plot_validation_history(GradientBoostingRanker(n_estimators=3, early_stopping=False)
                                .fit(X, y))
