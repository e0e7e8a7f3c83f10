"""The batch path of `streamrank.engine.PairEngine` (a mixin of it): arrays of samples
added, removed, or read against what is held, and the recount from scratch.

A batch smaller than what is held runs as single changes in one C loop, in score order
(``O(k log n)``: the arithmetic of single changes); a batch as large as what is held is
counted at once -- the pairs inside it (the batch kernel, ``O(k log k)``), against the held
samples (``pairs_with_many``), then one ``O((n + k) log(n + k))`` rebuild of the
structure. Integer weights take the per-sample path where numpy's float64 sums would not
count them exactly (`_vector_exact`).
"""

from __future__ import annotations

import numpy as np

from ._typing import Count
from ._validation import INT_TOTAL_MAX, describe, param_error
from .batch._kernels import count_pairs
from .counts import PairCounts

__all__: list[str] = []

_FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both")


class BatchPath:
    """`PairEngine`'s batch methods; they use the engine's structure (``_dom``), counts
    (``_sums``) and single-change path (``add`` / ``remove`` / ``_add``)."""

    def add_many(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None,
                 func: str = "PairEngine.add_many") -> None:
        """Add validated arrays of samples. A batch smaller than what is held goes
        through the compiled single changes in one C loop, in score order (``O(k log n)``
        per the structure's cost, the arithmetic of single changes). A batch as large as
        what is held (``k >= n``) is counted at once and the structure rebuilt: ``O(k log
        k)`` for the pairs inside the batch (the batch kernel), the batch against the held
        samples (``pairs_with_many``), then ``O((n + k) log(n + k))`` for the rebuild."""
        if y.size == 0:
            return
        new_labels = set(np.unique(y).tolist())
        self.check_labels_after((), new_labels, func)
        if y.size < max(len(self._dom), 256):
            self._change_each(y, s, w, 1, func)
            return
        wv = self._weights_for(w)
        if not self._vector_exact(wv, wv):
            for yi, si, wi in zip(y.tolist(), s.tolist(), wv.tolist()):
                self._add(yi, si, wi, func)
            return
        self._make_room(new_labels)
        inside = count_pairs(y, s, None if wv is None else wv.astype(np.float64))
        terms = self._batch_terms(y, s, wv) if len(self._dom) else [self._dtype(0)] * 5
        terms = [t + _count_value(inside, f, self._dtype) for t, f in zip(terms, _FIELDS)]
        self._load(y, s, wv)
        self._accumulate(terms, 1, _batch_sum(y, wv, self._dtype))

    def remove_many(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> None:
        """Remove validated arrays of samples that the caller knows are held (a keyed
        counter does), in the compiled loop of `add_many`: ``O(k log n)`` per the
        structure's cost. A sample that is not held raises with the samples before it (in
        score order) removed and counted."""
        if y.size == 0:
            return
        self._change_each(y, s, w, -1, "PairEngine.remove_many")

    def pairs_with_many(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None = None
                        ) -> tuple[Count, ...]:
        """``sum_i w_i * (C_i, D_i, T_i, Ty_i, Tyy_i)``: the pairs that the samples ``(y_i,
        s_i)`` would form with the held samples, one by one (not with each other), read
        without changing anything; ``y_i`` may be a label that is not held.

        ``y``, ``s`` and ``w`` (``None``: unit weights) are validated float64 arrays; with
        exact integer counts the weights must be integers. A label above every held one
        reads, in ``C``, ``D`` and ``T``, the weight held below, above and at each score.
        Runtime complexity: ``O(k log n)`` in C with at most two label levels;
        ``O(L (n + k log n))`` with ``L`` levels; ``O(k log^2 n)`` with the dominance
        counter.

        >>> from streamrank.engine import PairEngine
        >>> e = PairEngine()
        >>> for y, s in [(0, 0.1), (1, 0.4), (0, 0.6)]:
        ...     e.add(y, s)
        >>> e.pairs_with_many(np.array([2.0, 2.0]), np.array([0.4, 0.5]))  # below, above, at
        (3, 2, 1, 0, 0)
        """
        if y.size == 0:
            return (self._dtype(0),) * 5
        if w is not None and self._dtype is int:
            if not _integral(w):
                raise param_error("w", "PairEngine.pairs_with_many", "integer weights (the "
                                  "counts are exact integers)", describe(w))
            w = w.astype(np.int64)
        elif w is not None:
            w = w.astype(np.float64)
        return tuple(self._dtype(t) for t in self._dom.pairs_with_many(y, s, w))

    def _change_each(self, y, s, w, sign, func) -> None:
        """Add (``sign=1``) or remove a batch one sample at a time in the compiled loop
        (``O(k log n)``, exact: the same arithmetic as single changes); a sample that needs
        the checked path (a float switch, a new level the structure cannot take) takes
        it, and the rest goes back to the compiled loop while a level counter holds the
        samples."""
        self._cached = None
        pos = np.arange(y.size)
        while pos.size:
            rest = self._dom.engine_change_arrays(y[pos], s[pos],
                                                  None if w is None else w[pos], sign)
            if not rest.size:
                return
            pos = pos[rest]
            i = int(pos[0])
            wi = 1 if w is None else float(w[i])
            if sign > 0:
                self.add(float(y[i]), float(s[i]), wi, caller=func)
            else:
                self.remove(float(y[i]), float(s[i]), wi, caller=func)
            pos = pos[1:]

    def rebuild(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> None:
        """Recount from scratch, when `stale`: replace what is held by the validated samples
        ``(y, s, w)``, which the caller holds exactly (a keyed counter or a window does);
        the counts then carry one batch count's rounding. ``O(n log n)``."""
        dtype = self._dtype
        self._reset_counts()
        self._set_structure(dtype, self._kind)
        if dtype is float:
            w = np.ones(y.size) if w is None else np.asarray(w, np.float64)
        self.add_many(np.asarray(y, np.float64), np.asarray(s, np.float64), w,
                      "PairEngine.rebuild")
        self._sums.hist = float(self._sums.weight()) if dtype is float else 0.0
        self._sums.exposure = 0.0       # fresh structures: no weight passed through them

    def _weights_for(self, w):
        """Batch weights in the engine's arithmetic: None (unit), int64 or float64."""
        if w is None:
            return None
        if (self._dtype is int and _integral(w)
                and self._sums.weight() + float(w.sum()) <= INT_TOTAL_MAX):
            return w.astype(np.int64)
        if self._dtype is int:
            self._to_float()
        return w.astype(np.float64)

    def _vector_exact(self, wv, added) -> bool:
        """Whether numpy's float64 sums count a batch of integer weights exactly: every
        partial sum of pair weights must stay below ``2**53``. Larger integer weights take
        the per-sample path, whose counts are Python ints."""
        if wv is None or self._dtype is float:
            return True
        total = float(self._sums.weight()) + (0.0 if added is None else float(added.sum()))
        return total * total < 2.0 ** 53

    def _batch_terms(self, y, s, wv) -> list:
        """``sum_i w_i * pairs_with(y_i, s_i)`` over a batch, vectorized."""
        totals = self._dom.pairs_with_many(y, s, wv)
        return [self._dtype(t) for t in totals]

    def _load(self, y, s, wv) -> None:
        """Rebuild the structure with a batch added (counts are handled by the caller)."""
        hy, hs, hc, hw, hp = self._items()
        one = np.ones(y.size, dtype=np.int64)
        ww = one if wv is None else wv
        self._set_structure(self._dtype, self._kind)
        self._dom.load(np.concatenate((hy, y)), np.concatenate((hs, s)),
                       np.concatenate((hc, one)),
                       np.concatenate((hw, ww)).astype(np.int64 if self._dtype is int
                                                       else np.float64),
                       np.concatenate((hp, (ww > 0).astype(np.int64))))


def _count_value(pc: PairCounts, field: str, dtype):
    """A batch count in the engine's arithmetic (integer weights give integral floats)."""
    v = getattr(pc, field)
    return int(round(v)) if dtype is int and isinstance(v, float) else dtype(v)


def _batch_sum(y: np.ndarray, wv, dtype):
    """The weight of a batch in the engine's arithmetic."""
    if wv is None:
        return int(y.size)
    return int(wv.sum()) if dtype is int else float(wv.sum())


def _integral(w: np.ndarray) -> bool:
    return bool(np.all(np.floor(w) == w)) and (w.size == 0 or float(w.max()) <= 2**53)
