# cython: language_level=3, boundscheck=False, wraparound=False
"""`RowWindow`: the one sliding-window mechanism of the incremental layer.

A FIFO ring of the rows of a `SlotStore` (`streamrank.structures._cslots`) in arrival
order, with eviction from the old end (by count or by time), and the changes its
`PairEngine` has not seen yet. Rows are handed to the engine lazily: the newest rows (those
after the *synced* boundary) are not in the engine yet, and a row that arrives and leaves
between two reads never reaches it; removals of rows the engine holds and in-place changes
of such rows are queued as values (a removal cancels a queued addition of equal values, as
a revert does in `streamrank.structures._cmetric.MetricCore`).
`streamrank.structures._cpairwindow.sync` hands everything to the engine at a read, in C.
Every per-event operation (`push`, `push_keep`, `push_new`, `label_pending`, `evict`,
`change`) is one C call, ``O(1)`` amortized (`_take`: the step of the monitor's runs,
`streamrank.monitor._cruns`). `SlidingPairCounter`, `TimeSlidingPairCounter`,
`RollingROCAUC` and `Monitor` each hold one. Its per-label tallies (the class weights a
monitor tests with) are in ``_cwindow_tally.pxi``.
"""

from libc.stdint cimport int64_t
from libc.math cimport fabs
from libc.stdlib cimport free

import numpy as np

from ._cslots cimport SlotStore, _resized, _weight

cdef double NAN = float("nan")
cdef double MAX_EXACT = 2.0 ** 53

include "_cwindow_tally.pxi"

#: A window asks its owner to apply its changes once this many are waiting (as
#: `streamrank.metrics._base.MAX_PENDING`).
MAX_PENDING = 4096


