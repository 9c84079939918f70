"""The selection bootstrap of GradientBoostingRanker: the hand-written loop it
replaced (kept here, :func:`old_bootstrap_criteria`) against
:func:`pauc.gbm._selection.bootstrap_criteria` on the package's stratified
bootstrap.

* ``timing``: both on the same inputs, 100 rounds, best of ``--repeat`` runs::

      OMP_NUM_THREADS=1 python bench/selection_bootstrap.py timing

Whether the kept candidate moves: ``bench/panel_real.py run --methods gbm`` caches
the candidates' scores, and ``bench/panel_replay.py --bootstrap old new`` replays
the selection with either bootstrap.
"""

import sys

import numpy as np

from pauc.gbm._selection import bootstrap_criteria, criterion

from _timing import best_time


def old_bootstrap_criteria(is_pos, score_list, windows, rng, n_rounds):
    """The hand-written bootstrap replaced (pauc 3921691): ``(n_rounds,
    len(score_list))`` criteria on paired bootstrap resamples of the rows,
    positives and negatives resampled separately by ``rng.choice``."""
    pos_rows, neg_rows = np.flatnonzero(is_pos), np.flatnonzero(~is_pos)
    out = np.empty((n_rounds, len(score_list)))
    for b in range(n_rounds):
        rows = np.concatenate([rng.choice(pos_rows, pos_rows.size),
                               rng.choice(neg_rows, neg_rows.size)])
        for k, s in enumerate(score_list):
            out[b, k] = criterion(is_pos[rows], s[rows], windows)
    return out


def _problem(n, share, k, seed=0):
    """``n`` rows, ``share`` positives, ``k`` correlated score vectors (fold
    quantile-like: values in (0, 1], ties rare)."""
    rng = np.random.default_rng(seed)
    is_pos = np.zeros(n, dtype=bool)
    is_pos[rng.choice(n, int(round(share * n)), replace=False)] = True
    base = rng.normal(size=n) + 1.5 * is_pos
    scores = [base + rng.normal(scale=0.5 + 0.1 * j, size=n) for j in range(k)]
    return is_pos, [np.argsort(np.argsort(s)) / n + 1.0 / n for s in scores]


def timing(repeat):
    cases = [(50_000, 0.1, 7, [(0.0, 0.1)]),
             (3_000, 0.1, 7, [(0.0, 0.05), (0.0, 0.2)])]
    print(f"{'rows':>7} {'vectors':>7} {'windows':<24} {'old s':>8} {'new s':>8} {'old/new':>8}")
    for n, share, k, windows in cases:
        is_pos, scores = _problem(n, share, k)
        old = best_time(lambda: old_bootstrap_criteria(
            is_pos, scores, windows, np.random.RandomState(0), 100), repeat)
        new = best_time(lambda: bootstrap_criteria(
            is_pos, scores, windows, np.random.RandomState(0), 100), repeat)
        print(f"{n:>7} {k:>7} {str(windows):<24} {old:8.3f} {new:8.4f} {old / new:8.1f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "timing":
        timing(int(sys.argv[3]) if sys.argv[2:3] == ["--repeat"] else 3)
    else:
        sys.exit(__doc__)
