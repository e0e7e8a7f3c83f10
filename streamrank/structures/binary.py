"""Two label levels: one B+ tree over the scores that carries both classes' weights.

`BinaryTree` is the tree shared by `BinaryDominanceCounter` (below, behind `PairEngine`
while it holds at most two labels) and `streamrank.metrics._binary_engine.BinaryPairEngine`
(behind the River AUC metrics). Its entries are the distinct scores held; each carries the
weight and the copies of *both* classes (class 0 and class 1), and each inner node both
classes' subtree weights::

        inner   keys  [ 0.3        |  0.9       ]   largest score under each child
                w[0]  [ 2          |  1         ]   class-0 weight under each child
                w[1]  [ 1          |  3         ]   class-1 weight under each child
        leaf    keys  [0.1 | 0.2 | 0.3]     [0.5 | 0.7 | 0.9]
                w[0]  [ 1  |  1  |  0 ]     [ 0  |  1  |  0 ]
                w[1]  [ 0  |  0  |  1 ]     [ 1  |  1  |  1 ]
                c[0], c[1]: copies of each class at each score

An insert of class ``y`` at ``s`` walks down once, reading the *other* class's weight
below and at ``s`` on the way, and the own class's weight at ``s`` in the leaf it lands
in, while it adds its own weight on the path: the query and the update share one walk
(`BinaryTree.add`, `BinaryTree.remove`). ``O(log n)`` node visits of ``O(B)`` C-level
work each (``B = 2 * _LOAD``), ``n`` the distinct scores held.

`BinaryDominanceCounter` gives `PairEngine` everything it asks of a dominance counter
(`pairs_with`, `add`, `remove`, `pairs_with_many`, `load`, `items`, `levels`) for points
on at most two label levels, each level mapped to a class of the tree; and the fused
`add_pairs` / `remove_pairs`, which return `pairs_with` of the point (against the held
set without it) and insert or remove it in that one walk. With the other level's label
above the point's, its weight above ``s`` is concordant and below discordant (the other
way round when below), its weight at ``s`` tied in score; the own level's total is
``tied_label`` and its weight at ``s`` ``tied_both``::

    other level's weight:   below s  |  at s  |  above s      own level: total, at s
    other label > y:        D        |  T     |  C                       Ty     Tyy
    other label < y:        C        |  T     |  D

Exactness. ``dtype=int``: weights are Python ints (any size), every sum exact.
``dtype=float``: a subtree sum is updated by one rounded addition per change below it;
splits and merges recompute the sums they touch with `math.fsum`, a class's weight at a
score drops to exactly 0 when its last copy there leaves, and every ``distinct + 1024``
changes all subtree sums and both totals are recomputed with `math.fsum` (as
`WeightedSortedMultiset`, whose error bound carries over).
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

from .._validation import describe, param_error
from .dominance import (
    _check_dtype, _checked_point, _exact_dot, _from_arrays, _load_args, _points,
)
from .multiset import _check_weight, _weights_array

__all__ = ["BinaryDominanceCounter", "BinaryTree"]

#: B+ tree nodes hold ``_LOAD // 2 .. 2 * _LOAD`` entries, the fanout that
#: `WeightedSortedMultiset` measured fastest (benchmarks/bench_structures.py --load). Read
#: on every call, so tests can shrink it for deep trees.
_LOAD = 64

#: Float subtree sums are recomputed after ``distinct + _REFRESH_MIN`` changes.
_REFRESH_MIN = 1024

_INT64_MAX = 2**63 - 1


class _Node:
    """A B+ tree node. ``keys`` sorted; ``w[c]`` the weight of class ``c`` per entry (a
    leaf) or per child subtree (inner); ``c[c]`` the copies of class ``c`` per entry
    (leaves only); ``kids`` the children (inner nodes only)."""

    __slots__ = ("keys", "w", "c", "kids")

    def __init__(self, keys, w, c=None, kids=None):
        self.keys = keys
        self.w = w
        self.c = c
        self.kids = kids


def _new_leaf():
    return _Node([], [[], []], [[], []])


def _chunk_bounds(n, size):
    chunks = max(1, -(-n // size))
    return [n * c // chunks for c in range(chunks + 1)]


def _close(a, b, dtype, what, scale=1.0) -> None:
    """Equal ints, or floats within ``1e-9`` of ``scale`` (the weight held: a float sum
    keeps the rounding of weights far larger than itself that came and went)."""
    if dtype is int:
        assert a == b, f"{what}: {a!r} != {b!r}"
    else:
        assert abs(a - b) <= 1e-9 * max(scale, abs(b)), f"{what}: {a!r} vs {b!r}"


class BinaryTree:
    """The B+ tree of the module docstring: distinct scores, both classes' weights and
    copies. The caller keeps each class's total weight and passes the other class's to
    the walks (they sum the shorter side of a node: ``total - sum(w[i:])`` past its
    middle). Internal: no validation."""

    __slots__ = ("root", "height", "distinct", "dtype")

    def __init__(self, dtype=int):
        self.dtype = dtype
        self.clear()

    def clear(self) -> None:
        self.root = _new_leaf()
        self.height = 0      # inner levels above the leaves
        self.distinct = 0    # leaf entries (distinct scores held)

    # ------------------------------------------------------------------ walks
    def add(self, y, s, w, tot):
        """Add one copy of class ``y`` at ``s`` with weight ``w``; ``tot`` is the other
        class's total weight. Returns ``(below, equal, own)``: the other class's weight
        below and at ``s``, and class ``y``'s weight at ``s`` before the add."""
        other = 1 - y
        node, path, j, below = self._descend(s, other, tot, True)
        keys = node.keys
        ow = node.w[other]
        if j < len(keys) and keys[j] == s:
            equal = ow[j]
            own_w = node.w[y]
            own = own_w[j]
            own_w[j] = own + w
            node.c[y][j] += 1
        else:
            equal = own = self.dtype(0)
            keys.insert(j, s)
            node.w[y].insert(j, w)
            ow.insert(j, own)
            node.c[y].insert(j, 1)
            node.c[other].insert(j, 0)
            self.distinct += 1
        for parent, i in path:
            parent.w[y][i] += w
        if len(keys) > 2 * _LOAD:
            self._split_up(path, node)
        return (below if below > 0 else below - below), equal, own

    def remove(self, y, s, w, tot):
        """Remove one copy of class ``y`` at ``s`` added with weight ``w`` (``tot`` as in
        `add`). Returns ``(below, equal, own, delta)``: the other class's weight below
        and at ``s``, class ``y``'s weight left at ``s``, and the change of class ``y``'s
        total (``-w``, or all the weight left at ``s`` with its last copy there). Returns
        None, having changed nothing, when no such copy is held (with int weights: when
        ``w`` exceeds the weight held there, or differs from that of a last copy)."""
        other = 1 - y
        walk = self._descend(s, other, tot, False)
        if walk is None:
            return None
        node, path, j, below = walk
        keys = node.keys
        if j == len(keys) or keys[j] != s or node.c[y][j] == 0:
            return None
        own_w, own_c = node.w[y], node.c[y]
        held, copies = own_w[j], own_c[j]
        if self.dtype is int and (w > held or (copies == 1 and w != held)):
            return None
        ow = node.w[other]
        equal = ow[j]
        if copies == 1:
            delta = -held  # the last copy takes the weight left (float residue included)
            own = own_w[j] = held - held
        else:
            own = held - w
            if own < 0:
                own = 0.0
            delta = own - held
            own_w[j] = own
        own_c[j] = copies - 1
        for parent, i in path:
            parent.w[y][i] += delta
        if copies == 1 and node.c[other][j] == 0:
            del keys[j], own_w[j], ow[j], own_c[j], node.c[other][j]
            self.distinct -= 1
            if self.height and len(keys) < _LOAD // 2:
                self._merge_up(path, node)
            elif keys and j == len(keys):
                self._fix_maxima(path, keys[-1])
        return (below if below > 0 else below - below), equal, own, delta

    def _descend(self, s, other, tot, grow):
        """The walk `add` and `remove` share: down to the leaf of ``s``, summing class
        ``other``'s weight below ``s`` (the shorter side of each node: ``tot - sum(w[i:])``
        past its middle, ``tot`` the weight under the node). Returns ``(leaf, path, j,
        below)`` with ``j = bisect_left(leaf.keys, s)`` and ``path`` the ``(node, child)``
        pairs above the leaf. A score above every held one goes to the last child, whose
        maxima become ``s`` with ``grow=True`` (an insert); with ``grow=False`` the walk
        returns None (nothing to remove)."""
        node = self.root
        path = []
        below = 0
        for _ in range(self.height):
            keys = node.keys
            n = len(keys)
            i = bisect_left(keys, s)
            if i == n:
                if not grow:
                    return None
                i = n - 1
                keys[i] = s
            ow = node.w[other]
            below += sum(ow[:i]) if i + i <= n else tot - sum(ow[i:])
            tot = ow[i]
            path.append((node, i))
            node = node.kids[i]
        keys = node.keys
        n = len(keys)
        j = bisect_left(keys, s)
        ow = node.w[other]
        below += sum(ow[:j]) if j + j <= n else tot - sum(ow[j:])
        return node, path, j, below

    def query(self, s, tot0, tot1):
        """``(below0, equal0, below1, equal1)``: each class's weight below and at ``s``
        (``tot0``, ``tot1`` the class totals). One walk, nothing changes."""
        node = self.root
        b0 = b1 = 0
        for _ in range(self.height):
            keys = node.keys
            n = len(keys)
            i = bisect_left(keys, s)
            if i == n:  # only at the root: above every score held
                return tot0, tot0 - tot0, tot1, tot1 - tot1
            w0, w1 = node.w
            if i + i <= n:
                b0 += sum(w0[:i])
                b1 += sum(w1[:i])
            else:
                b0 += tot0 - sum(w0[i:])
                b1 += tot1 - sum(w1[i:])
            tot0, tot1 = w0[i], w1[i]
            node = node.kids[i]
        keys = node.keys
        n = len(keys)
        j = bisect_left(keys, s)
        w0, w1 = node.w
        if j + j <= n:
            b0 += sum(w0[:j])
            b1 += sum(w1[:j])
        else:
            b0 += tot0 - sum(w0[j:])
            b1 += tot1 - sum(w1[j:])
        if j < n and keys[j] == s:
            e0, e1 = w0[j], w1[j]
        else:
            e0 = e1 = self.dtype(0)
        return (b0 if b0 > 0 else b0 - b0), e0, (b1 if b1 > 0 else b1 - b1), e1

    def find(self, s):
        """``(leaf, j)`` with ``leaf.keys[j] == s``, or ``(None, -1)``."""
        node = self.root
        for _ in range(self.height):
            i = bisect_left(node.keys, s)
            if i == len(node.keys):
                return None, -1
            node = node.kids[i]
        j = bisect_left(node.keys, s)
        if j < len(node.keys) and node.keys[j] == s:
            return node, j
        return None, -1

    # ------------------------------------------------------------------ shape
    def _split_up(self, path, node) -> None:
        """Split the overfull ``node`` in halves, and every ancestor that overflows."""
        while len(node.keys) > 2 * _LOAD:
            half = len(node.keys) >> 1
            upper = _Node(node.keys[half:], [node.w[0][half:], node.w[1][half:]],
                          None if node.c is None else [node.c[0][half:], node.c[1][half:]],
                          None if node.kids is None else node.kids[half:])
            del node.keys[half:], node.w[0][half:], node.w[1][half:]
            if node.c is not None:
                del node.c[0][half:], node.c[1][half:]
            else:
                del node.kids[half:]
            lo = [self.sum(node.w[0]), self.sum(node.w[1])]
            hi = [self.sum(upper.w[0]), self.sum(upper.w[1])]
            if not path:  # the root splits: the tree grows one level
                self.root = _Node([node.keys[-1], upper.keys[-1]],
                                  [[lo[0], hi[0]], [lo[1], hi[1]]], None, [node, upper])
                self.height += 1
                return
            parent, i = path.pop()
            parent.keys.insert(i + 1, parent.keys[i])  # upper keeps node's old maximum
            parent.keys[i] = node.keys[-1]
            parent.kids.insert(i + 1, upper)
            for c in (0, 1):
                parent.w[c].insert(i + 1, hi[c])
                parent.w[c][i] = lo[c]
            node = parent

    def _merge_up(self, path, node) -> None:
        """Merge the underfull ``node`` with a sibling, then every ancestor that
        underflows; fix the maxima above; drop a root left with one child."""
        while path and len(node.keys) < _LOAD // 2:
            parent, i = path.pop()
            left = i - 1 if i else i
            a, b = parent.kids[left], parent.kids[left + 1]
            a.keys += b.keys
            a.w[0] += b.w[0]
            a.w[1] += b.w[1]
            if a.c is not None:
                a.c[0] += b.c[0]
                a.c[1] += b.c[1]
            else:
                a.kids += b.kids
            del parent.keys[left + 1], parent.kids[left + 1]
            del parent.w[0][left + 1], parent.w[1][left + 1]
            parent.keys[left] = a.keys[-1]
            parent.w[0][left] = self.sum(a.w[0])
            parent.w[1][left] = self.sum(a.w[1])
            if len(a.keys) > 2 * _LOAD:
                self._split_up([(parent, left)], a)
            node = parent
        if path and node.keys:
            self._fix_maxima(path, node.keys[-1])
        while self.height and len(self.root.kids) == 1:
            self.root = self.root.kids[0]
            self.height -= 1

    @staticmethod
    def _fix_maxima(path, new_max) -> None:
        for parent, i in reversed(path):
            parent.keys[i] = new_max
            if i != len(parent.keys) - 1:
                break

    def sum(self, values):
        return sum(values) if self.dtype is int else math.fsum(values)

    def leaves(self):
        level = [self.root]
        for _ in range(self.height):
            level = [kid for node in level for kid in node.kids]
        return level

    # ------------------------------------------------------------------ bulk
    def build(self, s, c0, c1, w0, w1) -> None:
        """Replace the contents by sorted distinct scores ``s`` (lists) with each class's
        copies and weights, every entry holding a copy: O(n) bottom-up."""
        n = len(s)
        bounds = _chunk_bounds(n, _LOAD)
        level = [_Node(s[lo:hi], [w0[lo:hi], w1[lo:hi]], [c0[lo:hi], c1[lo:hi]])
                 for lo, hi in zip(bounds[:-1], bounds[1:])]
        height = 0
        while len(level) > 1:
            bounds = _chunk_bounds(len(level), 2 * _LOAD)
            level = [_Node([kid.keys[-1] for kid in level[lo:hi]],
                           [[self.sum(kid.w[0]) for kid in level[lo:hi]],
                            [self.sum(kid.w[1]) for kid in level[lo:hi]]],
                           None, level[lo:hi])
                     for lo, hi in zip(bounds[:-1], bounds[1:])]
            height += 1
        self.root = level[0]
        self.height = height
        self.distinct = n

    def columns(self):
        """``(s, c0, c1, w0, w1)``: the leaves' entries in score order, as lists."""
        leaves = self.leaves()
        s = [k for leaf in leaves for k in leaf.keys]
        c = [[x for leaf in leaves for x in leaf.c[j]] for j in (0, 1)]
        w = [[x for leaf in leaves for x in leaf.w[j]] for j in (0, 1)]
        return s, c[0], c[1], w[0], w[1]

    def to_float(self) -> None:
        """Turn every weight to a float (for good): O(n)."""
        self.dtype = float

        def visit(node, depth):
            node.w = [[float(x) for x in node.w[0]], [float(x) for x in node.w[1]]]
            if depth < self.height:
                for kid in node.kids:
                    visit(kid, depth + 1)
        visit(self.root, 0)

    def refresh(self):
        """Recompute every subtree sum with `math.fsum`; return both class totals: O(n)."""
        def visit(node, depth):
            if depth == self.height:
                return math.fsum(node.w[0]), math.fsum(node.w[1])
            sums = [visit(kid, depth + 1) for kid in node.kids]
            node.w = [[a for a, _ in sums], [b for _, b in sums]]
            return math.fsum(node.w[0]), math.fsum(node.w[1])
        return visit(self.root, 0)

    def check(self):
        """Assert the tree's invariants; return each class's (weight, copies) sums."""
        leaves_seen = []
        dtype = self.dtype
        _, _, _, w0, w1 = self.columns()
        scale = self.sum(w0) + self.sum(w1)

        def visit(node, depth):
            n = len(node.keys)
            assert len(node.w[0]) == n and len(node.w[1]) == n, "ragged node"
            assert n <= 2 * _LOAD, "overfull node"
            if node is not self.root:
                assert n >= _LOAD // 2, "underfull node"
            assert all(a < b for a, b in zip(node.keys, node.keys[1:])), "keys unsorted"
            if depth == self.height:
                assert node.kids is None and len(node.c[0]) == n == len(node.c[1])
                for c0, c1, w0, w1 in zip(node.c[0], node.c[1], node.w[0], node.w[1]):
                    assert c0 + c1 >= 1, "an entry with no copy"
                    assert (c0 > 0 or w0 == 0) and (c1 > 0 or w1 == 0), "orphan weight"
                    assert w0 >= 0 and w1 >= 0, "negative weight"
                    assert type(w0) is dtype and type(w1) is dtype, "weight type"
                leaves_seen.append(node)
                return (node.keys[-1] if n else None,
                        (self.sum(node.w[0]), self.sum(node.w[1])),
                        (sum(node.c[0]), sum(node.c[1])))
            assert n >= 1 and (node is not self.root or n >= 2), "inner node too small"
            copies = [0, 0]
            for i, kid in enumerate(node.kids):
                kmax, ksum, kc = visit(kid, depth + 1)
                assert node.keys[i] == kmax, "key is not the child's maximum"
                for c in (0, 1):
                    _close(node.w[c][i], ksum[c], dtype, "subtree weight", scale)
                    copies[c] += kc[c]
            return (node.keys[-1], (self.sum(node.w[0]), self.sum(node.w[1])),
                    tuple(copies))
        _, sums, copies = visit(self.root, 0)
        assert sum(len(leaf.keys) for leaf in leaves_seen) == self.distinct, "distinct"
        values = [v for leaf in leaves_seen for v in leaf.keys]
        assert all(a < b for a, b in zip(values, values[1:])), "leaves out of order"
        return sums, copies


