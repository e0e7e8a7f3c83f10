# The outer tree of `_cdominance.pyx` (included there): walks, changes and balance over
# the storage of `_DomStore` (`_cdominance_store.pxi`); the Python interface is
# `DominanceCounter` (`_cdominance_api.pxi`).


cdef inline void _rows_to_terms_i(int64_t* r, int64_t* out) noexcept:
    """C, D, T, Ty, Tyy from the rows: (below, equal, total) of label < y in ``r[0:3]``,
    of label == y in ``r[3:6]``, of all points in ``r[6:9]``."""
    cdef int64_t gb = r[6] - r[0] - r[3], ge = r[7] - r[1] - r[4]
    cdef int64_t ga = r[8] - r[2] - r[5] - gb - ge
    out[0] = r[0] + ga
    out[1] = (r[2] - r[0] - r[1]) + gb
    out[2] = r[1] + ge
    out[3] = r[5]
    out[4] = r[4]


cdef inline void _rows_to_terms_f(double* r, double* out) noexcept:
    cdef double gb = r[6] - r[0] - r[3], ge = r[7] - r[1] - r[4]
    cdef double ga = r[8] - r[2] - r[5] - gb - ge
    out[0] = r[0] + ga
    out[1] = (r[2] - r[0] - r[1]) + gb
    out[2] = r[1] + ge
    out[3] = r[5]
    out[4] = r[4]


