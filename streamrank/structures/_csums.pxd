# cython: language_level=3
"""C declarations of `Sums` (`streamrank.structures._csums`), cimported by the tree
modules, which update the counts in C."""

from libc.stdint cimport int64_t, uint64_t

from ._cnumeric cimport sr_int128


cdef class Sums:
    cdef sr_int128 i[6]
    cdef double f[6]
    cdef double e[6]
    cdef public double hist
    cdef public double cross
    cdef public double within
    cdef public double exposure
    cdef readonly bint floats
    cdef readonly uint64_t changes   # one more at every change: the engine's cache is valid
                                     # while it is the same (owners bump it too)

    cpdef void reset(self, bint floats)
    cdef void _counted(self) noexcept
    cdef void add_i(self, int64_t* terms, int64_t w, int64_t wsum) noexcept
    cdef void add_f(self, double* terms, double w, double wsum) noexcept
    cpdef bint stale(self, double weight_ratio, double pair_ratio, bint joint)
    cdef void _set_parts(self, list acc, list comp)