class BinaryDominanceCounter:
    """Dominance weights for points on at most two label levels (module docstring).

    The interface of `LevelDominanceCounter` that `PairEngine` uses, plus the fused
    `add_pairs` / `remove_pairs`. Each label level held takes one of the tree's two
    classes; a level is dropped when its last point leaves, so another label can take its
    class. A third level is refused (`ValueError`): `PairEngine` moves to
    `LevelDominanceCounter` before adding one.

    Parameters
    ----------
    dtype : {int, float}, default=int
        Type of the weights; ``int`` gives exact counts (Python ints of any size).

    Notes
    -----
    Runtime complexity: `add_pairs`, `remove_pairs`, `add`, `remove` and `pairs_with` one
    walk of the tree, ``O(log n)``; `pairs_with_many` ``O(n + k log n)`` (sorted arrays of
    the contents, kept until the next change); `load` ``O(n log n)``.

    Examples
    --------
    >>> dc = BinaryDominanceCounter()
    >>> for y, s in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8)]:
    ...     dc.add(y, s)
    >>> dc.pairs_with(1, 0.4)       # concordant, discordant, tied score, tied label, both
    (1, 0, 1, 2, 0)
    >>> dc.add_pairs(1.0, 0.4, 1)   # the same terms, and the point is added
    (1, 0, 1, 2, 0)
    >>> dc.remove_pairs(1.0, 0.4, 1), len(dc)
    ((1, 0, 1, 2, 0), 4)
    """

    __slots__ = ("_dtype", "_tree", "_labels", "_index", "_tot", "_n", "_updates",
                 "_snapshot")

    def __init__(self, *, dtype=int):
        self._dtype = _check_dtype(dtype, "BinaryDominanceCounter")
        self.clear()

    def clear(self):
        """Remove every point. Runtime complexity: O(1)."""
        self._tree = BinaryTree(self._dtype)
        self._labels = [None, None]  # the label of each class, None when free
        self._index = {}             # label -> class
        zero = self._dtype(0)
        self._tot = [zero, zero]     # weight of each class
        self._n = [0, 0]             # points of each class
        self._updates = 0            # float changes since the sums were recomputed
        self._snapshot = None        # sorted arrays for pairs_with_many; None once stale

    @classmethod
    def from_arrays(cls, labels, scores, weights=None, *, dtype=None):
        """A counter holding the points ``(labels[i], scores[i])`` with ``weights[i]``
        (at most two distinct labels). Runtime complexity: O(n log n).

        >>> BinaryDominanceCounter.from_arrays([0, 1, 1], [0.5, 0.2, 0.9]).pairs_with(1, 0.5)
        (0, 0, 1, 2, 0)
        """
        return _from_arrays(cls, labels, scores, weights, dtype)

    @property
    def dtype(self):
        """``int`` or ``float``: the type of every weight returned."""
        return self._dtype

    @property
    def levels(self):
        """The distinct labels held, ascending (at most two).

        >>> dc = BinaryDominanceCounter(); dc.add(2, 0.1); dc.add(0, 0.3); dc.levels
        (0.0, 2.0)
        """
        return tuple(sorted(self._index))

    @property
    def total_weight(self):
        """Weight of all points held. Runtime complexity: O(1)."""
        return self._tot[0] + self._tot[1]

    def __len__(self):
        """Number of points held (not their weight)."""
        return self._n[0] + self._n[1]

    def __repr__(self):
        return (f"BinaryDominanceCounter(dtype={self._dtype.__name__}) holding {len(self)} "
                f"points on {len(self._index)} levels")

    # ------------------------------------------------------------------ single points
    def add_pairs(self, label, score, weight):
        """`pairs_with` ``(label, score)``, then add the point: one walk. Arguments are
        trusted (a float label and score, a weight of the counter's type, ``>= 0``);
        `ValueError` for a third label, before anything changes."""
        k = self._index.get(label)
        if k is None:
            k = self._new_level(label, "BinaryDominanceCounter.add_pairs")
        o = 1 - k
        tot = self._tot
        to = tot[o]
        below, equal, own = self._tree.add(k, score, weight, to)
        ty = tot[k]
        tot[k] = ty + weight
        self._n[k] += 1
        self._snapshot = None
        if self._dtype is float:
            self._float_update()
        ol = self._labels[o]
        if ol is not None and ol > label:  # the other level is above: its higher scores agree
            return to - below - equal, below, equal, ty, own
        return below, to - below - equal, equal, ty, own

    def remove_pairs(self, label, score, weight):
        """Remove one point added as ``(label, score, weight)``, then return `pairs_with`
        of it against what is left: one walk. `ValueError`, and nothing changes, if no
        such point is held (with ``dtype=int``, also if ``weight`` does not match)."""
        k = self._index.get(label)
        func = "BinaryDominanceCounter.remove"
        if k is None:
            raise param_error("label", func, "the label of a point held", repr(label))
        o = 1 - k
        tot = self._tot
        to = tot[o]
        got = self._tree.remove(k, score, weight, to)
        if got is None:
            raise self._not_held(k, label, score, weight, func)
        below, equal, own, delta = got
        n = self._n
        n[k] -= 1
        self._snapshot = None
        if n[k]:
            ty = tot[k] + delta
            if ty < 0:  # float rounding
                ty = 0.0
            tot[k] = ty
            if self._dtype is float:
                self._float_update()
        else:  # the level leaves with its last point
            ty = tot[k] = self._dtype(0)
            del self._index[label]
            self._labels[k] = None
            if not n[o]:
                self.clear()  # empty: start afresh, with no float residue anywhere
        ol = self._labels[o]
        if ol is not None and ol > label:
            return to - below - equal, below, equal, ty, own
        return below, to - below - equal, equal, ty, own

    def add(self, label, score, weight=1):
        """Add the point ``(label, score)`` with ``weight``; `ValueError` (nothing
        changes) for a NaN, an invalid weight or a third label. O(log n)."""
        func = "BinaryDominanceCounter.add"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        self.add_pairs(label, score, weight)

    def remove(self, label, score, weight=1):
        """Remove one point ``(label, score)`` added with ``weight``; `ValueError`, and
        nothing changes, if none is held. O(log n).

        >>> dc = BinaryDominanceCounter(); dc.add(1, 0.5); dc.remove(1, 0.5); dc.levels
        ()
        >>> dc.remove(1, 0.5)
        Traceback (most recent call last):
        ...
        ValueError: The 'label' parameter of BinaryDominanceCounter.remove must be the label of a point held. Got 1.0 instead.
        """
        func = "BinaryDominanceCounter.remove"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        self.remove_pairs(label, score, weight)

    def pairs_with(self, label, score):
        """``(concordant, discordant, tied_score, tied_label, tied_both)``: the weight of
        the held points that would pair with ``(label, score)`` in each way (as
        `LevelDominanceCounter.pairs_with`; any label, held or not). One walk, O(log n)."""
        label, score = _checked_point(label, score, "BinaryDominanceCounter.pairs_with")
        tot = self._tot
        b0, e0, b1, e1 = self._tree.query(score, tot[0], tot[1])
        conc = disc = tied = tied_label = tied_both = self._dtype(0)
        for lab, below, equal, total in ((self._labels[0], b0, e0, tot[0]),
                                         (self._labels[1], b1, e1, tot[1])):
            if lab is None:
                continue
            if lab == label:
                tied_label, tied_both = total, equal
                continue
            above = total - below - equal
            tied += equal
            if lab < label:
                conc += below
                disc += above
            else:
                conc += above
                disc += below
        return conc, disc, tied, tied_label, tied_both

    def query(self, label, score):
        """The 3 x 3 grid of held weight around ``(label, score)``, as
        `LevelDominanceCounter.query`. One walk, O(log n).

        >>> dc = BinaryDominanceCounter.from_arrays([0, 2, 2], [1.0, 0.0, 3.0])
        >>> dc.query(1, 1.0)
        ((0, 1, 0), (0, 0, 0), (1, 0, 1))
        """
        label, score = _checked_point(label, score, "BinaryDominanceCounter.query")
        tot = self._tot
        b0, e0, b1, e1 = self._tree.query(score, tot[0], tot[1])
        zero = self._dtype(0)
        rows = [[zero, zero, zero], [zero, zero, zero], [zero, zero, zero]]
        for lab, below, equal, total in ((self._labels[0], b0, e0, tot[0]),
                                         (self._labels[1], b1, e1, tot[1])):
            if lab is not None:
                row = rows[0 if lab < label else (1 if lab == label else 2)]
                row[0] += below
                row[1] += equal
                row[2] += total - below - equal
        return tuple(map(tuple, rows))

    def count(self, label, score):
        """Number of points held at exactly ``(label, score)``."""
        label, score = _checked_point(label, score, "BinaryDominanceCounter.count")
        k = self._index.get(label)
        if k is None:
            return 0
        leaf, j = self._tree.find(score)
        return 0 if leaf is None else leaf.c[k][j]

    # ------------------------------------------------------------------ batches
    def pairs_with_many(self, labels, scores, weights=None):
        """``sum_i weights[i] * pairs_with(labels[i], scores[i])``, vectorized (as
        `LevelDominanceCounter.pairs_with_many`). Exact for ``dtype=int``. Runtime
        complexity: O(n) for the sorted arrays of the contents (kept until the next
        change), then O(k log n).

        >>> dc = BinaryDominanceCounter.from_arrays([0, 1], [0.2, 0.7])
        >>> dc.pairs_with_many([1, 0], [0.5, 0.5], [2, 1])
        (3, 0, 0, 3, 0)
        """
        func = "BinaryDominanceCounter.pairs_with_many"
        y, s = _points(labels, scores, func)
        w = None if weights is None else _weights_array(weights, y.shape[0], self._dtype,
                                                        func)[0]
        totals = [self._dtype(0)] * 5
        if self._snapshot is None:
            self._snapshot = self._arrays()
        vals, per_class = self._snapshot
        pos = np.searchsorted(vals, s, side="left")
        hit = pos < vals.shape[0]
        hit[hit] = vals[pos[hit]] == s[hit]
        for k, (weights_k, cum) in enumerate(per_class):
            level = self._labels[k]
            if level is None:
                continue
            below = cum[pos]
            equal = np.zeros(s.shape[0], dtype=weights_k.dtype)
            equal[hit] = weights_k[pos[hit]]
            above = self._tot[k] - below - equal
            lower, same = level < y, level == y
            higher = ~(lower | same)
            parts = (np.where(lower, below, 0) + np.where(higher, above, 0),
                     np.where(lower, above, 0) + np.where(higher, below, 0),
                     np.where(same, 0, equal),
                     np.where(same, self._tot[k], 0),
                     np.where(same, equal, 0))
            for j, part in enumerate(parts):
                totals[j] += _exact_dot(w, part)
        return tuple(totals)

    def _arrays(self):
        """Sorted distinct scores, and per class its weights and their cumulative sums
        (Python ints past int64)."""
        s, _, _, w0, w1 = self._tree.columns()
        big = self._dtype is int and max(self._tot) > _INT64_MAX
        wtype = object if big else (np.int64 if self._dtype is int else np.float64)
        per_class = []
        for wl in (w0, w1):
            wa = np.array(wl, dtype=wtype)
            cum = np.concatenate((np.zeros(1, wtype), np.cumsum(wa)))
            per_class.append((wa, cum))
        return np.array(s, dtype=np.float64), per_class

    def load(self, labels, scores, copies=None, weights=None):
        """Replace the contents by ``copies[i]`` points at ``(labels[i], scores[i])``
        holding ``weights[i]`` between them (as `LevelDominanceCounter.load`; at most
        two distinct labels). Validated whole before anything changes. O(n log n)."""
        func = "BinaryDominanceCounter.load"
        y, s, c, w = _load_args(labels, scores, copies, weights, self._dtype, func)
        levels = np.unique(y)
        if levels.shape[0] > 2:
            raise param_error("labels", func, "at most two distinct labels",
                              f"{levels.shape[0]} labels")
        self.clear()
        if not y.shape[0]:
            return
        u, inv = np.unique(s, return_inverse=True)
        m = u.shape[0]
        inv = inv.reshape(-1)
        cols = []
        for k, level in enumerate(levels.tolist()):
            mask = y == level
            ck = np.zeros(m, np.int64)
            np.add.at(ck, inv[mask], c[mask])
            wk = np.zeros(m, w.dtype)
            np.add.at(wk, inv[mask], w[mask])
            cols.append((ck, wk))
            self._labels[k] = level
            self._index[level] = k
            self._n[k] = int(ck.sum())
            self._tot[k] = int(wk.sum()) if self._dtype is int else math.fsum(wk.tolist())
        if len(cols) == 1:
            cols.append((np.zeros(m, np.int64), np.zeros(m, w.dtype)))
        (c0, w0), (c1, w1) = cols
        self._tree.build(u.tolist(), c0.tolist(), c1.tolist(), w0.tolist(), w1.tolist())

    def items(self):
        """Iterate over ``(label, score, copies, weight)`` for each distinct point, in
        (label, score) order. O(n) for the whole iteration.

        >>> dc = BinaryDominanceCounter(); dc.add(1, 0.5); dc.add(0, 0.9, 2)
        >>> list(dc.items())
        [(0.0, 0.9, 1, 2), (1.0, 0.5, 1, 1)]
        """
        order = sorted((lab, k) for k, lab in enumerate(self._labels) if lab is not None)
        leaves = self._tree.leaves()
        for label, k in order:
            for leaf in leaves:
                for score, copies, weight in zip(leaf.keys, leaf.c[k], leaf.w[k]):
                    if copies:
                        yield label, score, copies, weight

    # ------------------------------------------------------------------ internals
    def _new_level(self, label, func):
        if self._labels[0] is None:
            k = 0
        elif self._labels[1] is None:
            k = 1
        else:
            raise param_error("label", func, f"one of the two labels held {self.levels}",
                              repr(label))
        self._labels[k] = label
        self._index[label] = k
        return k

    def _not_held(self, k, label, score, weight, func):
        leaf, j = self._tree.find(score)
        if leaf is None or leaf.c[k][j] == 0:
            return param_error("score", func, f"the score of a point held with label "
                               f"{label!r}", repr(score))
        held, copies = leaf.w[k][j], leaf.c[k][j]
        expected = (f"{held!r}, the weight of the last copy of {score!r}" if copies == 1
                    else f"at most {held!r}, the weight held at {score!r}")
        return param_error("weight", func, expected, describe(weight))

    def _float_update(self):
        self._updates += 1
        if self._updates > self._tree.distinct + _REFRESH_MIN:
            self._refresh()

    def _refresh(self):
        """Recompute every subtree sum and both totals with `math.fsum`: O(n)."""
        w0, w1 = self._tree.refresh()
        self._tot = [w0 if self._n[0] else 0.0, w1 if self._n[1] else 0.0]
        self._updates = 0

    def _check(self):
        """Assert every invariant; O(n)."""
        state = repr(self)
        sums, copies = self._tree.check()
        assert self._tree.dtype is self._dtype, state
        assert list(copies) == self._n, (copies, self._n, state)
        for k in (0, 1):
            _close(self._tot[k], sums[k], self._dtype, f"total of class {k}", sum(sums))
            assert type(self._tot[k]) is self._dtype, state
            label = self._labels[k]
            assert (label is None) == (self._n[k] == 0), state
            if label is None:
                assert self._tot[k] == 0, state
            else:
                assert self._index[label] == k and type(label) is float, state
        assert len(self._index) == sum(lab is not None for lab in self._labels), state
        if not len(self):
            assert self._tree.distinct == 0, state
