"""Two gloo processes on the CPU: the global batch's window, DDP's gradient."""

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from _torch_ddp import model_and_batch, run  # noqa: E402
from pauc.torch import WindowLoss  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                       reason="torch.distributed with gloo is not available"),
    # one worker: the two gloo processes are spawned once (two_process_results), not
    # once per xdist worker
    pytest.mark.xdist_group("torch_ddp"),
]


CONFIGS = [
    {"fpr_range": (0.0, 0.5), "surrogate": "squared_hinge"},
    {"fpr_range": (0.2, 0.7), "surrogate": "exponential", "bce_weight": 0.5},
    {"fpr_range": (0.1, 0.4), "surrogate": "tight"},
    {"fpr_range": (0.1, 0.6), "surrogate": "hinge"},
    {"fpr_range": (0.0, 0.5), "surrogate": "squared_hinge", "bce_weight": 2.0},
    {"fpr_range": (0.1, 0.4), "surrogate": "tight", "bce_weight": 1.0},
]
IDS = ["squared_hinge", "exponential+bce", "tight", "hinge", "squared_hinge+bce", "tight+bce"]


@pytest.fixture(scope="module")
def two_process_results(tmp_path_factory):
    """Every config of CONFIGS on 2 gloo processes (one spawn: it costs seconds)."""
    tmp_path = tmp_path_factory.mktemp("ddp")
    init = f"file://{tmp_path / 'store'}"
    out = tmp_path / "result"
    mp.spawn(run, args=(2, init, SIZES, CONFIGS, str(out)), nprocs=2, join=True)
    return [torch.load(f"{out}.{rank}") for rank in range(2)]


SIZES = [5, 7]                                     # unequal: padded and trimmed


@pytest.mark.parametrize("config", range(len(CONFIGS)), ids=IDS)
def test_two_processes_equal_one_on_the_concatenated_batch(two_process_results, config):
    """Every rank reports the loss of one process on the concatenated batch, and DDP's
    parameter gradient is that process's, the cross-entropy of ``bce_weight`` included
    (it was a per-process mean: the ranks reported different values)."""
    results = [per_rank[config] for per_rank in two_process_results]
    model, x, y = model_and_batch()
    expected = WindowLoss(**CONFIGS[config], gather=False)(model(x), y)
    expected.backward()
    for result in results:
        assert result["loss"] == pytest.approx(expected.item(), rel=1e-12)
        torch.testing.assert_close(result["grad"], model.weight.grad, rtol=1e-12, atol=1e-14)
