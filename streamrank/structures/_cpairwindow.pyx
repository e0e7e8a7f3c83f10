# cython: language_level=3, boundscheck=False, wraparound=False
"""`WindowCore`: a sliding window that is its ring and its engine in one compiled owner.

A window holds a `RowWindow` (the FIFO ring of its rows, `streamrank.structures._cwindow`)
and the `PairEngine` of its labeled rows. Every per-event call (`SlidingCore.push`,
`TimeCore.push`, `RollingCore.update` / `revert` / `get`) is one call into this module,
validation included: plain numbers are read in C, anything else goes through the package's
validators (`streamrank._validation`) first, so a bad event raises before any state
changes. The ring's changes reach the engine lazily, at a read or once ``limit`` changes
wait (`sync`): in C, straight from the ring into the engine's compiled tree (its
``engine_add`` / ``engine_remove``, or ``engine_change_arrays`` on a sorted batch of
``SCALAR_FLUSH`` or more), an event that came and left between two reads never reaching
it. What the compiled tree does not take (a third label level, a float weight into exact
counts) goes through the engine's checked Python path; a stale float engine is recounted
from the ring (`sync`, the one place of that step).

Runtime complexity: a push ``O(1)`` amortized plus ``O(log W)`` per change at the next
read (``O(L log W)`` for ``L`` levels, ``O(log^2 W)`` continuous); a read ``O(1)`` after.

>>> from streamrank.engine import PairEngine
>>> from streamrank.structures._cwindow import RowWindow
>>> win = RowWindow()
>>> engine = PairEngine()
>>> for y, s in [(1, 0.9), (0, 0.1), (1, 0.2)]:
...     _ = win.push_keep(y, s, 1.0, 2)
>>> sync(win, engine, "f").counts.auc      # (1, 0.9) came and left: never counted
1.0
"""

from libc.stdint cimport int64_t

import numpy as np

from ._cbinary cimport LevelDominanceCounter, _eadd, _eremove, _weight_ok
from ._cevents cimport SCALAR_FLUSH, _num, _river_binary, _unit
from ._cslots cimport SlotStore, _weight
from ._cscorebins cimport ScoreBins
from ._cwindow cimport RowWindow

from .._snapshot import PICKLE_VERSION, owner_state, owner_state_error
from .._validation import check_scalar, check_weight, param_error

cdef double NAN = float("nan")


cdef inline double _scalar(object x, str name, str func) except? -1.0:
    cdef double v = 0.0
    if _num(x, &v):
        return v
    return check_scalar(x, name, func)


cdef inline double _unit_or_weight(object w, str func) except? -1.0:
    """A weight as `check_weight` reads it (1 for the unit weight, in C)."""
    return 1.0 if _unit(w) else check_weight(w, func)


cdef inline int _event(object y, object s, object w, str func, double* out) except -1:
    """A window's event ``(y, s, w)`` validated into ``out`` (plain numbers in C)."""
    out[0] = _scalar(y, "y", func)
    out[1] = _scalar(s, "s", func)
    out[2] = _unit_or_weight(w, func)
    return 0


# --------------------------------------------------------------------------- the sync
cdef int _each(RowWindow win, object engine, str caller) except -1:
    """The waiting changes of ``win`` into ``engine`` one by one (removals first)."""
    cdef Py_ssize_t i, row
    cdef int64_t q
    cdef SlotStore st = win.store
    for i in range(win._nrem):
        _row_of(engine, win._ry[i], win._rs[i], win._rw[i], -1, caller)
    for (y, s, w), n in win._adds.items():
        for _ in range(n):
            _row_of(engine, y, s, w, 1, caller)
    for q in range(win._synced, win._tail):
        row = win._row_at(q)
        if st._y[row] == st._y[row]:
            _row_of(engine, st._y[row], st._s[row], st._w[row], 1, caller)
    return 0


cdef int _row_of(object engine, double y, double s, double w, int sign,
                 str caller) except -1:
    """Row ``(y, s, w)`` into (``sign`` 1) or out of ``engine``: straight into its
    few-level counter's compiled change when it holds one (`_eadd` / `_eremove`, what its
    ``engine_add`` / ``engine_remove`` call, without a Python call), else through those,
    else the engine's checked path (which raises for a row it cannot take)."""
    cdef int64_t iw = 0
    cdef double fw = 0.0
    cdef LevelDominanceCounter lev
    dom = engine._dom
    if isinstance(dom, LevelDominanceCounter):
        lev = <LevelDominanceCounter>dom
        if _weight_ok(lev, w, &iw, &fw) and (
                _eadd(lev, y, s, iw, fw) if sign > 0 else _eremove(lev, y, s, iw, fw)) == 1:
            return 0
    elif dom.engine_add(y, s, _weight(w)) if sign > 0 else dom.engine_remove(
            y, s, _weight(w)):
        return 0
    (engine.add if sign > 0 else engine.remove)(y, s, _weight(w), caller=caller)
    return 0


