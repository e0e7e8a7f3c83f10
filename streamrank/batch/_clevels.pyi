"""Types of the compiled `streamrank.batch._clevels` (see _clevels.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

def tie_pairs(sorted_keys: NDArray[Any], starts: ArrayLike | None = None) -> tuple[int,
              int]: ...
def level_codes(values: NDArray[Any], levels: ArrayLike) -> NDArray[np.int64]: ...
def level_counts(labels: ArrayLike, n_levels: int, starts: ArrayLike,
                 weights: ArrayLike | None = None
                 ) -> tuple[int | float, int | float, int | float, int | float, int | float]: ...
def row_scores(labels: ArrayLike, n_levels: int, starts: ArrayLike,
               weights: ArrayLike | None = None) -> NDArray[np.float64]: ...
