"""`BinaryPairEngine`: running AUC pair counts of binary-labelled (label, score, weight) samples.

The binary specialisation of `streamrank.engine.PairEngine` behind `ROCAUC`,
`RollingROCAUC` and `GroupAUC`. With two classes, every count that AUC needs follows from
the weight of the *other* class below and at the score of a sample that joins or leaves
(SPEC.md sections 1 and 4)::

    a positive (y = 1, s, w):   C += w * W0(s' <  s)     T += w * W0(s' == s)
    a negative (y = 0, s, w):   C += w * W1(s' >  s)     T += w * W1(s' == s)

    P = W0 * W1,   D = P - C - T,   AUC = (C + T / 2) / P

where ``W0`` and ``W1`` are the weights of the negatives and the positives held. A removal
subtracts the same terms (the other class is untouched by it).

Three representations hold the same multiset; the engine moves between them (``O(n)``
per move) by the weights it is given and the size of its batches:

* **lists** (single changes, unit weights, fewer than `_LIST_MAX` samples): one sorted
  Python list of scores per class. With unit weights a score's rank in the other list
  *is* the count: two ``bisect`` calls give the other class below and at ``s``, and
  ``insort`` / ``del`` (one C memmove of at most `_LIST_MAX` pointers, so a bounded cost)
  update. The cheapest per change up to about 5e4 samples.

* **tree** (single changes, any weights or sizes): one B+ tree over the distinct scores
  whose entries carry the weight and the copies of *both* classes, and whose inner nodes
  carry both classes' subtree weights. An insert walks down once, reading the other
  class's weight below and at ``s`` on the way and adding its own weight on the path: the
  query and the update share one walk, half the walks of one sorted multiset per class.
  ``O(log n)`` per change (``O(B)`` C-level work per node, ``B = 2 * _LOAD``), counts
  ``O(1)``. The tree is `streamrank.structures.binary.BinaryTree`, shared with the
  two-level `BinaryDominanceCounter` behind `PairEngine`::

        inner   keys  [ 0.3        |  0.9       ]   largest score under each child
                w[0]  [ 2          |  1         ]   negative weight under each child
                w[1]  [ 1          |  3         ]   positive weight under each child
        leaf    keys  [0.1 | 0.2 | 0.3]     [0.5 | 0.7 | 0.9]
                w[0]  [ 1  |  1  |  0 ]     [ 0  |  1  |  0 ]
                w[1]  [ 0  |  0  |  1 ]     [ 1  |  1  |  1 ]
                c[0], c[1]: copies of each class at each score

        add positive 0.7: W0 below = 2 (root, child 0) + 0 (leaf, before 0.7) = 2,
                          W0 at 0.7 = 1   ->   C += 2, T += 1

* **flat** (batches, as buffered by the River metrics): sorted numpy arrays of the
  distinct scores, the copies of both classes at each (packed in one int64) and, unless
  every weight is 1, each class's weight. A batch of ``k`` changes is merged in ``O(n + k
  log k)`` C-level work (a sort of the batch, ``np.searchsorted``, one shared-mask
  insert) and the counts are recounted from the arrays at the next read (one ``cumsum``
  and two dot products, ``O(n)``). Much less Python per sample than ``k`` single changes
  once ``k`` is more than a few dozen; see `_FLAT_BATCH`.

Exactness: while every weight is an integer (the default) the counts are exact Python
ints (the flat recount uses int64 only where no sum can reach 2**63, Python ints
otherwise). The first fractional weight turns the engine to floats: tree sums are then
refreshed with `math.fsum` every ``distinct + 1024`` changes and the running counts are
recounted at the same time (their error stays that of ``O(distinct)`` roundings); the flat
recount has the error of a cumsum and a dot product.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort

import numpy as np

from ..engine import REBUILD_RATIO
from ..structures import binary as _binary_tree
from ..structures.binary import BinaryTree, _close

__all__ = ["BinaryPairEngine"]

#: A batch of ``k`` changes goes through the flat arrays when ``k >= _FLAT_BATCH[0] +
#: n / _FLAT_BATCH[1]`` (``n`` samples or distinct scores held): about where a flat merge
#: and recount cost as much per change as single changes do. `python
#: benchmarks/bench_river.py --calibrate` timed single changes at 1.2 / 2.2 / 5.1 us (lists
#: at 1e3 and 1e4 samples, tree at 1e5) and flat batches of 32 changes at 1.8 / 3.8 / 14
#: us per change, of 128 changes at 0.6 / 1.1 / 4.3 us: crossovers near 50, 55 and 110.
_FLAT_BATCH = (48, 1600)

#: In flat mode, this many consecutive small operations (single changes, or batches under
#: the flat threshold) move the engine back to single-change mode.
_BACK_TO_SINGLE = 8

_REFRESH_MIN = _binary_tree._REFRESH_MIN

#: While every weight is 1 and fewer than this many samples are held, the engine keeps two
#: plain sorted lists of scores (one per class): a sample's pairs are two bisections of
#: the other list (its rank *is* the count), an insert or a removal one C-level memmove of
#: at most _LIST_MAX pointers. `python benchmarks/bench_river.py --calibrate`: a change
#: costs 2.2 us in the lists and 4.2 us in the tree at 1e4 samples, 4.1 and 6.4 us at 3e4,
#: 10.9 and 5.1 us at 1e5; past 2**15, the tree (the memmove is bounded: O(log n) holds).
_LIST_MAX = 2**15

#: Flat mode packs the copies of both classes at a score in one int64; a class holding
#: 2**31 copies or more (no stream a Python loop feeds gets there) keeps to the tree.
_SHIFT = 32
_LOW = (1 << _SHIFT) - 1
_ONE1 = 1 << _SHIFT  # one copy of class 1, packed
_MAX_FLAT_COPIES = 2**31
_INT64_MAX = 2**63 - 1


class BinaryPairEngine:
    """Running concordant / tied pair counts of samples with labels 0 and 1.

    ``add`` and ``remove`` take the sample's values (label ``0`` or ``1``, a float score,
    an int or float weight), already validated by the caller; removing a sample that is
    not held raises `ValueError` and changes nothing.

    Runtime complexity: `add` / `remove` ``O(log n)`` (two bisections and a memmove of at
    most `_LIST_MAX` pointers in list mode, one B+ tree walk in tree mode); `add_many` /
    `remove_many` of ``k`` samples ``O(k log n)`` one at a time, or ``O(n + k log k)``
    (flat); `counts` ``O(1)``, or ``O(n)`` for the first read after a flat batch.

    Examples
    --------
    >>> e = BinaryPairEngine()
    >>> for y, s in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8), (0, 0.8)]:
    ...     e.add(y, s, 1)
    >>> e.counts            # (C, T, W0, W1)
    (3, 1, 3, 2)
    >>> e.auc               # (C + T / 2) / (W0 * W1)
    0.583333...
    >>> e.remove(0, 0.8, 1); e.auc
    0.75
    """

    def __init__(self):
        self.clear()

    # ------------------------------------------------------------------ state
    def clear(self) -> None:
        """Drop every sample. Runtime complexity: O(1)."""
        self._dtype = int
        self._mode = "list"
        self._lists = ([], [])    # list mode: the sorted scores of each class
        self._tree = BinaryTree(int)  # tree mode: the shared two-class B+ tree
        self._updates = 0         # float tree updates since the last refresh
        self._through = 0.0       # ... and the weight they moved
        self._suspect = False     # weight far above what is held came and went
        self._flat = None         # a `_Flat` in flat mode
        self._small_ops = 0       # consecutive small operations in flat mode
        self._removed = 0         # samples removed in flat mode since the last compaction
        self._reset_counts()

    def _reset_counts(self) -> None:
        z = self._dtype(0)
        self._acc = [z, z, z, z]  # C, T, W0, W1
        self._comp = [0.0, 0.0, 0.0, 0.0]  # Neumaier compensation (float mode)
        self._n = [0, 0]          # copies of each class
        self._stale = False       # flat mode: counts to recount from the arrays

    def __len__(self) -> int:
        return self._n[0] + self._n[1]

    @property
    def mode(self) -> str:
        """``"list"``, ``"tree"`` or ``"flat"``: the representation in use."""
        return self._mode

    @property
    def weighted(self) -> bool:
        """True once a fractional weight was seen (counts are floats from then on)."""
        return self._dtype is float

    @property
    def counts(self) -> tuple:
        """``(C, T, W0, W1)``: concordant and tied-in-score positive-negative pair weight,
        negative and positive weight held. Runtime complexity: O(1), or O(n) for the first
        read after a flat batch."""
        if self._stale:
            self._recount_flat()
        if self._dtype is float:
            return tuple(max(0.0, a + b) for a, b in zip(self._acc, self._comp))
        return tuple(self._acc)

    @property
    def stale(self) -> bool:
        """True once float weight far above the weight held came and went (more than
        `streamrank.engine.REBUILD_RATIO` times): the engine refreshed its sums from its
        leaves, whose per-score sums may still carry that weight's rounding. An owner
        that holds the samples calls `rebuild`. O(1)."""
        return self._suspect

    def rebuild(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> None:
        """Replace the contents by the samples ``(y, s, w)`` that the caller holds
        exactly, and recount: ``O(n log n)``."""
        self.clear()
        self.add_many(y, s, w)

    @property
    def n_pos(self) -> int:
        """Copies of label 1 held."""
        return self._n[1]

    @property
    def n_neg(self) -> int:
        """Copies of label 0 held."""
        return self._n[0]

    @property
    def auc(self) -> float:
        """``(C + T / 2) / (W0 * W1)``; ``nan`` when either class has no weight."""
        c, t, w0, w1 = self.counts
        if not (w0 > 0 and w1 > 0) or not (self._n[0] and self._n[1]):
            return math.nan     # one class held: undefined, whatever rounding is left
        if self._dtype is int:
            return (2 * c + t) / (2 * w0 * w1)  # exact int division, correctly rounded
        return min(1.0, max(0.0, (c + 0.5 * t) / (w0 * w1)))

    # ------------------------------------------------------------------ single changes
    def add(self, y: int, s: float, w) -> None:
        """Add one sample (``y`` 0 or 1). Runtime complexity: O(log n) (tree mode), two
        bisections and a bounded memmove (list mode)."""
        if self._mode == "list":
            if w.__class__ is int and w == 1 and self._n[0] + self._n[1] < _LIST_MAX:
                lists = self._lists
                other = lists[1 - y]
                lo = bisect_left(other, s)
                hi = bisect_right(other, s, lo)
                insort(lists[y], s)
                acc = self._acc
                acc[0] += lo if y else len(other) - hi
                acc[1] += hi - lo
                acc[2 + y] += 1
                self._n[y] += 1
                return
            self._leave_list()
        if self._mode == "tree" and self._dtype is int and w.__class__ is int:
            below, equal, _ = self._tree.add(y, s, w, self._acc[3 - y])
            # The hot path of a window read after every event: `_count` inlined.
            acc = self._acc
            acc[0] += w * (below if y else acc[3] - below - equal)
            acc[1] += w * equal
            acc[2 + y] += w
            self._n[y] += 1
            return
        if isinstance(w, float) and self._dtype is int:
            self._to_float()
        if self._mode == "flat":
            self._flat_small()
            if self._mode == "flat":
                self._flat_apply((np.array([y], np.int64), np.array([s], np.float64),
                                  None if w == 1 else np.array([w], self._np_dtype())),
                                 None, False)
                return
            if self._mode == "list":  # back to the lists: their path
                return self.add(y, s, w)
        below, equal, _ = self._tree.add(y, s, w, self._acc[3 - y])
        self._count(y, w, below, equal, 1)
        if self._dtype is float:
            self._float_update(w)  # after the counts: a refresh recounts them

    def remove(self, y: int, s: float, w) -> None:
        """Remove one sample added with these values; `ValueError` (nothing changes) if
        none is held. Runtime complexity: O(log n) (tree mode)."""
        if self._mode == "list":
            own = self._lists[y]
            i = bisect_left(own, s)
            if i == len(own) or own[i] != s or w != 1:
                raise ValueError(self._not_held(y, s, w))
            del own[i]
            other = self._lists[1 - y]
            lo = bisect_left(other, s)
            hi = bisect_right(other, s, lo)
            acc = self._acc
            acc[0] -= lo if y else len(other) - hi
            acc[1] -= hi - lo
            acc[2 + y] -= 1
            n = self._n
            n[y] -= 1
            if not (n[0] or n[1]):
                self.clear()
            return
        if self._mode == "tree" and self._dtype is int and w.__class__ is int:
            got = self._tree.remove(y, s, w, self._acc[3 - y])
            if got is None:
                raise ValueError(self._not_held(y, s, w))
            below, equal = got[0], got[1]
            acc = self._acc
            acc[0] -= w * (below if y else acc[3] - below - equal)
            acc[1] -= w * equal
            acc[2 + y] -= w
            n = self._n
            n[y] -= 1
            if not (n[0] or n[1]):
                self.clear()
            return
        if isinstance(w, float) and self._dtype is int and not w.is_integer():
            raise ValueError(self._not_held(y, s, w))
        if self._mode == "flat":
            self._flat_small()
            if self._mode == "flat":
                self._flat_apply(None, (np.array([y], np.int64), np.array([s], np.float64),
                                        None if w == 1 else np.array([w], self._np_dtype())),
                                 True)
                return
            if self._mode == "list":
                return self.remove(y, s, w)
        got = self._tree.remove(y, s, w, self._acc[3 - y])
        if got is None:
            raise ValueError(self._not_held(y, s, w))
        self._count(y, w, got[0], got[1], -1)
        if self._n[0] + self._n[1] == 0:
            self.clear()  # an emptied engine holds exact zeros, not float residue
        elif self._dtype is float:
            self._float_update(w)

    # ------------------------------------------------------------------ batches
    def add_many(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> None:
        """Add arrays of samples (labels 0/1, float64 scores, weights or None for ones).

        Runtime complexity: ``O(k log n)`` one walk each, or ``O(n + k log k)`` through
        the flat arrays when ``k`` is large for ``n`` (see `_FLAT_BATCH`)."""
        k = y.shape[0]
        if not k:
            return
        if w is not None and self._dtype is int and not _integral(w):
            self._to_float()
        if self._use_flat(k):
            self._flat_apply((y.astype(np.int64), s, self._batch_weights(w)), None, False)
            return
        yl, sl = y.tolist(), s.tolist()
        wl = [1] * k if w is None else self._weights(w, k).tolist()
        if self._mode == "list":
            for yi, si, wi in zip(yl, sl, wl):
                self.add(yi, si, wi)
            return
        for yi, si, wi in zip(yl, sl, wl):
            below, equal, _ = self._tree.add(yi, si, wi, self._acc[3 - yi])
            self._count(yi, wi, below, equal, 1)
            if self._dtype is float:
                self._float_update(wi)

    def remove_many(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> None:
        """Remove arrays of samples that are held (as `add_many`); `ValueError`, and
        nothing changes, if one is not (the flat path checks the whole batch first, the
        others put back what they removed)."""
        k = y.shape[0]
        if not k:
            return
        if w is not None and self._dtype is int and not _integral(w):
            bad = int(np.flatnonzero(np.floor(w) != w)[0])
            raise ValueError(self._not_held(int(y[bad]), float(s[bad]), float(w[bad])))
        if self._use_flat(k):
            self._flat_apply(None, (y.astype(np.int64), s, self._batch_weights(w)), True)
            return
        yl, sl = y.tolist(), s.tolist()
        wl = [1] * k if w is None else self._weights(w, k).tolist()
        done = []
        try:
            for sample in zip(yl, sl, wl):
                self.remove(*sample)
                done.append(sample)
        except ValueError:
            for sample in reversed(done):  # put back what left: an add undoes a removal
                self.add(*sample)
            raise

    def swap_many(self, y_out, s_out, w_out, y_in, s_in, w_in) -> None:
        """Remove held samples and add new ones in one batch: a window's evictions and
        arrivals. The removals are trusted (the caller knows they are held).

        Runtime complexity: as `add_many` of both batches, in one merge when flat."""
        k = y_out.shape[0] + y_in.shape[0]
        if not k:
            return
        if w_in is not None and self._dtype is int and not _integral(w_in):
            self._to_float()
        if self._use_flat(k):
            self._flat_apply((y_in.astype(np.int64), s_in, self._batch_weights(w_in)),
                             (y_out.astype(np.int64), s_out, self._batch_weights(w_out)),
                             False)
            return
        self.remove_many(y_out, s_out, w_out)
        self.add_many(y_in, s_in, w_in)

    # ------------------------------------------------------------------ counts
    def _count(self, y, w, below, equal, sign) -> None:
        """Running counts after a change of ``sign * w`` at class ``y``, given the other
        class's weight ``below`` and ``equal`` at the score."""
        acc = self._acc
        if y:   # a positive: concordant with the negatives below it
            dc = below
        else:   # a negative: concordant with the positives above it
            dc = acc[3] - below - equal
            if self._dtype is float:
                dc += self._comp[3]
                if dc < 0:
                    dc = 0.0
        terms = (w * dc, w * equal)
        if self._dtype is int:
            acc[0] += sign * terms[0]
            acc[1] += sign * terms[1]
            acc[2 + y] += sign * w
        else:
            self._add_float(0, sign * terms[0])
            self._add_float(1, sign * terms[1])
            self._add_float(2 + y, sign * w)
        self._n[y] += sign

    def _add_float(self, j, x) -> None:
        a = self._acc[j]
        t = a + x
        if abs(a) >= abs(x):  # Neumaier: keep the rounding of each addition
            self._comp[j] += (a - t) + x
        else:
            self._comp[j] += (x - t) + a
        self._acc[j] = t

    def _set_counts(self, c, t, w0, w1) -> None:
        self._acc = [c, t, w0, w1]
        self._comp = [0.0, 0.0, 0.0, 0.0]

    def _not_held_batch(self, y, s, w) -> str:
        """The message for the first sample of a batch that is not held."""
        for yi, si, wi in zip(y.tolist(), s.tolist(), w.tolist()):
            try:
                self._probe(yi, si, wi)
            except ValueError as exc:
                return str(exc)
        return ("The batch is not held: it removes more copies (or weight) at some score "
                "than are held there, so it cannot be removed.")

    def _probe(self, y, s, w) -> None:
        """Raise `ValueError` if one copy of (y, s, w) is not held (flat mode)."""
        f = self._flat
        i = int(np.searchsorted(f.s, s))
        if i == f.s.shape[0] or f.s[i] != s or f.copies(i)[y] == 0:
            raise ValueError(self._not_held(y, s, w))
        held, copies = f.weights()[y][i], f.copies(i)[y]
        if self._dtype is int and (w > held or (copies == 1 and w != held)):
            raise ValueError(self._not_held(y, s, w))

    def _not_held(self, y, s, w) -> str:
        return (f"The sample (label {y!r}, score {s!r}, weight {w!r}) is not held (or was "
                "added with another weight), so it cannot be removed.")

    # ------------------------------------------------------------------ floats
    def _np_dtype(self):
        return np.int64 if self._dtype is int else np.float64

    def _weights(self, w, k):
        if w is None:
            return np.ones(k, self._np_dtype())
        return w.astype(self._np_dtype())

    def _batch_weights(self, w):
        """Batch weights in the engine's arithmetic, None for all ones."""
        if w is None or (self._dtype is int and bool((w == 1).all())):
            return None
        return w.astype(self._np_dtype())

    def _to_float(self) -> None:
        """Switch to float weights for good (one O(n) pass)."""
        if self._mode == "list":
            self._leave_list()
        self._dtype = float
        self._tree.to_float()
        if self._mode == "flat":
            f = self._flat
            f.w = [x.astype(np.float64) for x in f.weights()]
        self._acc = [float(a) for a in self._acc]
        self._updates = 0
        self._through = self._acc[2] + self._acc[3]

    def _float_update(self, w) -> None:
        """Count a float tree change; refresh every ``distinct + 1024`` changes, or as soon
        as the weight that came and went exceeds `REBUILD_RATIO` times the weight held
        (a huge weight inserted and removed leaves its rounding in every sum it passed)."""
        self._updates += 1
        self._through += w
        if self._through > REBUILD_RATIO * (self._acc[2] + self._acc[3]):
            self._suspect = True  # the leaves may keep rounding too: owners `rebuild`
            self._refresh()
        elif self._updates > self._tree.distinct + _REFRESH_MIN:
            self._refresh()

    def _refresh(self) -> None:
        """Recompute every subtree sum with `math.fsum`, and the running counts from the
        leaves: O(n), once every ``distinct + 1024`` float updates."""
        self._tree.refresh()
        self._set_counts(*self._recount(self._tree_arrays()))
        self._updates = 0
        self._through = self._acc[2] + self._acc[3]

    # ------------------------------------------------------------------ flat mode
    def _use_flat(self, k) -> bool:
        """Pick the representation for a batch of ``k`` changes (moving if needed)."""
        if max(self._n) + k >= _MAX_FLAT_COPIES:
            if self._mode == "flat":
                self._to_tree()
            return False
        if self._mode == "list":
            n = self._n[0] + self._n[1]
        else:
            n = self._tree.distinct if self._mode == "tree" else self._flat.s.shape[0]
        threshold = _FLAT_BATCH[0] + n // _FLAT_BATCH[1]
        if self._mode != "flat":
            if k >= threshold:
                self._to_flat()
                return True
            return False
        if k >= threshold:
            self._small_ops = 0
            return True
        # Smaller than a flat batch pays for: once that happens _BACK_TO_SINGLE times in
        # a row (a stream read more often, or one whose n grew), leave flat mode.
        self._flat_small()
        return self._mode == "flat"

    def _flat_small(self) -> None:
        """Count a small operation in flat mode; go back to the tree after a run of them."""
        self._small_ops += 1
        if self._small_ops >= _BACK_TO_SINGLE:
            self._to_small()

    def _tree_arrays(self):
        """The tree's contents as a `_Flat` (weights left out when every weight is 1)."""
        sl, c0, c1, w0, w1 = self._tree.columns()
        s = np.array(sl, np.float64)
        c = [np.array(x, np.int64) for x in (c0, c1)]
        w = [np.array(x, self._np_dtype()) for x in (w0, w1)]
        unit = self._dtype is int and all(np.array_equal(w[j], c[j]) for j in (0, 1))
        return _Flat(s, c[0] | (c[1] << _SHIFT), None if unit else w)

    def _list_arrays(self):
        """The lists' contents as a `_Flat` (unit weights)."""
        neg, pos = self._lists
        s = np.array(neg + pos, np.float64)
        u, inv = np.unique(s, return_inverse=True)
        code = inv.reshape(-1) + u.shape[0] * (np.arange(s.shape[0]) >= len(neg))
        c = np.bincount(code, minlength=2 * u.shape[0]).reshape(2, -1).astype(np.int64)
        return _Flat(u, c[0] | (c[1] << _SHIFT), None)

    def _leave_list(self) -> None:
        """List mode to tree mode (a non-unit weight, or too many samples): O(n log n)."""
        self._flat = self._list_arrays()
        self._lists = ([], [])
        self._mode = "flat"
        self._to_tree()

    def _to_small(self) -> None:
        """Flat mode to the mode for single changes: the lists while they can serve."""
        f = self._flat
        if f.w is None and self._dtype is int and self._n[0] + self._n[1] < _LIST_MAX:
            if self._stale:
                self._recount_flat()
            c0, c1 = f.copies()
            self._lists = (np.repeat(f.s, c0).tolist(), np.repeat(f.s, c1).tolist())
            self._flat = None
            self._mode = "list"
        else:
            self._to_tree()

    def _to_flat(self) -> None:
        if self._mode == "list":
            self._flat = self._list_arrays()
            self._lists = ([], [])
            self._mode = "flat"
            self._small_ops = 0
            return
        self._flat = self._tree_arrays()
        self._tree = BinaryTree(self._dtype)
        self._mode = "flat"
        self._small_ops = 0

    def _to_tree(self) -> None:
        """Build the tree bottom-up from the flat arrays: O(n)."""
        if self._stale:
            self._recount_flat()
        f = self._flat
        c0, c1 = f.copies()
        keep = (c0 + c1) > 0
        w0, w1 = f.weights()
        sl = f.s[keep].tolist()
        c0, c1 = c0[keep].tolist(), c1[keep].tolist()
        w0, w1 = w0[keep].tolist(), w1[keep].tolist()
        self._tree.build(sl, c0, c1, w0, w1)
        self._flat = None
        self._mode = "tree"
        self._updates = 0

    def _flat_apply(self, add, rem, check) -> None:
        """Merge a batch into the flat arrays: ``add`` and ``rem`` are ``(y, s, w)``
        arrays or None (``w`` None for unit weights). With ``check`` the removals are
        verified first (all held, weights as `remove` requires) and `ValueError` leaves
        everything as it was; without it the caller vouches for them (a window's
        evictions). ``O(n + k log k)``: a sort of the batch, one `np.searchsorted`, one
        shared-mask insert of the new scores."""
        f = self._flat
        if (not check and f.w is None and f.s.shape[0] and (add is None or add[2] is None)
                and (rem is None or rem[2] is None) and self._flat_unit(add, rem)):
            return
        parts = [p for p in (add, rem) if p is not None]
        s = parts[0][1] if len(parts) == 1 else np.concatenate((add[1], rem[1]))
        # The batch's distinct scores u, and each sample's index in u.
        order = np.argsort(s, kind="stable")
        ss = s[order]
        first = np.empty(ss.shape[0], bool)
        first[0] = True
        np.not_equal(ss[1:], ss[:-1], out=first[1:])
        u = ss[first]
        inv = np.empty(ss.shape[0], np.intp)
        inv[order] = np.cumsum(first) - 1
        m = u.shape[0]
        f = self._flat
        unit = f.w is None and all(p[2] is None for p in parts)
        dc, dw = [None, None], [None, None]   # per part: copies (2, m), weights (2, m)
        lo = 0
        for j, p in enumerate((add, rem)):
            if p is None:
                continue
            code = p[0] * m + inv[lo:lo + p[0].shape[0]]
            lo += p[0].shape[0]
            dc[j] = np.bincount(code, minlength=2 * m).reshape(2, m)
            if not unit:
                dw[j] = (dc[j].astype(self._np_dtype()) if p[2] is None else
                         _weighted_bincount(code, p[2], 2 * m, self._np_dtype()).reshape(2, m))
        idx = np.searchsorted(f.s, u)
        hit = idx < f.s.shape[0]
        hit[hit] = f.s[idx[hit]] == u[hit]
        if check and rem is not None:
            self._check_removal(f, rem, idx, hit, dc[1], dw[1])
        if not unit and f.w is None:
            f.w = [x.astype(self._np_dtype()) for x in f.copies()]
        net_c = dc[0] if rem is None else (-dc[1] if add is None else dc[0] - dc[1])
        net_w = None
        if not unit:
            net_w = dw[0] if rem is None else (-dw[1] if add is None else dw[0] - dw[1])
        packed = net_c[0] + (net_c[1] << _SHIFT)
        at = idx[hit]
        if at.shape[0]:
            f.c[at] += packed[hit]
            if net_w is not None:
                for j in (0, 1):
                    f.w[j][at] += net_w[j][hit]
                if rem is not None:  # a class's last copy takes the weight left
                    for j, cj in enumerate(f.copies(at)):
                        f.w[j][at[cj == 0]] = 0
                        if self._dtype is float:
                            np.maximum(f.w[j], 0.0, out=f.w[j])
        new = ~hit
        if new.any():
            f.insert(idx[new], u[new], packed[new],
                     None if net_w is None else (net_w[0][new], net_w[1][new]))
        for j in (0, 1):
            self._n[j] += int(net_c[j].sum())
        self._flat_done(rem is not None)

    def _flat_unit(self, add, rem) -> bool:
        """The fast path of `_flat_apply` for unit weights and trusted removals (a
        window's batch): removals decrement their entries in place (``np.subtract.at``),
        additions at held scores increment theirs, and new scores are inserted, without
        aggregating the batch first. About half the numpy calls of the general path.
        Returns False, having changed nothing, when new scores repeat within the batch
        (the general path then aggregates them)."""
        f = self._flat
        m = f.s.shape[0]
        if add is not None:
            ya, sa = add[0], add[1]
            idx = np.searchsorted(f.s, sa)
            hit = f.s[np.minimum(idx, m - 1)] == sa
            fresh = ~hit
            n_fresh = int(np.count_nonzero(fresh))
            if n_fresh:
                order = np.argsort(sa[fresh], kind="stable")
                s_new = sa[fresh][order]
                if n_fresh > 1 and bool((s_new[1:] == s_new[:-1]).any()):
                    return False
        if rem is not None:  # removals first: their entries are all held
            yr = rem[0]
            np.subtract.at(f.c, np.searchsorted(f.s, rem[1]), np.where(yr == 1, _ONE1, 1))
            n1 = int(np.count_nonzero(yr))
            self._n[1] -= n1
            self._n[0] -= yr.shape[0] - n1
            self._removed += yr.shape[0]
        if add is not None:
            delta = np.where(ya == 1, _ONE1, 1)
            if n_fresh < ya.shape[0]:
                np.add.at(f.c, idx[hit], delta[hit])
            if n_fresh:
                f.insert(idx[fresh][order], s_new, delta[fresh][order], None)
            n1 = int(np.count_nonzero(ya))
            self._n[1] += n1
            self._n[0] += ya.shape[0] - n1
        compact = rem is not None and 4 * self._removed > f.s.shape[0]
        if compact:
            self._removed = 0
        self._flat_done(compact)
        return True

    def _flat_done(self, compact: bool) -> None:
        """After a flat batch: drop the emptied entries once they are a quarter of the
        arrays (``compact``: removals happened), mark the counts for a recount, and
        reset an emptied engine."""
        f = self._flat
        if compact:
            empty = f.c == 0
            if 4 * int(np.count_nonzero(empty)) > f.s.shape[0]:
                f.keep(~empty)
        self._stale = True
        if self._n[0] + self._n[1] == 0:
            self.clear()
            self._to_flat()

    def _check_removal(self, f, rem, idx, hit, rc, rw) -> None:
        ok = bool(hit.all())
        if ok:
            held_c = np.stack(f.copies(idx))
            ok = bool((held_c >= rc).all())
            if ok and self._dtype is int:
                rw = rc if rw is None else rw
                w0, w1 = f.weights()
                held_w = held_c if f.w is None else np.stack((w0[idx], w1[idx]))
                last = held_c == rc
                ok = bool((rw <= held_w).all() and (rw[last] == held_w[last]).all())
        if not ok:
            y, s, w = rem
            raise ValueError(self._not_held_batch(y, s, np.ones(y.shape[0], np.int64)
                                                  if w is None else w))

    def _recount(self, f):
        """``(C, T, W0, W1)`` of flat arrays sorted by score: one cumsum, two dots
        (``C = w1 . cumsum(w0) - T``: the negatives at or below each positive, less the
        tied ones)."""
        w0, w1 = f.weights()
        if self._dtype is int:
            if f.w is None:  # unit weights: the totals are the copy counts
                tot0, tot1 = self._n
            else:
                tot0, tot1 = _int_total(w0), _int_total(w1)
            if tot0 * tot1 > _INT64_MAX:  # products could overflow int64: Python ints
                w0, w1 = w0.astype(object), w1.astype(object)
            t = int(np.dot(w1, w0))
            return int(np.dot(w1, np.cumsum(w0))) - t, t, tot0, tot1
        below = np.cumsum(w0) - w0  # floats: no cancellation, as the tree's sums
        return (float(np.dot(w1, below)), float(np.dot(w1, w0)),
                math.fsum(w0.tolist()), math.fsum(w1.tolist()))

    def _recount_flat(self) -> None:
        self._set_counts(*self._recount(self._flat))
        self._stale = False

    # ------------------------------------------------------------------ invariants
    def _check(self, held=None) -> None:
        """Assert every invariant; with ``held`` (a list of (y, s, w) samples) also that
        the counts equal an O(n^2) recount of them."""
        if self._mode == "list":
            assert self._flat is None and self._tree.root.keys == [] and self._dtype is int
            for j in (0, 1):
                lst = self._lists[j]
                assert all(a <= b for a, b in zip(lst, lst[1:])), "list unsorted"
                assert len(lst) == self._n[j] == self._acc[2 + j]
        elif self._mode == "tree":
            assert self._flat is None and self._lists == ([], [])
            assert self._tree.dtype is self._dtype
            sums, copies = self._tree.check()
            assert list(copies) == self._n, (copies, self._n)
            got = self.counts
            _close(got[2], sums[0], self._dtype, "W0", sums[0] + sums[1])
            _close(got[3], sums[1], self._dtype, "W1", sums[0] + sums[1])
        else:
            assert self._tree.root.keys == [] and self._tree.height == 0
            assert self._lists == ([], [])
            f = self._flat
            m = f.s.shape[0]
            assert f.s.ndim == 1 and (np.diff(f.s) > 0).all(), "flat scores unsorted"
            assert f.c.shape == (m,) and f.c.dtype == np.int64
            for j in (0, 1):
                c, w = f.copies()[j], f.weights()[j]
                assert c.shape == w.shape == (m,)
                assert w.dtype == self._np_dtype(), (w.dtype, self._dtype)
                assert (c >= 0).all() and (w >= 0).all()
                assert ((c > 0) | (w == 0)).all(), "orphan weight"
                assert int(c.sum()) == self._n[j]
        if held is None:
            return
        assert len(held) == len(self)
        C = T = 0
        W = [0, 0]
        for yi, si, wi in held:
            W[yi] += wi
        for i, (yi, si, wi) in enumerate(held):
            for yj, sj, wj in held[i + 1:]:
                if yi == yj:
                    continue
                sp, sn = (si, sj) if yi else (sj, si)
                if sp > sn:
                    C += wi * wj
                elif sp == sn:
                    T += wi * wj
        got = self.counts
        for a, b, what in zip(got, (C, T, W[0], W[1]), ("C", "T", "W0", "W1")):
            if self._dtype is int:
                assert isinstance(a, int) and a == b, (what, a, b)
            else:
                assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), (what, a, b)


