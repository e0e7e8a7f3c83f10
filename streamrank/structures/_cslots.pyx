# cython: language_level=3, boundscheck=False, wraparound=False
"""`SlotStore`: the row store of the incremental layer.

Rows of ``(time, label, score, weight)`` in C arrays of float64, optionally keyed (a dict
maps each key to its row); freed rows are reused. It is the item store of `PairCounter`
(keyed rows), of `Monitor` (keyed rows; a NaN label is a prediction still waiting for its
label, a NaN time an event without one) and of the windows (rows without a key; see
`streamrank.structures._cwindow.RowWindow`, which reads and writes the rows directly).
Single changes cost one dict operation and a few array writes; batches read and write rows
as numpy arrays. Weights are stored as float64 and read back as `check_weight` gives them
(an int when integral up to ``2**53``).
"""

from libc.stdint cimport int64_t
from libc.stdlib cimport free

import numpy as np

from .._validation import param_error

cdef double NAN = float("nan")


cdef class SlotStore:
    """Rows of ``(time, label, score, weight)``, keyed or not.

    Runtime complexity: `put`, `get`, `pop`, `set`, `row_of`, `value` ``O(1)``; `rows`,
    `columns`, `set_rows`, `put_many` ``O(k)`` for ``k`` keys, in C and numpy.

    >>> st = SlotStore(); st.put("a", 1, 0.5, 2); st.put("b", 0, 0.25, 1)
    >>> st.get("a"), len(st), "b" in st
    ((1.0, 0.5, 2.0), 2, True)
    >>> st.pop("a"), list(st)
    ((1.0, 0.5, 2.0), ['b'])
    >>> st.value(st.row_of("b"))      # (time, label, score, weight); no time: NaN
    (nan, 0.0, 0.25, 1)
    """

    def __cinit__(self):
        self._slot = {}
        self._keyof = []
        self._t = self._y = self._s = self._w = NULL
        self._free = NULL
        self._cap = self._top = self._nfree = 0
        self._grow(16)

    def __dealloc__(self):
        free(self._t)
        free(self._y)
        free(self._s)
        free(self._w)
        free(self._free)

    cdef int _grow(self, Py_ssize_t cap) except -1:
        self._t = <double*>_resized(self._t, cap * sizeof(double))
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

    cdef Py_ssize_t _new_row(self, key) except -1:
        cdef Py_ssize_t i
        if self._nfree:
            self._nfree -= 1
            i = self._free[self._nfree]
            self._keyof[i] = key
            return i
        if self._top == self._cap:
            self._grow(2 * self._cap)
        self._keyof.append(key)
        self._top += 1
        return self._top - 1

    cdef void _release(self, Py_ssize_t i) noexcept:
        self._keyof[i] = None
        self._free[self._nfree] = i
        self._nfree += 1

    cdef Py_ssize_t _put(self, key, double t, double y, double s, double w) except -1:
        """A new row (keyed unless ``key`` is None; the caller checked the key is new)."""
        cdef Py_ssize_t i = self._new_row(key)
        self._t[i] = t
        self._y[i] = y
        self._s[i] = s
        self._w[i] = w
        if key is not None:
            self._slot[key] = i
        return i

    cdef void _drop(self, Py_ssize_t i) except *:
        """Free row ``i`` (and its key)."""
        key = self._keyof[i]
        if key is not None:
            del self._slot[key]
        self._release(i)

    cpdef void put(self, key, double y, double s, double w, double t=NAN) except *:
        """Store a new key (the caller checked that it is not held)."""
        cdef Py_ssize_t i = self._new_row(key)
        self._t[i] = t
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
        self._release(i)
        return self._y[i], self._s[i], self._w[i]

    cpdef Py_ssize_t row_of(self, key):
        """The row of ``key``, or -1 if it is not held. O(1)."""
        i = self._slot.get(key)
        return -1 if i is None else <Py_ssize_t>i

    cpdef tuple value(self, Py_ssize_t i):
        """``(time, label, score, weight)`` of row ``i`` (the weight as `check_weight`
        gives it)."""
        return self._t[i], self._y[i], self._s[i], _weight(self._w[i])

    def key_of(self, Py_ssize_t i):
        """The key of row ``i`` (None for a row without one)."""
        return self._keyof[i]

    def clear(self):
        """Remove every row. O(n) (the key list is emptied)."""
        self._slot.clear()
        self._keyof = []
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

    cdef object _col(self, double* p):
        return np.asarray(<double[:self._top]>p) if self._top else np.empty(0)

    def columns(self, rows=None):
        """``(y, s, w)``: float64 arrays (copies) of ``rows`` (default: every key held,
        in insertion order)."""
        r = self.all_rows() if rows is None else np.asarray(rows, dtype=np.int64)
        return self._col(self._y)[r], self._col(self._s)[r], self._col(self._w)[r]

    def times(self, rows):
        """The times of ``rows`` (a float64 array; NaN: no time)."""
        return self._col(self._t)[np.asarray(rows, dtype=np.int64)]

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
            key = keys[j]
            i = self._new_row(key)
            self._t[i] = NAN
            self._y[i] = yv[j]
            self._s[i] = sv[j]
            self._w[i] = wv[j]
            slot[key] = i

    def pop_many(self, keys):
        """Remove held keys (checked by the caller)."""
        slot = self._slot
        for key in keys:
            self._release(slot.pop(key))

    def items(self):
        """Iterate over ``(key, (label, score, weight))``."""
        for key, i in self._slot.items():
            yield key, (self._y[<Py_ssize_t>i], self._s[<Py_ssize_t>i],
                        self._w[<Py_ssize_t>i])

    def _check(self, keyless=()):
        """Rows are distinct, in use, and no free row is in use; ``keyless``: the rows
        without a key in use (a window's). O(n)."""
        used = set(self._slot.values())
        assert len(used) == len(self._slot), "two keys on one row"
        for key, i in self._slot.items():
            assert self._keyof[i] is key or self._keyof[i] == key, "a row lost its key"
        extra = set(keyless)
        assert len(extra) == len(keyless) and not used & extra, "a row used twice"
        assert all(self._keyof[i] is None for i in extra)
        used |= extra
        free_rows = {self._free[j] for j in range(self._nfree)}
        assert len(free_rows) == self._nfree, "a row freed twice"
        assert not used & free_rows, "a used row is free"
        assert all(0 <= i < self._top for i in used | free_rows)
        assert len(used) + self._nfree == self._top, "a row lost"
        assert len(self._keyof) == self._top
