"""pauc.torch's window borders: exact on every order and dtype, never slow on sorted scores."""

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from pauc.torch._window import window_borders  # noqa: E402

ORDERS = {
    "shuffled": lambda x, rng: x[rng.permutation(len(x))],
    "ascending": lambda x, rng: np.sort(x),
    "descending": lambda x, rng: np.sort(x)[::-1].copy(),
    # organ pipe: ascending then descending, a classic quickselect adversary
    "organ pipe": lambda x, rng: np.concatenate([np.sort(x)[::2], np.sort(x)[1::2][::-1]]),
}
DTYPES = [torch.float64, torch.float32, torch.float16, torch.bfloat16]


@settings(max_examples=200, deadline=None)
@given(data=st.data(), order=st.sampled_from(sorted(ORDERS)),
       dtype=st.sampled_from(DTYPES))
def test_borders_are_the_sorted_scores_at_the_window_positions(data, order, dtype):
    r = data.draw(st.integers(1, 60))
    # few distinct values: ties at the borders
    scores = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=r, max_size=r)),
                      dtype=np.float64) / 4
    j_beta = data.draw(st.integers(1, r))
    j_alpha = data.draw(st.integers(0, j_beta - 1))
    reference = torch.as_tensor(ORDERS[order](scores, np.random.default_rng(r)), dtype=dtype)
    top, bottom = window_borders(reference, j_alpha, j_beta)
    ranked = np.sort(scores)[::-1]                 # exact in every dtype (quarters)
    assert top.dtype == bottom.dtype == dtype and top.dim() == bottom.dim() == 0
    assert (float(top), float(bottom)) == (ranked[j_alpha], ranked[j_beta - 1])


def best_time(function, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def test_scores_in_descending_order_cost_less_than_a_sort():
    """``torch.kthvalue`` on the CPU took 0.23-0.39 s on 10^5 scores in descending order
    against 0.002-0.016 s shuffled (17 s against 0.03 s at 10^6; quadratic).  The yardstick is a
    full sort of the shuffled scores, O(r log r), which a selection must beat on any
    order; the bound (4 sorts, best of 5 runs) is loose: a quadratic selection misses it
    by a factor of ten or more, a loaded machine does not."""
    rng = np.random.default_rng(0)
    scores = rng.normal(size=200_000)
    n = scores.shape[0]
    shuffled = torch.as_tensor(ORDERS["shuffled"](scores, rng), dtype=torch.float32)
    reference = torch.as_tensor(ORDERS["descending"](scores, rng), dtype=torch.float32)
    sort = best_time(lambda: torch.sort(shuffled))
    select = best_time(lambda: window_borders(reference, n // 100, n // 10))
    assert select < 4 * sort, (select, sort)
