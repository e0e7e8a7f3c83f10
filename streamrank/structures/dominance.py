"""2-D dominance weights: how much held weight lies below, level with or above a point.

For a point ``(y, s)`` (label, score) and the held points ``(y', s', w')`` the counters
report the 3 x 3 grid of weights ``G[r][c]``, rows by label and columns by score::

                  s' < s     s' == s    s' > s
    y' <  y     G[0][0]    G[0][1]    G[0][2]
    y' == y     G[1][0]    G[1][1]    G[1][2]
    y' >  y     G[2][0]    G[2][1]    G[2][2]

which is everything a pair counter needs when the point is inserted or removed: its pairs
with the held points are concordant ``G[0][0] + G[2][2]``, discordant ``G[0][2] +
G[2][0]``, tied in score only ``G[0][1] + G[2][1]``, tied in label ``G[1][*]`` of which
``G[1][1]`` are tied in both (`pairs_with` returns these five sums).

Two counters, by the number of distinct labels:

`LevelDominanceCounter` (binary or ordinal labels): one `WeightedSortedMultiset` of scores
per label level; a query partitions each level at ``s``: O(L log n) for ``L`` levels.

`DominanceCounter` (any labels, arriving unannounced), compiled in `_cdominance.pyx`: a
weight-balanced binary tree over the points in (label, score) order whose inner nodes
each keep a B+ tree of the scores in their left subtree (a dynamic range tree), all in C
arrays. A query walks down by label, partitioning at ``s`` the left-subtree scores of
every node whose whole left subtree is labelled below ``y``: O(log^2 n) amortized for
queries and changes; see that module's docstring for the balance (partial rebuilding),
the memory and the exactness.

`LevelDominanceCounter`'s exactness follows `WeightedSortedMultiset`: exact Python ints
with ``dtype=int`` (whose total weight must stay below 2**63), bounded rounding with
``dtype=float``. The grid's
cells are differences of partial sums; with floats a cell that is 0 exactly may come out
as a rounding residue of either sign.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right

import numpy as np

from .._validation import describe, param_error
from .multiset import WeightedSortedMultiset, _check_value, _check_weight, _weights_array

__all__ = ["DominanceCounter", "LevelDominanceCounter"]

#: Leaves of `DominanceCounter` hold up to ``2 * _LEAF`` distinct (label, score) keys and
#: are scanned in a Python loop by a query; a larger leaf makes the tree shallower. 8, 16
#: and 32 timed within noise of each other at 10**5 - 10**6 points
#: (benchmarks/bench_structures.py --leaf); 16 keeps the scans short.
_LEAF = 16

#: Weight-balance parameters (Hirai and Yamamoto 2011): a node is balanced when neither
#: child has more than ``_DELTA`` times the leaves of the other; a heavy child is rotated
#: up with a single rotation when its inner grandchild has fewer than ``_GAMMA`` times the
#: leaves of its outer grandchild, and with a double rotation otherwise.
_DELTA = 3
_GAMMA = 2

_INT64_MAX = 2**63 - 1


def _check_dtype(dtype, func):
    if dtype is int or dtype is float:
        return dtype
    raise param_error("dtype", func, "int or float", describe(dtype))


def _grid_from_rows(lt, eq, col):
    """The 3 x 3 grid from the (below, equal, total) sums of the points labelled ``< y``,
    ``== y`` and of all points."""
    gt = (col[0] - lt[0] - eq[0], col[1] - lt[1] - eq[1], col[2] - lt[2] - eq[2])
    return tuple((b, e, t - b - e) for b, e, t in (lt, eq, gt))


def _pairs_from_grid(grid):
    (ll, le, lg), (el, ee, eg), (gl, ge, gg) = grid
    return ll + gg, lg + gl, le + ge, el + ee + eg, ee


def _points(labels, scores, func):
    """``labels`` and ``scores`` as float64 arrays of one length, free of NaN."""
    arrays = []
    for name, x in (("labels", labels), ("scores", scores)):
        a = np.asarray(x)
        if a.ndim != 1 or (a.size and a.dtype.kind not in "biuf"):
            raise param_error(name, func, "a 1-D array of real numbers", describe(a))
        a = a.astype(np.float64)
        if np.isnan(a).any():
            raise param_error(name, func, "free of NaN", describe(a))
        arrays.append(a)
    if arrays[1].shape != arrays[0].shape:
        raise param_error("scores", func, f"of the length of labels ({arrays[0].shape[0]})",
                          describe(arrays[1]))
    return arrays


def _copies(copies, n, func):
    """``copies`` as an int64 array of ``n`` counts ``>= 1`` (ones for None)."""
    if copies is None:
        return np.ones(n, dtype=np.int64)
    c = np.asarray(copies)
    if c.shape != (n,) or (n and (c.dtype.kind not in "iu" or c.min() < 1)):
        raise param_error("copies", func, f"{n} integers >= 1", describe(c))
    return c.astype(np.int64)


def _load_args(labels, scores, copies, weights, dtype, func):
    """The validated arrays of a ``load``: float64 labels and scores, int64 copies, and
    weights in ``dtype``."""
    y, s = _points(labels, scores, func)
    c = _copies(copies, y.shape[0], func)
    w, _ = _weights_array(weights, y.shape[0], dtype, func)
    return y, s, c, w


def _from_arrays(cls, labels, scores, weights, dtype):
    """``cls.from_arrays``: a counter of ``cls`` holding the points, with ``dtype`` from
    the weights unless given."""
    func = f"{cls.__name__}.from_arrays"
    y, s = _points(labels, scores, func)
    w, dtype = _weights_array(weights, y.shape[0], dtype, func)
    counter = cls(dtype=dtype)
    counter.load(y, s, None, w)
    return counter


def _exact_dot(w, x):
    """``sum(w * x)`` (``w`` None for ones) as a Python number: exact for integers, whose
    int64 products and sums are used only where they cannot overflow."""
    if x.dtype.kind == "f" or (w is not None and w.dtype.kind == "f"):
        return float(x.sum() if w is None else np.dot(w, x))
    if x.dtype != object and x.size:
        top = int(np.abs(x).max()) * (1 if w is None else int(w.max()))
        if top * x.size <= _INT64_MAX:
            return int(x.sum() if w is None else np.dot(w, x))
    x = x.astype(object)
    return int(x.sum() if w is None else np.dot(w.astype(object), x))


def _checked_point(label, score, func):
    if type(label) is not float or label != label:
        label = _check_value(label, func, "label")
    if type(score) is not float or score != score:
        score = _check_value(score, func, "score")
    return label, score


# ====================================================================== few label levels


class LevelDominanceCounter:
    """Dominance weights for points whose labels take few distinct values.

    One `WeightedSortedMultiset` of scores per label level, levels kept sorted. New
    levels are created on first use and dropped when their last point leaves, so the
    label universe is open; the cost of a query grows with the number of levels ``L``.

    Parameters
    ----------
    dtype : {int, float}, default=int
        Type of the weights; ``int`` gives exact counts (see `WeightedSortedMultiset`).

    Notes
    -----
    Runtime complexity: `add` and `remove` O(log n) (plus O(L) to create or drop a
    level), `query` and `pairs_with` O(L log n). With many levels prefer
    `DominanceCounter`, whose cost does not grow with ``L``: at 10**5 points one
    `add` plus one `pairs_with` cost about the same in both near 20 levels
    (benchmarks/bench_structures.py --levels).

    Examples
    --------
    >>> dc = LevelDominanceCounter()
    >>> for y, s in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8)]:
    ...     dc.add(y, s)
    >>> dc.query(1, 0.4)            # rows: label < 1, == 1, > 1; columns: score <, ==, >
    ((1, 1, 0), (1, 0, 1), (0, 0, 0))
    >>> dc.pairs_with(1, 0.4)       # concordant, discordant, tied score, tied label, both
    (1, 0, 1, 2, 0)
    """

    __slots__ = ("_dtype", "_levels", "_sets", "_len")

    def __init__(self, *, dtype=int):
        self._dtype = _check_dtype(dtype, "LevelDominanceCounter")
        self.clear()

    def clear(self):
        """Remove every point. Runtime complexity: O(1).

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.clear(); len(dc)
        0
        """
        self._levels = []  # the distinct labels held, ascending
        self._sets = []    # _sets[k]: the scores and weights of the points labelled _levels[k]
        self._len = 0

    @classmethod
    def from_arrays(cls, labels, scores, weights=None, *, dtype=None):
        """A counter holding the points ``(labels[i], scores[i])`` with ``weights[i]``.

        ``dtype`` defaults to ``int`` for unit, boolean or integer weights and ``float``
        otherwise. Runtime complexity: O(n log n).

        >>> LevelDominanceCounter.from_arrays([0, 1, 1], [0.5, 0.2, 0.9]).pairs_with(1, 0.5)
        (0, 0, 1, 2, 0)
        """
        return _from_arrays(cls, labels, scores, weights, dtype)

    def load(self, labels, scores, copies=None, weights=None):
        """Replace the contents by ``copies[i]`` points at ``(labels[i], scores[i])``
        holding ``weights[i]`` between them (unit copies and weights by default). The
        rows of `items` load back as they are. Validated whole before anything changes.

        Runtime complexity: O(n log n).

        >>> dc = LevelDominanceCounter(dtype=float)
        >>> dc.load([1, 0, 1], [0.5, 0.5, 0.5], [2, 1, 1], [3.0, 1.0, 1.5])
        >>> list(dc.items())
        [(0.0, 0.5, 1, 1.0), (1.0, 0.5, 3, 4.5)]
        """
        func = "LevelDominanceCounter.load"
        y, s, c, w = _load_args(labels, scores, copies, weights, self._dtype, func)
        self.clear()
        if not y.shape[0]:
            return
        order = np.argsort(y, kind="stable")
        y, s, c, w = y[order], s[order], c[order], w[order]
        starts = np.flatnonzero(np.concatenate(([True], y[1:] != y[:-1])))
        for lo, hi in zip(starts.tolist(), starts[1:].tolist() + [y.shape[0]]):
            self._levels.append(float(y[lo]))
            self._sets.append(WeightedSortedMultiset._from_parts(s[lo:hi], c[lo:hi],
                                                                 w[lo:hi], self._dtype))
        self._len = int(c.sum())

    @property
    def dtype(self):
        """``int`` or ``float``: the type of every weight returned.

        >>> LevelDominanceCounter(dtype=float).dtype
        <class 'float'>
        """
        return self._dtype

    @property
    def levels(self):
        """The distinct labels held, ascending. Runtime complexity: O(L).

        >>> dc = LevelDominanceCounter(); dc.add(2, 0.1); dc.add(0, 0.3); dc.levels
        (0.0, 2.0)
        """
        return tuple(self._levels)

    @property
    def total_weight(self):
        """Weight of all points held. Runtime complexity: O(L).

        >>> dc = LevelDominanceCounter(dtype=float)
        >>> dc.add(0, 0.5, 2.5); dc.add(1, 0.5); dc.total_weight
        3.5
        """
        return sum((ms._total for ms in self._sets), self._dtype(0))

    def __len__(self):
        """Number of points held (not their weight). Runtime complexity: O(1).

        >>> dc = LevelDominanceCounter(); dc.add(0, 0.5, 3); len(dc)
        1
        """
        return self._len

    def __repr__(self):
        return (f"LevelDominanceCounter(dtype={self._dtype.__name__}) holding {self._len} "
                f"points on {len(self._levels)} levels")

    def count(self, label, score):
        """Number of points held at exactly ``(label, score)``. Runtime complexity:
        O(log L + log n).

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.add(1, 0.5); dc.count(1, 0.5)
        2
        """
        label, score = _checked_point(label, score, "LevelDominanceCounter.count")
        k = bisect_left(self._levels, label)
        if k == len(self._levels) or self._levels[k] != label:
            return 0
        leaf, j = self._sets[k]._find(score)
        return 0 if leaf is None else leaf.items[j]

    def items(self):
        """Iterate over ``(label, score, copies, weight)`` for each distinct point, in
        (label, score) order. Runtime complexity: O(n) for the whole iteration.

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.add(0, 0.9, 2)
        >>> list(dc.items())
        [(0.0, 0.9, 1, 2), (1.0, 0.5, 1, 1)]
        """
        for level, ms in zip(self._levels, self._sets):
            for score, copies, weight in ms.items():
                yield level, score, copies, weight

    def add(self, label, score, weight=1):
        """Add the point ``(label, score)`` with ``weight``.

        Raises `ValueError` for a NaN label or score or an invalid weight, before
        changing anything. Runtime complexity: O(log n), plus O(L) for a new level.

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.add(1, 0.5); len(dc)
        2
        """
        func = "LevelDominanceCounter.add"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        levels = self._levels
        k = bisect_left(levels, label)
        if k == len(levels) or levels[k] != label:
            levels.insert(k, label)
            self._sets.insert(k, WeightedSortedMultiset(dtype=self._dtype))
        self._sets[k]._add(score, weight)
        self._len += 1

    def remove(self, label, score, weight=1):
        """Remove one point ``(label, score)`` added with ``weight``.

        Raises `ValueError`, before changing anything, if no such point is held (with
        ``dtype=int``, also if ``weight`` does not match; see
        `WeightedSortedMultiset.remove`). Runtime complexity: O(log n), plus O(L) to drop
        an emptied level.

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.remove(1, 0.5); dc.levels
        ()
        >>> dc.remove(1, 0.5)
        Traceback (most recent call last):
        ...
        ValueError: The 'label' parameter of LevelDominanceCounter.remove must be the label of a point held. Got 1.0 instead.
        """
        func = "LevelDominanceCounter.remove"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        levels = self._levels
        k = bisect_left(levels, label)
        if k == len(levels) or levels[k] != label:
            raise param_error("label", func, "the label of a point held", repr(label))
        ms = self._sets[k]
        ms._remove(score, weight, func, "score",
                   f"the score of a point held with label {label!r}")
        self._len -= 1
        if not ms._len:
            del levels[k], self._sets[k]

    def query(self, label, score):
        """The 3 x 3 grid of held weight around ``(label, score)`` (module docstring).

        Ties: a held point with an equal label (or score) falls in the middle row (or
        column), never on either side. Runtime complexity: O(L log n).

        >>> dc = LevelDominanceCounter()
        >>> for y, s in [(0, 1.0), (1, 1.0), (2, 0.0), (2, 3.0)]:
        ...     dc.add(y, s)
        >>> dc.query(1, 1.0)
        ((0, 1, 0), (0, 1, 0), (1, 0, 1))
        """
        label, score = _checked_point(label, score, "LevelDominanceCounter.query")
        zero = self._dtype(0)
        rows = [[zero, zero, zero], [zero, zero, zero], [zero, zero, zero]]
        for level, ms in zip(self._levels, self._sets):
            row = rows[0 if level < label else (1 if level == label else 2)]
            below, equal, above = ms._partition(score)
            row[0] += below
            row[1] += equal
            row[2] += above
        return tuple(map(tuple, rows))

    def pairs_with(self, label, score):
        """``(concordant, discordant, tied_score, tied_label, tied_both)``: the weight of
        the held points that would pair with ``(label, score)`` in each way.

        A held point with another label is concordant when its score is ordered as its
        label, discordant when the other way round, tied in score when equal; a point with
        the same label counts in ``tied_label`` and, if its score is equal too, in
        ``tied_both``. Times the point's own weight, these are the changes of ``C``,
        ``D``, ``T``, ``Ty`` and ``Tyy`` when it is inserted (SPEC.md sections 1 and 4).
        Cheaper than `query`: the point's own level is only looked up at ``score``.

        Runtime complexity: O(L log n).

        >>> dc = LevelDominanceCounter()
        >>> for y, s in [(0, 0.2), (0, 0.7), (1, 0.7)]:
        ...     dc.add(y, s)
        >>> dc.pairs_with(1, 0.5)
        (1, 1, 0, 1, 0)
        """
        label, score = _checked_point(label, score, "LevelDominanceCounter.pairs_with")
        conc = disc = tied = tied_label = tied_both = self._dtype(0)
        for level, ms in zip(self._levels, self._sets):
            if level == label:
                tied_label = ms._total
                leaf, j = ms._find(score)
                if leaf is not None:
                    tied_both = leaf.weights[j]
                continue
            below, equal, above = ms._partition(score)
            tied += equal
            if level < label:
                conc += below
                disc += above
            else:
                conc += above
                disc += below
        return conc, disc, tied, tied_label, tied_both

    def pairs_with_many(self, labels, scores, weights=None):
        """``sum_i weights[i] * pairs_with(labels[i], scores[i])``, vectorized: the change
        of the five pair counts when a batch joins, leaving out the pairs inside the batch.

        Exact for ``dtype=int`` (integer weights; Python ints). Runtime complexity:
        O(L (n + k log n)) at worst, one `WeightedSortedMultiset.partition_many` per level.

        >>> dc = LevelDominanceCounter.from_arrays([0, 1], [0.2, 0.7])
        >>> dc.pairs_with_many([1, 0], [0.5, 0.5], [2, 1])
        (3, 0, 0, 3, 0)
        """
        func = "LevelDominanceCounter.pairs_with_many"
        y, s = _points(labels, scores, func)
        w = None if weights is None else _weights_array(weights, y.shape[0], self._dtype,
                                                        func)[0]
        totals = [self._dtype(0)] * 5
        for level, ms in zip(self._levels, self._sets):
            below, equal, above = ms.partition_many(s)
            lower, same = level < y, level == y
            higher = ~(lower | same)
            parts = (np.where(lower, below, 0) + np.where(higher, above, 0),
                     np.where(lower, above, 0) + np.where(higher, below, 0),
                     np.where(same, 0, equal),
                     np.where(same, ms._total, 0),
                     np.where(same, equal, 0))
            for j, part in enumerate(parts):
                totals[j] += _exact_dot(w, part)
        return tuple(totals)

    def _check(self):
        """Assert every invariant; O(n)."""
        state = repr(self)
        assert len(self._levels) == len(self._sets), state
        assert all(a < b for a, b in zip(self._levels, self._levels[1:])), state
        for ms in self._sets:
            assert ms.dtype is self._dtype and len(ms), state
            ms._check()
        assert self._len == sum(len(ms) for ms in self._sets), state



# ====================================================================== any labels
# `DominanceCounter` is compiled (`_cdominance.pyx`). The two classes below are the nodes
# of the Python tree that earlier releases pickled; they are kept only so that those
# pickles load (`DominanceCounter.__setstate__` reads their points).


class _Leaf:
    """A leaf of a pickled Python `DominanceCounter`: sorted keys, copies, weights."""

    __slots__ = ("labels", "scores", "counts", "weights")
    size = 1


class _Inner:
    """An inner node of a pickled Python `DominanceCounter`."""

    __slots__ = ("left", "right", "label", "score", "size", "left_scores")


from ._cdominance import DominanceCounter  # noqa: E402  (it imports the helpers above)
