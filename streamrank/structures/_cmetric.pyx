# cython: language_level=3, boundscheck=False, wraparound=False
"""`MetricCore`: a River metric over a `PairEngine` -- the engine, the multiset of the
samples it holds and the updates waiting for it -- in one compiled owner.

`streamrank.metrics.PairEngineMetric` (`ROCAUC`, `KendallTau`, `SomersD`,
`GoodmanKruskalGamma`, `PairwiseAccuracy`, `RightWrongRatio`, `ConcordanceIndex`) is a
Python class on this type: ``update``, ``revert`` and ``ROCAUC.get`` resolve to C. The
common event is read here as the metric's own ``_sample`` would read it
(`streamrank.structures._cevents`); anything else goes through ``_sample``, which raises
for a bad event before any state changes.

>>> from streamrank.metrics import ROCAUC
>>> m = ROCAUC()
>>> for y, s in [(True, 0.9), (False, 0.1), (False, 0.95)]:
...     m.update(y, s)
>>> m.waiting                 # counted at the next read
3
>>> m.revert(False, 0.95)     # still waiting: it never reaches the engine
>>> m.get(), m.waiting, len(m._engine)
(1.0, 0, 2)
"""

cimport cython

from ._cevents cimport SCALAR_FLUSH, _num, _river_binary, _unit

from .._snapshot import PICKLE_VERSION, owner_state, owner_state_error
from .._validation import param_error

def not_held_error(str func, y_true, y_pred, w):
    """The `ValueError` of a ``revert`` whose values match no update held."""
    return param_error("y_true, y_pred, w", func, "the values of an update that is held "
                       "(updated and not reverted yet)",
                       f"y_true={y_true!r}, y_pred={y_pred!r}, w={w!r}")


cdef enum:
    _CHECKED, _BINARY, _PAIR

#: How a `MetricCore` reads an event in C before falling back to its ``_sample``: not
#: at all (``READ_CHECKED``), as a binary metric with ``pos_val`` (``READ_BINARY``), or
#: as a pair of numbers (``READ_PAIR``).
READ_CHECKED, READ_BINARY, READ_PAIR = _CHECKED, _BINARY, _PAIR


def _restored_metric(cls, state):
    """A River metric from `MetricCore.__reduce__`; `SnapshotError` for another version."""
    cdef tuple inner = owner_state(cls.__name__, state)
    cdef MetricCore obj = cls.__new__(cls)
    obj._set_state(inner)
    return obj


