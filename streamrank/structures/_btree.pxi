# The B+ tree of `_cbtree.pyx` (included there): the distinct scores held, each with
# both classes' copies and weights, in one C array of fixed-size nodes. Its node types and
# fields are declared in `_cbtree.pxd`.
#
#     inner   key  [ 0.3       |  0.9      ]   an upper bound of the scores under child j
#             w[0] [ 2         |  1        ]   class-0 weight under child j
#             w[1] [ 1         |  3        ]   class-1 weight under child j
#     leaf    key  [0.1 | 0.2 | 0.3]    [0.5 | 0.7 | 0.9]
#             w[0] [ 1  |  1  |  0 ]    [ 0  |  1  |  0 ]
#             w[1] [ 0  |  0  |  1 ]    [ 1  |  1  |  1 ]
#             c[k]: copies of class k at the score, zero weights included
#
# Layout. A node holds what every walk reads: its keys and weights, then its children
# (inner) or its copies (leaf), which share their bytes. Two arrays parallel to the nodes
# (same capacity, same index) hold what only some trees need, and exist only once needed:
# `fe`, the compensation (double-double) of each leaf weight, from the moment the tree is in
# float mode; `pc`, the copies of weight > 0, from the first copy of weight 0 on (until
# then every copy held has weight > 0, so they equal `c`: `_pc` reads `c` then). `pc`
# stays to the end of the tree once made (freeing it with the last weight-0 copy would
# make a stream that keeps one coming and going rebuild it every time). A third, `mo`, holds
# the placement moments of each inner child (int mode, once asked for: `_moments.pxi`).
#
# Invariants (checked by `_check`): keys ascend in every node; every score under inner
# child j is <= key[j] < every score under child j + 1; an inner w[k][j] is the sum of
# child j's; every node but the root holds at least LOW entries, an inner root at least
# two (so the height is O(log n / log LOW)); `fe` exists exactly in float mode; without
# `pc` every copy held has weight > 0; `mo` (int mode only) and the moments `m` equal a
# recount of the entries.
#
# A walk reads one node per level and scans at most FAN keys there, adding the weights of
# the children it passes: `ibelow` / `fbelow` read each class's weight below and at a
# score, `add_at` / `remove_at` change one score's entry. Int mode adds the change to the
# sums on the path (exact int64); float mode recomputes each sum on the path from the
# child's entries, so an inner sum never keeps the rounding of a weight that left.


