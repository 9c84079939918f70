"""A network trained with WindowLoss reaches the benchmark's row (bench/bench_torch.py)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from pauc.metrics import partial_auc  # noqa: E402
from pauc.torch import WindowLoss  # noqa: E402

WINDOW = (0.0, 0.05)


def small_cnn():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 2 * 2, 1))


@pytest.mark.slow(seconds=30)
def test_pauc_trained_cnn_reaches_the_benchmark_row_on_digits():
    """Digits, the 8s as positives, the benchmark's CNN and budget (20 epochs, batches of
    128, Adam 1e-3), seed 0: the bench's test pAUC in [0, 0.05] is 0.97 for WindowLoss,
    0.93 for LibAUC's best and 0.78 for BCE (means of 3 seeds); here one seed (plain
    shuffled batches) must clear 0.85 and beat BCE by 0.1 (it gives 0.96 and 0.80)."""
    torch.set_num_threads(1)
    data = load_digits()
    X = torch.as_tensor((data.images / 16.0)[:, None], dtype=torch.float32)
    y = torch.as_tensor(data.target == 8, dtype=torch.float32)
    train, test = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y.numpy(),
                                   random_state=0)
    results = {}
    for name, loss_fn in [("bce", torch.nn.BCEWithLogitsLoss()), ("pauc", WindowLoss(WINDOW))]:
        torch.manual_seed(0)
        model = small_cnn()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        rng = np.random.default_rng(0)
        for _ in range(20):
            for rows in np.array_split(rng.permutation(train), 10):
                optimizer.zero_grad()
                loss_fn(model(X[rows])[:, 0], y[rows]).backward()
                optimizer.step()
        with torch.no_grad():
            results[name] = partial_auc(y[test].numpy(), model(X[test])[:, 0].numpy(),
                                        fpr_range=WINDOW)
    assert results["pauc"] >= 0.85
    assert results["pauc"] >= results["bce"] + 0.1
