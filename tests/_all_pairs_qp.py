"""All-pairs reference solutions of the structural SVM problems (test-only brute force).

The cutting-plane solvers never write the m x n pairs out; these write every
pair as a cvxpy expression and solve the QP directly (Clarabel), for the tests
to compare against on small data.
"""

from itertools import combinations, permutations

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


def direct_pauc_window(X, y, C, j_alpha, j_beta, kind):
    """The structural pAUC problem for [alpha, beta] with every ordering written out.

    ``kind="tight"``: the max over every subset Z of j_beta negatives (Sec. 4.2.2,
    eq. (16)); ``kind="naive"``: Z = all negatives (Sec. 3.2).  For each Z, each
    total order sigma of Z and each positive i, the row covering the first r
    negatives of sigma contributes the affine piece

        clip(r - j_alpha, 0, j_beta - j_alpha) + sum_{j <= r} (w.x_sigma(j) - w.x_i),

    the positive picks its best r, and H(w) is the max over (Z, sigma) of the sum
    over positives, over N = m (j_beta - j_alpha) (the enumeration of
    ``tests/svm/test_oracles.py``, here as a cvxpy expression in w).  Tiny inputs
    only: C(n, j_beta) * j_beta! * m * (j_beta + 1) affine pieces.
    """
    Xp, Xn = X[y], X[~y]
    m, d = Xp.shape
    k = j_beta if kind == "tight" else Xn.shape[0]
    subsets = combinations(range(Xn.shape[0]), k) if kind == "tight" else [range(k)]
    orders = [list(z[i] for i in p) for z in subsets for p in permutations(range(k))]
    r = np.arange(k + 1)
    gain = np.clip(r - j_alpha, 0, j_beta - j_alpha).astype(float)
    # A[o, r] = sum of the first r negatives of order o (as feature vectors).
    prefix = np.concatenate([np.zeros((len(orders), 1, d)),
                             np.cumsum(Xn[np.array(orders)], axis=1)], axis=1)
    # Piece (o, i, r): gain(r) + (prefix[o, r] - r x_i) . w, one row per (o, i, r).
    A = (prefix[:, None, :, :] - r[None, None, :, None] * Xp[None, :, None, :])
    b = np.broadcast_to(gain, A.shape[:3])
    w = cp.Variable(d)
    pieces = cp.reshape(A.reshape(-1, d) @ w + b.ravel(), (len(orders) * m, k + 1), order="C")
    per_positive = cp.reshape(cp.max(pieces, axis=1), (len(orders), m), order="C")
    H = cp.max(cp.sum(per_positive, axis=1)) / (m * (j_beta - j_alpha))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * H))
    prob.solve(solver=cp.CLARABEL)
    return prob.value
