# The storage of `_cdominance.pyx`'s outer tree (included there): inner nodes and leaves
# in two C arrays (free ones chained), the multisets in an `_MPool`; whole and partial
# rebuilds. The walks and changes are `_DomTree` (`_cdominance_tree.pxi`).


cdef struct KEnt:          # a key with its contents, for collecting and building
    double y, s
    int32_t c, p
    Wt w
    double fe


cdef class _DomStore:
    cdef _MPool mp
    cdef ONode* inn
    cdef int32_t icap, isize, ifree
    cdef OLeaf* lv
    cdef int32_t lcap, lsize, lfree
    cdef int32_t root, col, labs     # the outer root (a ref), the column and label trees
    cdef int64_t n_len, n_entries, n_leaves, n_pos, n_scores, n_levels, itot
    cdef bint floats
    cdef int leaf, leafmax

    def __cinit__(self, *args, **kwargs):
        self.inn = NULL
        self.lv = NULL
        self.icap = self.lcap = 0
        self.leaf = max(1, min(int(_LEAF), (OCAP - 1) // 2))
        self.leafmax = 2 * self.leaf
        self.mp = _MPool(int(_FAN))
        self._reset()

    def __dealloc__(self):
        free(self.inn)
        free(self.lv)

    cdef void _reset(self) except *:
        self.mp.reset()
        self.mp.floats = self.floats
        self.isize = self.lsize = 0
        self.ifree = self.lfree = -1
        self.root = ~self._new_leaf()
        self.col = self.mp.new(1)
        self.labs = self.mp.new(1)
        self.n_len = self.n_entries = self.n_pos = self.n_scores = self.n_levels = 0
        self.itot = 0
        self.n_leaves = 1

    # ------------------------------------------------------------------ nodes
    cdef int32_t _new_inner(self) except -1:
        cdef int32_t i
        cdef ONode* p
        if self.ifree >= 0:
            i = self.ifree
            self.ifree = self.inn[i].left
            return i
        if self.isize == self.icap:
            p = <ONode*>realloc(self.inn, (self.icap + (self.icap >> 1) + 16) * sizeof(ONode))
            if p == NULL:
                raise MemoryError()
            self.inn = p
            self.icap += (self.icap >> 1) + 16
        self.isize += 1
        return self.isize - 1

    cdef void _free_inner(self, int32_t i) noexcept:
        self.inn[i].left = self.ifree
        self.ifree = i

    cdef int32_t _new_leaf(self) except -1:
        cdef int32_t i
        cdef OLeaf* p
        if self.lfree >= 0:
            i = self.lfree
            self.lfree = self.lv[i].cnt[0]
        else:
            if self.lsize == self.lcap:
                p = <OLeaf*>realloc(self.lv, (self.lcap + (self.lcap >> 1) + 4) * sizeof(OLeaf))
                if p == NULL:
                    raise MemoryError()
                self.lv = p
                self.lcap += (self.lcap >> 1) + 4
            i = self.lsize
            self.lsize += 1
        self.lv[i].n = 0
        return i

    cdef void _free_leaf(self, int32_t i) noexcept:
        self.lv[i].cnt[0] = self.lfree
        self.lfree = i

    cdef inline void _set_ltot(self, int32_t node) noexcept:
        """The weight of ``node``'s left multiset, from its root's entries."""
        if self.floats:
            self.inn[node].ltot.f = self.mp.tot_f(self.inn[node].ms)
        else:
            self.inn[node].ltot.i = self.mp.tot_i(self.inn[node].ms)

    cdef inline int32_t _size(self, int32_t ref) noexcept:
        return 1 if ref < 0 else self.inn[ref].size

    cdef void _replace(self, int32_t parent, int32_t old, int32_t new) noexcept:
        if parent < 0:
            self.root = new
        elif self.inn[parent].left == old:
            self.inn[parent].left = new
        else:
            self.inn[parent].right = new

    # ------------------------------------------------------------------ rebuilds
    cdef Py_ssize_t _collect(self, int32_t ref, KEnt* out, Py_ssize_t at) noexcept:
        """Append the keys under ``ref`` to ``out[at:]`` in key order; the new end."""
        cdef OLeaf* f
        cdef int k
        while ref >= 0:
            at = self._collect(self.inn[ref].left, out, at)
            ref = self.inn[ref].right
        f = &self.lv[~ref]
        for k in range(f.n):
            out[at].y, out[at].s = f.label[k], f.score[k]
            out[at].c, out[at].p = f.cnt[k], f.pcnt[k]
            out[at].w, out[at].fe = f.w[k], f.fe[k]
            at += 1
        return at

    cdef Py_ssize_t _count_keys(self, int32_t ref) noexcept:
        cdef Py_ssize_t m = 0
        while ref >= 0:
            m += self._count_keys(self.inn[ref].left)
            ref = self.inn[ref].right
        return m + self.lv[~ref].n

    cdef void _free_sub(self, int32_t ref) noexcept:
        cdef int32_t nxt
        while ref >= 0:
            self._free_sub(self.inn[ref].left)
            self.mp.free_tree(self.inn[ref].ms)
            nxt = self.inn[ref].right
            self._free_inner(ref)
            ref = nxt
        self._free_leaf(~ref)

    cdef int32_t _rebuild_sub(self, int32_t node) except? -2147483647:
        """Rebuild the subtree of inner ``node`` perfectly balanced; its new ref."""
        cdef Py_ssize_t m = self._count_keys(node)
        cdef int32_t old = self.inn[node].size, ref
        cdef KEnt* e = <KEnt*>malloc((m + 1) * sizeof(KEnt))
        if e == NULL:
            raise MemoryError()
        try:
            self._collect(node, e, 0)
            self._free_sub(node)
            ref = self._build(e, m, False)
        finally:
            free(e)
        self.n_leaves += self._size(ref) - old
        return ref

    cdef int _rebuild_all(self) except -1:
        """Rebuild the whole counter, perfectly balanced, leaves three quarters full."""
        cdef Py_ssize_t m = self.n_entries
        cdef KEnt* e = <KEnt*>malloc((m + 1) * sizeof(KEnt))
        if e == NULL:
            raise MemoryError()
        try:
            self._collect(self.root, e, 0)
            self._load_keys(e, m)
        finally:
            free(e)
        return 0

    cdef int _load_keys(self, KEnt* e, Py_ssize_t m) except -1:
        """Replace the contents by the distinct keys ``e[:m]`` in key order."""
        cdef Py_ssize_t k, q = 0
        cdef SEnt* lab = <SEnt*>malloc((m + 1) * sizeof(SEnt))
        if lab == NULL:
            raise MemoryError()
        try:
            self._reset()
            if not m:
                return 0
            self._free_leaf(~self.root)
            self.mp.free_tree(self.col)
            self.mp.free_tree(self.labs)
            self.root = self._build(e, m, True)
            self.n_leaves = self._size(self.root)
            self.n_entries = m
            for k in range(m):
                self.n_len += e[k].c
                if e[k].p:
                    self.n_pos += e[k].p
                    if not self.floats:
                        self.itot += e[k].w.i
                    lab[q].s, lab[q].c, lab[q].w.i = e[k].y, e[k].p, 0
                    q += 1
            self.labs = self.mp.build(lab, q)
            self.n_levels = self._ms_entries(self.labs)
            self.n_scores = self._ms_entries(self.col)
            self._fit()
        finally:
            free(lab)
        return 0

    cdef void _fit(self) noexcept:
        """Give back the arrays' room beyond what a whole rebuild used (it starts them
        afresh, so no free node sits above their ends)."""
        cdef ONode* pi
        cdef OLeaf* pl
        cdef MNode* pm
        if self.ifree < 0 and self.isize + 16 < self.icap:
            pi = <ONode*>realloc(self.inn, (self.isize + 16) * sizeof(ONode))
            if pi != NULL:
                self.inn, self.icap = pi, self.isize + 16
        if self.lfree < 0 and self.lsize + 4 < self.lcap:
            pl = <OLeaf*>realloc(self.lv, (self.lsize + 4) * sizeof(OLeaf))
            if pl != NULL:
                self.lv, self.lcap = pl, self.lsize + 4
        if self.mp.free_head < 0 and self.mp.size + 16 < self.mp.cap:
            pm = <MNode*>realloc(self.mp.n, (self.mp.size + 16) * sizeof(MNode))
            if pm != NULL:
                self.mp.n, self.mp.cap = pm, self.mp.size + 16

    cdef int64_t _ms_entries(self, int32_t i) noexcept:
        cdef int j
        cdef int64_t t = 0
        if self.mp.n[i].leaf:
            return self.mp.n[i].n
        for j in range(self.mp.n[i].n):
            t += self._ms_entries(self.mp.n[i].aux[j])
        return t

    cdef int32_t _build(self, KEnt* e, Py_ssize_t m, bint top) except? -2147483647:
        """A perfectly balanced subtree of the keys ``e[:m]`` (in key order), leaves of
        ``3 / 2 * _LEAF`` keys; with ``top``, the column multiset too. O(m log m)."""
        cdef Py_ssize_t fill = self.leaf + self.leaf // 2      # leaves 3/4 full
        cdef Py_ssize_t chunks = max(1, (m + fill - 1) // fill)
        cdef SEnt* sorted_ = NULL
        cdef Py_ssize_t ns = 0
        cdef int32_t ref
        try:
            ref = self._build_range(e, m, chunks, 0, chunks, &sorted_, &ns)
            if top:
                self.col = self.mp.build(sorted_, ns)
        finally:
            free(sorted_)
        return ref

    cdef int32_t _build_range(self, KEnt* e, Py_ssize_t m, Py_ssize_t chunks,
                              Py_ssize_t lo, Py_ssize_t hi, SEnt** out,
                              Py_ssize_t* nout) except? -2147483647:
        """The subtree over chunks ``[lo, hi)``; ``out``: its positive copies' scores
        sorted (malloc'd, for the caller to free)."""
        cdef Py_ssize_t a = m * lo // chunks, b = m * hi // chunks, k, q = 0
        cdef Py_ssize_t mid, i, j, nl = 0, nr = 0
        cdef SEnt* ls = NULL
        cdef SEnt* rs = NULL
        cdef SEnt* r
        cdef int32_t lf, node, lref, rref
        cdef OLeaf* f
        cdef ONode* x
        if hi - lo == 1:
            lf = self._new_leaf()
            f = &self.lv[lf]
            f.n = <int32_t>(b - a)
            r = <SEnt*>malloc((b - a + 1) * sizeof(SEnt))
            if r == NULL:
                raise MemoryError()
            for k in range(b - a):
                f.label[k], f.score[k] = e[a + k].y, e[a + k].s
                f.cnt[k], f.pcnt[k] = e[a + k].c, e[a + k].p
                f.w[k], f.fe[k] = e[a + k].w, e[a + k].fe
                if e[a + k].p:
                    r[q].s, r[q].c = e[a + k].s, e[a + k].p
                    if self.floats:
                        r[q].w.f = e[a + k].w.f + e[a + k].fe
                    else:
                        r[q].w.i = e[a + k].w.i
                    q += 1
            qsort(r, q, sizeof(SEnt), _sent_cmp)
            out[0], nout[0] = r, q
            return ~lf
        mid = (lo + hi) >> 1
        try:
            lref = self._build_range(e, m, chunks, lo, mid, &ls, &nl)
            rref = self._build_range(e, m, chunks, mid, hi, &rs, &nr)
            r = <SEnt*>malloc((nl + nr + 1) * sizeof(SEnt))
            if r == NULL:
                raise MemoryError()
            i = j = 0
            while i < nl or j < nr:          # merge: the subtree's scores, sorted
                if j == nr or (i < nl and ls[i].s <= rs[j].s):
                    r[q] = ls[i]
                    i += 1
                else:
                    r[q] = rs[j]
                    j += 1
                q += 1
            out[0], nout[0] = r, q
            node = self._new_inner()
            x = &self.inn[node]
            x.left, x.right = lref, rref
            x.size = self._size(lref) + self._size(rref)
            k = m * mid // chunks
            x.label, x.score = e[k].y, e[k].s
            x.ms = -1
            x.ms = self.mp.build(ls, nl)
            self._set_ltot(node)
            return node
        finally:
            free(ls)
            free(rs)
