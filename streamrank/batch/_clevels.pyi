"""Types of the compiled `streamrank.batch._clevels` (see _clevels.pyx)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

def tie_pairs(sorted_keys: NDArray[Any], starts: ArrayLike | None = None) -> tuple[int,
              int]: ...
def level_codes(values: NDArray[Any], levels: ArrayLike) -> NDArray[np.int64]: ...
def level_counts(labels: ArrayLike, n_levels: int, starts: ArrayLike,
                 weights: ArrayLike | None = None
                 ) -> tuple[int | float, int | float, int | float, int | float, int | float]: ...
def group_rows(ids: NDArray[Any], offset: int, n_codes: int,
               arrays: Sequence[NDArray[Any]] = (), with_perm: bool = True,
               always: bool = False
               ) -> tuple[NDArray[np.intp] | None, NDArray[np.intp],
                          tuple[NDArray[Any], ...] | None]: ...
def code_counts(ids: NDArray[Any], offset: int, n_codes: int
                ) -> tuple[NDArray[np.intp], bool]: ...
def query_topk(ids: NDArray[Any], offset: int, n_codes: int, neg: ArrayLike,
               gains: ArrayLike, k: int
               ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64],
                          NDArray[np.float64]]: ...
def row_scores(labels: ArrayLike, n_levels: int, starts: ArrayLike,
               weights: ArrayLike | None = None) -> NDArray[np.float64]: ...
