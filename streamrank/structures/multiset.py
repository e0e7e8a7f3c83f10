"""`WeightedSortedMultiset`: weight held below / at / above any value, for an open universe.

Values (scores) arrive unannounced, so there is no fixed key universe to build a Fenwick
tree over. The multiset is a B+ tree whose nodes carry the weight of each subtree, which
makes "weight strictly below ``v``" one root-to-leaf walk::

                         root   keys    [ 0.3 |  0.9 ]      max value under each child
                                weights [ 7.0 |  4.5 ]      weight under each child
                                items     │      │
                      ┌───────────────────┘      └──────────────────┐
           leaf keys    [0.1 | 0.2 | 0.3]           [0.5 | 0.7 | 0.9]     distinct values
                items   [ 2  |  1  |  1 ]           [ 1  |  3  |  1 ]     copies of each
                weights [2.0 | 4.0 | 1.0]           [0.5 | 3.0 | 1.0]     weight at each

    below(0.7): root: 0.7 lies under child 1, add the weight of child 0 (7.0);
                leaf: 0.7 is entry 1, add the weights before it (0.5)      -> 7.5

Every node holds its entries in three parallel sequences: ``keys`` (sorted), ``items``
(children, or copy counts in a leaf) and ``weights`` (subtree weights, or per-value
weights in a leaf); ``keys[i]`` is the largest value under entry ``i``. All leaves sit at
the same depth, and every node but the root holds ``_LOAD // 2 .. 2 * _LOAD`` entries, so
the height is at most ``log_{_LOAD / 2}`` of the number of distinct values (2 inner levels
from about 10**4 to 10**6 values). A node that overflows splits in halves; one that
underflows merges with a sibling.

Leaves keep their numbers in ``array.array`` (8 bytes each, contiguous): at 10**6 values
a query touches a few cold leaves, and reading packed doubles costs about half as much as
chasing pointers to float objects (as measured for `FenwickTree`'s nodes,
benchmarks/bench_structures.py --storage). Sums over a node's
entries add up the shorter side: ``total - sum(weights[i:])`` when ``i`` is past the
middle.

Costs (``n`` distinct values, ``B = 2 * _LOAD``): a query or an update walks ``h =
O(log n)`` nodes and does O(B) C-level work at each (a bisection, a slice sum, an array
insert); a split or merge is O(B). Nothing is rebuilt globally except the float refresh
below, so every bound is worst-case, not amortized, apart from that refresh.

Exactness. ``dtype=int``: per-value weights are int64, subtree sums Python ints; every
returned weight is exact. ``dtype=float``: a subtree sum is updated by one rounded
addition per update below it. Splits and merges recompute the sums they touch with
`math.fsum`, a value's weight is dropped exactly when its last copy leaves, and every
``distinct + 1024`` updates all subtree sums are recomputed with `math.fsum` (amortized
O(1)). A returned weight therefore carries the rounding of at most ``distinct + 1024``
incremental updates plus the final additions: its error is below ``(distinct + 1024 + 2 *
B * h) * 2**-53 * W``, ``W`` the largest total weight held since the last refresh (about
``1e-10 * W`` at 10**6 values, whatever the length of the history).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from numbers import Integral, Real

import numpy as np

from .._validation import describe, param_error

__all__ = ["WeightedSortedMultiset"]

#: Nodes hold between ``_LOAD // 2`` and ``2 * _LOAD`` entries. 64 gave the fastest
#: queries and updates at 10**5 - 10**6 values among 32, 64 and 128
#: (benchmarks/bench_structures.py --load).
_LOAD = 64

#: Float subtree sums are recomputed after ``distinct + _REFRESH_MIN`` updates.
_REFRESH_MIN = 1024

#: The batch queries build sorted numpy arrays of all values (O(distinct)) when the batch
#: has at least ``distinct / 64`` values, where the two paths cost the same at 10**6
#: values (benchmarks/bench_structures.py --crossover); smaller batches walk the tree once
#: per value. The arrays are kept until the next change, so further batches reuse them.
_VECTOR_MIN_FRACTION = 1 / 64

_INT64_MAX = 2**63 - 1
_INF = math.inf


class _Node:
    """A B+ tree node: ``keys`` sorted; leaf ``items`` are copy counts, inner ``items`` are
    children; ``weights`` are per-value (leaf) or per-subtree (inner) weights."""

    __slots__ = ("keys", "items", "weights")

    def __init__(self, keys, items, weights):
        self.keys = keys
        self.items = items
        self.weights = weights


class WeightedSortedMultiset:
    """A multiset of real values, each copy carrying a weight, with weight-rank queries.

    ``below(v)``, ``equal(v)`` and ``above(v)`` return the total weight of the copies
    whose value is ``< v``, ``== v`` and ``> v``: equal values are ties (``-0.0 == 0.0``),
    never split between "below" and "above". With the default unit integer weights these
    are exact counts.

    Parameters
    ----------
    dtype : {int, float}, default=int
        ``int``: weights are non-negative integers, and every returned weight is an exact
        Python int (the weight held at one value must stay below 2**63). ``float``:
        weights are finite non-negative floats; the module docstring bounds the rounding.

    Notes
    -----
    Runtime complexity: O(log n) node visits per operation, each doing O(B) C-level work
    (B = 128 entries per node at most); ``n`` is the number of distinct values. Memory:
    24 bytes per distinct value (value, copy count and weight packed in arrays) plus
    the inner nodes, about 1/64 of that.

    To track exact counts and float weights at once, keep two multisets (one with unit
    int weights); a single float multiset counts copies only through `count` and `len`.

    Examples
    --------
    >>> ms = WeightedSortedMultiset()
    >>> for score in [0.2, 0.5, 0.5, 0.9]:
    ...     ms.add(score)
    >>> ms.below(0.5), ms.equal(0.5), ms.above(0.5)
    (1, 2, 1)
    >>> wms = WeightedSortedMultiset(dtype=float)
    >>> for score, w in [(0.2, 1.5), (0.5, 0.25), (0.9, 2.0)]:
    ...     wms.add(score, w)
    >>> wms.partition(0.5)
    (1.5, 0.25, 2.0)
    """

    __slots__ = ("_dtype", "_root", "_height", "_len", "_total", "_distinct", "_updates",
                 "_peak", "_snapshot")

    def __init__(self, *, dtype=int):
        if dtype is not int and dtype is not float:
            raise param_error("dtype", "WeightedSortedMultiset", "int or float",
                              describe(dtype))
        self._dtype = dtype
        self.clear()

    def clear(self):
        """Remove everything. Runtime complexity: O(1).

        >>> ms = WeightedSortedMultiset.from_arrays([1.0, 2.0])
        >>> ms.clear(); len(ms), ms.total_weight
        (0, 0)
        """
        self._root = self._new_leaf()
        self._height = 0          # number of inner levels above the leaves
        self._len = 0             # copies held (sum of the leaf counts)
        self._total = self._dtype(0)  # weight held (sum of the leaf weights)
        self._distinct = 0        # distinct values held (number of leaf entries)
        self._updates = 0         # float updates since the subtree sums were recomputed
        self._peak = self._total  # float: largest total weight held since then
        self._snapshot = None     # numpy arrays for the batch queries; None once stale

    @classmethod
    def from_arrays(cls, values, weights=None, *, dtype=None):
        """A multiset holding one copy of ``values[i]`` with weight ``weights[i]``.

        Parameters
        ----------
        values : array-like of shape (n,)
            Real numbers, not NaN.
        weights : array-like of shape (n,), optional
            Non-negative finite weights; unit weights if omitted.
        dtype : {int, float}, optional
            Defaults to ``int`` for unit, boolean or integer weights and ``float``
            otherwise.

        Runtime complexity: O(n log n) (one sort), then O(n) to build the tree.

        Examples
        --------
        >>> ms = WeightedSortedMultiset.from_arrays([3.0, 1.0, 3.0, 2.0])
        >>> len(ms), ms.distinct, ms.below(3.0)
        (4, 3, 2)
        """
        func = "WeightedSortedMultiset.from_arrays"
        v = np.asarray(values)
        if v.ndim != 1 or (v.size and v.dtype.kind not in "biuf"):
            raise param_error("values", func, "a 1-D array of real numbers", describe(v))
        v = v.astype(np.float64)
        if np.isnan(v).any():
            raise param_error("values", func, "free of NaN", describe(v))
        w, dtype = _weights_array(weights, v.shape[0], dtype, func)
        return cls._from_parts(v, np.ones(v.shape[0], np.int64), w, dtype)

    @classmethod
    def _from_parts(cls, values, counts, weights, dtype):
        """A multiset of ``counts[i]`` copies of ``values[i]`` holding ``weights[i]``
        (numpy arrays, any order, repeats allowed), unvalidated: O(n log n), and O(n)
        when ``values`` is a few sorted runs (numpy's stable sort is a timsort)."""
        self = cls(dtype=dtype)
        if values.shape[0]:
            order = np.argsort(values, kind="stable")
            v = values[order]
            starts = np.flatnonzero(np.concatenate(([True], v[1:] != v[:-1])))
            self._load_sorted(v[starts], np.add.reduceat(counts[order], starts),
                              np.add.reduceat(weights[order], starts))
        return self

    # ------------------------------------------------------------------ properties

    @property
    def dtype(self):
        """``int`` or ``float``: the type of every weight returned.

        >>> WeightedSortedMultiset.from_arrays([1.0], [0.5]).dtype
        <class 'float'>
        """
        return self._dtype

    @property
    def total_weight(self):
        """Weight of all copies held. Runtime complexity: O(1).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0], [0.5, 0.25]).total_weight
        0.75
        """
        return self._total

    @property
    def distinct(self):
        """Number of distinct values held. Runtime complexity: O(1).

        >>> WeightedSortedMultiset.from_arrays([1.0, 1.0, 2.0]).distinct
        2
        """
        return self._distinct

    def __len__(self):
        """Number of copies held (not their weight). Runtime complexity: O(1).

        >>> len(WeightedSortedMultiset.from_arrays([1.0, 1.0, 2.0]))
        3
        """
        return self._len

    def __contains__(self, value):
        """Whether at least one copy of ``value`` is held (never NaN). Runtime
        complexity: O(log n).

        >>> 2.0 in WeightedSortedMultiset.from_arrays([1.0, 2.0])
        True
        """
        return value == value and self.count(value) > 0

    def __repr__(self):
        return (f"WeightedSortedMultiset(dtype={self._dtype.__name__}) holding {self._len} "
                f"copies of {self._distinct} values, total weight {self._total!r}")

    def items(self):
        """Iterate over ``(value, copies, weight)`` for each distinct value, ascending.

        Runtime complexity: O(n) for the whole iteration.

        >>> list(WeightedSortedMultiset.from_arrays([2.0, 1.0, 2.0]).items())
        [(1.0, 1, 1), (2.0, 2, 2)]
        """
        for leaf in self._leaves():
            yield from zip(leaf.keys, leaf.items, leaf.weights)

    # ------------------------------------------------------------------ updates

    def add(self, value, weight=1):
        """Add one copy of ``value`` carrying ``weight``.

        Raises `ValueError` for a NaN value or a negative, non-finite (or, with
        ``dtype=int``, non-integer) weight, before changing anything.

        Runtime complexity: O(log n).

        >>> ms = WeightedSortedMultiset()
        >>> ms.add(0.5); ms.add(0.5, 3)
        >>> ms.count(0.5), ms.equal(0.5)
        (2, 4)
        """
        if type(value) is not float or value != value:
            value = _check_value(value, "WeightedSortedMultiset.add")
        weight = _check_weight(weight, self._dtype, "WeightedSortedMultiset.add")
        self._add(value, weight)

    def remove(self, value, weight=1):
        """Remove one copy of ``value`` that was added with ``weight``.

        The multiset keeps one weight per distinct value, so it cannot tell which copy
        leaves; the caller passes the weight it added. With ``dtype=int`` this is
        verified: the weight held at ``value`` must cover ``weight``, and be used up
        exactly by its last copy. With ``dtype=float`` it is trusted, since a mismatch
        cannot be told from rounding: the last copy of a value takes all the weight left
        there (rounding residue included), and a weight left below zero by rounding is
        stored as 0.0.

        Raises `ValueError`, before changing anything, if ``value`` is not held or the
        weight is invalid.

        Runtime complexity: O(log n).

        Examples
        --------
        >>> ms = WeightedSortedMultiset.from_arrays([1.0, 2.0, 2.0])
        >>> ms.remove(2.0)
        >>> ms.count(2.0), len(ms)
        (1, 2)
        >>> ms.remove(3.0)
        Traceback (most recent call last):
        ...
        ValueError: The 'value' parameter of WeightedSortedMultiset.remove must be a value held. Got 3.0 instead.
        """
        func = "WeightedSortedMultiset.remove"
        if type(value) is not float or value != value:
            value = _check_value(value, func)
        weight = _check_weight(weight, self._dtype, func)
        self._remove(value, weight)

    # ------------------------------------------------------------------ queries

    def below(self, value):
        """Weight of the copies ``< value``. Runtime complexity: O(log n).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0, 2.0, 3.0]).below(2.0)
        1
        """
        return self.partition(value)[0]

    def equal(self, value):
        """Weight of the copies ``== value``. Runtime complexity: O(log n).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0, 2.0, 3.0]).equal(2.0)
        2
        """
        leaf, j = self._find(_check_value(value, "WeightedSortedMultiset.equal"))
        return self._dtype(0) if leaf is None else leaf.weights[j]

    def above(self, value):
        """Weight of the copies ``> value``. Runtime complexity: O(log n).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0, 2.0, 3.0]).above(2.0)
        1
        """
        return self.partition(value)[2]

    def count(self, value):
        """Number of copies ``== value`` (whatever their weight). Runtime complexity:
        O(log n).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0, 2.0], [1.5, 0.0, 0.0]).count(2.0)
        2
        """
        leaf, j = self._find(_check_value(value, "WeightedSortedMultiset.count"))
        return 0 if leaf is None else leaf.items[j]

    def partition(self, value):
        """``(below(value), equal(value), above(value))`` in one walk down the tree.

        The three parts add up to `total_weight` (for floats, up to one rounding:
        ``above`` is computed as ``total - below - equal``).

        Runtime complexity: O(log n).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0, 2.0, 3.0]).partition(2.5)
        (3, 0, 1)
        """
        if type(value) is not float or value != value:
            value = _check_value(value, "WeightedSortedMultiset.partition")
        return self._partition(value)

    # ------------------------------------------------------------------ batch queries

    def partition_many(self, values):
        """`partition` of each of ``values``: three numpy arrays (below, equal, above).

        Exact for ``dtype=int`` (int64 arrays, or object arrays of Python ints when the
        total reaches 2**63). For floats, equal to the scalar results up to rounding: the
        vectorized path sums the weights in value order.

        Runtime complexity: O(k log n) for ``k`` values; O(n + k log n) when ``k >=
        n / 64`` and the multiset changed since the last batch (numpy arrays of all
        values are built once and reused until the next change).

        >>> ms = WeightedSortedMultiset.from_arrays([1.0, 2.0, 2.0, 3.0])
        >>> below, equal, above = ms.partition_many([0.0, 2.0, 5.0])
        >>> below.tolist(), equal.tolist(), above.tolist()
        ([0, 1, 4], [0, 2, 0], [4, 1, 0])
        """
        return self._partition_many(values, "WeightedSortedMultiset.partition_many")

    def below_many(self, values):
        """`below` of each of ``values``, as a numpy array (see `partition_many`).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0]).below_many([1.5, 9.0]).tolist()
        [1, 2]
        """
        return self._partition_many(values, "WeightedSortedMultiset.below_many")[0]

    def equal_many(self, values):
        """`equal` of each of ``values``, as a numpy array (see `partition_many`).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0]).equal_many([1.0, 1.5]).tolist()
        [1, 0]
        """
        return self._partition_many(values, "WeightedSortedMultiset.equal_many")[1]

    def above_many(self, values):
        """`above` of each of ``values``, as a numpy array (see `partition_many`).

        >>> WeightedSortedMultiset.from_arrays([1.0, 2.0]).above_many([1.0, 0.0]).tolist()
        [1, 2]
        """
        return self._partition_many(values, "WeightedSortedMultiset.above_many")[2]

    # ------------------------------------------------------------------ internals: walks

    def _find(self, value):
        """``(leaf, j)`` with ``leaf.keys[j] == value``, or ``(None, -1)``."""
        node = self._root
        for _ in range(self._height):
            i = bisect_left(node.keys, value)
            if i == len(node.keys):
                return None, -1
            node = node.items[i]
        keys = node.keys
        j = bisect_left(keys, value)
        if j < len(keys) and keys[j] == value:
            return node, j
        return None, -1

    def _partition(self, value):
        """`partition` without validation: the hot path of the dominance counters."""
        total = self._total
        below = total - total  # a zero of the multiset's type
        node_total = total
        node = self._root
        for _ in range(self._height):
            keys = node.keys
            n = len(keys)
            i = bisect_left(keys, value)
            if i == n:  # only at the root: value is above every value held
                return total, below, below
            weights = node.weights
            # The weight of the children before i, summing the shorter side.
            if i + i <= n:
                below += sum(weights[:i])
            else:
                below += node_total - sum(weights[i:])
            node_total = weights[i]
            node = node.items[i]
        keys = node.keys
        n = len(keys)
        j = bisect_left(keys, value)
        weights = node.weights
        if j + j <= n:
            below += sum(weights[:j])
        else:
            below += node_total - sum(weights[j:])
        if j < n and keys[j] == value:
            equal = weights[j]
            return below, equal, total - below - equal
        return below, total - total, total - below

    def _add(self, value, weight):
        """`add` without validation."""
        node = self._root
        path = []
        for _ in range(self._height):
            keys = node.keys
            i = bisect_left(keys, value)
            if i == len(keys):  # a new maximum: it goes to the last child
                i -= 1
                keys[i] = value
            path.append((node, i))
            node = node.items[i]
        keys = node.keys
        j = bisect_left(keys, value)
        if j < len(keys) and keys[j] == value:
            try:  # before any sum changes
                node.weights[j] += weight
            except OverflowError:  # int64 leaf weights
                raise param_error("weight", "WeightedSortedMultiset.add",
                                  "small enough to keep the weight held at one value below "
                                  "2**63", repr(weight)) from None
            node.items[j] += 1
        else:
            keys.insert(j, value)
            node.items.insert(j, 1)
            node.weights.insert(j, weight)
            self._distinct += 1
        for parent, i in path:
            parent.weights[i] += weight
        self._len += 1
        self._total += weight
        self._snapshot = None
        if len(keys) > 2 * _LOAD:
            self._split_up(path, node)
        if self._dtype is float:
            self._float_update()

    def _remove(self, value, weight, func="WeightedSortedMultiset.remove", name="value",
                held_text="a value held"):
        """`remove` after the checks of ``value`` and ``weight`` alone: whether ``value``
        is held (and, for ints, whether ``weight`` matches) is checked here, on the way
        down, before anything changes. The other arguments go into the messages."""
        node = self._root
        path = []
        for _ in range(self._height):
            i = bisect_left(node.keys, value)
            if i == len(node.keys):
                break  # above every value held
            path.append((node, i))
            node = node.items[i]
        keys = node.keys
        j = bisect_left(keys, value)
        if len(path) < self._height or j == len(keys) or keys[j] != value:
            raise param_error(name, func, held_text, repr(value))
        held = node.weights[j]
        if self._dtype is int and (weight > held or (node.items[j] == 1 and weight != held)):
            expected = (f"{held!r}, the weight of the last copy of {value!r}"
                        if node.items[j] == 1 else
                        f"at most {held!r}, the weight held at {value!r}")
            raise param_error("weight", func, expected, repr(weight))
        if node.items[j] == 1:
            # The last copy takes all the weight left (float residue included).
            delta = -held
            del keys[j], node.items[j], node.weights[j]
            self._distinct -= 1
        else:
            new = held - weight
            if new < 0:  # float rounding, or a float weight that did not match
                new = 0.0
            node.weights[j] = new
            node.items[j] -= 1
            delta = new - held
        for parent, i in path:
            parent.weights[i] += delta
        self._len -= 1
        self._total += delta
        self._snapshot = None
        if not self._len:  # empty: start afresh, with no float residue anywhere
            self.clear()
            return
        if len(keys) < _LOAD // 2:
            self._merge_up(path, node)
        elif j == len(keys):  # the maximum left this leaf
            self._fix_maxima(path, keys[-1])
        if self._dtype is float:
            self._float_update()

    # ------------------------------------------------------------------ internals: shape

    def _new_leaf(self):
        return _Node(array("d"), array("q"), array("q" if self._dtype is int else "d"))

    def _sum(self, weights):
        return sum(weights) if self._dtype is int else math.fsum(weights)

    def _split_up(self, path, node):
        """Split the overfull ``node`` in halves, and every ancestor that overflows."""
        while len(node.keys) > 2 * _LOAD:
            half = len(node.keys) >> 1
            upper = _Node(node.keys[half:], node.items[half:], node.weights[half:])
            del node.keys[half:], node.items[half:], node.weights[half:]
            lower_sum, upper_sum = self._sum(node.weights), self._sum(upper.weights)
            if not path:  # the root splits: the tree grows one level
                self._root = _Node(array("d", (node.keys[-1], upper.keys[-1])),
                                   [node, upper], self._inner_weights((lower_sum, upper_sum)))
                self._height += 1
                return
            parent, i = path.pop()
            parent.keys.insert(i + 1, parent.keys[i])  # upper keeps node's old maximum
            parent.keys[i] = node.keys[-1]
            parent.items.insert(i + 1, upper)
            parent.weights.insert(i + 1, upper_sum)
            parent.weights[i] = lower_sum
            node = parent

    def _merge_up(self, path, node):
        """Merge the underfull ``node`` with a sibling, then every ancestor that
        underflows in turn; fix the maxima above; drop a root left with one child."""
        while path and len(node.keys) < _LOAD // 2:
            parent, i = path.pop()
            left = i - 1 if i else i  # merge children left and left + 1 into left
            a, b = parent.items[left], parent.items[left + 1]
            a.keys += b.keys
            a.items += b.items
            a.weights += b.weights
            del parent.keys[left + 1], parent.items[left + 1], parent.weights[left + 1]
            parent.keys[left] = a.keys[-1]
            parent.weights[left] = self._sum(a.weights)
            if len(a.keys) > 2 * _LOAD:  # too big for one node: share out evenly again
                self._split_up([(parent, left)], a)
            node = parent
        if path:  # node's maximum may be the value that left
            self._fix_maxima(path, node.keys[-1])
        while self._height and len(self._root.items) == 1:
            self._root = self._root.items[0]
            self._height -= 1

    def _fix_maxima(self, path, new_max):
        """Propagate a subtree's new maximum up ``path`` while it is the last child."""
        for parent, i in reversed(path):
            parent.keys[i] = new_max
            if i != len(parent.keys) - 1:
                break

    def _inner_weights(self, sums):
        return list(sums) if self._dtype is int else array("d", sums)

    def _load_sorted(self, values, counts, weights):
        """Replace the contents by sorted distinct ``values``: O(n) bottom-up build."""
        n = values.shape[0]
        bounds = _chunk_bounds(n, _LOAD)
        wtype = np.int64 if self._dtype is int else np.float64
        level = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            leaf = self._new_leaf()
            leaf.keys.frombytes(np.ascontiguousarray(values[lo:hi], np.float64).tobytes())
            leaf.items.frombytes(np.ascontiguousarray(counts[lo:hi], np.int64).tobytes())
            leaf.weights.frombytes(np.ascontiguousarray(weights[lo:hi], wtype).tobytes())
            level.append(leaf)
        height = 0
        while len(level) > 1:
            # Inner nodes change only when a child splits or merges: build them full.
            bounds = _chunk_bounds(len(level), 2 * _LOAD)
            level = [_Node(array("d", [c.keys[-1] for c in level[lo:hi]]), level[lo:hi],
                           self._inner_weights([self._sum(c.weights) for c in level[lo:hi]]))
                     for lo, hi in zip(bounds[:-1], bounds[1:])]
            height += 1
        self._root = level[0]
        self._height = height
        self._len = int(counts.sum())
        self._total = self._sum(self._root.weights)
        self._distinct = n
        self._updates = 0
        self._peak = self._total
        self._snapshot = None

    def _leaves(self):
        level = [self._root]
        for _ in range(self._height):
            level = [child for node in level for child in node.items]
        return level

    # ------------------------------------------------------------------ internals: floats

    def _float_update(self):
        """Count a float update; refresh the sums every ``distinct + _REFRESH_MIN``."""
        self._updates += 1
        if self._total > self._peak:
            self._peak = self._total
        if self._updates > self._distinct + _REFRESH_MIN:
            self._refresh()

    def _refresh(self):
        """Recompute every subtree sum and the total with `math.fsum`: O(n)."""
        def subtree_sum(node, depth):
            if depth == self._height:
                return math.fsum(node.weights)
            sums = [subtree_sum(child, depth + 1) for child in node.items]
            node.weights = array("d", sums)
            return math.fsum(sums)
        self._total = subtree_sum(self._root, 0)
        self._updates = 0
        self._peak = self._total

    # ------------------------------------------------------------------ internals: batches

    def _arrays(self):
        """Sorted distinct values, copy counts and weights as numpy arrays: O(n)."""
        leaves = self._leaves()
        wtype = np.int64 if self._dtype is int else np.float64
        if not self._distinct:
            return (np.empty(0), np.empty(0, np.int64), np.empty(0, wtype))
        return (np.concatenate([np.frombuffer(leaf.keys, np.float64) for leaf in leaves]),
                np.concatenate([np.frombuffer(leaf.items, np.int64) for leaf in leaves]),
                np.concatenate([np.frombuffer(leaf.weights, wtype) for leaf in leaves]))

    def _partition_many(self, values, func):
        q = np.asarray(values)
        if q.ndim != 1 or (q.size and q.dtype.kind not in "biuf"):
            raise param_error("values", func, "a 1-D array of real numbers", describe(q))
        q = q.astype(np.float64)
        if np.isnan(q).any():
            raise param_error("values", func, "free of NaN", describe(q))
        big_int = self._dtype is int and self._total > _INT64_MAX
        out_dtype = object if big_int else (np.int64 if self._dtype is int else np.float64)
        if self._snapshot is None and q.shape[0] < self._distinct * _VECTOR_MIN_FRACTION:
            parts = [self._partition(x) for x in q.tolist()]
            out = np.asarray(parts, dtype=out_dtype).reshape(q.shape[0], 3)
            return out[:, 0], out[:, 1], out[:, 2]
        if self._snapshot is None:
            vals, _, weights = self._arrays()
            if big_int:
                weights = weights.astype(object)
            cum = np.concatenate((np.zeros(1, weights.dtype), np.cumsum(weights)))
            self._snapshot = (vals, weights, cum)
        vals, weights, cum = self._snapshot
        pos = np.searchsorted(vals, q, side="left")
        below = cum[pos]
        hit = pos < vals.shape[0]
        hit[hit] = vals[pos[hit]] == q[hit]
        equal = np.zeros(q.shape[0], dtype=weights.dtype)
        equal[hit] = weights[pos[hit]]
        above = self._total - below - equal
        return below.astype(out_dtype), equal.astype(out_dtype), above.astype(out_dtype)

    # ------------------------------------------------------------------ invariants

    def _check(self):
        """Assert every invariant (O(n)); the message dumps the tree on failure."""
        try:
            self._check_tree()
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self._dump()}") from None

    def _check_tree(self):
        dtype, load = self._dtype, _LOAD
        wcode = "q" if dtype is int else "d"
        leaves_seen = []

        def visit(node, depth):
            """Check ``node``; return (max key, copies, exact weight sum) of its subtree."""
            n = len(node.keys)
            assert len(node.items) == n and len(node.weights) == n, "ragged node"
            assert n <= 2 * load, "overfull node"
            if node is not self._root:
                assert n >= load // 2, "underfull node"
            assert all(a < b for a, b in zip(node.keys, node.keys[1:])), "keys not sorted"
            if depth == self._height:
                assert isinstance(node.weights, array) and node.weights.typecode == wcode
                assert all(c >= 1 for c in node.items), "a value with no copy"
                assert all(w >= 0 for w in node.weights), "a negative weight"
                leaves_seen.append(node)
                return (node.keys[-1] if n else None, sum(node.items),
                        self._sum(node.weights))
            assert n >= 1 and (node is not self._root or n >= 2), "inner node too small"
            copies, exact = 0, []
            for key, child, weight in zip(node.keys, node.items, node.weights):
                child_max, child_copies, child_exact = visit(child, depth + 1)
                assert key == child_max, "key is not the child's maximum"
                _assert_close(weight, child_exact, dtype, self._tolerance(), "subtree weight")
                copies += child_copies
                exact.append(child_exact)
            return node.keys[-1], copies, self._sum(exact)

        _, copies, exact = visit(self._root, 0)
        assert copies == self._len, "len"
        _assert_close(self._total, exact, dtype, self._tolerance(), "total weight")
        assert sum(len(leaf.keys) for leaf in leaves_seen) == self._distinct, "distinct"
        values = [v for leaf in leaves_seen for v in leaf.keys]
        assert all(a < b for a, b in zip(values, values[1:])), "leaves out of order"
        assert all(v == v for v in values), "NaN held"

    def _tolerance(self):
        """The rounding bound of the module docstring, for the float checks."""
        height_work = 4 * _LOAD * (self._height + 1)
        return 2.0**-53 * (self._updates + height_work) * (self._peak + 1.0)

    def _dump(self):
        lines = [repr(self)]

        def walk(node, depth):
            pad = "  " * depth
            if depth == self._height:
                lines.append(f"{pad}leaf {list(zip(node.keys, node.items, node.weights))}")
                return
            lines.append(f"{pad}node keys={list(node.keys)} weights={list(node.weights)}")
            for child in node.items:
                walk(child, depth + 1)
        walk(self._root, 0)
        return "\n".join(lines)


