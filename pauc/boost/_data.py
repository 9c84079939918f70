"""Input checks shared by the boosters (one message per mistake, raised early)."""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data


def check_training_data(estimator, X, y):
    """Validate ``X`` (dense or CSR/CSC float64) and binary ``y``.

    Returns
    -------
    X : ndarray or sparse matrix
    is_pos : uint8 array, 1 where ``y == classes_[1]``
    classes : array of shape (2,)
    """
    X, y = validate_data(estimator, X, y, accept_sparse=["csr", "csc"], dtype=np.float64,
                         ensure_min_samples=2)
    check_classification_targets(y)
    classes, y_index = np.unique(y, return_inverse=True)
    if classes.shape[0] != 2:
        raise ValueError(
            "Only binary classification is supported. "
            f"{type(estimator).__name__} ranks two classes; y has {classes.shape[0]} "
            f"class(es): {classes[:10].tolist()}")
    return X, (y_index == 1).astype(np.uint8), classes


def check_predict_data(estimator, X):
    return validate_data(estimator, X, reset=False, accept_sparse=["csr", "csc"],
                         dtype=np.float64)
