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
tree once, ``O(L log n)`` for ``L`` levels (`streamrank.structures.binary`).

`DominanceCounter` (any labels, arriving unannounced), compiled in `_cdominance.pyx`: a
weight-balanced binary tree over the points in (label, score) order whose inner nodes
each keep a B+ tree of the scores in their left subtree (a dynamic range tree), all in C
arrays. A query walks down by label, partitioning at ``s`` the left-subtree scores of
every node whose whole left subtree is labelled below ``y``: O(log^2 n) amortized for
queries and changes; see that module's docstring for the balance (partial rebuilding),
the memory and the exactness.

Both are exact with ``dtype=int`` and keep bounded rounding with ``dtype=float`` (their
modules' docstrings give the bounds). The grid's cells are differences of partial sums;
with floats a cell that is 0 exactly may come out as a rounding residue of either sign.
"""

from __future__ import annotations

from ._cdominance import DominanceCounter

__all__ = ["DominanceCounter"]
