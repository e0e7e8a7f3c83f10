# The compiled single changes of `LevelDominanceCounter` (`_levels.pxi`; included in
# `_cbinary.pyx` after it): the walks over several trees (all at once, one level of each
# per round, each next node prefetched so that the cache misses of the trees overlap) and
# the terms from them; whether a copy is held; the engine's whole changes; opening a tree.


cdef extern from *:
    """
    #define SR_PREFETCH(p) __builtin_prefetch((const void*)(p))
    """
    void SR_PREFETCH(const void*) noexcept nogil


cdef inline void _prefetch_node(BNode* x) noexcept nogil:
    """The header, keys, weights and children of node ``x`` on their way to the cache (a
    leaf's copies share the children's bytes: the first ones come along)."""
    cdef const char* p = <const char*>x
    cdef size_t off
    for off in range(0, <size_t>(<char*>&x.r.child[FAN] - <char*>x), 64):
        SR_PREFETCH(p + off)


cdef inline void _prefetch_comp(BComp* e) noexcept nogil:
    """The compensations of a node (a leaf's, read in float mode) on their way too."""
    cdef const char* p = <const char*>e
    cdef size_t off
    for off in range(0, sizeof(BComp), 64):
        SR_PREFETCH(p + off)


cdef void _walk_trees(LevelDominanceCounter self, double s) noexcept:
    """Every tree's weight below and at ``s`` per slot (`_ib` / `_ie`, or `_fb` /
    `_fe` in float mode), and `_pcat`: walked all at once, one level of each tree per
    round, each next node prefetched (the same sums as `_BTree.ibelow` / `fbelow`)."""
    cdef int T = self._ntrees, t, j, active = 0
    cdef int32_t i
    cdef BNode* x
    cdef BComp* e
    cdef bint floats = self._floats
    cdef _BTree tree
    self._pcat = 0
    for t in range(T):
        self._ib[2 * t] = self._ib[2 * t + 1] = 0
        self._fb[2 * t] = self._fb[2 * t + 1] = 0.0
        self._ie[2 * t] = self._ie[2 * t + 1] = 0
        self._fe[2 * t] = self._fe[2 * t + 1] = 0.0
        if not (self._has[2 * t] or self._has[2 * t + 1]):
            self._wnode[t] = NIL
            continue
        tree = <_BTree>self._trees[t]
        self._wbase[t] = tree.n
        self._wfe[t] = tree.fe
        self._wpc[t] = tree.pc
        self._wnode[t] = tree.root
        active += 1
    while active:
        for t in range(T):
            i = self._wnode[t]
            if i == NIL:
                continue
            x = &self._wbase[t][i]
            j = 0
            if x.leaf:
                self._wnode[t] = NIL
                active -= 1
                if floats:
                    e = &self._wfe[t][i]
                    while j < x.n and x.key[j] < s:
                        self._fb[2 * t] += x.w[0][j].f + e.fe[0][j]
                        self._fb[2 * t + 1] += x.w[1][j].f + e.fe[1][j]
                        j += 1
                    if j < x.n and x.key[j] == s:
                        self._fe[2 * t] = x.w[0][j].f + e.fe[0][j]
                        self._fe[2 * t + 1] = x.w[1][j].f + e.fe[1][j]
                    else:
                        continue
                else:
                    while j < x.n and x.key[j] < s:
                        self._ib[2 * t] += x.w[0][j].i
                        self._ib[2 * t + 1] += x.w[1][j].i
                        j += 1
                    if j < x.n and x.key[j] == s:
                        self._ie[2 * t] = x.w[0][j].i
                        self._ie[2 * t + 1] = x.w[1][j].i
                    else:
                        continue
                if self._wpc[t] == NULL:     # every copy has weight > 0 (`_BTree.pc`)
                    self._pcat += x.r.c[0][j] + x.r.c[1][j]
                else:
                    self._pcat += self._wpc[t][i].pc[0][j] + self._wpc[t][i].pc[1][j]
                continue
            if floats:
                while j < x.n and x.key[j] < s:
                    self._fb[2 * t] += x.w[0][j].f
                    self._fb[2 * t + 1] += x.w[1][j].f
                    j += 1
            else:
                while j < x.n and x.key[j] < s:
                    self._ib[2 * t] += x.w[0][j].i
                    self._ib[2 * t + 1] += x.w[1][j].i
                    j += 1
            if j == x.n:
                self._wnode[t] = NIL
                active -= 1
                continue
            i = x.r.child[j]
            self._wnode[t] = i
            _prefetch_node(&self._wbase[t][i])
            if floats:
                _prefetch_comp(&self._wfe[t][i])


