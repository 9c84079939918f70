"""pauc.torch.WindowLoss: brute force on all pairs, pauc's own surrogates, empty batches."""

from itertools import permutations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from _structural import brute_force, tiny_problems  # noqa: E402
import pauc.torch.functional  # noqa: E402
from pauc._loss import loss_names  # noqa: E402
from pauc.surrogates import surrogate_at_scores  # noqa: E402
from pauc.torch import WindowLoss  # noqa: E402

PAIRWISE = {
    # l(t) with the kernels' convention: a hinge pair at t = 1 exactly is inactive
    "squared_hinge": lambda t: torch.where(t < 1, 1 - t, torch.zeros_like(t)) ** 2,
    "hinge": lambda t: torch.where(t < 1, 1 - t, torch.zeros_like(t)),
    "exponential": lambda t: torch.exp(-t),
}
STRUCTURAL = ("tight", "naive")


def test_every_window_loss_of_the_table_is_covered():
    assert set(loss_names("window")) == set(PAIRWISE) | set(STRUCTURAL)


def window_weights_by_orders(neg, j_alpha, j_beta):
    """Each negative's share of the window, averaged over every order of the
    negatives that sorts them by score (highest first)."""
    shares, orders = np.zeros(len(neg)), 0
    for order in permutations(range(len(neg))):
        if all(neg[a] >= neg[b] for a, b in zip(order, order[1:])):
            orders += 1
            for position, j in enumerate(order):
                shares[j] += j_alpha <= position < j_beta
    return shares / orders


def all_pairs_loss(name, scores, is_pos, j_alpha, j_beta):
    """(1 / m (j_beta - j_alpha)) sum_i sum_j omega_j l(s_i - s_j) over the m x n pairs."""
    pos, neg = scores[is_pos], scores[~is_pos]
    omega = torch.as_tensor(window_weights_by_orders(neg.detach().numpy(), j_alpha, j_beta),
                            dtype=scores.dtype)
    pairs = PAIRWISE[name](pos[:, None] - neg[None, :]) * omega[None, :]
    return pairs.sum() / (pos.numel() * (j_beta - j_alpha))


def value_and_grad(loss, scores, is_pos, dtype):
    s = torch.tensor(scores, dtype=dtype, requires_grad=True)
    value = loss(s, torch.as_tensor(is_pos))
    value.backward()
    return value.item(), s.grad.numpy()


TOLERANCE = {torch.float32: 1e-6, torch.float64: 1e-12}


