"""Fixtures of the Dask tests: a scheduler per test module."""

import pytest

dask = pytest.importorskip("dask")

from _chunked_problems import local_cluster  # noqa: E402


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two in-process workers, the default scheduler meanwhile."""
    cluster, client = local_cluster()
    with cluster, client:
        yield client


@pytest.fixture
def synchronous():
    """Dask's synchronous scheduler (the graphs are the same as on a cluster)."""
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="module")
def cluster_client():
    """A LocalCluster of two worker processes, one thread each (the boosting tests:
    XGBoost's collective spans processes)."""
    cluster, client = local_cluster(n_workers=2, processes=True)
    with cluster, client:
        yield client
