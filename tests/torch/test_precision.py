"""pauc.torch.WindowLoss in the dtypes of mixed precision and beyond float32's range."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pauc.torch.functional  # noqa: E402
from pauc.torch import WindowLoss  # noqa: E402

PAIRWISE = ("squared_hinge", "hinge", "exponential")
STRUCTURAL = ("tight", "naive")
# what torch.autocast produces: float16 on CUDA, bfloat16 on the CPU
HALF = [torch.float16, torch.bfloat16]


@pytest.fixture(params=["table kernels", "torch forms"])
def forms(request, monkeypatch):
    """On the CPU, the table's Cython kernels where a row has one, else the torch forms
    (those that run on a GPU)."""
    monkeypatch.setattr(pauc.torch.functional, "TABLE_KERNELS_ON_CPU",
                        request.param == "table kernels")
    return request.param


def batch(n, seed=0):
    """``n`` scores with 10 % positives (shifted up by 1), as in the issue's figures."""
    rng = np.random.default_rng(seed)
    is_pos = rng.random(n) < 0.1
    return torch.as_tensor(rng.normal(size=n) + is_pos, dtype=torch.float32), \
        torch.as_tensor(is_pos.astype(np.int64))


def value_and_grad(loss, scores, labels):
    scores = scores.clone().requires_grad_()
    value = loss(scores, labels)
    value.backward()
    return value, scores.grad


@pytest.mark.parametrize("n", [4096, 65536])
@pytest.mark.parametrize("dtype", HALF, ids=["float16", "bfloat16"])
@pytest.mark.parametrize("name, memory", [(name, 0) for name in PAIRWISE + STRUCTURAL]
                         + [(name, 100_000) for name in PAIRWISE])
def test_half_precision_equals_float32_on_the_same_rounded_scores(forms, n, dtype, name,
                                                                  memory):
    """Half-precision scores: the loss and its gradient are those of float32 on the same
    (rounded) scores, returned in the scores' dtype.  Summed in float16, the squared
    hinge was inf at 4,096 rows and its gradient 0 at 65,536; in bfloat16 the
    gradient's cosine with float32's was 0.8."""
    scores, labels = batch(n)
    half = scores.to(dtype)
    results = []
    for s in (half, half.float()):
        loss = WindowLoss((0.0, 0.1), name, memory=memory)
        if memory:
            # earlier negatives, the same in both memories (rounded like the batch)
            loss.memory.push(batch(n // 2, seed=1)[0].to(dtype).float())
        results.append(value_and_grad(loss, s, labels))
    (value, grad), (expected, expected_grad) = results
    assert value.dtype == grad.dtype == dtype
    assert math.isfinite(value.item())
    assert value.item() == pytest.approx(expected.item(), rel=1e-2)
    cosine = torch.nn.functional.cosine_similarity(grad.double(), expected_grad.double(), dim=0)
    assert cosine.item() >= 0.999


@pytest.mark.parametrize("name", PAIRWISE + STRUCTURAL)
def test_autocast_leaves_float32_scores_in_float32(forms, name):
    """Inside ``torch.autocast`` the loss's own products stay in float32 (the structural
    surrogates' ``s . coef`` was a bfloat16 matmul)."""
    scores, labels = batch(500)
    expected = value_and_grad(WindowLoss((0.0, 0.3), name), scores, labels)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        value, grad = value_and_grad(WindowLoss((0.0, 0.3), name), scores, labels)
    assert value.dtype == torch.float32
    assert value.item() == pytest.approx(expected[0].item(), rel=1e-6)
    torch.testing.assert_close(grad, expected[1], rtol=1e-6, atol=1e-9)


def test_autocast_on_a_network_gives_the_half_loss_in_float32_accuracy():
    """The guide's recipe: a bfloat16 network output under CPU autocast."""
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    x = torch.randn(4096, 8)
    y = (x[:, 0] + torch.randn(4096) > 1.3).long()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        scores = model(x)[:, 0]
        value = WindowLoss((0.0, 0.1))(scores, y)
    assert scores.dtype == value.dtype == torch.bfloat16
    expected = WindowLoss((0.0, 0.1))(scores.detach().float(), y)
    assert value.item() == pytest.approx(expected.item(), rel=1e-2)
    value.backward()
    assert torch.isfinite(model.weight.grad).all() and model.weight.grad.abs().sum() > 0


@pytest.mark.parametrize("kwargs, labels", [
    ({"surrogate": "exponential"}, [1, 0, 0]),
    ({"surrogate": "hinge", "bce_weight": 0.5}, [1, 0, 0]),
    ({"surrogate": "squared_hinge", "bce_weight": 0.5}, [1, 0, 0]),
    ({"surrogate": "squared_hinge"}, np.array([1, 0, 0], dtype=np.int8)),
    ({"surrogate": "squared_hinge"}, np.array([1, 0, 0], dtype=np.int16)),
    ({"surrogate": "squared_hinge"}, np.array([1, 0, 0], dtype=np.float16)),
], ids=["exponential", "hinge+bce", "squared_hinge+bce", "int8", "int16", "float16-labels"])
def test_a_float32_loss_beyond_float32_range_is_inf_on_the_kernel_path(forms, kwargs, labels):
    """Finite float32 scores whose window loss overflows float32 give inf on the table
    kernel's path too (the issue's ``WindowLoss((0, 1), "exponential")(tensor([-50.,
    50., 0.]), tensor([1, 0, 0]))`` raised ``RuntimeError: value cannot be converted
    to type float without overflow``).  The window (0, 0.5) holds the top negative."""
    # exp(100); (1 + 2e19)^2; 1 + 6e38: each beyond float32's 3.4e38
    scale = {"exponential": 50.0, "hinge": 3e38}.get(kwargs["surrogate"], 1e19)
    scores = torch.tensor([-scale, scale, 0.0], requires_grad=True)
    value = WindowLoss((0.0, 0.5), **kwargs)(scores, torch.as_tensor(labels))
    assert value.dtype == torch.float32 and value.item() == math.inf
    value.backward()                 # no error either