cdef int _batch(object engine, object y, object s, object w, int sign,
                str caller) except -1:
    """One sorted batch through the engine's compiled loop; what it leaves (a move of
    structure, a float switch) through the engine's checked path."""
    if sign > 0 and y.size >= max(len(engine._dom), 256):
        engine.add_many(y, s, w, caller)        # as large as what is held: one recount
        return 0
    rest = engine._dom.engine_change_arrays(y, s, w, sign)
    if rest.size:
        engine._change_each(y[rest], s[rest], None if w is None else w[rest], sign, caller)
    return 0


cdef int _arrays(RowWindow win, object engine, str caller) except -1:
    """The waiting changes of ``win`` into ``engine`` as two sorted batches."""
    cdef Py_ssize_t i, j = 0, row, n = win._nrem
    cdef int64_t q
    cdef SlotStore st = win.store
    cdef bint unit = True
    cdef double[::1] ry, rs, rw, ay, as_, aw
    if n:
        ya, sa, wa = np.empty(n), np.empty(n), np.empty(n)
        ry, rs, rw = ya, sa, wa
        for i in range(n):
            ry[i], rs[i], rw[i] = win._ry[i], win._rs[i], win._rw[i]
            unit = unit and win._rw[i] == 1.0
        _batch(engine, ya, sa, None if unit else wa, -1, caller)
    n = win._nadds + <Py_ssize_t>(win._tail - win._synced)
    ya, sa, wa = np.empty(n), np.empty(n), np.empty(n)
    ay, as_, aw = ya, sa, wa
    unit = True
    for (y, s, w), c in win._adds.items():
        for _ in range(c):
            ay[j], as_[j], aw[j] = y, s, w
            unit = unit and w == 1
            j += 1
    for q in range(win._synced, win._tail):
        row = win._row_at(q)
        if st._y[row] == st._y[row]:
            ay[j], as_[j], aw[j] = st._y[row], st._s[row], st._w[row]
            unit = unit and st._w[row] == 1.0
            j += 1
    if j:
        _batch(engine, ya[:j], sa[:j], None if unit else wa[:j], 1, caller)
    return 0


cdef object _sync(RowWindow win, object engine, str caller, bint recount,
                  tuple estimates=None):
    cdef Py_ssize_t k = win._waiting()
    if k:
        try:
            if estimates is not None:       # (before the log is dropped)
                _estimates(win, estimates, caller)
            if k < SCALAR_FLUSH:
                _each(win, engine, caller)
            else:
                _arrays(win, engine, caller)
        finally:
            engine._cached = None
        win._drop_waiting()
    if recount and engine._dtype is float and engine.stale:
        _recount(win, engine)
    if recount and estimates is not None:   # (a score drift's bins: their owner's)
        for labeled, est in ((False, estimates[0]), (True, estimates[1])):
            if est is not None and est._dtype is float and est.stale:
                est.rebuild(*estimate_rows(*win.columns(labeled)))
    return engine


def sync(RowWindow window, engine, str caller, bint recount=True, tuple estimates=None):
    """``engine`` after receiving the changes ``window`` holds back, and (with
    ``recount``) recounted from the window's labeled rows when float rounding of weight
    that came and went may be large (`PairEngine.stale`), with the window's per-label
    tallies when it keeps them (`RowWindow.classes`). ``caller`` names the owner's method
    in the engine's errors. ``estimates``: ``(every, labeled, bins)``, the engines (or
    None) of the calibration estimate (`estimate_rows`) of every row (a window with
    ``every_row``) and of the labeled rows, and a score drift's `ScoreBins` (or None) of
    every row's score, which take the same changes. Runtime complexity: ``O(k log W)``
    for ``k`` waiting changes (``O(W log W)`` for a recount); in C unless the engine's
    checked path is needed."""
    return _sync(window, engine, caller, recount, estimates)


