"""The stratified bootstrap of one or several score vectors over the same rows.

:class:`StratifiedBootstrap` sorts each score vector once, lays out the rows
of each class in *slots* (the rows that can reach the FPR window first), and
runs blocks of resamples through :func:`pauc.inference._bootstrap.resample_areas`.  A
resample is a vector of multiplicities, one per row, drawn within each class
(positives and negatives separately: the stratified bootstrap of pROC,
Robin et al. 2011, and of Efron & Tibshirani, Sec. 8.2 for two samples).  With
several score vectors the same multiplicities serve all (the paired bootstrap).

Reproducibility: the resamples are cut into blocks of a fixed size, and block
``k`` draws from its own generator, seeded by the ``k``-th child of
``numpy.random.SeedSequence(random_state)``.  The seeds are fixed before the
blocks are dispatched, so the resamples do not depend on ``n_jobs``; only one
block's multiplicities are in memory per worker.
"""

import math
import numbers
import threading

import numpy as np
from joblib import Parallel, delayed

from . import _bootstrap
from .. import _ranking

# Resamples per block: fixed (results must not depend on n_jobs), small enough to
# share 2,000 resamples among a few workers, large enough that the per-block Python
# work (seeding, two binomial vectors) is noise.
BLOCK_SIZE = 50

# Six standard deviations of the resampled count above the window's end: a resample
# runs out of its prefix with probability ~1e-9 (and is then completed exactly).
_PREFIX_SIGMAS = 6.0


def seed_sequence(random_state):
    """A ``numpy.random.SeedSequence`` from scikit-learn-style ``random_state``.

    None (fresh entropy), an int >= 0, a ``numpy.random.Generator`` or
    ``RandomState`` (a seed is drawn from it, so it advances), or a
    ``SeedSequence``.
    """
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(0, 2 ** 63, size=4).tolist())
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(random_state.randint(0, 2 ** 31, size=4).tolist())
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) \
            and random_state >= 0:
        return np.random.SeedSequence(int(random_state))
    raise ValueError("random_state must be None, an int >= 0, a numpy Generator, RandomState "
                     f"or SeedSequence, got {random_state!r}")


def blocks(n_resamples, random_state):
    """``(seed, size)`` of each block of resamples: fixed before any is run."""
    sizes = [min(BLOCK_SIZE, n_resamples - start) for start in range(0, n_resamples, BLOCK_SIZE)]
    return list(zip(seed_sequence(random_state).spawn(len(sizes)), sizes))


def resample_blocks(block, n_resamples, random_state, fpr_lo, fpr_hi, tpr_floor, *,
                    n_jobs=None, grid=None):
    """Run ``block(seed, size, fpr_lo, fpr_hi, tpr_floor, grid)`` over the
    :func:`blocks` of ``n_resamples`` (in threads: the kernels release the GIL)
    and join them: areas (n_resamples, S); with ``grid`` also the heights
    (n_resamples, G) of the resampled curve.  The same ``random_state`` gives the
    same resamples whatever ``n_jobs``."""
    results = Parallel(n_jobs=n_jobs, backend="threading")(
        delayed(block)(seed, size, fpr_lo, fpr_hi, tpr_floor, grid)
        for seed, size in blocks(n_resamples, random_state))
    if grid is None:
        return np.concatenate(results)
    return (np.concatenate([a for a, _ in results]),
            np.concatenate([h for _, h in results]))


def kernel_state(rng):
    """The state of a kernel's xoshiro256** generator, drawn from ``rng``: 4 words,
    the spare half-output and its flag."""
    state = np.zeros(6, dtype=np.uint64)
    state[:4] = rng.bit_generator.random_raw(4)
    if not state[:4].any():      # xoshiro's one forbidden state (probability 2**-256)
        state[0] = 1
    return state


def _descending(values, track_rows):
    """``(sorted descending, row of each entry or None)``: the one sort of a class's
    scores (an argsort only when the rows matter: pairing, tests)."""
    if not track_rows:
        return np.ascontiguousarray(np.sort(values)[::-1]), None
    # not a stable sort (a few times slower): the order among tied scores changes no
    # area, since a tie group is one run of every resampled curve
    order = np.argsort(values)[::-1]
    return np.ascontiguousarray(values[order]), order


def _prefix_target(n_neg, fpr_hi):
    """How many of the highest negatives the prefix holds (before ties): enough that
    a resample reaches FPR ``fpr_hi`` inside it but with probability ~1e-9; None
    when that is the whole class."""
    target = fpr_hi * n_neg
    k = math.ceil(target + _PREFIX_SIGMAS * math.sqrt(target) + 10.0)
    return None if fpr_hi >= 1.0 or k >= n_neg else k


