"""The Van Dyke reader study: a fully crossed multi-reader multi-case ROC study."""

import csv
from pathlib import Path

import numpy as np

_DATA = Path(__file__).parent / "data"
_COLUMNS = ("reader", "modality", "case", "truth", "rating")


def load_vandyke(*, as_frame=False):
    """The Van Dyke et al. (1993) reader study, the standard example of MRMC analyses.

    Five radiologists rated 114 cases (45 with a thoracic aortic dissection) in
    two modalities, single spin-echo MRI (modality 1) and cine MRI (modality
    2), on a five-point confidence scale (1 definitely no dissection ... 5
    definitely); fully crossed, 1,140 ratings.  Reader-averaged empirical AUCs:
    0.8970 (modality 1) and 0.9408 (modality 2).  Source: ``data/LICENSE.txt``
    beside this module.

    Parameters
    ----------
    as_frame : bool, default=False
        Return a pandas DataFrame (pandas needed) instead of a dict of arrays.

    Returns
    -------
    dict of int64 arrays, or DataFrame
        The columns ``reader``, ``modality``, ``case``, ``truth`` (1: dissection)
        and ``rating``, one row per rating: the tidy table
        :func:`pauc.metrics.reader_study` reads.

    References
    ----------
    .. [1] Van Dyke, C. W., White, R. D., Obuchowski, N. A., Geisinger, M. A.,
       Lorig, R. J. and Meziane, M. A. "Cine MRI in the diagnosis of thoracic
       aortic dissection." 79th Meeting of the Radiological Society of North
       America, 1993.
    .. [2] Hillis, S. L. "A comparison of denominator degrees of freedom methods
       for multiple observer ROC analysis." Statistics in Medicine 26(3), 2007.
    """
    with open(_DATA / "vandyke-reader-study.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    columns = {name: np.array([int(row[name]) for row in rows], dtype=np.int64)
               for name in _COLUMNS}
    if not as_frame:
        return columns
    try:
        import pandas as pd
    except ImportError as error:
        raise ImportError("as_frame=True needs pandas (pip install pandas)") from error
    return pd.DataFrame(columns)
