# cython: language_level=3
"""C declarations of `RowWindow`, shared with `streamrank.structures._cpairwindow` (whose
windows own a `RowWindow` and hand its changes to their engine in C)."""

from libc.stdint cimport int64_t

from ._cslots cimport SlotStore

cdef enum:
    _NT = 8         # per-label tallies held in C arrays

cdef enum:          # what `RowWindow._take` did with an event (`push_new` returns it)
    TAKE_NONE = -1
    TAKE_NEW = 0
    TAKE_EVICT_LABELED = 1
    TAKE_EVICT_PENDING = 2
    TAKE_LATE = 3


cdef class RowWindow:
    cdef readonly SlotStore store
    cdef int64_t* _ring       # rows by arrival number q, at q & (_rcap - 1)
    cdef int64_t* _seq        # row -> its arrival number
    cdef Py_ssize_t _rcap, _scap
    cdef int64_t _head, _tail, _synced
    cdef Py_ssize_t _nlab, _nadds, _nrem, _remcap
    cdef double* _ry          # values held by the engine, to remove
    cdef double* _rs
    cdef double* _rw
    cdef dict _adds           # (y, s, w) -> copies to add (changed rows)
    # With every_row: the same log of every row's (s, w), pending rows too (the window's
    # predictions for an estimate that needs no label): removals, and (s, w) -> copies
    # to add; the rows after _synced are the additions of both logs.
    cdef readonly bint every_row
    cdef readonly bint probabilities   # `_take` declines a score outside [0, 1]
    cdef Py_ssize_t _nerem, _neadds, _eremcap
    cdef double* _es
    cdef double* _ew
    cdef dict _eadds
    cdef public Py_ssize_t limit   # changes waiting before push / change return True
    cdef public bint binary        # (with tally) `_take` declines a third label
    # Per-label tallies of the labeled rows (with tally): up to _NT labels in C arrays,
    # the count and the weight sum (an exact int64 while every weight is integral, else
    # a double with its Neumaier compensation in _tk); more labels, or an int sum past
    # int64, move them to the dict _classes of Python numbers for good. _nt: labels in
    # the arrays; -1: in the dict; -2: no tally.
    cdef int _nt
    cdef double _tl[_NT]
    cdef int64_t _tc[_NT]
    cdef int64_t _ti[_NT]
    cdef double _tf[_NT]
    cdef double _tk[_NT]      # the Neumaier compensation of _tf (a weight of 1e18 that
                              # came and went next to weight 1 leaves the 1 in it)
    cdef bint _tflt[_NT]
    cdef dict _classes
    cdef readonly object last_evicted   # the key of the row `push_new` last evicted

    cdef int _grow_removes(self) except -1
    cdef Py_ssize_t _waiting(self)
    cdef Py_ssize_t _row_at(self, int64_t q)
    cdef int _grow_ring(self) except -1
    cdef Py_ssize_t _push(self, key, double t, double y, double s, double w) except -1
    cdef int _queue_remove(self, double y, double s, double w) except -1
    cdef int _queue_add(self, double y, double s, double w) except -1
    cdef int _equeue_remove(self, double s, double w) except -1
    cdef int _equeue_add(self, double s, double w) except -1
    cdef int _evict_one(self, list out) except -1
    cdef int _change(self, Py_ssize_t row, double y, double s, double w) except -1
    cdef int _take(self, key, double s, double y, Py_ssize_t size, bint evict,
                   list evicted, dict avoid) except -2
    cdef list _removes_list(self)
    cdef int _drop_waiting(self) except -1
