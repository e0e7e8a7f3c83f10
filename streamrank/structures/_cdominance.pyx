# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""`DominanceCounter`, compiled: 2-D dominance weights for labels arriving unannounced.

The structure is a dynamic range tree, all in C arrays: a weight-balanced binary tree
over the distinct (label, score) keys in key order (the *outer* tree), whose inner nodes
each hold a weighted B+ tree of the scores in their left subtree (`_cmpool`; every
multiset of a counter shares one node array), plus one multiset of all the scores (the
column sums) and one of the labels (the label levels held)::

                        ┌──────────────────────────────┐
                        │ split key (0.5, 0.2)         │  keys < split on the left
                        │ left scores {.4 .4 .9 .9}    │  a B+ tree of their scores
                        └───────┬──────────────┬───────┘
                 ┌──────────────┴─┐          ┌─┴──────────────────┐
                 │ leaf           │          │ leaf               │   up to 2 * _LEAF
                 │ (0.1, .9) x1   │          │ (0.5, .2) x1       │   distinct keys, with
                 │ (0.3, .4) x2   │          │ (0.5, .7) x1       │   copies, copies of
                 │ (0.3, .9) x1   │          │ (0.8, .1) x1       │   weight > 0, weight
                 └────────────────┘          └────────────────────┘

A query for the points labelled ``< y`` (or ``<= y``) walks down by label: where the whole
left subtree qualifies it partitions that subtree's multiset at ``s`` (one O(log n) B+
tree walk) and goes right, else it goes left; the leaf at the end is scanned. The row of
label ``y`` is the difference of the two walks. Each is O(log^2 n). An insert or removal
updates the multiset at each node of its path where it goes left (about half of them),
the column and the label multisets: O(log^2 n). Only copies of weight > 0 enter the
multisets (a zero weight adds nothing to any sum), so the column multiset's entries are
the score levels held with weight and the label multiset's the label levels: the level
counts that `PairEngine` needs for its structural zeros come for free, in O(1).

Why this design: it is the range tree of the Python counter it replaces, whose results it
reproduces exactly (integer weights) and whose cost analysis carries over, with the
objects turned into C arrays. Its cost is the ``log2(n / _LEAF) / 2`` multisets each
point sits in: a higher-fanout outer tree (fewer levels, each node's multiset tagging
the child of each score) would cut the walks and the memory, at the price of a
multi-class score tree per node.

Balance. A node is out of balance when one child has more than ``_DELTA`` (3) times the
leaves of the other; after a change, the highest such node on the path is rebuilt
perfectly balanced (partial rebuilding, as in BB[alpha] trees): its keys are re-chunked
into leaves three quarters full and the multisets built bottom-up by merging the
children's sorted scores, O(m log m) for ``m`` keys. A rebuilt subtree of ``m`` leaves
takes Omega(m) leaf splits or deletions below it to fall out of balance again, and a
leaf is split or emptied once per Omega(_LEAF) point changes, so rebuilds cost O(log^2
n) amortized per change. When removals leave the leaves less than a quarter full on
average, the whole tree is rebuilt (which takes Omega(n) removals). Insert, remove and
query are therefore O(log^2 n) amortized; `load` is O(n log n).

One walk per change. When no split key on the path has the point's label (with
continuous labels, nearly always), the left subtrees that the path passes on the right
are exactly the points labelled below it, and all the keys with its label share its leaf:
the change reads its pairs on its own walk, partitioning the multiset where it goes right
and updating it where it goes left (a query walks once too). Otherwise the two walks for
``< y`` and ``<= y`` run apart. The cost is set by memory latency (about 17 multiset
walks of 2 - 4 nodes each per change at 10**6 points), so before its walks a change
fetches the nodes that all of them will read into the cache, one level of every
multiset at a time, and their cache misses overlap: about 5 us per `PairEngine` change
at 10**6 points, 2 us at 10**4 (benchmarks/bench_core.py --labels continuous).

Memory. Each point sits in its leaf (40 bytes per key: label, score, copies, copies of
weight > 0, weight, and its compensation; leaves are 50 - 100 % full) and in about
``log2(n / _LEAF) / 2 + 2`` multisets (20 bytes per entry, nodes 75 % full when built,
50 - 100 % after changes): about 300 bytes per point with distinct labels and scores at
10**6 (54 in the leaves, 245 in the multisets), against ~700 for the Python tree of
objects it replaces (benchmarks/bench_core.py --footprint measures the resident set,
allocator slack included).

Exactness. ``dtype=int``: int64 weights and sums (the total held must stay below
``2**63``). ``dtype=float``: each key's weight is a compensated (double-double) sum of the
weights that came and went there; a multiset entry goes when its last copy does (so no
residue of a removed point is left), and inner sums are recomputed from the children on
every walk. The grid's cells are differences of partial sums: with floats a cell that is
0 exactly may come out as a rounding residue of either sign.
"""

from libc.stdint cimport int64_t, int32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free, qsort
from libc.string cimport memcpy, memmove
from libc.math cimport fabs, isfinite

from ._cnumeric cimport _in_domain, _plain, _py128, _two_sum_add, sr_int128
from ._cmpool cimport MFAN, MNode, SEnt, Wt, _MPool, _sent_cmp
from ._csums cimport Sums

import math

import numpy as np

from .._validation import describe, param_error
from ._inputs import (check_dtype, check_load_args, check_point, check_points,
                      check_structure_weight, counter_from_arrays, structure_weights)

cdef extern from *:
    """
    #define SR_PREFETCH(p) __builtin_prefetch((const void*)(p))
    """
    void SR_PREFETCH(const void* p) noexcept nogil

#: Leaves hold up to ``2 * _LEAF`` keys (scanned in C by a query); a rebuild fills them
#: with ``_LEAF``. Read when a counter is created (tests make it small).
_LEAF = 64
#: Entries per multiset node, at most 32; read when a counter is created.
_FAN = 32
_DELTA = 3

cdef enum:
    OCAP = 129     # keys per leaf at most: 2 * _LEAF + 1 before it splits
    OMAXD = 160    # deeper than any weight-balanced tree of 2**31 leaves

cdef int64_t _INT_TOTAL_MAX = (<int64_t>1) << 62     # the engine's exact limit
cdef int64_t _INT64_MAX = 0x7FFFFFFFFFFFFFFF
cdef int64_t _EXACT = (<int64_t>1) << 53


cdef struct ONode:          # an inner node of the outer tree
    int32_t left, right     # >= 0: an inner node; < 0: the leaf ~ref
    int32_t size            # leaves below
    int32_t ms              # multiset root: the scores of the left subtree
    Wt ltot                 # their weight
    double label, score     # split key: keys below it are on the left


cdef struct OLeaf:
    int32_t n
    double label[OCAP]
    double score[OCAP]
    int32_t cnt[OCAP]       # copies
    int32_t pcnt[OCAP]      # copies of weight > 0
    Wt w[OCAP]
    double fe[OCAP]         # float mode: the compensation of w (a double-double)


cdef inline bint _key_lt(double y1, double s1, double y2, double s2) noexcept:
    return y1 < y2 or (y1 == y2 and s1 < s2)


include "_cdominance_store.pxi"
include "_cdominance_tree.pxi"
include "_cdominance_engine.pxi"
include "_cdominance_api.pxi"
include "_cdominance_state.pxi"
