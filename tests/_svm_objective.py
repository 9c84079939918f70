"""The objective of a fitted structural SVM on its training data (test helper)."""

import numpy as np

from pauc.svm import AUCSVM
from pauc.svm._dc import hinge_objective
from pauc.svm._design import InMemoryDesign
from pauc.svm.oracles import auc_oracle, pauc_tight_oracle


def objective(est, X, y):
    """``1/2 ||w||^2 + C R(w)`` of a fitted estimator on its training data."""
    w, C = est.coef_, float(est.C)
    s = np.asarray(X @ w).ravel()
    if isinstance(est, AUCSVM):
        coef, loss = auc_oracle(s, y == 1)
    elif est.surrogate == "hinge" and est.j_alpha_ > 0:
        return hinge_objective(InMemoryDesign(X, y == 1), w, est.j_alpha_, est.j_beta_, C)
    else:
        coef, loss = pauc_tight_oracle(s, y == 1, est.j_alpha_, est.j_beta_)
    return 0.5 * w @ w + C * (loss - s @ coef)
