# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled half of `PairCounter`: `CounterCore`, the one owner of a counter's keyed
rows (a `KeyRows`, cimported from `streamrank.structures._ckeyrows`) and of its engine's
structure (a `LevelDominanceCounter` while few levels are held, cimported from
`streamrank.structures._cbinary` with its whole changes in C).

Every per-event method is one call into C: the key lookup, the validation of plain
numbers, the change of the structure (`_eadd` / `_eremove`, or an update's one walk,
`_eupdate`) and of the running counts, the row. What the compiled path does not take (a
value that is not a plain number, which the engine's checks raise for; a third level, a
float weight into exact counts, the move to the dominance counter; an update the one walk
cannot do) goes through the `PairEngine`, which validates and moves its structure; `_sync`
then takes the engine's structure again.
"""

cimport cython
from libc.stdint cimport int64_t
from libc.math cimport floor

from ._cbinary cimport LevelDominanceCounter, _eadd, _eremove, _eupdate, _weight_ok
from ._ckeyrows cimport KeyRows
from ._cnumeric cimport _in_domain, _plain
from ._csums cimport Sums

import numpy as np

from .._validation import (as_1d_numeric, check_consistent_length, check_scalar,
                           check_weight, check_weights, param_error)


cdef inline object _count(double w):
    """A stored weight as the engine's number: an int when integral."""
    return int(w) if w == floor(w) else w


