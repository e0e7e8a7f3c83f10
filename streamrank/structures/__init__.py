"""Order-statistic structures behind the incremental engine.

`FenwickTree` (a fixed, compressed key universe), `WeightedSortedMultiset` (an open score
universe), and the 2-D dominance counters `LevelDominanceCounter` (few label levels) and
`DominanceCounter` (any labels, arriving unannounced).
"""

from .dominance import DominanceCounter, LevelDominanceCounter
from .fenwick import FenwickTree
from .multiset import WeightedSortedMultiset

__all__ = [
    "DominanceCounter",
    "FenwickTree",
    "LevelDominanceCounter",
    "WeightedSortedMultiset",
]
