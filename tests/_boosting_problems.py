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
