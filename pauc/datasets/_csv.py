"""Binary data in a CSV file with a header row."""

import csv
from pathlib import Path

import numpy as np

from .._validation import _classes, check_pos_label


def _parse_labels(labels):
    """The label column as the values it writes: booleans, numbers, or strings.

    ``"True"``/``"False"`` (any case) are booleans; labels that all read as
    numbers are numbers, so that ``"1"`` and ``"1.0"`` are one class; anything
    else stays a string.  The positive-class rule then sees what a user of
    the metrics would pass (:func:`pauc._validation.check_pos_label`).
    """
    lowered = np.char.lower(labels)
    if labels.size and np.isin(lowered, ["true", "false"]).all():
        return lowered == "true"
    try:
        numbers = labels.astype(np.float64)
    except ValueError:
        return labels
    if np.isfinite(numbers).all() and np.all(numbers == np.round(numbers)):
        return numbers.astype(np.int64)
    return numbers


def _as_label(pos_label, parsed):
    """``pos_label`` in the type of the parsed labels (``"1"`` names the label 1.0)."""
    if pos_label is None or not isinstance(pos_label, str):
        return pos_label
    text = pos_label.strip()
    if parsed.dtype == np.bool_ and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if parsed.dtype.kind in "iuf":
        try:
            value = float(text)
        except ValueError:
            return text
        return int(value) if parsed.dtype.kind in "iu" and value == int(value) else value
    return text


def load_csv(path, *, label_column, pos_label=None, delimiter=",", feature_names=None,
             return_feature_names=False):
    """Load ``(X, y)`` from a CSV file whose header names the columns.

    Every column but ``label_column`` must be numeric and becomes a feature.
    Column names must be distinct (a label column written twice would
    otherwise be read as a feature).  A UTF-8 byte-order mark is ignored.

    Parameters
    ----------
    path : str or path-like
    label_column : str
        Name of the column holding the two class labels.  Labels that all
        read as numbers are numbers (``"1"`` and ``"1.0"`` are one class);
        ``"True"``/``"False"`` are booleans.
    pos_label : label, default=None
        The positive label.  None: the package's rule (labels {0, 1}, {-1, 1}
        or booleans, and 1 / True is positive; any other label set must name
        it).  A string naming a numeric label is read as a number
        (``"1"`` names the label ``1.0``).
    delimiter : str, default=","
    feature_names : sequence of str, default=None
        The feature columns to read, in this order (say, those of the
        training file when loading a test file): the file must hold exactly
        these columns besides the label column, in any order.  A missing or
        an extra column is an error.  None: every other column, in the
        file's order.
    return_feature_names : bool, default=False
        Also return the names of the columns of ``X``.

    Returns
    -------
    X : float64 array of shape (n_samples, n_features)
    y : int array of shape (n_samples,), 1 for positives and 0 for negatives
    feature_names : list of str
        Only with ``return_feature_names``.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such CSV file: {path}")
    # utf-8-sig: a byte-order mark (spreadsheet exports) is not part of the first name
    with path.open(newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            raise ValueError(f"{path} is empty")
        header = [h.strip() for h in header]
        repeated = sorted({h for h in header if header.count(h) > 1})
        if repeated:
            raise ValueError(f"{path}: the header names the column(s) {repeated} more than "
                             "once; columns are matched by name, so names must be distinct")
        if label_column not in header:
            raise ValueError(f"{path} has no column {label_column!r}; its columns are {header}")
        k = header.index(label_column)
        names = [h for j, h in enumerate(header) if j != k]
        order = _feature_order(path, names, feature_names)
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
    if not labels:
        raise ValueError(f"{path} holds a header and no rows")
    parsed = _parse_labels(np.array(labels))
    classes = _classes(parsed)
    if classes.shape[0] != 2:
        raise ValueError(f"{path} must hold exactly two classes in {label_column!r}; "
                         f"it has {classes[:10].tolist()}")
    try:
        positive = check_pos_label(classes, _as_label(pos_label, parsed))
    except ValueError as exc:
        raise ValueError(f"{path}, column {label_column!r}: {exc}") from None
    y = (parsed == positive).astype(np.int64)
    X = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(names))[:, order]
    if return_feature_names:
        return X, y, [names[j] for j in order]
    return X, y


def _feature_order(path, names, wanted):
    """Positions in ``names`` of the columns ``wanted`` (all of them when None)."""
    if wanted is None:
        return list(range(len(names)))
    wanted = [str(name).strip() for name in wanted]
    if len(set(wanted)) != len(wanted):
        raise ValueError(f"feature_names names a column more than once: {wanted}")
    missing = [name for name in wanted if name not in names]
    extra = [name for name in names if name not in wanted]
    if missing or extra:
        parts = ([f"lacks the column(s) {missing}"] if missing else []) + \
                ([f"has column(s) not in feature_names {extra}"] if extra else [])
        raise ValueError(f"{path} " + " and ".join(parts) + f"; expected the features "
                         f"{wanted}")
    return [names.index(name) for name in wanted]