cdef class _DomTree(_DomStore):
    # ------------------------------------------------------------------ walks
    cdef inline int _leaf_pos(self, OLeaf* x, double y, double s) noexcept:
        """The first position of leaf ``x`` whose key is not below ``(y, s)``."""
        cdef int lo = 0, hi = x.n, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if _key_lt(x.label[mid], x.score[mid], y, s):
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef int32_t _leaf_of(self, double y, double s) noexcept:
        cdef int32_t ref = self.root
        while ref >= 0:
            ref = self.inn[ref].left if _key_lt(y, s, self.inn[ref].label,
                                                 self.inn[ref].score) else self.inn[ref].right
        return ~ref

    cdef int _find(self, double y, double s, int32_t* leaf) noexcept:
        """The position of key ``(y, s)`` in its leaf, or -1."""
        leaf[0] = self._leaf_of(y, s)
        cdef OLeaf* x = &self.lv[leaf[0]]
        cdef int j = self._leaf_pos(x, y, s)
        if j < x.n and x.label[j] == y and x.score[j] == s:
            return j
        return -1

    cdef void _prefix_i(self, double y, double s, bint strict, int64_t* out) noexcept:
        """(below, equal, total) at ``s`` of the points labelled ``< y`` (``strict``) or
        ``<= y``, int mode."""
        cdef int64_t b = 0, e = 0, t = 0, mb, me
        cdef int32_t ref = self.root
        cdef ONode* x
        cdef OLeaf* f
        cdef int k, stop
        cdef double sk
        while ref >= 0:
            x = &self.inn[ref]
            if x.label < y or (not strict and x.label == y):
                self.mp.part_i(x.ms, s, &mb, &me)
                b += mb
                e += me
                t += x.ltot.i
                ref = x.right
            else:
                ref = x.left
        f = &self.lv[~ref]
        stop = 0
        while stop < f.n and (f.label[stop] < y or (not strict and f.label[stop] == y)):
            stop += 1
        for k in range(stop):
            sk = f.score[k]
            if sk < s:
                b += f.w[k].i
            elif sk == s:
                e += f.w[k].i
            t += f.w[k].i
        out[0], out[1], out[2] = b, e, t

    cdef void _prefix_f(self, double y, double s, bint strict, double* out) noexcept:
        """`_prefix_i` in float mode."""
        cdef double b = 0.0, e = 0.0, t = 0.0, mb, me, wk
        cdef int32_t ref = self.root
        cdef ONode* x
        cdef OLeaf* f
        cdef int k, stop
        cdef double sk
        while ref >= 0:
            x = &self.inn[ref]
            if x.label < y or (not strict and x.label == y):
                self.mp.part_f(x.ms, s, &mb, &me)
                b += mb
                e += me
                t += x.ltot.f
                ref = x.right
            else:
                ref = x.left
        f = &self.lv[~ref]
        stop = 0
        while stop < f.n and (f.label[stop] < y or (not strict and f.label[stop] == y)):
            stop += 1
        for k in range(stop):
            sk = f.score[k]
            wk = f.w[k].f + f.fe[k]
            if sk < s:
                b += wk
            elif sk == s:
                e += wk
            t += wk
        out[0], out[1], out[2] = b, e, t

    cdef void _rows_i(self, double y, double s, int64_t* r) noexcept:
        """``r[0:3]``: (below, equal, total) of label < y; ``r[3:6]`` of label == y;
        ``r[6:9]`` of all points."""
        cdef int64_t le[3]
        cdef int j
        self._prefix_i(y, s, True, r)
        self._prefix_i(y, s, False, le)
        for j in range(3):
            r[3 + j] = le[j] - r[j]
        self.mp.part_i(self.col, s, &r[6], &r[7])
        r[8] = self.itot

    cdef void _rows_f(self, double y, double s, double* r) noexcept:
        cdef double le[3]
        cdef int j
        self._prefix_f(y, s, True, r)
        self._prefix_f(y, s, False, le)
        for j in range(3):
            r[3 + j] = le[j] - r[j]
        self.mp.part_f(self.col, s, &r[6], &r[7])
        r[8] = self.mp.tot_f(self.col)

    cdef void _terms_i(self, double y, double s, int64_t* out) noexcept:
        """`pairs_with` of ``(y, s)``: C, D, T, Ty, Tyy (int mode)."""
        cdef int64_t r[9]
        cdef double unused[9]
        if self._plain_path(y, s):
            self._one_walk(y, s, r, unused)
            _rows_to_terms_i(r, out)
            return
        self._rows_i(y, s, r)
        _rows_to_terms_i(r, out)

    cdef void _terms_f(self, double y, double s, double* out) noexcept:
        cdef double r[9]
        cdef int64_t unused[9]
        if self._plain_path(y, s):
            self._one_walk(y, s, unused, r)
            _rows_to_terms_f(r, out)
            return
        self._rows_f(y, s, r)
        _rows_to_terms_f(r, out)

    cdef void _one_walk(self, double y, double s, int64_t* ir, double* fr) noexcept:
        """The nine rows in one walk, where `_plain_path` holds: the left subtrees it
        passes on the right are labelled below ``y``, and the keys labelled ``y`` are in
        the leaf it ends in."""
        cdef int32_t ref = self.root
        cdef int j
        for j in range(9):
            ir[j] = 0
            fr[j] = 0.0
        while ref >= 0:
            if y < self.inn[ref].label:
                ref = self.inn[ref].left
            else:
                self._part_left(ref, s, ir, fr)
                ref = self.inn[ref].right
        self._leaf_rows(~ref, y, s, ir, fr)
        if self.floats:
            self.mp.part_f(self.col, s, &fr[6], &fr[7])
            fr[8] = self.mp.tot_f(self.col)
        else:
            self.mp.part_i(self.col, s, &ir[6], &ir[7])
            ir[8] = self.itot

    cdef bint _plain_path(self, double y, double s) noexcept:
        """Whether no split key on the path of label ``y`` has label ``y``: then every key
        labelled ``y`` is in one leaf, and a change can read its terms on its own walk
        (where it goes right, the left subtree is all labelled below ``y``). The walk
        that follows reads every multiset on the path at ``s``: they are fetched into
        the cache first, level by level, all at once (`_warm`)."""
        cdef int32_t ref = self.root
        cdef int32_t roots[OMAXD + 2]
        cdef double keys[OMAXD + 2]
        cdef int m = 0, k
        cdef OLeaf* f
        while ref >= 0:
            if self.inn[ref].label == y:
                return False
            roots[m], keys[m] = self.inn[ref].ms, s
            m += 1
            ref = self.inn[ref].left if y < self.inn[ref].label else self.inn[ref].right
        f = &self.lv[~ref]
        for k in range(0, 128, 64):
            SR_PREFETCH(<char*>f.label + k)
            SR_PREFETCH(<char*>f.score + k)
            SR_PREFETCH(<char*>f.w + k)
        roots[m], keys[m] = self.col, s
        roots[m + 1], keys[m + 1] = self.labs, y
        self._warm(roots, keys, m + 2)
        return True

    cdef void _warm(self, int32_t* cur, double* keys, int m) noexcept:
        """Fetch the nodes that walks at ``keys[k]`` from the multiset roots ``cur[k]``
        will read, a level of all of them at a time, so that their cache misses overlap
        (``cur`` is used up)."""
        cdef int k, j, level, live = m
        cdef MNode* x
        cdef char* p
        cdef int off
        for k in range(m):
            p = <char*>&self.mp.n[cur[k]]
            for off in range(0, <int>sizeof(MNode), 64):
                SR_PREFETCH(p + off)
        while live:
            live = 0
            for k in range(m):
                if cur[k] < 0:
                    continue
                x = &self.mp.n[cur[k]]
                if x.leaf:
                    cur[k] = -1
                    continue
                j = 0
                while j < x.n - 1 and x.key[j] < keys[k]:
                    j += 1
                cur[k] = x.aux[j]
                p = <char*>&self.mp.n[cur[k]]
                for off in range(0, <int>sizeof(MNode), 64):
                    SR_PREFETCH(p + off)
                live += 1

    cdef void _leaf_rows(self, int32_t lf, double y, double s, int64_t* ir,
                         double* fr) noexcept:
        """Add leaf ``lf``'s (below, equal, total) at ``s`` of its keys labelled ``< y``
        to ``ir[0:3]`` / ``fr[0:3]``, and set those of its keys labelled ``y`` in
        ``[3:6]``."""
        cdef OLeaf* f = &self.lv[lf]
        cdef int k, r
        cdef double sk, wk
        for k in range(3, 6):
            ir[k] = 0
            fr[k] = 0.0
        for k in range(f.n):
            if f.label[k] > y:
                break
            r = 0 if f.label[k] < y else 3
            sk = f.score[k]
            if self.floats:
                wk = f.w[k].f + f.fe[k]
                if sk < s:
                    fr[r] += wk
                elif sk == s:
                    fr[r + 1] += wk
                fr[r + 2] += wk
            else:
                if sk < s:
                    ir[r] += f.w[k].i
                elif sk == s:
                    ir[r + 1] += f.w[k].i
                ir[r + 2] += f.w[k].i

    cdef void _part_left(self, int32_t node, double s, int64_t* ir, double* fr) noexcept:
        """Add the left multiset of ``node`` partitioned at ``s`` to ``ir`` / ``fr``."""
        cdef int64_t ib, ie
        cdef double fb, fe_
        cdef int32_t ms = self.inn[node].ms
        if self.floats:
            self.mp.part_f(ms, s, &fb, &fe_)
            fr[0] += fb
            fr[1] += fe_
            fr[2] += self.inn[node].ltot.f
        else:
            self.mp.part_i(ms, s, &ib, &ie)
            ir[0] += ib
            ir[1] += ie
            ir[2] += self.inn[node].ltot.i

    cdef void _column_terms(self, double s, int64_t* ir, double* fr, int64_t* it,
                            double* ft) noexcept:
        """The column at ``s`` into ``[6:9]``, then the terms from the nine rows."""
        if self.floats:
            self.mp.part_f(self.col, s, &fr[6], &fr[7])
            fr[8] = self.mp.tot_f(self.col)
            _rows_to_terms_f(fr, ft)
        else:
            self.mp.part_i(self.col, s, &ir[6], &ir[7])
            ir[8] = self.itot
            _rows_to_terms_i(ir, it)

    cdef void _terms_any(self, double y, double s, int64_t* it, double* ft) noexcept:
        if self.floats:
            self._terms_f(y, s, ft)
        else:
            self._terms_i(y, s, it)

    # ------------------------------------------------------------------ changes
    cdef int _insert(self, double y, double s, int32_t copies, int64_t iw,
                     double fw, bint want=False, int64_t* it=NULL,
                     double* ft=NULL) except -1:
        """``copies`` points at ``(y, s)`` weighing ``iw`` / ``fw`` together (trusted:
        validated, and the int total checked, by the caller). With ``want``, first the
        `pairs_with` terms into ``it`` / ``ft``: read on the insert's own walk when no
        split key on it has label ``y`` (a left subtree it passes on the right is all
        labelled below ``y``, and the keys labelled ``y`` share its leaf), else by the
        query's walks."""
        cdef int32_t path[OMAXD]
        cdef int d = 0, j
        cdef int32_t ref = self.root, lf
        cdef ONode* x
        cdef OLeaf* f
        cdef bint positive = (fw > 0) if self.floats else (iw > 0)
        cdef int32_t pc = copies if positive else 0
        cdef int64_t ir[9]
        cdef double fr[9]
        y += 0.0    # -0.0 and 0.0 are one value
        s += 0.0
        cdef bint fused = self._plain_path(y, s) and want   # (it warms the caches)
        if want and not fused:
            self._terms_any(y, s, it, ft)
        for j in range(9):
            ir[j] = 0
            fr[j] = 0.0
        while ref >= 0:
            x = &self.inn[ref]
            path[d] = ref
            d += 1
            if _key_lt(y, s, x.label, x.score):
                if positive:
                    self._ms_add(&x.ms, s, pc, iw, fw)
                    self._set_ltot(ref)
                ref = x.left
            else:
                if fused:
                    self._part_left(ref, s, ir, fr)
                ref = x.right
        lf = ~ref
        if fused:
            self._leaf_rows(lf, y, s, ir, fr)
            self._column_terms(s, ir, fr, it, ft)
        f = &self.lv[lf]
        j = self._leaf_pos(f, y, s)
        if j == f.n or f.label[j] != y or f.score[j] != s:
            memmove(&f.label[j + 1], &f.label[j], (f.n - j) * sizeof(double))
            memmove(&f.score[j + 1], &f.score[j], (f.n - j) * sizeof(double))
            memmove(&f.cnt[j + 1], &f.cnt[j], (f.n - j) * sizeof(int32_t))
            memmove(&f.pcnt[j + 1], &f.pcnt[j], (f.n - j) * sizeof(int32_t))
            memmove(&f.w[j + 1], &f.w[j], (f.n - j) * sizeof(Wt))
            memmove(&f.fe[j + 1], &f.fe[j], (f.n - j) * sizeof(double))
            f.n += 1
            f.label[j], f.score[j] = y, s
            f.cnt[j] = f.pcnt[j] = 0
            f.w[j].i = 0
            f.fe[j] = 0.0
            self.n_entries += 1
        f.cnt[j] += copies
        f.pcnt[j] += pc
        if self.floats:
            _two_sum_add(&f.w[j].f, &f.fe[j], fw)
        else:
            f.w[j].i += iw
        self.n_len += copies
        if positive:
            self.n_scores += self._ms_add(&self.col, s, pc, iw, fw)
            self.n_levels += self._ms_add(&self.labs, y, pc, 0, 0.0)
            self.n_pos += pc
            self.itot += iw
        if f.n > self.leafmax:
            self._split_leaf(path, d, lf)
        return 0

    cdef int _ms_add(self, int32_t* root, double s, int32_t copies, int64_t iw,
                     double fw) except -1:
        """``copies`` copies weighing ``iw`` / ``fw`` into a multiset; 1 if ``s`` is new."""
        cdef int fresh = self.mp.add(root, s, iw, fw)
        if copies != 1:      # (load and rebuilds only) the copies beyond the first
            self._ms_bump(root[0], s, copies - 1)
        return fresh

    cdef void _ms_bump(self, int32_t i, double s, int32_t extra) noexcept:
        cdef MNode* x
        cdef int j
        while True:
            x = &self.mp.n[i]
            j = 0
            while j < x.n - 1 and x.key[j] < s:
                j += 1
            if x.leaf:
                while x.key[j] < s:
                    j += 1
                x.aux[j] += extra
                return
            i = x.aux[j]

    cdef int _split_leaf(self, int32_t* path, int d, int32_t lf) except -1:
        """Split the overfull leaf ``lf`` (at the end of ``path``) under a new inner node,
        then rebalance the path."""
        cdef int32_t rt = self._new_leaf()
        cdef OLeaf* f = &self.lv[lf]
        cdef OLeaf* g = &self.lv[rt]
        cdef int half = f.n >> 1, m = f.n - half
        memcpy(&g.label[0], &f.label[half], m * sizeof(double))
        memcpy(&g.score[0], &f.score[half], m * sizeof(double))
        memcpy(&g.cnt[0], &f.cnt[half], m * sizeof(int32_t))
        memcpy(&g.pcnt[0], &f.pcnt[half], m * sizeof(int32_t))
        memcpy(&g.w[0], &f.w[half], m * sizeof(Wt))
        memcpy(&g.fe[0], &f.fe[half], m * sizeof(double))
        g.n = m
        f.n = half
        cdef int32_t node = self._new_inner()
        cdef ONode* x = &self.inn[node]
        x.left, x.right, x.size = ~lf, ~rt, 2
        x.label, x.score = g.label[0], g.score[0]
        x.ms = self._leaf_multiset(lf)
        self._set_ltot(node)
        self._replace(path[d - 1] if d else -1, ~lf, node)
        self.n_leaves += 1
        self._rebalance(path, d)
        return 0

    cdef int32_t _leaf_multiset(self, int32_t lf) except -1:
        """A multiset of the positive copies of leaf ``lf``."""
        cdef OLeaf* f = &self.lv[lf]
        cdef SEnt* e = <SEnt*>malloc((f.n + 1) * sizeof(SEnt))
        cdef int k, m = 0
        if e == NULL:
            raise MemoryError()
        try:
            for k in range(f.n):
                if f.pcnt[k]:
                    e[m].s = f.score[k]
                    e[m].c = f.pcnt[k]
                    if self.floats:
                        e[m].w.f = f.w[k].f + f.fe[k]
                    else:
                        e[m].w.i = f.w[k].i
                    m += 1
            qsort(e, m, sizeof(SEnt), _sent_cmp)
            return self.mp.build(e, m)
        finally:
            free(e)

    cdef int _remove(self, double y, double s, int64_t iw, double fw, bint want=False,
                     int64_t* it=NULL, double* ft=NULL) except -1:
        """Remove one copy at ``(y, s)`` weighing ``iw`` / ``fw`` (held: the caller
        checked). In float mode the last copy of weight > 0 takes the weight left. With
        ``want``, then the `pairs_with` terms into ``it`` / ``ft`` (as `_insert`)."""
        cdef int32_t path[OMAXD]
        cdef bint left[OMAXD]
        cdef int d = 0, j, k
        cdef int32_t ref = self.root, lf, parent, sibling
        cdef ONode* x
        cdef OLeaf* f
        cdef bint positive = (fw > 0) if self.floats else (iw > 0)
        cdef int64_t ir[9]
        cdef double fr[9]
        y += 0.0
        s += 0.0
        cdef bint fused = self._plain_path(y, s) and want   # (it warms the caches)
        for j in range(9):
            ir[j] = 0
            fr[j] = 0.0
        while ref >= 0:
            x = &self.inn[ref]
            path[d] = ref
            left[d] = _key_lt(y, s, x.label, x.score)
            ref = x.left if left[d] else x.right
            d += 1
        lf = ~ref
        f = &self.lv[lf]
        j = self._leaf_pos(f, y, s)
        f.cnt[j] -= 1
        if positive:
            f.pcnt[j] -= 1
            if self.floats:
                if f.pcnt[j] == 0:
                    fw = f.w[j].f + f.fe[j]      # the weight left, rounding included
                    f.w[j].f = 0.0
                    f.fe[j] = 0.0
                else:
                    _two_sum_add(&f.w[j].f, &f.fe[j], -fw)
                    if f.w[j].f + f.fe[j] < 0:
                        f.w[j].f = 0.0
                        f.fe[j] = 0.0
            else:
                f.w[j].i -= iw
        if f.cnt[j] == 0:
            memmove(&f.label[j], &f.label[j + 1], (f.n - j - 1) * sizeof(double))
            memmove(&f.score[j], &f.score[j + 1], (f.n - j - 1) * sizeof(double))
            memmove(&f.cnt[j], &f.cnt[j + 1], (f.n - j - 1) * sizeof(int32_t))
            memmove(&f.pcnt[j], &f.pcnt[j + 1], (f.n - j - 1) * sizeof(int32_t))
            memmove(&f.w[j], &f.w[j + 1], (f.n - j - 1) * sizeof(Wt))
            memmove(&f.fe[j], &f.fe[j + 1], (f.n - j - 1) * sizeof(double))
            f.n -= 1
            self.n_entries -= 1
        self.n_len -= 1
        if positive:
            for k in range(d):
                if left[k]:
                    self.mp.remove(&self.inn[path[k]].ms, s, iw, fw)
                    self._set_ltot(path[k])
            self.n_scores -= self.mp.remove(&self.col, s, iw, fw)
            self.n_levels -= self.mp.remove(&self.labs, y, 0, 0.0)
            self.n_pos -= 1
            self.itot -= iw
        if fused:
            for k in range(d):
                if not left[k]:
                    self._part_left(path[k], s, ir, fr)
            self._leaf_rows(lf, y, s, ir, fr)
            self._column_terms(s, ir, fr, it, ft)
        if not self.n_len:
            self._reset()               # no float residue survives an empty counter
        elif not self.lv[lf].n and d:   # drop the emptied leaf: its sibling moves up
            parent = path[d - 1]
            x = &self.inn[parent]
            sibling = x.right if x.left == ~lf else x.left
            self._replace(path[d - 2] if d > 1 else -1, parent, sibling)
            self.mp.free_tree(x.ms)
            self._free_inner(parent)
            self._free_leaf(lf)
            self.n_leaves -= 1
            self._rebalance(path, d - 1)
        if self.n_leaves > 4 + 4 * self.n_entries // self.leaf:
            self._rebuild_all()         # the leaves are less than a quarter full
        if want and not fused:
            self._terms_any(y, s, it, ft)
        return 0

    # ------------------------------------------------------------------ balance
    cdef int _rebalance(self, int32_t* path, int d) except -1:
        """Refresh the leaf counts on ``path`` bottom-up; rebuild the highest node out
        of balance (one child more than ``_DELTA`` times the other's leaves), and again
        above it while a rebuild's new leaf count unbalances an ancestor."""
        cdef int k, top
        cdef int32_t a, b, node, new
        while True:
            for k in range(d - 1, -1, -1):
                node = path[k]
                self.inn[node].size = self._size(self.inn[node].left) + self._size(
                    self.inn[node].right)
            top = -1
            for k in range(d):
                a = self._size(self.inn[path[k]].left)
                b = self._size(self.inn[path[k]].right)
                if a > _DELTA * b or b > _DELTA * a:
                    top = k
                    break
            if top < 0:
                return 0
            node = path[top]
            new = self._rebuild_sub(node)
            self._replace(path[top - 1] if top else -1, node, new)
            d = top
