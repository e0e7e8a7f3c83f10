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

`LevelDominanceCounter` (binary or ordinal labels) is compiled (``_cbinary.pyx``, its
``_levels.pxi``): B+ trees over the scores, two label levels to a tree; a query walks each
tree once, ``O(L log n)`` for ``L`` levels. This module hands it out under its name here
too (the name pickles of version 0.1 ask for).

`DominanceCounter` (any labels, arriving unannounced): a weight-balanced binary tree over
the points in (label, score) order, whose inner nodes each keep a `WeightedSortedMultiset`
of the scores in their left subtree (a dynamic range tree), plus one multiset of all the
scores for the column sums::

                        ┌──────────────────────────────┐
                        │ split key (0.5, 0.2)         │  keys < split on the left
                        │ left_scores {.4 .4 .9 .9}    │  the scores on the left
                        └───────┬──────────────┬───────┘
                 ┌──────────────┴─┐          ┌─┴──────────────────┐
                 │ leaf           │          │ leaf               │   up to 2 * _LEAF
                 │ (0.1, .9) x1   │          │ (0.5, .2) x1       │   distinct (y, s)
                 │ (0.3, .4) x2   │          │ (0.5, .7) x1       │   keys, with copy
                 │ (0.3, .9) x1   │          │ (0.8, .1) x1       │   counts and weights
                 └────────────────┘          └────────────────────┘

A query for the points labelled ``< y`` walks down by label: at each node whose split
label is below ``y`` the whole left subtree qualifies, so it adds ``left_scores``
partitioned at ``s`` (one O(log n) multiset query) and goes right; the leaf at the end is
scanned. That is O(log^2 n). The points labelled exactly ``y`` are the difference of the
walks for ``< y`` and ``<= y``, which are one walk until they part at a node whose split
label is ``y``. An insert or a removal updates ``left_scores`` at each node of its path
where it goes left (about half of them) and the multiset of all scores: O(log^2 n).

Open label universe. New labels need no slot reserved in advance: a leaf that overflows
splits in two under a new inner node, whose multiset is built from the lower half in
O(_LEAF). The tree stays balanced by weight (its number of leaves) with the single and
double rotations of Adams' weight-balanced trees, parameters (delta, gamma) = (3, 2),
which Hirai and Yamamoto (2011) proved to restore the balance after any one insertion or
deletion. A rotation rebuilds ``left_scores`` of the one or two nodes whose left subtree
changed, sorting the ``m`` scores there: O(m log m). As in BB[alpha] trees (Blum and
Mehlhorn 1980), a node of weight ``m`` needs rebalancing about once per Omega(m) leaf
insertions or deletions below it, and a leaf is typically created or emptied once per
Omega(_LEAF) point updates, so rotations cost O(log^2 n) amortized per update, within
the cost of the update itself (benchmarks/bench_structures.py times labels arriving in
increasing order, the order that rotates most). When deletions leave the leaves less
than a quarter full on average, the whole tree is rebuilt in O(n log^2 n), which takes
Omega(n) deletions: O(log^2 n) amortized. Insert, remove and query are therefore O(log^2
n) amortized. Memory is O(n log n): each score sits in about ``log2(n / _LEAF) / 2``
multisets, 24 bytes in each.

Exactness follows `WeightedSortedMultiset`: exact Python ints with ``dtype=int`` (whose
total weight must stay below 2**63), bounded rounding with ``dtype=float``. The grid's
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


def __getattr__(name):
    """``LevelDominanceCounter``: the compiled counter (imported on first use, as the
    compiled module imports this one)."""
    if name == "LevelDominanceCounter":
        from ._cbinary import LevelDominanceCounter
        return LevelDominanceCounter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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


def _checked_point(label, score, func):
    if type(label) is not float or label != label:
        label = _check_value(label, func, "label")
    if type(score) is not float or score != score:
        score = _check_value(score, func, "score")
    return label, score


# ====================================================================== any labels


class _Leaf:
    """Up to ``2 * _LEAF`` distinct (label, score) keys, sorted, with copies and weights."""

    __slots__ = ("labels", "scores", "counts", "weights")
    size = 1  # a leaf weighs one in the balance rule

    def __init__(self, labels, scores, counts, weights):
        self.labels = labels
        self.scores = scores
        self.counts = counts
        self.weights = weights