def _weights_array(weights, n, dtype, func):
    """``(w, dtype)``: ``n`` validated weights as int64 or float64 (unit weights for
    ``None``), and the dtype they imply when ``dtype`` is None. Int weights must total
    below 2**63, so that no partial sum of them overflows int64."""
    if weights is None:
        w = np.ones(n, dtype=np.int64)
    else:
        w = np.asarray(weights)
        if w.shape != (n,) or (w.size and w.dtype.kind not in "biuf"):
            raise param_error("weights", func, f"{n} real numbers", describe(w))
    if dtype is None:
        dtype = float if w.dtype.kind == "f" else int
    elif dtype is not int and dtype is not float:
        raise param_error("dtype", func, "int or float", describe(dtype))
    if dtype is int:
        if w.size and w.dtype.kind == "f":
            raise param_error("weights", func, "integers (dtype is int)", describe(w))
        if w.size and (w.min() < 0 or int(w.max()) > _INT64_MAX):
            raise param_error("weights", func, "non-negative and below 2**63", describe(w))
        if w.size and int(w.max()) * n > _INT64_MAX and int(w.astype(object).sum()) > _INT64_MAX:
            raise param_error("weights", func, "of total below 2**63", describe(w))
        return w.astype(np.int64), dtype
    w = w.astype(np.float64)
    if w.size and (not np.isfinite(w).all() or w.min() < 0):
        raise param_error("weights", func, "finite and non-negative", describe(w))
    return w, dtype


