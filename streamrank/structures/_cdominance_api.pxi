# `DominanceCounter` (included by `_cdominance.pyx`): the Python interface over
# `_DomTree`, and the whole-change fast path of `PairEngine`.

cdef extern from *:
    """
    typedef __int128 sr_int128;
    """
    ctypedef long long sr_int128


cdef object _py128(sr_int128 x):
    cdef bint neg = x < 0
    if neg:
        x = -x
    cdef uint64_t lo = <uint64_t>(x & <sr_int128>0xFFFFFFFFFFFFFFFFULL)
    cdef uint64_t hi = <uint64_t>(x >> 64)
    value = (<object>hi << 64) | <object>lo
    return -value if neg else value


cdef class DominanceCounter(_DomTree):
    """Dominance weights for points with any labels, including labels never seen before.

    See the module docstring for the structure (a weight-balanced tree over (label,
    score) keys whose nodes hold B+ trees of the scores of their left subtree, all in C)
    and its amortized costs.

    Parameters
    ----------
    dtype : {int, float}, default=int
        Type of the weights; ``int`` gives exact counts (the total weight must stay
        below 2**63).

    Notes
    -----
    Runtime complexity: `add`, `remove`, `query` and `pairs_with` are O(log^2 n)
    amortized; `pairs_with_many` O(k log^2 n) for ``k`` points (in C); `from_arrays` and
    `load` O(n log n). Memory: O(n log n), about 300 bytes per distinct point at 10**6
    (module docstring).

    Examples
    --------
    >>> dc = DominanceCounter()
    >>> for y, s in [(2.5, 0.1), (0.3, 0.4), (1.7, 0.35), (0.9, 0.8)]:
    ...     dc.add(y, s)
    >>> dc.query(1.0, 0.5)          # rows: label < 1.0, == 1.0, > 1.0
    ((1, 0, 1), (0, 0, 0), (2, 0, 0))
    >>> dc.pairs_with(1.0, 0.5)
    (1, 3, 0, 0, 0)
    """

    cdef object _dtype
    cdef public object sums     # the engine's running counts (``engine_add`` updates them)

    def __cinit__(self, *args, **kwargs):
        self._dtype = int
        self.sums = Sums(False)

    def __init__(self, *, dtype=int):
        self._set_dtype(_check_dtype(dtype, "DominanceCounter"))

    cdef void _set_dtype(self, dtype) except *:
        self._dtype = dtype
        self.floats = dtype is float
        self.sums = Sums(self.floats)
        self._reset()

    def clear(self):
        """Remove every point. Runtime complexity: O(1).

        >>> dc = DominanceCounter(); dc.add(1, 0.5); dc.clear(); len(dc)
        0
        """
        self._reset()

    @classmethod
    def from_arrays(cls, labels, scores, weights=None, *, dtype=None):
        """A counter holding the points ``(labels[i], scores[i])`` with ``weights[i]``.

        ``dtype`` defaults to ``int`` for unit, boolean or integer weights and ``float``
        otherwise. Runtime complexity: O(n log n), as `load`.

        >>> dc = DominanceCounter.from_arrays([0, 1, 1, 2], [0.5, 0.2, 0.9, 0.4])
        >>> dc.pairs_with(1, 0.5)
        (0, 1, 1, 2, 0)
        """
        from .dominance import _from_arrays
        return _from_arrays(cls, labels, scores, weights, dtype)

    def load(self, labels, scores, copies=None, weights=None, positive=None):
        """Replace the contents by ``copies[i]`` points at ``(labels[i], scores[i])``
        holding ``weights[i]`` between them (unit copies and weights by default), in a
        perfectly balanced tree; ``positive[i]`` of them of weight > 0 (default: all of
        them where ``weights[i] > 0``). The rows of `items` load back as they are.
        Validated whole before anything changes; `sums` is left alone.

        Runtime complexity: O(n log n) (a sort, then the multisets built bottom-up).

        >>> dc = DominanceCounter()
        >>> dc.load([1, 0, 1], [0.5, 0.5, 0.5], [2, 1, 1], [2, 1, 1])
        >>> list(dc.items())
        [(0.0, 0.5, 1, 1), (1.0, 0.5, 3, 3)]
        """
        func = "DominanceCounter.load"
        y, s, c, w = _load_args(labels, scores, copies, weights, self._dtype, func)
        if positive is None:
            p = np.where(w > 0, c, 0)
        else:
            p = np.asarray(positive)
            if p.shape != c.shape or (p.size and p.dtype.kind not in "iu") or \
                    (p < 0).any() or (p > c).any() or (not self.floats and (
                        ((p == 0) & (w > 0)) | ((p > 0) & (w == 0))).any()):
                raise param_error("positive", func, "per point, copies of weight > 0 "
                                  "(between 1 and copies where the weight is > 0, else 0)",
                                  describe(positive))
            if self.floats:     # a rounding residue left where no weight is held
                w = np.where(p > 0, w, 0.0)
        if c.size and int(c.sum()) >= 2**31:
            raise param_error("copies", func, "fewer than 2**31 points in all",
                              f"{int(c.sum())} points")
        y, s = y + 0.0, s + 0.0       # -0.0 and 0.0 are one value
        order = np.lexsort((s, y))
        y, s, c, w, p = y[order], s[order], c[order], w[order], p[order].astype(np.int64)
        starts = np.flatnonzero(np.concatenate(
            ([True], (y[1:] != y[:-1]) | (s[1:] != s[:-1])))) if y.size else \
            np.zeros(0, np.intp)
        if y.size:
            y, s = y[starts], s[starts]
            c, w, p = (np.add.reduceat(a, starts) for a in (c, w, p))
        self._load_columns(y, s, c, w, p)

    cdef int _load_columns(self, y, s, c, w, p) except -1:
        """`load` of distinct keys in key order (validated, aggregated)."""
        cdef Py_ssize_t m = y.shape[0], k
        cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
        cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
        cdef int64_t[::1] cv = np.ascontiguousarray(c, dtype=np.int64)
        cdef int64_t[::1] pv = np.ascontiguousarray(p, dtype=np.int64)
        cdef int64_t[::1] iwv
        cdef double[::1] fwv
        if self.floats:
            fwv = np.ascontiguousarray(w, dtype=np.float64)
        else:
            iwv = np.ascontiguousarray(w, dtype=np.int64)
        cdef KEnt* e = <KEnt*>malloc((m + 1) * sizeof(KEnt))
        if e == NULL:
            raise MemoryError()
        try:
            for k in range(m):
                e[k].y, e[k].s = yv[k], sv[k]
                e[k].c, e[k].p = <int32_t>cv[k], <int32_t>pv[k]
                e[k].fe = 0.0
                if self.floats:
                    e[k].w.f = fwv[k] if pv[k] else 0.0
                else:
                    e[k].w.i = iwv[k]
            self._load_keys(e, m)
        finally:
            free(e)
        return 0

    # ------------------------------------------------------------------ properties
    @property
    def dtype(self):
        """``int`` or ``float``: the type of every weight returned.

        >>> DominanceCounter.from_arrays([1, 2], [0.5, 0.5], [1.5, 2.0]).dtype
        <class 'float'>
        """
        return self._dtype

    @property
    def total_weight(self):
        """Weight of all points held. Runtime complexity: O(1).

        >>> DominanceCounter.from_arrays([1, 2], [0.5, 0.5], [1.5, 2.0]).total_weight
        3.5
        """
        return self.mp.tot_f(self.col) if self.floats else self.itot

    def __len__(self):
        """Number of points held (not their weight). Runtime complexity: O(1).

        >>> len(DominanceCounter.from_arrays([1, 1], [0.5, 0.5]))
        2
        """
        return self.n_len

    def __repr__(self):
        return (f"DominanceCounter(dtype={self._dtype.__name__}) holding {self.n_len} "
                f"points ({self.n_entries} distinct) in {self.n_leaves} leaves")

    def stats(self):
        """``(label levels, score levels, copies)`` held with weight > 0. O(1).

        >>> dc = DominanceCounter(); dc.add(0, 0.5); dc.add(1, 0.5, 0); dc.stats()
        (1, 1, 1)
        """
        return self.n_levels, self.n_scores, self.n_pos

    def count(self, label, score):
        """Number of points held at exactly ``(label, score)``. Runtime complexity:
        O(log n).

        >>> DominanceCounter.from_arrays([1, 1, 2], [0.5, 0.5, 0.5]).count(1, 0.5)
        2
        """
        label, score = _checked_point(label, score, "DominanceCounter.count")
        cdef int32_t lf
        cdef int j = self._find(label + 0.0, score + 0.0, &lf)
        return 0 if j < 0 else self.lv[lf].cnt[j]

    def items(self):
        """Iterate over ``(label, score, copies, weight)`` for each distinct point, in
        (label, score) order. Runtime complexity: O(n) for the whole iteration.

        >>> list(DominanceCounter.from_arrays([2, 1, 2], [0.5, 0.5, 0.5]).items())
        [(1.0, 0.5, 1, 1), (2.0, 0.5, 2, 2)]
        """
        y, s, c, w, _ = self.columns()
        yield from zip(y.tolist(), s.tolist(), c.tolist(), w.tolist())

    def columns(self):
        """The distinct points as arrays ``(labels, scores, copies, weights, positive)``
        in (label, score) order; ``positive`` counts the copies of weight > 0. O(n).

        >>> DominanceCounter.from_arrays([1, 0, 1], [0.5, 0.9, 0.5], [1, 2, 0]).columns()[2:]
        (array([1, 2]), array([2, 1]), array([1, 1]))
        """
        cdef Py_ssize_t m = self.n_entries, k
        cdef KEnt* e = <KEnt*>malloc((m + 1) * sizeof(KEnt))
        if e == NULL:
            raise MemoryError()
        ys, ss = np.empty(m), np.empty(m)
        cs, ps = np.empty(m, np.int64), np.empty(m, np.int64)
        ws = np.empty(m, np.float64 if self.floats else np.int64)
        cdef double[::1] yv = ys, sv = ss
        cdef int64_t[::1] cv = cs, pv = ps
        cdef double[::1] fwv
        cdef int64_t[::1] iwv
        if self.floats:
            fwv = ws
        else:
            iwv = ws
        try:
            self._collect(self.root, e, 0)
            for k in range(m):
                yv[k], sv[k], cv[k], pv[k] = e[k].y, e[k].s, e[k].c, e[k].p
                if self.floats:
                    fwv[k] = e[k].w.f + e[k].fe
                else:
                    iwv[k] = e[k].w.i
        finally:
            free(e)
        return ys, ss, cs, ws, ps

    # ------------------------------------------------------------------ updates
    cdef int _check_total(self, int64_t iw, int64_t limit, str func, weight) except -1:
        if not self.floats and iw > limit - self.itot:
            raise param_error("weight", func, "small enough to keep the total weight "
                              f"below 2**{63 if limit == _INT64_MAX else 62}", repr(weight))
        return 0

    def add(self, label, score, weight=1):
        """Add the point ``(label, score)`` with ``weight``.

        Raises `ValueError` for a NaN label or score or an invalid weight (with
        ``dtype=int``, also one that would take the total past 2**63), before changing
        anything. Runtime complexity: O(log^2 n) amortized.

        >>> dc = DominanceCounter()
        >>> for i in range(100):            # labels 0.0 .. 9.9, scores a permutation
        ...     dc.add(i / 10, (i * 37) % 100)
        >>> dc.query(5.05, 50)
        ((26, 1, 24), (0, 0, 0), (24, 0, 25))
        """
        func = "DominanceCounter.add"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        self.add_pairs(label, score, weight, False)

    cpdef tuple add_pairs(self, double label, double score, weight, bint terms=True):
        """`pairs_with` ``(label, score)`` (None without ``terms``), then add the point.
        Arguments are trusted (a weight of the counter's type, ``>= 0``); `ValueError`
        for an int total past ``2**63``, before anything changes."""
        cdef int64_t iw = 0
        cdef double fw = 0.0
        cdef int64_t it[5]
        cdef double ft[5]
        if self.floats:
            fw = weight
        else:
            iw = weight
            self._check_total(iw, _INT64_MAX, "DominanceCounter.add", weight)
        if self.n_len >= 0x7FFFFFFF - 1:
            raise MemoryError("DominanceCounter holds fewer than 2**31 points")
        self._insert(label, score, 1, iw, fw, terms, it, ft)
        return self._pack(it, ft) if terms else None

    cdef tuple _pack(self, int64_t* it, double* ft):
        if self.floats:
            return ft[0], ft[1], ft[2], ft[3], ft[4]
        return it[0], it[1], it[2], it[3], it[4]

    cdef tuple _terms_tuple(self, double label, double score):
        cdef int64_t it[5]
        cdef double ft[5]
        if self.floats:
            self._terms_f(label, score, ft)
            return ft[0], ft[1], ft[2], ft[3], ft[4]
        self._terms_i(label, score, it)
        return it[0], it[1], it[2], it[3], it[4]

    cdef int _held(self, double label, double score, int64_t iw, double fw,
                   bint quiet) except -1:
        """1 if a copy ``(label, score, weight)`` can be removed; else 0 (``quiet``) or
        the `ValueError` naming what is not held."""
        cdef str func = "DominanceCounter.remove"
        cdef int32_t lf
        cdef int j = self._find(label + 0.0, score + 0.0, &lf)
        cdef bint positive = (fw > 0) if self.floats else (iw > 0)
        if j < 0:
            if quiet:
                return 0
            raise param_error("score", func, f"the score of a point held with label "
                              f"{label!r}", repr(score))
        cdef OLeaf* f = &self.lv[lf]
        cdef int32_t c = f.cnt[j], pc = f.pcnt[j]
        cdef int64_t held = f.w[j].i
        where = None if quiet else f"({label!r}, {score!r})"
        if positive and pc == 0 or not positive and c == pc:
            if quiet:
                return 0
            if not self.floats and c == 1:
                raise param_error("weight", func, f"{held!r}, the weight of the last copy "
                                  f"of {where}", repr(iw))
            raise param_error("weight", func, f"the weight of a copy held at {where}" +
                              (" (only weight-0 copies are)" if positive
                               else " (none of weight 0 is)"),
                              repr(fw if self.floats else iw))
        if not self.floats and positive and (iw > held or (pc == 1 and iw != held)):
            if quiet:
                return 0
            expected = (f"{held!r}, the weight of the last copy of {where}" if pc == 1
                        else f"at most {held!r}, the weight held at {where}")
            raise param_error("weight", func, expected, repr(iw))
        return 1

    def remove(self, label, score, weight=1):
        """Remove one point ``(label, score)`` added with ``weight``.

        Raises `ValueError`, before changing anything, if no such point is held (with
        ``dtype=int``, also if ``weight`` does not match the weight held there; with
        floats it is trusted, as in `WeightedSortedMultiset.remove`). Runtime
        complexity: O(log^2 n) amortized.

        >>> dc = DominanceCounter.from_arrays([1, 2], [0.5, 0.5])
        >>> dc.remove(2, 0.5); len(dc)
        1
        >>> dc.remove(2, 0.5)
        Traceback (most recent call last):
        ...
        ValueError: The 'score' parameter of DominanceCounter.remove must be the score of a point held with label 2.0. Got 0.5 instead.
        """
        func = "DominanceCounter.remove"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        self.remove_pairs(label, score, weight, False)

    cpdef tuple remove_pairs(self, double label, double score, weight, bint terms=True):
        """Remove one point added as ``(label, score, weight)``, then return `pairs_with`
        of it against what is left (None without ``terms``). `ValueError`, and nothing
        changes, if no such point is held (with ``dtype=int``, also if ``weight`` does
        not match)."""
        cdef int64_t iw = 0
        cdef double fw = 0.0
        if self.floats:
            fw = weight
        else:
            iw = weight
        cdef int64_t it[5]
        cdef double ft[5]
        self._held(label, score, iw, fw, False)
        self._remove(label, score, iw, fw, terms, it, ft)
        return self._pack(it, ft) if terms else None

    # ------------------------------------------------------------------ queries
    cdef tuple _rows(self, double label, double score):
        cdef int64_t ir[9]
        cdef double fr[9]
        cdef int j
        if self.floats:
            self._rows_f(label, score, fr)
            return tuple([fr[j] for j in range(9)])
        self._rows_i(label, score, ir)
        return tuple([ir[j] for j in range(9)])

    def query(self, label, score):
        """The 3 x 3 grid of held weight around ``(label, score)`` (module docstring of
        `streamrank.structures.dominance`).

        Ties: a held point with an equal label (or score) falls in the middle row (or
        column), never on either side. Runtime complexity: O(log^2 n).

        >>> dc = DominanceCounter.from_arrays([0, 1, 1, 2], [1.0, 1.0, 2.0, 0.0])
        >>> dc.query(1, 1.0)
        ((0, 1, 0), (0, 1, 1), (1, 0, 0))
        """
        label, score = _checked_point(label, score, "DominanceCounter.query")
        r = self._rows(label, score)
        lt, eq, col = r[0:3], r[3:6], r[6:9]
        gt = (col[0] - lt[0] - eq[0], col[1] - lt[1] - eq[1], col[2] - lt[2] - eq[2])
        return tuple((b, e, t - b - e) for b, e, t in (lt, eq, gt))

    def pairs_with(self, label, score):
        """``(concordant, discordant, tied_score, tied_label, tied_both)`` weights of the
        held points against ``(label, score)``; see `LevelDominanceCounter.pairs_with`.

        Runtime complexity: O(log^2 n).

        >>> DominanceCounter.from_arrays([0, 1, 2], [0.3, 0.1, 0.3]).pairs_with(1.5, 0.3)
        (1, 0, 2, 0, 0)
        """
        label, score = _checked_point(label, score, "DominanceCounter.pairs_with")
        return self._terms_tuple(label, score)

    def pairs_with_many(self, labels, scores, weights=None):
        """``sum_i weights[i] * pairs_with(labels[i], scores[i])``: the change of the five
        pair counts when a batch joins, leaving out the pairs inside the batch.

        Exact for ``dtype=int`` (128-bit sums). Runtime complexity: O(k log^2 n), one
        pair of walks per point, in C.

        >>> dc = DominanceCounter.from_arrays([0.5, 1.5], [0.2, 0.7])
        >>> dc.pairs_with_many([1.0, 0.0], [0.5, 0.5], [2, 1])
        (5, 1, 0, 0, 0)
        """
        func = "DominanceCounter.pairs_with_many"
        y, s = _points(labels, scores, func)
        cdef Py_ssize_t n = y.shape[0], i
        w = None if weights is None else _weights_array(weights, n, self._dtype, func)[0]
        cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
        cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
        cdef bint unit = w is None
        cdef double[::1] fwv
        cdef int64_t[::1] iwv
        if not unit:
            if self.floats:
                fwv = np.ascontiguousarray(w, dtype=np.float64)
            else:
                iwv = np.ascontiguousarray(w, dtype=np.int64)
        cdef sr_int128 acc[5]
        cdef double fa[5]
        cdef double fc[5]
        cdef int64_t it[5]
        cdef double ft[5]
        cdef int j
        cdef int64_t wi
        cdef double wf
        for j in range(5):
            acc[j] = 0
            fa[j] = fc[j] = 0.0
        for i in range(n):
            if self.floats:
                self._terms_f(yv[i] + 0.0, sv[i] + 0.0, ft)
                wf = 1.0 if unit else fwv[i]
                for j in range(5):
                    _two_sum_add(&fa[j], &fc[j], wf * ft[j])
            else:
                self._terms_i(yv[i] + 0.0, sv[i] + 0.0, it)
                wi = 1 if unit else iwv[i]
                for j in range(5):
                    acc[j] += <sr_int128>wi * it[j]
        if self.floats:
            return tuple([fa[j] + fc[j] for j in range(5)])
        return tuple([_py128(acc[j]) for j in range(5)])

    # ------------------------------------------------------------------ whole changes
    cdef bint _engine_weight(self, object w, int64_t* iw, double* fw) noexcept:
        """A plain weight valid for this mode (int mode: an int ``<= 2**53``)."""
        cdef double v
        if not _plain(w, &v) or v < 0:
            return False
        if self.floats:
            if v != 0 and not (_MIN_W <= v <= _MAX_W):
                return False
            fw[0] = v
            return True
        if v > _EXACT or v != <double>(<int64_t>v):   # the engine moves to floats
            return False
        iw[0] = <int64_t>v
        return True

    cdef int _bump_sums(self, int64_t* it, double* ft, int64_t iw, double fw,
                        int sign) except -1:
        """Add ``sign * w * terms`` and ``sign * w`` to `sums`."""
        if self.floats:
            self.sums.add(self._pack(it, ft), sign * fw, sign * fw)
        else:
            self.sums.add(self._pack(it, ft), sign * iw, sign * iw)
        return 0

    cdef int _eadd(self, double yy, double ss, int64_t iw, double fw) except -1:
        """`engine_add` of checked numbers: 1 if done, 0 (nothing changed) if the
        engine's checked path must take it."""
        if not self.floats and iw > _INT_TOTAL_MAX - self.itot:
            return 0
        if self.n_len >= 0x7FFFFFFF - 1:
            return 0
        cdef int64_t it[5]
        cdef double ft[5]
        cdef bint weighs = (fw != 0.0) if self.floats else (iw != 0)
        self._insert(yy, ss, 1, iw, fw, weighs, it, ft)
        if weighs:
            self._bump_sums(it, ft, iw, fw, 1)
        return 1

    cdef int _eremove(self, double yy, double ss, int64_t iw, double fw) except -1:
        """`engine_remove` of checked numbers: 1 if done, 0 (nothing changed) if no such
        copy is held."""
        cdef int64_t it[5]
        cdef double ft[5]
        cdef bint weighs = (fw != 0.0) if self.floats else (iw != 0)
        yy += 0.0
        ss += 0.0
        if not self._held(yy, ss, iw, fw, True):
            return 0
        self._remove(yy, ss, iw, fw, weighs, it, ft)
        if weighs:
            self._bump_sums(it, ft, iw, fw, -1)
        if not self.n_len:
            self.sums.reset(self.floats)    # an emptied engine holds exact zeros
        return 1

    def engine_add(self, y, s, w):
        """Add the sample ``(y, s, w)`` and its pairs to `sums`, all in C, if ``y``, ``s``
        and ``w`` are plain Python numbers valid here; ``False`` (nothing changed)
        otherwise. O(log^2 n) amortized.

        >>> dc = DominanceCounter(); dc.engine_add(0, 0.2, 1), dc.engine_add(1, 0.5, 1)
        (True, True)
        >>> dc.sums.values()       # one concordant pair, weight 2
        [1, 0, 0, 0, 0, 2]
        >>> dc.engine_add(2, 0.1, 0.5)   # a fraction: the engine's checked path
        False
        """
        cdef double yy, ss, fw = 0.0
        cdef int64_t iw = 0
        if not _plain(y, &yy) or not _plain(s, &ss) or not self._engine_weight(w, &iw, &fw):
            return False
        return self._eadd(yy, ss, iw, fw) == 1

    def engine_remove(self, y, s, w):
        """Remove a held sample ``(y, s, w)`` and its pairs from `sums`, all in C, if the
        arguments are plain numbers and such a copy is held; ``False`` (nothing changed)
        otherwise, for the engine's checked path to raise. O(log^2 n) amortized."""
        cdef double yy, ss, fw = 0.0
        cdef int64_t iw = 0
        if not _plain(y, &yy) or not _plain(s, &ss) or not self._engine_weight(w, &iw, &fw):
            return False
        return self._eremove(yy, ss, iw, fw) == 1

    def engine_change_arrays(self, y, s, w, int sign):
        """`engine_add` (``sign=1``) or `engine_remove` (``sign=-1``) every sample of the
        float64 arrays ``y``, ``s``, ``w`` (``None``: unit weights), in (label, score)
        order. Returns the positions (into the arrays) not done: empty, or those from the
        first sample that needs the engine's checked path on (nothing of them changed).
        O(k log^2 n).

        >>> dc = DominanceCounter()
        >>> dc.engine_change_arrays(np.array([0., 1., 2.]), np.array([.1, .3, .5]),
        ...                         np.array([1., 1., .5]), 1)
        array([2])
        >>> dc.sums.values()
        [1, 0, 0, 0, 0, 2]
        """
        cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
        cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
        cdef double[::1] wv
        cdef bint unit = w is None
        if not unit:
            wv = np.ascontiguousarray(w, dtype=np.float64)
        order = np.lexsort((np.asarray(sv), np.asarray(yv)))
        cdef Py_ssize_t[::1] ov = order.astype(np.intp)
        cdef Py_ssize_t r, i, n = yv.shape[0]
        cdef double wf
        cdef int64_t iw = 1
        cdef double fw = 1.0
        for r in range(n):
            i = ov[r]
            if not unit:
                wf = wv[i]
                if self.floats:
                    if wf < 0 or (wf != 0 and not (_MIN_W <= wf <= _MAX_W)):
                        break
                    fw = wf
                else:
                    if not (0 <= wf <= _EXACT) or wf != <double>(<int64_t>wf):
                        break
                    iw = <int64_t>wf
            if not isfinite(yv[i]) or not isfinite(sv[i]):
                break
            if sign > 0:
                if not self._eadd(yv[i], sv[i], iw, fw):
                    break
            elif not self._eremove(yv[i], sv[i], iw, fw):
                break
        else:
            return order[:0]
        return order[r:]

    def engine_apply(self, removes, adds):
        """`engine_remove` each ``(y, s, w)`` of the list ``removes``, then `engine_add`
        ``copies`` of each ``(y, s, w): copies`` of the dict ``adds``. Returns
        ``(removed, added)``: how many items of each were done before one needed the
        engine's checked path; nothing of that item or the ones after it was applied.
        O(k log^2 n)."""
        cdef Py_ssize_t r = 0, a = 0
        for y, s, w in removes:
            if not self.engine_remove(y, s, w):
                return r, a
            r += 1
        for item, copies in adds.items():
            y, s, w = item
            for _ in range(copies):
                if not self.engine_add(y, s, w):
                    return r, a
                a += 1
        return r, a

    def engine_auc(self):
        """``(C + T / 2) / P`` from `sums` with the structural zeros, as `PairCounts.auc`
        computes it, or ``None`` while ``P = 0``. O(1).

        >>> dc = DominanceCounter()
        >>> for y, s in [(0, 0.1), (1, 0.1), (1, 0.7)]:
        ...     _ = dc.engine_add(y, s, 1)
        >>> dc.engine_auc()
        0.75
        """
        if self.n_levels < 2:
            return None
        v = self.sums.values()
        scores = self.n_scores > 1
        tied = self.n_scores < self.n_pos
        zero = 0.0 if self.floats else 0
        c = v[0] if scores else zero
        d = v[1] if scores else zero
        t = v[2] if tied else zero
        if self.floats:
            den = c + d + t
            return None if den == 0 else min(1.0, max(0.0, (c + 0.5 * t) / den))
        den = 2 * (c + d + t)
        return None if den == 0 else min(1.0, max(0.0, (2 * c + t) / den))

    # ------------------------------------------------------------------ copies, checks
    def __reduce__(self):
        """Pickle and copy by value: the tree bit for bit (restored as it is where the
        node layout is this build's), the points held, and `sums`."""
        return _restore, (self._dtype, self.columns(), self.sums, _raw_state(self))

    def __setstate__(self, state):
        """Restore a counter pickled by the Python implementation of earlier releases
        (a tree of ``_Inner`` / ``_Leaf`` objects): its points, loaded afresh."""
        _restore_legacy(self, state)

    def _check(self):
        """Assert every invariant, every node's multiset included: O(n log n)."""
        try:
            _check_counter(self)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self!r}") from None
