# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled core of `PairEngine`: the few-level counters.

Their running counts are a `Sums` (`streamrank.structures._csums`, cimported): exact
128-bit integers while the weights are integers (the engine keeps the total weight below
``2**62`` and each weight at most ``2**53``, so no count can pass ``2**124``), or
compensated float64 sums (double-doubles).

`LevelDominanceCounter` holds the samples while few label levels are held: B+ trees over
the distinct scores (`_cbtree`) whose entries carry *two* levels' copies and weights,
``ceil(L / 2)`` trees for ``L`` levels (`_levels.pxi`), so a change walks each tree once
for every level's weight below and at its score, and changes one entry. Its subclass
`BinaryDominanceCounter` (at most two levels: one tree, one walk) holds them while at most
two are. Their ``engine_add`` / ``engine_remove`` do a whole change of `PairEngine` in C
-- validation of plain Python numbers, the terms, the update, the counts -- and leave
anything unusual (other types, a label past the levels allowed, a weight that needs float
counts, a sample that is not held) to the engine's checked path, having changed nothing.

Files: `_levels.pxi` (the counter, its slots and its Python face), `_levels_core.pxi`
(its walks over several trees and whole changes in C, an update as one walk included) and
`_levels_batch.pxi` (batches, loads, copies, checks and placement moments); the two-level
subclass `BinaryDominanceCounter` is here. The trees are `_cbtree`'s `_BTree`, cimported
from `_cbtree.pxd`. `_cbinary.pxd` declares the counters and their whole changes in C for
`streamrank.structures._ccounter` (`CounterCore`, the compiled half of `PairCounter`),
which cimports them.

Exactness. ``dtype=int``: int64 weights and sums (the total held stays below ``2**62``).
``dtype=float``: each score's own weight is a compensated (double-double) sum of the weights
that came and went there, and inner sums are recomputed from the children on every walk,
so an inner sum never keeps the rounding of a weight that left.
"""

from libc.stdint cimport int64_t, uint64_t, int32_t, uint32_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memmove, memset
from libc.math cimport fabs, isfinite

from ._cnumeric cimport (_from_py, _grow_array, _in_domain, _plain, _py128, _two_sum_add,
                         sr_int128, sr_uint128)
from ._cbtree cimport FAN, MAXD, NIL, _mo_off, _mo_on, _mo_read, _move_walk, _tree_weights
from ._csums cimport Sums

import math

import numpy as np

from .._validation import (as_1d_numeric, check_consistent_length, check_scalar,
                           check_weight, check_weights, describe, param_error)
from ._cbtree import _placements, _swap_classes
from ._inputs import (check_dtype, check_load_args, check_point, check_points,
                      check_structure_weight, counter_from_arrays, structure_weights)

cdef int64_t _INT_TOTAL_MAX = (<int64_t>1) << 62
cdef int64_t _EXACT = (<int64_t>1) << 53
cdef double _HELD_SLACK = 2.0 ** -30   # a removal may exceed a score's weight by this * hist

include "_levels.pxi"
include "_levels_core.pxi"
include "_levels_batch.pxi"


cdef class BinaryDominanceCounter(LevelDominanceCounter):
    """`LevelDominanceCounter` for at most two label levels: one tree, and a third level
    is refused (`ValueError`, nothing changes).

    `PairEngine` holds its samples here while at most two labels are held: every change is
    one walk of the tree that reads the other level's weight below and at the score, and
    one more (cache-warm) that changes the entry. Each label level held takes one of the
    tree's two classes; a level is dropped when its last point leaves, so another label
    can take its class.

    Parameters
    ----------
    dtype : {int, float}, default=int
        Type of the weights, as `LevelDominanceCounter`'s.

    Notes
    -----
    Runtime complexity: every single change or query is one or two walks of the B+ tree,
    ``O(log n)``; `pairs_with_many` ``O(k log n)`` in C; `load` ``O(n log n)``.

    Examples
    --------
    >>> dc = BinaryDominanceCounter()
    >>> for y, s in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8)]:
    ...     dc.add(y, s)
    >>> dc.pairs_with(1, 0.4)       # concordant, discordant, tied score, tied label, both
    (1, 0, 1, 2, 0)
    >>> dc.add_pairs(1.0, 0.4, 1)   # the same terms, and the point is added
    (1, 0, 1, 2, 0)
    >>> dc.remove_pairs(1.0, 0.4, 1), len(dc)
    ((1, 0, 1, 2, 0), 4)
    >>> dc.add(2, 0.5)
    Traceback (most recent call last):
    ...
    ValueError: The 'label' parameter of BinaryDominanceCounter.add must be one of the two labels held (0.0, 1.0). Got 2.0 instead.
    """

    def __cinit__(self, *args, **kwargs):
        self._max_levels = 2