@cython.auto_pickle(False)
cdef class CounterCore:
    """Keyed rows and the structure counting them; the methods of `PairCounter` that run
    per event (see it for their documentation). Runtime complexity: as `PairCounter`'s
    (a key lookup is ``O(1)`` expected: `KeyRows`)."""

    cdef readonly KeyRows _slot         # the keyed rows
    cdef readonly object _engine
    cdef Sums _sums                     # the engine's counts: a change bumps `changes`
    cdef object _dom                    # the engine's structure
    cdef LevelDominanceCounter _lev     # the same, while a level counter (else None)
    cdef bint _binary                   # labels="binary": label changes are checked

    def __cinit__(self, *args, **kwargs):
        self._slot = KeyRows()

    def _bind(self, engine):
        """Hold nothing, counted by ``engine``, an empty `PairEngine`."""
        self._slot = KeyRows()
        self._engine = engine
        self._binary = engine.labels == "binary"
        self._sync()

    def _sync(self):
        """Take the engine's structure again (after its checked path may have moved it)."""
        self._dom = self._engine._dom
        self._sums = self._engine._sums
        self._lev = self._dom if isinstance(self._dom, LevelDominanceCounter) else None

    @property
    def _unit(self):
        """Every weight stored so far is 1 (the engine's batches then take unit weights)."""
        return self._slot._w == NULL

    # ------------------------------------------------------------------ compiled steps
    cdef bint _add(self, double y, double s, double w) except -1:
        """Add a sample of checked plain numbers in C; False (nothing changed) if the
        engine's checked path must take it."""
        cdef int64_t iw = 0
        cdef double fw = 0.0
        cdef LevelDominanceCounter lev = self._lev
        self._sums.changes += 1     # (the structure's zero-weight changes skip the sums)
        if lev is not None:
            return _weight_ok(lev, w, &iw, &fw) and _eadd(lev, y, s, iw, fw) == 1
        return self._dom.engine_add(y, s, w)

    cdef int _give(self, double y, double s, double w, str func) except -1:
        """Add a validated sample: in C, or through the engine's checked path."""
        if not self._add(y, s, w):
            self._engine.add(y, s, _count(w), caller=func)
            self._sync()
        return 0

    cdef int _take(self, Py_ssize_t r) except -1:
        """Remove row ``r``'s sample from the structure (the row stays)."""
        cdef KeyRows rows = self._slot
        cdef double y = rows._y[r], s = rows._s[r], w = rows.weight(r), fw = 0.0
        cdef int64_t iw = 0
        cdef LevelDominanceCounter lev = self._lev
        self._sums.changes += 1
        if lev is not None:
            if _weight_ok(lev, w, &iw, &fw) and _eremove(lev, y, s, iw, fw) == 1:
                return 0
        elif self._dom.engine_remove(y, s, w):
            return 0
        self._engine.remove(y, s, w)
        self._sync()
        return 0

    cdef int _move(self, Py_ssize_t r, double y, double s, double w, str func) except -1:
        """Row ``r``'s sample becomes ``(y, s, w)`` (validated): one walk of the
        two-level tree when it can (`_eupdate`), else a removal and an insert."""
        cdef KeyRows rows = self._slot
        cdef double fw = 0.0, nfw = 0.0
        cdef int64_t iw = 0, niw = 0
        cdef LevelDominanceCounter lev = self._lev
        if (lev is not None and _weight_ok(lev, rows.weight(r), &iw, &fw)
                and _weight_ok(lev, w, &niw, &nfw)
                and _eupdate(lev, rows._y[r], rows._s[r], iw, y, s, niw)):
            pass
        else:
            self._take(r)
            self._give(y, s, w, func)
        rows.set(r, y, s, w)
        return 0

    cdef Py_ssize_t _row(self, key, str func) except -1:
        cdef Py_ssize_t r = self._slot.find(key)
        if r < 0:
            raise KeyError(f"{func}: key {key!r} is not held.")
        return r

    # ------------------------------------------------------------------ container
    def __len__(self):
        return self._slot._n

    def __contains__(self, key):
        return self._slot.find(key) >= 0

    def __iter__(self):
        return iter(self._slot.keys())

    def get(self, key):
        """``(label, score, weight)`` of ``key`` (`KeyError` if not held)."""
        cdef Py_ssize_t r = self._slot.find(key)
        if r < 0:
            raise KeyError(key)
        return self._slot._y[r], self._slot._s[r], _count(self._slot.weight(r))

    def items(self):
        """Iterate over ``(key, (label, score, weight))``, in insertion order."""
        cdef KeyRows rows = self._slot
        cdef Py_ssize_t r
        for key, r in zip(rows.keys(), rows.order()):
            yield key, (rows._y[r], rows._s[r], _count(rows.weight(r)))

    def _keys(self):
        """The keys held, in insertion order."""
        return self._slot.keys()

    def _columns(self):
        """``(y, s, w)`` of the items held, in insertion order: float64 arrays."""
        return self._slot.columns()

    # ------------------------------------------------------------------ single items
    def insert(self, key, y, s, w=1.0):
        """Insert item ``key`` with label ``y``, score ``s`` and weight ``w``: one call
        into C (``O(log n)`` binary, ``O(L log n)`` for ``L`` levels, ``O(log^2 n)``
        amortized continuous).

        Raises `KeyError` if ``key`` is held already (use `update`), `ValueError` /
        `TypeError` for a non-finite label or score (or an int float64 cannot hold
        exactly), a weight outside ``{0} U [2**-400, 2**400]`` (README, "Weights"), or a
        third label with ``labels="binary"``: all before anything changes.
        """
        cdef KeyRows rows = self._slot
        cdef double yy, ss, ww
        if rows.find(key) >= 0:
            raise KeyError(f"PairCounter.insert: key {key!r} is held already; use update() "
                           "to change it.")
        rows.reserve(1)
        if not (_plain(y, &yy) and _plain(s, &ss) and _plain(w, &ww) and self._add(yy, ss, ww)):
            self._engine.add(y, s, w, caller="PairCounter.insert")  # validates, then adds
            self._sync()
            yy, ss, ww = float(y), float(s), float(w)
        rows.add(key, yy, ss, ww)

    def remove(self, key):
        """Remove item ``key`` (`KeyError`, and nothing changes, if not held). Runtime
        complexity: as `insert`."""
        cdef Py_ssize_t r = self._row(key, "PairCounter.remove")
        self._take(r)
        self._slot.drop(r)

    def update(self, key, *, score=None, label=None, weight=None):
        """Change the score, label and/or weight of item ``key``, validated before anything
        changes: one walk of the two-level tree (the old and new scores share the path
        above their split), ``O(log n)``; with more levels, float weights or a leaf that
        must split or merge, a removal and an insert in C."""
        cdef str func = "PairCounter.update"
        cdef Py_ssize_t r = self._row(key, func)
        cdef KeyRows rows = self._slot
        cdef double oy = rows._y[r], y, s, w
        if label is None:
            y = oy
        elif not _plain(label, &y):
            y = check_scalar(label, "label", func)
        if score is None:
            s = rows._s[r]
        elif not _plain(score, &s):
            s = check_scalar(score, "score", func)
        if weight is None:
            w = rows.weight(r)
        elif not (_plain(weight, &w) and _in_domain(w)):
            w = float(check_weight(weight, func, "weight"))
        if y != oy and self._binary:
            self._engine.check_labels_after((oy,), (y,), func, "label")
        self._move(r, y, s, w, func)

    # ------------------------------------------------------------------ batches
    cdef object _rows_of(self, list keys, str func):
        """The rows of held, distinct ``keys``: `KeyError` naming the first missing key,
        `ValueError` for a key given twice, before anything else."""
        cdef KeyRows rows = self._slot
        cdef Py_ssize_t j, n = len(keys)
        out = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] o = out
        for j in range(n):
            o[j] = rows.find(keys[j])
            if o[j] < 0:
                missing = [k for k in keys if rows.find(k) < 0]
                raise KeyError(f"{func}: key {missing[0]!r} is not held ({len(missing)} "
                               "unknown keys).")
        if np.unique(out).size != n:
            raise param_error("keys", func, "distinct keys", "a key given twice")
        return out

    def insert_many(self, keys, y, s, w=None):
        """Insert a batch: validated whole (new, distinct keys; finite labels and scores;
        weights >= 0), then applied by the engine (`PairEngine.add_many`: per-item changes
        in one C loop in score order, or the vectorized count and a rebuild for a batch as
        large as what is held)."""
        cdef str func = "PairCounter.insert_many"
        cdef KeyRows rows = self._slot
        cdef Py_ssize_t j
        keys = list(keys)
        y = as_1d_numeric(y, "y", func, allow_empty=True, as_float=True).astype(
            np.float64, copy=False)
        s = as_1d_numeric(s, "s", func, allow_empty=True, as_float=True).astype(
            np.float64, copy=False)
        check_consistent_length(func, keys=keys, y=y, s=s)
        wv = check_weights(w, y.size, func, "w", bounded=True)
        if len(set(keys)) != len(keys):
            raise param_error("keys", func, "distinct keys", "a key given twice")
        held = [k for k in keys if rows.find(k) >= 0]
        if held:
            raise KeyError(f"PairCounter.insert_many: key {held[0]!r} is held already "
                           f"({len(held)} held keys); use update_many().")
        rows.reserve(len(keys))
        self._engine.add_many(y, s, wv, func)
        self._sync()
        cdef double[::1] yv = y, sv = s, wd = np.ones(y.size) if wv is None else wv
        for j in range(len(keys)):
            rows.add(keys[j], yv[j], sv[j], wd[j])

    def remove_many(self, keys):
        """Remove a batch of held keys (all checked first), in the engine's C loop in
        score order: ``O(k log n)``."""
        cdef KeyRows rows = self._slot
        keys = list(keys)
        at = self._rows_of(keys, "PairCounter.remove_many")
        y, s, w = rows._cols(at)
        self._engine.remove_many(y, s, None if rows._w == NULL else w)
        self._sync()
        cdef int64_t[::1] rv = at
        cdef Py_ssize_t j
        for j in range(rv.shape[0]):
            rows.drop(rv[j])

    def update_many(self, keys, *, scores=None, labels=None, weights=None):
        """Change the scores (and/or labels, weights) of a batch of held keys, validated
        whole first, then, with at most two label levels and integer weights, in one C
        pass in the order of the new scores, each change the one walk of `update`
        (``O(k log n)``, neighbouring scores' paths in the cache); otherwise the batch
        leaves and comes back, each in score order (`PairEngine.remove_many`, `add_many`)."""
        cdef str func = "PairCounter.update_many"
        cdef KeyRows rows = self._slot
        cdef Py_ssize_t j, k
        keys = list(keys)
        at = self._rows_of(keys, func)
        oy, os_, ow = rows._cols(at)
        k = len(keys)
        y, s, w = oy, os_, ow
        if scores is not None:
            s = _batch_of(scores, "scores", func, k)
        if labels is not None:
            y = _batch_of(labels, "labels", func, k)
        if weights is not None:
            w = check_weights(weights, k, func, "weights", bounded=True)
        if labels is not None and self._binary:
            self._engine.check_labels_after(oy.tolist(), np.unique(y).tolist(), func,
                                            "labels")
        cdef LevelDominanceCounter lev = self._lev
        if lev is None or lev._ntrees != 1 or lev._floats:
            # no one walk there: the batch leaves, then comes back, each in score order
            # (the engine's C loops; a batch as large as what is held: one rebuild)
            self._engine.remove_many(oy, os_, None if rows._w == NULL else ow)
            unit = rows._w == NULL and (weights is None or bool(np.all(w == 1)))
            self._engine.add_many(y, s, None if unit else w)
            self._sync()
            _set_rows(rows, at, y, s, np.ascontiguousarray(w, dtype=np.float64))
            return
        # one pass in the order of the new scores: each change one walk (`_eupdate`),
        # the paths of neighbouring scores in the cache
        cdef int64_t[::1] order = np.argsort(s, kind="stable").astype(np.int64)
        cdef int64_t[::1] rv = at
        cdef double[::1] yv = y, sv = s, wv = w
        for j in range(k):
            self._move(rv[order[j]], yv[order[j]], sv[order[j]], wv[order[j]], func)

    def _check_core(self):
        """The rows' invariants (`KeyRows._check`); the structure is the engine's."""
        self._slot._check()
        assert self._dom is self._engine._dom
        assert self._lev is (self._dom if isinstance(self._dom, LevelDominanceCounter)
                             else None)


cdef int _set_rows(KeyRows rows, int64_t[::1] at, double[::1] y, double[::1] s,
                   double[::1] w) except -1:
    """Rows ``at`` become ``(y, s, w)``: one C loop."""
    cdef Py_ssize_t j
    for j in range(at.shape[0]):
        rows.set(at[j], y[j], s[j], w[j])
    return 0


def _batch_of(values, name, func, k):
    arr = as_1d_numeric(values, name, func, allow_empty=True, as_float=True).astype(
        np.float64, copy=False)
    if arr.size != k:
        raise param_error(name, func, f"of length {k} (one per key)", f"length {arr.size}")
    return arr
