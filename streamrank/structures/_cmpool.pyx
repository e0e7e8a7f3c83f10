# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The score multisets of `streamrank.structures._cdominance` (cimported there): many small
weighted B+ trees in one C array of fixed-size nodes, each tree named by its root's index.

    inner   key  [ 0.3  |  0.9 ]    an upper bound of the scores under child j
            w    [ 5    |  2   ]    the weight under child j
            aux  [ c0   |  c1  ]    child j's node
    leaf    key  [0.1 | 0.2 | 0.3]  distinct scores, ascending
            w    [ 1  |  3  |  1 ]  their weight
            aux  [ 1  |  2  |  1 ]  their copies (of weight > 0)

Invariants (`_check_tree`): keys ascend in every node; every score under inner child j
is <= key[j] < every score under child j + 1; an inner w[j] is the sum of child j's;
no node but a root leaf is empty. A removal merges an underfull node (below `low`
entries) into a neighbour when both fit in one node, so a pair of neighbours is at
least half full. Int mode adds a change to the sums on the path (exact int64); float
mode recomputes each sum on the path from the child's entries, so an inner sum never
keeps the rounding of a weight that left, and a score whose last copy leaves is gone.
"""

from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memmove

from ._cnumeric cimport _two_sum_add

import math


cdef int _sent_cmp(const void* a, const void* b) noexcept nogil:
    cdef double x = (<SEnt*>a).s, y = (<SEnt*>b).s
    return (x > y) - (x < y)


cdef class _MPool:
    """The nodes of every multiset of one counter (free ones chained through aux[0])."""

    def __cinit__(self, int fan=MFAN):
        self.n = NULL
        self.cap = self.size = self.used = 0
        self.free_head = -1
        self.fan = max(4, min(fan, MFAN))
        self.half = self.fan // 2
        self.low = max(1, self.fan // 4)
        self._grow(16)

    def __dealloc__(self):
        free(self.n)

    cdef void reset(self) noexcept:
        self.size = self.used = 0
        self.free_head = -1

    cdef int _grow(self, int32_t cap) except -1:
        cdef MNode* p = <MNode*>realloc(self.n, cap * sizeof(MNode))
        if p == NULL:
            raise MemoryError()
        self.n = p
        self.cap = cap
        return 0

    cdef int32_t new(self, int leaf) except -1:
        """A fresh empty node (the array may move: take pointers again after this)."""
        cdef int32_t i
        if self.free_head >= 0:
            i = self.free_head
            self.free_head = self.n[i].aux[0]
        else:
            if self.size == self.cap:
                if self.cap >= (1 << 30) // MFAN:
                    raise MemoryError("DominanceCounter: too many score nodes")
                self._grow(self.cap + (self.cap >> 1) + 16)
            i = self.size
            self.size += 1
        self.used += 1
        self.n[i].n = 0
        self.n[i].leaf = leaf
        return i

    cdef void release(self, int32_t i) noexcept:
        self.n[i].aux[0] = self.free_head
        self.free_head = i
        self.used -= 1

    cdef void free_tree(self, int32_t i) noexcept:
        cdef int j
        if not self.n[i].leaf:
            for j in range(self.n[i].n):
                self.free_tree(self.n[i].aux[j])
        self.release(i)

    # ------------------------------------------------------------------ sums
    cdef int64_t tot_i(self, int32_t i) noexcept:
        cdef MNode* x = &self.n[i]
        cdef int64_t t = 0
        cdef int j
        for j in range(x.n):
            t += x.w[j].i
        return t

    cdef double tot_f(self, int32_t i) noexcept:
        cdef MNode* x = &self.n[i]
        cdef double t = 0.0
        cdef int j
        for j in range(x.n):
            t += x.w[j].f
        return t

    cdef inline void _set_sum(self, int32_t p, int j) noexcept:
        cdef int32_t ch = self.n[p].aux[j]
        if self.floats:
            self.n[p].w[j].f = self.tot_f(ch)
        else:
            self.n[p].w[j].i = self.tot_i(ch)

    cdef void part_i(self, int32_t i, double s, int64_t* below, int64_t* equal) noexcept:
        """The weight below ``s`` and at ``s`` (int mode): one node per level."""
        cdef MNode* x
        cdef int j
        cdef int64_t b = 0
        equal[0] = 0
        while True:
            x = &self.n[i]
            j = 0
            while j < x.n and x.key[j] < s:
                b += x.w[j].i
                j += 1
            if j == x.n:
                break
            if x.leaf:
                if x.key[j] == s:
                    equal[0] = x.w[j].i
                break
            i = x.aux[j]
        below[0] = b

    cdef void part_f(self, int32_t i, double s, double* below, double* equal) noexcept:
        """The weight below ``s`` and at ``s`` (float mode)."""
        cdef MNode* x
        cdef int j
        cdef double b = 0.0
        equal[0] = 0.0
        while True:
            x = &self.n[i]
            j = 0
            while j < x.n and x.key[j] < s:
                b += x.w[j].f
                j += 1
            if j == x.n:
                break
            if x.leaf:
                if x.key[j] == s:
                    equal[0] = x.w[j].f
                break
            i = x.aux[j]
        below[0] = b

    # ------------------------------------------------------------------ moves
    cdef void _move(self, int32_t dst, int dj, int32_t src, int sj, int m) noexcept:
        cdef MNode* d = &self.n[dst]
        cdef MNode* s = &self.n[src]
        if m <= 0:
            return
        memmove(&d.key[dj], &s.key[sj], m * sizeof(double))
        memmove(&d.w[dj], &s.w[sj], m * sizeof(Wt))
        memmove(&d.aux[dj], &s.aux[sj], m * sizeof(int32_t))

    cdef int _split(self, int32_t p, int j, double s) except -1:
        """Split the full child ``j`` of ``p`` in two before score ``s`` comes (keeping
        ``fan - low`` on the left when ``s`` is beyond the child's scores)."""
        cdef int32_t ch = self.n[p].aux[j]
        cdef int fan = self.fan
        cdef int at = fan - self.low if s > self.n[ch].key[fan - 1] else self.half
        cdef int32_t nw = self.new(self.n[ch].leaf)
        self._move(nw, 0, ch, at, fan - at)
        self.n[nw].n = fan - at
        self.n[ch].n = at
        self._move(p, j + 2, p, j + 1, self.n[p].n - j - 1)
        self.n[p].n += 1
        self.n[p].aux[j + 1] = nw
        self.n[p].key[j + 1] = self.n[p].key[j]
        self.n[p].key[j] = self.n[ch].key[at - 1]
        self._set_sum(p, j)
        self._set_sum(p, j + 1)
        return 0

    cdef void _merge(self, int32_t p, int a) noexcept:
        """Append child ``a + 1`` of ``p`` to child ``a`` (they fit in one node)."""
        cdef int32_t left = self.n[p].aux[a], right = self.n[p].aux[a + 1]
        self._move(left, self.n[left].n, right, 0, self.n[right].n)
        self.n[left].n += self.n[right].n
        self.n[p].key[a] = self.n[p].key[a + 1]
        if self.floats:
            self._set_sum(p, a)
        else:
            self.n[p].w[a].i += self.n[p].w[a + 1].i
        self._move(p, a + 1, p, a + 2, self.n[p].n - a - 2)
        self.n[p].n -= 1
        self.release(right)

    # ------------------------------------------------------------------ changes
    cdef int add(self, int32_t* root, double s, int64_t iw, double fw) except -1:
        """One copy at score ``s`` weighing ``iw`` / ``fw``; 1 if ``s`` is new."""
        cdef int32_t pn[MMAXD]
        cdef int pj[MMAXD]
        cdef int d = 0, j, l, fresh = 0
        cdef int32_t i, r
        cdef MNode* x
        if self.n[root[0]].n == self.fan:
            r = self.new(0)
            self.n[r].n = 1
            self.n[r].aux[0] = root[0]
            x = &self.n[root[0]]
            self.n[r].key[0] = x.key[x.n - 1]
            root[0] = r
            self._set_sum(r, 0)
            self._split(r, 0, s)
        i = root[0]
        while not self.n[i].leaf:
            x = &self.n[i]
            j = 0
            while j < x.n - 1 and x.key[j] < s:
                j += 1
            if self.n[x.aux[j]].n == self.fan:
                self._split(i, j, s)
                x = &self.n[i]
                if s > x.key[j]:
                    j += 1
            if x.key[j] < s:
                x.key[j] = s
            pn[d] = i
            pj[d] = j
            d += 1
            i = x.aux[j]
        x = &self.n[i]
        j = 0
        while j < x.n and x.key[j] < s:
            j += 1
        if j == x.n or x.key[j] != s:
            self._move(i, j + 1, i, j, x.n - j)
            x.n += 1
            x.key[j] = s
            x.w[j].i = 0
            x.aux[j] = 0
            fresh = 1
        x.aux[j] += 1
        if self.floats:
            x.w[j].f += fw
            for l in range(d - 1, -1, -1):
                self._set_sum(pn[l], pj[l])
        else:
            x.w[j].i += iw
            for l in range(d):
                self.n[pn[l]].w[pj[l]].i += iw
        return fresh

    cdef int remove(self, int32_t* root, double s, int64_t iw, double fw) except -1:
        """Remove one copy (held: the caller knows) at ``s``; 1 if ``s`` is gone."""
        cdef int32_t pn[MMAXD]
        cdef int pj[MMAXD]
        cdef int d = 0, j, l, a, gone = 0
        cdef int32_t i, p
        cdef MNode* x
        i = root[0]
        while not self.n[i].leaf:
            x = &self.n[i]
            j = 0
            while j < x.n - 1 and x.key[j] < s:
                j += 1
            pn[d] = i
            pj[d] = j
            d += 1
            i = x.aux[j]
        x = &self.n[i]
        j = 0
        while j < x.n and x.key[j] < s:
            j += 1
        if j == x.n or x.key[j] != s:
            raise AssertionError("DominanceCounter: a score missing from a multiset")
        x.aux[j] -= 1
        if x.aux[j] == 0:
            iw = x.w[j].i          # the weight left goes (float residue included)
            self._move(i, j, i, j + 1, x.n - j - 1)
            x.n -= 1
            gone = 1
        elif self.floats:
            x.w[j].f -= fw
            if x.w[j].f < 0:
                x.w[j].f = 0.0
        else:
            x.w[j].i -= iw
        if self.floats:
            for l in range(d - 1, -1, -1):
                self._set_sum(pn[l], pj[l])
        else:
            for l in range(d):
                self.n[pn[l]].w[pj[l]].i -= iw
        l = d - 1
        while l >= 0:           # underflow: merge into a neighbour, level by level up
            p, j = pn[l], pj[l]
            i = self.n[p].aux[j]
            if self.n[i].n >= self.low and self.n[i].n > 0:
                break
            if self.n[p].n == 1:
                if self.n[i].n:
                    break
                self.release(i)         # an only child emptied: so is its parent
                self.n[p].n = 0
                l -= 1
                continue
            a = j if j + 1 < self.n[p].n else j - 1
            if self.n[self.n[p].aux[a]].n + self.n[self.n[p].aux[a + 1]].n > self.fan:
                break
            self._merge(p, a)
            l -= 1
        while not self.n[root[0]].leaf and self.n[root[0]].n <= 1:
            p = root[0]
            if self.n[p].n == 0:
                self.n[p].leaf = 1      # everything left: an empty root leaf
                break
            root[0] = self.n[p].aux[0]
            self.release(p)
        return gone

    cdef int32_t build(self, SEnt* e, Py_ssize_t m) except -1:
        """A tree of the rows ``e[:m]``, sorted by score (equal scores are merged):
        nodes filled to three quarters (so that the inserts that follow do not split
        every node at once), every level spread evenly. O(m)."""
        cdef Py_ssize_t r = 0, k = 0, q, cnt, lo, hi, j
        cdef int32_t* level
        cdef int32_t* up
        cdef int32_t node
        cdef MNode* x
        while r < m:          # merge equal scores in place
            if k and e[k - 1].s == e[r].s:
                e[k - 1].c += e[r].c
                if self.floats:
                    e[k - 1].w.f += e[r].w.f
                else:
                    e[k - 1].w.i += e[r].w.i
            else:
                e[k] = e[r]
                k += 1
            r += 1
        m = k
        if m == 0:
            return self.new(1)
        cdef Py_ssize_t fill = self.fan - self.low
        cnt = (m + fill - 1) // fill
        level = <int32_t*>malloc(cnt * sizeof(int32_t))
        if level == NULL:
            raise MemoryError()
        try:
            for q in range(cnt):
                lo, hi = m * q // cnt, m * (q + 1) // cnt
                node = self.new(1)
                level[q] = node
                x = &self.n[node]
                x.n = <int32_t>(hi - lo)
                for j in range(hi - lo):
                    x.key[j] = e[lo + j].s
                    x.w[j] = e[lo + j].w
                    x.aux[j] = e[lo + j].c
            while cnt > 1:
                k = (cnt + fill - 1) // fill
                for q in range(k):
                    lo, hi = cnt * q // k, cnt * (q + 1) // k
                    node = self.new(0)
                    x = &self.n[node]
                    x.n = <int32_t>(hi - lo)
                    for j in range(hi - lo):
                        x.aux[j] = level[lo + j]
                        x.key[j] = self.n[level[lo + j]].key[self.n[level[lo + j]].n - 1]
                        self._set_sum(node, <int>j)
                    level[q] = node
                cnt = k
            return level[0]
        finally:
            free(level)

    # ------------------------------------------------------------------ reading all
    cdef void rows(self, int32_t i, list out) except *:
        """``(score, copies, weight)`` of every entry, in score order."""
        cdef int j
        cdef MNode* x = &self.n[i]
        if x.leaf:
            for j in range(x.n):
                out.append((x.key[j], x.aux[j], x.w[j].f if self.floats else x.w[j].i))
        else:
            for j in range(x.n):
                self.rows(x.aux[j], out)

    cdef object _check_tree(self, int32_t i, object lo, object hi, bint is_root):
        """Assert the invariants under node ``i``; return its (entries, weight, nodes)."""
        cdef MNode* x = &self.n[i]
        cdef int j
        assert 0 <= x.n <= self.fan, "multiset node size"
        assert x.n > 0 or (x.leaf and is_root), "an empty multiset node"
        keys = [x.key[j] for j in range(x.n)]
        assert all(a < b for a, b in zip(keys, keys[1:])), "multiset keys ascend"
        assert all((lo is None or lo < k) and (hi is None or k <= hi) for k in keys), \
            "multiset bounds"
        if x.leaf:
            assert all(x.aux[j] >= 1 for j in range(x.n)), "a score with no copy"
            total = math.fsum(x.w[j].f for j in range(x.n)) if self.floats else \
                sum(x.w[j].i for j in range(x.n))
            return x.n, total, 1
        count, total, nodes = 0, 0, 1
        for j in range(x.n):
            c, t, nd = self._check_tree(x.aux[j], lo if j == 0 else x.key[j - 1],
                                        x.key[j], False)
            if self.floats:
                assert abs(x.w[j].f - t) <= 1e-12 * abs(t) + 1e-300, "inner float sum"
            else:
                assert x.w[j].i == t, "inner sum"
            count, total, nodes = count + c, total + t, nodes + nd
        return count, total, nodes
