"""Few label levels: B+ trees over the scores, each carrying two levels' weights.

`BinaryDominanceCounter`, behind `PairEngine` while it holds at most two labels, is
compiled (``_cbinary.pyx``, ``_btree.pxi``): a B+ tree over the distinct scores in one C
array of nodes, each entry carrying both classes' copies and weights, each inner node both
classes' weights under each child. A change of class ``y`` at ``s`` reads the *other*
class's weight below and at ``s`` and the own class's weight at ``s`` in one walk, and
changes the entry in a second (cache-warm) walk. ``O(log n)``, ``n`` the distinct scores
held; the engine's whole change (validation, terms, counts) runs in C
(``engine_add`` / ``engine_remove``). Memory: nodes of 32 entries, 1288 bytes (keys, both
classes' weights, and an inner node's children or a leaf's copies), about 56 bytes per
distinct score once loaded (nodes three quarters full) and 60 after random single inserts;
float weights add 16 bytes per entry for their compensations, and the first copy of weight
0 another 16 for the copies of weight > 0 (until then they are the copies).

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

`LevelDominanceCounter` (the base class) holds any number of levels the same way, two to a
tree (``_levels.pxi``): a change walks each of its ``ceil(L / 2)`` trees once, reading
both of its levels' weight below and at ``s``, and applies the rule above to each level,
by its label against ``y``. `PairEngine` moves to it when a third label is held.

The compiled counters' exactness rules are in their module docstring. Once asked for, the
two-level tree also keeps the placement moments of DeLong's variance (`PlacementMoments`,
``_moments.pxi``) at ``O(log n)`` per change, in 1,024 bytes beside each node (about 45
bytes per distinct score).
"""

from __future__ import annotations

from typing import NamedTuple

from ._cbinary import BinaryDominanceCounter, LevelDominanceCounter

__all__ = ["BinaryDominanceCounter", "LevelDominanceCounter", "PlacementMoments"]


class PlacementMoments(NamedTuple):
    """What DeLong's variance of the AUC needs, exact ints (`PairEngine.placement_moments`).

    With ``a_k`` the positive (greater label) and ``b_k`` the negative weight at score
    ``k``, a positive's doubled placement is ``P_k = 2 B_<k + b_k`` (twice the negative
    weight below it, plus the weight tied), a negative's ``N_k = 2 A_>k + a_k``; then
    ``u = sum a_k P_k = 2 C + T`` (so the AUC is ``u / (2 w1 w0)``), ``q1 = sum a_k
    P_k**2`` and ``q0 = sum b_k N_k**2``: DeLong's ``S10 = (w1 q1 - u**2) / (4 w0**2 w1
    (w1 - 1))`` and ``S01 = (w0 q0 - u**2) / (4 w1**2 w0 (w0 - 1))``, integer weights read
    as frequencies.
    """

    w1: int   #: positive weight
    w0: int   #: negative weight
    u: int    #: sum of the positives' doubled placements, 2 C + T
    q1: int   #: sum of the positives' squared doubled placements
    q0: int   #: sum of the negatives' squared doubled placements

