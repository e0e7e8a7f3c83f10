# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Compiled kernels for few distinct values, behind `streamrank.batch._kernels` (the
merge-sort inversion counts are in `streamrank.batch._ckernels`, the grouping of rows by
code in `streamrank.batch._cgroups`).

* `tie_pairs`: the pairs inside runs of equal values of a sorted array, and the runs;
* `level_codes`: the index of each value among few sorted levels (branch-free search);
* `level_counts`: every pair count of rows in score order with few label levels
  (a Fenwick tree over the labels, ``O(n log L)``, or a histogram per run of tied scores);
* `row_scores`: each row's signed pair score against all the others (two passes with a
  Fenwick tree over the labels, ``O(n log L)``), behind `streamrank.concordance_variance`.

Counts without weights are exact Python ints (128-bit accumulators); with float weights
they are float64 sums of nonnegative products, with no subtraction.
"""

from libc.stdint cimport int64_t, uint64_t

import numpy as np

from ._ckernels import _key_array

cdef extern from *:
    """
    typedef unsigned __int128 sr_u128;
    static inline unsigned long long sr_hi(sr_u128 x) { return (unsigned long long)(x >> 64); }
    static inline unsigned long long sr_lo(sr_u128 x) { return (unsigned long long)x; }
    """
    ctypedef unsigned long long sr_u128
    unsigned long long sr_hi(sr_u128) nogil
    unsigned long long sr_lo(sr_u128) nogil

ctypedef fused key_t:
    double
    int64_t
    uint64_t


cdef object _u128_to_int(sr_u128 x):
    return (int(sr_hi(x)) << 64) | int(sr_lo(x))


def tie_pairs(sorted_keys, starts=None):
    """``(pairs, runs)`` of an array whose equal values are adjacent: ``sum l (l - 1) / 2``
    over the runs of equal values (exact int) and their number. With ``starts`` (run
    starts of an enclosing partition, the first 0) a run of equal values also ends at
    each start: the pairs tied inside each part. One pass, ``O(n)``.

    >>> import numpy as np
    >>> tie_pairs(np.array([1.0, 1.0, 1.0, 2.0, 3.0, 3.0]))
    (4, 3)
    >>> tie_pairs(np.array([1.0, 1.0, 1.0, 2.0, 3.0, 3.0]), np.array([0, 2]))
    (2, 4)
    """
    k = _key_array(sorted_keys)
    st = np.zeros(0, dtype=np.intp) if starts is None else np.ascontiguousarray(
        starts, dtype=np.intp)
    if st.size and (st[0] != 0 or (np.diff(st) <= 0).any() or st[st.size - 1] >= max(k.size, 1)):
        raise ValueError("tie_pairs: starts must increase from 0 within the array")
    if k.dtype == np.float64:
        return _tie_pairs[double](k, st)
    if k.dtype == np.int64:
        return _tie_pairs[int64_t](k, st)
    return _tie_pairs[uint64_t](k, st)


cdef tuple _tie_pairs(const key_t[::1] k, const Py_ssize_t[::1] starts):
    cdef Py_ssize_t n = k.shape[0], i, runs = 0, part = 1, m = starts.shape[0]
    cdef Py_ssize_t next_start = starts[1] if m > 1 else n
    cdef uint64_t in_run = 0
    cdef sr_u128 pairs = 0
    if n == 0:
        return 0, 0
    with nogil:
        runs = 1
        for i in range(1, n):
            if i == next_start:                 # a new part: a new run
                part += 1
                next_start = starts[part] if part < m else n
                in_run = 0
                runs += 1
            elif k[i] == k[i - 1]:
                in_run += 1                     # the j-th repeat pairs with the j before it
                pairs += in_run
            else:
                in_run = 0
                runs += 1
    return _u128_to_int(pairs), int(runs)


def level_codes(values, levels):
    """The index of each value in ``levels`` (sorted ascending, distinct; every value
    present, as for ``levels = np.unique(values)``), as int64: a branch-free binary search
    per value, ``O(n log m)`` with ``m`` levels that stay in cache (``np.searchsorted`` on
    unsorted needles mispredicts every step).

    >>> import numpy as np
    >>> level_codes(np.array([2.5, -1.0, 2.5, 0.0]), np.array([-1.0, 0.0, 2.5])).tolist()
    [2, 0, 2, 1]
    """
    x = _key_array(values)
    lv = np.ascontiguousarray(levels, dtype=x.dtype)
    out = np.empty(x.shape[0], dtype=np.int64)
    if x.shape[0] == 0:
        return out
    if lv.shape[0] == 0:
        raise ValueError("level_codes: no levels")
    if x.dtype == np.float64:
        _level_codes[double](x, lv, out)
    elif x.dtype == np.int64:
        _level_codes[int64_t](x, lv, out)
    else:
        _level_codes[uint64_t](x, lv, out)
    return out


cdef void _level_codes(const key_t[::1] x, const key_t[::1] lv, int64_t[::1] out) noexcept:
    cdef Py_ssize_t n = x.shape[0], m = lv.shape[0], i, base, length, half
    cdef key_t v
    with nogil:
        for i in range(n):
            v = x[i]
            base = 0
            length = m
            while length > 1:
                half = length // 2
                base = base + half if lv[base + half - 1] < v else base
                length -= half
            out[i] = base + (lv[base] < v)


def level_counts(labels, n_levels, starts, weights=None):
    """``(N0, Ty, Ts, Tyy, D)`` of rows in score order, labels ``0..n_levels-1``.

    ``labels``: the label rank of each row, rows sorted by score; ``starts``: the starts of
    the runs of tied scores (the first 0); ``weights``: float64 row weights or ``None``.
    ``N0`` all pairs, ``Ty`` pairs of one label, ``Ts`` pairs of one score, ``Tyy`` of
    both, ``D`` the discordant pairs (lower score, higher label). One pass with a Fenwick
    tree over the labels (reversed, so that "labels above" is a prefix: only additions):
    a run's rows query the tree of the earlier runs, then enter it. ``O(n log L)``; with
    few runs (``runs * L <= n``) a histogram re-summed per run instead, ``O(n + runs L)``.

    Without weights the counts are exact ints. With weights every count is a sum of
    ``w_j * (weight of the earlier rows of its kind)`` kept by running sums, additions of
    nonnegative terms only; ``Ty`` is then bit for bit ``N0`` when one label is held (and
    ``Tyy`` is ``Ty``, ``Ts`` is ``N0`` when one score is), so degenerate metrics stay
    exactly undefined.

    >>> import numpy as np
    >>> level_counts(np.array([1, 0, 1, 0]), 2, np.array([0, 1, 3]))
    (6, 2, 1, 0, 3)
    """
    y = np.ascontiguousarray(labels, dtype=np.int64)
    st = np.ascontiguousarray(starts, dtype=np.intp)
    n = y.shape[0]
    if n and (st.size == 0 or st[0] != 0 or (np.diff(st) <= 0).any() or st[st.size - 1] >= n):
        raise ValueError("level_counts: starts must increase from 0 within the array")
    L = max(int(n_levels), 1)
    if weights is None:
        out = _level_counts(y, L, st, None)
        return tuple(_u128_to_int(x) for x in out)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError("level_counts: one weight per row expected")
    return _level_counts(y, L, st, w)


cdef tuple _level_counts(const int64_t[::1] y, Py_ssize_t L, const Py_ssize_t[::1] starts,
                         const double[::1] w):
    cdef Py_ssize_t n = y.shape[0], m = starts.shape[0], run, lo, hi, j, i, r
    cdef int64_t v
    cdef bint weighted = w is not None
    cdef double wj = 1.0, q, before = 0.0, in_run
    cdef double fN0 = 0.0, fTy = 0.0, fTs = 0.0, fTyy = 0.0, fD = 0.0
    cdef uint64_t c, cbefore = 0, cin_run
    cdef sr_u128 iN0 = 0, iTy = 0, iTs = 0, iTyy = 0, iD = 0
    fen_np = np.zeros(L + 1, dtype=np.float64 if weighted else np.uint64)
    lab_np = np.zeros(L, dtype=np.float64 if weighted else np.uint64)
    runw_np = np.zeros(L, dtype=np.float64 if weighted else np.uint64)
    stamp_np = np.full(L, -1, dtype=np.intp)
    cdef double[::1] ffen, flab, frunw
    cdef uint64_t[::1] ifen, ilab, irunw
    cdef Py_ssize_t[::1] stamp = stamp_np
    # Few score runs (m L <= n): the counts above each label are recomputed per run from a
    # plain histogram, O(L) per run and O(1) per row, instead of the tree's O(log L).
    cdef bint batch = m * L <= n
    hist_np = np.zeros(L + 1, dtype=np.float64 if weighted else np.uint64)
    above_np = np.zeros(L + 1, dtype=np.float64 if weighted else np.uint64)
    cdef double[::1] fhist, fabove
    cdef uint64_t[::1] ihist, iabove
    if weighted:
        ffen, flab, frunw = fen_np, lab_np, runw_np
        fhist, fabove = hist_np, above_np
    else:
        ifen, ilab, irunw = fen_np, lab_np, runw_np
        ihist, iabove = hist_np, above_np
    for j in range(n):
        if y[j] < 0 or y[j] >= L:
            raise ValueError(f"level_counts: labels must lie in [0, {L})")
    with nogil:
        for run in range(m):
            lo = starts[run]
            hi = starts[run + 1] if run + 1 < m else n
            in_run = 0.0
            cin_run = 0
            if batch:                               # above[v]: earlier rows with label > v
                for i in range(L - 1, -1, -1):
                    if weighted:
                        fabove[i] = fabove[i + 1] + fhist[i + 1]
                    else:
                        iabove[i] = iabove[i + 1] + ihist[i + 1]
            for j in range(lo, hi):
                v = y[j]
                r = L - 1 - v                      # reversed: labels above v come first
                if stamp[v] != run:
                    stamp[v] = run
                    if weighted:
                        frunw[v] = 0.0
                    else:
                        irunw[v] = 0
                i = r
                if weighted:
                    wj = w[j]
                    if batch:
                        q = fabove[v]
                    else:
                        q = 0.0
                        while i > 0:
                            q += ffen[i]
                            i -= i & -i
                    fD += wj * q
                    fN0 += wj * before
                    fTs += wj * in_run
                    fTy += wj * flab[v]
                    fTyy += wj * frunw[v]
                    before += wj
                    in_run += wj
                    flab[v] += wj
                    frunw[v] += wj
                else:
                    if batch:
                        c = iabove[v]
                    else:
                        c = 0
                        while i > 0:
                            c += ifen[i]
                            i -= i & -i
                    iD += c
                    iN0 += cbefore
                    iTs += cin_run
                    iTy += ilab[v]
                    iTyy += irunw[v]
                    cbefore += 1
                    cin_run += 1
                    ilab[v] += 1
                    irunw[v] += 1
            for j in range(lo, hi):                # the run enters the tree
                if batch:
                    if weighted:
                        fhist[y[j]] += w[j]
                    else:
                        ihist[y[j]] += 1
                    continue
                i = L - y[j]
                while i <= L:
                    if weighted:
                        ffen[i] += w[j]
                    else:
                        ifen[i] += 1
                    i += i & -i
    if weighted:
        return fN0, fTy, fTs, fTyy, fD
    return iN0, iTy, iTs, iTyy, iD


def row_scores(labels, n_levels, starts, weights=None):
    """Each row's ``d_i = sum_j w_j sign(y_i - y_j) sign(s_i - s_j)``, rows in score order.

    ``labels``: the label rank (``0..n_levels-1``) of each row, rows sorted by score;
    ``starts``: the starts of the runs of tied scores (the first 0); ``weights``: float64
    row weights or ``None`` (unit). ``d_i`` is the weight of the pairs of row ``i`` the
    scores order as the labels do minus those they order the other way (pairs tied in
    either count 0). Two passes over the runs, each with a Fenwick tree over the labels:
    up the scores (the rows below each run: labels below and above the row's), then down
    (the rows above). ``O(n log L)``; float64 sums, exact for whole-number weights whose
    total is below ``2**53``.

    >>> import numpy as np
    >>> row_scores(np.array([0, 2, 1, 2]), 3, np.array([0, 1, 2])).tolist()
    [3.0, 0.0, 0.0, 1.0]
    """
    y = np.ascontiguousarray(labels, dtype=np.int64)
    st = np.ascontiguousarray(starts, dtype=np.intp)
    n = y.shape[0]
    if n and (st.size == 0 or st[0] != 0 or (np.diff(st) <= 0).any() or st[st.size - 1] >= n):
        raise ValueError("row_scores: starts must increase from 0 within the array")
    L = max(int(n_levels), 1)
    if n and (y.min() < 0 or y.max() >= L):
        raise ValueError(f"row_scores: labels must lie in [0, {L})")
    w = (np.ones(n, dtype=np.float64) if weights is None
         else np.ascontiguousarray(weights, dtype=np.float64))
    if w.shape != (n,):
        raise ValueError("row_scores: one weight per row expected")
    out = np.zeros(n, dtype=np.float64)
    fen = np.zeros(L + 1, dtype=np.float64)
    _row_pass(y, L, st, w, fen, out, False)
    fen[:] = 0.0
    _row_pass(y, L, st, w, fen, out, True)
    return out


cdef void _row_pass(const int64_t[::1] y, Py_ssize_t L, const Py_ssize_t[::1] starts,
                    const double[::1] w, double[::1] fen, double[::1] out,
                    bint down) noexcept nogil:
    """One pass over the runs (up, or ``down``): each row of a run adds the signed weight
    of the rows of the runs already passed (below it going up, above it going down), then
    the run enters the tree."""
    cdef Py_ssize_t n = y.shape[0], m = starts.shape[0], k, run, lo, hi, j, i
    cdef double passed = 0.0, lt, le
    for k in range(m):
        run = m - 1 - k if down else k
        lo = starts[run]
        hi = starts[run + 1] if run + 1 < m else n
        for j in range(lo, hi):
            lt = 0.0                                # passed rows with a lower label
            i = y[j]
            while i > 0:
                lt += fen[i]
                i -= i & -i
            i = y[j] + 1                            # ... lower or equal
            le = 0.0
            while i > 0:
                le += fen[i]
                i -= i & -i
            if down:    # rows above: a higher label concordant, a lower one discordant
                out[j] += (passed - le) - lt
            else:       # rows below: a lower label concordant, a higher one discordant
                out[j] += lt - (passed - le)
        for j in range(lo, hi):
            i = y[j] + 1
            while i <= L:
                fen[i] += w[j]
                i += i & -i
            passed += w[j]
