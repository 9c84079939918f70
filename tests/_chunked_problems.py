"""Test-only helpers of tests/distributed: small problems split into row chunks.

Exactness is checked where it is claimed: chunked searches, designs and
metrics against the in-memory ones on tie-heavy scores and uneven chunks
(hypothesis), run with dask's synchronous scheduler or on a real
``dask.distributed.LocalCluster`` of in-process workers.
"""

import gc
import time

import numpy as np
import pytest
from hypothesis import strategies as st

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

from pauc.svm import AUCSVM, PartialAUCSVM  # noqa: E402


@st.composite
def chunked_problems(draw, max_n=24):
    """Scores on a coarse grid (many ties, also across the +-1 margin), labels
    with both classes, and a row split into chunks of uneven sizes (one chunk,
    chunks without positives or without negatives all occur)."""
    n = draw(st.integers(2, max_n))
    scores = np.array(draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n)),
                      dtype=np.float64) / 2.0
    labels = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if labels.all() or not labels.any():
        labels[draw(st.integers(0, n - 1))] ^= True
    n_cuts = draw(st.integers(0, min(4, n - 1)))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), min_size=n_cuts, max_size=n_cuts)))
    chunks = tuple(int(c) for c in np.diff([0, *cuts, n]))
    return scores, labels, chunks


def as_dask(chunks, *arrays):
    """The arrays as dask vectors with the row chunks ``chunks``."""
    return [da.from_array(a, chunks=(chunks,)) for a in arrays]


def problem(n=500, d=6, seed=0):
    """A linear ranking problem ``(X, y)`` with labels 0/1."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = (X @ rng.randn(d) + rng.randn(n) > 0.8).astype(np.int64)
    return X, y


UNEVEN = (37, 113, 150, 200)


def sorted_by_label_chunks(X, y):
    """Rows ordered so that the first chunk holds only negatives and the last only positives."""
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    n_neg = int((y == 0).sum())
    chunks = (n_neg - 40, 80, X.shape[0] - n_neg - 40)
    return X, y, chunks


ESTIMATORS = [
    pytest.param(lambda: AUCSVM(C=10.0), id="auc"),
    pytest.param(lambda: PartialAUCSVM((0.0, 0.2), C=10.0), id="tight-0-beta"),
    pytest.param(lambda: PartialAUCSVM((0.05, 0.3), C=10.0), id="tight-alpha-beta"),
    pytest.param(lambda: PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="hinge"),
                 id="hinge-alpha-beta"),
]


def assert_same_fit(fitted, expected):
    """A chunked fit against the in-memory one: coefficients to 1e-6, the threshold."""
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6,
                               atol=1e-6 * np.abs(expected.coef_).max())
    assert fitted.threshold_ == pytest.approx(expected.threshold_, rel=1e-9, abs=1e-12)


def local_cluster(n_workers=2, processes=False):
    """A LocalCluster and its Client (in-process workers: starts in well under a
    second and needs no spawned interpreters; the graphs and transfers are real).

    No fixed port: the scheduler's HTTP server (health, metrics) listens even
    without a dashboard, by default on 8787, which the cluster of a test on another
    xdist worker may hold (the scheduler then warns and takes another)."""
    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                       processes=processes, dashboard_address=None,
                                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    return cluster, distributed.Client(cluster)


def actors_left(client, timeout=10.0):
    """Actors still held by the workers, once their release (asynchronous:
    the scheduler forgets the keys, then the workers drop them) has settled."""
    deadline = time.monotonic() + timeout
    while True:
        gc.collect()
        left = sum(len(actors) for actors in
                   client.run(lambda dask_worker: list(dask_worker.state.actors)).values())
        if left == 0 or time.monotonic() > deadline:
            return left
        time.sleep(0.05)
