"""pauc.torch.WindowLoss under torch.func (grad, hessian), and second derivatives."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pauc.torch.functional  # noqa: E402
from pauc._loss._window import window_weights  # noqa: E402
from pauc._validation import empirical_indices  # noqa: E402
from pauc.torch import WindowLoss  # noqa: E402

PAIRWISE = ("squared_hinge", "hinge", "exponential")
STRUCTURAL = ("tight", "naive")
# the kernels' convention: a hinge pair at t = 1 exactly is inactive
PAIR_LOSS = {"squared_hinge": lambda t: torch.where(t < 1, 1 - t, torch.zeros_like(t)) ** 2,
             "exponential": lambda t: torch.exp(-t)}


def batch(n=40, seed=0):
    rng = np.random.default_rng(seed)
    is_pos = rng.random(n) < 0.3
    is_pos[:2] = True, False
    scores = np.round(rng.normal(size=n) + is_pos, 1)          # ties
    return torch.as_tensor(scores), torch.as_tensor(is_pos.astype(np.int64))


def autograd_gradient(loss, scores, labels):
    s = scores.clone().requires_grad_()
    value = loss(s, labels)
    value.backward()
    return value.detach(), s.grad


@pytest.mark.parametrize("name", PAIRWISE + STRUCTURAL)
@pytest.mark.parametrize("options", [{}, {"bce_weight": 0.7}, {"memory": 50}],
                         ids=["plain", "bce", "memory"])
def test_torch_func_grad_equals_autograd(name, options):
    """``torch.func.grad`` (which ran into "Cannot access data pointer of Tensor that
    doesn't have storage") gives autograd's value and gradient."""
    if "memory" in options and name in STRUCTURAL:
        pytest.skip("the memory needs a pairwise surrogate")
    scores, labels = batch()
    window = (0.05, 0.4)
    value, expected = autograd_gradient(WindowLoss(window, name, **options), scores, labels)
    loss = WindowLoss(window, name, **options)
    grad, got = torch.func.grad_and_value(lambda s: loss(s, labels))(scores)
    torch.testing.assert_close(got, value, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(grad, expected, rtol=1e-12, atol=1e-14)
    if "memory" in options:
        # the batch's negatives went in as plain values, usable after the transform
        assert loss.memory.scores.numel() == int((labels == 0).sum())
        assert torch.equal(loss.memory.scores + 0, scores[labels == 0])


def all_pairs(name, scores, is_pos, omega, count):
    pos, neg = scores[is_pos], scores[~is_pos]
    return (PAIR_LOSS[name](pos[:, None] - neg[None, :]) * omega).sum() / count


@pytest.mark.parametrize("name", ["squared_hinge", "exponential"])
def test_torch_func_hessian_is_the_pairwise_sums_with_the_window_fixed(name):
    scores, labels = batch()
    is_pos = labels.bool()
    window = (0.05, 0.4)
    n = int((~is_pos).sum())
    j_alpha, j_beta = empirical_indices(n, window)
    omega = torch.as_tensor(window_weights(scores.numpy(), is_pos.numpy().view(np.uint8),
                                           j_alpha, j_beta))[~is_pos]
    count = int(is_pos.sum()) * (j_beta - j_alpha)
    expected = torch.func.hessian(lambda s: all_pairs(name, s, is_pos, omega, count))(scores)
    got = torch.func.hessian(lambda s: WindowLoss(window, name)(s, labels))(scores)
    torch.testing.assert_close(got, expected, rtol=1e-10, atol=1e-12)
    assert got.abs().sum() > 0


def test_torch_func_through_a_module_gives_the_parameter_gradient():
    """The MAML-style route: ``functional_call`` under ``torch.func.grad``."""
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1).double()
    x = torch.randn(30, 3, dtype=torch.float64)
    y = (x[:, 0] > 0.3).long()
    loss = WindowLoss((0.0, 0.3))
    params = dict(model.named_parameters())
    grads = torch.func.grad(
        lambda p: loss(torch.func.functional_call(model, p, (x,)), y))(params)
    loss(model(x), y).backward()
    for name, parameter in model.named_parameters():
        torch.testing.assert_close(grads[name], parameter.grad, rtol=1e-12, atol=1e-14)


# the rows with a CPU kernel (the hinge has none: the torch forms run it)
@pytest.mark.parametrize("name, options", [("squared_hinge", {}),          # the default path
                                           ("squared_hinge", {"bce_weight": 1.0}),
                                           ("exponential", {})])
def test_a_second_derivative_through_the_kernels_is_refused_clearly(name, options):
    """backward(create_graph=True) through a CPU kernel's constant gradient: a clear
    error (it was "element 0 of tensors does not require grad", or through a
    network's parameters a silently missing curvature)."""
    scores, labels = batch()
    s = scores.clone().requires_grad_()
    value = WindowLoss((0.0, 0.4), name, **options)(s, labels)
    with pytest.raises(RuntimeError, match="first derivatives only.*torch.func"):
        torch.autograd.grad(value, s, create_graph=True)
    # the first derivative alone is unaffected
    value = WindowLoss((0.0, 0.4), name, **options)(s, labels)
    torch.autograd.grad(value, s)


@pytest.mark.parametrize("name", ["squared_hinge", "exponential"])
def test_the_torch_forms_give_second_derivatives_with_plain_autograd(monkeypatch, name):
    """Where the torch forms run (GPU, memory, gather), create_graph works: the
    Hessian-vector product equals torch.func's."""
    monkeypatch.setattr(pauc.torch.functional, "TABLE_KERNELS_ON_CPU", False)
    scores, labels = batch()
    loss = WindowLoss((0.05, 0.4), name)
    s = scores.clone().requires_grad_()
    grad, = torch.autograd.grad(loss(s, labels), s, create_graph=True)
    v = torch.linspace(-1, 1, len(scores), dtype=torch.float64)
    hvp, = torch.autograd.grad(grad @ v, s)
    expected = torch.func.hessian(lambda t: loss(t, labels))(scores) @ v
    torch.testing.assert_close(hvp, expected, rtol=1e-10, atol=1e-12)


def test_vmap_is_refused_clearly():
    scores = torch.randn(2, 10, dtype=torch.float64)
    labels = torch.tensor([1, 0] * 5)
    with pytest.raises(ValueError, match="does not run under torch.vmap"):
        torch.vmap(lambda s: WindowLoss()(s, labels))(scores)