# --------------------------------------------------------------------------- estimates
#: The smallest weight an engine holds (`streamrank.engine`): a row of the estimate whose
#: weight ``w p`` or ``w (1 - p)`` is below it (a probability within 2**-400 of 0 or 1)
#: is left out, which moves the estimated AUC by less than 2**-400 of a pair.
cdef double MIN_WEIGHT = 2.0 ** -400


def estimate_rows(y, s, w):
    """The rows of the calibration estimate of predictions ``(s, w)`` (``y`` unused): each
    a positive of weight ``w s`` and a negative of weight ``w (1 - s)`` at its score ``s``
    (a probability), whose AUC is the expected AUC if the scores are calibrated; rows of
    weight below 2**-400 left out. Returns ``(labels, scores, weights)``. O(n).

    >>> estimate_rows(None, np.array([0.8, 0.5]), np.array([1.0, 2.0]))[2].tolist()
    [0.8, 1.0, 0.19999999999999996, 1.0]
    """
    s = np.asarray(s, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    ww = np.concatenate([w * s, w * (1.0 - s)])
    keep = ww >= MIN_WEIGHT
    yy = np.concatenate([np.ones(s.size), np.zeros(s.size)])
    return yy[keep], np.concatenate([s, s])[keep], ww[keep]


cdef int _pair_of(object engine, double s, double w, int sign, str caller) except -1:
    """Prediction ``(s, w)`` into (``sign`` 1) or out of an estimate's engine: a positive
    of weight ``w s`` and a negative of weight ``w (1 - s)`` at ``s`` (`estimate_rows`)."""
    cdef double wp = w * s, wn = w * (1.0 - s)
    if wp >= MIN_WEIGHT:
        _row_of(engine, 1.0, s, wp, sign, caller)
    if wn >= MIN_WEIGHT:
        _row_of(engine, 0.0, s, wn, sign, caller)
    return 0


#: Below this many predictions an estimate's changes go one by one (`_pair_of`, in C);
#: from it on as one sorted batch, whose walks share their upper nodes (`_batch`).
cdef Py_ssize_t ESTIMATE_FLUSH = 1024


cdef class _Changes:
    """The predictions ``(s, w)`` of one side (removals or additions) of an estimate's
    changes, gathered in C, then applied as their rows (`estimate_rows`): one by one, or
    as one sorted batch through the engine's compiled loop when there are many
    (`_batch`); or put into a score drift's bins."""

    cdef double[::1] s, w
    cdef Py_ssize_t n
    cdef object _s, _w

    def __cinit__(self, Py_ssize_t cap):
        self._s, self._w = np.empty(cap), np.empty(cap)
        self.s, self.w = self._s, self._w
        self.n = 0

    cdef inline void put(self, double s, double w) noexcept:
        self.s[self.n] = s
        self.w[self.n] = w
        self.n += 1

    cdef int apply(self, object engine, int sign, str caller) except -1:
        cdef Py_ssize_t i
        if self.n < ESTIMATE_FLUSH:
            for i in range(self.n):
                _pair_of(engine, self.s[i], self.w[i], sign, caller)
            return 0
        y, s, w = estimate_rows(None, self._s[:self.n], self._w[:self.n])
        if y.size:
            _batch(engine, y, s, w, sign, caller)
        return 0

    cdef void bin(self, ScoreBins bins, int sign) noexcept:
        cdef Py_ssize_t i
        for i in range(self.n):
            bins.put(self.s[i], self.w[i], sign)


cdef int _estimates(RowWindow win, tuple engines, str caller) except -1:
    """The waiting changes of ``win`` into ``(every, labeled, bins)`` (each may be
    None), removals first: the engines of the estimate, ``every`` from the every-row log
    (`RowWindow.every_row_changes`) and ``labeled`` from the labeled rows' log, each
    prediction as its two rows (`estimate_rows`); a score drift's `ScoreBins` from the
    every-row log."""
    cdef Py_ssize_t i, row, n_new = <Py_ssize_t>(win._tail - win._synced)
    cdef int64_t q
    cdef SlotStore st = win.store
    cdef _Changes out, into
    every, labeled, bins = engines
    if every is not None or bins is not None:
        out, into = _Changes(win._nerem), _Changes(win._neadds + n_new)
        for i in range(win._nerem):
            out.put(win._es[i], win._ew[i])
        for (s, w), c in win._eadds.items():
            for _ in range(c):
                into.put(s, w)
        for q in range(win._synced, win._tail):
            row = win._row_at(q)
            into.put(st._s[row], st._w[row])
        if every is not None:
            out.apply(every, -1, caller)
            into.apply(every, 1, caller)
            every._cached = None
        if bins is not None:
            out.bin(bins, -1)
            into.bin(bins, 1)
    if labeled is not None:
        out, into = _Changes(win._nrem), _Changes(win._nadds + n_new)
        for i in range(win._nrem):
            out.put(win._rs[i], win._rw[i])
        for (y, s, w), c in win._adds.items():
            for _ in range(c):
                into.put(s, w)
        for q in range(win._synced, win._tail):
            row = win._row_at(q)
            if st._y[row] == st._y[row]:
                into.put(st._s[row], st._w[row])
        out.apply(labeled, -1, caller)
        into.apply(labeled, 1, caller)
        labeled._cached = None
    return 0


def _recount(RowWindow window, engine):
    """The one stale -> recount step: ``engine`` rebuilt from ``window``'s labeled rows,
    and the window's per-label tallies recounted with it. ``O(W log W)``."""
    y, s, w = window.columns()
    engine.rebuild(y, s, w)
    if window.classes is not None:      # a window's per-label tallies (the monitor's)
        labels, code, rows = np.unique(y, return_inverse=True, return_counts=True)
        sums = np.bincount(code, weights=w, minlength=labels.size)
        window.classes = {yv: [int(c), float(ws)] for yv, c, ws in
                          zip(labels.tolist(), rows.tolist(), sums.tolist())}


def _restored(cls, state):
    """A window from `WindowCore.__reduce__`; `SnapshotError` for another version."""
    cdef tuple inner = owner_state(cls.__name__, state)
    cdef WindowCore obj = cls.__new__(cls)
    obj._set_state(inner)
    return obj


# --------------------------------------------------------------------------- the owners
cdef class WindowCore:
    """A `RowWindow` and the `PairEngine` of its labeled rows (module docstring)."""

    cdef public RowWindow _win
    cdef public object _engine
    cdef bint _binary           # labels="binary" and a window with tally (its labels):
                                # a push may not bring a third label

    def __init__(self, engine, RowWindow win):
        self._engine = engine
        self._win = win
        self._binary = win._nt != -2 and engine.labels == "binary"

    def sync(self, str caller):
        """The engine, with the window's waiting changes (and a recount if stale)."""
        return _sync(self._win, self._engine, caller, True)

    cdef int _slide(self, double y, double s, double w, double t, Py_ssize_t n_out,
                    str func) except -1:
        """Evict the ``n_out`` oldest rows and append ``(t, y, s, w)`` (validated), the
        labels checked first; the engine follows once ``limit`` changes wait."""
        cdef RowWindow win = self._win
        if self._binary:
            self._check_binary(y, n_out, func)
        for _ in range(min(n_out, <Py_ssize_t>(win._tail - win._head))):
            win._evict_one(None)
        win._push(None, t, y, s, w)
        if win._waiting() >= win.limit:
            _sync(win, self._engine, func, True)
        return 0

    cdef int _check_binary(self, double y, Py_ssize_t n_out, str func) except -1:
        """Raise, changing nothing, if evicting the ``n_out`` oldest rows and adding label
        ``y`` would hold more than two labels (`RowWindow.classes` counts the rows of
        each label, zero weights included)."""
        cdef RowWindow win = self._win
        cdef int j
        cdef int64_t q
        cdef Py_ssize_t row
        if win._nt < 2:
            return 0
        for j in range(win._nt):
            if win._tl[j] == y:
                return 0
        left = {win._tl[j]: win._tc[j] for j in range(win._nt)}
        for q in range(win._head, win._head + min(n_out, win._tail - win._head)):
            row = win._row_at(q)
            left[win.store._y[row]] -= 1
        after = sorted(k for k, c in left.items() if c)
        if len(after) >= 2:
            raise param_error("y", func, "one of at most two labels in all "
                              "(labels='binary')", f"{[y]} with {after} held")
        return 0

    cpdef tuple _state(self):
        return (self._win, self._engine, getattr(self, "__dict__", {}))

    cdef int _set_state(self, tuple state) except -1:
        self._win, self._engine, d = state[:3]
        self._binary = self._win._nt != -2 and self._engine.labels == "binary"
        if d:
            self.__dict__.update(d)
        return 0

    def __reduce__(self):
        return (_restored, (type(self), (PICKLE_VERSION, self._state())))

    def __setstate__(self, state):
        """Only `__reduce__`'s own format is read: an earlier pickle is refused."""
        raise owner_state_error(type(self).__name__, state)


cdef class SlidingCore(WindowCore):
    """The last ``window_size`` events (`streamrank.SlidingPairCounter`)."""

    cdef public Py_ssize_t window_size

    def push(self, y, s, w=1.0):
        """Add an event ``(y, s, w)``; the oldest leaves once the window is full. Validated
        first: a bad event changes nothing. One compiled call, ``O(1)`` amortized (its
        changes reach the engine at the next read, ``O(log W)`` each)."""
        cdef double e[3]
        _event(y, s, w, "SlidingPairCounter.push", e)
        self._slide(e[0], e[1], e[2], NAN,
                    self._win._tail - self._win._head >= self.window_size,
                    "SlidingPairCounter.push")

    cpdef tuple _state(self):
        return WindowCore._state(self) + (self.window_size,)

    cdef int _set_state(self, tuple state) except -1:
        WindowCore._set_state(self, state)
        self.window_size = state[3]
        return 0


cdef class TimeCore(WindowCore):
    """The events of the last ``period`` (`streamrank.TimeSlidingPairCounter`)."""

    cdef public double period

    def push(self, y, s, w=1.0, *, t):
        """Add an event ``(y, s, w)`` at time ``t`` and evict the events with
        ``t' <= t - period``. Validated first: a bad event changes nothing. One compiled
        call, ``O(1 + e)`` for ``e`` evicted events (their changes reach the engine at the
        next read)."""
        func = "TimeSlidingPairCounter.push"
        cdef double e[3]
        _event(y, s, w, func, e)
        cdef double tt = _scalar(t, "t", func)
        cdef RowWindow win = self._win
        cdef int64_t q = win._head
        cdef double latest, horizon = tt - self.period
        if win._tail != win._head:
            latest = win.store._t[win._row_at(win._tail - 1)]
            if tt < latest:
                raise param_error("t", func, f"at least the latest time {latest!r} "
                                  "(events arrive in time order)", repr(tt))
        while q < win._tail and win.store._t[win._row_at(q)] <= horizon:
            q += 1
        self._slide(e[0], e[1], e[2], tt, q - win._head, func)

    cpdef tuple _state(self):
        return WindowCore._state(self) + (self.period,)

    cdef int _set_state(self, tuple state) except -1:
        WindowCore._set_state(self, state)
        self.period = state[3]
        return 0


cdef class RollingCore(WindowCore):
    """The last ``window_size`` events of a binary River metric
    (`streamrank.metrics.RollingROCAUC`): ``update`` / ``revert`` / ``get`` in C."""

    cdef public Py_ssize_t window_size
    cdef public object pos_val

    cdef int _read(self, y_true, y_pred, w, str func, double* out) except -1:
        """``(label, score, weight)`` of a River event into ``out``: in C for the common
        event (`_river_binary`), else through the metric's checked ``_event``."""
        if _river_binary(y_true, y_pred, w, self.pos_val, out):
            return 0
        y, s, w = self._event(y_true, y_pred, w, func)
        out[0], out[1], out[2] = y, s, w
        return 0

    def update(self, y_true, y_pred, w=1.0):
        """Add an event; the oldest leaves once the window is full. Runtime complexity:
        O(1) amortized (one C call; counted at the next read)."""
        cdef double e[3]
        self._read(y_true, y_pred, w, "RollingROCAUC.update", e)
        self._slide(e[0], e[1], e[2], NAN,
                    self._win._tail - self._win._head >= self.window_size,
                    "RollingROCAUC.update")

    def revert(self, y_true, y_pred, w=1.0):
        """Remove the oldest event of the window with these values (nothing happens
        if none is held)."""
        cdef double e[3]
        self._read(y_true, y_pred, w, "RollingROCAUC.revert", e)
        self._win.revert(e[0], e[1], e[2])

    def get(self):
        """The exact AUC of the window; ``0.0`` while it holds one class only.
        Runtime complexity: O(1) after applying the events since the last read."""
        auc = _sync(self._win, self._engine, "RollingROCAUC.update", True)._dom.engine_auc()
        return 0.0 if auc is None else auc

    cpdef tuple _state(self):
        return WindowCore._state(self) + (self.window_size, self.pos_val)

    cdef int _set_state(self, tuple state) except -1:
        WindowCore._set_state(self, state)
        self.window_size, self.pos_val = state[3:5]
        return 0
