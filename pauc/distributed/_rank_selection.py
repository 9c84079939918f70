"""The k-th highest of numbers spread over workers, exact, by histogram refinement.

The window of a window loss is bounded by the ``j_alpha + 1``-th and the
``j_beta``-th highest *negative* score of all training rows (Narasimhan &
Agarwal, eq. (2)).  When the rows live on several workers, each worker
ranks only its own negatives; the global order statistics need a distributed
selection.  This one talks to the other workers only through two reductions
of small fixed-size arrays -- ``sum`` of ``int64`` counts and ``max`` of
``uint64`` keys -- so it runs on any allreduce (XGBoost's collective here,
:mod:`pauc.distributed._collective`), and in a test on a list of partitions
(:func:`select_in_memory`).

The protocol, for one or more targets ``k`` (ranks from the top, 1-based):

1. Scores become order-preserving unsigned 64-bit *keys*
   (:func:`order_keys`): an integer order, so a bin of keys is exact -- no
   floating-point bin edge can misplace a score -- and a bin of width one key
   holds a single score value.
2. One ``max`` reduction gives the largest and the smallest key: every
   target lies in that range, with no key above it.
3. A round: each worker counts its keys of each target's range in ``bins``
   equal bins (``int64``, one ``sum`` reduction); every worker then walks the
   same global counts from the top to the bin holding the target, and keeps
   that bin as the new range, with the count above it.  One ``max``
   reduction shrinks each range to the smallest and largest key inside it
   (so a bin holding one distinct score is recognised at once).
4. A target is exact when its range is a single key: its value, the number
   of keys above it and the number tied with it are known on every worker.

Each round cuts the range by a factor ``bins`` at least, so a float64 key
(64 bits) needs at most ``ceil(64 / log2(bins))`` rounds; scores spread over
many distinct values take two or three.  Per round each worker sends ``bins
+ 2`` numbers per target, independently of the number of rows.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016
(the allreduce of histograms that grows XGBoost's distributed trees; the same
idea finds the window's borders here).
"""

from dataclasses import dataclass

import numpy as np

from . import _window_kernels as _kernels

__all__ = ["DEFAULT_BINS", "Selected", "order_keys", "key_values", "select_ranks"]

# bins per target and round: 2 * 1024 int64 counts = 16 KiB for the two borders
DEFAULT_BINS = 1024
# values per block of the passes over every local value (bounded temporaries)
BLOCK = 1 << 16
_SIGN = np.uint64(1 << 63)
_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def order_keys(values):
    """``uint64`` keys in the order of the float ``values`` (``a < b`` iff key(a) < key(b)).

    The IEEE-754 bits of a non-negative float64 grow with it; setting their
    sign bit puts them above every negative, whose bits are inverted (they
    grow as the value falls).  ``-0.0`` is made ``+0.0`` first, so equal
    values have equal keys.  NaN must have been refused by the caller.
    Computed in blocks of ``BLOCK`` values: the temporaries stay small next
    to the 8 bytes per value of the keys.
    """
    values = np.asarray(values)
    keys = np.empty(values.shape[0], dtype=np.uint64)
    for start in range(0, values.shape[0], BLOCK):
        block = values[start:start + BLOCK].astype(np.float64) + 0.0    # -0.0 -> +0.0
        bits = block.view(np.uint64)
        keys[start:start + BLOCK] = np.where(bits & _SIGN, ~bits, bits | _SIGN)
    return keys


def key_values(keys):
    """The floats of ``order_keys`` keys (its inverse)."""
    keys = np.asarray(keys, dtype=np.uint64)
    bits = np.where(keys & _SIGN, keys & ~_SIGN, ~keys)
    return bits.view(np.float64)


@dataclass
class Selected:
    """The ``k``-th highest value: ``value``, how many are strictly above it and
    how many equal it (over every worker)."""

    value: float
    above: int
    tied: int


class _Target:
    """One rank being selected: the key range ``[lo, hi]`` that holds it, the
    count of keys above ``hi`` and inside the range, and this worker's keys in
    the range once it is narrower than all of them (``candidates``)."""

    def __init__(self, k, lo, hi, total):
        self.k, self.lo, self.hi, self.above, self.inside = k, lo, hi, 0, total
        self.candidates = None

    @property
    def done(self):
        return self.lo == self.hi

    def binning(self, bins_log2):
        """``(shift, n_bins)``: bin of key ``x`` is ``(x - lo) >> shift``."""
        width = self.hi - self.lo
        shift = max(0, width.bit_length() - bins_log2)
        return shift, (width >> shift) + 1


