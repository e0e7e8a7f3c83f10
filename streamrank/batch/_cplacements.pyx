# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Compiled half-pair placements behind `streamrank.batch.delong.row_placements`: the
values DeLong's test is made of, for every row of one model.

`row_placements` walks the rows in score order (an argsort the caller made) by runs of
tied scores. With ``W0(below)`` the negatives' weight before the run and ``W0(in)`` in it
(``W1`` likewise for the positives), a positive of the run gets
``2 W0(below) + W0(in)`` (the negatives it orders correctly, ties counting one half,
doubled to stay an integer), a negative ``2 (W1 - W1(below)) - W1(in)``. One pass for
the class totals, one over the runs; ``O(n)`` after the sort.

Exactness. Unit and int64 weights give exact int64 placements (the caller keeps the
class weights below ``2**62``). Float64 weights give the float64 values of the
running sums in score order, computed as numpy's ``cumsum`` computes them (the weight
before a run is the running sum, the weight in it the difference of two running sums),
so the result does not depend on this kernel's order of work.
"""

from libc.stdint cimport int64_t, uint8_t

import numpy as np


cdef int64_t _unit(const double[::1] s, const uint8_t[::1] pos, const int64_t[::1] order,
                   int64_t[::1] out) noexcept nogil:
    """Unit weights: fills ``out``, returns the positives' count."""
    cdef Py_ssize_t n = s.shape[0], a = 0, b, i
    cdef int64_t w1 = 0, p_before = 0, n_before = 0, p_in, n_in, pv, qv
    cdef double v
    for i in range(n):
        w1 += pos[i]
    while a < n:
        v = s[order[a]]
        b = a
        p_in = 0
        while b < n and s[order[b]] == v:
            p_in += pos[order[b]]
            b += 1
        n_in = (b - a) - p_in
        pv = 2 * n_before + n_in
        qv = 2 * (w1 - p_before) - p_in
        for i in range(a, b):
            out[order[i]] = pv if pos[order[i]] else qv
        p_before += p_in
        n_before += n_in
        a = b
    return w1


ctypedef fused weight_t:
    int64_t
    double


cdef void _weighted(const double[::1] s, const uint8_t[::1] pos, const int64_t[::1] order,
                    const weight_t[::1] w, weight_t[::1] out, weight_t* totals
                    ) noexcept nogil:
    """Int64 or float64 weights: fills ``out`` and ``totals`` (the positives', the
    negatives'), both the running sums in score order (numpy's ``cumsum``'s values)."""
    cdef Py_ssize_t n = s.shape[0], a = 0, b, i, r
    cdef weight_t cp = 0, cn = 0, p_start, n_start, p_in, n_in, pv, qv, w1
    cdef double v
    for i in range(n):
        r = order[i]
        if pos[r]:
            cp = cp + w[r]
        else:
            cn = cn + w[r]
    w1 = cp
    totals[0], totals[1] = cp, cn
    cp = cn = 0
    while a < n:
        v = s[order[a]]
        b = a
        p_start, n_start = cp, cn
        while b < n and s[order[b]] == v:
            r = order[b]
            if pos[r]:
                cp = cp + w[r]
            else:
                cn = cn + w[r]
            b += 1
        p_in, n_in = cp - p_start, cn - n_start
        pv = 2 * n_start + n_in
        qv = 2 * (w1 - p_start) - p_in
        for i in range(a, b):
            out[order[i]] = pv if pos[order[i]] else qv
        a = b


def row_placements(s, pos, order, w=None):
    """``(vals, W1, W0)``: the half-pair placement of every row of the float64 scores
    ``s`` (``pos``: bool, the positives), in row order, given ``order``, an argsort of
    ``s``; ``w``: None, int64 or float64 weights (positive). ``vals`` is int64 (unit or
    int64 weights; ``W1``, ``W0`` ints) or float64 (``W1``, ``W0`` floats). Ties: a tied
    pair counts one half (one, doubled). ``O(n)`` after the sort.

    >>> import numpy as np
    >>> s = np.array([0.2, 0.5, 0.5, 0.9]); pos = np.array([False, True, False, True])
    >>> vals, w1, w0 = row_placements(s, pos, np.argsort(s))
    >>> vals.tolist(), w1, w0       # the 0.5 positive: one negative below, one tied
    ([4, 3, 3, 4], 2, 2)
    >>> row_placements(s, pos, np.argsort(s), np.array([1.0, 2.0, 3.0, 0.5]))[0].tolist()
    [5.0, 5.0, 3.0, 8.0]
    """
    sv = np.ascontiguousarray(s, dtype=np.float64)
    pv = np.ascontiguousarray(pos, dtype=np.bool_).view(np.uint8)
    ov = np.ascontiguousarray(order, dtype=np.int64)
    n = sv.shape[0]
    if not (pv.shape[0] == ov.shape[0] == n and (w is None or w.shape[0] == n)):
        raise ValueError("row_placements: s, pos, order and w must have one length")
    cdef int64_t itotals[2]
    cdef double ftotals[2]
    if w is None:
        vals = np.empty(n, dtype=np.int64)
        w1 = int(_unit(sv, pv, ov, vals))
        return vals, w1, n - w1
    if w.dtype.kind == "i":
        vals = np.empty(n, dtype=np.int64)
        _weighted[int64_t](sv, pv, ov, np.ascontiguousarray(w, dtype=np.int64), vals,
                           itotals)
        return vals, int(itotals[0]), int(itotals[1])
    vals = np.empty(n, dtype=np.float64)
    _weighted[double](sv, pv, ov, np.ascontiguousarray(w, dtype=np.float64), vals, ftotals)
    return vals, float(ftotals[0]), float(ftotals[1])
