"""Type aliases of the public signatures (for type checkers; nothing here runs a check).

`Number` is what a single label, score, weight or time may be: a Python or numpy number
(``bool`` included, as everywhere in streamrank). `LabelKind` names how an incremental
structure holds its labels (`streamrank.engine.PairEngine`). Array inputs are
`numpy.typing.ArrayLike`.
"""

from __future__ import annotations

from typing import Any, Literal, Union

import numpy as np

__all__ = ["Count", "LabelKind", "Number"]

#: A scalar label, score, weight or time.
Number = Union[float, np.integer[Any], np.floating[Any], np.bool_]
#: A pair count: an exact ``int`` with integer weights, a float sum otherwise.
Count = Union[int, float]
#: How labels are held: see `streamrank.engine.PairEngine`.
LabelKind = Literal["auto", "binary", "ordinal", "continuous"]
