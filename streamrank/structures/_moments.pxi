# The placement moments of `_BTree` (`_btree.pxi`; included in `_cbtree.pyx` after it):
# what DeLong's variance of the AUC needs, kept in O(log n) per change and read in O(1).
#
# Class 1 of the tree is the positive class (weight a_k at score k), class 0 the negative
# (b_k). A positive at k is placed above the negatives by P_k = 2 B_<k + b_k (twice the
# negative weight below, plus the weight tied), a negative by N_k = 2 A_>k + a_k; the tree
# keeps, in `m` (mod 2**128, exact while the weight held is below `MO_EXACT_MAX`):
#
#     U  = sum_k a_k P_k  = 2 C + T        Q1 = sum_k a_k P_k**2      Q0 = sum_k b_k N_k**2
#     C  = sum_k a_k B_<k (concordant)     Z  = sum_k a_k b_k (tied)
#
# A change of ``d`` positive weight at s moves P_s's weight (Q1 += d P_s**2) and shifts N_k
# by 2d for every negative below s and by d at s, so Q0 changes by 4d sum_{k<s} b_k N_k +
# 4d**2 B_<s + b_s ((N_s + d)**2 - N_s**2); the range sum is 2 (C_<s + B_<s A_>=s) + Z_<s,
# with C_<s and Z_<s, the concordant weight and the ties among the scores below s, read on
# the walk from `mo`: each inner child's C and Z inside it (the children combine left to
# right as C = sum C_i + sum_{i<j} B_i A_j). A negative mirrors it. The walk also adds the
# change to the C and Z of each child on the path; splits, merges and evens recompute the
# children they touch from their entries (O(FAN)). A removal is the same change with -d,
# read before the tree changes (an insert's is read after: the tree splits on its way
# down, then `_mo_change` subtracts the change from what it reads).

cdef enum:
    M_Q0 = 0
    M_Q1 = 1
    M_U = 2
    M_C = 3
    M_Z = 4

#: The weight held up to which the moments in 128 bits are exact (Q <= 16/27 W**3 < 2**127);
#: past it they are counted again from the entries, in Python ints, O(n) per read.
cdef int64_t _MO_EXACT = (<int64_t>1) << 40
MO_EXACT_MAX = _MO_EXACT


cdef void _mo_of(_BTree t, int32_t i, sr_uint128* c, sr_uint128* z) noexcept:
    """Node ``i``'s concordant weight and ties inside it, from its entries. O(FAN)."""
    cdef BNode* x = &t.n[i]
    cdef sr_uint128 cc = 0, zz = 0, b = 0
    cdef int j
    if x.leaf:
        for j in range(x.n):
            cc += <sr_uint128>x.w[1][j].i * b
            zz += <sr_uint128>x.w[1][j].i * <sr_uint128>x.w[0][j].i
            b += <sr_uint128>x.w[0][j].i
    else:
        for j in range(x.n):
            cc += t.mo[i].e[j].c + <sr_uint128>x.w[1][j].i * b
            zz += t.mo[i].e[j].z
            b += <sr_uint128>x.w[0][j].i
    c[0] = cc
    z[0] = zz


cdef void _mo_set(_BTree t, int32_t p, int j) noexcept:
    """Parent ``p``'s moments of child ``j``, from the child's entries."""
    _mo_of(t, t.n[p].r.child[j], &t.mo[p].e[j].c, &t.mo[p].e[j].z)


