# Batches, loads, copies and checks of `LevelDominanceCounter` (`_levels.pxi`; included
# in `_cbinary.pyx` after it): module functions its methods call.


cdef dict _positive_scores(_BTree t):
    """``{score: copies of weight > 0}`` of one tree's entries. O(n)."""
    cdef list where = []
    cdef dict out = {}
    cdef int32_t node
    cdef int pos
    cdef int64_t p
    t.entries(where)
    for node, pos in where:
        p = t._pc(node, 0)[pos] + t._pc(node, 1)[pos]
        if p:
            out[t.n[node].key[pos]] = p
    return out


cdef object _auc(Sums m, bint scores, bint tied):
    """``(C + T / 2) / P`` from the running counts, as `PairCounts.auc` computes it, with
    ``C = D = 0`` unless ``scores`` and ``T = 0`` unless ``tied`` (structural zeros)."""
    cdef sr_int128 ic, it, inum, iden
    cdef double fc, fd, ft, den
    if m.floats:
        fc = max(0.0, m.f[0] + m.e[0]) if scores else 0.0
        fd = max(0.0, m.f[1] + m.e[1]) if scores else 0.0
        ft = max(0.0, m.f[2] + m.e[2]) if tied else 0.0
        den = fc + fd + ft
        if den == 0:
            return None
        return min(1.0, max(0.0, (fc + 0.5 * ft) / den))
    ic = m.i[0] if scores else 0
    it = m.i[2] if tied else 0
    inum = 2 * ic + it
    iden = 2 * (ic + (m.i[1] if scores else 0) + it)
    if iden == 0:
        return None
    if iden < (<sr_int128>1) << 53:      # both exact doubles: one correct rounding
        return min(1.0, max(0.0, <double>inum / <double>iden))
    return min(1.0, max(0.0, _py128(inum) / _py128(iden)))


def _change_arrays(LevelDominanceCounter self, y, s, w, int sign):
    """`LevelDominanceCounter.engine_change_arrays`."""
    cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
    cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
    cdef double[::1] wv
    cdef bint unit = w is None
    if not unit:
        wv = np.ascontiguousarray(w, dtype=np.float64)
    order = np.argsort(np.asarray(sv), kind="stable")
    cdef Py_ssize_t[::1] ov = order
    cdef Py_ssize_t r, i, n = yv.shape[0]
    cdef double wf
    cdef int64_t iw = 1
    cdef double fw = 1.0
    for r in range(n):
        i = ov[r]
        if not unit:
            wf = wv[i]
            if self._floats:
                if not _in_domain(wf):
                    break
                fw = wf
            else:
                if not (0 <= wf <= _EXACT) or wf != <double>(<int64_t>wf):
                    break
                iw = <int64_t>wf
        if sign > 0:
            if not _eadd(self, yv[i], sv[i], iw, fw):
                break
        elif not _eremove(self, yv[i], sv[i], iw, fw):
            break
    else:
        return order[:0]
    return order[r:]


def _grid(LevelDominanceCounter self, double label, double score):
    """`LevelDominanceCounter.query`: one walk per tree."""
    cdef int64_t ib[2]
    cdef int64_t ie[2]
    cdef double fb[2]
    cdef double fe_[2]
    cdef int j, k, q
    cdef _BTree t
    cdef object below, equal, above     # Python numbers of the counter's dtype
    zero = self._dtype(0)
    rows = [[zero, zero, zero], [zero, zero, zero], [zero, zero, zero]]
    for j in range(self._ntrees):
        if not (self._has[2 * j] or self._has[2 * j + 1]):
            continue
        t = <_BTree>self._trees[j]
        if self._floats:
            t.fbelow(score, fb, fe_)
        else:
            t.ibelow(score, ib, ie)
        for k in range(2):
            q = 2 * j + k
            if not self._has[q]:
                continue
            lab = self._label[q]
            if self._floats:
                below, equal = fb[k], fe_[k]
            else:
                below, equal = ib[k], ie[k]
            above = self._tot(q) - below - equal
            if self._floats and above < 0:
                above = 0.0
            row = rows[0 if lab < label else (1 if lab == label else 2)]
            row[0] += below
            row[1] += equal
            row[2] += above
    return tuple(map(tuple, rows))