cdef class _BTree:
    """Nodes in one C array (free ones chained through ``r.child[0]``), and the arrays
    `fe` and `pc` beside it once needed (header)."""

    def __cinit__(self):
        self.n = NULL
        self.fe = NULL
        self.pc = NULL
        self.mo = NULL
        self.cap = 0
        self.floats = False
        self._grow(4)
        self.clear()

    def __dealloc__(self):
        free(self.n)
        free(self.fe)
        free(self.pc)
        free(self.mo)

    cdef void clear(self) noexcept:
        """Empty, in the same mode (`pc` goes: no copy of weight 0 is held)."""
        free(self.pc)
        self.pc = NULL
        self.size = 0
        self.free_head = NIL
        self.root = 0
        self.size = 1
        self._zero(0)
        self.n[0].leaf = 1
        self.distinct = self.pos_scores = 0
        self.ncopies[0] = self.ncopies[1] = self.npos[0] = self.npos[1] = 0
        self.itot[0] = self.itot[1] = 0
        self.m[0] = self.m[1] = self.m[2] = self.m[3] = self.m[4] = 0

    cdef int set_floats(self, bint floats) except -1:
        """Put the empty tree in float mode (with its `fe`) or int mode."""
        if self.distinct:
            raise ValueError("_BTree.set_floats takes an empty tree")
        if floats and self.fe == NULL:
            self.fe = <BComp*>calloc(self.cap, sizeof(BComp))
            if self.fe == NULL:
                raise MemoryError()
        elif not floats:
            free(self.fe)
            self.fe = NULL
        if floats:
            _mo_off(self)
        self.floats = floats
        return 0

    cdef int _make_pc(self) except -1:
        """`pc` for the first copy of weight 0: every copy held so far has weight > 0."""
        cdef int32_t i
        cdef BPos* p = <BPos*>malloc(self.cap * sizeof(BPos))
        if p == NULL:
            raise MemoryError()
        for i in range(self.size):
            memcpy(p[i].pc, self.n[i].r.c, sizeof(BPos))
        self.pc = p
        return 0

    cdef int _grow(self, int32_t cap) except -1:
        """Room for ``cap`` nodes in every array (each still valid if one fails)."""
        _grow_array(<void**>&self.n, cap * sizeof(BNode))
        if self.fe != NULL:
            _grow_array(<void**>&self.fe, cap * sizeof(BComp))
        if self.pc != NULL:
            _grow_array(<void**>&self.pc, cap * sizeof(BPos))
        if self.mo != NULL:
            _grow_array(<void**>&self.mo, cap * sizeof(BMo))
        self.cap = cap
        return 0

    cdef int32_t _new(self, int leaf) except -2:
        """A fresh empty node (the arrays may move: take pointers again after this)."""
        cdef int32_t i
        if self.free_head != NIL:
            i = self.free_head
            self.free_head = self.n[i].r.child[0]
        else:
            if self.size == self.cap:
                if self.cap >= (1 << 30) // FAN:
                    raise MemoryError("BinaryDominanceCounter holds at most 2**30 scores")
                self._grow(2 * self.cap)
            i = self.size
            self.size += 1
        self._zero(i)
        self.n[i].leaf = leaf
        return i

    cdef inline void _zero(self, int32_t i) noexcept:
        """Node ``i`` (and its `fe` / `pc`) all zero bytes: an empty inner node, and no
        stale heap bytes in `raw`."""
        memset(&self.n[i], 0, sizeof(BNode))
        if self.fe != NULL:
            memset(&self.fe[i], 0, sizeof(BComp))
        if self.pc != NULL:
            memset(&self.pc[i], 0, sizeof(BPos))
        if self.mo != NULL:
            memset(&self.mo[i], 0, sizeof(BMo))

    cdef void _release(self, int32_t i) noexcept:
        self.n[i].r.child[0] = self.free_head
        self.free_head = i

    cdef inline int64_t* _pc(self, int32_t i, int k) noexcept:
        """Leaf ``i``'s copies of weight > 0 of class ``k`` (its `c` while no `pc`)."""
        if self.pc != NULL:
            return self.pc[i].pc[k]
        return self.n[i].r.c[k]

    # ------------------------------------------------------------------ sums
    cdef inline double _own_f(self, int32_t i, int k, int j) noexcept:
        if self.n[i].leaf:
            return self.n[i].w[k][j].f + self.fe[i].fe[k][j]
        return self.n[i].w[k][j].f

    cdef double _sum_f(self, int32_t i, int k) noexcept:
        cdef BNode* x = &self.n[i]
        cdef double t = 0.0
        cdef int j
        if x.leaf:
            for j in range(x.n):
                t += x.w[k][j].f + self.fe[i].fe[k][j]
        else:
            for j in range(x.n):
                t += x.w[k][j].f
        return t

    cdef int64_t _sum_i(self, int32_t i, int k) noexcept:
        cdef BNode* x = &self.n[i]
        cdef int64_t t = 0
        cdef int j
        for j in range(x.n):
            t += x.w[k][j].i
        return t

    cdef void _set_sums(self, int32_t p, int j) noexcept:
        """Parent ``p``'s sums of child ``j``, from the child's entries."""
        cdef int k
        cdef int32_t ch = self.n[p].r.child[j]
        for k in range(2):
            if self.floats:
                self.n[p].w[k][j].f = self._sum_f(ch, k)
            else:
                self.n[p].w[k][j].i = self._sum_i(ch, k)
        if self.mo != NULL:
            _mo_set(self, p, j)

    cdef double ftot(self, int k) noexcept:
        return self._sum_f(self.root, k)

    # ------------------------------------------------------------------ queries
    cdef void ibelow(self, double s, int64_t* below, int64_t* equal) noexcept:
        """Each class's int weight below ``s`` and at ``s``: one node per level."""
        cdef int32_t i = self.root
        cdef BNode* x
        cdef int j
        below[0] = below[1] = equal[0] = equal[1] = 0
        while True:
            x = &self.n[i]
            j = 0
            while j < x.n and x.key[j] < s:
                below[0] += x.w[0][j].i
                below[1] += x.w[1][j].i
                j += 1
            if j == x.n:
                return
            if x.leaf:
                if x.key[j] == s:
                    equal[0] = x.w[0][j].i
                    equal[1] = x.w[1][j].i
                return
            i = x.r.child[j]

    cdef void fbelow(self, double s, double* below, double* equal) noexcept:
        """Each class's float weight below ``s`` and at ``s``: one node per level."""
        cdef int32_t i = self.root
        cdef BNode* x
        cdef BComp* e
        cdef int j
        below[0] = below[1] = equal[0] = equal[1] = 0.0
        while True:
            x = &self.n[i]
            j = 0
            if x.leaf:
                e = &self.fe[i]
                while j < x.n and x.key[j] < s:
                    below[0] += x.w[0][j].f + e.fe[0][j]
                    below[1] += x.w[1][j].f + e.fe[1][j]
                    j += 1
                if j < x.n and x.key[j] == s:
                    equal[0] = x.w[0][j].f + e.fe[0][j]
                    equal[1] = x.w[1][j].f + e.fe[1][j]
                return
            while j < x.n and x.key[j] < s:
                below[0] += x.w[0][j].f
                below[1] += x.w[1][j].f
                j += 1
            if j == x.n:
                return
            i = x.r.child[j]

    cdef bint find(self, double s, int32_t* leaf, int* pos) noexcept:
        """Whether score ``s`` is held; its leaf and position if so."""
        cdef int32_t i = self.root
        cdef BNode* x
        cdef int j
        while True:
            x = &self.n[i]
            j = 0
            while j < x.n and x.key[j] < s:
                j += 1
            if j == x.n:
                return False
            if x.leaf:
                leaf[0] = i
                pos[0] = j
                return x.key[j] == s
            i = x.r.child[j]

    # ------------------------------------------------------------------ moves
    cdef void _move(self, int32_t dst, int dj, int32_t src, int sj, int m) noexcept:
        """Entries ``[sj, sj + m)`` of node ``src`` to ``[dj, dj + m)`` of ``dst``, both
        leaves or both inner (overlap allowed)."""
        cdef BNode* d = &self.n[dst]
        cdef BNode* s = &self.n[src]
        cdef int k
        if m <= 0:
            return
        memmove(&d.key[dj], &s.key[sj], m * sizeof(double))
        for k in range(2):
            memmove(&d.w[k][dj], &s.w[k][sj], m * sizeof(Wt))
        if not d.leaf:
            memmove(&d.r.child[dj], &s.r.child[sj], m * sizeof(int32_t))
            if self.mo != NULL:
                memmove(&self.mo[dst].e[dj], &self.mo[src].e[sj], m * sizeof(BMoE))
            return
        for k in range(2):
            memmove(&d.r.c[k][dj], &s.r.c[k][sj], m * sizeof(int64_t))
            if self.fe != NULL:
                memmove(&self.fe[dst].fe[k][dj], &self.fe[src].fe[k][sj], m * sizeof(double))
            if self.pc != NULL:
                memmove(&self.pc[dst].pc[k][dj], &self.pc[src].pc[k][sj], m * sizeof(int64_t))

    cdef int _split(self, int32_t p, int j, double s) except -1:
        """Split the full child ``j`` of ``p`` into children ``j`` and ``j + 1``, before
        score ``s`` comes: in halves, or, when ``s`` is beyond the child's scores
        (ascending inserts, as `load` makes), keeping ``FAN - LOW`` on the left, so that
        sorted loads fill their nodes to three quarters instead of one half."""
        cdef int32_t ch = self.n[p].r.child[j]
        cdef int at = FAN - LOW if s > self.n[ch].key[FAN - 1] else HALF
        cdef int32_t nw = self._new(self.n[ch].leaf)
        self._move(nw, 0, ch, at, FAN - at)
        self.n[nw].n = FAN - at
        self.n[ch].n = at
        self._move(p, j + 2, p, j + 1, self.n[p].n - j - 1)
        self.n[p].n += 1
        self.n[p].r.child[j + 1] = nw
        self.n[p].key[j + 1] = self.n[p].key[j]
        self.n[p].key[j] = self.n[ch].key[at - 1]
        self._set_sums(p, j)
        self._set_sums(p, j + 1)
        return 0

    cdef void _merge(self, int32_t p, int a) noexcept:
        """Append child ``a + 1`` of ``p`` to child ``a`` (they fit in one node)."""
        cdef int32_t left = self.n[p].r.child[a], right = self.n[p].r.child[a + 1]
        cdef int k
        self._move(left, self.n[left].n, right, 0, self.n[right].n)
        self.n[left].n += self.n[right].n
        self.n[p].key[a] = self.n[p].key[a + 1]
        if self.floats:
            self._set_sums(p, a)
        else:
            for k in range(2):
                self.n[p].w[k][a].i += self.n[p].w[k][a + 1].i
        if self.mo != NULL:
            _mo_set(self, p, a)
        self._move(p, a + 1, p, a + 2, self.n[p].n - a - 2)
        self.n[p].n -= 1
        self._release(right)

    cdef void _even(self, int32_t p, int a) noexcept:
        """Share the entries of children ``a`` and ``a + 1`` of ``p`` evenly."""
        cdef int32_t left = self.n[p].r.child[a], right = self.n[p].r.child[a + 1]
        cdef int nl = self.n[left].n, nr = self.n[right].n
        cdef int half = (nl + nr) // 2, q
        if nl > half:
            q = nl - half
            self._move(right, q, right, 0, nr)
            self._move(right, 0, left, half, q)
        else:
            q = half - nl
            self._move(left, nl, right, 0, q)
            self._move(right, 0, right, q, nr - q)
        self.n[left].n = half
        self.n[right].n = nl + nr - half
        self.n[p].key[a] = self.n[left].key[half - 1]
        self._set_sums(p, a)
        self._set_sums(p, a + 1)

    # ------------------------------------------------------------------ changes
    cdef int add_at(self, double s, int k, int64_t dc, int64_t dpc, int64_t iw,
                    double fw) except -1:
        """``dc`` copies of class ``k`` at score ``s``, ``dpc`` of them of weight > 0,
        weighing ``iw`` (int mode) or ``fw`` (float mode) together: full nodes on the path
        split on the way down."""
        cdef int32_t pn[MAXD]
        cdef int pj[MAXD]
        cdef int d = 0, j, l
        cdef int32_t i, r
        cdef BNode* x
        cdef int64_t* p0
        cdef int64_t* p1
        s += 0.0    # -0.0 and 0.0 are one score
        if dpc != dc and self.pc == NULL:
            self._make_pc()
        if self.n[self.root].n == FAN:
            r = self._new(0)
            self.n[r].n = 1
            self.n[r].r.child[0] = self.root
            x = &self.n[self.root]
            self.n[r].key[0] = x.key[x.n - 1]
            self.root = r
            self._set_sums(r, 0)
            self._split(r, 0, s)
        i = self.root
        while not self.n[i].leaf:
            x = &self.n[i]
            j = 0
            while j < x.n - 1 and x.key[j] < s:
                j += 1
            if self.n[x.r.child[j]].n == FAN:
                self._split(i, j, s)
                x = &self.n[i]
                if s > x.key[j]:
                    j += 1
            if x.key[j] < s:
                x.key[j] = s    # the last child's bound grows with a larger score
            pn[d] = i
            pj[d] = j
            d += 1
            i = x.r.child[j]
        x = &self.n[i]
        j = 0
        while j < x.n and x.key[j] < s:
            j += 1
        if j == x.n or x.key[j] != s:
            self._move(i, j + 1, i, j, x.n - j)
            x.n += 1
            x.key[j] = s
            x.w[0][j].i = x.w[1][j].i = 0   # also 0.0 in float mode
            x.r.c[0][j] = x.r.c[1][j] = 0
            if self.fe != NULL:
                self.fe[i].fe[0][j] = self.fe[i].fe[1][j] = 0.0
            if self.pc != NULL:
                self.pc[i].pc[0][j] = self.pc[i].pc[1][j] = 0
            self.distinct += 1
        p0, p1 = self._pc(i, 0), self._pc(i, 1)
        if dpc and p0[j] + p1[j] == 0:
            self.pos_scores += 1
        x.r.c[k][j] += dc
        self.ncopies[k] += dc
        if self.pc != NULL:
            self.pc[i].pc[k][j] += dpc
        self.npos[k] += dpc
        if self.floats:
            _two_sum_add(&x.w[k][j].f, &self.fe[i].fe[k][j], fw)
            for l in range(d - 1, -1, -1):
                self.n[pn[l]].w[k][pj[l]].f = self._sum_f(self.n[pn[l]].r.child[pj[l]], k)
        else:
            x.w[k][j].i += iw
            self.itot[k] += iw
            for l in range(d):
                self.n[pn[l]].w[k][pj[l]].i += iw
            if self.mo != NULL and iw:
                _mo_change(self, s, k, iw, True)    # the moments after the change
        return 0

    cdef int remove_at(self, double s, int k, int64_t iw, double fw, bint positive) except -1:
        """Remove one copy (held: the caller checked) of class ``k`` at ``s``. In float
        mode the last copy of weight > 0 takes the weight left, rounding included."""
        cdef int32_t pn[MAXD]
        cdef int pj[MAXD]
        cdef int d = 0, j, l, a
        cdef int32_t i, p
        cdef BNode* x
        cdef int64_t* pk
        cdef double* ek
        s += 0.0
        if self.mo != NULL and iw and not self.floats:
            _mo_change(self, s, k, -iw, False)      # the moments before the change
        i = self.root
        while not self.n[i].leaf:
            x = &self.n[i]
            j = 0
            while j < x.n - 1 and x.key[j] < s:
                j += 1
            pn[d] = i
            pj[d] = j
            d += 1
            i = x.r.child[j]
        x = &self.n[i]
        j = 0
        while x.key[j] < s:
            j += 1
        x.r.c[k][j] -= 1
        self.ncopies[k] -= 1
        if positive:
            if self.pc != NULL:
                self.pc[i].pc[k][j] -= 1
            self.npos[k] -= 1
            if self._pc(i, 0)[j] + self._pc(i, 1)[j] == 0:
                self.pos_scores -= 1
        if self.floats:
            pk = self._pc(i, k)
            ek = self.fe[i].fe[k]
            if positive and pk[j] == 0:
                x.w[k][j].f = 0.0
                ek[j] = 0.0
            elif positive:
                _two_sum_add(&x.w[k][j].f, &ek[j], -fw)
                if x.w[k][j].f + ek[j] < 0:
                    x.w[k][j].f = 0.0
                    ek[j] = 0.0
        else:
            x.w[k][j].i -= iw
            self.itot[k] -= iw
            for l in range(d):
                self.n[pn[l]].w[k][pj[l]].i -= iw
        if x.r.c[0][j] + x.r.c[1][j] == 0:
            self._move(i, j, i, j + 1, x.n - j - 1)
            x.n -= 1
            self.distinct -= 1
        if self.floats:
            for l in range(d - 1, -1, -1):
                self.n[pn[l]].w[k][pj[l]].f = self._sum_f(self.n[pn[l]].r.child[pj[l]], k)
        # underflow: merge with a neighbour (or even out with it), level by level up
        l = d - 1
        while l >= 0:
            p, j = pn[l], pj[l]
            if self.n[self.n[p].r.child[j]].n >= LOW or self.n[p].n == 1:
                break
            a = j if j + 1 < self.n[p].n else j - 1      # the pair (a, a + 1) holds j
            if self.n[self.n[p].r.child[a]].n + self.n[self.n[p].r.child[a + 1]].n <= FAN:
                self._merge(p, a)
            else:
                self._even(p, a)
                break
            l -= 1
        while not self.n[self.root].leaf and self.n[self.root].n == 1:
            p = self.root
            self.root = self.n[p].r.child[0]
            self._release(p)
        return 0

    # ------------------------------------------------------------------ copies
    def raw(self):
        """The tree as it is, bit for bit: ``(layout, nodes, header)`` for `set_raw`
        (`_btree_raw.pxi`; the moments are left out: they are made again when asked for)."""
        return _tree_raw(self)

    def set_raw(self, layout, bytes nodes, header):
        """Restore `raw` into this empty tree; False (nothing changed) if it was written
        with another node layout (`_btree_raw.pxi`)."""
        return _tree_set_raw(self, layout, nodes, header)

    # ------------------------------------------------------------------ reading all
    cdef void entries(self, list out) except *:
        """``(node, position)`` of every entry, in score order."""
        self._entries(self.root, out)

    cdef void _entries(self, int32_t i, list out) except *:
        cdef int j
        if self.n[i].leaf:
            for j in range(self.n[i].n):
                out.append((i, j))
        else:
            for j in range(self.n[i].n):
                self._entries(self.n[i].r.child[j], out)

    def _check(self):
        """Assert the invariants in the header; returns (entries, sums, copies, pos)."""
        return _check_btree(self)
