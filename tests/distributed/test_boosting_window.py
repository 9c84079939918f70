"""The exact global window of boosting over row partitions (issue 26).

In-process: the distributed selection, window and exponential sums on many
partitions (workers as threads, :mod:`_threaded_collective`) against the
single-process kernels of :mod:`pauc._loss._window` on the
concatenated scores -- ties, empty partitions, partitions of one class.
"""

import sys
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from _threaded_collective import run_workers  # noqa: E402

from pauc._loss import _window as _window_losses  # noqa: E402
from pauc.distributed._global_window import (exponential_derivatives, global_counts,  # noqa: E402
                                             global_window)
from pauc.distributed._rank_selection import key_values, order_keys, select_ranks  # noqa: E402
from pauc.objectives import PAIRWISE_CURVATURE  # noqa: E402


def window_omega(neg_scores, window):
    """The tie rule restated in numpy (the kernels share pauc/_loss/_window.pxd):
    ``omega`` of each negative score: 1 strictly inside the window, the border's
    share at a border, 0 outside (a negative at ``v_top == v_bot`` takes ``w_top``,
    as in :mod:`pauc._loss._window`)."""
    z = np.asarray(neg_scores, dtype=np.float64)
    omega = ((z < window.v_top) & (z > window.v_bot)).astype(np.float64)
    omega[z == window.v_bot] = window.w_bot
    omega[z == window.v_top] = window.w_top
    return omega


@st.composite
def partitioned(draw, max_n=40):
    n = draw(st.integers(2, max_n))
    tied = draw(st.booleans())
    if tied:
        scores = np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)),
                          dtype=np.float64) / 2.0
    else:
        scores = np.array(draw(st.lists(st.floats(-50, 50), min_size=n, max_size=n)))
    labels = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if labels.all() or not labels.any():
        labels[0] = not labels[0]
    n_cuts = draw(st.integers(0, 4))
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=n_cuts, max_size=n_cuts)))
    alpha = draw(st.sampled_from([0.0, 0.0, 0.1, 0.3]))
    beta = draw(st.sampled_from([0.05, 0.2, 0.5, 1.0]))
    if beta <= alpha:
        alpha, beta = 0.0, 1.0
    return scores, labels, np.split(np.arange(n), cuts), (alpha, beta)


def _distributed(scores, labels, parts, fpr_range, bins):
    n = scores.shape[0]

    def worker(comm, rows):
        counts = global_counts(labels[rows], fpr_range, comm)
        window = global_window(scores[rows][~labels[rows]], counts, comm, bins)
        grad, hess = np.zeros(rows.shape[0]), np.zeros(rows.shape[0])
        sums = exponential_derivatives(scores[rows], labels[rows], counts, window, comm,
                                       grad, hess, scale=float(n), normalize=True,
                                       curvature=PAIRWISE_CURVATURE)
        return counts, window, grad, hess, sums

    return run_workers(worker, [(rows,) for rows in parts])


def test_order_keys_are_monotone_and_invertible():
    values = np.array([-np.inf, -1e300, -2.0, -1e-310, -0.0, 0.0, 1e-310, 1.0, 3.5, np.inf])
    keys = order_keys(values)
    assert np.all(np.diff(keys.astype(object)) >= 0)
    assert keys[4] == keys[5]                        # -0.0 and 0.0 are one value
    np.testing.assert_array_equal(key_values(keys), values + 0.0)


