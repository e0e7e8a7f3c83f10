# cython: language_level=3
"""C declarations of `SlotStore` and two helpers, shared with `streamrank.structures._cwindow`
(whose `RowWindow` reads and writes the rows directly)."""

from libc.stdint cimport int64_t
from libc.stdlib cimport realloc


cdef inline void* _resized(void* p, size_t size) except NULL:
    """``realloc``, or `MemoryError` (``p`` is then still valid, and still owned)."""
    cdef void* q = realloc(p, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef inline object _weight(double w):
    """A stored weight as `check_weight` returns it: an int when integral up to 2**53."""
    if w <= 9007199254740992.0 and w == <double>(<int64_t>w):
        return <int64_t>w
    return w


cdef class SlotStore:
    cdef dict _slot
    cdef list _keyof          # row -> its key (None: a row without a key, or free)
    cdef double* _t
    cdef double* _y
    cdef double* _s
    cdef double* _w
    cdef int64_t* _free
    cdef Py_ssize_t _cap, _top, _nfree

    cdef int _grow(self, Py_ssize_t cap) except -1
    cdef Py_ssize_t _new_row(self, key) except -1
    cdef void _release(self, Py_ssize_t i) noexcept
    cdef Py_ssize_t _put(self, key, double t, double y, double s, double w) except -1
    cdef void _drop(self, Py_ssize_t i) except *
    cdef object _col(self, double* p)
    cpdef void put(self, key, double y, double s, double w, double t=*) except *
    cpdef tuple get(self, key)
    cpdef void set(self, key, double y, double s, double w) except *
    cpdef tuple pop(self, key)
    cpdef Py_ssize_t row_of(self, key)
    cpdef tuple value(self, Py_ssize_t i)
