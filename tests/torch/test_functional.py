"""pauc.torch.functional.window_loss: the module's loss, bit for bit, and its checks."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pauc.torch  # noqa: E402
import pauc.torch.functional  # noqa: E402
from pauc.torch import NegativeMemory, WindowLoss  # noqa: E402
from pauc.torch.functional import window_loss  # noqa: E402

PAIRWISE = ("squared_hinge", "hinge", "exponential")
STRUCTURAL = ("tight", "naive")
DTYPES = [torch.float32, torch.float64, torch.bfloat16]
WINDOW = (0.05, 0.4)


@pytest.fixture(params=["table kernels", "torch forms"])
def forms(request, monkeypatch):
    """On the CPU, the table's Cython kernels where a row has one, else the torch forms."""
    monkeypatch.setattr(pauc.torch.functional, "TABLE_KERNELS_ON_CPU",
                        request.param == "table kernels")
    return request.param


def batch(n=60, seed=0, dtype=torch.float64):
    rng = np.random.default_rng(seed)
    is_pos = rng.random(n) < 0.3
    is_pos[:2] = True, False
    scores = np.round(rng.normal(size=n) + is_pos, 1)          # ties
    return torch.as_tensor(scores, dtype=dtype), torch.as_tensor(is_pos.astype(np.int64))


def value_and_grad(loss, scores, labels):
    s = scores.clone().requires_grad_()
    value = loss(s, labels)
    value.backward()
    return value.detach(), s.grad


def assert_identical(got, expected):
    """Same dtype and the same bits (NaN nowhere)."""
    for a, b in zip(got, expected):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert torch.equal(a, b), (a, b)


def test_the_package_exports_the_functional():
    assert pauc.torch.functional.window_loss is window_loss
    assert "functional" in pauc.torch.__all__
    assert pauc.torch.functional.__all__ == ["window_loss"]