@cython.auto_pickle(False)
cdef class MetricCore:
    """A River metric over a `PairEngine` (`streamrank.metrics.PairEngineMetric`): the
    multiset of the samples its engine holds, its buffered changes and the engine, in one
    compiled owner.

    ``update`` and ``revert`` are one C call each, validation included: the common event
    (plain numbers, a bool or int class, the unit weight) is read in C as the metric's
    ``_sample`` would read it; anything else goes through ``_sample`` itself, so a bad
    event raises its error before any state changes. Additions wait as a multiset
    ``{sample: copies}`` (a revert of one still waiting cancels it) and reach the engine
    at a read, or once ``limit`` wait, in one call (`PairEngine.apply`). The multiset
    of held samples (``_held``) makes ``revert`` exact (it takes the values of an update
    held, weight included) and is what a stale float engine is recounted from.

    Runtime complexity: ``update`` O(1) amortized; ``revert`` O(1) for a waiting update,
    else one removal from the engine (``O(log n)``); a read ``O(k log k + ...)`` for ``k``
    waiting changes (`PairEngine.apply`), O(1) when none wait.
    """

    cdef public object _engine
    cdef public dict _held          # (label, score, weight) -> copies in the engine
    cdef public object pos_val      # the positive class (READ_BINARY)
    cdef dict _adds                 # waiting additions: sample -> copies
    cdef Py_ssize_t _n              # copies waiting
    cdef Py_ssize_t _limit          # the engine takes them once this many wait
    cdef int _reader                # READ_CHECKED, READ_BINARY or READ_PAIR

    def __cinit__(self, *args, **kwargs):
        self._held, self._adds = {}, {}

    def _bind(self, engine, int reader, Py_ssize_t limit):
        """Start over with ``engine`` (empty), reading events as ``reader`` says and
        handing them to the engine once ``limit`` wait."""
        self._engine, self._reader, self._limit = engine, reader, limit
        self._held, self._adds, self._n = {}, {}, 0

    @property
    def waiting(self):
        """How many updates wait for the engine (applied at the next read)."""
        return self._n

    cdef object _read(self, y_true, y_pred, w, str verb):
        """The ``(label, score, weight)`` sample of an event: in C for the common event,
        else the metric's ``_sample`` (which raises for a bad one)."""
        cdef double e[3]
        if self._reader == _BINARY:
            if _river_binary(y_true, y_pred, w, self.pos_val, e):
                return (1 if e[0] == 1.0 else 0, e[1], 1)
        elif self._reader == _PAIR:
            if _num(y_true, &e[0]) and _num(y_pred, &e[1]) and _unit(w):
                return (e[0], e[1], 1)
        return self._sample(y_true, y_pred, w, f"{type(self).__name__}.{verb}")

    def update(self, y_true, y_pred, w=1.0):
        """Add an event. Validated first: a bad event changes nothing. One compiled
        call, O(1) amortized (counted at the next read)."""
        sample = self._read(y_true, y_pred, w, "update")
        n = self._adds.get(sample)
        self._adds[sample] = 1 if n is None else n + 1
        self._n += 1
        if self._n >= self._limit:
            self._flush()

    def revert(self, y_true, y_pred, w=1.0):
        """Remove one earlier update with these values, in any order; `ValueError`
        (nothing changes) if none is held. O(1) for an update still waiting, else one
        removal from the engine, ``O(log n)``."""
        sample = self._read(y_true, y_pred, w, "revert")
        n = self._adds.get(sample)
        if n is not None:
            _release(self._adds, sample, n)
            self._n -= 1
            return
        n = self._held.get(sample)
        if n is None:
            raise not_held_error(f"{type(self).__name__}.revert", y_true, y_pred, w)
        self._engine.remove(*sample)
        _release(self._held, sample, n)

    cpdef _flush(self):
        """Hand the waiting additions to the engine: a few one by one into its compiled
        tree, more as one batch (`PairEngine.apply`), as a window's `sync` does."""
        cdef Py_ssize_t k = self._n
        if not k:
            return
        adds, held = self._adds, self._held
        self._adds, self._n = {}, 0
        for sample, n in adds.items():
            c = held.get(sample)
            held[sample] = n if c is None else c + n
        engine, func = self._engine, f"{type(self).__name__}.update"
        if k >= SCALAR_FLUSH:
            engine.apply((), adds, func)    # one sorted batch (the engine's C loop)
            return
        dom = engine._dom                   # a few: straight into the compiled tree
        try:
            for (y, s, w), n in adds.items():
                for _ in range(n):
                    if not dom.engine_add(y, s, w):
                        engine.add(y, s, w, caller=func)
                        dom = engine._dom
        finally:
            engine._cached = None

    cpdef object _counted(self):
        """The engine after the waiting updates, recounted from ``_held`` first (the
        metric's ``_recount``) when its float rounding may be large (`PairEngine.stale`;
        never with exact integer counts)."""
        self._flush()
        engine = self._engine
        if engine._dtype is not int and engine.stale:
            self._recount()
        return engine

    def _get_auc(self):
        """The exact AUC of the events held; ``0.0`` while one class is missing. One
        compiled call: O(1) after applying the updates that wait (`_counted`)."""
        auc = self._counted()._dom.engine_auc()
        return 0.0 if auc is None else auc

    cpdef tuple _state(self):
        self._flush()
        return (self._engine, self._held, self.pos_val, self._reader, self._limit,
                getattr(self, "__dict__", {}))

    cdef int _set_state(self, tuple state) except -1:
        engine, held, pos_val, reader, limit, d = state
        self._bind(engine, reader, limit)
        self._held, self.pos_val = held, pos_val
        if d:
            self.__dict__.update(d)
        return 0

    def __reduce__(self):
        return (_restored_metric, (type(self), (PICKLE_VERSION, self._state())))

    def __setstate__(self, state):
        """Only `__reduce__`'s own format is read: an earlier pickle is refused."""
        raise owner_state_error(type(self).__name__, state)


cdef inline int _release(dict held, object sample, object n) except -1:
    """One copy of ``sample`` less in ``held`` (which holds ``n`` of it)."""
    if n == 1:
        del held[sample]
    else:
        held[sample] = n - 1
    return 0