cdef int _add_tree(LevelDominanceCounter self) except -1:
    """Open one more tree (two more level slots) in ``self``, growing its per-tree arrays."""
    cdef int n = self._ntrees + 1
    cdef double* lab = <double*>realloc(self._label, 2 * n * sizeof(double))
    if lab == NULL:
        raise MemoryError()
    self._label = lab
    cdef char* has = <char*>realloc(self._has, 2 * n * sizeof(char))
    if has == NULL:
        raise MemoryError()
    self._has = has
    _grow_array(<void**>&self._wbase, n * sizeof(BNode*))
    _grow_array(<void**>&self._wfe, n * sizeof(BComp*))
    _grow_array(<void**>&self._wpc, n * sizeof(BPos*))
    _grow_array(<void**>&self._wnode, n * sizeof(int32_t))
    _grow_array(<void**>&self._ib, 2 * n * sizeof(int64_t))
    _grow_array(<void**>&self._ie, 2 * n * sizeof(int64_t))
    _grow_array(<void**>&self._fb, 2 * n * sizeof(double))
    _grow_array(<void**>&self._fe, 2 * n * sizeof(double))
    cdef _BTree t = _BTree()
    t.set_floats(self._floats)
    self._trees.append(t)
    self._has[2 * n - 2] = self._has[2 * n - 1] = 0
    self._ntrees = n
    if n == 2:      # the score levels now span trees: counted here from now on
        self._npscores = self._t.pos_scores
    return 0


cdef tuple _engine_apply(LevelDominanceCounter self, removes, adds):
    """`LevelDominanceCounter.engine_apply`: the changes in one C loop."""
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


cdef inline void _iterms(LevelDominanceCounter self, int q, double label, double s,
                         int64_t* out) noexcept:
    """The `pairs_with` terms of ``(label, s)`` in slot ``q`` (-1: not held; int)."""
    cdef int64_t b[2]
    cdef int64_t e[2]
    cdef int64_t above
    cdef int o, k
    if self._ntrees == 1 and q >= 0:      # the two-level tree: one walk
        k = q
        o = 1 - k
        self._t.ibelow(s, b, e)
        above = self._t.itot[o] - b[o] - e[o]
        if self._has[o] and self._label[o] > label:
            out[0], out[1] = above, b[o]
        else:
            out[0], out[1] = b[o], above
        out[2] = e[o]
        out[3] = self._t.itot[k]
        out[4] = e[k]
        return
    _iterms_trees(self, q, label, s, out)

cdef inline void _fterms(LevelDominanceCounter self, int q, double label, double s,
                         double* out) noexcept:
    """The `pairs_with` terms of ``(label, s)`` in slot ``q`` (-1: not held; float)."""
    cdef double b[2]
    cdef double e[2]
    cdef double above
    cdef int o, k
    if self._ntrees == 1 and q >= 0:
        k = q
        o = 1 - k
        self._t.fbelow(s, b, e)
        above = self._t.ftot(o) - b[o] - e[o]
        if above < 0:
            above = 0.0
        if self._has[o] and self._label[o] > label:
            out[0], out[1] = above, b[o]
        else:
            out[0], out[1] = b[o], above
        out[2] = e[o]
        out[3] = self._t.ftot(k)
        out[4] = e[k]
        return
    _fterms_trees(self, q, label, s, out)


cdef void _iterms_trees(LevelDominanceCounter self, int q, double label, double s,
                        int64_t* out) noexcept:
    """`_iterms` over several trees: one `_walk_trees`, then each
    held level by its label against ``label``."""
    cdef int64_t above
    cdef int k, j, r
    cdef _BTree t
    for j in range(5):
        out[j] = 0
    _walk_trees(self, s)
    for j in range(self._ntrees):
        if not (self._has[2 * j] or self._has[2 * j + 1]):
            continue
        t = <_BTree>self._trees[j]
        for k in range(2):
            r = 2 * j + k
            if not self._has[r]:
                continue
            if r == q:
                out[3] = t.itot[k]
                out[4] = self._ie[r]
                continue
            above = t.itot[k] - self._ib[r] - self._ie[r]
            out[2] += self._ie[r]
            if self._label[r] < label:
                out[0] += self._ib[r]
                out[1] += above
            else:
                out[0] += above
                out[1] += self._ib[r]


