"""Types of the compiled `streamrank.batch._cplacements` (see _cplacements.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

def row_placements(s: NDArray[np.float64], pos: NDArray[np.bool_], order: NDArray[Any],
                   w: NDArray[Any] | None = None
                   ) -> tuple[NDArray[Any], int | float, int | float]: ...
