# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled core of `PairEngine`: the running counts and the few-level counters.

`Sums` keeps the running counts ``C, D, T, Ty, Tyy`` and the weight held, for every mode of
the engine: exact 128-bit integers while the weights are integers (the engine keeps the
total weight below ``2**62`` and each weight at most ``2**53``, so no count can pass
``2**124``), or float64 sums with Neumaier compensation.

`LevelDominanceCounter` holds the samples while few label levels are held: B+ trees over
the distinct scores (`_btree.pxi`) whose entries carry *two* levels' copies and weights,
``ceil(L / 2)`` trees for ``L`` levels (`_levels.pxi`), so a change walks each tree once
for every level's weight below and at its score, and changes one entry. Its subclass
`BinaryDominanceCounter` (at most two levels: one tree, one walk) holds them while at most
two are. Their ``engine_add`` / ``engine_remove`` do a whole change of `PairEngine` in C
-- validation of plain Python numbers, the terms, the update, the counts -- and leave
anything unusual (other types, a label past the levels allowed, a weight that needs float
counts, a sample that is not held) to the engine's checked path, having changed nothing.

Files: `_sums.pxi` (`Sums`), `_btree.pxi` (the tree), `_levels.pxi` (the counters' single
changes and queries), `_levels_batch.pxi` (their batches, loads, copies and checks).

Exactness. ``dtype=int``: int64 weights and sums (the total held stays below ``2**62``).
``dtype=float``: each score's own weight is a compensated (Neumaier) sum of the weights
that came and went there, and inner sums are recomputed from the children on every walk,
so an inner sum never keeps the rounding of a weight that left.
"""

from libc.stdint cimport int64_t, uint64_t, int32_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memmove
from libc.math cimport fabs, isfinite

import math

import numpy as np

from .._validation import describe, param_error
from .dominance import _check_dtype, _checked_point, _load_args, _points
from .multiset import _check_weight, _weights_array

cdef extern from *:
    """
    typedef __int128 sr_int128;
    """
    ctypedef long long sr_int128

cdef int64_t _INT_TOTAL_MAX = (<int64_t>1) << 62
cdef int64_t _EXACT = (<int64_t>1) << 53
cdef double _MIN_W = 2.0 ** -400
cdef double _MAX_W = 2.0 ** 400

include "_sums.pxi"
include "_btree.pxi"
include "_levels.pxi"
include "_levels_batch.pxi"