def _pairs_many(LevelDominanceCounter self, labels, scores, weights):
    """`LevelDominanceCounter.pairs_with_many`: in score order, so that the walks share
    their upper nodes."""
    func = f"{self._name}.pairs_with_many"
    y, s = check_points(labels, scores, func)
    cdef Py_ssize_t n = y.shape[0], i, r
    w = None if weights is None else structure_weights(weights, n, self._dtype, func)[0]
    cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
    cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
    cdef bint unit = w is None
    cdef double[::1] fwv
    cdef int64_t[::1] iwv
    if not unit:
        if self._floats:
            fwv = np.ascontiguousarray(w, dtype=np.float64)
        else:
            iwv = np.ascontiguousarray(w, dtype=np.int64)
    cdef int64_t ib[2]
    cdef int64_t ie[2]
    cdef double fb[2]
    cdef double fe_[2]
    cdef sr_int128 it[5]
    cdef double ft[5]
    cdef double fc[5]
    cdef int m = 2 * self._ntrees
    cdef int64_t[::1] itot = np.zeros(m, np.int64)
    cdef double[::1] ftot = np.zeros(m, np.float64)
    cdef int j, k, q
    cdef double lab, yi, below_f, equal_f, above_f, wf
    cdef int64_t below_i, equal_i, above_i, wi
    cdef _BTree t
    for j in range(5):
        it[j] = 0
        ft[j] = 0.0
        fc[j] = 0.0
    for q in range(m):
        if self._floats:
            ftot[q] = self._tot(q)
        else:
            itot[q] = self._tot(q)
    trees = self._trees
    cdef Py_ssize_t[::1] order = np.argsort(np.asarray(sv), kind="stable")
    for r in range(n):
        i = order[r]
        yi = yv[i]
        wf = 1.0 if unit or not self._floats else fwv[i]
        wi = 1 if unit or self._floats else iwv[i]
        for j in range(self._ntrees):
            if not (self._has[2 * j] or self._has[2 * j + 1]):
                continue
            t = <_BTree>trees[j]
            if self._floats:
                t.fbelow(sv[i], fb, fe_)
            else:
                t.ibelow(sv[i], ib, ie)
            for k in range(2):
                q = 2 * j + k
                if not self._has[q]:
                    continue
                lab = self._label[q]
                if self._floats:
                    below_f, equal_f = fb[k], fe_[k]
                    if lab == yi:
                        _two_sum_add(&ft[3], &fc[3], wf * ftot[q])
                        _two_sum_add(&ft[4], &fc[4], wf * equal_f)
                        continue
                    above_f = ftot[q] - below_f - equal_f
                    if above_f < 0:
                        above_f = 0.0
                    _two_sum_add(&ft[2], &fc[2], wf * equal_f)
                    if lab < yi:
                        _two_sum_add(&ft[0], &fc[0], wf * below_f)
                        _two_sum_add(&ft[1], &fc[1], wf * above_f)
                    else:
                        _two_sum_add(&ft[0], &fc[0], wf * above_f)
                        _two_sum_add(&ft[1], &fc[1], wf * below_f)
                    continue
                below_i, equal_i = ib[k], ie[k]
                if lab == yi:
                    it[3] += <sr_int128>wi * itot[q]
                    it[4] += <sr_int128>wi * equal_i
                    continue
                above_i = itot[q] - below_i - equal_i
                it[2] += <sr_int128>wi * equal_i
                if lab < yi:
                    it[0] += <sr_int128>wi * below_i
                    it[1] += <sr_int128>wi * above_i
                else:
                    it[0] += <sr_int128>wi * above_i
                    it[1] += <sr_int128>wi * below_i
    if self._floats:
        return tuple(max(0.0, ft[j] + fc[j]) for j in range(5))
    return tuple(_py128(it[j]) for j in range(5))


