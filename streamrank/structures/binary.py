"""Two label levels: one tree over the scores that carries both classes' weights.

`BinaryDominanceCounter`, behind `PairEngine` while it holds at most two labels, is
compiled (``_cbinary.pyx``): a treap over the distinct scores in flat C arrays, each node
carrying both classes' copies, weights and subtree sums. `BinaryTree`, below, is the
Python B+ tree of the same two-class layout still behind
`streamrank.metrics._binary_engine.BinaryPairEngine` (the River AUC metrics)::

        inner   keys  [ 0.3        |  0.9       ]   largest score under each child
                w[0]  [ 2          |  1         ]   class-0 weight under each child
                w[1]  [ 1          |  3         ]   class-1 weight under each child
        leaf    keys  [0.1 | 0.2 | 0.3]     [0.5 | 0.7 | 0.9]
                w[0]  [ 1  |  1  |  0 ]     [ 0  |  1  |  0 ]
                w[1]  [ 0  |  0  |  1 ]     [ 1  |  1  |  1 ]
                c[0], c[1]: copies of each class at each score

An insert of class ``y`` at ``s`` walks down once, reading the *other* class's weight
below and at ``s`` on the way, and the own class's weight at ``s``, while it adds its own
weight on the path: the query and the update share one walk. ``O(log n)``, ``n`` the
distinct scores held.

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

Exactness of `BinaryTree`. ``dtype=int``: weights are Python ints (any size), every sum
exact. ``dtype=float``: a subtree sum is updated by one rounded addition per change below
it; splits and merges recompute the sums they touch with `math.fsum`, a class's weight at
a score drops to exactly 0 when its last copy there leaves, and every ``distinct + 1024``
changes all subtree sums and both totals are recomputed with `math.fsum`. The compiled
counter's rules are in its own module docstring.
"""

from __future__ import annotations

import math
from bisect import bisect_left

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


# The counter behind `PairEngine` is compiled (``_cbinary.pyx``): one treap walk per change.
from ._cbinary import BinaryDominanceCounter  # noqa: E402
