"""Label-independent coins that are a deterministic function of x (Lemma 4 of Long & Servedio).

Lemma 4's classifier ``g(x, r)`` flips a coin ``r`` on one side of its
threshold.  MartiRank routes examples by ``g``, and Theorem 8 needs the route
to depend on ``x`` only, never on the label.  Drawing ``r`` from a seeded hash
of ``(x, node)`` keeps that property and makes the fitted program a fixed
function of ``x``: training and prediction see the same coin for the same row
(Lemma 4's randomized classifier, as the paper states it).

The row key XORs one 64-bit mix per non-zero entry ``(column, value)``, so a
row hashes the same whether it comes from a dense array or a sparse matrix,
and whatever the batch it sits in.
"""

import numpy as np
import scipy.sparse as sp

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ROW_CHUNK = 8192     # bounds the temporary (chunk × n_features) uint64 array


def _mix(z):
    """splitmix64 finaliser on a uint64 array (wrap-around arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _entry_hash(cols, values):
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    h = _mix(bits ^ _mix(cols.astype(np.uint64) * _GOLDEN + _GOLDEN))
    h[values == 0] = 0          # zeros (and -0.0) are "not stored"
    return h


def row_keys(X):
    """One uint64 key per row of a dense array or sparse matrix."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.sum_duplicates()
        n = X.shape[0]
        keys = np.zeros(n, dtype=np.uint64)
        if X.nnz == 0:
            return keys
        h = _entry_hash(X.indices, X.data)
        nonempty = np.diff(X.indptr) > 0
        starts = X.indptr[:-1][nonempty]
        keys[nonempty] = np.bitwise_xor.reduceat(h, starts)
        return keys
    X = np.asarray(X, dtype=np.float64)
    n, q = X.shape
    keys = np.zeros(n, dtype=np.uint64)
    cols = np.arange(q, dtype=np.uint64)[None, :]
    for start in range(0, n, _ROW_CHUNK):
        block = X[start:start + _ROW_CHUNK]
        keys[start:start + block.shape[0]] = np.bitwise_xor.reduce(
            _entry_hash(np.broadcast_to(cols, block.shape), block), axis=1)
    return keys


def coins(keys, node, seed):
    """Uniform [0, 1) numbers, one per key, independent across ``node`` and ``seed``."""
    # Array arithmetic wraps silently (scalar uint64 arithmetic would warn).
    salt = _mix(np.array([seed], dtype=np.uint64)
                ^ _mix(np.array([node], dtype=np.uint64) * _GOLDEN + _GOLDEN))
    return (_mix(keys ^ salt) >> np.uint64(11)).astype(np.float64) * (2.0 ** -53)
