"""BoundLoss: a row of the loss table bound to labels and a window, the one caller of
the rows' derivatives in boosting (issue 35: no training loop branches on a loss name)."""

import re
from pathlib import Path

import numpy as np
import pytest

from pauc._loss import loss_names, loss_row
from pauc._loss._bound import BoundLoss
from pauc._loss._table import PAIRWISE_CURVATURE
from pauc.objectives import window_objective

PACKAGE = Path(__file__).resolve().parents[1] / "pauc"


def _problem(n=40, seed=0):
    rng = np.random.RandomState(seed)
    is_pos = rng.rand(n) < 0.3
    is_pos[:2] = [True, False]
    return rng.randn(n), is_pos


@pytest.mark.parametrize("name", loss_names("hessian"))
@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_gradient_is_n_times_the_derivative_of_the_value(name, weight):
    # central differences of the value (the mean over pairs / rows) at scores with
    # no ties, far from every kink: the gradient handed to an engine is n times it
    # (its scale), the normalised exponential loss alone aside
    scores, is_pos = _problem()
    bound = BoundLoss(name, is_pos, (0.0, 0.3), logloss_weight=weight, normalize=False)
    grad, hess = bound.gradient_hessian(scores)
    n, eps = scores.shape[0], 1e-6
    numeric = np.empty(n)
    for k in range(n):
        up, down = scores.copy(), scores.copy()
        up[k] += eps
        down[k] -= eps
        numeric[k] = (bound.value(up) - bound.value(down)) / (2 * eps)
    np.testing.assert_allclose(grad, n * numeric, rtol=1e-5, atol=1e-7)
    assert np.all(hess >= 0)


def test_the_row_carries_the_protocol():
    scores, is_pos = _problem()
    for name in loss_names("hessian"):
        row = loss_row(name)
        assert row.curvature == (PAIRWISE_CURVATURE if row.window else 1.0)
    # the exponential loss alone is normalised (largest |gradient| entry = the scale);
    # mixed with log-loss, or asked not to, it is not
    alone = BoundLoss("exponential", is_pos, (0.0, 0.3))
    raw = BoundLoss("exponential", is_pos, (0.0, 0.3), normalize=False)
    mixed = BoundLoss("exponential", is_pos, (0.0, 0.3), logloss_weight=0.5)
    assert alone.normalize and not raw.normalize and not mixed.normalize
    g, h = alone.gradient_hessian(scores)
    g_raw, h_raw = raw.gradient_hessian(scores)
    assert np.max(np.abs(g)) == pytest.approx(scores.shape[0])
    moved = g_raw != 0           # a negative outside the window has no pair
    np.testing.assert_array_equal(g[~moved], 0.0)
    ratio = g[moved] / g_raw[moved]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)
    np.testing.assert_allclose(h[moved] / h_raw[moved], ratio[0], rtol=1e-12)
    # the pointwise log-loss is weight 1 alone, whatever logloss_weight says
    assert BoundLoss("logloss", is_pos, (0.0, 0.3), logloss_weight=0.2).pointwise_weight == 1.0


def test_out_accumulates_and_objectives_read_it():
    scores, is_pos = _problem(seed=1)
    bound = BoundLoss("squared_hinge", is_pos, (0.1, 0.4), logloss_weight=0.3)
    grad, hess = bound.gradient_hessian(scores)
    out = (np.ones(scores.shape[0]), np.full(scores.shape[0], 2.0))
    again = bound.gradient_hessian(scores, out=out)
    assert again[0] is out[0] and again[1] is out[1]
    np.testing.assert_allclose(out[0], grad + 1.0, rtol=1e-14)
    np.testing.assert_allclose(out[1], hess + 2.0, rtol=1e-14)
    # pauc.objectives' window_objective is the bound row
    g, h = window_objective(is_pos, (0.1, 0.4), "squared_hinge", logloss_weight=0.3).gradient(
        scores)
    np.testing.assert_array_equal(g, grad)
    np.testing.assert_array_equal(h, hess)


def test_no_training_loop_branches_on_a_loss_name():
    # boosting's losses are read through their row (window, curvature, normalizable,
    # global kernel); a comparison of a loss with a name would be a second table
    # ("auto", the estimator's choice of candidates, is no loss)
    pattern = re.compile(r"""\bloss\s*(==|!=)\s*["'](?!auto["'])"""
                         r"""|\bloss\s+(not\s+)?in\s+\(["'](?!auto["'])""")
    files = [PACKAGE / "objectives.py", *sorted((PACKAGE / "boost").glob("*.py")),
             *sorted((PACKAGE / "distributed").glob("*.py"))]
    found = [f"{f.relative_to(PACKAGE)}:{i}: {line.strip()}"
             for f in files for i, line in enumerate(f.read_text().splitlines(), 1)
             if pattern.search(line)]
    assert found == []


def test_one_mixture_rule_for_one_process_and_several_workers():
    from pauc._loss._bound import mixture
    exp, logloss = loss_row("exponential"), loss_row("logloss")
    assert mixture(exp) == (0.0, True)
    assert mixture(exp, 0.5) == (0.5, False)
    assert mixture(exp, normalize=False) == (0.0, False)
    assert mixture(logloss, 0.3) == (1.0, False)
    assert mixture(loss_row("squared_hinge")) == (0.0, False)
