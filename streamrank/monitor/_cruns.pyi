"""Types of the compiled `streamrank.monitor._cruns` (see _cruns.pyx)."""

from collections.abc import Hashable

import numpy as np
from numpy.typing import NDArray

_Floats = NDArray[np.float64]

def window_run(win: object, keys: list[Hashable], score: _Floats, label: _Floats,
               start: int, size: int, evict: bool, evicted: list[Hashable],
               avoid: dict[Hashable, int],
               end: int = -1,
               stop_at_limit: bool = True) -> tuple[int, int, int, int, int]: ...
def route_run(keys: list[Hashable], segments: list[Hashable], score: _Floats,
              challenger: _Floats | None, label: _Floats, start: int,
              where: dict[Hashable, tuple[Hashable, float | None]],
              unit_of: dict[Hashable, int], wins: list[tuple[object, ...]],
              sizes: list[int], evict: list[bool],
              evicted: list[tuple[list[Hashable], ...]],
              avoid: list[dict[Hashable, int]], orphans: dict[Hashable, int],
              sweep_at: int, counts: NDArray[np.int64], touched: list[int]) -> int: ...