cdef class RowWindow:
    """The rows of a `SlotStore` in arrival order (a FIFO ring), and the changes of the
    labeled rows that the owner's `PairEngine` has not received yet.

    A row with a NaN label is held in the window order but not counted (a pending
    prediction of `Monitor`). The engine is kept equal to the labeled rows by
    `streamrank.structures._cpairwindow.sync` (at a read, or when `push` / `change`
    return True: ``limit`` changes waiting, default `MAX_PENDING`). Rows newer than the
    *synced* boundary are not in the engine: evicting one costs the engine nothing,
    changing one is a store; `sync` adds them with their values then. Evicting or changing an older labeled row queues its old values for removal
    (cancelling a queued addition of equal values) and its new ones for addition.

    With ``every_row``, the window also logs the changes of every row's ``(s, w)``,
    pending rows included (`every_row_changes`), for estimates that need no label
    (`streamrank.structures._cpairwindow.sync`'s ``estimates``): evicting or changing the
    score or weight of a row older than the synced boundary queues them as values too.
    With ``probabilities``, `_take` declines a score outside [0, 1].

    Runtime complexity: `push`, `push_keep`, `change`, `evict` (per row) ``O(1)``
    amortized, in C; `count_through` ``O(1 + k)`` for ``k`` rows at or before the horizon;
    `revert` ``O(p)`` for the row's position
    from the old end; `columns`, `items` ``O(n)``.

    >>> win = RowWindow()
    >>> for y, s in [(1, 0.9), (0, 0.1), (1, 0.2)]:
    ...     _ = win.push_keep(y, s, 1.0, 2)    # hold the last 2 rows
    >>> len(win), win.items()
    (2, [(None, nan, 0.0, 0.1, 1), (None, nan, 1.0, 0.2, 1)])
    >>> win.waiting                           # (1, 0.9) came and left: never counted
    2
    """


    def __init__(self, Py_ssize_t limit=MAX_PENDING, bint tally=False, bint binary=False,
                 bint every_row=False, bint probabilities=False):
        self.limit = limit
        self.binary = binary
        self.every_row = every_row
        self.probabilities = probabilities
        self._nt = 0 if tally else -2
        self._classes = None

    def __cinit__(self, *args, **kwargs):
        self.store = SlotStore()
        self._ring = self._seq = NULL
        self._ring = <int64_t*>_resized(NULL, 16 * sizeof(int64_t))
        self._seq = <int64_t*>_resized(NULL, 16 * sizeof(int64_t))
        self._rcap = self._scap = 16
        self._head = self._tail = self._synced = 0
        self._nlab = self._nadds = self._nrem = 0
        self._ry = self._rs = self._rw = NULL
        self._remcap = 0
        self._grow_removes()
        self._adds = {}
        self._es = self._ew = NULL
        self._nerem = self._neadds = self._eremcap = 0
        self._eadds = {}

    def __dealloc__(self):
        free(self._ring)
        free(self._seq)
        free(self._ry)
        free(self._rs)
        free(self._rw)
        free(self._es)
        free(self._ew)

    cdef int _grow_removes(self) except -1:
        cdef Py_ssize_t cap = max(16, 2 * self._remcap)
        self._ry = <double*>_resized(self._ry, cap * sizeof(double))
        self._rs = <double*>_resized(self._rs, cap * sizeof(double))
        self._rw = <double*>_resized(self._rw, cap * sizeof(double))
        self._remcap = cap
        return 0

    def __len__(self):
        return self._tail - self._head

    @property
    def n_labeled(self):
        """Rows with a label (not NaN) in the window. O(1)."""
        return self._nlab

    @property
    def waiting(self):
        """Changes the engine has not received: rows after the synced boundary, queued
        removals and additions. O(1)."""
        return self._waiting()

    cdef Py_ssize_t _waiting(self):
        return (<Py_ssize_t>(self._tail - self._synced) + self._nrem + self._nadds
                + self._nerem + self._neadds)

    cdef Py_ssize_t _row_at(self, int64_t q):
        return self._ring[q & (self._rcap - 1)]

    cdef int _grow_ring(self) except -1:
        cdef Py_ssize_t cap = 2 * self._rcap
        cdef int64_t* ring = <int64_t*>_resized(NULL, cap * sizeof(int64_t))
        cdef int64_t q
        for q in range(self._head, self._tail):
            ring[q & (cap - 1)] = self._ring[q & (self._rcap - 1)]
        free(self._ring)
        self._ring = ring
        self._rcap = cap
        return 0

    cdef Py_ssize_t _push(self, key, double t, double y, double s, double w) except -1:
        cdef Py_ssize_t row = self.store._put(key, t, y, s, w)
        cdef Py_ssize_t cap
        if row >= self._scap:
            cap = 2 * self._scap
            while cap <= row:
                cap *= 2
            self._seq = <int64_t*>_resized(self._seq, cap * sizeof(int64_t))
            self._scap = cap
        if self._tail - self._head == self._rcap:
            self._grow_ring()
        self._ring[self._tail & (self._rcap - 1)] = row
        self._seq[row] = self._tail
        self._tail += 1
        if y == y:
            self._nlab += 1
            if self._nt != -2:
                _tally(self, y, w, 1)
        return row

    @property
    def classes(self):
        """With ``tally``: ``{label: [rows, weight sum]}`` of the labeled rows (a new
        dict, the sum an int while every weight is integral), else None. Settable (a
        recount). O(number of labels)."""
        return _tally_dict(self)

    @classes.setter
    def classes(self, value):
        _tally_set(self, value)

    @property
    def full(self):
        """True once ``limit`` changes are waiting (the owner should apply them)."""
        return self._waiting() >= self.limit

    def push_new(self, key, double y, double s, Py_ssize_t size):
        """A new keyed row ``(NaN, y, s, 1)`` unless ``key`` is held (then -1 and nothing
        changes), after evicting the oldest row if ``size`` are held: returns 0 (none
        evicted), 1 (a labeled row evicted) or 2 (a pending one); an evicted row's key is
        then `last_evicted`. The per-event path of `Monitor.observe` for a new
        prediction, in one C call (`_take`; ``s`` and ``y`` finite or ``y`` NaN)."""
        return self._take(key, s, y, size, True, None, None)

    def push(self, double t, double y, double s, double w, key=None):
        """Append a row ``(t, y, s, w)`` (keyed when ``key`` is not None: the caller
        checked that it is new); returns True once ``limit`` changes are waiting."""
        self._push(key, t, y, s, w)
        return self._waiting() >= self.limit

    def push_keep(self, double y, double s, double w, Py_ssize_t size, double t=NAN):
        """Append a row without a key and evict the oldest while more than ``size`` are
        held; returns True once ``limit`` changes are waiting."""
        self._push(None, t, y, s, w)
        while self._tail - self._head > size:
            self._evict_one(None)
        return self._waiting() >= self.limit

    cdef int _queue_remove(self, double y, double s, double w) except -1:
        cdef Py_ssize_t i
        n = None
        if self._nadds:
            item = (y, s, _weight(w))
            n = self._adds.get(item)
        if n is None:
            if self._nrem == self._remcap:
                self._grow_removes()
            i = self._nrem
            self._ry[i] = y
            self._rs[i] = s
            self._rw[i] = w
            self._nrem = i + 1
        else:
            if n == 1:
                del self._adds[item]
            else:
                self._adds[item] = n - 1
            self._nadds -= 1
        return 0

    cdef int _queue_add(self, double y, double s, double w) except -1:
        item = (y, s, _weight(w))
        self._adds[item] = self._adds.get(item, 0) + 1
        self._nadds += 1
        return 0

    cdef int _equeue_remove(self, double s, double w) except -1:
        """Queue the removal of a synced row's ``(s, w)`` from the every-row log
        (cancelling a queued addition of equal values)."""
        cdef Py_ssize_t cap
        n = None
        if self._neadds:
            item = (s, w)
            n = self._eadds.get(item)
        if n is None:
            if self._nerem == self._eremcap:
                cap = max(16, 2 * self._eremcap)
                self._es = <double*>_resized(self._es, cap * sizeof(double))
                self._ew = <double*>_resized(self._ew, cap * sizeof(double))
                self._eremcap = cap
            self._es[self._nerem] = s
            self._ew[self._nerem] = w
            self._nerem += 1
        else:
            if n == 1:
                del self._eadds[item]
            else:
                self._eadds[item] = n - 1
            self._neadds -= 1
        return 0

    cdef int _equeue_add(self, double s, double w) except -1:
        item = (s, w)
        self._eadds[item] = self._eadds.get(item, 0) + 1
        self._neadds += 1
        return 0

    def every_row_changes(self):
        """With ``every_row``: ``(removes, adds, new)``, the changes of every row's
        ``(s, w)`` an estimate has not received: lists of ``(s, w)`` (queued removals,
        queued additions with repeats, the rows after the synced boundary), pending rows
        included. O(changes)."""
        cdef Py_ssize_t i, row
        cdef int64_t q
        cdef SlotStore st = self.store
        removes = [(self._es[i], self._ew[i]) for i in range(self._nerem)]
        adds = [item for item, n in self._eadds.items() for _ in range(n)]
        new = [(st._s[row], st._w[row])
               for row in [self._row_at(q) for q in range(self._synced, self._tail)]]
        return removes, adds, new

    cdef int _evict_one(self, list out) except -1:
        cdef int64_t q = self._head
        cdef Py_ssize_t row = self._ring[q & (self._rcap - 1)]
        cdef SlotStore st = self.store
        cdef double y = st._y[row]
        self._head = q + 1
        if q < self._synced:
            if y == y:
                self._queue_remove(y, st._s[row], st._w[row])
            if self.every_row:
                self._equeue_remove(st._s[row], st._w[row])
        else:
            self._synced = q + 1        # it came and left: the engine never saw it
        if y == y:
            self._nlab -= 1
            if self._nt != -2:
                _tally(self, y, st._w[row], -1)
        if out is not None:
            out.append((st._keyof[row], y, st._s[row], _weight(st._w[row])))
        st._drop(row)
        return 0

    def evict(self, Py_ssize_t k, bint collect=False):
        """Drop the ``k`` oldest rows (at most all); with ``collect``, return their
        ``(key, label, score, weight)`` (label NaN when pending), oldest first."""
        out = [] if collect else None
        cdef Py_ssize_t j
        for j in range(min(k, <Py_ssize_t>(self._tail - self._head))):
            self._evict_one(out)
        return out

    def count_through(self, double horizon):
        """How many of the oldest rows have a time ``<= horizon`` (times do not
        decrease along the window). O(1 + that many)."""
        cdef int64_t q = self._head
        cdef double* t = self.store._t
        while q < self._tail and t[self._row_at(q)] <= horizon:
            q += 1
        return q - self._head

    def label_pending(self, key, double y):
        """Give held, pending row ``key`` the label ``y``: True; False (nothing changes)
        if ``key`` is not held or already labeled, or ``y`` is not finite. The per-event
        path of a late label in `Monitor.observe`, in one C call."""
        return self._take(key, NAN, y, 0, False, None, None) == TAKE_LATE

    cdef int _take(self, key, double s, double y, Py_ssize_t size, bint evict,
                   list evicted, dict avoid) except -2:
        """One event of a monitor's run (`streamrank.monitor._cruns`; ``key`` not None
        nor NaN; `TypeError` if it is unhashable): `TAKE_NONE` (declined, nothing
        changed), `TAKE_NEW` (a new prediction; `TAKE_EVICT_LABELED` /
        `TAKE_EVICT_PENDING`: it evicted the oldest row, labeled / pending, whose key is
        `last_evicted` and appended to ``evicted`` unless None; declined instead when
        ``size`` are held and not ``evict``; a label a `binary` window may not hold:
        declined) or `TAKE_LATE` (a late label)."""
        cdef SlotStore st = self.store
        cdef Py_ssize_t row
        cdef double oy
        cdef int out = TAKE_NEW
        at = st._slot.get(key)
        if y == y and (y - y != 0.0 or self.binary and not _tally_binary_ok(self, y)):
            return TAKE_NONE                # an infinite label, or a third one
        if s == s:                          # a new prediction
            if s - s != 0.0 or at is not None or (avoid and key in avoid):
                return TAKE_NONE
            if self.probabilities and not 0.0 <= s <= 1.0:  # (an estimate's)
                return TAKE_NONE
            if self._tail - self._head >= size:
                if not evict:
                    return TAKE_NONE
                row = self._row_at(self._head)
                oy = st._y[row]
                out = TAKE_EVICT_PENDING if oy != oy else TAKE_EVICT_LABELED
                self.last_evicted = st._keyof[row]
                if evicted is not None:
                    evicted.append(self.last_evicted)
                self._evict_one(None)
            self._push(key, NAN, y, s, 1.0)
            return out
        if y != y or at is None:            # a late label: for a held, pending row
            return TAKE_NONE
        row = at
        if st._y[row] == st._y[row]:
            return TAKE_NONE
        self._change(row, y, st._s[row], st._w[row])
        return TAKE_LATE

    def oldest_labels(self, Py_ssize_t k):
        """The labels of the ``k`` oldest rows (NaN when pending), oldest first."""
        cdef int64_t q
        cdef double* y = self.store._y
        return [y[self._row_at(q)]
                for q in range(self._head, self._head + min(k, self._tail - self._head))]

    def change(self, Py_ssize_t row, double y, double s, double w):
        """Overwrite held row ``row`` with ``(y, s, w)`` (NaN label: pending); the engine
        follows at the next sync. Returns True once ``limit`` changes are waiting."""
        self._change(row, y, s, w)
        return self._waiting() >= self.limit

    cdef int _change(self, Py_ssize_t row, double y, double s, double w) except -1:
        cdef SlotStore st = self.store
        cdef double oy = st._y[row]
        cdef double ow = st._w[row]
        if self._nt != -2 and (oy != y or ow != w):
            if oy == oy:
                _tally(self, oy, ow, -1)
            if y == y:
                _tally(self, y, w, 1)
        if self._seq[row] < self._synced:
            if oy == oy:
                self._queue_remove(oy, st._s[row], st._w[row])
            if y == y:
                self._queue_add(y, s, w)
            if self.every_row and (s != st._s[row] or w != ow):
                self._equeue_remove(st._s[row], ow)
                self._equeue_add(s, w)
        self._nlab += (y == y) - (oy == oy)
        st._y[row] = y
        st._s[row] = s
        st._w[row] = w
        return 0

    cdef list _removes_list(self):
        cdef Py_ssize_t i
        return [(self._ry[i], self._rs[i], _weight(self._rw[i])) for i in range(self._nrem)]

    def mark_synced(self):
        """Drop every waiting change: the owner recounted its engine from `columns`."""
        self._drop_waiting()

    cdef int _drop_waiting(self) except -1:
        """Every change waiting is in the engine (or dropped): the window is synced."""
        self._synced = self._tail
        self._nrem = self._nerem = 0
        if self._nadds or self._adds:
            self._adds, self._nadds = {}, 0
        if self._neadds or self._eadds:
            self._eadds, self._neadds = {}, 0
        return 0

    def clear(self):
        """Drop every row and change. O(n)."""
        self.store.clear()
        self._head = self._tail = self._synced = 0
        self._nlab = 0
        if self._nt != -2:
            self._nt = 0
            self._classes = None
        self._drop_waiting()

    def rows(self):
        """The rows held, oldest first."""
        cdef int64_t q
        return [self._row_at(q) for q in range(self._head, self._tail)]

    def columns(self, bint labeled=True):
        """``(y, s, w)`` float64 arrays of the rows held, oldest first (with
        ``labeled``, only those with a label). O(n), one C loop."""
        cdef int64_t q
        cdef Py_ssize_t row, j = 0
        cdef Py_ssize_t n = self._nlab if labeled else <Py_ssize_t>(self._tail - self._head)
        cdef SlotStore st = self.store
        cdef double[::1] y = np.empty(n), s = np.empty(n), w = np.empty(n)
        for q in range(self._head, self._tail):
            row = self._row_at(q)
            if labeled and not st._y[row] == st._y[row]:
                continue
            y[j], s[j], w[j] = st._y[row], st._s[row], st._w[row]
            j += 1
        return np.asarray(y), np.asarray(s), np.asarray(w)

    def items(self):
        """``(key, time, label, score, weight)`` of every row, oldest first (NaN: no
        time, or no label yet; the weight as `check_weight` gives it)."""
        cdef int64_t q
        cdef Py_ssize_t row
        cdef SlotStore st = self.store
        out = []
        for q in range(self._head, self._tail):
            row = self._row_at(q)
            out.append((st._keyof[row], st._t[row], st._y[row], st._s[row],
                        _weight(st._w[row])))
        return out

    def revert(self, double y, double s, double w):
        """Remove the oldest labeled row equal to ``(y, s, w)``; False (nothing
        changes) if none is held."""
        cdef int64_t q, j
        cdef Py_ssize_t row = -1
        cdef SlotStore st = self.store
        for q in range(self._head, self._tail):
            row = self._row_at(q)
            if st._y[row] == y and st._s[row] == s and st._w[row] == w:
                break
        else:
            return False
        if q < self._synced:
            self._queue_remove(y, s, w)
            if self.every_row:
                self._equeue_remove(s, w)
        else:
            self._synced += 1           # the older rows all move up by one
        for j in range(q, self._head, -1):  # close the gap: the older rows move up
            self._ring[j & (self._rcap - 1)] = self._ring[(j - 1) & (self._rcap - 1)]
            self._seq[self._ring[j & (self._rcap - 1)]] = j
        self._head += 1
        self._nlab -= 1
        if self._nt != -2:
            _tally(self, y, w, -1)
        st._drop(row)
        return True

    def __reduce__(self):
        items = self.items()
        cdef Py_ssize_t i
        every = None if not self.every_row else (
            [(self._es[i], self._ew[i]) for i in range(self._nerem)], dict(self._eadds))
        return (_restored_window, (items, int(self._tail - self._synced),
                                   self._removes_list(), dict(self._adds), self.limit,
                                   self._nt != -2, self.binary, every,
                                   self.probabilities))

    def _check(self):
        """The ring, the arrival numbers, the label count and the store agree. O(n)."""
        cdef int64_t q
        rows = self.rows()
        assert self._head <= self._synced <= self._tail
        assert len(set(rows)) == len(rows)
        for q in range(self._head, self._tail):
            assert self._seq[self._row_at(q)] == q
        assert self._nlab == sum(1 for r in rows if self.store._y[r] == self.store._y[r])
        assert self._nadds == sum(self._adds.values())
        assert self._neadds == sum(self._eadds.values())
        assert self.every_row or not (self._nerem or self._neadds)
        if self.classes is not None:
            tally = {}
            for r in rows:
                if self.store._y[r] == self.store._y[r]:
                    c = tally.setdefault(self.store._y[r], [0, 0])
                    c[0] += 1
                    c[1] += self.store._w[r]
            assert {y: c[0] for y, c in tally.items()} == {
                y: c[0] for y, c in self.classes.items()}
            total = sum(c[1] for c in tally.values())
            for y, c in tally.items():
                assert abs(c[1] - self.classes[y][1]) <= 1e-9 * max(total, abs(c[1])), \
                    (y, c, self.classes[y])
        self.store._check([r for r in rows if self.store._keyof[r] is None])
        assert len(self.store) == sum(1 for r in rows if self.store._keyof[r] is not None)


def _restored_window(items, unsynced, removes, adds, limit=MAX_PENDING, tally=False,
                     binary=False, every=None, probabilities=False):
    """A `RowWindow` from `RowWindow.__reduce__` (``every``: the every-row log)."""
    cdef RowWindow win = RowWindow(limit, tally, binary, every is not None, probabilities)
    for key, t, y, s, w in items:
        win._push(key, t, y, s, w)
    win._synced = win._tail - unsynced
    for y, s, w in removes:
        win._queue_remove(y, s, w)
    win._adds = adds
    win._nadds = sum(adds.values())
    if every is not None:
        for s, w in every[0]:
            win._equeue_remove(s, w)
        win._eadds = every[1]
        win._neadds = sum(every[1].values())
    return win
