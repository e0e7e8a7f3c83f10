# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""`KeyRows`: the keyed rows of `PairCounter`, a key -> row map with the rows' (label, score,
weight) in C arrays. `CounterCore` (`streamrank.structures._ccounter`) cimports it
(`_ckeyrows.pxd`) and reads the rows' arrays directly.

Layout. Rows are appended in insertion order (a removed row becomes a hole; when the
arrays are full and half of them are holes, the rows are packed, in order, instead of
grown), so iterating the rows is the insertion order a dict keeps. A key that is an int
of int64 (or a number equal to one: True, 2.0, numpy ints) goes to an open-addressing
table (linear probing, backward-shift deletion, at most half full) of slots holding
the row and the low 32 bits of the key's hash, its int64 in the row; any other key
(str, an int past int64, 0.5, a tuple) goes to a dict. A key object that is not a
plain int is kept in `_orig` (row -> the key as given), so iteration gives back the
key objects a dict would. Weights are an array only once one is not 1 (`_w` NULL
until then).

The table's hash (`_hash`) is a block's start plus an offset: the key's bits above the
low BLOCK_BITS mixed (splitmix64's finalizer) give the start, the low BLOCK_BITS bits
are added to it. The 8 keys of an aligned block of consecutive ints land in 8
consecutive slots (64 bytes: one cache line, two when the block straddles lines), as
Python's dict keeps small ints, so sequential and clustered keys touch one or two
cache lines per 8 keys; keys that agree in their low bits (multiples of the table
size, keys differing only in high bits, negative keys) have unrelated starts and
spread as random keys do, so their runs of occupied slots are no longer than random
keys' (an aligned start, the start's low bits replaced by the key's, would confine
such keys to one slot in 8). Probing stays linear, which backward-shift deletion needs
(Python's perturbed probing needs tombstones). The stored hash answers most probes
without reading a row of another key, and gives each slot's home for the backward
shift: 4 B a slot of the 8; without it random keys measured 1.3 - 1.6x slower per
change at 10**6.
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset
from cpython.long cimport PyLong_AsLongLongAndOverflow

from ._cnumeric cimport _grow_array

import numbers

import numpy as np

cdef enum:
    ROW_FREE = 0      # a hole
    ROW_INT = 1       # an int64 key in the table, the key a plain int
    ROW_INTOBJ = 2    # an int64 key in the table, the key object in _orig (True, 2.0)
    ROW_OBJ = 3       # a key in _dict, the key object in _orig
    EMPTY = -1
    BLOCK_BITS = 3    # the low bits of a key added to its block's start: blocks of 8


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    """splitmix64's finalizer (a bijection of 64-bit words)."""
    z = (z ^ (z >> 30)) * <uint64_t>0xbf58476d1ce4e5b9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94d049bb133111ebULL
    return z ^ (z >> 31)


cdef inline uint64_t _hash(int64_t v) noexcept nogil:
    """The table's hash of an int64 key: its block (every bit above the low BLOCK_BITS)
    mixed, plus its low BLOCK_BITS bits, so consecutive keys of a block get consecutive
    hashes and keys agreeing in their low bits unrelated ones."""
    cdef uint64_t z = <uint64_t>v
    return _mix(z >> BLOCK_BITS) + (z & ((<uint64_t>1 << BLOCK_BITS) - 1))


cdef inline bint _int64_key(object key, int64_t* out) except -1:
    """Whether ``key`` is (equal to) an int of int64, as ``out``; False for other keys."""
    cdef int overflow = 0
    cdef long long v
    if type(key) is int:
        v = PyLong_AsLongLongAndOverflow(key, &overflow)
        if overflow:
            return False
        out[0] = v
        return True
    if isinstance(key, (str, bytes, tuple)):
        return False
    if isinstance(key, numbers.Number):      # True, 2.0, numpy ints: equal to an int
        try:
            as_int = int(key)
        except (TypeError, ValueError, OverflowError):
            return False
        if as_int == key:
            v = PyLong_AsLongLongAndOverflow(as_int, &overflow)
            if not overflow:
                out[0] = v
                return True
    return False


cdef class KeyRows:
    """Rows of ``(label, score, weight)`` under hashable keys, in insertion order.

    Runtime complexity: `put`, `get`, `pop`, `row` ``O(1)`` (expected; packing the rows
    is ``O(n)`` once the arrays filled up, amortized ``O(1)``); iteration ``O(n)``. A key
    held is found under any key equal to it (``1``, ``True`` and ``1.0`` are one key, as
    in a dict) and given back as first given.

    >>> kr = KeyRows(); kr.put("a", 1, 0.5, 2); kr.put(7, 0, 0.25, 1); kr.put(True, 1, 0.0, 1)
    >>> kr.get(7), len(kr), 1.0 in kr, list(kr)
    ((0.0, 0.25, 1.0), 3, True, ['a', 7, True])
    >>> kr.pop("a"), list(kr)
    ((1.0, 0.5, 2.0), [7, True])
    """

    # The fields and C methods: `_ckeyrows.pxd`.

    def __cinit__(self):
        self._key = NULL
        self._y = self._s = self._w = NULL
        self._kind = NULL
        self._table = NULL
        self._cap = self._top = self._n = self._nint = 0
        self._dict = {}
        self._orig = {}
        self._grow_rows(16)
        self._set_table(32)

    def __dealloc__(self):
        free(self._key)
        free(self._y)
        free(self._s)
        free(self._w)
        free(self._kind)
        free(self._table)

    # ------------------------------------------------------------------ storage
    cdef int _grow_rows(self, Py_ssize_t cap) except -1:
        _grow_array(<void**>&self._key, cap * sizeof(int64_t))
        _grow_array(<void**>&self._y, cap * sizeof(double))
        _grow_array(<void**>&self._s, cap * sizeof(double))
        _grow_array(<void**>&self._kind, cap * sizeof(char))
        if self._w != NULL:
            _grow_array(<void**>&self._w, cap * sizeof(double))
        self._cap = cap
        return 0

    cdef int _set_table(self, Py_ssize_t size) except -1:
        """A table of ``size`` (a power of two) slots holding every int64 row."""
        cdef Slot* t = <Slot*>malloc(size * sizeof(Slot))
        cdef Py_ssize_t r
        if t == NULL:
            raise MemoryError()
        free(self._table)
        self._table = t
        self._mask = <uint64_t>(size - 1)
        memset(t, 0xff, size * sizeof(Slot))        # every slot EMPTY (-1)
        for r in range(self._top):
            if self._kind[r] == ROW_INT or self._kind[r] == ROW_INTOBJ:
                self._tput(r)
        return 0

    cdef int _weights(self) except -1:
        """The weight array, all 1 so far, for a first weight that is not 1."""
        cdef Py_ssize_t r
        if self._w == NULL:
            self._w = <double*>malloc(self._cap * sizeof(double))
            if self._w == NULL:
                raise MemoryError()
            for r in range(self._cap):
                self._w[r] = 1.0
        return 0

    cdef int reserve(self, Py_ssize_t k) except -1:
        """Room for ``k`` more rows and keys: `put` then cannot fail."""
        cdef Py_ssize_t need = self._n + k, cap = self._cap, size = self._mask + 1
        while 2 * (self._nint + k) > size:
            size *= 2
        if size != self._mask + 1:
            self._set_table(size)
        if self._top + k <= self._cap:
            return 0
        if 2 * need <= self._cap:
            self._pack()
            return 0
        while cap < self._top + k:
            cap *= 2
        self._grow_rows(cap)
        return 0

    cdef void _pack(self) except *:
        """Close the holes, keeping the rows' order (the table and dicts renumbered)."""
        cdef Py_ssize_t r, j = 0
        orig = {}
        for r in range(self._top):
            if self._kind[r] == ROW_FREE:
                continue
            if self._kind[r] != ROW_INT:
                orig[j] = self._orig[r]
                if self._kind[r] == ROW_OBJ:
                    self._dict[orig[j]] = j
            self._key[j] = self._key[r]
            self._y[j] = self._y[r]
            self._s[j] = self._s[r]
            self._kind[j] = self._kind[r]
            if self._w != NULL:
                self._w[j] = self._w[r]
            j += 1
        self._orig = orig
        self._top = j
        self._set_table(self._mask + 1)

    # ------------------------------------------------------------------ the table
    cdef inline Py_ssize_t _tfind(self, int64_t v) noexcept:
        cdef uint64_t full = _hash(v), h = full & self._mask
        cdef uint32_t low = <uint32_t>full
        cdef int32_t r
        while True:
            r = self._table[h].row
            if r == EMPTY or (self._table[h].h == low and self._key[r] == v):
                return r
            h = (h + 1) & self._mask

    cdef inline void _tput(self, Py_ssize_t r) noexcept:
        cdef uint64_t full = _hash(self._key[r]), h = full & self._mask
        while self._table[h].row != EMPTY:
            h = (h + 1) & self._mask
        self._table[h].row = <int32_t>r
        self._table[h].h = <uint32_t>full

    cdef void _tdel(self, Py_ssize_t r) noexcept:
        """Take row ``r`` out of the table (backward shift: no tombstones)."""
        cdef uint64_t i = _hash(self._key[r]) & self._mask, j, h
        while self._table[i].row != r:
            i = (i + 1) & self._mask
        j = i
        while True:
            j = (j + 1) & self._mask
            if self._table[j].row == EMPTY:
                break
            h = self._table[j].h & self._mask      # its home slot (tables of <= 2**32)
            if (j > i and (h <= i or h > j)) or (j < i and h <= i and h > j):
                self._table[i] = self._table[j]
                i = j
        self._table[i].row = EMPTY

    # ------------------------------------------------------------------ rows
    cdef inline Py_ssize_t find(self, object key) except -2:
        """The row of ``key``, or -1 if it is not held."""
        cdef int64_t v
        if _int64_key(key, &v):
            return self._tfind(v)
        r = self._dict.get(key)
        return -1 if r is None else <Py_ssize_t>r

    cdef Py_ssize_t add(self, object key, double y, double s, double w) except -1:
        """A new row for a key not held (after `reserve`, nothing can fail)."""
        cdef int64_t v
        cdef Py_ssize_t r = self._top
        if w != 1.0:
            self._weights()
        self._top += 1
        self._n += 1
        self._y[r] = y
        self._s[r] = s
        if self._w != NULL:
            self._w[r] = w
        if _int64_key(key, &v):
            self._key[r] = v
            self._kind[r] = ROW_INT if type(key) is int else ROW_INTOBJ
            self._nint += 1
            self._tput(r)
        else:
            self._kind[r] = ROW_OBJ
            self._dict[key] = r
        if self._kind[r] != ROW_INT:
            self._orig[r] = key
        return r

    cdef void drop(self, Py_ssize_t r) except *:
        """Free row ``r`` (held)."""
        cdef char kind = self._kind[r]
        if kind == ROW_OBJ:
            del self._dict[self._orig[r]]
        else:
            self._tdel(r)
            self._nint -= 1
        if kind != ROW_INT:
            del self._orig[r]
        self._kind[r] = ROW_FREE
        self._n -= 1

    cdef inline void set(self, Py_ssize_t r, double y, double s, double w) except *:
        if w != 1.0:
            self._weights()
        self._y[r] = y
        self._s[r] = s
        if self._w != NULL:
            self._w[r] = w

    cdef inline double weight(self, Py_ssize_t r) noexcept:
        return 1.0 if self._w == NULL else self._w[r]

    cdef object key(self, Py_ssize_t r):
        return self._key[r] if self._kind[r] == ROW_INT else self._orig[r]

    cdef object order(self):
        """The rows held, in insertion order (an int64 array)."""
        out = np.empty(self._n, dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef Py_ssize_t r, j = 0
        for r in range(self._top):
            if self._kind[r] != ROW_FREE:
                o[j] = r
                j += 1
        return out

    cdef tuple _cols(self, rows):
        """``(y, s, w)`` of ``rows`` (an int64 array): float64 copies."""
        if not self._top:
            return np.empty(0), np.empty(0), np.empty(0)
        y = np.asarray(<double[:self._top]>self._y)[rows]
        s = np.asarray(<double[:self._top]>self._s)[rows]
        w = (np.ones(len(rows)) if self._w == NULL
             else np.asarray(<double[:self._top]>self._w)[rows])
        return y, s, w

    # ------------------------------------------------------------------ Python face
    def __len__(self):
        return self._n

    def __contains__(self, key):
        return self.find(key) >= 0

    def __iter__(self):
        return iter(self.keys())

    def keys(self):
        """The keys held, in insertion order."""
        cdef Py_ssize_t r
        return [self.key(r) for r in range(self._top) if self._kind[r] != ROW_FREE]

    def put(self, key, double y, double s, double w=1.0):
        """Store a key that is not held (`KeyError` if it is)."""
        if self.find(key) >= 0:
            raise KeyError(key)
        self.reserve(1)
        self.add(key, y, s, w)

    def columns(self):
        """``(y, s, w)`` of every key held, in insertion order: float64 arrays."""
        return self._cols(self.order())

    def get(self, key):
        """``(label, score, weight)`` of ``key``; `KeyError` if not held."""
        cdef Py_ssize_t r = self.find(key)
        if r < 0:
            raise KeyError(key)
        return self._y[r], self._s[r], self.weight(r)

    def pop(self, key):
        """Remove ``key`` and return its row; `KeyError` if not held."""
        got = self.get(key)
        self.drop(self.find(key))
        return got

    def _check(self):
        """The table holds exactly the int64 rows, each where a probe finds it; the dict
        exactly the other rows; `_orig` every row whose key is not a plain int; the
        table at most half full. O(n)."""
        cdef Py_ssize_t r, n = 0, nint = 0, size = self._mask + 1, h
        for r in range(self._top):
            kind = self._kind[r]
            if kind == ROW_FREE:
                assert r not in self._orig
                continue
            n += 1
            assert (r in self._orig) == (kind != ROW_INT), r
            if kind == ROW_OBJ:
                assert self._dict[self._orig[r]] == r
            else:
                nint += 1
                assert self._tfind(self._key[r]) == r, "an int64 key lost in the table"
        assert n == self._n and nint == self._nint and len(self._dict) == n - nint
        assert sum(self._table[h].row != EMPTY for h in range(size)) == nint
        assert all(self._table[h].h == <uint32_t>_hash(self._key[self._table[h].row])
                   for h in range(size) if self._table[h].row != EMPTY)
        assert 2 * nint <= size and self._top <= self._cap
        assert self._w == NULL or all(self._w[r] >= 0 for r in range(self._top))
