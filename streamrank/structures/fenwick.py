"""`FenwickTree`: prefix sums of non-negative weights over a fixed, compressed key universe.

Use it when the keys are known up front or quantised (label levels, score bins, ranks of
a fixed set of scores): key ``i`` is one of the positions ``0 .. size - 1``. For keys that
arrive unannounced use `WeightedSortedMultiset` instead.

Layout (Fenwick 1994). Node ``k`` (1-based) holds the weight of the ``lowbit(k) = k & -k``
positions that end at position ``k - 1``::

    position     0     1     2     3     4     5     6     7
    node 8      [-----------------------------------------------]
    node 4      [-----------------------]
    node 6                              [-----------]
    node 2      [-----------]
    node 1,3,5,7[-]         [-]         [-]         [-]

* ``prefix_sum(i)`` adds node ``i``, then node ``i & (i - 1)``, ...: one node per set
  bit of ``i`` (``prefix_sum(7)`` = node 7 + node 6 + node 4).
* ``add(i, w)`` updates node ``i + 1`` and every node above it: ``k += k & -k``.
* ``search(t)`` walks down from the highest power of two, taking each node whose weight
  still leaves the running sum below ``t``: binary lifting, no inner binary search.

Storage. The nodes and the point weights are packed ``array.array`` buffers (int64 or
float64): 16 bytes per position, and numpy reads them in place (``np.frombuffer``), so a
batch method pays no conversion. Scalar operations run a Python loop of ``log2(size)``
steps; at ``size = 10**6`` with random positions (benchmarks/bench_structures.py
--storage, CPU time on the 2-core development machine):

    ===========================  ================  =================
    storage of the nodes         add               prefix_sum
    ===========================  ================  =================
    ``array.array('d')``         1.48 us           1.07 us
    ``list`` of floats           2.55 us           2.41 us
    ``numpy.ndarray`` float64    2.06 us           1.57 us
    ===========================  ================  =================

A list reads fastest while it is all in cache, but each of its floats is a separate
object: at this size most of the nodes a walk touches are cache misses, twice over (the
slot, then the object), while a packed array misses once.

Exactness. With ``dtype=int`` every sum is exact; the total weight must stay below 2**63
(then no node can overflow int64), and `add` refuses an update that would break that.
With ``dtype=float`` each update rounds once per node it touches, so node sums drift; the
nodes are rebuilt from the point weights every ``size + 1024`` updates (amortized O(1) per
update), so a prefix sum carries the rounding of at most that many updates, each bounded
by ``2**-53`` times the largest total weight held in between, plus ``log2(size)``
roundings of its own.
"""

from __future__ import annotations

import math
from array import array
from numbers import Integral, Real

import numpy as np

from .._validation import describe, param_error

__all__ = ["FenwickTree"]

#: Float trees are rebuilt from their point weights after ``size + _REFRESH_MIN`` updates.
_REFRESH_MIN = 1024

#: `prefix_sum_many` runs its walk on numpy index arrays from this many indices on: below,
#: the fixed cost of ``log2(size)`` numpy calls exceeds a Python loop per index
#: (benchmarks/bench_structures.py --crossover).
_VECTOR_MIN = 64

#: `add_many` rebuilds all the nodes in O(size) (numpy) when it changes at least
#: ``size / 64`` positions, instead of walking up from each of them.
_REBUILD_MIN_FRACTION = 1 / 64

_INT64_MAX = 2**63 - 1
_INF = math.inf


def _dtype_of(dtype, func):
    if dtype is int or dtype is float:
        return dtype
    raise param_error("dtype", func, "int or float", describe(dtype))


def _coerce_weight(w, dtype, func, name="w"):
    """``w`` as a Python ``int`` (``dtype=int``) or a finite Python ``float``."""
    if dtype is int:
        if isinstance(w, Integral):
            return int(w)
        raise param_error(name, func, "an integer (the tree has dtype int)", describe(w))
    if isinstance(w, Real) and math.isfinite(w):
        return float(w)
    raise param_error(name, func, "a finite real number", describe(w))


