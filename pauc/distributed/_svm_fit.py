"""The two hand-overs of the structural SVMs: a design for a chunked ``fit``,
and the lazy scores of ``decision_function``."""

import dask
import dask.array as da
import numpy as np

from ._actors import ActorDesign, distributed_client
from ._chunks import matvec_block
from ._collections import check_known_chunks
from ._graphs import TaskGraphDesign
from ._labels import check_label_values, label_column

__all__ = ["training_design", "linear_scores"]


def training_design(X, y, sample_weight, set_classes):
    """The design of a chunked fit: actors on a ``dask.distributed`` cluster,
    task graphs otherwise.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Row chunks of dense arrays or scipy.sparse matrices; column chunks
        are merged (the searches need whole rows).  Persisted on the workers
        for the whole fit: every iteration reads each block twice, and a lazy
        ``X`` (read from files, generated) would otherwise be rebuilt each
        time.
    y : dask.array.Array or array-like of shape (n_samples,)
        The labels, in ``X``'s row chunks (a numpy ``y`` is split to match).
    sample_weight : None
        Chunked fits take no weights.
    set_classes : callable
        ``set_classes(classes, y)`` checks the distinct labels, sets the
        estimator's ``classes_`` and returns the positive label (the
        estimator's label rule, :meth:`pauc._base.BaseRanker._set_binary_classes`).

    Returns
    -------
    design : ActorDesign or TaskGraphDesign
        With its positives set; the caller closes it.
    """
    if sample_weight is not None:
        raise NotImplementedError("fit does not take sample_weight with chunked (dask) X; "
                                  "pass sample_weight=None")
    if not isinstance(X, da.Array):
        raise TypeError("chunked fit: X must be a dask array when y is one (convert X with "
                        "dask.array.from_array(X, chunks=y.chunks[0] + (-1,)))")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-d, got shape {X.shape}")
    check_known_chunks(X, "X")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    (X,) = dask.persist(X)
    y = label_column(y, tuple(int(c) for c in X.chunks[0]))
    client = distributed_client()
    design = TaskGraphDesign(X, y) if client is None else ActorDesign(X, y, client)
    try:
        classes = design.distinct_labels()
        check_label_values(classes)
        design.set_positive(set_classes(classes, classes))
    except BaseException:
        design.close()
        raise
    return design


def linear_scores(X, coef):
    """``X @ coef`` for a dask ``X`` of row chunks, as a lazy dask vector."""
    coef = np.asarray(coef, dtype=np.float64).ravel()
    if X.ndim != 2 or X.shape[1] != coef.shape[0]:
        raise ValueError(f"X has shape {X.shape}; the model was fitted with {coef.shape[0]} "
                         "features")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    return X.map_blocks(matvec_block, coef, drop_axis=1, dtype=np.float64,
                        meta=np.empty(0, dtype=np.float64))
