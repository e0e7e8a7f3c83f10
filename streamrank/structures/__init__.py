"""Order-statistic structures behind the incremental engine.

`FenwickTree` (a fixed, compressed key universe), `WeightedSortedMultiset` (an open score
universe), and the 2-D dominance counters `BinaryDominanceCounter` (at most two label
levels, one fused walk per change), `LevelDominanceCounter` (few label levels) and
`DominanceCounter` (any labels, arriving unannounced).
"""

from .binary import BinaryDominanceCounter
from .dominance import DominanceCounter, LevelDominanceCounter
from .fenwick import FenwickTree
from .multiset import WeightedSortedMultiset

__all__ = [
    "BinaryDominanceCounter",
    "DominanceCounter",
    "FenwickTree",
    "LevelDominanceCounter",
    "WeightedSortedMultiset",
]