cdef void _fterms_trees(LevelDominanceCounter self, int q, double label, double s,
                        double* out) noexcept:
    """`_fterms` over several trees (float mode)."""
    cdef double above
    cdef int k, j, r
    cdef _BTree t
    for j in range(5):
        out[j] = 0.0
    _walk_trees(self, s)
    for j in range(self._ntrees):
        if not (self._has[2 * j] or self._has[2 * j + 1]):
            continue
        t = <_BTree>self._trees[j]
        for k in range(2):
            r = 2 * j + k
            if not self._has[r]:
                continue
            if r == q:
                out[3] = t.ftot(k)
                out[4] = self._fe[r]
                continue
            above = t.ftot(k) - self._fb[r] - self._fe[r]
            if above < 0:
                above = 0.0
            out[2] += self._fe[r]
            if self._label[r] < label:
                out[0] += self._fb[r]
                out[1] += above
            else:
                out[0] += above
                out[1] += self._fb[r]


cdef int _held(LevelDominanceCounter self, int q, double score, int64_t iw, double fw,
               bint positive, bint quiet) except -1:
    """1 if a copy ``(slot q, score, weight)`` is held; else 0 (``quiet``) or the
    `ValueError` naming what is not held."""
    cdef int32_t leaf
    cdef int pos, k = q & 1
    cdef BNode* x
    cdef _BTree t
    cdef int64_t held, pc
    if q < 0:
        if quiet:
            return 0
        raise param_error("label", f"{self._name}.remove", "the label of a point held", "")
    t = self._tree(q)
    if not t.find(score, &leaf, &pos) or t.n[leaf].r.c[k][pos] == 0:
        if quiet:
            return 0
        raise param_error("score", f"{self._name}.remove", "the score of a point held "
                          f"with label {self._label[q]!r}", repr(score))
    x = &t.n[leaf]
    pc = t._pc(leaf, k)[pos]
    if positive and pc == 0 or not positive and x.r.c[k][pos] == pc:
        if quiet:
            return 0
        raise param_error("weight", f"{self._name}.remove", "the weight of a copy held at "
                          f"{score!r}" + (" (only weight-0 copies are)" if positive
                                          else " (none of weight 0 is)"),
                          repr(fw if self._floats else iw))
    if not self._floats and positive:
        held = x.w[k][pos].i
        if iw > held or (pc == 1 and iw != held):
            if quiet:
                return 0
            expected = (f"{held!r}, the weight of the last copy of {score!r}"
                        if pc == 1 else f"at most {held!r}, the weight held "
                        f"at {score!r}")
            raise param_error("weight", f"{self._name}.remove", expected, repr(iw))
    cdef double fheld
    if self._floats and positive:
        # more than the weight held there (beyond the rounding of what passed): not held
        fheld = x.w[k][pos].f + (t.fe[leaf].fe[k][pos] if t.fe != NULL else 0.0)
        if fw > fheld + _HELD_SLACK * (self.sums.hist + fw):
            if quiet:
                return 0
            raise param_error("weight", f"{self._name}.remove", f"at most {fheld!r}, the "
                              f"weight held at {score!r}", repr(fw))
    return 1


cdef bint _engine_weight(LevelDominanceCounter self, object w, int64_t* iw,
                         double* fw) noexcept:
    """A plain weight valid for this mode (int mode: an int ``<= 2**53``)."""
    cdef double v
    return _plain(w, &v) and _weight_ok(self, v, iw, fw)


cdef bint _weight_ok(LevelDominanceCounter self, double v, int64_t* iw,
                     double* fw) noexcept:
    """`_engine_weight` of a weight as a double."""
    if v < 0:
        return False
    if self._floats:
        if not _in_domain(v):
            return False
        fw[0] = v
        return True
    if v > _EXACT or v != <double>(<int64_t>v):   # the engine moves to floats
        return False
    iw[0] = <int64_t>v
    return True


