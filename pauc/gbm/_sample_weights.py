"""The one refusal of sample weights by the window objectives and metrics (LightGBM, XGBoost).

The window losses count the window in negatives (``j_alpha = floor(n alpha)``,
``j_beta = ceil(n beta)``, Narasimhan & Agarwal, eq. (2)); a weighted window
would need the FPR range measured in negative weight, which they do not
implement.  LightGBM and XGBoost hand the weights to a custom objective or
metric in three ways -- on the training/evaluation set (``Dataset.get_weight()``,
``DMatrix.get_weight()``), or as an argument of the scikit-learn wrappers --
and all three end here.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import numpy as np

__all__ = ["refuse_sample_weights"]


def refuse_sample_weights(data, sample_weight=None):
    """Raise if the training or evaluation rows carry sample weights.

    ``data`` is LightGBM's ``Dataset`` or XGBoost's ``DMatrix`` (``lgb.train``,
    ``xgb.train``), or labels (scikit-learn estimators, which pass the weights
    as ``sample_weight``).  The window losses and the window metric are
    unweighted: a weighted window would need the FPR range measured in
    negative weight.  Silently ignoring the weights would fit another problem.
    """
    if sample_weight is None and hasattr(data, "get_weight"):
        sample_weight = data.get_weight()      # LightGBM: None; XGBoost: empty when none
    if sample_weight is not None and np.size(sample_weight):
        raise NotImplementedError(
            "pauc's window objectives and metrics do not support sample weights "
            "(lgb.Dataset(weight=...), LGBMClassifier.fit(sample_weight=...), "
            "xgb.DMatrix(weight=...), xgb.dask.DaskDMatrix(weight=...), XGBClassifier.fit(sample_weight=...)): a weighted "
            "window would need the FPR range measured in negative weight. Resample the "
            "rows instead, or drop the weights.")
