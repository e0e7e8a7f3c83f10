# Declarations of `_cbinary.pyx` for the modules that cimport it (`_ccounter.pyx`): the
# few-level counter `LevelDominanceCounter` over the trees of `_cbtree` with its subclass
# `BinaryDominanceCounter`, and the whole changes of `PairEngine` over it in C (`_eadd`,
# `_eremove`, `_eupdate`, with the weight check `_weight_ok` they take).

from libc.stdint cimport int32_t, int64_t

from ._cbtree cimport BComp, BNode, BPos, _BTree
from ._csums cimport Sums


cdef class LevelDominanceCounter:
    cdef list _trees            # the _BTree of each pair of slots
    cdef _BTree _t              # _trees[0]
    cdef int _ntrees
    cdef int _nheld             # levels held (slots in use)
    cdef double* _label         # per slot: its label, where _has
    cdef char* _has
    cdef int _max_levels        # 0: any number of levels; BinaryDominanceCounter: 2
    cdef public int engine_max_levels   # engine_add leaves a new level past this to the
                                        # engine's checked path (0: no limit)
    cdef object _dtype
    cdef bint _floats
    cdef int64_t _npscores      # more than one tree: scores held with weight > 0
    cdef int64_t _pcat          # copies of weight > 0 at the score of the last walk
    cdef BNode** _wbase         # the walks of every tree at once (`_walk_trees`): nodes,
    cdef BComp** _wfe           # their compensations and copies of weight > 0 (or NULL),
    cdef BPos** _wpc
    cdef int32_t* _wnode        # the node each is at,
    cdef int64_t* _ib           # and per slot the weight below and at the score
    cdef int64_t* _ie
    cdef double* _fb
    cdef double* _fe
    cdef str _name
    cdef bint _moments          # placement moments asked for: kept on tree 0 (int mode)
    cdef public Sums sums       # the engine's running counts (``engine_add`` updates them)

    cdef int _reset(self) except -1
    cdef inline _BTree _tree(self, int q)
    cdef object _tot(self, int q)
    cdef int64_t _itotal(self) noexcept
    cdef void _stats(self, int64_t* levels, int64_t* scores, int64_t* copies) noexcept
    cdef inline int _slot_of(self, double label) noexcept
    cdef int _new_level(self, double label, str func) except -1
    cdef inline bint _room(self) noexcept
    cdef tuple _terms_tuple(self, int q, double label, double s)
    cdef int _put(self, int q, double s, int64_t iw, double fw) except -1
    cdef tuple _add_pairs(self, double label, double score, weight, str method)
    cdef int _drop(self, int q, double score, int64_t iw, double fw, bint positive) except -1
    cdef inline void _dropped(self, bint positive) noexcept
    cpdef tuple add_pairs(self, double label, double score, weight)
    cpdef tuple remove_pairs(self, double label, double score, weight)


cdef class BinaryDominanceCounter(LevelDominanceCounter):
    pass


cdef bint _weight_ok(LevelDominanceCounter self, double v, int64_t* iw,
                     double* fw) noexcept
cdef int _eadd(LevelDominanceCounter self, double yy, double ss, int64_t iw,
               double fw) except -1
cdef int _eremove(LevelDominanceCounter self, double yy, double ss, int64_t iw,
                  double fw) except -1
cdef int _eupdate(LevelDominanceCounter self, double oy, double so, int64_t iw,
                  double ny, double sn, int64_t niw) except -1