def _build_nodes(values: np.ndarray) -> np.ndarray:
    """Fenwick nodes of ``values`` (1-based, ``nodes[0] == 0``) in O(m) vectorized steps.

    Pass ``j`` adds every node of ``lowbit == 2**j`` into its parent ``k + 2**j`` (for the
    ``k`` that are multiples of ``2**(j + 1)``): the same additions, in the same order per
    node, as the classic loop ``tree[k + lowbit(k)] += tree[k]``, done level by level.
    """
    m = values.shape[0]
    nodes = np.zeros(m + 1, dtype=values.dtype)
    nodes[1:] = values
    step = 2
    while step <= m:
        parents = nodes[step::step]
        parents += nodes[step >> 1::step][: parents.shape[0]]
        step <<= 1
    return nodes


class FenwickTree:
    """Prefix sums of non-negative weights at positions ``0 .. size - 1``.

    Parameters
    ----------
    size : int
        Number of positions ``m``; the tree starts with weight 0 everywhere.
    dtype : {int, float}, default=int
        ``int``: every sum is exact (total weight below 2**63). ``float``: weights are
        finite floats; see the module docstring for the rounding bound.

    Notes
    -----
    Runtime complexity: O(log m) per scalar operation, O(m) to build from an array
    (`from_weights`), O(k log m) for a batch of ``k`` indices (vectorized from 64 on).
    Memory: 16 bytes per position.

    A point weight may never become negative (`search` relies on prefix sums being
    non-decreasing): `add` refuses an integer update that would make it so, and stores a
    float result below zero (rounding residue) as 0.0.

    Examples
    --------
    >>> ft = FenwickTree(6)
    >>> for i in [1, 3, 3, 4]:
    ...     ft.add(i, 1)
    >>> ft.prefix_sum(4), ft.range_sum(3, 5), ft.total
    (3, 3, 4)
    >>> ft.search(2)        # smallest position whose inclusive prefix reaches 2
    3
    """

    __slots__ = ("_dtype", "_size", "_tree", "_values", "_total", "_updates")

    def __init__(self, size, *, dtype=int):
        if not isinstance(size, Integral) or size < 0:
            raise param_error("size", "FenwickTree", "a non-negative integer", describe(size))
        self._dtype = _dtype_of(dtype, "FenwickTree")
        self._size = int(size)
        code = "q" if self._dtype is int else "d"
        self._tree = array(code, bytes(8 * (self._size + 1)))  # node 0 stays 0: a no-op
        self._values = array(code, bytes(8 * self._size))      # the point weights
        self._total = self._dtype(0)
        self._updates = 0  # float updates since the nodes were last rebuilt

    @classmethod
    def from_weights(cls, weights, *, dtype=None):
        """A tree holding ``weights[i]`` at position ``i``, built in O(m).

        Parameters
        ----------
        weights : array-like of shape (m,)
            Non-negative, finite weights.
        dtype : {int, float}, optional
            Defaults to ``int`` for boolean or integer input and ``float`` otherwise.

        Runtime complexity: O(m) (``log2(m)`` vectorized passes over halving slices).

        Examples
        --------
        >>> ft = FenwickTree.from_weights([2, 0, 1, 5])
        >>> [ft.prefix_sum(i) for i in range(5)]
        [0, 2, 2, 3, 8]
        >>> FenwickTree.from_weights([0.5, 0.25]).total
        0.75
        """
        func = "FenwickTree.from_weights"
        arr = np.asarray(weights)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "biuf"):
            raise param_error("weights", func, "a 1-D array of real numbers", describe(arr))
        if dtype is None:
            dtype = float if arr.dtype.kind == "f" else int
        dtype = _dtype_of(dtype, func)
        if dtype is int:
            if arr.size and arr.dtype.kind == "f":
                raise param_error("weights", func, "integers (dtype is int)", describe(arr))
            if arr.size and (arr.min() < 0 or int(arr.max()) > _INT64_MAX):
                raise param_error("weights", func, "non-negative and below 2**63",
                                  describe(arr))
            if arr.size and int(arr.max()) * arr.size > _INT64_MAX \
                    and int(arr.astype(object).sum()) > _INT64_MAX:
                raise param_error("weights", func, "of total below 2**63", describe(arr))
            arr = arr.astype(np.int64)
        else:
            arr = arr.astype(np.float64)
            if arr.size and (not np.isfinite(arr).all() or arr.min() < 0):
                raise param_error("weights", func, "finite and non-negative", describe(arr))
        self = cls(arr.shape[0], dtype=dtype)
        self._values = array(self._values.typecode, arr.tobytes())
        self._tree = array(self._tree.typecode, _build_nodes(arr).tobytes())
        self._total = int(arr.sum()) if dtype is int else math.fsum(self._values)
        return self

    # ------------------------------------------------------------------ properties

    @property
    def dtype(self):
        """``int`` or ``float``: the type of every weight and sum.

        >>> FenwickTree(3, dtype=float).dtype
        <class 'float'>
        """
        return self._dtype

    @property
    def total(self):
        """Sum of all weights. Runtime complexity: O(1).

        >>> FenwickTree.from_weights([1, 2, 3]).total
        6
        """
        return self._total

    def __len__(self):
        """Number of positions ``m`` (not the total weight).

        >>> len(FenwickTree(5))
        5
        """
        return self._size

    def __getitem__(self, i):
        """Weight at position ``i``. Runtime complexity: O(1).

        >>> FenwickTree.from_weights([4, 7])[1]
        7
        """
        return self._values[self._position(i, "i", "FenwickTree.__getitem__", self._size - 1)]

    def __repr__(self):
        return (f"FenwickTree.from_weights({self._values.tolist()!r}, "
                f"dtype={self._dtype.__name__})")

    # ------------------------------------------------------------------ scalar operations

    def add(self, i, w):
        """Add ``w`` (may be negative) to the weight at position ``i``.

        Raises `ValueError`, leaving the tree unchanged, if ``i`` is out of range, if
        ``w`` is not an integer (``dtype=int``) or not finite, or with ``dtype=int`` if
        the weight at ``i`` would become negative or the total reach 2**63. With
        ``dtype=float`` a negative result cannot be told from the rounding residue of
        earlier updates at ``i`` (taking away exactly what was added need not leave 0.0),
        so it is trusted and stored as 0.0.

        Runtime complexity: O(log m).

        Examples
        --------
        >>> ft = FenwickTree(4)
        >>> ft.add(2, 5); ft.add(2, -3)
        >>> ft[2], ft.total
        (2, 2)
        >>> ft.add(2, -3)
        Traceback (most recent call last):
        ...
        ValueError: The 'w' parameter of FenwickTree.add must be at least -2 (the weight at position 2). Got -3 instead.
        """
        size = self._size
        if type(i) is not int or not 0 <= i < size:
            i = self._position(i, "i", "FenwickTree.add", size - 1)
        dtype = self._dtype
        if type(w) is not dtype or (dtype is float and not -_INF < w < _INF):
            w = _coerce_weight(w, dtype, "FenwickTree.add")
        values = self._values
        new = values[i] + w
        if new < 0:
            if dtype is int:
                raise param_error("w", "FenwickTree.add",
                                  f"at least {-values[i]!r} (the weight at position {i})",
                                  repr(w))
            new, w = 0.0, -values[i]  # float residue: see the docstring
        elif dtype is int and self._total + w > _INT64_MAX:
            raise param_error("w", "FenwickTree.add", "small enough to keep the total "
                              "weight below 2**63", repr(w))
        values[i] = new
        self._total += w
        tree = self._tree
        k = i + 1
        while k <= size:
            tree[k] += w
            k += k & -k
        if dtype is float:
            self._updates += 1
            if self._updates > size + _REFRESH_MIN:
                self._rebuild()

    def prefix_sum(self, i):
        """Sum of the weights at positions ``< i`` (``0 <= i <= m``).

        Runtime complexity: O(log m): one node per set bit of ``i``.

        >>> FenwickTree.from_weights([1, 2, 3]).prefix_sum(2)
        3
        """
        if type(i) is not int or not 0 <= i <= self._size:
            i = self._position(i, "i", "FenwickTree.prefix_sum", self._size)
        tree = self._tree
        s = tree[0]  # a zero of the tree's type
        while i:
            s += tree[i]
            i &= i - 1
        return s

    def range_sum(self, lo, hi):
        """Sum of the weights at positions ``lo <= i < hi`` (0 when ``hi <= lo``).

        Runtime complexity: O(log m) (two prefix sums).

        >>> FenwickTree.from_weights([1, 2, 3, 4]).range_sum(1, 3)
        5
        """
        if hi <= lo:
            self._position(lo, "lo", "FenwickTree.range_sum", self._size)
            self._position(hi, "hi", "FenwickTree.range_sum", self._size)
            return self._dtype(0)
        return self.prefix_sum(hi) - self.prefix_sum(lo)

    def search(self, prefix_weight):
        """Smallest position ``i`` whose inclusive prefix ``prefix_sum(i + 1)`` reaches
        ``prefix_weight``; ``m`` if the total weight is below it, 0 if it is ``<= 0``.

        With unit weights, ``search(r + 1)`` is the position of the item of rank ``r``
        (0-based): the inverse of `prefix_sum`. Zero-weight positions are skipped, ties
        in prefix weight resolve to the smallest position.

        Runtime complexity: O(log m): descending binary lifting, one node per level.

        Examples
        --------
        >>> ft = FenwickTree.from_weights([0, 3, 0, 2])
        >>> ft.search(1), ft.search(3), ft.search(4), ft.search(6)
        (1, 1, 3, 4)
        """
        if not isinstance(prefix_weight, Real) or prefix_weight != prefix_weight:
            raise param_error("prefix_weight", "FenwickTree.search", "a real number",
                              describe(prefix_weight))
        tree = self._tree
        size = self._size
        # Invariant: prefix_sum(pos) < prefix_weight, and rest == prefix_weight - that sum.
        pos = 0
        rest = prefix_weight
        step = 1 << (size.bit_length() - 1) if size else 0
        while step:
            k = pos + step
            if k <= size and tree[k] < rest:
                pos = k
                rest -= tree[k]
            step >>= 1
        return pos

    # ------------------------------------------------------------------ batch operations

    def add_many(self, idx, w):
        """``add(idx[j], w[j])`` for every ``j``, validated as a whole before any change.

        Repeated indices accumulate. ``w`` may be a scalar. The result equals the loop of
        `add` calls (for floats, up to rounding: the updates are summed per position
        first).

        Runtime complexity: O(k) to group the ``k`` updates by position, then O(u log m)
        for ``u`` distinct positions, or O(m) (a rebuild with numpy) when ``u >= m / 64``.

        Examples
        --------
        >>> ft = FenwickTree(5)
        >>> ft.add_many([0, 4, 4, 2], [1, 2, 3, 1])
        >>> ft.prefix_sum_many([0, 3, 5]).tolist()
        [0, 2, 7]
        """
        func = "FenwickTree.add_many"
        idx = self._positions(idx, "idx", func, self._size - 1)
        w = np.asarray(w)
        if w.ndim == 0:
            w = np.full(idx.shape, w[()])
        if w.shape != idx.shape:
            raise param_error("w", func, f"a scalar or of length {idx.shape[0]}",
                              describe(w))
        deltas = [_coerce_weight(x, self._dtype, func) for x in w.tolist()]
        grouped = {}  # position -> summed change (Python ints stay exact)
        for i, d in zip(idx.tolist(), deltas):
            grouped[i] = grouped.get(i, 0) + d
        values = self._values
        new_values = {}
        for i, d in grouped.items():
            new = values[i] + d
            if new < 0:
                if self._dtype is int:
                    raise param_error("w", func,
                                      f"such that no weight becomes negative; position {i} "
                                      f"holds {values[i]!r}", f"a total change of {d!r}")
                new = 0.0  # float residue, as in `add`
            new_values[i] = new
        if self._dtype is int:
            total = self._total + sum(new - values[i] for i, new in new_values.items())
            if total > _INT64_MAX:
                raise param_error("w", func, "small enough to keep the total weight below "
                                  "2**63", f"changes summing to {total - self._total!r}")
        if len(new_values) < self._size * _REBUILD_MIN_FRACTION:
            tree, size = self._tree, self._size
            for i, new in new_values.items():
                d = new - values[i]
                values[i] = new
                self._total += d
                k = i + 1
                while k <= size:
                    tree[k] += d
                    k += k & -k
            if self._dtype is float:
                self._updates += len(new_values)
                if self._updates > size + _REFRESH_MIN:
                    self._rebuild()
        else:
            for i, new in new_values.items():
                values[i] = new
            self._rebuild()

    def prefix_sum_many(self, idx):
        """``[prefix_sum(i) for i in idx]`` as an int64 or float64 numpy array.

        Identical to the scalar loop: both paths add the same nodes in the same order.

        Runtime complexity: O(k log m); from 64 indices on, the walk runs on whole index
        arrays over a numpy view of the nodes.

        >>> FenwickTree.from_weights([1.5, 2.0, 0.5]).prefix_sum_many([3, 0, 1])
        array([4. , 0. , 1.5])
        """
        idx = self._positions(idx, "idx", "FenwickTree.prefix_sum_many", self._size)
        if idx.shape[0] < _VECTOR_MIN:
            return np.asarray([self.prefix_sum(i) for i in idx.tolist()],
                              dtype=self._np_dtype())
        nodes = np.frombuffer(self._tree, dtype=self._np_dtype())
        acc = np.zeros(idx.shape, dtype=nodes.dtype)
        k = idx.copy()
        while k.any():
            acc += nodes[k]  # nodes[0] == 0 for the indices already done
            k &= k - 1
        return acc

    def weights(self):
        """The point weights as a numpy array (a copy). Runtime complexity: O(m).

        >>> FenwickTree.from_weights([3, 1]).weights()
        array([3, 1])
        """
        return np.frombuffer(self._values, dtype=self._np_dtype()).copy()

    # ------------------------------------------------------------------ internals

    def _np_dtype(self):
        return np.int64 if self._dtype is int else np.float64

    def _rebuild(self):
        """Recompute every node and the total from the point weights: O(m)."""
        values = np.frombuffer(self._values, dtype=self._np_dtype())
        np.frombuffer(self._tree, dtype=self._np_dtype())[:] = _build_nodes(values)
        self._total = int(values.sum()) if self._dtype is int else math.fsum(self._values)
        self._updates = 0

    @staticmethod
    def _position(i, name, func, hi):
        """``i`` as a Python int in ``[0, hi]``; `ValueError` otherwise."""
        if isinstance(i, Integral) and not isinstance(i, bool) and 0 <= i <= hi:
            return int(i)
        raise param_error(name, func, f"an integer in [0, {hi}]", describe(i))

    @staticmethod
    def _positions(idx, name, func, hi):
        arr = np.asarray(idx)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise param_error(name, func, "a 1-D array of integers", describe(arr))
        if arr.size and (arr.min() < 0 or arr.max() > hi):
            bad = arr[(arr < 0) | (arr > hi)][0]
            raise param_error(name, func, f"integers in [0, {hi}]", f"{bad!r} among them")
        return arr.astype(np.int64)

    def _check(self):
        """Assert every invariant; O(m). The message dumps the state on failure."""
        state = f"\n{self!r}\nnodes={self._tree.tolist()!r}"
        size, values, tree = self._size, self._values, self._tree
        assert len(values) == size and len(tree) == size + 1, state
        assert values.typecode == tree.typecode == ("q" if self._dtype is int else "d"), state
        assert tree[0] == 0, state
        assert all(v >= 0 for v in values), state
        expected = _build_nodes(np.frombuffer(values, dtype=self._np_dtype())).tolist()
        if self._dtype is int:
            assert tree.tolist() == expected, state
            assert self._total == sum(values) <= _INT64_MAX, state
        else:
            exact = math.fsum(values)
            tol = 2.0**-52 * (self._updates + size.bit_length() + 2) * (exact + 1.0)
            assert all(abs(a - b) <= tol for a, b in zip(tree, expected)), state
            assert abs(self._total - exact) <= tol, state
