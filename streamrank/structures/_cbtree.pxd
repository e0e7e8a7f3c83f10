# Declarations of `_cbtree.pyx` for the modules that cimport it (`_cbinary.pyx`, the
# few-level counter): the two-class B+ tree `_BTree` (its layout is described in
# `_btree.pxi`), its node types, and the walks over it that the counter calls in C
# (placement moments on and off, their read, and an update as one walk).

from libc.stdint cimport int32_t, int64_t

from ._cnumeric cimport sr_uint128

cdef enum:
    FAN = 32      # entries per node
    HALF = 16     # a split leaves HALF on each side
    LOW = 8      # a node below LOW entries merges with a neighbour, or evens out with it
    MAXD = 64     # deeper than any tree of 2**31 entries under `_btree.pxi`'s invariants
    NIL = -1
    LAYOUT = 2    # `raw`: the node layout's revision (1: fe and pc inside BNode)

cdef union Wt:
    int64_t i
    double f

cdef union BRefs:
    int32_t child[FAN]    # inner: the children (a free node: child[0] chains the free list)
    int64_t c[2][FAN]     # leaf: copies per class, zero weights included

cdef struct BNode:
    int32_t n
    int32_t leaf
    double key[FAN]
    Wt w[2][FAN]
    BRefs r

cdef struct BComp:        # per node, float mode: a leaf's compensations of w
    double fe[2][FAN]

cdef struct BPos:         # per node, once a copy of weight 0 came: a leaf's copies of
    int64_t pc[2][FAN]    # weight > 0

cdef struct BMoE:
    sr_uint128 c          # the concordant weight (class 0 below class 1) inside a child
    sr_uint128 z          # and its sum of w0 * w1 per score (mod 2**128; `_moments.pxi`)

cdef struct BMo:          # per node, with moments on: an inner node's `BMoE` per child
    BMoE e[FAN]


cdef class _BTree:
    cdef BNode* n
    cdef BComp* fe                    # NULL unless floats
    cdef BPos* pc                     # NULL until a copy of weight 0 comes (pc == c)
    cdef BMo* mo                      # NULL unless placement moments are on
    cdef sr_uint128 m[5]              # with `mo`: Q0, Q1, U, C, Z (`_moments.pxi`)
    cdef int32_t cap, size, free_head, root
    cdef bint floats
    cdef public int64_t distinct      # entries (distinct scores held)
    cdef int64_t ncopies[2]           # copies per class
    cdef int64_t npos[2]              # copies of weight > 0 per class
    cdef int64_t pos_scores           # entries holding a copy of weight > 0
    cdef int64_t itot[2]              # int mode: each class's weight

    cdef void clear(self) noexcept
    cdef int set_floats(self, bint floats) except -1
    cdef int _make_pc(self) except -1
    cdef int _grow(self, int32_t cap) except -1
    cdef int32_t _new(self, int leaf) except -2
    cdef inline void _zero(self, int32_t i) noexcept
    cdef void _release(self, int32_t i) noexcept
    cdef inline int64_t* _pc(self, int32_t i, int k) noexcept
    cdef inline double _own_f(self, int32_t i, int k, int j) noexcept
    cdef double _sum_f(self, int32_t i, int k) noexcept
    cdef int64_t _sum_i(self, int32_t i, int k) noexcept
    cdef void _set_sums(self, int32_t p, int j) noexcept
    cdef double ftot(self, int k) noexcept
    cdef void ibelow(self, double s, int64_t* below, int64_t* equal) noexcept
    cdef void fbelow(self, double s, double* below, double* equal) noexcept
    cdef bint find(self, double s, int32_t* leaf, int* pos) noexcept
    cdef void _move(self, int32_t dst, int dj, int32_t src, int sj, int m) noexcept
    cdef int _split(self, int32_t p, int j, double s) except -1
    cdef void _merge(self, int32_t p, int a) noexcept
    cdef void _even(self, int32_t p, int a) noexcept
    cdef int add_at(self, double s, int k, int64_t dc, int64_t dpc, int64_t iw,
                    double fw) except -1
    cdef int remove_at(self, double s, int k, int64_t iw, double fw, bint positive) except -1
    cdef void entries(self, list out) except *
    cdef void _entries(self, int32_t i, list out) except *


cdef int _mo_on(_BTree t) except -1
cdef void _mo_off(_BTree t) noexcept
cdef tuple _mo_read(_BTree t)
cdef tuple _tree_weights(_BTree t)
cdef int _move_walk(_BTree t, double so, int ko, int64_t iw, double sn, int kn,
                    int64_t niw, int64_t* bo, int64_t* eo, int64_t* bn,
                    int64_t* en) except -1
