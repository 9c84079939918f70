"""Shared pieces of the Dask code paths (chunked fits, chunked metrics).

Nothing here imports :mod:`dask` at module level: ``import pauc`` must work
without it, and :func:`is_dask_array` answers False when dask was never
imported (no object can then be a dask array).

The helpers work on the *blocks* of row-chunked 1-d arrays as
:func:`dask.delayed` objects, so that every step of a map-reduce is a task on
the workers and only what the caller computes reaches the client:

* :func:`tree_reduce` -- combine per-chunk results ``fan_in`` at a time, on
  the workers (the client sees only the root);
* :func:`top_values` / :func:`merge_top` -- the ``k`` largest values of a
  chunk, and of two such lists: the top ``k`` of the whole set is the top
  ``k`` of the chunks' top-``k`` lists merged (DESIGN.md, "Beyond one machine").
"""

import math
import sys

import numpy as np

__all__ = ["is_dask_array", "require_dask", "check_known_chunks", "aligned_labels",
           "tree_reduce", "top_values", "merge_top", "sum_arrays"]


def is_dask_array(obj):
    """True for a :class:`dask.array.Array` (without importing dask)."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(obj, module.Array)


def require_dask():
    """Import and return ``(dask, dask.array)`` with a clear error when missing."""
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - dask is in the test extra
        raise ImportError("chunked (dask) input needs dask: pip install 'pauc[dask]'") from exc
    return dask, da


def check_known_chunks(array, name):
    """Raise when ``array``'s row-chunk sizes are unknown (NaN after boolean indexing)."""
    if any(isinstance(c, float) and math.isnan(c) for c in array.chunks[0]):
        raise ValueError(
            f"{name} has unknown chunk sizes (NaN), as after boolean indexing or "
            f"dask.dataframe.to_dask_array(); call {name}.compute_chunk_sizes() (or "
            "to_dask_array(lengths=True)) first: the chunked oracles count rows per chunk")


def _column(y, name, n, reference):
    """``y`` as a 1-d array of ``n`` rows (a single column is accepted)."""
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"{name} has {y.shape[0]} rows but {reference} has {n}")
    return y


def aligned_labels(y, row_chunks, name="y", reference="X"):
    """``y`` as a 1-d dask array with exactly the row chunks ``row_chunks``.

    A numpy ``y`` is split to match; a dask ``y`` must already be aligned
    (rechunking it silently would move data between workers on every call).
    """
    _, da = require_dask()
    n = int(sum(row_chunks))
    if is_dask_array(y):
        check_known_chunks(y, name)
        y = _column(y, name, n, reference)
        if tuple(y.chunks[0]) != tuple(row_chunks):
            raise ValueError(
                f"{name} is not aligned with {reference}: its row chunks {y.chunks[0]} differ "
                f"from {reference}'s {tuple(row_chunks)}; use "
                f"{name}.rechunk({{0: {reference}.chunks[0]}})")
        return y
    y = _column(np.asarray(y), name, n, reference)
    return da.from_array(y, chunks=(tuple(row_chunks),))


def tree_reduce(combine, items, fan_in=4):
    """Reduce delayed ``items`` with ``combine(*group)`` in a tree of width ``fan_in``.

    Every combine is a task on the workers; the result is one delayed object.
    """
    dask, _ = require_dask()
    combine_task = dask.delayed(combine, pure=True)
    items = list(items)
    if not items:
        raise ValueError("nothing to reduce")
    while len(items) > 1:
        items = [combine_task(*items[i:i + fan_in]) if len(items[i:i + fan_in]) > 1
                 else items[i] for i in range(0, len(items), fan_in)]
    return items[0]


def top_values(values, k):
    """The ``min(k, len(values))`` largest values, sorted ascending (O(n) selection)."""
    values = np.asarray(values, dtype=np.float64)
    if values.shape[0] > k:
        values = np.partition(values, values.shape[0] - k)[values.shape[0] - k:]
    return np.sort(values)


def merge_top(k, *lists):
    """Top ``k`` of the union of ascending top lists, ascending."""
    return top_values(np.concatenate(lists), k)


def sum_arrays(*arrays):
    """Element-wise sum of equally shaped count arrays (exact for integers)."""
    total = arrays[0].copy()
    for array in arrays[1:]:
        total += array
    return total
