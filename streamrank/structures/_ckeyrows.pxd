# cython: language_level=3
"""C declarations of `KeyRows` (`streamrank.structures._ckeyrows`), cimported by
`streamrank.structures._cbinary`, whose `CounterCore` reads the rows' arrays directly."""

cimport cython
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t


cdef struct Slot:          # a slot of the table: a row and its key's hash (low 32 bits),
    int32_t row            # read before the row (no cache miss on a row of another key)
    uint32_t h


@cython.final
cdef class KeyRows:
    cdef int64_t* _key       # per row: its int64 key (ROW_INT, ROW_INTOBJ)
    cdef double* _y
    cdef double* _s
    cdef double* _w          # NULL while every weight stored is 1
    cdef char* _kind         # per row: ROW_*
    cdef Slot* _table        # rows (EMPTY) and hashes, _mask + 1 of them
    cdef uint64_t _mask
    cdef Py_ssize_t _cap, _top, _n, _nint
    cdef dict _dict          # other keys -> row
    cdef dict _orig          # row -> the key object (ROW_INTOBJ, ROW_OBJ)

    cdef int _grow_rows(self, Py_ssize_t cap) except -1
    cdef int _set_table(self, Py_ssize_t size) except -1
    cdef int _weights(self) except -1
    cdef int reserve(self, Py_ssize_t k) except -1
    cdef void _pack(self) except *
    cdef inline Py_ssize_t _tfind(self, int64_t v) noexcept
    cdef inline void _tput(self, Py_ssize_t r) noexcept
    cdef void _tdel(self, Py_ssize_t r) noexcept
    cdef inline Py_ssize_t find(self, object key) except -2
    cdef Py_ssize_t add(self, object key, double y, double s, double w) except -1
    cdef void drop(self, Py_ssize_t r) except *
    cdef inline void set(self, Py_ssize_t r, double y, double s, double w) except *
    cdef inline double weight(self, Py_ssize_t r) noexcept
    cdef object key(self, Py_ssize_t r)
    cdef object order(self)
    cdef tuple _cols(self, rows)