@pytest.mark.parametrize("bce_weight", [0.0, 0.7], ids=["plain", "bce"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("name", PAIRWISE + STRUCTURAL)
def test_the_functional_is_the_module_bit_for_bit(forms, name, dtype, bce_weight):
    scores, labels = batch(dtype=dtype)
    module = WindowLoss(WINDOW, name, bce_weight=bce_weight)
    expected = value_and_grad(module, scores, labels)
    got = value_and_grad(lambda s, y: window_loss(s, y, WINDOW, name, bce_weight=bce_weight),
                         scores, labels)
    assert_identical(got, expected)
    assert got[0].dtype == dtype and got[0].item() > 0 and got[1].abs().sum() > 0


def test_the_defaults_are_the_modules():
    scores, labels = batch(dtype=torch.float32)
    assert_identical(value_and_grad(window_loss, scores, labels),
                     value_and_grad(WindowLoss(), scores, labels))


@pytest.mark.parametrize("bce_weight", [0.0, 0.7], ids=["plain", "bce"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("name", PAIRWISE)
def test_with_a_memory_in_training_mode_the_functional_is_the_module(name, dtype, bce_weight):
    """The same value, gradient and memory contents after the call (the batch's
    negatives pushed), from the same earlier negatives."""
    scores, labels = batch(dtype=dtype)
    earlier = batch(80, seed=1, dtype=dtype)[0]
    module = WindowLoss(WINDOW, name, memory=100, bce_weight=bce_weight)
    module.memory.push(earlier)
    memory = NegativeMemory(100)
    memory.push(earlier)
    expected = value_and_grad(module, scores, labels)
    got = value_and_grad(lambda s, y: window_loss(s, y, WINDOW, name, memory=memory,
                                                  bce_weight=bce_weight), scores, labels)
    assert_identical(got, expected)
    assert memory.scores.numel() == 100                 # 80 + the batch's negatives, cut
    assert_identical([memory.scores], [module.memory.scores])
    # and the memory is in use: without it, another value
    assert not torch.equal(window_loss(scores, labels, WINDOW, name, bce_weight=bce_weight),
                           got[0])


def test_in_evaluation_mode_the_module_is_the_functional_without_memory():
    scores, labels = batch()
    module = WindowLoss(WINDOW, memory=100).eval()
    module.memory.push(torch.full((50,), 3.0, dtype=torch.float64))
    assert_identical(value_and_grad(module, scores, labels),
                     value_and_grad(lambda s, y: window_loss(s, y, WINDOW), scores, labels))
    assert module.memory.scores.numel() == 50


@pytest.mark.parametrize("bce_weight", [0.0, 0.7], ids=["plain", "bce"])
@pytest.mark.parametrize("name", PAIRWISE + STRUCTURAL)
def test_under_torch_func_grad_the_functional_is_the_module(name, bce_weight):
    scores, labels = batch()
    module = WindowLoss(WINDOW, name, bce_weight=bce_weight)
    expected = torch.func.grad_and_value(lambda s: module(s, labels))(scores)
    got = torch.func.grad_and_value(
        lambda s: window_loss(s, labels, WINDOW, name, bce_weight=bce_weight))(scores)
    assert_identical(got, expected)
    assert got[0].abs().sum() > 0
    # and the gradient is autograd's (the torch forms against the kernels: to rounding)
    torch.testing.assert_close(got[0], value_and_grad(module, scores, labels)[1],
                               rtol=1e-12, atol=1e-14)


def test_under_torch_func_grad_with_a_memory_the_functional_is_the_module():
    scores, labels = batch()
    module = WindowLoss(WINDOW, "exponential", memory=100)
    memory = NegativeMemory(100)
    for m in (module.memory, memory):
        m.push(batch(30, seed=2)[0])
    expected = torch.func.grad_and_value(lambda s: module(s, labels))(scores)
    got = torch.func.grad_and_value(
        lambda s: window_loss(s, labels, WINDOW, "exponential", memory=memory))(scores)
    assert_identical(got, expected)
    assert_identical([memory.scores + 0], [module.memory.scores + 0])


@pytest.mark.parametrize("scores, labels, message", [
    (torch.tensor([1, 2]), [1, 0], "floating-point"),
    ([1.0, 2.0], [1, 0], "floating-point"),
    (torch.tensor([1.0, float("nan")]), [1, 0], "finite"),
    (torch.tensor([1.0, float("inf")]), np.array([1, 0], dtype=np.int8), "finite"),
    (torch.tensor([1.0, float("nan")], dtype=torch.bfloat16), [1, 0], "finite"),
    (torch.tensor([1.0, 2.0]), [1, 2], "0/1"),
    (torch.tensor([1.0, 2.0]), [1.0, 0.5], "0/1"),
    (torch.tensor([1.0, 2.0]), np.array([1, -1], dtype=np.int16), "0/1"),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, float("nan")]), "0/1"),
    (torch.tensor([1.0, float("nan")]), [1, 2], "0/1"),           # labels first
    (torch.tensor([1.0, 2.0]), [1, 0, 1], "shape"),
    (torch.tensor([1.0, 2.0]), [[1, 0]], "shape"),
    (torch.ones(2, 2), [1, 0], r"\(b,\) or \(b, 1\)"),
    (torch.ones(2, 1, 1), [1, 0], r"\(b,\) or \(b, 1\)"),
])
@pytest.mark.parametrize("name, options", [
    ("squared_hinge", {}), ("squared_hinge", {"bce_weight": 0.5}), ("exponential", {}),
    ("hinge", {}), ("tight", {}), ("squared_hinge", {"memory": 10})],
    ids=["default", "bce", "exponential", "hinge", "tight", "memory"])
def test_bad_batches_give_the_same_error_through_both(forms, scores, labels, message, name,
                                                      options):
    with pytest.raises(ValueError, match=message) as by_module:
        WindowLoss(WINDOW, name, **options)(scores, torch.as_tensor(labels))
    memory = NegativeMemory(options["memory"]) if "memory" in options else None
    extra = {k: v for k, v in options.items() if k != "memory"}
    with pytest.raises(ValueError, match=message) as by_function:
        window_loss(scores, torch.as_tensor(labels), WINDOW, name, memory=memory, **extra)
    assert str(by_function.value) == str(by_module.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"surrogate": "zero_one"}, "surrogate must be one of"),
    ({"surrogate": "logloss"}, "cannot be used here"),
    ({"fpr_range": (0.2, 0.1)}, "0 <= alpha < beta <= 1"),
    ({"fpr_range": [0.2, 0.1]}, "0 <= alpha < beta <= 1"),          # unhashable
    ({"fpr_range": "ab"}, "must be a pair"),
    ({"surrogate": "bogus"}, "tight_hinge"),        # the alias is listed
    ({"bce_weight": -1.0}, "bce_weight"),
    ({"bce_weight": True}, "bce_weight"),
    ({"bce_weight": np.True_}, "bce_weight"),
    ({"bce_weight": float("nan")}, "bce_weight"),
    ({"gather": "yes"}, "gather must be"),
    ({"fpr_range": (0.0, 1e-12)}, r"fpr_range=\(0.0, 1e-12\) is narrower than 2e-09"),
    ({"fpr_range": (0.5, 0.5 + 1e-10)}, "narrower than 2e-09"),
])
def test_bad_options_give_the_constructors_error(kwargs, message):
    scores, labels = batch()
    with pytest.raises(ValueError, match=message) as by_module:
        WindowLoss(**kwargs)
    with pytest.raises(ValueError, match=message) as by_function:
        window_loss(scores, labels, **kwargs)
    assert str(by_function.value) == str(by_module.value)


def test_remembered_options_keep_apart_values_that_compare_equal():
    """The checks are remembered per value and type: bce_weight=1 accepted does not let
    True through, a failed check is not remembered, an unhashable value is checked."""
    scores, labels = batch()
    one = window_loss(scores, labels, bce_weight=1)
    assert torch.equal(one, window_loss(scores, labels, bce_weight=1.0))
    for bad in (True, np.True_):
        with pytest.raises(ValueError, match="bce_weight"):
            window_loss(scores, labels, bce_weight=bad)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"got \(0.3, 0.2\)"):
            window_loss(scores, labels, fpr_range=(0.3, 0.2))
    assert torch.equal(window_loss(scores, labels, [0.05, 0.4], "tight_hinge"),
                       window_loss(scores, labels, (0.05, 0.4), "tight"))


def test_the_memory_argument_is_checked():
    scores, labels = batch()
    with pytest.raises(ValueError, match="memory must be a pauc.torch.NegativeMemory"):
        window_loss(scores, labels, memory=100)
    with pytest.raises(ValueError, match="memory needs a pairwise surrogate.*memory=None"):
        window_loss(scores, labels, surrogate="tight", memory=NegativeMemory(10))


def test_vmap_is_refused_through_the_functional():
    scores = torch.randn(2, 10, dtype=torch.float64)
    labels = torch.tensor([1, 0] * 5)
    with pytest.raises(ValueError, match="does not run under torch.vmap"):
        torch.vmap(lambda s: window_loss(s, labels))(scores)


def test_gather_false_is_the_local_window():
    scores, labels = batch()
    assert_identical(value_and_grad(lambda s, y: window_loss(s, y, gather=False), scores,
                                    labels),
                     value_and_grad(WindowLoss(gather=False), scores, labels))