class _LocalKeys:
    """This worker's keys (:func:`order_keys`) of ``values[mask]``, computed by the
    C passes of :mod:`pauc.distributed._window_kernels` whenever they are read: no
    array of keys (8 bytes per value) and no copy of the selected values is kept
    -- a pass recomputes each key, which costs less than the histogram it feeds."""

    def __init__(self, values, mask=None):
        values = np.asarray(values)
        if values.dtype not in (np.float32, np.float64):
            values = values.astype(np.float64)
        self.values = np.ascontiguousarray(values)
        if mask is not None and mask.shape[0] != self.values.shape[0]:
            raise ValueError(f"mask has {mask.shape[0]} entries for {self.values.shape[0]} "
                             "values")
        self.mask = (np.empty(0, np.uint8) if mask is None
                     else np.ascontiguousarray(mask, dtype=bool).view(np.uint8))

    def extremes(self):
        """``[max key, ~min key]`` (0, 0 without values: the identity of ``max``)."""
        return _kernels.key_extremes(self.values, self.mask)

    def counts(self, targets, bins_log2):
        """Each target's bin counts of the keys in its range, one pass for all."""
        counts = np.zeros((len(targets), 1 << bins_log2), dtype=np.int64)
        if targets:
            shifts = np.array([t.binning(bins_log2)[0] for t in targets], dtype=np.int64)
            _kernels.key_counts(self.values, self.mask,
                                np.array([t.lo for t in targets], dtype=np.uint64),
                                np.array([t.hi for t in targets], dtype=np.uint64),
                                shifts, counts)
        return counts

    def in_range(self, target):
        return _kernels.keys_in_range(self.values, self.mask, np.uint64(target.lo),
                                      np.uint64(target.hi))


def _range(block, target):
    lo, hi = np.uint64(target.lo), np.uint64(target.hi)
    return block[(block >= lo) & (block <= hi)]


def _local_counts(keys, targets, bins_log2):
    """Each target's ``2 ** bins_log2`` bin counts of this worker's keys in its
    range, concatenated: one pass over every key for the targets without
    candidates, their candidates only for the others."""
    pending = [j for j, t in enumerate(targets) if t.candidates is None]
    counts = np.zeros((len(targets), 1 << bins_log2), dtype=np.int64)
    counts[pending] = keys.counts([targets[j] for j in pending], bins_log2)
    for j, t in enumerate(targets):
        if t.candidates is not None:
            inside = _range(t.candidates, t)
            if inside.size:
                shift, n_bins = t.binning(bins_log2)
                counts[j, :n_bins] += np.bincount(
                    ((inside - np.uint64(t.lo)) >> np.uint64(shift)).astype(np.intp),
                    minlength=n_bins)
    return counts.ravel()


def _local_extremes(keys, targets):
    """``[max key, ~min key]`` per target of the keys in its range (0, 0 when none:
    the identity of an unsigned ``max``); keeps them as the target's candidates."""
    out = []
    for t in targets:
        t.candidates = keys.in_range(t) if t.candidates is None else _range(t.candidates, t)
        out += ([t.candidates.max(), ~t.candidates.min()] if t.candidates.size
                else [np.uint64(0), np.uint64(0)])
    return np.array(out, dtype=np.uint64)


def _descend(target, counts, bins_log2):
    """Move ``target`` into the bin of the global ``counts`` that holds its rank."""
    shift, n_bins = target.binning(bins_log2)
    counts = counts[:n_bins]
    # walk from the highest bin down: the target is the (k - above)-th key inside
    rank = target.k - target.above
    from_top = np.cumsum(counts[::-1])
    b_rev = int(np.searchsorted(from_top, rank))      # first bin (from the top) reaching it
    b = n_bins - 1 - b_rev
    target.above += int(from_top[b_rev] - counts[b])
    target.inside = int(counts[b])
    lo = target.lo + (b << shift)
    target.hi = min(target.hi, lo + (1 << shift) - 1)
    target.lo = lo


def select_ranks(local_values, ranks, total, comm, bins=DEFAULT_BINS, mask=None):
    """The ``k``-th highest of the values held by every worker, for each ``k`` in ``ranks``.

    Every worker calls it with its own ``local_values`` (possibly empty) and
    the same ``ranks`` and ``total``; all return the same result.

    Parameters
    ----------
    local_values : ndarray of float
        This worker's values (finite).
    ranks : sequence of int
        Ranks from the top, ``1 <= k <= total``.
    total : int
        The number of values over every worker.
    comm : communicator
        ``comm.sum(int64 array)`` and ``comm.max(uint64 array)``: the
        elementwise sum and maximum over the workers
        (:class:`pauc.distributed._collective.XGBoostCollective`).
    bins : int, default=1024
        Bins per target and round, a power of two.
    mask : ndarray of bool or None, default=None
        Select among ``local_values[mask]`` (read block by block, never copied).

    Returns
    -------
    selected : list of Selected
        One per rank.
    rounds : int
        Histogram rounds run (each one ``sum`` and one ``max`` reduction,
        after one initial ``max``).
    """
    bins_log2 = int(bins).bit_length() - 1
    if bins < 2 or (1 << bins_log2) != bins:
        raise ValueError(f"bins must be a power of two >= 2, got {bins}")
    for k in ranks:
        if not 1 <= k <= total:
            raise ValueError(f"rank {k} is outside 1..{total}")
    keys = _LocalKeys(local_values, mask)
    first = comm.max(keys.extremes())
    hi, lo = int(first[0]), int(~first[1])
    targets = [_Target(int(k), lo, hi, total) for k in ranks]
    rounds = 0
    while not all(t.done for t in targets):
        active = [t for t in targets if not t.done]
        counts = comm.sum(_local_counts(keys, active, bins_log2))
        for t, c in zip(active, np.split(counts, len(active))):
            _descend(t, c, bins_log2)
        extremes = comm.max(_local_extremes(keys, active))
        for j, t in enumerate(active):
            t.hi, t.lo = int(extremes[2 * j]), int(~extremes[2 * j + 1] & int(_ALL_ONES))
        rounds += 1
    values = key_values(np.array([t.lo for t in targets], dtype=np.uint64))
    return [Selected(float(v), t.above, t.inside) for v, t in zip(values, targets)], rounds
