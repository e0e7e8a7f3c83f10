"""Types of the compiled `streamrank.batch._cgroups` (see _cgroups.pyx)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

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
