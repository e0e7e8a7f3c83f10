# cython: language_level=3, boundscheck=False, wraparound=False
"""`SlotStore`: keyed rows of ``(label, score, weight)``, the item store of `PairCounter`.

A dict maps each key to a row of three C arrays of float64; freed rows are reused. Single
changes cost one dict operation and three array writes; batches read and write rows as
numpy arrays, so a batch of ``k`` keys costs ``k`` dict lookups and vectorized copies.
Weights are stored as float64: integer weights up to ``2**53`` (the exact ones) are held
exactly.
"""

from libc.stdint cimport int64_t
from libc.stdlib cimport realloc, free

import numpy as np

from .._validation import param_error


cdef void* _resized(void* p, size_t size) except NULL:
    """``realloc``, or `MemoryError` (``p`` is then still valid, and still owned)."""
    cdef void* q = realloc(p, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef class SlotStore:
    """Keyed ``(label, score, weight)`` rows.

    Runtime complexity: `put`, `get`, `pop`, `set` ``O(1)``; `rows`, `columns`,
    `set_rows`, `put_many` ``O(k)`` for ``k`` keys, in C and numpy.

    >>> st = SlotStore(); st.put("a", 1, 0.5, 2); st.put("b", 0, 0.25, 1)
    >>> st.get("a"), len(st), "b" in st
    ((1.0, 0.5, 2.0), 2, True)
    >>> st.pop("a"), list(st)
    ((1.0, 0.5, 2.0), ['b'])
    """

    cdef dict _slot
    cdef double* _y
    cdef double* _s
    cdef double* _w
    cdef int64_t* _free
    cdef Py_ssize_t _cap, _top, _nfree

    def __cinit__(self):
        self._slot = {}
        self._y = self._s = self._w = NULL
        self._free = NULL
        self._cap = self._top = self._nfree = 0
        self._grow(16)

    def __dealloc__(self):
        free(self._y)
        free(self._s)
        free(self._w)
        free(self._free)

    cdef int _grow(self, Py_ssize_t cap) except -1:
        self._y = <double*>_resized(self._y, cap * sizeof(double))
        self._s = <double*>_resized(self._s, cap * sizeof(double))
        self._w = <double*>_resized(self._w, cap * sizeof(double))
        self._free = <int64_t*>_resized(self._free, cap * sizeof(int64_t))
        self._cap = cap
        return 0

    def __len__(self):
        return len(self._slot)

    def __contains__(self, key):
        return key in self._slot

    def __iter__(self):
        return iter(self._slot)

    cdef Py_ssize_t _new_row(self) except -1:
        if self._nfree:
            self._nfree -= 1
            return self._free[self._nfree]
        if self._top == self._cap:
            self._grow(2 * self._cap)
        self._top += 1
        return self._top - 1

    cpdef void put(self, key, double y, double s, double w) except *:
        """Store a new key (the caller checked that it is not held)."""
        cdef Py_ssize_t i = self._new_row()
        self._y[i] = y
        self._s[i] = s
        self._w[i] = w
        self._slot[key] = i

    cpdef tuple get(self, key):
        """``(label, score, weight)`` of ``key``; `KeyError` if not held."""
        cdef Py_ssize_t i = self._slot[key]
        return self._y[i], self._s[i], self._w[i]

    cpdef void set(self, key, double y, double s, double w) except *:
        """Overwrite the row of a held ``key``."""
        cdef Py_ssize_t i = self._slot[key]
        self._y[i] = y
        self._s[i] = s
        self._w[i] = w

    cpdef tuple pop(self, key):
        """Remove ``key`` and return its row; `KeyError` if not held."""
        cdef Py_ssize_t i = self._slot.pop(key)
        self._free[self._nfree] = i
        self._nfree += 1
        return self._y[i], self._s[i], self._w[i]

    def clear(self):
        """Remove every key. O(1)."""
        self._slot.clear()
        self._top = self._nfree = 0

    def keys(self):
        """The keys held, in insertion order."""
        return list(self._slot)

    def rows(self, keys, str func):
        """The rows of held, distinct ``keys`` (a list): `KeyError` naming the first
        missing key, `ValueError` for a key given twice, before anything else."""
        slot = self._slot
        try:
            rows = np.fromiter([slot[k] for k in keys], dtype=np.int64, count=len(keys))
        except KeyError:
            missing = [k for k in keys if k not in slot]
            raise KeyError(f"{func}: key {missing[0]!r} is not held ({len(missing)} "
                           "unknown keys).") from None
        if np.unique(rows).size != rows.size:
            raise param_error("keys", func, "distinct keys", "a key given twice")
        return rows

    def all_rows(self):
        """The rows of every key held, in insertion order."""
        return np.fromiter(self._slot.values(), dtype=np.int64, count=len(self._slot))

    def columns(self, rows=None):
        """``(y, s, w)``: float64 arrays (copies) of ``rows`` (default: every key held,
        in insertion order)."""
        r = self.all_rows() if rows is None else np.asarray(rows, dtype=np.int64)
        return (np.asarray(<double[:self._top]>self._y if self._top else np.empty(0))[r],
                np.asarray(<double[:self._top]>self._s if self._top else np.empty(0))[r],
                np.asarray(<double[:self._top]>self._w if self._top else np.empty(0))[r])

    def set_rows(self, rows, y, s, w):
        """Overwrite ``rows`` with the float64 arrays ``y``, ``s``, ``w``."""
        if not self._top:
            return
        r = np.asarray(rows, dtype=np.int64)
        np.asarray(<double[:self._top]>self._y)[r] = y
        np.asarray(<double[:self._top]>self._s)[r] = s
        np.asarray(<double[:self._top]>self._w)[r] = w

    def put_many(self, keys, y, s, w):
        """Store new, distinct keys (checked by the caller) with float64 arrays."""
        cdef Py_ssize_t j, n = len(keys), i
        cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
        cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
        cdef double[::1] wv = np.ascontiguousarray(w, dtype=np.float64)
        slot = self._slot
        for j in range(n):
            i = self._new_row()
            self._y[i] = yv[j]
            self._s[i] = sv[j]
            self._w[i] = wv[j]
            slot[keys[j]] = i

    def pop_many(self, keys):
        """Remove held keys (checked by the caller)."""
        cdef Py_ssize_t i
        slot = self._slot
        for key in keys:
            i = slot.pop(key)
            self._free[self._nfree] = i
            self._nfree += 1

    def items(self):
        """Iterate over ``(key, (label, score, weight))``."""
        for key, i in self._slot.items():
            yield key, (self._y[<Py_ssize_t>i], self._s[<Py_ssize_t>i],
                        self._w[<Py_ssize_t>i])

    def _check(self):
        """Rows are distinct, in use, and no free row is in use. O(n)."""
        used = set(self._slot.values())
        assert len(used) == len(self._slot), "two keys on one row"
        free_rows = {self._free[j] for j in range(self._nfree)}
        assert len(free_rows) == self._nfree, "a row freed twice"
        assert not used & free_rows, "a used row is free"
        assert all(0 <= i < self._top for i in used | free_rows)
        assert len(used) + self._nfree == self._top, "a row lost"