def _prefix_length(descending, n_neg, fpr_hi):
    """The prefix's cutoff score in one class's descending scores (-inf: all)."""
    k = _prefix_target(n_neg, fpr_hi)
    return -math.inf if k is None else float(descending[k - 1])


class StratifiedBootstrap:
    """Resampled ROC areas of one or several score vectors over the same labelled rows.

    Parameters
    ----------
    is_pos : bool array of shape (n_samples,)
    scores : list of float arrays of shape (n_samples,)
        One score vector, or several for paired comparisons (the same
        multiplicities serve every vector).
    fpr_hi : float
        The right end of every window asked later (1 for the full AUC): the
        rows that cannot reach it are drawn only when a resample needs them.
    track_rows : bool, default=False
        Keep which input row each sorted entry is (always done for two score
        vectors); with one vector tied entries are interchangeable and a plain
        sort suffices.

    Notes
    -----
    With one score vector (rows not tracked) and a window ending below FPR 1,
    only the prefix -- the rows scored at least as high as the cutoff, one
    selection and a sort of those -- is laid out at first.  A resample that
    runs out of it (probability ~1e-9 each) stops its block; the complete
    layout (sorting everything) is then built once and the block resumes from
    that resample with its generator state, so the resamples are those of the
    complete layout, whatever happened.
    """

    def __init__(self, is_pos, scores, fpr_hi, *, track_rows=False):
        is_pos = np.asarray(is_pos, dtype=bool)
        self.m = int(np.count_nonzero(is_pos))
        self.n = int(is_pos.shape[0] - self.m)
        self.fpr_hi = float(fpr_hi)
        scores = [np.asarray(s, dtype=np.float64) for s in scores]
        self._is_pos, self._scores, self._track_rows = is_pos, scores, track_rows
        self._lock = threading.Lock()
        k = _prefix_target(self.n, self.fpr_hi)
        if len(scores) == 1 and not track_rows and k is not None:
            self._prefix_layout(k)
        else:
            self._complete_layout()

    def _prefix_layout(self, k):
        """The top of each class only: a selection, then a sort of the top."""
        pos, neg = _ranking.split_by_label(self._scores[0], self._is_pos)
        cutoff = float(np.partition(neg, self.n - k)[self.n - k])
        # at least the highest positive, as _layout keeps one slot: the kernel draws
        # into a non-empty prefix even when no positive reaches the window (its areas
        # are then 0, its walk ending on the negatives above the cutoff)
        top_pos = np.ascontiguousarray(np.sort(pos[pos >= min(cutoff, pos.max())])[::-1])
        top_neg = np.ascontiguousarray(np.sort(neg[neg >= cutoff])[::-1])
        self.complete = False
        self.cutoff = np.array([cutoff])
        self.pos, self.neg = top_pos[None, :], top_neg[None, :]
        self.k_pos, self.k_neg = top_pos.shape[0], top_neg.shape[0]
        self.pos_slot = np.arange(self.k_pos, dtype=np.int64)[None, :]
        self.neg_slot = np.arange(self.k_neg, dtype=np.int64)[None, :]
        self._set_runs([cutoff])

    def _complete_layout(self):
        """Every row: a sort (an argsort when rows are tracked) per class and score."""
        is_pos, scores = self._is_pos, self._scores
        pos_rows, neg_rows = np.flatnonzero(is_pos), np.flatnonzero(~is_pos)
        track_rows = self._track_rows or len(scores) > 1
        pos_sorted = [_descending(s[pos_rows], track_rows) for s in scores]
        neg_sorted = [_descending(s[neg_rows], track_rows) for s in scores]
        cutoffs = [_prefix_length(neg, self.n, self.fpr_hi) for neg, _ in neg_sorted]
        self.complete = True
        self.cutoff = np.array(cutoffs, dtype=np.float64)
        self.pos, self.pos_slot, self.k_pos, self.pos_slot_row = self._layout(pos_sorted, cutoffs)
        self.neg, self.neg_slot, self.k_neg, self.neg_slot_row = self._layout(neg_sorted, cutoffs)
        # the gathering kernel (several scores) streams through the slots: int32
        self.pos_slot32 = self.pos_slot.astype(np.intc)
        self.neg_slot32 = self.neg_slot.astype(np.intc)
        self._set_runs(cutoffs)
        # rows of the class arrays -> rows of the input (for tests and callers)
        self.pos_rows, self.neg_rows = pos_rows, neg_rows

    def _set_runs(self, cutoffs):
        """The merged order of each score vector cut into runs, once for all resamples;
        a draw counts in its row's run directly (global run indices)."""
        runs = [_bootstrap.merged_runs(p, q, c) for p, q, c in zip(self.pos, self.neg, cutoffs)]
        self.run_start = np.cumsum([0] + [r[0].shape[0] for r in runs]).astype(np.int64)
        self.pos_end = np.concatenate([r[0] for r in runs])
        self.neg_end = np.concatenate([r[1] for r in runs])
        self.prefix_runs = np.array([r[2] for r in runs], dtype=np.int64)
        # the run of each score's sorted entries (the gathering kernel's table, several
        # scores), and of each slot: one table per class, filled score by score
        self.run_of_pos_slot, run_of_pos_entry = self._run_tables(
            [r[0] for r in runs], self.pos_slot, self.run_start)
        self.run_of_neg_slot, run_of_neg_entry = self._run_tables(
            [r[1] for r in runs], self.neg_slot, self.run_start)
        if len(runs) > 1:
            self.run_of_pos_entry, self.run_of_neg_entry = run_of_pos_entry, run_of_neg_entry
        self.touched_runs = np.array([
            max(self.run_of_pos_slot[s, :self.k_pos].max(),
                self.run_of_neg_slot[s, :self.k_neg].max()) - self.run_start[s] + 1
            for s in range(len(cutoffs))], dtype=np.int64)

    def ensure_complete(self):
        """Lay out every row (once; thread-safe): the fallback of the prefix layout."""
        with self._lock:
            if not self.complete:
                self._complete_layout()

    @staticmethod
    def _layout(sorted_class, cutoffs):
        """Stack the sorted copies and give every row of the class a slot: first the
        rows some score can reach (prefix), then the rest, each part in row order.

        Returns the stacked scores, the slot of each sorted entry, the prefix size
        and the class row of each slot.
        """
        size = sorted_class[0][0].shape[0]
        reach = [int(np.searchsorted(-values, -cutoff, side="right"))
                 for (values, _), cutoff in zip(sorted_class, cutoffs)]
        if sorted_class[0][1] is None:
            # one score vector, rows not tracked: slot = rank from the top
            slots = np.arange(size, dtype=np.int64)
            return sorted_class[0][0][None, :], slots[None, :], max(1, reach[0]), slots
        in_prefix = np.zeros(size, dtype=bool)
        for (_, rows), k in zip(sorted_class, reach):
            in_prefix[rows[:k]] = True
        # slots in the class's row order: the draws (uniform slots) then give each row
        # the same multiplicity whatever the score vectors, when their prefixes agree
        # (always for the full AUC) -- so k rankers share the resamples of two
        slot_row = np.concatenate([np.flatnonzero(in_prefix), np.flatnonzero(~in_prefix)])
        row_slot = np.empty(size, dtype=np.int64)
        row_slot[slot_row] = np.arange(size, dtype=np.int64)
        values = np.stack([v for v, _ in sorted_class])
        slots = np.stack([row_slot[rows] for _, rows in sorted_class])
        k = max(1, int(np.count_nonzero(in_prefix)))
        return values, slots, k, slot_row

    @staticmethod
    def _run_tables(ends_of_score, slots, run_start):
        """Run (global index) of each sorted entry and of each slot, per score: int32
        arrays of the shape of ``slots``."""
        of_entry = np.empty(slots.shape, dtype=np.int32)
        of_slot = np.empty(slots.shape, dtype=np.int32)
        for s, (ends, first) in enumerate(zip(ends_of_score, run_start)):
            lengths = np.diff(ends, prepend=0)
            of_entry[s] = np.repeat(np.arange(first, first + ends.shape[0], dtype=np.int32),
                                    lengths)
            of_slot[s, slots[s]] = of_entry[s]
        return of_slot, of_entry

    def observed(self, fpr_lo, fpr_hi, tpr_floor, grid=None):
        """The sample's own areas (shape (S,)), and heights at ``grid`` if given."""
        if not self.complete and self.k_neg < fpr_hi * self.n:
            self.ensure_complete()     # (only with a prefix margin below zero, in tests)
        # the prefix holds at least fpr_hi * n negatives: the walk ends inside it
        return _bootstrap.weighted_areas(
            self.pos, self.pos_slot, self.neg, self.neg_slot,
            np.ones(self.pos.shape[1], dtype=np.intc), np.ones(self.neg.shape[1], dtype=np.intc),
            fpr_lo, fpr_hi, tpr_floor, grid, totals=(self.m, self.n))

    def weighted(self, counts_pos, counts_neg, fpr_lo, fpr_hi, tpr_floor, grid=None):
        """Areas (shape (S,)) of the rows counted ``counts_*`` times (indexed by slot;
        complete layout)."""
        return _bootstrap.weighted_areas(
            self.pos, self.pos_slot, self.neg, self.neg_slot,
            np.ascontiguousarray(counts_pos, dtype=np.intc),
            np.ascontiguousarray(counts_neg, dtype=np.intc), fpr_lo, fpr_hi, tpr_floor, grid)

    def _draws_in_prefix(self, rng, size):
        """Per resample, how many of each class's draws land in its prefix."""
        def draws(k, total):
            if k >= total:
                return np.full(size, total, dtype=np.int64)
            return rng.binomial(total, k / total, size=size).astype(np.int64)

        return draws(self.k_pos, self.m), draws(self.k_neg, self.n)

    def block_inputs(self, seed, size):
        """The draws of one block: how many land in each prefix, and the state of the
        kernel's generator, all from the block's own seed."""
        rng = np.random.Generator(np.random.PCG64(seed))
        in_pos, in_neg = self._draws_in_prefix(rng, size)
        return in_pos, in_neg, kernel_state(rng)

    def kernel(self, in_pos, in_neg, state, fpr_lo, fpr_hi, tpr_floor, grid=None,
               complete=False, counts_pos=None, counts_neg=None):
        """:func:`pauc.inference._bootstrap.resample_areas` over a block, resumed on the complete
        layout if a resample runs out of the prefix layout.  Returns the areas (and
        the heights with ``grid``)."""
        state = np.array(state, dtype=np.uint64)      # the kernel may update it
        if self.pos.shape[0] > 1 and grid is None and not complete and counts_pos is None:
            # several scores: gather (one increment per draw), the same resamples
            return _bootstrap.gather_resample_areas(
                self.pos_slot32, self.neg_slot32, self.run_of_pos_entry, self.run_of_neg_entry,
                self.pos_end, self.neg_end, self.run_start,
                self.prefix_runs, self.m, self.n, self.k_pos, self.k_neg, in_pos, in_neg,
                state, fpr_lo, fpr_hi, tpr_floor)
        if complete:
            self.ensure_complete()
        done = 0
        parts, heights = [], []
        while True:
            layout = self._kernel_inputs()
            areas, h, n_done = _bootstrap.resample_areas(
                *layout, in_pos[done:], in_neg[done:], state, fpr_lo, fpr_hi, tpr_floor,
                grid=grid, can_complete=self.complete, complete=complete,
                counts_pos=counts_pos, counts_neg=counts_neg)
            parts.append(areas[:n_done])
            heights.append(h[:n_done])
            done += n_done
            if done == in_pos.shape[0]:
                break
            self.ensure_complete()       # resume at resample `done`, its state in `state`
        areas, h = np.concatenate(parts), np.concatenate(heights)
        return (areas, h) if grid is not None else areas

    def _kernel_inputs(self):
        with self._lock:             # one consistent layout, even while another is built
            return (self.run_of_pos_slot, self.run_of_neg_slot, self.run_start,
                    self.prefix_runs, self.touched_runs, self.m, self.n, self.k_pos,
                    self.k_neg)

    def _block(self, seed, size, fpr_lo, fpr_hi, tpr_floor, grid, complete=False):
        in_pos, in_neg, state = self.block_inputs(seed, size)
        counts_pos = np.zeros(self.m, dtype=np.intc) if complete else None
        counts_neg = np.zeros(self.n, dtype=np.intc) if complete else None
        out = self.kernel(in_pos, in_neg, state, fpr_lo, fpr_hi, tpr_floor, grid=grid,
                          complete=complete, counts_pos=counts_pos, counts_neg=counts_neg)
        if complete:
            return out, counts_pos, counts_neg
        return out

    def resample(self, n_resamples, random_state, fpr_lo, fpr_hi, tpr_floor, *,
                 n_jobs=None, grid=None):
        """Areas of ``n_resamples`` resamples: array (n_resamples, S); with ``grid``
        also the heights (n_resamples, G) of the (single) resampled curve."""
        if fpr_hi > self.fpr_hi:
            raise ValueError("the window reaches beyond the FPR the bootstrap was laid out for")
        return resample_blocks(self._block, n_resamples, random_state, fpr_lo, fpr_hi,
                               tpr_floor, n_jobs=n_jobs, grid=grid)

    def one_complete_resample(self, seed, fpr_lo, fpr_hi, tpr_floor):
        """One resample with every multiplicity drawn (tests): its areas (S,) and the
        multiplicity of each input row of each class, ``(pos_counts, neg_counts)`` in
        the order of ``pos_rows`` / ``neg_rows``."""
        areas, counts_pos, counts_neg = self._block(seed, 1, fpr_lo, fpr_hi, tpr_floor,
                                                    None, complete=True)
        by_row_pos = np.empty(self.m, dtype=np.int64)
        by_row_pos[self.pos_slot_row] = counts_pos
        by_row_neg = np.empty(self.n, dtype=np.int64)
        by_row_neg[self.neg_slot_row] = counts_neg
        return areas[0], by_row_pos, by_row_neg