def _load(LevelDominanceCounter self, labels, scores, copies, weights, positive):
    """`LevelDominanceCounter.load`: level ``i`` (in label order) takes slot ``i``."""
    func = f"{self._name}.load"
    y, s, c, w = check_load_args(labels, scores, copies, weights, self._dtype, func)
    levels = np.unique(y)
    if self._max_levels and levels.shape[0] > self._max_levels:
        raise param_error("labels", func, "at most two distinct labels",
                          f"{levels.shape[0]} labels")
    if not self._floats and w.shape[0] and float(w.sum(dtype=np.float64)) >= \
            0.999 * _INT_TOTAL_MAX and int(w.sum(dtype=object)) >= _INT_TOTAL_MAX:
        raise param_error("weights", func, "weights whose total stays below 2**62 (use "
                          "dtype=float)", f"a total of {int(w.sum(dtype=object))}")
    if positive is None:
        p = np.where(w > 0, c, 0)
    else:
        p = np.asarray(positive, dtype=np.int64)
        if p.shape != c.shape or (p < 0).any() or (p > c).any() or \
                (not self._floats and (((p == 0) & (w > 0)) | ((p > 0) & (w == 0))).any()):
            raise param_error("positive", func, "per point, copies of weight > 0 "
                              "(between 1 and copies where the weight is > 0, else 0)",
                              describe(positive))
        if self._floats:    # a weight > 0 rounded to 0 there, or a residue where none is
            w = np.where(p > 0, w, 0.0)
    self._reset()
    _mo_off(self._t)        # counted once after the load instead (O(n))
    cdef int q
    for q, level in enumerate(levels.tolist()):
        if q >= 2 * self._ntrees:
            _add_tree(self)
        self._has[q] = 1
        self._label[q] = level
        self._nheld += 1
    order = np.argsort(s)  # ascending in every tree: 3/4-full nodes
    cdef double[::1] yv = np.ascontiguousarray(y[order], dtype=np.float64)
    cdef double[::1] sv = np.ascontiguousarray(s[order], dtype=np.float64)
    cdef int64_t[::1] cv = np.ascontiguousarray(c[order], dtype=np.int64)
    cdef int64_t[::1] pv = np.ascontiguousarray(p[order], dtype=np.int64)
    cdef int64_t[::1] qv = np.ascontiguousarray(np.searchsorted(levels, y[order]),
                                                dtype=np.int64)
    cdef double[::1] fwv
    cdef int64_t[::1] iwv
    if self._floats:
        fwv = np.ascontiguousarray(w[order], dtype=np.float64)
    else:
        iwv = np.ascontiguousarray(w[order], dtype=np.int64)
    cdef Py_ssize_t i, n = y.shape[0]
    cdef _BTree t
    for i in range(n):
        if cv[i] == 0:
            continue
        q = <int>qv[i]
        t = self._tree(q)
        if self._floats:
            t.add_at(sv[i], q & 1, cv[i], pv[i], 0, fwv[i])
        else:
            t.add_at(sv[i], q & 1, cv[i], pv[i], iwv[i], 0.0)
    for q in range(2 * self._ntrees):
        if self._has[q] and not self._tree(q).ncopies[q & 1]:
            self._has[q] = 0
            self._nheld -= 1
    if self._ntrees > 1:
        self._npscores = np.unique(s[p > 0] + 0.0).size
    if self._moments:
        _mo_on(self._t)


def _columns(LevelDominanceCounter self):
    """`LevelDominanceCounter.columns`."""
    cdef list wheres = []
    cdef list where
    cdef _BTree t
    for t in self._trees:
        where = []
        t.entries(where)
        wheres.append(where)
    order = sorted((self._label[q], q) for q in range(2 * self._ntrees) if self._has[q])
    cdef Py_ssize_t r = 0, n_rows = 0
    cdef int q, k, pos
    cdef int32_t node
    for _, q in order:
        t = self._tree(q)
        k = q & 1
        n_rows += sum(1 for node, pos in wheres[q >> 1] if t.n[node].r.c[k][pos])
    ys = np.empty(n_rows)
    ss = np.empty(n_rows)
    cs = np.empty(n_rows, np.int64)
    ps = np.empty(n_rows, np.int64)
    ws = np.empty(n_rows, np.float64 if self._floats else np.int64)
    cdef double[::1] yv = ys, sv = ss
    cdef int64_t[::1] cv = cs, pv = ps
    for label, q in order:
        t = self._tree(q)
        k = q & 1
        for node, pos in wheres[q >> 1]:
            if not t.n[node].r.c[k][pos]:
                continue
            yv[r] = label
            sv[r] = t.n[node].key[pos]
            cv[r] = t.n[node].r.c[k][pos]
            pv[r] = t._pc(node, k)[pos]
            if self._floats:
                ws[r] = t.n[node].w[k][pos].f + t.fe[node].fe[k][pos]
            else:
                ws[r] = t.n[node].w[k][pos].i
            r += 1
    return ys, ss, cs, ws, ps


def _raws(LevelDominanceCounter self):
    """Each tree bit for bit (`_BTree.raw`) and each slot's ``(label, held)``."""
    cdef _BTree t
    trees = tuple(t.raw() for t in self._trees)
    return trees, tuple((self._label[q], bool(self._has[q]))
                        for q in range(2 * self._ntrees))


