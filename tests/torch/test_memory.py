"""pauc.torch.NegativeMemory: the window of many batches, and the full data's when it holds all."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from pauc._loss._window import window_weights  # noqa: E402
from pauc._validation import empirical_indices  # noqa: E402
from pauc.torch import NegativeMemory, WindowLoss  # noqa: E402


def test_first_in_first_out():
    memory = NegativeMemory(5)
    memory.push(torch.arange(3.0))
    memory.push(torch.arange(3.0, 7.0))
    assert memory.scores.tolist() == [2.0, 3.0, 4.0, 5.0, 6.0]
    memory.clear()
    assert memory.scores.numel() == 0
    assert all(np.isnan(float(v)) for v in memory.thresholds((0.0, 0.1)))


@pytest.mark.parametrize("window", [(0.0, 0.05), (0.02, 0.05), (0.1, 0.37)])
def test_thresholds_equal_the_full_data_ones(window):
    rng = np.random.default_rng(1)
    negatives = np.round(rng.normal(size=1000), 2)
    memory = NegativeMemory(1000)
    for batch in np.array_split(negatives, 7):
        memory.push(torch.as_tensor(batch))
    j_alpha, j_beta = empirical_indices(1000, window)
    ranked = np.sort(negatives)[::-1]
    top, bottom = memory.thresholds(window)
    assert (float(top), float(bottom)) == (ranked[j_alpha], ranked[j_beta - 1])


@pytest.mark.parametrize("name", ["squared_hinge", "exponential", "hinge"])
def test_a_memory_of_every_other_negative_gives_the_full_data_window(name):
    """The batch's negatives weigh what pauc's kernels weigh them in the whole set."""
    rng = np.random.default_rng(2)
    scores = np.round(rng.normal(size=400), 1)
    is_pos = rng.random(400) < 0.3
    batch = np.arange(400) < 60
    loss = WindowLoss((0.02, 0.3), name, memory=10_000)
    loss.memory.push(torch.as_tensor(scores[~batch & ~is_pos]))
    s = torch.tensor(scores[batch], requires_grad=True)
    value = loss(s, torch.as_tensor(is_pos[batch]))
    value.backward()
    # reference: the batch's pairs weighted by the full set's window weights
    n, n_batch = int((~is_pos).sum()), int((~is_pos[batch]).sum())
    j_alpha, j_beta = empirical_indices(n, (0.02, 0.3))
    omega = torch.as_tensor(window_weights(scores, is_pos.view(np.uint8), j_alpha, j_beta))
    t = torch.tensor(scores, requires_grad=True)
    pos, neg = t[batch & is_pos], t[batch & ~is_pos]
    diff = pos[:, None] - neg[None, :]
    pair = {"squared_hinge": torch.clamp(1 - diff, min=0) ** 2,
            "hinge": torch.clamp(1 - diff, min=0),
            "exponential": torch.exp(-diff)}[name]
    expected = (pair * omega[batch & ~is_pos]).sum() / (
        pos.numel() * (j_beta - j_alpha) * n_batch / n)
    expected.backward()
    assert value.item() == pytest.approx(expected.item(), rel=1e-12)
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy()[batch], atol=1e-12)
    # and the batch's negatives went into the memory
    assert loss.memory.scores.numel() == n


def test_evaluation_mode_is_the_exact_loss_and_leaves_the_memory():
    scores = torch.tensor([2.0, 0.5, 1.0, -1.0, 0.2])
    labels = torch.tensor([1, 1, 0, 0, 0])
    loss = WindowLoss((0.0, 0.5), memory=50)
    loss.memory.push(torch.full((40,), 5.0))
    loss.eval()
    assert loss(scores, labels).item() == WindowLoss((0.0, 0.5))(scores, labels).item()
    assert loss.memory.scores.numel() == 40
    loss.train()
    loss(scores, labels)
    assert loss.memory.scores.numel() == 43


@pytest.mark.parametrize("name", ["squared_hinge", "exponential", "hinge"])
def test_a_batch_without_positives_still_fills_the_memory(name):
    """Its loss is zero, but its negatives are data the next batches' window needs."""
    loss = WindowLoss((0.0, 0.1), name, memory=100)
    loss.memory.push(torch.tensor([5.0, 4.0]))
    scores = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    value = loss(scores, torch.tensor([0, 0, 0]))
    assert value.item() == 0.0 and value.requires_grad
    assert loss.memory.scores.tolist() == [5.0, 4.0, 0.5, -1.0, 2.0]
    assert not loss.memory.scores.requires_grad
    # a batch without negatives leaves it as it is
    loss(torch.tensor([1.0, 2.0]), torch.tensor([1, 1]))
    assert loss.memory.scores.numel() == 5


def test_no_batch_negative_in_the_window_gives_zero_in_the_graph():
    loss = WindowLoss((0.0, 0.1), memory=100)
    loss.memory.push(torch.full((100,), 10.0))      # the data's window sits far above
    scores = torch.tensor([1.0, 0.0, -1.0], requires_grad=True)
    value = loss(scores, torch.tensor([1, 0, 0]))
    value.backward()
    assert value.item() == 0.0 and torch.equal(scores.grad, torch.zeros(3))
