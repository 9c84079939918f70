"""Loaders for svmlight files: the bundled a9a split and any binary svmlight file."""

from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from .._validation import check_pos_label

_DATA = Path(__file__).parent / "data"
A9A_N_FEATURES = 123


def load_svmlight(path, *, n_features=None, pos_label=None, dtype=np.float64):
    """Load a binary svmlight/libsvm file as ``(X, y)`` with ``y`` in {0, 1}.

    A thin wrapper over :func:`sklearn.datasets.load_svmlight_file` (it reads
    ``.gz`` and ``.bz2`` files too) that checks the labels are binary.

    Parameters
    ----------
    path : str or path-like
    n_features : int, default=None
        Number of features; give it when a file may not use the last ones.
    pos_label : label, default=None
        The label of the positive class.  None: the package's rule (labels
        {0, 1} or {-1, 1}, and 1 is positive; any other label set, {-1, 0}
        included, must name it).
    dtype : numpy dtype, default=float64

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
    y : int array of shape (n_samples,), 1 for positives and 0 for negatives
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such svmlight file: {path}")
    X, labels = load_svmlight_file(str(path), n_features=n_features, dtype=dtype)
    classes = np.unique(labels)
    if classes.shape[0] != 2:
        raise ValueError(
            f"{path} must hold exactly two classes; its labels are {classes[:10].tolist()}"
        )
    try:
        pos_label = check_pos_label(classes, pos_label)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    # load_svmlight_file gives int64 indices whatever the size; scipy's
    # (data, indices, indptr) constructor takes the smallest index type that
    # holds them.  liblinear-based estimators (LinearSVC, LogisticRegression
    # with solver="liblinear") refuse int64 indices, and scipy's CSR transpose
    # scans them (measured: docs/developer/measurements.rst, '``X.T`` made once').
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)
    return X, (labels == pos_label).astype(np.int64)


def load_a9a(*, dtype=np.float64):
    """The a9a (UCI Adult) training and test split shipped with pauc.

    32,561 training and 16,281 test rows, 123 binary features, about 24 %
    positives (income > 50K).  Source and licence: ``data/LICENSE.txt`` beside
    this module.

    Returns
    -------
    X_train, y_train, X_test, y_test
        ``X_*`` are CSR matrices, ``y_*`` are 0/1 integer arrays.
    """
    X_train, y_train = load_svmlight(_DATA / "a9a.trn.bz2", n_features=A9A_N_FEATURES, dtype=dtype)
    X_test, y_test = load_svmlight(_DATA / "a9a.tst.bz2", n_features=A9A_N_FEATURES, dtype=dtype)
    return X_train, y_train, X_test, y_test
