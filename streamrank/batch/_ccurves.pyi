"""Types of the compiled `streamrank.batch._ccurves` (see _ccurves.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

def weighted_class_sort(keys: NDArray[Any], pos: NDArray[np.bool_], weights: NDArray[Any]
                        ) -> tuple[NDArray[np.uint64], NDArray[np.float64],
                                   NDArray[np.uint64], NDArray[np.float64]]: ...
def from_bits(bits: NDArray[np.uint64], dtype: Any) -> NDArray[Any]: ...
def threshold_counts(pos: NDArray[Any], neg: NDArray[Any],
                     wpos: NDArray[np.float64] | None = None,
                     wneg: NDArray[np.float64] | None = None
                     ) -> tuple[NDArray[Any], NDArray[np.float64], NDArray[np.float64]]: ...
def roc_points(thr: NDArray[Any], tps: NDArray[np.float64], fps: NDArray[np.float64],
               drop_intermediate: bool
               ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[Any]]: ...
def pr_points(thr: NDArray[Any], tps: NDArray[np.float64], fps: NDArray[np.float64],
              drop_intermediate: bool
              ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[Any]]: ...
