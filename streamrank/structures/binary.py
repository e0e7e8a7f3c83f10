"""Two label levels: one tree over the scores that carries both classes' weights.

`BinaryDominanceCounter`, behind `PairEngine` while it holds at most two labels, is
compiled (``_cbinary.pyx``): a treap over the distinct scores in flat C arrays, each node
carrying both classes' copies, weights and subtree sums. An insert of class ``y`` at
``s`` walks down once, reading the *other* class's weight below and at ``s`` on the way,
and the own class's weight at ``s``, while it adds its own weight on the path: the query
and the update share one walk. ``O(log n)`` expected, ``n`` the distinct scores held.

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

The compiled counter's exactness rules are in its own module docstring.
"""

from __future__ import annotations

from ._cbinary import BinaryDominanceCounter

__all__ = ["BinaryDominanceCounter"]
