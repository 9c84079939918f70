"""Labels of row-chunked data: aligned with the rows, checked, counted once."""

import dask
import numpy as np

from ._collections import aligned_labels, blocks, task

__all__ = ["ChunkedLabels", "label_column", "distinct_labels", "check_label_values",
           "positive_labels", "oracle_labels"]


class ChunkedLabels:
    """Labels of row-chunked data as a persisted boolean dask vector.

    ``is_pos`` (True for the positive class), the per-chunk numbers of
    positives and negatives, and their totals -- computed once, so that the
    searches do not recount them at every call.
    """

    def __init__(self, is_pos, n_pos_per_chunk):
        self.is_pos = is_pos
        self.row_chunks = tuple(int(c) for c in is_pos.chunks[0])
        self.n_pos_per_chunk = np.asarray(n_pos_per_chunk, dtype=np.int64)
        self.n_neg_per_chunk = np.asarray(self.row_chunks, dtype=np.int64) - self.n_pos_per_chunk
        self.n_pos = int(self.n_pos_per_chunk.sum())
        self.n_neg = int(self.n_neg_per_chunk.sum())


def label_column(y, row_chunks, name="y"):
    """``y`` as a numeric 1-d dask array with the row chunks ``row_chunks``."""
    y = aligned_labels(y, row_chunks, name=name)
    if y.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric or boolean for chunked input, got {y.dtype}")
    return y


def _distinct(block):
    return np.unique(block)


def distinct_labels(y):
    """The distinct values of a dask ``y`` (one task per chunk, merged on the client)."""
    return np.unique(np.concatenate(dask.compute(*[task(_distinct)(b) for b in blocks(y)])))


def check_label_values(classes, name="y"):
    """Refuse NaN or infinite labels (the in-memory fits' ``validate_data`` does)."""
    if classes.dtype.kind == "f" and not np.all(np.isfinite(classes)):
        raise ValueError(f"{name} contains NaN or infinity")


def positive_labels(y, positive):
    """:class:`ChunkedLabels` of ``y == positive`` (persisted, counted per chunk)."""
    (is_pos,) = dask.persist(y == positive)
    counts = dask.compute(*[task(np.count_nonzero)(b) for b in blocks(is_pos)])
    return ChunkedLabels(is_pos, counts)


def oracle_labels(y, row_chunks, name="y"):
    """The labels of the public oracles on chunked scores: boolean or 0/1 (True
    or 1 for positives), both classes present, aligned with ``row_chunks``."""
    y = label_column(y, row_chunks, name=name)
    classes = distinct_labels(y)
    check_label_values(classes, name)
    if classes.shape[0] < 2:
        raise ValueError(f"{name} holds only one class ({classes.tolist()}): the oracles need "
                         "both positives and negatives")
    if classes.shape[0] > 2 or (y.dtype.kind != "b" and not np.all(np.isin(classes, (0, 1)))):
        raise ValueError(f"{name} must be boolean or 0/1 (True for positives), got the "
                         f"values {classes[:10].tolist()}")
    return positive_labels(y, classes[1])