@settings(max_examples=150, deadline=None)
@given(partitioned(), st.sampled_from([2, 4, 1024]))
def test_global_window_equals_single_process(problem, bins):
    scores, labels, parts, fpr_range = problem
    results = _distributed(scores, labels, parts, fpr_range, bins)
    counts, window = results[0][:2]
    # every worker holds the same window
    for r in results[1:]:
        assert r[1] == window
    neg = np.sort(scores[~labels])[::-1]
    assert window.v_top == neg[counts.j_alpha]
    assert window.v_bot == neg[counts.j_beta - 1]
    assert window.above_bot == np.count_nonzero(neg > window.v_bot)
    assert window.tied_bot == np.count_nonzero(neg == window.v_bot)
    omega = _window_losses.window_weights(scores, labels.view(np.uint8), counts.j_alpha,
                                          counts.j_beta)
    local = np.zeros(scores.shape[0])
    for rows, r in zip(parts, results):
        local[rows[~labels[rows]]] = window_omega(scores[rows][~labels[rows]], r[1])
    np.testing.assert_array_equal(local, omega)
    # the gradients, from the global sums, against the single-process kernel
    grad, hess = np.zeros(scores.shape[0]), np.zeros(scores.shape[0])
    value = _window_losses.exponential(scores, labels.view(np.uint8), int(labels.sum()),
                                       counts.j_alpha, counts.j_beta, grad, hess,
                                       scale=float(scores.shape[0]), normalize=True,
                                       curvature=PAIRWISE_CURVATURE)
    np.testing.assert_allclose(np.concatenate([r[2] for r in results]), grad[np.concatenate(parts)],
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(np.concatenate([r[3] for r in results]), hess[np.concatenate(parts)],
                               rtol=1e-12, atol=0)
    assert results[0][4].value == pytest.approx(value, rel=1e-12)


def test_selection_rounds_are_few_and_traffic_is_bins():
    rng = np.random.RandomState(0)
    values = rng.randn(200_000)
    parts = np.array_split(values, 2)

    def worker(comm, part):
        out = select_ranks(part, [1, 1000, 20_000], values.shape[0], comm, 1024)
        return out, comm.bytes_sent

    (selected, rounds), sent = run_workers(worker, [(p,) for p in parts])[0]
    ordered = np.sort(values)[::-1]
    assert [s.value for s in selected] == [ordered[0], ordered[999], ordered[19_999]]
    assert rounds <= 4
    # per round at most 3 targets x (1024 counts + 2 keys), 8 bytes each (a target
    # found early drops out), plus the first max: no term grows with the rows
    assert 16 + (1024 + 2) * 8 * rounds <= sent <= 16 + rounds * 3 * (1024 + 2) * 8


def test_rank_outside_raises():
    with pytest.raises(ValueError, match="outside"):
        run_workers(lambda comm: select_ranks(np.zeros(3), [4], 3, comm), [()])


def test_distributed_fit_without_a_client_is_a_clear_error():
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("dask.distributed")
    from pauc.gbm import GradientBoostingRanker
    if distributed.client._get_global_client() is not None:
        pytest.skip("a default client exists in this process")
    X = da.from_array(np.random.RandomState(0).randn(300, 3), chunks=(150, 3))
    y = da.from_array(np.arange(300) % 2, chunks=150)
    with pytest.raises(ValueError, match="needs a dask.distributed Client"):
        GradientBoostingRanker(engine="xgboost").fit(X, y)


class _LocalDMatrix:
    """The three methods of an XGBoost DMatrix the objective reads."""

    def __init__(self, labels, weight=None):
        self.labels = np.asarray(labels, dtype=np.float32)
        self.weight = np.empty(0) if weight is None else weight

    def get_label(self):
        return self.labels

    def get_weight(self):
        return self.weight

    def num_row(self):
        return self.labels.shape[0]

    class handle:       # noqa: N801 - XGBoost's attribute
        value = 1


@pytest.mark.parametrize("loss, weight", [("exponential", 0.0), ("exponential", 0.5),
                                          ("logloss", 0.0)])
def test_one_process_objective_equals_the_kernels(loss, weight):
    from pauc.distributed._xgboost_window import GlobalWindowObjective
    from pauc.objectives import window_objective
    rng = np.random.RandomState(0)
    y = rng.rand(3000) < 0.2
    predt = (rng.randn(3000) * 3).astype(np.float32)
    predt[:500] = np.round(predt[:500])                     # ties at the borders
    got_g, got_h = GlobalWindowObjective((0.02, 0.1), loss, logloss_weight=weight)(
        predt, _LocalDMatrix(y))
    g, h = window_objective(y, (0.02, 0.1), loss, logloss_weight=weight).gradient(predt)
    # the window loss alone is returned in float32 (XGBoost's precision): the same
    # float64 value up to summation order, rounded once
    rtol = 2e-7 if got_g.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got_g, g, rtol=rtol, atol=1e-300)
    np.testing.assert_allclose(got_h, h, rtol=rtol, atol=1e-300)


def test_objective_refuses_weights_and_other_labels():
    from pauc.distributed._xgboost_window import GlobalWindowMetric, GlobalWindowObjective
    y = np.arange(20) % 2
    with pytest.raises(NotImplementedError, match="sample weights"):
        GlobalWindowObjective()(np.zeros(20, np.float32), _LocalDMatrix(y, np.ones(20)))
    with pytest.raises(NotImplementedError, match="sample weights"):
        GlobalWindowMetric([(0.0, 0.5)])(np.zeros(20, np.float32), _LocalDMatrix(y, np.ones(20)))
    with pytest.raises(ValueError, match="labels 0 / 1"):
        GlobalWindowObjective()(np.zeros(20, np.float32), _LocalDMatrix(y * 2))
    with pytest.raises(ValueError, match=r"several workers.*the losses that can: "
                                         r"\('exponential', 'logloss'\)"):
        GlobalWindowObjective(loss="squared_hinge")
    with pytest.raises(ValueError, match="one of"):
        GlobalWindowObjective(loss="nope")
