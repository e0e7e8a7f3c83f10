# Copies and checks of `DominanceCounter` (included by `_cdominance.pyx`): pickling bit
# for bit, and the invariants.


def _raw_state(DominanceCounter dc):
    """The counter as it is, bit for bit: ``(layout, inner, leaves, multisets, header)``."""
    cdef _MPool mp = dc.mp
    layout = (OCAP, MFAN, sizeof(ONode), sizeof(OLeaf), sizeof(MNode))
    header = (dc.isize, dc.ifree, dc.lsize, dc.lfree, dc.root, dc.col, dc.labs, dc.n_len,
              dc.n_entries, dc.n_leaves, dc.n_pos, dc.n_scores, dc.n_levels, dc.itot,
              dc.floats, dc.leaf, mp.size, mp.free_head, mp.used, mp.fan)
    return (layout, (<char*>dc.inn)[:dc.isize * sizeof(ONode)],
            (<char*>dc.lv)[:dc.lsize * sizeof(OLeaf)],
            (<char*>mp.n)[:mp.size * sizeof(MNode)], header)


cdef bint _set_raw(DominanceCounter dc, raw) except -1:
    """Restore `_raw_state`; False (nothing changed) if written with another layout."""
    layout, inner, leaves, msets, header = raw
    if tuple(layout) != (OCAP, MFAN, sizeof(ONode), sizeof(OLeaf), sizeof(MNode)):
        return False
    (isize, ifree, lsize, lfree, root, col, labs, n_len, n_entries, n_leaves, n_pos,
     n_scores, n_levels, itot, floats, leaf, msize, mfree, mused, fan) = header
    if (bool(floats) != dc.floats or len(inner) != isize * sizeof(ONode)
            or len(leaves) != lsize * sizeof(OLeaf) or len(msets) != msize * sizeof(MNode)):
        return False
    cdef ONode* pi = <ONode*>realloc(dc.inn, max(isize, 1) * sizeof(ONode))
    if pi == NULL:
        raise MemoryError()
    dc.inn, dc.icap = pi, max(isize, 1)
    cdef OLeaf* pl = <OLeaf*>realloc(dc.lv, max(lsize, 1) * sizeof(OLeaf))
    if pl == NULL:
        raise MemoryError()
    dc.lv, dc.lcap = pl, max(lsize, 1)
    cdef _MPool mp = _MPool(fan)
    mp.floats = dc.floats
    mp._grow(max(msize, 16))
    memcpy(dc.inn, <char*>inner, len(inner))
    memcpy(dc.lv, <char*>leaves, len(leaves))
    memcpy(mp.n, <char*>msets, len(msets))
    mp.size, mp.free_head, mp.used = msize, mfree, mused
    dc.mp = mp
    dc.isize, dc.ifree, dc.lsize, dc.lfree = isize, ifree, lsize, lfree
    dc.root, dc.col, dc.labs = root, col, labs
    dc.n_len, dc.n_entries, dc.n_leaves, dc.n_pos = n_len, n_entries, n_leaves, n_pos
    dc.n_scores, dc.n_levels, dc.itot = n_scores, n_levels, itot
    dc.leaf, dc.leafmax = leaf, 2 * leaf
    return True


def _restore(dtype, columns, sums, raw):
    """Unpickle a counter: bit for bit where the layout is this build's, else rebuilt
    from ``columns`` (equal to rounding)."""
    counter = DominanceCounter(dtype=dtype)
    if not _set_raw(counter, raw):
        y, s, c, w, p = columns
        counter.load(y, s, c, w, p)
    if sums is not None:
        counter.sums = sums
    return counter


def _check_counter(DominanceCounter dc):
    """Assert every invariant of ``dc``: the outer tree, each node's multiset against the
    keys of its left subtree, the column and label multisets, the counters, no node
    lost. O(n log n)."""
    cdef _MPool mp = dc.mp
    floats = dc.floats
    y, s, c, w, p = dc.columns()
    keys = list(zip(y.tolist(), s.tolist()))
    assert all(a < b for a, b in zip(keys, keys[1:])), "keys out of order"
    assert len(keys) == dc.n_entries, "entries"
    assert dc.n_len == int(c.sum()), "len"
    assert dc.n_pos == int(p.sum()), "copies of weight > 0"
    assert ((c >= 1) & (p >= 0) & (p <= c)).all(), "copies"
    assert (w >= 0).all() and (w[p == 0] == 0).all(), "weights"
    assert dc.mp.floats == floats
    nodes = [0]

    def multiset(int32_t root, expected, what):
        """Assert that multiset ``root`` holds ``{value: (copies, weight)}``."""
        count, total, nd = mp._check_tree(root, None, None, True)
        nodes[0] += nd
        got = []
        mp.rows(root, got)
        assert [r[0] for r in got] == sorted(expected), what + " values"
        for v, cc, ww in got:
            ec, ew = expected[v]
            assert cc == ec, what + " copies"
            assert (abs(ww - ew) <= 1e-9 * (abs(ew) + 1.0)) if floats else ww == ew, \
                what + " weights"

    def entries(lo, hi, by):
        out = {}
        for k in range(lo, hi):
            if p[k]:
                key = float(by[k])
                oc, ow = out.get(key, (0, 0))
                out[key] = (oc + int(p[k]), ow + w[k].item())
        return out

    def visit(int32_t ref, Py_ssize_t lo, bint is_root):
        """Check the subtree ``ref`` whose keys start at ``lo``; its (end, leaves)."""
        cdef OLeaf* f
        cdef ONode* x
        if ref < 0:
            f = &dc.lv[~ref]
            assert f.n <= dc.leafmax and (f.n or is_root), "leaf size"
            return lo + f.n, 1
        x = &dc.inn[ref]
        mid, a = visit(x.left, lo, False)
        x = &dc.inn[ref]
        hi, b = visit(x.right, mid, False)
        x = &dc.inn[ref]
        assert x.size == a + b, "size"
        assert a <= _DELTA * b and b <= _DELTA * a, "balance"
        assert mid > lo and hi > mid, "an empty side"
        split = (x.label, x.score)
        assert keys[mid - 1] < split <= keys[mid], "split key"
        multiset(x.ms, entries(lo, mid, s), "left scores")
        x = &dc.inn[ref]
        assert (x.ltot.f == mp.tot_f(x.ms)) if floats else (x.ltot.i == mp.tot_i(x.ms)), \
            "left total"
        return hi, a + b

    end, leaves = visit(dc.root, 0, True)
    assert end == len(keys), "keys under the root"
    assert leaves == dc.n_leaves, "leaf count"
    assert dc.n_leaves <= 4 + 4 * dc.n_entries // dc.leaf, "leaves too empty"
    col = entries(0, len(keys), s)
    multiset(dc.col, col, "column")
    assert dc.n_scores == len(col), "score levels"
    labs = {k: (v[0], 0.0 if floats else 0) for k, v in entries(0, len(keys), y).items()}
    multiset(dc.labs, labs, "labels")
    assert dc.n_levels == len(labs), "label levels"
    assert nodes[0] == mp.used, "multiset nodes lost"
    total = math.fsum(w.tolist()) if floats else int(w.sum())
    assert (abs(dc.total_weight - total) <= 1e-9 * (total + 1.0)) if floats else \
        dc.total_weight == total, "total weight"
    assert dc.sums is None or dc.sums.floats == floats, "sums mode"
