"""Order-statistic structures behind the incremental engine.

`FenwickTree` (a fixed, compressed key universe), `WeightedSortedMultiset` (an open score
universe), and the 2-D dominance counters `LevelDominanceCounter` (few label levels, two to
a compiled B+ tree), its subclass `BinaryDominanceCounter` (at most two label levels, one
fused walk per change) and `DominanceCounter` (any labels, arriving unannounced).
"""

from .binary import BinaryDominanceCounter, LevelDominanceCounter
from .dominance import DominanceCounter
from .fenwick import FenwickTree
from .multiset import WeightedSortedMultiset

__all__ = [
    "BinaryDominanceCounter",
    "DominanceCounter",
    "FenwickTree",
    "LevelDominanceCounter",
    "WeightedSortedMultiset",
]