@pytest.fixture(params=["table kernels", "torch forms"])
def forms(request, monkeypatch):
    """On the CPU, the table's Cython kernels where a row has one, else the torch forms."""
    monkeypatch.setattr(pauc.torch.functional, "TABLE_KERNELS_ON_CPU",
                        request.param == "table kernels")
    return request.param


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(PAIRWISE))
# the fixture only sets a module switch, the same for every example
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=tiny_problems())
def test_pairwise_surrogates_equal_all_pairs(forms, problem, name, dtype):
    scores, is_pos, j_alpha, j_beta = problem
    n = int((~is_pos).sum())
    window = (j_alpha / n, j_beta / n)
    value, grad = value_and_grad(WindowLoss(window, name), scores, is_pos, dtype)
    s = torch.tensor(scores, dtype=torch.float64, requires_grad=True)
    expected = all_pairs_loss(name, s, torch.as_tensor(is_pos), j_alpha, j_beta)
    expected.backward()
    tol = TOLERANCE[dtype]
    assert value == pytest.approx(expected.item(), rel=tol, abs=tol)
    np.testing.assert_allclose(grad, s.grad.numpy(), rtol=tol, atol=tol)
    # pauc's own surrogate (the loss table's Cython kernels) on the same scores
    table_value, table_grad = surrogate_at_scores(name, scores, is_pos, fpr_range=window)
    assert value == pytest.approx(table_value, rel=tol, abs=tol)
    if name != "hinge":     # the table's hinge subgradient is its DC difference's
        np.testing.assert_allclose(grad, table_grad, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", STRUCTURAL)
@settings(max_examples=100, deadline=None)
@given(problem=tiny_problems())
def test_structural_surrogates_equal_enumeration(problem, name, dtype):
    scores, is_pos, j_alpha, j_beta = problem
    n = int((~is_pos).sum())
    window = (j_alpha / n, j_beta / n)
    value, grad = value_and_grad(WindowLoss(window, name), scores, is_pos, dtype)
    tol = TOLERANCE[dtype]
    expected = brute_force(scores[is_pos], scores[~is_pos], j_alpha, j_beta, name)
    assert value == pytest.approx(expected, rel=tol, abs=tol)
    table_value, table_grad = surrogate_at_scores(name, scores, is_pos, fpr_range=window)
    assert value == pytest.approx(table_value, rel=tol, abs=tol)
    np.testing.assert_allclose(grad, table_grad, rtol=tol, atol=tol)
    # a subgradient of a maximum of linear functions: the linear piece is tight at s
    # and below the enumeration everywhere else
    rng = np.random.default_rng(len(scores))
    for _ in range(3):
        other = scores + rng.normal(size=scores.shape)
        assert brute_force(other[is_pos], other[~is_pos], j_alpha, j_beta, name) >= \
            value + grad @ (other - scores) - 1e-5


def test_larger_batches_equal_pauc_with_ties_and_alpha(forms):
    rng = np.random.default_rng(0)
    scores = np.round(rng.normal(size=600), 1)           # many ties
    is_pos = rng.random(600) < 0.2
    for name in sorted(PAIRWISE):
        value, grad = value_and_grad(WindowLoss((0.03, 0.21), name), scores, is_pos,
                                     torch.float64)
        table_value, table_grad = surrogate_at_scores(name, scores, is_pos,
                                                      fpr_range=(0.03, 0.21))
        assert value == pytest.approx(table_value, rel=1e-12)
        if name != "hinge":
            np.testing.assert_allclose(grad, table_grad, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("name", sorted(PAIRWISE) + list(STRUCTURAL))
@pytest.mark.parametrize("labels", [[1, 1, 1], [0, 0, 0], []], ids=["no-negative",
                                                                    "no-positive", "empty"])
def test_one_class_batches_give_zero_in_the_graph(forms, name, labels):
    scores = torch.linspace(-1, 1, len(labels), requires_grad=True)
    value = WindowLoss((0.0, 0.5), name)(scores, torch.tensor(labels))
    assert value.item() == 0.0 and value.requires_grad
    value.backward()
    assert torch.equal(scores.grad, torch.zeros_like(scores))


def test_bce_weight_adds_the_cross_entropy():
    scores = torch.tensor([1.0, -0.5, 0.3, 2.0], requires_grad=True)
    labels = torch.tensor([1, 0, 0, 1])
    mixed = WindowLoss((0.0, 0.5), bce_weight=0.7)(scores, labels)
    alone = WindowLoss((0.0, 0.5))(scores, labels)
    bce = torch.nn.functional.binary_cross_entropy_with_logits(scores, labels.double()
                                                               .to(scores.dtype))
    assert mixed.item() == pytest.approx(alone.item() + 0.7 * bce.item(), rel=1e-6)


def test_column_scores_and_boolean_labels():
    scores = torch.tensor([[1.0], [-0.5], [0.3], [2.0]])
    labels = torch.tensor([[True], [False], [False], [True]])
    flat = WindowLoss()(scores[:, 0], labels[:, 0].long())
    assert WindowLoss()(scores, labels).item() == flat.item()


@pytest.mark.parametrize("kwargs, message", [
    ({"surrogate": "zero_one"}, "surrogate must be one of"),
    ({"surrogate": "logloss"}, "cannot be used here"),
    ({"fpr_range": (0.2, 0.1)}, "0 <= alpha < beta <= 1"),
    ({"surrogate": "bogus"}, "tight_hinge"),        # the alias is listed
    ({"memory": -1}, "memory must be an integer"),
    ({"memory": 2**70}, r"memory must be an integer .*<= 2\*\*63 - 1"),
    ({"memory": 100, "surrogate": "tight"}, "memory needs a pairwise surrogate"),
    ({"bce_weight": -1.0}, "bce_weight"),
    ({"bce_weight": True}, "bce_weight"),
    ({"bce_weight": np.True_}, "bce_weight"),
    ({"gather": "yes"}, "gather must be"),
    # narrower than the tolerance of n alpha and n beta: no position for some batches
    ({"fpr_range": (0.0, 1e-12)}, r"fpr_range=\(0.0, 1e-12\) is narrower than 2e-09"),
    ({"fpr_range": (0.5, 0.5 + 1e-10)}, "narrower than 2e-09"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        WindowLoss(**kwargs)


def test_the_alias_tight_hinge_is_tight():
    scores, labels = torch.tensor([1.0, -0.5, 0.3, 2.0, 0.1]), torch.tensor([1, 0, 0, 1, 0])
    loss = WindowLoss((0.0, 0.5), "tight_hinge")
    assert loss.surrogate == "tight"
    assert loss(scores, labels).item() == WindowLoss((0.0, 0.5), "tight")(scores, labels).item()
    assert "tight_hinge" in WindowLoss.__doc__


@settings(max_examples=300, deadline=None)
@given(alpha=st.floats(0.0, 1.0), width=st.floats(2.0000001e-9, 1.0),
       n=st.integers(1, 10**9))
def test_an_accepted_window_holds_a_position_in_every_batch(alpha, width, n):
    """The constructor refuses only windows narrower than 2e-9; every window it accepts
    holds at least one position among any number of negatives (no error at a batch)."""
    beta = min(alpha + width, 1.0)
    alpha = min(alpha, beta - width)
    assume(alpha >= 0.0 and beta - alpha > 2e-9)
    loss = WindowLoss((alpha, beta))
    j_alpha, j_beta = pauc.torch.functional._indices(n, loss.fpr_range)
    assert 0 <= j_alpha < j_beta <= n


@pytest.mark.parametrize("n", [1, 2, 3, 1000, 10**6])
def test_the_narrowest_accepted_windows_hold_a_position(n):
    for window in [(0.0, 2.1e-9), (0.5, 0.5 + 2.1e-9), (1.0 - 2.1e-9, 1.0),
                   (1 / 3, 1 / 3 + 2.1e-9)]:
        WindowLoss(window)(torch.linspace(0, 1, n + 1), torch.tensor([1] + [0] * n))


@pytest.mark.parametrize("scores, labels, message", [
    (torch.tensor([1, 2]), [1, 0], "floating-point"),
    (torch.tensor([1.0, float("nan")]), [1, 0], "finite"),
    (torch.tensor([1.0, 2.0]), [1, 2], "0/1"),
    (torch.tensor([1.0, 2.0]), [1, 0, 1], "shape"),
    (torch.ones(2, 2), [1, 0], r"\(b,\) or \(b, 1\)"),
])
def test_bad_batches(scores, labels, message):
    with pytest.raises(ValueError, match=message):
        WindowLoss()(scores, torch.tensor(labels))


def test_import_pauc_does_not_import_torch(tmp_path):
    import subprocess
    import sys
    code = "import pauc, pauc.metrics, sys; assert 'torch' not in sys.modules"
    # outside the source tree, whose pauc/ folder holds no compiled modules
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


def test_a_float32_loss_beyond_float32_range_is_inf_in_both_forms(monkeypatch):
    """Finite float32 scores whose window loss overflows float32: inf, on the default
    path as in the torch forms (it raised a RuntimeError from the conversion)."""
    scores, labels = torch.tensor([-1e19, 1e19, 0.0]), torch.tensor([1, 0, 0])
    values = []
    for kernels in (True, False):
        monkeypatch.setattr(pauc.torch.functional, "TABLE_KERNELS_ON_CPU", kernels)
        values.append(WindowLoss((0.0, 0.5))(scores, labels).item())
    assert values == [float("inf")] * 2
