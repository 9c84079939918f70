"""The pairwise surrogates of the loss table as sums over a window, in torch.

Each function returns ``(1 / count) sum_i sum_j w_j l(s_i - s_j)`` over the
positives ``s_i`` and the window negatives ``s_j`` (weights ``w_j`` from
:func:`pauc.torch._window.window_weights`), with the pairwise loss ``l`` of
the table row of the same name (:mod:`pauc._loss._table`):

* ``"exponential"``: ``l(t) = exp(-t)``, RankBoost's loss.  It factorises,
  ``sum_i exp(-s_i) * sum_j w_j exp(s_j)``: O(b), in log-sum-exp form.
* ``"squared_hinge"``: ``l(t) = max(0, 1 - t)^2``, and ``"hinge"``: ``l(t) =
  max(0, 1 - t)`` (eqs. (9), (10) of Narasimhan & Agarwal).  A positive's
  terms involve only the negatives with ``s_j > s_i - 1`` (the pair at ``t =
  1`` exactly is inactive, as in the boosting kernels), a suffix of the
  window sorted ascending: with ``u_j = s_j - c`` and ``a_i = 1 - s_i + c``,
  ``sum_j w_j (u_j + a_i)^2 = S2 + 2 a_i S1 + a_i^2 S0`` from suffix sums of
  ``w``, ``w u`` and ``w u^2``.  One sort and one binary search per positive:
  O(b log b), never a pairs matrix.  Centring at ``c`` (the window's lowest
  score) keeps the expansion from cancelling large scores.

Autograd differentiates these expressions with the window and the active
sets held fixed: the gradient of the squared hinge is exact (it is
differentiable), that of the hinge the subgradient whose pairs at ``t = 1``
are inactive, that of the exponential exact.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.
"""

import math

import torch


def exponential(positives, negatives, weights, count):
    """``(1/count) sum_i sum_j w_j exp(s_j - s_i)``, in log-sum-exp form."""
    log_pos = torch.logsumexp(-positives, dim=0)
    log_neg = torch.logsumexp(negatives + torch.log(weights), dim=0)
    return torch.exp(log_pos + log_neg - math.log(count))


def _active_sums(positives, negatives, weights, powers):
    """Per positive, ``sum_j w_j (s_j - s_i + 1)^k`` over its active negatives
    for each ``k`` in ``powers``, from suffix sums of the sorted window."""
    order = torch.argsort(negatives.detach())
    z = negatives[order]
    w = weights[order]
    centre = z[0].detach()
    u = z - centre
    # first active negative of each positive: s_j > s_i - 1
    first = torch.searchsorted(z.detach(), (positives - 1).detach(), right=True)

    def suffix(values):
        sums = torch.flip(torch.cumsum(torch.flip(values, (0,)), 0), (0,))
        return torch.cat([sums, sums.new_zeros(1)])[first]

    s0, s1 = suffix(w), suffix(w * u)
    a = 1 - positives + centre
    if powers == 1:
        return s1 + a * s0
    s2 = suffix(w * u * u)
    return s2 + 2 * a * s1 + a * a * s0


def squared_hinge(positives, negatives, weights, count):
    """``(1/count) sum_i sum_j w_j max(0, 1 - (s_i - s_j))^2`` by suffix sums."""
    return _active_sums(positives, negatives, weights, 2).sum() / count


def hinge(positives, negatives, weights, count):
    """``(1/count) sum_i sum_j w_j max(0, 1 - (s_i - s_j))`` by suffix sums."""
    return _active_sums(positives, negatives, weights, 1).sum() / count


#: table name -> the torch form of its pairwise loss over a weighted window
PAIRWISE = {"exponential": exponential, "squared_hinge": squared_hinge, "hinge": hinge}
