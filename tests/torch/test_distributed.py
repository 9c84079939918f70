"""Two gloo processes on the CPU: the global batch's window, DDP's gradient."""

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from _torch_ddp import model_and_batch, run  # noqa: E402
from pauc.torch import WindowLoss  # noqa: E402

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                reason="torch.distributed with gloo is not available")


CONFIGS = [
    {"fpr_range": (0.0, 0.5), "surrogate": "squared_hinge"},
    {"fpr_range": (0.2, 0.7), "surrogate": "exponential", "bce_weight": 0.5},
    {"fpr_range": (0.1, 0.4), "surrogate": "tight"},
    {"fpr_range": (0.1, 0.6), "surrogate": "hinge"},
]


@pytest.fixture(scope="module")
def two_process_results(tmp_path_factory):
    """Every config of CONFIGS on 2 gloo processes (one spawn: it costs seconds)."""
    tmp_path = tmp_path_factory.mktemp("ddp")
    init = f"file://{tmp_path / 'store'}"
    out = tmp_path / "result"
    mp.spawn(run, args=(2, init, SIZES, CONFIGS, str(out)), nprocs=2, join=True)
    return [torch.load(f"{out}.{rank}") for rank in range(2)]


SIZES = [5, 7]                                     # unequal: padded and trimmed


@pytest.mark.parametrize("config", range(len(CONFIGS)),
                         ids=["squared_hinge", "exponential+bce", "tight", "hinge"])
def test_two_processes_equal_one_on_the_concatenated_batch(two_process_results, config):
    loss_kwargs = CONFIGS[config]
    results = [per_rank[config] for per_rank in two_process_results]

    model, x, y = model_and_batch()
    kwargs = dict(loss_kwargs)
    bce_weight = kwargs.pop("bce_weight", 0.0)
    window = WindowLoss(**kwargs, gather=False)(model(x), y)
    window.backward()
    grad = model.weight.grad.clone()
    if bce_weight:
        # the cross-entropy stays a per-process mean, averaged by DDP like any mean loss
        model.zero_grad()
        parts = [slice(0, 5), slice(5, 12)]
        bce = [torch.nn.functional.binary_cross_entropy_with_logits(
            model(x[p])[:, 0], y[p].double()) for p in parts]
        (bce_weight * sum(bce) / 2).backward()
        grad += model.weight.grad
    for rank, result in enumerate(results):
        expected = window.item() + (bce_weight * bce[rank].item() if bce_weight else 0.0)
        assert result["loss"] == pytest.approx(expected, rel=1e-12)
        torch.testing.assert_close(result["grad"], grad, rtol=1e-12, atol=1e-14)
