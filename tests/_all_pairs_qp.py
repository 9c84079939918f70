"""All-pairs reference solutions of the structural SVM problems (test-only brute force).

The cutting-plane solvers never write the m x n pairs out; these write every
pair as a cvxpy expression and solve the QP directly (Clarabel), for the tests
to compare against on small data.
"""

import cvxpy as cp
import numpy as np


def pair_hinges(X, y, w):
    """Matrix (m, n) of 1 - w.(x_i - x_j), as a cvxpy expression (test-only brute force)."""
    Xp, Xn = X[y], X[~y]
    sp_, sn_ = Xp @ w, Xn @ w
    m, n = Xp.shape[0], Xn.shape[0]
    return 1 - (cp.reshape(sp_, (m, 1), order="C") @ np.ones((1, n))
                - np.ones((m, 1)) @ cp.reshape(sn_, (1, n), order="C"))


def direct_auc(X, y, C):
    """min 1/2||w||^2 + C/(mn) sum_ij (1 - w.(x_i - x_j))_+ over all pairs (eq. (4))."""
    w = cp.Variable(X.shape[1])
    m, n = y.sum(), (~y).sum()
    obj = 0.5 * cp.sum_squares(w) + C / (m * n) * cp.sum(cp.pos(pair_hinges(X, y, w)))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver=cp.CLARABEL)
    return prob.value


def direct_pauc_0_beta(X, y, C, j_beta):
    """Theorem 5: tight [0, beta] surrogate = hinge over the top j_beta negatives.

    max over subsets Z of size j_beta of a sum of per-negative convex terms is
    the sum of the j_beta largest of them (cvxpy's sum_largest).
    """
    w = cp.Variable(X.shape[1])
    m = y.sum()
    per_negative = cp.sum(cp.pos(pair_hinges(X, y, w)), axis=0)
    obj = 0.5 * cp.sum_squares(w) + C / (m * j_beta) * cp.sum_largest(per_negative, j_beta)
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver=cp.CLARABEL)
    return prob.value
