"""Binary data in a CSV file with a header row."""

import csv
from pathlib import Path

import numpy as np

from .._validation import check_pos_label


def load_csv(path, *, label_column, pos_label=None, delimiter=","):
    """Load ``(X, y)`` from a CSV file whose header names the columns.

    Every column but ``label_column`` must be numeric and becomes a feature.

    Parameters
    ----------
    path : str or path-like
    label_column : str
        Name of the column holding the two class labels.
    pos_label : str, default=None
        The positive label as written in the file; by default the labels must
        be 0/1 or -1/1 and the positive class is 1.
    delimiter : str, default=","

    Returns
    -------
    X : float64 array of shape (n_samples, n_features)
    y : int array of shape (n_samples,), 1 for positives and 0 for negatives
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such CSV file: {path}")
    with path.open(newline="") as f:
        reader = csv.reader(f, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            raise ValueError(f"{path} is empty")
        header = [h.strip() for h in header]
        if label_column not in header:
            raise ValueError(f"{path} has no column {label_column!r}; its columns are {header}")
        k = header.index(label_column)
        labels, rows = [], []
        for line_no, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header):
                raise ValueError(f"{path}, line {line_no}: {len(row)} fields, header has "
                                 f"{len(header)}")
            labels.append(row[k].strip())
            try:
                rows.append([float(v) for j, v in enumerate(row) if j != k])
            except ValueError as exc:
                raise ValueError(f"{path}, line {line_no}: non-numeric feature ({exc})") from None
    labels = np.array(labels)
    classes = np.unique(labels)
    if classes.shape[0] != 2:
        raise ValueError(f"{path} must hold exactly two classes in {label_column!r}; "
                         f"it has {classes[:10].tolist()}")
    if pos_label is None:
        try:
            numeric = classes.astype(float)
        except ValueError:
            numeric = classes
        pos_label = check_pos_label(numeric, None)
        y = (labels.astype(float) == pos_label).astype(np.int64)
    else:
        y = (labels == str(pos_label)).astype(np.int64)
        if not y.any():
            raise ValueError(f"pos_label={pos_label!r} is not a label of {path}: "
                             f"{classes.tolist()}")
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(header) - 1), y