cdef void _mo_change(_BTree t, double s, int k, int64_t dw, bint after) noexcept:
    """``dw`` weight of class ``k`` comes to score ``s`` (held), or leaves it (``dw <
    0``): the moments and the path's per-child sums. ``after``: the tree's weights hold the
    change already (an insert); else not yet (a removal). One walk, O(log n)."""
    cdef int32_t pn[MAXD]
    cdef int pj[MAXD]
    cdef sr_uint128 lb[MAXD]      # class-0 / class-1 weight left of the path down to each
    cdef sr_uint128 la[MAXD]      # level's child
    cdef int dep = 0, j, l
    cdef int32_t i = t.root
    cdef BNode* x
    cdef sr_uint128 B = 0, A = 0, cpre = 0, zpre = 0, b, a, W0, W1, P, N, above, own
    cdef sr_uint128 d = <sr_uint128>dw
    while not t.n[i].leaf:
        x = &t.n[i]
        j = 0
        while j < x.n - 1 and x.key[j] < s:
            cpre += t.mo[i].e[j].c + <sr_uint128>x.w[1][j].i * B
            zpre += t.mo[i].e[j].z
            B += <sr_uint128>x.w[0][j].i
            A += <sr_uint128>x.w[1][j].i
            j += 1
        pn[dep] = i
        pj[dep] = j
        lb[dep] = B
        la[dep] = A
        dep += 1
        i = x.r.child[j]
    x = &t.n[i]
    j = 0
    while x.key[j] < s:
        cpre += <sr_uint128>x.w[1][j].i * B
        zpre += <sr_uint128>x.w[1][j].i * <sr_uint128>x.w[0][j].i
        B += <sr_uint128>x.w[0][j].i
        A += <sr_uint128>x.w[1][j].i
        j += 1
    b = <sr_uint128>x.w[0][j].i
    a = <sr_uint128>x.w[1][j].i
    W0 = <sr_uint128>t.itot[0]
    W1 = <sr_uint128>t.itot[1]
    if after:               # the values before the change
        if k:
            a -= d
            W1 -= d
        else:
            b -= d
            W0 -= d
    above = W1 - A - a      # positive weight above s
    P = 2 * B + b
    N = 2 * above + a
    for l in range(dep):
        if k:               # the child gains d times its negative weight below s
            t.mo[pn[l]].e[pj[l]].c += d * (B - lb[l])
            t.mo[pn[l]].e[pj[l]].z += d * b
        else:               # ... times its positive weight above s
            own = <sr_uint128>t.n[pn[l]].w[1][pj[l]].i
            t.mo[pn[l]].e[pj[l]].c += d * (own - (A - la[l]) - a)
            t.mo[pn[l]].e[pj[l]].z += d * a
    if k:
        t.m[M_Q1] += d * P * P
        t.m[M_U] += d * P
        t.m[M_Q0] += 4 * d * (2 * (cpre + B * (W1 - A)) + zpre) + 4 * d * d * B \
            + b * (2 * d * N + d * d)
        t.m[M_C] += d * B
        t.m[M_Z] += d * b
    else:
        t.m[M_Q0] += d * N * N
        t.m[M_U] += d * N
        t.m[M_Q1] += 4 * d * (2 * (t.m[M_C] - cpre - a * B) + (t.m[M_Z] - zpre - a * b)) \
            + 4 * d * d * above + a * (2 * d * P + d * d)
        t.m[M_C] += d * above
        t.m[M_Z] += d * a


cdef void _mo_build(_BTree t, int32_t i) noexcept:
    """The per-child sums of the subtree at node ``i``, bottom up. O(its size)."""
    cdef int j
    if t.n[i].leaf:
        return
    for j in range(t.n[i].n):
        _mo_build(t, t.n[i].r.child[j])
        _mo_set(t, i, j)


cdef void _mo_scan(_BTree t, int32_t i, sr_uint128* acc) noexcept:
    """Add the subtree at ``i``'s entries, in score order, to ``acc``: the negative and
    positive weight passed, Q0, Q1, U (``acc[5]``: the positive weight held)."""
    cdef BNode* x = &t.n[i]
    cdef sr_uint128 a, b, P, N
    cdef int j
    if not x.leaf:
        for j in range(x.n):
            _mo_scan(t, x.r.child[j], acc)
        return
    for j in range(x.n):
        b = <sr_uint128>x.w[0][j].i
        a = <sr_uint128>x.w[1][j].i
        P = 2 * acc[0] + b
        N = 2 * (acc[5] - acc[1] - a) + a
        acc[2] += b * N * N
        acc[3] += a * P * P
        acc[4] += a * P
        acc[0] += b
        acc[1] += a


cdef int _mo_on(_BTree t) except -1:
    """Moments on (int mode; nothing in float mode, or if they are on): built from the
    tree in O(n), kept by every change from then on."""
    cdef sr_uint128 acc[6]
    cdef int j
    if t.mo != NULL or t.floats:
        return 0
    t.mo = <BMo*>calloc(t.cap, sizeof(BMo))
    if t.mo == NULL:
        raise MemoryError()
    _mo_build(t, t.root)
    _mo_of(t, t.root, &t.m[M_C], &t.m[M_Z])
    for j in range(5):
        acc[j] = 0
    acc[5] = <sr_uint128>t.itot[1]
    _mo_scan(t, t.root, acc)
    t.m[M_Q0], t.m[M_Q1], t.m[M_U] = acc[2], acc[3], acc[4]
    return 0


