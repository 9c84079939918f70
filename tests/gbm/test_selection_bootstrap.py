"""The selection bootstrap (pauc.gbm._selection.bootstrap_criteria) on the
package's stratified bootstrap (pauc.inference._resampling.StratifiedBootstrap).

Its resamples are replayed here: the block's draws (``block_inputs``) run
through the kernel up to the resample wanted, which records that resample's
multiplicities of the prefix rows (those some score can bring into the
widest window); the draws falling outside the prefix cannot reach any window,
so they are spread at random over the rest of each class.  The criterion on the
rows so repeated must be the bootstrap's value to 1e-12.
"""

import numpy as np
import pytest

from pauc.inference._resampling import BLOCK_SIZE, StratifiedBootstrap, blocks
from pauc.gbm._selection import bootstrap_criteria, criterion


def _problem(n, share, k, seed):
    rng = np.random.default_rng(seed)
    is_pos = np.zeros(n, dtype=bool)
    is_pos[rng.choice(n, int(round(share * n)), replace=False)] = True
    base = rng.normal(size=n) + 1.2 * is_pos
    # one vector with ties (rounded), the others continuous
    scores = [np.round(base + rng.normal(scale=0.7, size=n), 1)]
    scores += [base + rng.normal(scale=0.5 + 0.2 * j, size=n) for j in range(k - 1)]
    return is_pos, scores


def _old_bootstrap_criteria(is_pos, score_list, windows, rng, n_rounds):
    """The hand-written bootstrap the selection used before (rng.choice per class)."""
    pos_rows, neg_rows = np.flatnonzero(is_pos), np.flatnonzero(~is_pos)
    out = np.empty((n_rounds, len(score_list)))
    for b in range(n_rounds):
        rows = np.concatenate([rng.choice(pos_rows, pos_rows.size),
                               rng.choice(neg_rows, neg_rows.size)])
        for k, s in enumerate(score_list):
            out[b, k] = criterion(is_pos[rows], s[rows], windows)
    return out


def _replayed_multiplicities(is_pos, scores, windows, seed, n_rounds, index, fill_rng):
    """The multiplicity of every row (input order) in resample ``index`` of
    ``bootstrap_criteria(..., RandomState(seed), n_rounds)``."""
    int_seed = int(np.random.RandomState(seed).randint(np.iinfo(np.int32).max))
    boot = StratifiedBootstrap(is_pos, scores, max(b for _, b in windows))
    block_seed, size = blocks(n_rounds, int_seed)[index // BLOCK_SIZE]
    b = index % BLOCK_SIZE
    in_pos, in_neg, state = boot.block_inputs(block_seed, size)
    by_slot = np.zeros(boot.m, np.intc), np.zeros(boot.n, np.intc)
    # the kernel records the last resample's multiplicities, by slot
    boot.kernel(in_pos[:b + 1], in_neg[:b + 1], state, *windows[0], 0.0,
                counts_pos=by_slot[0], counts_neg=by_slot[1])
    out = np.zeros(is_pos.shape[0], dtype=np.int64)
    for counts, rows, slot_row, k, size, in_prefix in (
            (by_slot[0], boot.pos_rows, boot.pos_slot_row, boot.k_pos, boot.m, in_pos[b]),
            (by_slot[1], boot.neg_rows, boot.neg_slot_row, boot.k_neg, boot.n, in_neg[b])):
        counts = counts.astype(np.int64)
        assert counts[:k].sum() == in_prefix
        if counts.sum() < size:        # the rest was not drawn: no window reaches it
            assert counts[k:].sum() == 0
            counts += np.bincount(fill_rng.integers(k, size, size - in_prefix), minlength=size)
        assert counts.sum() == size    # the class count is kept
        out[rows[slot_row]] = counts
    return out


@pytest.mark.parametrize("n, share, windows", [
    (2000, 0.2, [(0.0, 0.1)]),
    (600, 0.1, [(0.0, 0.05), (0.0, 0.2)]),
    (1500, 0.3, [(0.02, 0.1)]),
    (80, 0.25, [(0.0, 0.5)]),          # the prefix is the whole class
])
def test_criteria_equal_the_criterion_on_the_resampled_rows(n, share, windows):
    is_pos, scores = _problem(n, share, 3, seed=n)
    n_rounds = 120                     # three blocks, the last one short
    boot = bootstrap_criteria(is_pos, scores, windows, np.random.RandomState(5), n_rounds)
    assert boot.shape == (n_rounds, 3)
    fill_rng = np.random.default_rng(0)
    for index in (0, 1, 17, 49, 50, 119):
        counts = _replayed_multiplicities(is_pos, scores, windows, 5, n_rounds, index, fill_rng)
        assert counts[is_pos].sum() == is_pos.sum() and counts[~is_pos].sum() == (~is_pos).sum()
        rows = np.repeat(np.arange(n), counts)
        for k, s in enumerate(scores):
            expected = criterion(is_pos[rows], s[rows], windows)
            assert boot[index, k] == pytest.approx(expected, rel=0, abs=1e-12), (index, k)


def test_reproducible_for_a_seed_and_the_seed_matters():
    is_pos, scores = _problem(1000, 0.15, 3, seed=1)
    windows = [(0.0, 0.05), (0.0, 0.15)]
    a = bootstrap_criteria(is_pos, scores, windows, np.random.RandomState(3), 60)
    b = bootstrap_criteria(is_pos, scores, windows, np.random.RandomState(3), 60)
    c = bootstrap_criteria(is_pos, scores, windows, np.random.RandomState(4), 60)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # the seed is drawn from the generator given: it advances by one draw
    rng = np.random.RandomState(3)
    bootstrap_criteria(is_pos, scores, windows, rng, 5)
    expected = np.random.RandomState(3)
    expected.randint(np.iinfo(np.int32).max)
    assert rng.randint(1000) == expected.randint(1000)


def test_spread_matches_the_hand_written_bootstrap():
    """Same law, other draws: the standard deviation of each vector's criterion
    over 400 resamples agrees with the old rng.choice bootstrap's.  The relative
    error of a standard deviation from 400 draws is about 1/sqrt(800) = 3.5 %, of
    the ratio of two independent ones 5 %: 15 % is three of its standard errors."""
    is_pos, scores = _problem(2000, 0.2, 3, seed=7)
    windows = [(0.0, 0.1)]
    new = bootstrap_criteria(is_pos, scores, windows, np.random.RandomState(1), 400)
    old = _old_bootstrap_criteria(is_pos, scores, windows, np.random.RandomState(2), 400)
    sd_new, sd_old = new.std(axis=0, ddof=1), old.std(axis=0, ddof=1)
    assert np.all(np.abs(sd_new / sd_old - 1) < 0.15), (sd_new, sd_old)
    # and both centre on the sample's criterion (bootstrap bias is small here)
    values = np.array([criterion(is_pos, s, windows) for s in scores])
    assert np.all(np.abs(new.mean(axis=0) - values) < 3 * sd_new / np.sqrt(400) + 0.01)