cdef int _eadd(LevelDominanceCounter self, double yy, double ss, int64_t iw,
               double fw) except -1:
    """`engine_add` of checked numbers: 1 if done, 0 (nothing changed) if the engine's
    checked path must take it."""
    cdef int64_t it[5]
    cdef double ft[5]
    cdef int q = self._slot_of(yy)
    if not self._floats and self._itotal() + iw > _INT_TOTAL_MAX:
        return 0
    if q < 0:
        if not self._room():
            return 0
        q = self._new_level(yy, "")
    if self._floats:
        _fterms(self, q, yy, ss, ft)
        self._put(q, ss, 0, fw)
        self.sums.add_f(ft, fw, fw)
    else:
        _iterms(self, q, yy, ss, it)
        self._put(q, ss, iw, 0.0)
        self.sums.add_i(it, iw, iw)
    return 1


cdef int _eremove(LevelDominanceCounter self, double yy, double ss, int64_t iw,
                  double fw) except -1:
    """`engine_remove` of checked numbers: 1 if done, 0 (nothing changed) if no such
    copy is held."""
    cdef int64_t it[5]
    cdef double ft[5]
    cdef int q = self._slot_of(yy)
    cdef bint positive = (fw > 0) if self._floats else (iw > 0)
    if self._ntrees > 1 and q >= 0:
        _walk_trees(self, ss)      # every tree's path into the cache at once (misses overlap)
    if not _held(self, q, ss, iw, fw, positive, True):
        return 0
    self._drop(q, ss, iw, fw, positive)
    if self._floats:
        _fterms(self, q, yy, ss, ft)
        self.sums.add_f(ft, -fw, -fw)
    else:
        _iterms(self, q, yy, ss, it)
        self.sums.add_i(it, -iw, -iw)
    self._dropped(positive)
    if not self._nheld:
        self.sums.reset(self._floats)   # an emptied engine holds exact zeros
    return 1


# An update as one walk of the two-level tree (`_move_walk`, in `_cbtree`).

cdef inline void _terms_of(LevelDominanceCounter self, int k, double label, int64_t* b,
                           int64_t* e, int64_t* tot, int64_t* out) noexcept:
    """The `pairs_with` terms of ``(label, s)`` in class ``k`` of the two-level tree from
    the weights below (``b``) and at (``e``) ``s`` and each class's total (as `_iterms`)."""
    cdef int o = 1 - k
    cdef int64_t above = tot[o] - b[o] - e[o]
    if self._has[o] and self._label[o] > label:
        out[0], out[1] = above, b[o]
    else:
        out[0], out[1] = b[o], above
    out[2] = e[o]
    out[3] = tot[k]
    out[4] = e[k]


cdef int _eupdate(LevelDominanceCounter self, double oy, double so, int64_t iw,
                  double ny, double sn, int64_t niw) except -1:
    """A held sample ``(oy, so, iw)`` becomes ``(ny, sn, niw)`` with its pairs in `sums`,
    as one walk of the two-level tree (`_move_walk`): 1 if done; 0, nothing changed, when
    the caller must remove and insert (float mode, moments on, several trees, a label not
    held, the last copy of a level leaving for another, a split or merge)."""
    cdef int64_t bo[2]
    cdef int64_t eo[2]
    cdef int64_t bn[2]
    cdef int64_t en[2]
    cdef int64_t tot[2]
    cdef int64_t to[5]
    cdef int64_t tn[5]
    cdef _BTree t = self._t
    cdef int qo, qn
    if self._ntrees != 1 or self._floats or t.mo != NULL:
        return 0
    qo, qn = self._slot_of(oy), self._slot_of(ny)
    if qo < 0 or qn < 0 or (qo != qn and t.ncopies[qo] < 2):
        return 0
    if self._itotal() - iw + niw > _INT_TOTAL_MAX:
        return 0
    so += 0.0       # -0.0 and 0.0 are one score
    sn += 0.0
    tot[0], tot[1] = t.itot[0], t.itot[1]
    if not _move_walk(t, so, qo, iw, sn, qn, niw, bo, eo, bn, en):
        return 0
    # the terms against the other samples (the moved one taken out of the weights read)
    tot[qo] -= iw
    eo[qo] -= iw
    if so < sn:
        bn[qo] -= iw
    elif so == sn:
        en[qo] -= iw
    _terms_of(self, qo, oy, bo, eo, tot, to)
    _terms_of(self, qn, ny, bn, en, tot, tn)
    self.sums.add_i(to, -iw, -iw)
    self.sums.add_i(tn, niw, niw)
    return 1
