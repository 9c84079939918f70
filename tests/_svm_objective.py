"""Test helpers of the structural SVMs: small ranking data, the objective of a fit."""

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


def ranking_data(seed=0, n=300, d=6, pos=0.3):
    """``n`` Gaussian rows, positives shifted along a decreasing direction; 0/1 labels."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pos).astype(int)
    X = rng.normal(size=(n, d)) + np.outer(y, np.linspace(1.0, 0.0, d))
    return X, y