class _Flat:
    """Flat mode: sorted distinct scores ``s``; the copies of both classes at each,
    packed in one int64 ``c = c0 | c1 << 32`` (one array to shift on an insert instead
    of two); each class's weights ``w = (w0, w1)``, or None while every weight is 1 (the
    weights are then the copies). Entries with no copy left stay until a compaction."""

    __slots__ = ("s", "c", "w")

    def __init__(self, s, c, w):
        self.s, self.c, self.w = s, c, w

    def copies(self, at=None):
        c = self.c if at is None else self.c[at]
        return c & _LOW, c >> _SHIFT

    def weights(self):
        return self.copies() if self.w is None else self.w

    def insert(self, at, u, c, w) -> None:
        """Insert sorted new scores ``u`` before positions ``at`` of every array, with
        one boolean mask shared by all of them: O(m + k)."""
        k = at.shape[0]
        n = self.s.shape[0] + k
        new = at + np.arange(k)
        old = np.ones(n, bool)
        old[new] = False
        arrays = [(self.s, u), (self.c, c)]
        if self.w is not None:
            arrays += [(self.w[0], w[0]), (self.w[1], w[1])]
        out = []
        for a, b in arrays:
            o = np.empty(n, a.dtype)
            o[old] = a
            o[new] = b
            out.append(o)
        self.s, self.c = out[0], out[1]
        if self.w is not None:
            self.w = [out[2], out[3]]

    def keep(self, mask) -> None:
        self.s = self.s[mask]
        self.c = self.c[mask]
        if self.w is not None:
            self.w = [x[mask] for x in self.w]


def _weighted_bincount(code, w, size, dtype):
    """``np.bincount(code, weights=w)`` in ``dtype``; exact for int64 weights."""
    if dtype is np.float64 or w.dtype.kind == "f":
        return np.bincount(code, weights=w, minlength=size).astype(dtype)
    if w.shape[0] and float(np.abs(w).max()) * w.shape[0] < 2.0**53:
        return np.bincount(code, weights=w, minlength=size).astype(np.int64)  # exact
    out = np.zeros(size, np.int64)
    np.add.at(out, code, w)
    return out


def _int_total(w: np.ndarray) -> int:
    """The exact sum of non-negative int64 weights (int64 when it cannot overflow)."""
    if float(w.sum(dtype=np.float64)) < 2.0**62:
        return int(w.sum())
    return int(w.sum(dtype=object))


def _integral(w: np.ndarray) -> bool:
    return bool(np.all(np.floor(w) == w)) and (w.size == 0 or float(w.max()) <= 2**53)