cdef void _mo_off(_BTree t) noexcept:
    free(t.mo)
    t.mo = NULL


cdef object _pyu128(sr_uint128 x):
    """An unsigned 128-bit value as a Python int."""
    return (<object>(<uint64_t>(x >> 64)) << 64) | <object>(<uint64_t>x)


cdef tuple _tree_weights(_BTree t):
    """``({score: class-0 weight}, {score: class-1 weight})`` of the entries. O(n)."""
    cdef list where = []
    cdef int32_t node
    cdef int pos
    cdef dict w0 = {}, w1 = {}
    t.entries(where)
    for node, pos in where:
        w0[t.n[node].key[pos]] = t.n[node].w[0][pos].i
        w1[t.n[node].key[pos]] = t.n[node].w[1][pos].i
    return w0, w1


def _placements(neg, pos):
    """``(W1, W0, U, Q1, Q0)`` of the negative and positive weight per score (dicts), in
    Python ints: the count that the moments keep. O(n log n)."""
    keys = sorted(set(neg) | set(pos))
    w1, w0 = sum(pos.values()), sum(neg.values())
    below_b = below_a = u = q1 = q0 = 0
    for key in keys:
        b, a = neg.get(key, 0), pos.get(key, 0)
        p = 2 * below_b + b
        n = 2 * (w1 - below_a - a) + a
        u += a * p
        q1 += a * p * p
        q0 += b * n * n
        below_b += b
        below_a += a
    return w1, w0, u, q1, q0


cdef tuple _mo_read(_BTree t):
    """``(W1, W0, U, Q1, Q0)`` with class 1 positive, Python ints: O(1) while the weight
    held is at most `MO_EXACT_MAX` (the moments are on), else counted again, O(n log n)."""
    if t.itot[0] + t.itot[1] > _MO_EXACT:
        w0, w1 = _tree_weights(t)
        return _placements(w0, w1)
    _mo_on(t)
    return (t.itot[1], t.itot[0], _pyu128(t.m[M_U]), _pyu128(t.m[M_Q1]),
            _pyu128(t.m[M_Q0]))


def _swap_classes(moments):
    """The moments with the classes' roles swapped: placements ``2 W0 - P`` and ``2 W1 -
    N``, so that Q1' = 4 W1**2 W0 - 4 W1 U + Q0 (and the mirror), U' = 2 W0 W1 - U."""
    w1, w0, u, q1, q0 = moments
    return (w0, w1, 2 * w0 * w1 - u, 4 * w1 * w1 * w0 - 4 * w1 * u + q0,
            4 * w0 * w0 * w1 - 4 * w0 * u + q1)


def _check_moments(_BTree t):
    """Assert that `mo` and `m` equal a recount of the entries (mod 2**128). O(n)."""
    assert not t.floats, "moments in float mode"
    mask = (1 << 128) - 1
    w0, w1 = _tree_weights(t)
    want = _placements(w0, w1)
    assert _pyu128(t.m[M_U]) == want[2] & mask, ("U", _pyu128(t.m[M_U]), want)
    assert _pyu128(t.m[M_Q1]) == want[3] & mask, ("Q1", _pyu128(t.m[M_Q1]), want)
    assert _pyu128(t.m[M_Q0]) == want[4] & mask, ("Q0", _pyu128(t.m[M_Q0]), want)
    c, z = _check_mo_node(t, t.root)
    assert (_pyu128(t.m[M_C]), _pyu128(t.m[M_Z])) == (c & mask, z & mask), "C, Z"


def _check_mo_node(_BTree t, int32_t i):
    """The concordant weight and ties inside node ``i``, from its leaves, asserting every
    inner child's `mo` on the way. Python ints."""
    cdef BNode* x = &t.n[i]
    cdef int j
    mask = (1 << 128) - 1
    c = z = below = 0
    if x.leaf:
        for j in range(x.n):
            c += <object>x.w[1][j].i * below
            z += <object>x.w[1][j].i * <object>x.w[0][j].i
            below += x.w[0][j].i
        return c, z
    for j in range(x.n):
        cj, zj = _check_mo_node(t, x.r.child[j])
        got = (_pyu128(t.mo[i].e[j].c), _pyu128(t.mo[i].e[j].z))
        assert got == (cj & mask, zj & mask), ("per-child moments", i, j)
        c += cj + <object>x.w[1][j].i * below
        z += zj
        below += x.w[0][j].i
    return c, z