def _set_raws(LevelDominanceCounter self, raws):
    """Restore `_raws`; False (nothing changed) if a tree was written with another node
    layout."""
    trees, slots = raws
    cdef list built = []
    cdef _BTree t
    for layout, nodes, header in trees:
        t = _BTree()
        if not t.set_raw(layout, nodes, header):
            return False
        built.append(t)
    self._reset()
    for _ in range(len(built) - 1):
        _add_tree(self)
    self._trees = built
    self._t = <_BTree>built[0]
    cdef int q
    for q in range(2 * self._ntrees):
        self._label[q], has = slots[q]
        self._has[q] = has
        self._nheld += bool(has)
    if self._ntrees > 1:
        self._npscores = len(set().union(*(_positive_scores(t) for t in built)))
    return True


def _restore_counter(cls, dtype, columns, sums, raws, engine_max_levels):
    """Unpickle a counter: its trees bit for bit where the node layout is this build's
    (else rebuilt from ``columns``, equal to rounding)."""
    counter = cls(dtype=dtype)
    if not _set_raws(counter, raws):
        y, s, c, w, p = columns
        counter.load(y, s, c, w, p)
    counter.sums = sums
    counter.engine_max_levels = engine_max_levels
    return counter


def _adopt(LevelDominanceCounter self, LevelDominanceCounter other):
    """`LevelDominanceCounter.adopt`."""
    if other._ntrees != 1 or other._dtype is not self._dtype or len(self):
        raise ValueError(f"{self._name}.adopt takes the one tree of a counter of dtype "
                         f"{self._dtype.__name__} into an empty counter")
    self._trees, self._t = other._trees, other._t
    self._label[0], self._label[1] = other._label[0], other._label[1]
    self._has[0], self._has[1] = other._has[0], other._has[1]
    self._nheld = other._nheld
    self._moments = self._moments or other._moments
    other._moments = False
    other._reset()


def _check_counter(LevelDominanceCounter self):
    """`LevelDominanceCounter._check`."""
    cdef int q, held = 0
    cdef _BTree t
    assert len(self._trees) == self._ntrees >= 1 and self._t is self._trees[0]
    assert self._max_levels == 0 or self._ntrees == 1
    labels = []
    scores = {}
    for j, t in enumerate(self._trees):
        assert t.floats == self._floats
        count, sums, copies, pos, pscores = t._check()
        for k in range(2):
            q = 2 * j + k
            assert bool(self._has[q]) == (copies[k] > 0), (q, self._has[q], copies[k])
            if self._has[q]:
                held += 1
                labels.append(self._label[q])
            if self._floats:
                got = t.ftot(k)
                assert abs(got - sums[k]) <= 1e-9 * max(sums[0] + sums[1], 1e-300), \
                    (q, got, sums[k])
        for key, p in _positive_scores(t).items():
            scores[key] = scores.get(key, 0) + p
    assert held == self._nheld and len(set(labels)) == held, (held, self._nheld, labels)
    if self._ntrees > 1:
        assert self._npscores == len(scores), (self._npscores, len(scores))
    if not self._floats:
        assert self._itotal() <= _INT_TOTAL_MAX
    assert self.sums.floats == self._floats


# The placement moments of the counter (kept on its first tree: `_cbtree`'s `_moments.pxi`).

def _counter_moments(LevelDominanceCounter self):
    """`LevelDominanceCounter.placement_moments`."""
    cdef int q, lo = -1, hi = -1
    cdef _BTree t
    self._moments = True
    _mo_on(self._t)
    if self._floats or self._nheld != 2:
        return None
    for q in range(2 * self._ntrees):
        if self._has[q]:
            if lo < 0:
                lo = q
            else:
                hi = q
    if hi == lo + 1 and lo % 2 == 0:     # both levels on one tree: class 1 is slot hi
        moments = _mo_read(self._tree(lo))
        if self._label[hi] < self._label[lo]:
            moments = _swap_classes(moments)
    else:                                # on two trees (after a third level came)
        w = [_tree_weights(self._tree(q))[q & 1] for q in (lo, hi)]
        if self._label[hi] < self._label[lo]:
            w.reverse()
        moments = _placements(w[0], w[1])
    if not moments[0] or not moments[1]:
        return None
    return moments


def _moments_kept(LevelDominanceCounter counter):
    """Whether the counter's first tree keeps its placement moments now (tests: that a
    change kept them rather than leaving the next read to count them again)."""
    return counter._t.mo != NULL
