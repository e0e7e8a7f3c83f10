"""Types of the compiled `streamrank.batch._ckernels` (see _ckernels.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

def sort_count(keys: NDArray[Any], left: NDArray[Any] | None = None,
               right: NDArray[Any] | None = None
               ) -> tuple[int | float, NDArray[Any], NDArray[Any] | None, NDArray[Any] | None]: ...
def sort_runs(keys: NDArray[Any], starts: NDArray[np.intp],
              left: NDArray[Any] | None = None, right: NDArray[Any] | None = None) -> None: ...
