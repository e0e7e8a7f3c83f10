# `DominanceCounter` (included by `_cdominance.pyx`): the Python interface over
# `_DomTree`, and the whole-change fast path of `PairEngine`.

cdef class DominanceCounter(_DomEngine):
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

    def __cinit__(self, *args, **kwargs):
        self._dtype = int

    def __init__(self, *, dtype=int):
        self._set_dtype(check_dtype(dtype, "DominanceCounter"))

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
        return counter_from_arrays(cls, labels, scores, weights, dtype)

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
        y, s, c, w = check_load_args(labels, scores, copies, weights, self._dtype, func)
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
        label, score = check_point(label, score, "DominanceCounter.count")
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
        label, score = check_point(label, score, func)
        weight = check_structure_weight(weight, self._dtype, func)
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

    def remove(self, label, score, weight=1):
        """Remove one point ``(label, score)`` added with ``weight``.

        Raises `ValueError`, before changing anything, if no such point is held (with
        ``dtype=int``, also if ``weight`` does not match the weight held there; with
        floats it is trusted: the last copy at a key takes what is left). Runtime
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
        label, score = check_point(label, score, func)
        weight = check_structure_weight(weight, self._dtype, func)
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
        label, score = check_point(label, score, "DominanceCounter.query")
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
        label, score = check_point(label, score, "DominanceCounter.pairs_with")
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
        y, s = check_points(labels, scores, func)
        cdef Py_ssize_t n = y.shape[0], i
        w = None if weights is None else structure_weights(weights, n, self._dtype, func)[0]
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

    # ------------------------------------------------------------------ copies, checks
    def __reduce__(self):
        """Pickle and copy by value: the tree bit for bit (restored as it is where the
        node layout is this build's), the points held, and `sums`."""
        return _restore, (self._dtype, self.columns(), self.sums, _raw_state(self))

    def _check(self):
        """Assert every invariant, every node's multiset included: O(n log n)."""
        try:
            _check_counter(self)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self!r}") from None
