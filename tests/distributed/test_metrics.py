"""The metrics on chunked (dask) scores equal the in-memory ones exactly."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

from _chunked_problems import as_dask, chunked_problems, problem  # noqa: E402

from pauc.metrics import partial_auc, roc_auc, two_way_partial_auc  # noqa: E402
from pauc.svm import AUCSVM, PartialAUCSVM  # noqa: E402


@pytest.mark.slow(seconds=25)
@settings(max_examples=500, deadline=None)
@given(chunked_problems(), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_chunked_metrics_equal_in_memory(problem, a, b):
    scores, labels, chunks = problem
    alpha, beta = min(a, b), max(a, b)
    if beta - alpha < 1e-3:
        beta = min(1.0, alpha + 0.1) if alpha < 0.9 else 1.0
        alpha = min(alpha, beta - 0.05)
    y = labels.astype(np.int64)
    with dask.config.set(scheduler="synchronous"):
        dy, ds = as_dask(chunks, y, scores)
        auc = roc_auc(dy, ds)
        pauc = partial_auc(dy, ds, fpr_range=(alpha, beta))
        mcclish = partial_auc(dy, ds, fpr_range=(alpha, beta), normalize="mcclish")
        # numpy labels with dask scores are split to match
        auc_mixed = roc_auc(y, ds)
        two_way = two_way_partial_auc(dy, ds, max_fpr=beta, min_tpr=alpha)
    assert auc == roc_auc(y, scores) == auc_mixed
    assert two_way == two_way_partial_auc(y, scores, max_fpr=beta, min_tpr=alpha)
    assert pauc == partial_auc(y, scores, fpr_range=(alpha, beta))
    assert mcclish == partial_auc(y, scores, fpr_range=(alpha, beta), normalize="mcclish")


@pytest.mark.slow(seconds=10)
@settings(max_examples=500, deadline=None)
@given(chunked_problems(), st.floats(0.0, 1.0), st.data())
def test_chunked_weighted_metrics_equal_in_memory(problem, beta, data):
    scores, labels, chunks = problem
    beta = max(beta, 0.05)
    weight = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]),
                                         min_size=len(scores), max_size=len(scores))))
    if weight[labels].sum() == 0 or weight[~labels].sum() == 0:
        weight[:] = 1.0
    y = labels.astype(np.int64)
    with dask.config.set(scheduler="synchronous"):
        dy, ds, dw = as_dask(chunks, y, scores, weight)
        auc = roc_auc(dy, ds, sample_weight=dw)
        pauc = partial_auc(dy, ds, fpr_range=(0.0, beta), sample_weight=weight)
    assert auc == roc_auc(y, scores, sample_weight=weight)
    assert pauc == partial_auc(y, scores, fpr_range=(0.0, beta), sample_weight=weight)


def test_chunked_scoring_and_metrics_on_the_cluster(client):
    X, y = problem(n=400, seed=2)
    est = PartialAUCSVM((0.0, 0.2), C=10.0).fit(X, y)
    dX = da.from_array(X, chunks=(150, -1))
    dy = da.from_array(y, chunks=150)
    scores = est.decision_function(dX)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), est.decision_function(X), rtol=1e-12)
    s = est.decision_function(X)
    ds = da.from_array(s, chunks=150)
    assert roc_auc(dy, ds) == roc_auc(y, s)
    assert partial_auc(dy, ds, fpr_range=(0.05, 0.3)) == partial_auc(y, s, fpr_range=(0.05, 0.3))
    labels = est.predict(dX)
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), est.predict(X))
    assert AUCSVM(C=1.0).fit(X, y).score(X, y) == pytest.approx(
        AUCSVM(C=1.0).fit(X, y).score(dX, dy), rel=1e-12)
