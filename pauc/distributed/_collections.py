"""Row-chunked 1-d collections: checks and the reductions every chunked computation uses.

The helpers work on the *blocks* of row-chunked arrays as :func:`dask.delayed`
objects, so that every step of a map-reduce is a task on the workers and only
what the caller computes reaches the client:

* :func:`tree_reduce` -- combine per-chunk results ``fan_in`` at a time, on
  the workers (the client sees only the root);
* :func:`top_values` / :func:`merge_top` -- the ``k`` largest values of a
  chunk, and of two such lists: the top ``k`` of the whole set is the top
  ``k`` of the chunks' top-``k`` lists merged (so Algorithm 2/3's line 2 of
  Narasimhan & Agarwal, the top ``j_beta`` negatives, decomposes over chunks).
"""

import math

import dask
import dask.array as da
import numpy as np

__all__ = ["check_known_chunks", "check_numeric", "aligned_labels", "blocks", "task",
           "tree_reduce", "top_values", "merge_top", "sum_arrays"]


def check_known_chunks(array, name):
    """Raise when ``array``'s row-chunk sizes are unknown (NaN after boolean indexing)."""
    if any(isinstance(c, float) and math.isnan(c) for c in array.chunks[0]):
        raise ValueError(
            f"{name} has unknown chunk sizes (NaN), as after boolean indexing or "
            f"dask.dataframe.to_dask_array(); call {name}.compute_chunk_sizes() (or "
            "to_dask_array(lengths=True)) first: the chunked oracles count rows per chunk")


def check_numeric(X, name="X"):
    """Raise when dask ``X`` is not numeric, naming the offending dtypes.

    A dataframe's columns are checked one by one, before ``to_dask_array``: that
    conversion turns a ``category`` column (or a string one, or a pandas
    nullable ``Int64`` / ``boolean`` one) into an ``object`` array of every
    column, and the refusal of "dtype object" named neither the column nor its
    dtype.  Columns of numpy's boolean, integer and float dtypes pass.
    """
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):     # a dataframe's columns
        bad = [f"{column!r} (dtype {dtype})" for column, dtype in dtypes.items()
               if not (isinstance(dtype, np.dtype) and dtype.kind in "biuf")]
        if bad:
            listed = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
            raise ValueError(
                f"{name} must be numeric, got column{'s' if len(bad) > 1 else ''} {listed}: "
                "convert such columns to numpy numbers first (a category column with "
                ".cat.codes, or .astype('float64') where its values are numbers)")
        return
    dtype = getattr(X, "dtype", None)       # (no dtype: the caller refuses the type)
    if dtype is not None and dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {dtype}")


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
    n = int(sum(row_chunks))
    if isinstance(y, da.Array):
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


def blocks(array):
    """The blocks of a row-chunked array, as delayed objects in row order."""
    return list(array.to_delayed().ravel())


def task(func, nout=None):
    """``func`` as a pure delayed function (equal inputs give one shared task)."""
    return dask.delayed(func, pure=True, nout=nout)


def tree_reduce(combine, items, fan_in=4):
    """Reduce delayed ``items`` with ``combine(*group)`` in a tree of width ``fan_in``.

    Every combine is a task on the workers; the result is one delayed object.
    """
    combine_task = task(combine)
    items = list(items)
    if not items:
        raise ValueError("nothing to reduce")
    while len(items) > 1:
        items = [combine_task(*items[i:i + fan_in]) if len(items[i:i + fan_in]) > 1
                 else items[i] for i in range(0, len(items), fan_in)]
    return items[0]


def top_values(values, k):
    """The ``min(k, len(values))`` largest values, sorted ascending (O(n) selection;
    float32 kept, anything else as float64)."""
    values = np.asarray(values)
    if values.dtype != np.float32:
        values = values.astype(np.float64, copy=False)
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
