"""Enumeration references of the structural pAUC surrogates (tests only).

Brute force (tiny problems): every subset Z of negatives of size j_beta (tight
surrogates) and every valid ordering matrix pi.  A matrix is a valid ordering
exactly when its rows (the sets of negatives ranked above each positive) form
a chain under inclusion, i.e. when some total order sigma of the negatives
makes every row a prefix of sigma; enumerating every sigma and, for each
sigma, every prefix length per positive therefore covers all of Pi.  The loss
of a row covering r negatives is clip(r - j_alpha, 0, j_beta - j_alpha) (the
window positions it covers), the feature term sum_{j in row} (p_i - z_j), and
both share the normaliser N = m (j_beta - j_alpha).
"""

from itertools import combinations, permutations

import numpy as np
from hypothesis import strategies as st

_PERMS = {k: np.array(list(permutations(range(k))), dtype=np.intp).reshape(-1, k)
          for k in range(1, 7)}


def _best_over_orderings(pos, z, j_alpha, j_beta):
    """max over every total order of the negatives z and every prefix per positive."""
    k = len(z)
    ordered = np.asarray(z, dtype=float)[_PERMS[k]]                    # (P, k)
    prefix = np.concatenate([np.zeros((len(ordered), 1)), np.cumsum(ordered, 1)], 1)
    r = np.arange(k + 1)
    gain = np.clip(r - j_alpha, 0, j_beta - j_alpha)                   # Delta per row
    # H[perm, i, r] = gain(r) + sum_{j <= r} z_sigma(j) - r * p_i
    h = gain[None, None, :] + prefix[:, None, :] - r[None, None, :] * pos[None, :, None]
    return h.max(axis=2).sum(axis=1).max()


def brute_force(pos, neg, j_alpha, j_beta, kind):
    """max_{Z, pi} H_w(Z, pi) by enumeration, for kind in {"auc", "tight", "naive"}."""
    pos = np.asarray(pos, dtype=float)
    neg = np.asarray(neg, dtype=float)
    if kind == "auc":
        j_alpha, j_beta, subsets = 0, len(neg), [neg]
    elif kind == "naive":
        subsets = [neg]
    else:
        subsets = [neg[list(c)] for c in combinations(range(len(neg)), j_beta)]
    best = max(_best_over_orderings(pos, z, j_alpha, j_beta) for z in subsets)
    return best / (len(pos) * (j_beta - j_alpha))


# --------------------------------------------------------------------------
# strategies: tiny problems, scores on a half-integer grid (many ties, and
# many pairs exactly at margin 0 or 1)
# --------------------------------------------------------------------------

@st.composite
def tiny_problems(draw, with_alpha=None):
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 6))
    values = st.integers(-6, 6).map(lambda k: k / 2)
    pos = np.array(draw(st.lists(values, min_size=m, max_size=m)))
    neg = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    if with_alpha is True and n < 2:
        n_extra = draw(st.lists(values, min_size=1, max_size=1))
        neg = np.concatenate([neg, n_extra])
        n = len(neg)
    j_alpha = 0 if with_alpha is False else draw(st.integers(1 if with_alpha else 0, n - 1))
    j_beta = draw(st.integers(j_alpha + 1, n))
    # interleave the classes in a random row order
    order = np.array(draw(st.permutations(range(m + n))), dtype=int)
    scores = np.concatenate([pos, neg])[order]
    is_pos = np.concatenate([np.ones(m, bool), np.zeros(n, bool)])[order]
    return scores, is_pos, j_alpha, j_beta
