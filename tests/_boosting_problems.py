"""The distributed boosting tests' problem: a nonlinear label, rows sorted by the
feature that drives it and cut into row chunks (each worker holds a different top)."""

import numpy as np


def nonlinear(n, seed=0, d=6):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d).astype(np.float32)
    y = (X[:, 0] + np.sin(2 * X[:, 1]) + X[:, 2] * X[:, 3] + 0.5 * rng.randn(n) > 1.3)
    return X, y.astype(np.int64)


def sorted_chunks(X, y, parts=2):
    """``(X, y, dX, dy)``: the rows sorted by the label-driving feature, and as dask
    arrays of ``parts`` row chunks (adversarial)."""
    import dask.array as da
    order = np.argsort(X[:, 0], kind="stable")
    X, y = X[order], y[order]
    rows = -(-X.shape[0] // parts)
    return X, y, da.from_array(X, chunks=(rows, -1)), da.from_array(y, chunks=(rows,))


def sorted_problem(n=3000, seed=0):
    """Labels driven by feature 0, rows sorted by it: the top of the list is on one side."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 4)
    y = (X[:, 0] + 0.7 * rng.randn(n) > 1.0).astype(np.float64)
    order = np.argsort(X[:, 0], kind="stable")
    return X[order], y[order]


def on_workers(client, *arrays, parts=2):
    """Each array as a dask array whose consecutive row blocks sit on different workers."""
    import dask.array as da
    workers = sorted(client.scheduler_info()["workers"])
    out = []
    for a in arrays:
        blocks = np.array_split(a, parts)
        # hash=False: a new key per call (equal arrays scattered by two tests would
        # share a key, and the first test's release could drop the second's data)
        futures = [client.scatter(b, workers=[workers[k % len(workers)]], hash=False)
                   for k, b in enumerate(blocks)]
        out.append(da.concatenate([da.from_delayed(f, shape=b.shape, dtype=b.dtype)
                                   for f, b in zip(futures, blocks)]))
    return out