class _Inner:
    """Keys below ``(label, score)`` are on the left, the others on the right (the split
    key starts as the smallest key on the right; removals may take that key away).
    ``size`` counts the leaves below; ``left_scores`` holds the score of every point in
    the left subtree."""

    __slots__ = ("left", "right", "label", "score", "size", "left_scores")

    def __init__(self, left, right, left_scores):
        self.left = left
        self.right = right
        first = _first_leaf(right)
        self.label = first.labels[0]
        self.score = first.scores[0]
        self.size = left.size + right.size
        self.left_scores = left_scores


def _first_leaf(node):
    while type(node) is _Inner:
        node = node.left
    return node


def _leaf_part(leaf, score, stop, zero):
    """(below, equal, total) weight at ``score`` of the first ``stop`` entries of a leaf
    (sorted by label, so their scores are in no order: one pass)."""
    below = equal = total = zero
    scores, weights = leaf.scores, leaf.weights
    for k in range(stop):
        w = weights[k]
        s = scores[k]
        if s < score:
            below += w
        elif s == score:
            equal += w
        total += w
    return below, equal, total


class DominanceCounter:
    """Dominance weights for points with any labels, including labels never seen before.

    See the module docstring for the structure (a weight-balanced tree over (label,
    score) keys whose nodes hold the scores of their left subtree) and its amortized
    costs.

    Parameters
    ----------
    dtype : {int, float}, default=int
        Type of the weights; ``int`` gives exact counts (the total weight must stay
        below 2**63).

    Notes
    -----
    Runtime complexity: `add`, `remove`, `query` and `pairs_with` are O(log^2 n)
    amortized; `pairs_with_many` O(k log^2 n) for ``k`` points; `from_arrays` and `load`
    O(n log^2 n). Memory: O(n log n).

    Examples
    --------
    >>> dc = DominanceCounter()
    >>> for y, s in [(2.5, 0.1), (0.3, 0.4), (1.7, 0.35), (0.9, 0.8)]:
    ...     dc.add(y, s)
    >>> dc.query(1.0, 0.5)          # rows: label < 1.0, == 1.0, > 1.0
    ((1, 0, 1), (0, 0, 0), (2, 0, 0))
    >>> dc.pairs_with(1.0, 0.5)
    (1, 3, 0, 0, 0)
    """

    __slots__ = ("_dtype", "_root", "_all", "_len", "_entries", "_leaves")

    def __init__(self, *, dtype=int):
        self._dtype = _check_dtype(dtype, "DominanceCounter")
        self.clear()

    def clear(self):
        """Remove every point. Runtime complexity: O(1).

        >>> dc = DominanceCounter(); dc.add(1, 0.5); dc.clear(); len(dc)
        0
        """
        self._root = self._new_leaf()
        self._all = WeightedSortedMultiset(dtype=self._dtype)  # every score held
        self._len = 0        # points held (sum of the leaf counts)
        self._entries = 0    # distinct (label, score) keys held
        self._leaves = 1

    @classmethod
    def from_arrays(cls, labels, scores, weights=None, *, dtype=None):
        """A counter holding the points ``(labels[i], scores[i])`` with ``weights[i]``.

        ``dtype`` defaults to ``int`` for unit, boolean or integer weights and ``float``
        otherwise. Runtime complexity: O(n log^2 n), as `load`.

        >>> dc = DominanceCounter.from_arrays([0, 1, 1, 2], [0.5, 0.2, 0.9, 0.4])
        >>> dc.pairs_with(1, 0.5)
        (0, 1, 1, 2, 0)
        """
        return _from_arrays(cls, labels, scores, weights, dtype)

    def load(self, labels, scores, copies=None, weights=None):
        """Replace the contents by ``copies[i]`` points at ``(labels[i], scores[i])``
        holding ``weights[i]`` between them (unit copies and weights by default), in a
        perfectly balanced tree. The rows of `items` load back as they are. Validated
        whole before anything changes.

        Runtime complexity: O(n log^2 n): each of the ``log n`` levels of the tree sorts
        the scores of its left subtrees.

        >>> dc = DominanceCounter()
        >>> dc.load([1, 0, 1], [0.5, 0.5, 0.5], [2, 1, 1], [2, 1, 1])
        >>> list(dc.items())
        [(0.0, 0.5, 1, 1), (1.0, 0.5, 3, 3)]
        """
        func = "DominanceCounter.load"
        y, s, c, w = _load_args(labels, scores, copies, weights, self._dtype, func)
        self.clear()
        if not y.shape[0]:
            return
        order = np.lexsort((s, y))
        y, s, c, w = y[order], s[order], c[order], w[order]
        starts = np.flatnonzero(np.concatenate(
            ([True], (y[1:] != y[:-1]) | (s[1:] != s[:-1]))))
        self._build(y[starts], s[starts], np.add.reduceat(c, starts),
                    np.add.reduceat(w, starts))

    # ------------------------------------------------------------------ properties

    @property
    def dtype(self):
        """``int`` or ``float``: the type of every weight returned.

        >>> DominanceCounter.from_arrays([1, 2], [0.5, 0.5], [1.5, 2.0]).dtype
        <class 'float'>
        """
        return self._dtype

    @property
    def total_weight(self):
        """Weight of all points held. Runtime complexity: O(1).

        >>> DominanceCounter.from_arrays([1, 2], [0.5, 0.5], [1.5, 2.0]).total_weight
        3.5
        """
        return self._all._total

    def __len__(self):
        """Number of points held (not their weight). Runtime complexity: O(1).

        >>> len(DominanceCounter.from_arrays([1, 1], [0.5, 0.5]))
        2
        """
        return self._len

    def __repr__(self):
        return (f"DominanceCounter(dtype={self._dtype.__name__}) holding {self._len} points "
                f"({self._entries} distinct) in {self._leaves} leaves")

    def count(self, label, score):
        """Number of points held at exactly ``(label, score)``. Runtime complexity:
        O(log n).

        >>> DominanceCounter.from_arrays([1, 1, 2], [0.5, 0.5, 0.5]).count(1, 0.5)
        2
        """
        label, score = _checked_point(label, score, "DominanceCounter.count")
        leaf = self._path_to(label, score)[0][-1]
        lo = bisect_left(leaf.labels, label)
        hi = bisect_right(leaf.labels, label, lo)
        j = bisect_left(leaf.scores, score, lo, hi)
        return leaf.counts[j] if j < hi and leaf.scores[j] == score else 0

    def items(self):
        """Iterate over ``(label, score, copies, weight)`` for each distinct point, in
        (label, score) order. Runtime complexity: O(n) for the whole iteration.

        >>> list(DominanceCounter.from_arrays([2, 1, 2], [0.5, 0.5, 0.5]).items())
        [(1.0, 0.5, 1, 1), (2.0, 0.5, 2, 2)]
        """
        for leaf in _leaves_under(self._root):
            yield from zip(leaf.labels, leaf.scores, leaf.counts, leaf.weights)

    # ------------------------------------------------------------------ updates

    def add(self, label, score, weight=1):
        """Add the point ``(label, score)`` with ``weight``.

        Raises `ValueError` for a NaN label or score or an invalid weight (with
        ``dtype=int``, also one that would take the total past 2**63), before changing
        anything. Runtime complexity: O(log^2 n) amortized.

        >>> dc = DominanceCounter()
        >>> for i in range(100):            # labels 0.0 .. 9.9, scores a permutation
        ...     dc.add(i / 10, (i * 37) % 100)
        >>> dc.query(5.05, 50)
        ((26, 1, 24), (0, 0, 0), (24, 0, 25))
        """
        func = "DominanceCounter.add"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        if self._dtype is int and self._all._total + weight > _INT64_MAX:
            # Every multiset on the path must take the weight: refuse before the first.
            raise param_error("weight", func, "small enough to keep the total weight "
                              "below 2**63", repr(weight))
        self._all._add(score, weight)
        node = self._root
        while type(node) is _Inner:
            if label < node.label or (label == node.label and score < node.score):
                node.left_scores._add(score, weight)
                node = node.left
            else:
                node = node.right
        labels, scores = node.labels, node.scores
        lo = bisect_left(labels, label)
        hi = bisect_right(labels, label, lo)
        j = bisect_left(scores, score, lo, hi)
        if j < hi and scores[j] == score:
            node.counts[j] += 1
            node.weights[j] += weight
        else:
            labels.insert(j, label)
            scores.insert(j, score)
            node.counts.insert(j, 1)
            node.weights.insert(j, weight)
            self._entries += 1
        self._len += 1
        if len(labels) > 2 * _LEAF:
            self._split_leaf(label, score)

    def remove(self, label, score, weight=1):
        """Remove one point ``(label, score)`` added with ``weight``.

        Raises `ValueError`, before changing anything, if no such point is held (with
        ``dtype=int``, also if ``weight`` does not match the weight held there; with
        floats it is trusted, as in `WeightedSortedMultiset.remove`). Runtime
        complexity: O(log^2 n) amortized.

        >>> dc = DominanceCounter.from_arrays([1, 2], [0.5, 0.5])
        >>> dc.remove(2, 0.5); len(dc)
        1
        >>> dc.remove(2, 0.5)
        Traceback (most recent call last):
        ...
        ValueError: The 'score' parameter of DominanceCounter.remove must be the score of a point held with label 2.0. Got 0.5 instead.
        """
        func = "DominanceCounter.remove"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        path, went_left = self._path_to(label, score)
        leaf = path.pop()
        labels, scores = leaf.labels, leaf.scores
        lo = bisect_left(labels, label)
        hi = bisect_right(labels, label, lo)
        j = bisect_left(scores, score, lo, hi)
        if j == hi or scores[j] != score:
            raise param_error("score", func,
                              f"the score of a point held with label {label!r}", repr(score))
        held, copies = leaf.weights[j], leaf.counts[j]
        if self._dtype is int and (weight > held or (copies == 1 and weight != held)):
            expected = (f"{held!r}, the weight of the last copy of ({label!r}, {score!r})"
                        if copies == 1 else
                        f"at most {held!r}, the weight held at ({label!r}, {score!r})")
            raise param_error("weight", func, expected, repr(weight))
        self._all._remove(score, weight)
        for node in went_left:
            node.left_scores._remove(score, weight)
        if copies == 1:  # the last copy takes all the weight left (float residue included)
            del labels[j], scores[j], leaf.counts[j], leaf.weights[j]
            self._entries -= 1
        else:
            new = held - weight
            leaf.weights[j] = new if new > 0 else held - held  # float rounding: clamp at 0
            leaf.counts[j] -= 1
        self._len -= 1
        if not self._len:
            self.clear()  # no float residue survives an empty counter
        elif not labels:
            self._delete_leaf(path, leaf)

    # ------------------------------------------------------------------ queries

    def query(self, label, score):
        """The 3 x 3 grid of held weight around ``(label, score)`` (module docstring).

        Ties: a held point with an equal label (or score) falls in the middle row (or
        column), never on either side. Runtime complexity: O(log^2 n).

        >>> dc = DominanceCounter.from_arrays([0, 1, 1, 2], [1.0, 1.0, 2.0, 0.0])
        >>> dc.query(1, 1.0)
        ((0, 1, 0), (0, 1, 1), (1, 0, 0))
        """
        label, score = _checked_point(label, score, "DominanceCounter.query")
        return _grid_from_rows(*self._rows(label, score))

    def pairs_with(self, label, score):
        """``(concordant, discordant, tied_score, tied_label, tied_both)`` weights of the
        held points against ``(label, score)``; see `LevelDominanceCounter.pairs_with`.

        Runtime complexity: O(log^2 n).

        >>> DominanceCounter.from_arrays([0, 1, 2], [0.3, 0.1, 0.3]).pairs_with(1.5, 0.3)
        (1, 0, 2, 0, 0)
        """
        label, score = _checked_point(label, score, "DominanceCounter.pairs_with")
        return _pairs_from_grid(_grid_from_rows(*self._rows(label, score)))

    def pairs_with_many(self, labels, scores, weights=None):
        """``sum_i weights[i] * pairs_with(labels[i], scores[i])``: the change of the five
        pair counts when a batch joins, leaving out the pairs inside the batch.

        Exact for ``dtype=int`` (integer weights). Runtime complexity: O(k log^2 n), one
        walk per point of the batch (a Python loop: for batches comparable to ``n``, a
        batch pair count of everything is cheaper).

        >>> dc = DominanceCounter.from_arrays([0.5, 1.5], [0.2, 0.7])
        >>> dc.pairs_with_many([1.0, 0.0], [0.5, 0.5], [2, 1])
        (5, 1, 0, 0, 0)
        """
        func = "DominanceCounter.pairs_with_many"
        y, s = _points(labels, scores, func)
        w = (np.ones(y.shape[0], np.int64) if weights is None
             else _weights_array(weights, y.shape[0], self._dtype, func)[0])
        totals = [self._dtype(0)] * 5
        for label, score, weight in zip(y.tolist(), s.tolist(), w.tolist()):
            terms = _pairs_from_grid(_grid_from_rows(*self._rows(label, score)))
            for j in range(5):
                totals[j] += weight * terms[j]
        return tuple(totals)

    # ------------------------------------------------------------------ internals: walks

    def _new_leaf(self):
        return _Leaf(array("d"), array("d"), array("q"),
                     array("q" if self._dtype is int else "d"))

    def _rows(self, label, score):
        """(below, equal, total) at ``score`` of the points labelled ``< label``, of those
        labelled ``== label``, and of all points."""
        zero = self._dtype(0)
        below = equal = total = zero  # the points labelled < label met so far
        node = self._root
        while type(node) is _Inner:
            if node.label < label:  # the whole left subtree is labelled < label
                ms = node.left_scores
                b, e, _ = ms._partition(score)
                below += b
                equal += e
                total += ms._total
                node = node.right
            elif label < node.label:  # the right subtree is labelled > label
                node = node.left
            else:
                # The points labelled `label` straddle this key: "< label" goes on in the
                # left subtree, "<= label" takes the whole left subtree and goes on right.
                ms = node.left_scores
                b, e, _ = ms._partition(score)
                lt = self._prefix(node.left, label, score, True)
                le = self._prefix(node.right, label, score, False)
                return ((below + lt[0], equal + lt[1], total + lt[2]),
                        (b + le[0] - lt[0], e + le[1] - lt[1], ms._total + le[2] - lt[2]),
                        self._column(score))
        # One leaf holds every key labelled `label` (contiguous, and sorted by score).
        labels, scores, weights = node.labels, node.scores, node.weights
        lo = bisect_left(labels, label)
        hi = bisect_right(labels, label, lo)
        b, e, t = _leaf_part(node, score, lo, zero)
        j = bisect_left(scores, score, lo, hi)
        k = bisect_right(scores, score, j, hi)
        eq = (zero + sum(weights[lo:j]), zero + sum(weights[j:k]), zero + sum(weights[lo:hi]))
        return (below + b, equal + e, total + t), eq, self._column(score)

    def _column(self, score):
        """(below, equal, total) at ``score`` of all the points."""
        b, e, _ = self._all._partition(score)
        return b, e, self._all._total

    def _prefix(self, node, label, score, strict):
        """(below, equal, total) at ``score`` of the points under ``node`` labelled
        ``< label`` (``strict``) or ``<= label``."""
        below = equal = total = self._dtype(0)
        while type(node) is _Inner:
            if node.label < label or (not strict and node.label == label):
                ms = node.left_scores
                b, e, _ = ms._partition(score)
                below += b
                equal += e
                total += ms._total
                node = node.right
            else:
                node = node.left
        stop = (bisect_left if strict else bisect_right)(node.labels, label)
        b, e, t = _leaf_part(node, score, stop, self._dtype(0))
        return below + b, equal + e, total + t

    # ------------------------------------------------------------------ internals: shape

    def _path_to(self, label, score):
        """``(path, went_left)``: the nodes from the root down to the leaf that holds or
        would hold the key ``(label, score)`` (that leaf last), and the inner nodes of
        the path whose left subtree holds it."""
        path, went_left = [], []
        node = self._root
        while type(node) is _Inner:
            path.append(node)
            if label < node.label or (label == node.label and score < node.score):
                went_left.append(node)
                node = node.left
            else:
                node = node.right
        path.append(node)
        return path, went_left

    def _replace_child(self, parent, old, new):
        if parent is None:
            self._root = new
        elif parent.left is old:
            parent.left = new
        else:
            parent.right = new

    def _split_leaf(self, label, score):
        """Split the overfull leaf holding ``(label, score)``, then rebalance its path."""
        path = self._path_to(label, score)[0]
        leaf = path.pop()
        half = len(leaf.labels) >> 1
        upper = _Leaf(leaf.labels[half:], leaf.scores[half:], leaf.counts[half:],
                      leaf.weights[half:])
        del leaf.labels[half:], leaf.scores[half:], leaf.counts[half:], leaf.weights[half:]
        inner = _Inner(leaf, upper, self._scores_under(leaf))
        self._replace_child(path[-1] if path else None, leaf, inner)
        self._leaves += 1
        self._rebalance(path)

    def _delete_leaf(self, path, leaf):
        """Drop an emptied leaf: its sibling takes their parent's place. (The left-subtree
        multisets above already lost the leaf's points.)"""
        parent = path.pop()
        sibling = parent.right if parent.left is leaf else parent.left
        self._replace_child(path[-1] if path else None, parent, sibling)
        self._leaves -= 1
        if self._leaves > 4 + 4 * self._entries // _LEAF:
            self._rebuild()  # the leaves are less than a quarter full on average
        else:
            self._rebalance(path)

    def _rebalance(self, path):
        """Refresh the leaf counts along ``path`` (root first) bottom-up, rotating where
        one child has become more than ``_DELTA`` times heavier than the other."""
        for k in range(len(path) - 1, -1, -1):
            node = path[k]
            node.size = node.left.size + node.right.size
            top = self._balance(node)
            if top is not node:
                self._replace_child(path[k - 1] if k else None, node, top)

    def _balance(self, x):
        """Restore the weight balance at ``x`` by a single or double rotation; return the
        subtree's new top. Each node whose left subtree changes gets its multiset rebuilt
        in O(m); split keys stay valid as they are, since every node keeps the same
        in-order neighbours on either side."""
        left, right = x.left, x.right
        if right.size > _DELTA * left.size:
            r = right
            if r.left.size < _GAMMA * r.right.size:
                # x(A, r(B, C))  ->  r(x(A, B), C)
                x.right, r.left = r.left, x
                _resize(x, r)
                r.left_scores = self._scores_under(x)
                return r
            # x(A, r(m(B1, B2), C))  ->  m(x(A, B1), r(B2, C))
            m = r.left
            x.right, r.left = m.left, m.right
            m.left, m.right = x, r
            _resize(x, r, m)
            r.left_scores = self._scores_under(r.left)
            m.left_scores = self._scores_under(x)
            return m
        if left.size > _DELTA * right.size:
            lft = left
            if lft.right.size < _GAMMA * lft.left.size:
                # x(l(A, B), C)  ->  l(A, x(B, C))
                x.left, lft.right = lft.right, x
                _resize(x, lft)
                x.left_scores = self._scores_under(x.left)
                return lft
            # x(l(A, m(B1, B2)), C)  ->  m(l(A, B1), x(B2, C))
            m = lft.right
            lft.right, x.left = m.left, m.right
            m.left, m.right = lft, x
            _resize(lft, x, m)
            x.left_scores = self._scores_under(x.left)
            m.left_scores = self._scores_under(lft)
            return m
        return x

    def _scores_under(self, node):
        """A multiset of the scores of the points under ``node``: O(m log m) (a sort)."""
        leaves = _leaves_under(node)
        wtype = np.int64 if self._dtype is int else np.float64
        return WeightedSortedMultiset._from_parts(
            np.concatenate([np.frombuffer(leaf.scores, np.float64) for leaf in leaves]),
            np.concatenate([np.frombuffer(leaf.counts, np.int64) for leaf in leaves]),
            np.concatenate([np.frombuffer(leaf.weights, wtype) for leaf in leaves]),
            self._dtype)

    def _rebuild(self):
        """Rebuild the whole tree, perfectly balanced with full leaves: O(n log^2 n)."""
        leaves = _leaves_under(self._root)
        wtype = np.int64 if self._dtype is int else np.float64
        self._build(*(np.concatenate([np.frombuffer(getattr(leaf, name), dtype)
                                      for leaf in leaves])
                      for name, dtype in (("labels", np.float64), ("scores", np.float64),
                                          ("counts", np.int64), ("weights", wtype))))

    def _build(self, labels, scores, counts, weights):
        """Replace the contents by distinct keys sorted by (label, score): O(n log^2 n)."""
        n = labels.shape[0]
        chunks = max(1, -(-n // _LEAF))
        bounds = [n * c // chunks for c in range(chunks + 1)]
        wcode = "q" if self._dtype is int else "d"
        leaves = [_Leaf(array("d", labels[lo:hi].tolist()),
                        array("d", scores[lo:hi].tolist()),
                        array("q", counts[lo:hi].tolist()),
                        array(wcode, weights[lo:hi].tolist()))
                  for lo, hi in zip(bounds[:-1], bounds[1:])]
        dtype = self._dtype

        def build(lo, hi):
            """A perfectly balanced tree over leaves[lo:hi]."""
            if hi - lo == 1:
                return leaves[lo]
            mid = (lo + hi) >> 1
            left_scores = WeightedSortedMultiset._from_parts(
                scores[bounds[lo]:bounds[mid]], counts[bounds[lo]:bounds[mid]],
                weights[bounds[lo]:bounds[mid]], dtype)
            return _Inner(build(lo, mid), build(mid, hi), left_scores)

        self._root = build(0, len(leaves))
        self._all = WeightedSortedMultiset._from_parts(scores, counts, weights, dtype)
        self._len = int(counts.sum())
        self._entries = n
        self._leaves = len(leaves)

    # ------------------------------------------------------------------ invariants

    def _check(self):
        """Assert every invariant, every node's multiset included: O(n log n)."""
        try:
            self._check_tree()
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self!r}") from None

    def _check_tree(self):
        dtype = self._dtype
        leaves = _leaves_under(self._root)
        keys = [(y, s) for leaf in leaves for y, s in zip(leaf.labels, leaf.scores)]
        assert all(a < b for a, b in zip(keys, keys[1:])), "keys out of order"
        assert len(keys) == self._entries, "entries"
        assert len(leaves) == self._leaves, "leaf count"
        for leaf in leaves:
            n = len(leaf.labels)
            assert len(leaf.scores) == len(leaf.counts) == len(leaf.weights) == n, "ragged"
            assert n <= 2 * _LEAF and (n or leaf is self._root), "leaf size"
            assert all(c >= 1 for c in leaf.counts), "a key with no copy"
            assert all(w >= 0 for w in leaf.weights), "a negative weight"
            assert leaf.weights.typecode == ("q" if dtype is int else "d"), "weight type"
        assert self._len == sum(sum(leaf.counts) for leaf in leaves), "len"
        assert self._leaves <= 4 + 4 * self._entries // _LEAF, "leaves too empty"

        def visit(node):
            """Check the subtree of ``node``; return its (score, copies, weight) entries
            and its smallest and largest (label, score) keys."""
            if type(node) is _Leaf:
                keys = list(zip(node.labels, node.scores))
                return (list(zip(node.scores, node.counts, node.weights)),
                        keys[0] if keys else None, keys[-1] if keys else None)
            assert node.size == node.left.size + node.right.size, "size"
            assert node.left.size * _DELTA >= node.right.size, "right-heavy"
            assert node.right.size * _DELTA >= node.left.size, "left-heavy"
            left, left_min, left_max = visit(node.left)
            right, right_min, right_max = visit(node.right)
            assert left_max < (node.label, node.score) <= right_min, "split key"
            _check_multiset(node.left_scores, left, dtype)
            return left + right, left_min, right_max

        entries = visit(self._root)[0]
        _check_multiset(self._all, entries, dtype)


def _resize(*nodes):
    """Recompute the leaf counts of ``nodes``, given children first."""
    for node in nodes:
        node.size = node.left.size + node.right.size


def _leaves_under(node):
    """The leaves under ``node``, in key order."""
    out, stack = [], [node]
    while stack:
        node = stack.pop()
        if type(node) is _Inner:
            stack.append(node.right)
            stack.append(node.left)
        else:
            out.append(node)
    return out


def _check_multiset(ms, entries, dtype):
    """Assert that ``ms`` holds exactly the (score, copies, weight) ``entries``."""
    assert ms.dtype is dtype, "multiset dtype"
    ms._check()
    expected = {}
    for s, c, w in entries:
        copies, weight = expected.get(s, (0, 0))
        expected[s] = (copies + c, weight + w)
    got = {v: (c, w) for v, c, w in ms.items()}
    assert got.keys() == expected.keys(), "multiset values"
    for v, (c, w) in expected.items():
        assert got[v][0] == c, "multiset copies"
        if dtype is int:
            assert got[v][1] == w, "multiset weights"
        else:
            assert abs(got[v][1] - w) <= 1e-9 * (w + 1.0), "multiset weights"
