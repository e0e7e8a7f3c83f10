"""The names that pickles of streamrank 0.1 ask this module for.

Version 0.1 kept the scores of its Python dominance counters in a Python weighted B+
tree, `WeightedSortedMultiset`; the compiled counters that replaced them read those
pickles' points (``items()``) when they load them. The classes below hold such a pickled
tree as it was written and read it back; they are not a data structure to use.
"""

from __future__ import annotations

__all__: list[str] = []


class _Node:
    """A pickled B+ tree node: sorted ``keys``; a leaf's ``items`` are copy counts, an
    inner node's its children; ``weights`` per value (leaf) or per subtree (inner)."""

    __slots__ = ("keys", "items", "weights")


class WeightedSortedMultiset:
    """A pickled multiset of version 0.1, read back by `items`."""

    __slots__ = ("_dtype", "_root", "_height", "_len", "_total", "_distinct", "_updates",
                 "_peak", "_snapshot")

    def items(self):
        """``(value, copies, weight)`` per distinct value, ascending. O(n)."""
        level = [self._root]
        for _ in range(self._height):
            level = [child for node in level for child in node.items]
        for leaf in level:
            yield from zip(leaf.keys, leaf.items, leaf.weights)
