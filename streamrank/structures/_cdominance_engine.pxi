# The whole-change fast path of `PairEngine` over `_DomTree` (included by
# `_cdominance.pyx`): validation of plain Python numbers, the terms, the change and the
# running counts in `sums`; `DominanceCounter` (`_cdominance_api.pxi`) derives from it.


cdef class _DomEngine(_DomTree):
    """`_DomTree` with the engine's running counts and its whole changes."""

    cdef public object sums     # the engine's running counts (``engine_add`` updates them)

    def __cinit__(self, *args, **kwargs):
        self.sums = Sums(False)

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
        cdef double fheld
        if self.floats and positive:
            # more than the weight held there (beyond the rounding of what passed)
            fheld = f.w[j].f + f.fe[j]
            if fw > fheld + 2.0 ** -30 * (self.sums.hist + fw):
                if quiet:
                    return 0
                raise param_error("weight", func, f"at most {fheld!r}, the weight held at "
                                  f"{where}", repr(fw))
        return 1

    # ------------------------------------------------------------------ whole changes
    cdef bint _engine_weight(self, object w, int64_t* iw, double* fw) noexcept:
        """A plain weight valid for this mode (int mode: an int ``<= 2**53``)."""
        cdef double v
        if not _plain(w, &v) or v < 0:
            return False
        if self.floats:
            if not _in_domain(v):
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
                    if not _in_domain(wf):
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
