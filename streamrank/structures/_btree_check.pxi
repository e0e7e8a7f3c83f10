"""The invariants of `_BTree` (`_btree.pxi`), asserted by its `_check`: ascending keys,
node fill, bounds, copies and weights, and every inner sum equal to its subtree's."""


def _check_btree(_BTree self):
    """Assert the invariants of a `_BTree` (in `_btree.pxi`'s header); returns (entries,
    sums, copies, pos, scores with a copy of weight > 0). O(n)."""
    assert (self.fe != NULL) == bool(self.floats), "fe exactly in float mode"
    assert 1 <= self.size <= self.cap
    got = _check_node(self, self.root, None, None, True)
    count, sums, copies, pos, pscores = got
    assert count == self.distinct, (count, self.distinct)
    assert pscores == self.pos_scores, (pscores, self.pos_scores)
    for k in range(2):
        assert copies[k] == self.ncopies[k], (copies, k)
        assert pos[k] == self.npos[k], (pos, k)
        assert self.pc != NULL or pos[k] == copies[k], "a copy of weight 0 without pc"
        if not self.floats:
            assert sums[k] == self.itot[k], (sums, k)
    if self.mo != NULL:
        _check_moments(self)
    return got


cdef tuple _check_node(_BTree self, int32_t i, lo, hi, bint is_root):
    """The invariants of the subtree at node ``i`` with keys in ``(lo, hi]``."""
    cdef BNode* x = &self.n[i]
    cdef int j, k
    cdef object own
    assert 0 <= x.n <= FAN
    assert x.n >= LOW or is_root, "a node below LOW entries"
    assert x.n > 0 or x.leaf, "an empty inner node"
    assert x.n >= 2 or x.leaf or not is_root, "an inner root with one child"
    keys = [x.key[j] for j in range(x.n)]
    assert all(a < b for a, b in zip(keys, keys[1:])), "keys ascend"
    count, sums, copies, pos, pscores = 0, [0, 0], [0, 0], [0, 0], 0
    if x.leaf:
        for j in range(x.n):
            key = x.key[j]
            assert (lo is None or lo < key) and (hi is None or key <= hi), "bounds"
            assert x.r.c[0][j] + x.r.c[1][j] >= 1, "a score with no copy"
            if self._pc(i, 0)[j] + self._pc(i, 1)[j]:
                pscores += 1
            for k in range(2):
                p = self._pc(i, k)[j]
                assert 0 <= p <= x.r.c[k][j], "positive copies"
                own = self._own_f(i, k, j) if self.floats else x.w[k][j].i
                assert own >= 0 and (p > 0 or own == 0), "orphan weight"
                sums[k] = sums[k] + own
                copies[k] += x.r.c[k][j]
                pos[k] += p
        return x.n, sums, copies, pos, pscores
    for j in range(x.n):
        ch = x.r.child[j]
        assert 0 <= ch < self.size and ch != i, "a child out of the nodes"
        sub_lo = lo if j == 0 else x.key[j - 1]
        assert (lo is None or lo < x.key[j]) and (hi is None or x.key[j] <= hi), \
            "inner bound"
        c2, s2, cp2, p2, ps2 = _check_node(self, ch, sub_lo, x.key[j], False)
        count += c2
        pscores += ps2
        for k in range(2):
            if self.floats:
                assert abs(x.w[k][j].f - s2[k]) <= 1e-12 * max(s2[k], 1e-300) + \
                    1e-300, "inner float sum"
            else:
                assert x.w[k][j].i == s2[k], "inner sum"
            sums[k] = sums[k] + s2[k]
            copies[k] += cp2[k]
            pos[k] += p2[k]
    return count, sums, copies, pos, pscores
