"""Type aliases of the public signatures (for type checkers; nothing here runs a check).

`Number` is what a single label, score, weight or time may be: a Python or numpy number
(``bool`` included, as everywhere in streamrank). `LabelKind` names how an incremental
structure holds its labels (`streamrank.engine.PairEngine`). Array inputs are
`numpy.typing.ArrayLike`.
"""

from __future__ import annotations

from typing import Any, Literal, Union

import numpy as np

__all__ = ["Count", "Empty", "Gain", "LabelKind", "Number", "Ties"]

#: A scalar label, score, weight or time.
Number = Union[float, np.integer[Any], np.floating[Any], np.bool_]
#: A pair count: an exact ``int`` with integer weights, a float sum otherwise.
Count = Union[int, float]
#: How labels are held: see `streamrank.engine.PairEngine`.
LabelKind = Literal["auto", "binary", "ordinal", "continuous"]
#: How the ranking metrics treat tied scores (`streamrank.ranking`).
Ties = Literal["average", "pessimistic", "optimistic"]
#: The gain of a relevance grade in DCG: ``2**rel - 1`` or ``rel``.
Gain = Literal["exponential", "linear"]
#: What a query without a relevant document counts as: left out, or 0 or 1.
Empty = Union[Literal["skip"], float]