def _check_weight(weight, dtype, func):
    """``weight`` as a non-negative int below 2**63 (``dtype=int``) or a finite
    non-negative float; `ValueError` otherwise."""
    if dtype is int:
        if type(weight) is int and 0 <= weight <= _INT64_MAX:
            return weight
        if isinstance(weight, Integral) and 0 <= weight <= _INT64_MAX:
            return int(weight)
        raise param_error("weight", func, "a non-negative integer below 2**63 (the dtype "
                          "is int)", describe(weight))
    if type(weight) is float and 0.0 <= weight < _INF:
        return weight
    if isinstance(weight, Real) and 0 <= weight < _INF:
        return float(weight)
    raise param_error("weight", func, "a finite non-negative number", describe(weight))


def _check_value(value, func, name="value"):
    """``value`` as a float that is not NaN; `ValueError` otherwise."""
    if isinstance(value, Real) and value == value:
        return float(value)
    raise param_error(name, func, "a real number, not NaN", describe(value))


def _chunk_bounds(n, size):
    """Split ``range(n)`` into ``ceil(n / size)`` near-equal chunks: each holds ``size / 2
    .. size`` entries when there are two or more."""
    chunks = max(1, -(-n // size))
    return [n * c // chunks for c in range(chunks + 1)]


def _assert_close(got, exact, dtype, tol, what):
    if dtype is int:
        assert got == exact, f"{what}: {got!r} != {exact!r}"
    else:
        assert abs(got - exact) <= tol, f"{what}: {got!r} vs {exact!r} (tolerance {tol!r})"
