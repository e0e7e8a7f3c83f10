# Declarations of `_cmpool.pyx` for the module that cimports it (`_cdominance.pyx`, the
# dominance counter): the score multisets, many small weighted B+ trees in one node array
# (`_MPool`), their node type, and the rows they are built from.

from libc.stdint cimport int32_t, int64_t

cdef union Wt:
    int64_t i
    double f

cdef enum:
    MFAN = 32      # entries per node (the compiled maximum; `fan` may be smaller)
    MMAXD = 64     # deeper than any tree of 2**31 entries


cdef struct MNode:
    int32_t n
    int32_t leaf
    double key[MFAN]
    Wt w[MFAN]
    int32_t aux[MFAN]


cdef struct SEnt:      # a (score, weight, copies) row, for sorting and building
    double s
    Wt w
    int32_t c


cdef int _sent_cmp(const void* a, const void* b) noexcept nogil


cdef class _MPool:
    cdef MNode* n
    cdef int32_t cap, size, free_head, used
    cdef bint floats
    cdef int fan, half, low

    cdef void reset(self) noexcept
    cdef int _grow(self, int32_t cap) except -1
    cdef int32_t new(self, int leaf) except -1
    cdef void release(self, int32_t i) noexcept
    cdef void free_tree(self, int32_t i) noexcept
    cdef int64_t tot_i(self, int32_t i) noexcept
    cdef double tot_f(self, int32_t i) noexcept
    cdef inline void _set_sum(self, int32_t p, int j) noexcept
    cdef void part_i(self, int32_t i, double s, int64_t* below, int64_t* equal) noexcept
    cdef void part_f(self, int32_t i, double s, double* below, double* equal) noexcept
    cdef void _move(self, int32_t dst, int dj, int32_t src, int sj, int m) noexcept
    cdef int _split(self, int32_t p, int j, double s) except -1
    cdef void _merge(self, int32_t p, int a) noexcept
    cdef int add(self, int32_t* root, double s, int64_t iw, double fw) except -1
    cdef int remove(self, int32_t* root, double s, int64_t iw, double fw) except -1
    cdef int32_t build(self, SEnt* e, Py_ssize_t m) except -1
    cdef void rows(self, int32_t i, list out) except *
    cdef object _check_tree(self, int32_t i, object lo, object hi, bint is_root)
