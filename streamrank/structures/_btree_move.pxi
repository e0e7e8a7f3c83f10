# An update as one walk (`_cbtree.pyx` includes it last): a copy of the two-level tree
# moves from (class ko, score so, weight iw) to (class kn, score sn, weight niw). The walk
# goes down once; the old and new scores share its nodes above their split (one node per
# level there, in the cache for the second score's scan), and each level reads both
# scores' weight below for the terms and marks the entries whose sums change. When neither
# leaf must split or merge (the new score fits its leaf, the old entry's leaf keeps LOW
# entries), the move is done on that path: the inner sums change by the two weights, the
# leaves by one copy each. Otherwise nothing changes and the caller (`_cbinary`'s
# `_eupdate`) removes and inserts (`_eremove`, `_eadd`), which split and merge. Int mode
# without placement moments (a float tree recomputes its sums, and moments their path:
# both take the removal and the insert).


cdef inline void _entry_change(_BTree t, int32_t i, int j, int k, int64_t dc, int64_t iw,
                               bint positive) noexcept:
    """``dc`` (1 or -1) copies of class ``k`` of weight ``iw`` at entry ``j`` of leaf
    ``i``, with the tree's counts (copies, copies of weight > 0, scores held with one)."""
    cdef BNode* x = &t.n[i]
    cdef bint before = t._pc(i, 0)[j] + t._pc(i, 1)[j] > 0
    x.r.c[k][j] += dc
    t.ncopies[k] += dc
    x.w[k][j].i += dc * iw
    t.itot[k] += dc * iw
    if positive:
        if t.pc != NULL:
            t.pc[i].pc[k][j] += dc
        t.npos[k] += dc
    t.pos_scores += (t._pc(i, 0)[j] + t._pc(i, 1)[j] > 0) - before


cdef int _move_walk(_BTree t, double so, int ko, int64_t iw, double sn, int kn,
                    int64_t niw, int64_t* bo, int64_t* eo, int64_t* bn,
                    int64_t* en) except -1:
    """Move a held copy (int mode, no moments): 1 if done, with each class's weight below
    and at ``so`` (``bo``, ``eo``) and ``sn`` (``bn``, ``en``) before the move; 0, and
    nothing changed, if a leaf must split or merge or no such copy is held."""
    cdef int32_t po[MAXD]
    cdef int32_t pn[MAXD]
    cdef int jo[MAXD]
    cdef int jn[MAXD]
    cdef int d = 0, j, l, lo, ln, m
    cdef int32_t io = t.root, inn = t.root
    cdef BNode* x
    cdef bint exists, empties, opos = iw > 0, npos = niw > 0
    cdef int64_t pcv, cv
    bo[0] = bo[1] = eo[0] = eo[1] = bn[0] = bn[1] = en[0] = en[1] = 0
    while not t.n[io].leaf:                 # (both paths have the tree's depth)
        x = &t.n[io]
        j = 0
        while j < x.n - 1 and x.key[j] < so:
            bo[0] += x.w[0][j].i
            bo[1] += x.w[1][j].i
            j += 1
        po[d] = io
        jo[d] = j
        io = x.r.child[j]
        x = &t.n[inn]
        j = 0
        while j < x.n - 1 and x.key[j] < sn:
            bn[0] += x.w[0][j].i
            bn[1] += x.w[1][j].i
            j += 1
        pn[d] = inn
        jn[d] = j
        inn = x.r.child[j]
        d += 1
    # the leaves: the old copy's entry, the new score's place
    x = &t.n[io]
    j = 0
    while j < x.n and x.key[j] < so:
        bo[0] += x.w[0][j].i
        bo[1] += x.w[1][j].i
        j += 1
    if j == x.n or x.key[j] != so:
        return 0
    lo = j
    eo[0], eo[1] = x.w[0][lo].i, x.w[1][lo].i
    cv, pcv = x.r.c[ko][lo], t._pc(io, ko)[lo]
    if cv == 0 or (opos and (pcv == 0 or iw > x.w[ko][lo].i
                             or (pcv == 1 and iw != x.w[ko][lo].i))) \
            or (not opos and cv == pcv):
        return 0                            # not held: the caller's removal raises
    x = &t.n[inn]
    j = 0
    while j < x.n and x.key[j] < sn:
        bn[0] += x.w[0][j].i
        bn[1] += x.w[1][j].i
        j += 1
    ln = j
    exists = ln < x.n and x.key[ln] == sn
    if exists:
        en[0], en[1] = x.w[0][ln].i, x.w[1][ln].i
    empties = so != sn and t.n[io].r.c[0][lo] + t.n[io].r.c[1][lo] == 1
    if io == inn:
        m = t.n[io].n - empties + (not exists)
        if m > FAN or (io != t.root and m < LOW):
            return 0
    elif (empties and t.n[io].n - 1 < LOW) or (not exists and t.n[inn].n == FAN):
        return 0
    if not npos and t.pc == NULL:
        t._make_pc()                        # (may raise: nothing changed yet)
    # the move: the inner sums on both paths, then the leaves
    for l in range(d):
        t.n[po[l]].w[ko][jo[l]].i -= iw
        x = &t.n[pn[l]]
        x.w[kn][jn[l]].i += niw
        if x.key[jn[l]] < sn:
            x.key[jn[l]] = sn               # the last child's bound grows
    if so == sn:                            # one entry: its copy changes class or weight
        _entry_change(t, io, lo, kn, 1, niw, npos)
        _entry_change(t, io, lo, ko, -1, iw, opos)
        return 1
    _entry_change(t, io, lo, ko, -1, iw, opos)
    if empties:
        x = &t.n[io]
        t._move(io, lo, io, lo + 1, x.n - lo - 1)
        x.n -= 1
        t.distinct -= 1
        if io == inn and ln > lo:
            ln -= 1
    if not exists:
        x = &t.n[inn]
        t._move(inn, ln + 1, inn, ln, x.n - ln)
        x.n += 1
        x.key[ln] = sn
        x.w[0][ln].i = x.w[1][ln].i = 0
        x.r.c[0][ln] = x.r.c[1][ln] = 0
        if t.pc != NULL:
            t.pc[inn].pc[0][ln] = t.pc[inn].pc[1][ln] = 0
        t.distinct += 1
    _entry_change(t, inn, ln, kn, 1, niw, npos)
    return 1
