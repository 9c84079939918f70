"""Chunked fits of the structural SVMs equal the in-memory fits (coefficients to
1e-6, same iterations, same threshold), on clusters and as task graphs."""

import numpy as np
import pytest
import scipy.sparse as sp

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

from _chunked_problems import (ESTIMATORS, UNEVEN, actors_left, assert_same_fit,  # noqa: E402
                               local_cluster, problem, sorted_by_label_chunks)

from pauc.distributed._actors import bytes_received  # noqa: E402
from pauc.svm import AUCSVM, PartialAUCSVM  # noqa: E402


@pytest.mark.parametrize("make", ESTIMATORS)
def test_chunked_fit_equals_in_memory(client, make):
    X, y = problem()
    expected = make().fit(X, y)
    fitted = make().fit(da.from_array(X, chunks=(UNEVEN, -1)), da.from_array(y, chunks=UNEVEN))
    assert_same_fit(fitted, expected)
    assert fitted.n_iter_ == expected.n_iter_
    np.testing.assert_array_equal(fitted.classes_, expected.classes_)
    if isinstance(expected, PartialAUCSVM):
        assert (fitted.j_alpha_, fitted.j_beta_) == (expected.j_alpha_, expected.j_beta_)
        if expected.dc_history_ is not None:
            np.testing.assert_allclose(fitted.dc_history_, expected.dc_history_, rtol=1e-9)


@pytest.mark.parametrize("make", [ESTIMATORS[0], ESTIMATORS[2]])
def test_chunked_fit_one_class_chunks_single_chunk_and_sparse(client, make):
    X, y = problem(seed=1)
    Xs, ys, chunks = sorted_by_label_chunks(X, y)
    expected = make().fit(Xs, ys)
    for dX, dy in [
            (da.from_array(Xs, chunks=(chunks, -1)), da.from_array(ys, chunks=chunks)),
            (da.from_array(Xs, chunks=-1), da.from_array(ys, chunks=-1)),
            # blocks of scipy.sparse CSR, and numpy labels split to match
            (da.from_array(Xs, chunks=(chunks, -1)).map_blocks(sp.csr_matrix), ys)]:
        fitted = make().fit(dX, dy)
        np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6,
                                   atol=1e-6 * np.abs(expected.coef_).max())


def test_chunked_fit_sends_less_than_one_float_per_row_to_the_client(client):
    """Per iteration, PartialAUCSVM((0, 0.1)) on 10 chunks receives only O(d) numbers."""
    X, y = problem(n=4000, d=5, seed=3)
    received = []
    gather = client.gather

    def counting_gather(futures, *args, **kwargs):
        result = gather(futures, *args, **kwargs)
        received.append(dask.sizeof.sizeof(result))
        return result

    dX = da.from_array(X, chunks=(400, -1))
    dy = da.from_array(y, chunks=400)
    est = PartialAUCSVM((0.0, 0.1), C=10.0)
    client.gather = counting_gather
    from_actors = bytes_received()
    try:
        est.fit(dX, dy)
    finally:
        client.gather = gather
    # task results (labels, threshold) and the actors' replies (iterations)
    received.append(bytes_received() - from_actors)
    assert received[-1] > 0
    per_iteration = sum(received) / est.n_iter_
    assert per_iteration / (8 * X.shape[0]) < 0.1


def test_chunked_fit_errors(client):
    X, y = problem(n=100)
    dX = da.from_array(X, chunks=(50, -1))
    dy = da.from_array(y, chunks=50)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        AUCSVM().fit(dX[dX[:, 0] > 0], dy[dX[:, 0] > 0])
    with pytest.raises(ValueError, match="not aligned"):
        AUCSVM().fit(dX, dy.rechunk(30))
    with pytest.raises(ValueError, match="rows"):
        AUCSVM().fit(dX, y[:-1])
    with pytest.raises(NotImplementedError, match="naive"):
        PartialAUCSVM(surrogate="naive").fit(dX, dy)
    with pytest.raises(NotImplementedError, match="sample_weight"):
        AUCSVM().fit(dX, dy, sample_weight=np.ones(100))
    with pytest.raises(ValueError, match="one class"):
        AUCSVM().fit(dX, da.zeros(100, chunks=50, dtype=np.int64))
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        AUCSVM().fit(da.from_array(bad, chunks=(50, -1)), dy)
    assert actors_left(client) == 0


@pytest.mark.parametrize("make", [ESTIMATORS[0], ESTIMATORS[3]])
def test_chunked_fit_without_a_distributed_client_runs_as_task_graphs(make):
    """No distributed scheduler: the iterations run as task graphs, same model."""
    X, y = problem(seed=6)
    expected = make().fit(X, y)
    with dask.config.set(scheduler="synchronous"):
        fitted = make().fit(da.from_array(X, chunks=(UNEVEN, -1)),
                            da.from_array(y, chunks=UNEVEN))
    assert_same_fit(fitted, expected)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_chunked_fit_on_three_workers(make):
    """More than one peer per actor, and more chunks than workers."""
    X, y = problem(n=400, seed=10)
    expected = make().fit(X, y)
    chunks = (50, 90, 60, 120, 80)
    cluster, three = local_cluster(n_workers=3)
    with cluster, three:
        fitted = make().fit(da.from_array(X, chunks=(chunks, -1)),
                            da.from_array(y, chunks=chunks))
        assert actors_left(three) == 0
    assert_same_fit(fitted, expected)


def test_chunked_fit_on_worker_processes():
    """The actors' messages between processes (serialised), and their release there."""
    X, y = problem(n=300, seed=11)
    expected = PartialAUCSVM((0.05, 0.3), C=10.0).fit(X, y)
    cluster, processes = local_cluster(processes=True)
    with cluster, processes:
        fitted = PartialAUCSVM((0.05, 0.3), C=10.0).fit(
            da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100))
        assert actors_left(processes) == 0
    assert_same_fit(fitted, expected)
