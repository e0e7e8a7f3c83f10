# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The two-class B+ tree of the few-level counter (`streamrank.structures._cbinary`).

`_BTree` holds the distinct scores, each with two classes' copies and weights, in one C
array of fixed-size nodes: a walk reads each class's weight below and at a score, or
changes one score's entry, in ``O(log n)``. Its node types and fields are declared in
`_cbtree.pxd`, which `_cbinary` cimports: the counter reads the nodes directly and calls the
tree's walks through its method table.

Files: `_btree.pxi` (the tree, its layout and invariants), `_btree_raw.pxi` (its
bit-for-bit copies), `_btree_check.pxi` (`_check`), `_moments.pxi` (the placement moments
of DeLong's variance, kept in the tree once asked for) and `_btree_move.pxi` (a copy moved
from one score to another as one walk).

Exactness. Int mode: int64 weights and sums (the counter keeps the total held below
``2**62``). Float mode: each score's own weight is a compensated (double-double) sum of the
weights that came and went there, and inner sums are recomputed from the children on every
walk, so an inner sum never keeps the rounding of a weight that left.

Examples
--------
>>> t = _BTree()
>>> t._check()        # entries, sums, copies, copies of weight > 0, scores with one
(0, [0, 0], [0, 0], [0, 0], 0)
>>> u = _BTree()
>>> u.set_raw(*t.raw()), u.raw() == t.raw()      # a copy bit for bit
(True, True)
>>> u.set_raw((16, 0, 1), b"", t.raw()[2])         # another node layout: refused
False
"""

from libc.stdint cimport int64_t, uint64_t, int32_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memmove, memset

from ._cnumeric cimport _grow_array, _two_sum_add, sr_uint128

include "_btree.pxi"
include "_btree_raw.pxi"
include "_btree_check.pxi"
include "_moments.pxi"
include "_btree_move.pxi"
