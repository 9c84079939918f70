"""Slow, obviously-correct references for the ROC metrics (tests only).

They share no code with :mod:`pauc._ranking`: the ROC curve is built by
counting, for every distinct threshold, the (weighted) positives and
negatives at or above it (O(n · K)), and areas are integrated in exact
rational arithmetic with :class:`fractions.Fraction`.
"""

from fractions import Fraction

import numpy as np


def roc_points(is_pos, score, weight=None):
    """ROC knots (fpr, tpr) as Fractions, from (0, 0) to (1, 1), by threshold counting."""
    weight = np.ones(len(score)) if weight is None else weight
    w = [Fraction(float(x)) for x in weight]
    tot_p = sum(wi for wi, p in zip(w, is_pos) if p)
    tot_n = sum(wi for wi, p in zip(w, is_pos) if not p)
    points = [(Fraction(0), Fraction(0))]
    for t in sorted(set(score.tolist()), reverse=True):
        tp = sum(wi for wi, p, s in zip(w, is_pos, score) if p and s >= t)
        fp = sum(wi for wi, p, s in zip(w, is_pos, score) if not p and s >= t)
        points.append((fp / tot_n, tp / tot_p))
    return points


def _piece_area(xa, ya, xb, yb, lo, hi, floor):
    """∫ max(y - floor, 0) over [xa, xb] ∩ [lo, hi] for the linear piece."""
    a, b = max(xa, lo), min(xb, hi)
    if b <= a:
        return Fraction(0)
    slope = (yb - ya) / (xb - xa)
    y_a, y_b = ya + slope * (a - xa), ya + slope * (b - xa)
    if y_a >= floor and y_b >= floor:
        return (b - a) * ((y_a + y_b) / 2 - floor)
    if y_a <= floor and y_b <= floor:
        return Fraction(0)
    xc = a + (floor - y_a) / slope
    return (b - xc) * (y_b - floor) / 2 if y_b > floor else (xc - a) * (y_a - floor) / 2


def area(is_pos, score, lo=0.0, hi=1.0, floor=0.0, weight=None):
    """Exact ∫_lo^hi max(TPR(u) - floor, 0) du on the piecewise-linear ROC curve."""
    points = roc_points(is_pos, score, weight)
    lo, hi, floor = Fraction(lo), Fraction(hi), Fraction(floor)
    total = Fraction(0)
    for (xa, ya), (xb, yb) in zip(points, points[1:]):
        if xb > xa:
            total += _piece_area(xa, ya, xb, yb, lo, hi, floor)
    return total


def auc_by_pairs(is_pos, score, weight=None):
    """Σ over positive-negative pairs of [s+ > s-] + ½ [s+ = s-], weighted, normalised."""
    weight = np.ones(len(score)) if weight is None else weight
    pos = [(s, w) for s, w, p in zip(score, weight, is_pos) if p]
    neg = [(s, w) for s, w, p in zip(score, weight, is_pos) if not p]
    num = sum(wp * wn * (1.0 if sp > sn else 0.5 if sp == sn else 0.0)
              for sp, wp in pos for sn, wn in neg)
    return num / (sum(w for _, w in pos) * sum(w for _, w in neg))


def tpr_at_fpr_by_thresholds(is_pos, score, fpr):
    """Best TPR of a rule ``score >= t`` with FPR <= fpr (t over all scores and +inf)."""
    best = 0.0
    for t in set(score.tolist()):
        pred = score >= t
        if pred[~is_pos].mean() <= fpr:
            best = max(best, pred[is_pos].mean())
    return best
