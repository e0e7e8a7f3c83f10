"""The per-level sorted runs behind `EpochTracker.step_partial` for ordinal labels.

`_Runs` holds the scores of one label level for vectorized ``below`` / ``equal`` queries
under ``O(k)`` changes per epoch (module `streamrank.epochs` says when it is used).
"""

from __future__ import annotations

import numpy as np

from ._kernels import run_starts

__all__ = ["_Runs", "_below_equal"]

#: A level's delta is merged into its base past ``max(_REBUILD_MIN, n / 16)`` changed
#: scores: merging the delta costs O(p) per epoch, the rebuild O(n) once in a while.
_REBUILD_MIN = 4096


class _Runs:
    """The held scores of one label level, for vectorized ``below`` / ``equal`` queries
    under ``O(k)`` changes per epoch.

    Log-structured: a static *base* (sorted distinct scores with cumulative counts or
    weights) plus a small sorted *delta* of the net changes since the base was built (a
    score added counts ``+1`` copy, one removed ``-1``). A query is a binary search in
    each, ``O(log n + log p)`` for ``p`` distinct changed scores; an epoch of ``k`` changes
    merges into the delta in ``O(p + k log k)``; past ``max(_REBUILD_MIN, n / 16)`` changed
    scores the delta is merged into the base, ``O(n)``, which amortizes to ``O(k)`` per
    epoch. No epoch moves all ``n`` scores, unlike a sorted array updated in place.
    """

    __slots__ = ("weighted", "base", "base_cum", "base_copies", "_dv", "_dc", "_dw",
                 "_delta", "_size", "_distinct")

    def __init__(self, sorted_scores: np.ndarray, sorted_weights: np.ndarray | None):
        self.weighted = sorted_weights is not None
        starts = run_starts(sorted_scores)
        self._set_base(sorted_scores[starts],
                       np.diff(starts, append=sorted_scores.size).astype(np.int64),
                       None if sorted_weights is None else (
                           np.add.reduceat(sorted_weights, starts) if starts.size
                           else np.zeros(0)))

    def _set_base(self, values, copies, weights) -> None:
        self.base = values
        self.base_copies = copies
        mass = copies if weights is None else weights
        self.base_cum = np.concatenate(([0], np.cumsum(mass)))
        # The delta: distinct changed scores (sorted), their net copies and net weights.
        self._dv = np.zeros(0, dtype=values.dtype)    # the scores' own dtype: exact
        self._dc = np.zeros(0, dtype=np.int64)
        self._dw = np.zeros(0) if self.weighted else None
        self._delta = None
        self._size = int(copies.sum())
        self._distinct = int(values.size)

    def _materialize(self):
        """The delta as ``(values, cumulative copies, cumulative weights)``."""
        if self._delta is None:
            cum_c = np.concatenate(([0], np.cumsum(self._dc)))
            cum_w = np.concatenate(([0.0], np.cumsum(self._dw))) if self.weighted else cum_c
            self._delta = (self._dv, cum_c, cum_w)
        return self._delta

    def locate(self, x: np.ndarray):
        """Count (weight) of held scores ``< x`` and ``== x``, and the total held.

        Base and delta values are distinct, so one binary search per array suffices: the
        run of ``x``, if any, is the one found."""
        below, equal = _below_equal(self.base, self.base_cum, x)
        total = self.base_cum[-1]
        dv, _, dw = self._materialize()
        if dv.size:
            b2, e2 = _below_equal(dv, dw, x)
            below, equal, total = below + b2, equal + e2, total + dw[-1]
        return below, equal, total

    def between(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Count (weight) of held scores strictly between ``lo`` and ``hi`` (``lo <= hi``)."""
        out = self.base_cum[np.searchsorted(self.base, hi, side="left")] - \
            self.base_cum[np.searchsorted(self.base, lo, side="right")]
        dv, _, dw = self._materialize()
        if dv.size:
            out = out + dw[np.searchsorted(dv, hi, side="left")] - \
                dw[np.searchsorted(dv, lo, side="right")]
        return out

    def distinct(self) -> int:
        """Number of distinct scores held. Runtime complexity: O(1)."""
        return self._distinct

    def _held_copies(self, x: np.ndarray) -> np.ndarray:
        """Copies held at each of the sorted distinct values ``x`` (base + delta)."""
        out = np.zeros(x.size, dtype=np.int64)
        for values, copies in ((self.base, self.base_copies), (self._dv, self._dc)):
            if values.size:
                at = np.searchsorted(values, x)
                safe = np.minimum(at, values.size - 1)
                hit = values[safe] == x
                out += np.where(hit, copies[safe], 0)
        return out

    def replace(self, old: np.ndarray, new: np.ndarray, w: np.ndarray | None) -> None:
        """Remove the held scores ``old`` and add ``new`` (weights ``w``, aligned):
        ``O(p + k log k)`` to merge the change into the sorted delta."""
        k = old.size
        ones = np.ones(k, dtype=np.int64)
        touched = np.unique(np.concatenate((old, new)))
        was_held = self._held_copies(touched) > 0
        values = np.concatenate((self._dv, old, new))
        copies = np.concatenate((self._dc, -ones, ones))
        # The delta is one sorted run and the change is sorted here: timsort merges them.
        order = np.argsort(values, kind="stable")
        values = values[order]
        starts = run_starts(values)
        self._dv = values[starts]
        self._dc = np.add.reduceat(copies[order], starts) if starts.size else copies
        if self.weighted:
            weights = np.concatenate((self._dw, -w, w))[order]
            self._dw = np.add.reduceat(weights, starts) if starts.size else weights
        self._delta = None
        self._distinct += int(np.count_nonzero(self._held_copies(touched) > 0)) - \
            int(np.count_nonzero(was_held))
        if self._dv.size > max(_REBUILD_MIN, self._size // 16):
            self._rebuild()

    def _rebuild(self) -> None:
        """Merge the delta into the base: ``O(n + p)``."""
        values = np.concatenate((self.base, self._dv))
        copies = np.concatenate((self.base_copies, self._dc))
        order = np.argsort(values, kind="stable")  # two sorted runs: a linear merge
        values, copies = values[order], copies[order]
        starts = run_starts(values)
        copies = np.add.reduceat(copies, starts) if starts.size else copies
        values = values[starts]
        weights = None
        if self.weighted:
            both = np.concatenate((np.diff(self.base_cum), self._dw))[order]
            weights = np.add.reduceat(both, starts) if starts.size else both
        keep = copies > 0
        self._set_base(values[keep], copies[keep], None if weights is None else weights[keep])

    def _check(self) -> None:
        assert np.all(np.diff(self.base) > 0), "base values strictly increasing"
        assert np.all(self.base_copies > 0), "every base run holds a score"
        assert self.base_cum.size == self.base.size + 1
        everything = np.union1d(self.base, self._dv)
        assert self._distinct == int(np.count_nonzero(self._held_copies(everything) > 0))


def _below_equal(values, cum, x):
    """Cumulative mass below ``x`` and at ``x`` for distinct sorted ``values``."""
    at = np.searchsorted(values, x)
    below = cum[at]
    if not values.size:
        return below, np.zeros_like(below)
    hit = values[np.minimum(at, values.size - 1)] == x
    equal = np.where(hit, cum[np.minimum(at + 1, values.size)] - below, 0)
    return below, equal
