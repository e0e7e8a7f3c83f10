"""The compiled order-statistic structures behind the incremental engine.

The 2-D dominance counters: `LevelDominanceCounter` (few label levels, two to a compiled
B+ tree), its subclass `BinaryDominanceCounter` (at most two label levels, one fused walk
per change) and `DominanceCounter` (any labels, arriving unannounced: a dynamic range
tree in C arrays).
"""

from .binary import BinaryDominanceCounter, LevelDominanceCounter, PlacementMoments
from .dominance import DominanceCounter

__all__ = [
    "BinaryDominanceCounter",
    "DominanceCounter",
    "LevelDominanceCounter",
    "PlacementMoments",
]
