"""`EpochTracker`: exact pair counts of a fixed labelled set whose scores move every epoch.

The pair counts of a model under training follow its scores from epoch to epoch instead
of being recounted from scratch. The labels stay fixed; the scores move. Three ways in,
each on its fastest exact path:

* ``step(y_score)`` — any new score vector. Noise-like moves reshuffle the order, and
  measured here reusing the previous order does not beat a fresh sort, so this is a
  from-scratch count on the pre-encoded labels (no faster path exists; none is claimed).
* ``step_additive(delta, groups)`` — every score moves by an amount shared within its group
  (a boosting round adds one tree: all samples of a leaf move together). Inside a group the
  previous order survives, so the new order is a merge of the groups' ``L`` runs. Measured
  here (n = 1e6, 31 groups), that merge -- a stable radix sort by group then timsort,
  or a compiled heap over the runs' heads -- costs more than numpy's
  vectorized ``argsort`` of the new scores, and counting in the merged order costs as
  much as the per-level sorts of ``step``. So this epoch is counted as ``step`` counts
  one, from the validated shifted scores: no cheaper exact path is claimed.
* ``step_partial(indices, new_scores)`` — a few scores changed. Binary and ordinal labels
  (up to 8 levels): a `PairEngine` holds every sample, and the ``k`` changes are ``k``
  removals and ``k`` additions in its compiled loop, ``O(k L log n)`` for ``L`` levels
  (the engine is built at the first `step_partial` after another kind of epoch, ``O(n log
  n)``). Continuous labels (more than 8 levels), and integer scores beyond ``2**53`` that
  float64 would tie, take an ``O(n log L)`` re-merge instead.

**Scores are compared exactly**, as `streamrank.pair_counts` compares them: integer scores
(bool, int) are held as int64 (uint64 past ``2**63 - 1``), others as float64, so integer
scores beyond ``2**53`` that float64 would tie stay apart. An epoch that mixes integer and
float scores (float ``new_scores`` or ``delta`` on integer scores, or the reverse) holds
them as float64 when every integer held is within ``+-2**53`` (exact), else as integers
when every float is integral (exact too); otherwise it raises `ValueError` before
anything changes.

``churn`` is the number (weight) of pairs whose score order flipped strictly between two
consecutive epochs: the Kendall distance between the score vectors, a training-stability
figure. It costs an extra ``O(n log n)`` count for ``step`` and ``step_additive``
(``track_churn=False`` skips it): the new scores in the previous epoch's order (a tracked
epoch keeps its order, so no sort), and the compiled merge sort of
`streamrank.batch._kernels.discordant_pairs` counts their strict inversions. For
``step_partial`` it is ``O(k log n)``: the weight held strictly between each changed
sample's old and new score (two `PairEngine.pairs_with_many` reads of the engine while it
holds the unchanged samples), plus the inversions among the ``k``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._snapshot import Pickled
from .._typing import Count
from ..batch._kernels import (
    MAX_ORDINAL_LEVELS,
    _count_levels,
    count_in_score_order,
    dense_ranks,
    discordant_pairs,
)
from .._validation import as_1d_numeric, check_weights, describe, param_error
from ..counts import PairCounts
from ..engine import PairEngine

__all__ = ["EpochTracker"]

_EXACT_IN_FLOAT = 1 << 53

def _float_exact(s: np.ndarray) -> bool:
    """Whether float64 holds every score of ``s`` exactly (the engine's scores). O(n)."""
    return s.dtype.kind == "f" or not s.size or (
        int(s.min()) >= -_EXACT_IN_FLOAT and int(s.max()) <= _EXACT_IN_FLOAT)


def _scores(values, name, func, *, allow_empty=False, copy=False) -> np.ndarray:
    """Scores as the tracker holds them: int64 for bool and int input (uint64 when a value
    exceeds the int64 range), float64 otherwise; finite; a fresh array with ``copy``."""
    s = as_1d_numeric(values, name, func, allow_empty=allow_empty)
    if s.dtype.kind in "bi" or s.dtype.kind == "u" and (
            not s.size or s.max() <= np.iinfo(np.int64).max):
        dtype = np.int64
    elif s.dtype.kind == "u":
        dtype = np.uint64
    else:
        dtype = np.float64
    return s.astype(dtype, copy=copy)


def _common_dtype(held: np.ndarray, new: np.ndarray, name: str, func: str) -> np.dtype:
    """The dtype that holds both ``held`` and ``new`` scores exactly (see the module
    docstring); `ValueError` naming ``name`` when there is none. O(n)."""
    if held.dtype == new.dtype:
        return held.dtype
    if held.dtype.kind != "f" and new.dtype.kind != "f":       # int64 and uint64
        signed = held if held.dtype.kind == "i" else new
        if not signed.size or signed.min() >= 0:
            return np.dtype(np.uint64)
        raise param_error(name, func, "scores that one integer dtype holds exactly", "negative "
                          "scores next to scores above 2**63 - 1")
    ints, floats = (held, new) if new.dtype.kind == "f" else (new, held)
    if not ints.size or (ints.min() >= -_EXACT_IN_FLOAT and ints.max() <= _EXACT_IN_FLOAT):
        return np.dtype(np.float64)
    info = np.iinfo(ints.dtype)
    if not floats.size or (np.all(np.floor(floats) == floats) and floats.min() >= info.min
                           and floats.max() < float(info.max) + 1):
        return ints.dtype
    raise param_error(name, func, "scores that compare exactly with the integer scores "
                      "held (integral floats, or integers within +-2**53 of 0)",
                      f"non-integral floats next to integers beyond 2**53 (such as "
                      f"{int(ints[np.argmax(np.abs(ints.astype(np.float64)))])})")


class EpochTracker(Pickled):
    """Exact pair counts of fixed labels under scores that change every epoch.

    Not thread-safe: give each thread its own tracker, or guard every call on a shared one,
    reads included, with one `threading.Lock`.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The fixed labels (binary, ordinal or continuous).
    sample_weight : array-like of shape (n,), optional
        Positive weights.
    track_churn : bool, default True
        Count the pairs whose order flipped between consecutive epochs (`churn`).

    Attributes
    ----------
    history : list of PairCounts
        The counts of every epoch so far.
    churn_history : list of int, float or None
        The churn between each epoch and the one before (``None`` for the first epoch).

    Examples
    --------
    >>> import numpy as np
    >>> from streamrank import EpochTracker
    >>> tracker = EpochTracker([0, 0, 1, 1, 1])
    >>> tracker.step([0.1, 0.6, 0.4, 0.5, 0.9]).auc           # epoch 1: any scores
    0.6666666666666666
    >>> tracker.step_partial([1], [0.3]).auc                 # one score changed
    1.0
    >>> tracker.churn                                        # pairs that flipped
    2
    >>> leaf = np.array([0, 0, 1, 1, 1])                     # a tree adds one value per leaf
    >>> tracker.step_additive(np.array([0.5, 0.0]), leaf).auc
    0.3333333333333333
    >>> [round(c.auc, 3) for c in tracker.history], tracker.churn_history
    ([0.667, 1.0, 0.333], [None, 2, 4])
    """

    def __init__(self, y_true: ArrayLike, *, sample_weight: ArrayLike | None = None,
                 track_churn: bool = True) -> None:
        func = "EpochTracker"
        y = as_1d_numeric(y_true, "y_true", func)
        w = check_weights(sample_weight, y.size, func, bounded=True)
        if w is not None and not (w > 0).all():
            raise param_error("sample_weight", func, "positive (a tracked sample needs a "
                              "weight > 0)", f"{w.min()!r}")
        self._n = int(y.size)
        self._w = w
        self._y_rank, self._n_levels = dense_ranks(y)
        self._codes = self._y_rank.astype(np.uint8) if self._n_levels <= MAX_ORDINAL_LEVELS \
            else None
        self.track_churn = bool(track_churn)
        self._scores = None
        self._order = None   # argsort of the current scores, when known
        self._engine = None  # PairEngine of (label code, score, weight), when built
        self.history: list[PairCounts] = []
        self.churn_history: list[Count | None] = []

    # ------------------------------------------------------------------ properties
    def __len__(self) -> int:
        return self._n

    @property
    def counts(self) -> PairCounts | None:
        """The counts of the latest epoch (``None`` before the first)."""
        return self.history[-1] if self.history else None

    @property
    def churn(self) -> Count | None:
        """Pairs (weight) whose score order flipped in the latest epoch (``None`` if not
        tracked or before the second epoch)."""
        return self.churn_history[-1] if self.churn_history else None

    @property
    def scores(self) -> np.ndarray | None:
        """The current scores (a read-only view; `step_partial` updates it in place):
        int64 (or uint64) for integer scores, float64 otherwise (see the module
        docstring)."""
        if self._scores is None:
            return None
        view = self._scores.view()
        view.flags.writeable = False
        return view

    # ------------------------------------------------------------------ epochs
    def step(self, y_score: ArrayLike) -> PairCounts:
        """A new epoch with arbitrary scores: a from-scratch ``O(n log n)`` count.

        Runtime complexity: the cost of `streamrank.pair_counts` on pre-encoded labels
        (plus an ``O(n log n)`` churn count when tracked).
        """
        s = _scores(y_score, "y_score", "EpochTracker.step", copy=True)
        if s.size != self._n:
            raise param_error("y_score", "EpochTracker.step", f"of length {self._n} "
                              "(len(y_true))", f"length {s.size}")
        churn = self._full_churn(s)
        counts, order = self._count(s)
        return self._commit(s, counts, order, churn)

    def step_additive(self, delta: ArrayLike, groups: ArrayLike) -> PairCounts:
        """A new epoch where score ``i`` moves by ``delta[groups[i]]``.

        Runtime complexity: ``O(n)`` to validate and shift the scores, then the count of
        `step` (``O(n log n)``; see the module docstring for why no merge of the groups'
        runs is used).

        Parameters
        ----------
        delta : array-like of shape (L,)
            The move of each group (a tree's leaf values).
        groups : array-like of int, shape (n,)
            The group of each sample, in ``0..L-1``.
        """
        func = "EpochTracker.step_additive"
        self._require_scores(func)
        d = _scores(delta, "delta", func)
        g = np.asarray(groups)
        if g.ndim != 1 or g.dtype.kind not in "iu":
            raise param_error("groups", func, "a 1-D array of integer group ids",
                              describe(g), TypeError)
        if g.size != self._n:
            raise param_error("groups", func, f"of length {self._n} (one group per sample)",
                              f"length {g.size}")
        if g.size and (g.min() < 0 or g.max() >= d.size):
            raise param_error("groups", func, f"group ids in [0, {d.size}) (len(delta))",
                              f"ids from {g.min()} to {g.max()}")
        dtype = _common_dtype(self._scores, d, "delta", func)
        held, dg = self._scores.astype(dtype, copy=False), d.astype(dtype, copy=False)[g]
        with np.errstate(over="ignore", invalid="ignore"):   # an overflow is refused below
            new = held + dg
        if dtype.kind == "f":
            bad = not np.isfinite(new).all()
        elif dtype.kind == "i":     # int64 wraps around: the sign tells
            bad = bool((((held ^ new) & (dg ^ new)) < 0).any())
        else:
            bad = bool((new < held).any())
        if bad:
            raise param_error("delta", func, "moves that keep every score finite (and "
                              f"within {dtype} for integer scores)", "a move that overflows")
        churn = self._full_churn(new)
        counts, order = self._count(new)
        return self._commit(new, counts, order, churn)

    def step_partial(self, indices: ArrayLike, new_scores: ArrayLike) -> PairCounts:
        """A new epoch where only the scores at ``indices`` changed.

        Runtime complexity: ``O(k log n)`` for ``k`` changes with binary labels (``k``
        removals and ``k`` additions in the engine's compiled loop); with ordinal labels
        ``O(k log n)`` searches and an ``O(k log k)`` count, plus merging the changes into
        the runs (``O(k)`` amortized); ``O(n log L)`` for continuous labels (module
        docstring). The first call after a `step` or `step_additive` first builds the
        engine or the runs, ``O(n log n)``.

        Parameters
        ----------
        indices : array-like of int, shape (k,)
            Distinct sample positions in ``0..n-1``.
        new_scores : array-like of shape (k,)
            Their new scores.
        """
        func = "EpochTracker.step_partial"
        self._require_scores(func)
        idx = np.asarray(indices)
        if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
            raise param_error("indices", func, "a 1-D array of integer positions",
                              describe(idx), TypeError)
        idx = idx.astype(np.intp)
        v = _scores(new_scores, "new_scores", func, allow_empty=True)
        if v.size != idx.size:
            raise param_error("new_scores", func, f"of length {idx.size} (len(indices))",
                              f"length {v.size}")
        if idx.size and (idx.min() < 0 or idx.max() >= self._n):
            raise param_error("indices", func, f"positions in [0, {self._n})",
                              f"positions from {idx.min()} to {idx.max()}")
        if np.unique(idx).size != idx.size:
            raise param_error("indices", func, "distinct positions", "repeated positions")
        dtype = _common_dtype(self._scores, v, "new_scores", func)
        if dtype != self._scores.dtype:     # exact and order-preserving: counts unchanged
            self._scores = self._scores.astype(dtype)  # (the engine's float64 values
            #                                               stay the same)
        v = v.astype(dtype, copy=False)
        if self._codes is not None and _float_exact(v) and (
                self._engine is not None or _float_exact(self._scores)):
            return self._step_engine(idx, v)
        new = self._scores.copy()
        new[idx] = v
        churn = self._partial_churn_generic(idx, v) if self.track_churn else None
        order = np.argsort(new, kind="stable") if self._order is None else \
            self._reorder(idx, v, new)
        return self._commit(new, self._count_ordered(order, new), order, churn)

    # ------------------------------------------------------------------ internals
    def _require_scores(self, func) -> None:
        if self._scores is None:
            raise RuntimeError(f"{func} needs a previous epoch: call step(y_score) first.")

    def _count(self, s):
        """``(counts, order)`` of the scores ``s`` from scratch, ``O(n log n)``; the order
        (an argsort) only when churn is tracked, for the next epoch's churn.

        Binary and ordinal labels: per-level sorts (`_count_levels`), which sum every
        weighted count directly. Unweighted with churn tracked, an argsort and the exact
        integer count in that order instead (cheaper than both); continuous labels always
        so. (In score order the weighted counts come from differences of pair totals, which
        lose tiny weights next to large ones: not used with weights.)"""
        if self._codes is not None and (self._w is not None or not self.track_churn):
            counts = _count_levels(self._codes, self._n_levels, s, self._w)
            return counts, np.argsort(s) if self.track_churn else None
        order = np.argsort(s)
        return self._count_ordered(order, s), order

    def _count_ordered(self, order, s) -> PairCounts:
        w = None if self._w is None else self._w[order]
        return count_in_score_order(self._y_rank[order], self._n_levels, s[order], w)

    def _full_churn(self, new, previous=None):
        """Churn against the held scores; ``previous``: their argsort, if known."""
        if not self.track_churn or self._scores is None:
            return None
        # The pairs the previous and the new scores order strictly opposite ways, counted in
        # the previous order (known after step on continuous labels and step_additive).
        return discordant_pairs(self._scores, new, self._w,
                                self._order if previous is None else previous)

    def _commit(self, s, counts, order, churn) -> PairCounts:
        self._scores, self._order, self._engine = s, order, None
        self.history.append(counts)
        self.churn_history.append(churn)
        return counts

    def _reorder(self, idx, v, new):
        """The argsort of ``new`` from the previous order: drop the moved samples, merge
        them back at their new places (``O(n)`` moves plus ``O(k log k)``)."""
        moved = np.zeros(self._n, dtype=bool)
        moved[idx] = True
        kept = self._order[~moved[self._order]]
        ins = idx[np.argsort(v, kind="stable")]
        at = np.searchsorted(new[kept], new[ins], side="right")
        return np.insert(kept, at, ins)

    def _partial_churn_generic(self, idx, v):
        old = self._scores[idx]
        others = np.ones(self._n, dtype=bool)
        others[idx] = False
        rest = self._scores[others]
        lo, hi = np.minimum(old, v), np.maximum(old, v)
        srt = np.sort(rest) if self._w is None else None
        if self._w is None:
            between = np.searchsorted(srt, hi, "left") - np.searchsorted(srt, lo, "right")
            cross = int(np.maximum(between, 0).sum())
        else:
            order = np.argsort(rest)
            srt, cw = rest[order], np.concatenate(([0.0], np.cumsum(self._w[others][order])))
            between = cw[np.searchsorted(srt, hi, "left")] - cw[np.searchsorted(srt, lo, "right")]
            cross = float(np.dot(self._w[idx], np.maximum(between, 0.0)))
        wk = None if self._w is None else self._w[idx]
        return cross + (discordant_pairs(old, v, wk) if idx.size > 1 else 0)

    def _ensure_engine(self) -> PairEngine:
        """The engine holding every sample as ``(label code, score, weight)``, built from
        the current scores at the first `step_partial` after another kind of epoch
        (``O(n log n)``)."""
        if self._engine is None:
            eng = PairEngine("binary" if self._n_levels <= 2 else "ordinal")
            eng.add_many(self._codes.astype(np.float64), self._scores.astype(np.float64),
                         self._w, "EpochTracker.step_partial")
            self._engine = eng
        return self._engine

    def _step_engine(self, idx, v) -> PairCounts:
        """`step_partial` through the engine: the ``k`` old samples leave and the ``k`` new
        ones come (``O(k log n)``, in C for binary labels); churn reads, between the two,
        the weight held strictly between each sample's old and new score."""
        eng = self._ensure_engine()
        c = self._codes[idx].astype(np.float64)
        o = self._scores[idx]
        of, vf = o.astype(np.float64), v.astype(np.float64)
        wk = None if self._w is None else self._w[idx]
        eng.remove_many(c, of, wk)
        churn = None
        if self.track_churn:
            # A label above every held one reads the weight held below / at a score (in C
            # and T); for a sample that moved, the unchanged samples strictly between its
            # old and new score are (< hi) - (<= lo). Pairs inside the batch: a merge sort.
            moved = of != vf
            lo, hi = np.minimum(of, vf)[moved], np.maximum(of, vf)[moved]
            top = np.full(lo.size, float(self._n_levels))
            wm = None if wk is None else wk[moved]
            at_hi, at_lo = eng.pairs_with_many(top, hi, wm), eng.pairs_with_many(top, lo, wm)
            cross = at_hi[0] - at_lo[0] - at_lo[2]
            churn = cross + (discordant_pairs(o, v, wk) if idx.size > 1 else 0)
        eng.add_many(c, vf, wk, "EpochTracker.step_partial")
        self._scores[idx] = v  # the tracker's own copy: no O(n) copy per epoch
        if eng.stale:          # float rounding from weight that came and went: recount
            eng.rebuild(self._codes.astype(np.float64), self._scores.astype(np.float64),
                        self._w)
        counts = eng.counts
        self.history.append(counts)
        self.churn_history.append(churn)
        self._order = None
        return counts

    def _check(self) -> None:
        """Invariants: the latest counts equal a batch recount of the current scores; the
        engine, when built, holds exactly the current samples."""
        if self._scores is None:
            return
        from ..batch.pairs import pair_counts

        fresh = pair_counts(self._y_rank, self._scores, sample_weight=self._w)
        last = self.history[-1]
        for f in ("concordant", "discordant", "tied_score", "tied_label", "tied_both"):
            a, b = getattr(last, f), getattr(fresh, f)
            assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), (f, a, b)
        assert last.n_score_levels == fresh.n_score_levels
        if self._engine is not None:
            self._engine._check(self._codes, self._scores.astype(np.float64), self._w)
        if self._order is not None:
            assert np.all(np.diff(self._scores[self._order]) >= 0)
