# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Compiled kernels of the threshold curves (`streamrank.batch.curves`).

* `weighted_class_sort`: each class's scores by a stable LSD radix sort that moves the
  float64 weights along (zero weights dropped), from one pass over the rows;
* `threshold_counts`: the merge of the two classes' sorted scores into the distinct
  thresholds, in decreasing order, with the positive and negative weight at or above each;
* `roc_points`, `pr_points`: scikit-learn's curves from those counts, in one pass.

The order of the weights matters for the float sums: scikit-learn's curves add the weights
in the order of a stable descending sort (decreasing score, ties in input order), one after
the other. `weighted_class_sort` radix-sorts the reversed input, which leaves each class's scores ascending with ties
in *reversed* input order, so that `threshold_counts`, walking from the end, adds each
class's weights in exactly that order: the running sums are the same floats, bit for bit.
"""

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.math cimport INFINITY, NAN
from libc.string cimport memcpy

import numpy as np

# Digits of BITS bits: PASSES passes cover the 64 bits of a key (11-bit digits: six
# passes; 8-bit ones would take eight, seven for keys of one sign and exponent range).
cdef enum:
    BITS = 11
    PASSES = 6
    RADIX = 1 << BITS
    MASK = RADIX - 1

ctypedef fused key_t:
    double
    int64_t
    uint64_t


cdef inline uint64_t _to_bits(key_t v) noexcept nogil:
    """An unsigned key that orders as ``v`` does (``-0.0`` and ``0.0`` one key)."""
    cdef uint64_t u
    cdef double d
    if key_t is double:
        d = v + 0.0                               # -0.0 becomes 0.0
        memcpy(&u, &d, 8)
        return ~u if u >> 63 else u | (<uint64_t>1 << 63)
    elif key_t is int64_t:
        return (<uint64_t>v) ^ (<uint64_t>1 << 63)
    else:
        return v


cdef inline key_t _from_bits(uint64_t u, key_t like) noexcept nogil:
    cdef double d
    if key_t is double:
        u = u ^ (<uint64_t>1 << 63) if u >> 63 else ~u
        memcpy(&d, &u, 8)
        return d
    elif key_t is int64_t:
        return <int64_t>(u ^ (<uint64_t>1 << 63))
    else:
        return u


cdef uint64_t* _radix_core(uint64_t* a, uint64_t* b, double* wa, double* wb,
                           Py_ssize_t n, uint64_t[:, ::1] hist, bint weighted,
                           double** wout) noexcept nogil:
    """LSD radix sort of ``a`` (``b``, ``wb``: scratch), ``hist`` the digit histograms;
    returns the buffer that holds the sorted keys (``wout``: its weights)."""
    cdef Py_ssize_t i, p, d
    cdef uint64_t u, total
    cdef uint64_t pos[RADIX]
    cdef uint64_t *src = a
    cdef uint64_t *dst = b
    cdef uint64_t *tmp
    cdef double *wsrc = wa
    cdef double *wdst = wb
    cdef double *wtmp
    cdef int shift
    for p in range(PASSES):
        shift = BITS * p
        if n == 0 or hist[p, (src[0] >> shift) & MASK] == <uint64_t>n:
            continue                              # one digit value: nothing moves
        total = 0
        for d in range(RADIX):
            pos[d] = total
            total += hist[p, d]
        for i in range(n):
            u = src[i]
            d = (u >> shift) & MASK
            dst[pos[d]] = u
            if weighted:
                wdst[pos[d]] = wsrc[i]
            pos[d] += 1
        tmp = src
        src = dst
        dst = tmp
        wtmp = wsrc
        wsrc = wdst
        wdst = wtmp
    wout[0] = wsrc
    return src


cdef void _split_sort(const key_t[::1] k, const uint8_t[::1] pos, const double[::1] w,
                      uint64_t[::1] a1, uint64_t[::1] b1, double[::1] w1, double[::1] v1,
                      uint64_t[::1] a0, uint64_t[::1] b0, double[::1] w0, double[::1] v0,
                      uint64_t[:, ::1] h1, uint64_t[:, ::1] h0, Py_ssize_t[::1] out) \
        noexcept nogil:
    cdef Py_ssize_t n = k.shape[0], i, p, j1 = 0, j0 = 0
    cdef uint64_t u
    cdef double wi
    cdef uint64_t *r
    cdef double *wr
    for i in range(n - 1, -1, -1):                 # reversed: ties come out reversed
        wi = w[i]
        if wi == 0:
            continue
        u = _to_bits(k[i])
        if pos[i]:
            a1[j1] = u
            w1[j1] = wi
            j1 += 1
            for p in range(PASSES):
                h1[p, (u >> (BITS * p)) & MASK] += 1
        else:
            a0[j0] = u
            w0[j0] = wi
            j0 += 1
            for p in range(PASSES):
                h0[p, (u >> (BITS * p)) & MASK] += 1
    r = _radix_core(&a1[0], &b1[0], &w1[0], &v1[0], j1, h1, True, &wr)
    out[0] = r == &b1[0]
    out[1] = wr == &v1[0]
    r = _radix_core(&a0[0], &b0[0], &w0[0], &v0[0], j0, h0, True, &wr)
    out[2] = r == &b0[0]
    out[3] = wr == &v0[0]
    out[4] = j1
    out[5] = j0


def weighted_class_sort(keys, pos, weights):
    """Each class's nonzero-weight rows, sorted: ``(k1, w1, k0, w0)`` for the positives
    (``pos`` true) and the negatives, ``k`` the keys as order-preserving uint64 bits
    (ascending; ties in *reversed* input order), ``w`` their float64 weights aligned.

    One pass over the input (read backwards) splits, encodes and counts the digits of both
    classes; then a stable radix sort per class (six passes of 11-bit digits at most; a pass
    whose digit is the same for every key is skipped). ``O(n)``. `threshold_counts` merges the
    result; `from_bits` decodes its thresholds.

    >>> import numpy as np
    >>> k1, w1, k0, w0 = weighted_class_sort(np.array([0.5, 0.2, 0.5, 0.9]),
    ...                                      np.array([True, False, True, False]),
    ...                                      np.array([1.0, 2.0, 3.0, 0.0]))
    >>> from_bits(k1, np.float64).tolist(), w1.tolist(), w0.tolist()
    ([0.5, 0.5], [3.0, 1.0], [2.0])
    """
    k = np.ascontiguousarray(keys)
    if k.dtype not in (np.float64, np.int64, np.uint64):
        raise TypeError("weighted_class_sort: keys must be float64, int64 or uint64")
    n = k.shape[0]
    p = np.ascontiguousarray(pos, dtype=bool).view(np.uint8)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if p.shape != (n,) or w.shape != (n,):
        raise ValueError("weighted_class_sort: one label and one weight per key")
    n1 = int(np.count_nonzero(p))
    n0 = n - n1
    bufs = [np.empty(max(m, 1), dtype=t) for m in (n1, n0) for t in (np.uint64, np.uint64,
                                                                      np.float64, np.float64)]
    h1 = np.zeros((PASSES, RADIX), dtype=np.uint64)
    h0 = np.zeros((PASSES, RADIX), dtype=np.uint64)
    out = np.zeros(6, dtype=np.intp)
    if k.dtype == np.float64:
        _split_sort[double](k, p, w, *bufs, h1, h0, out)
    elif k.dtype == np.int64:
        _split_sort[int64_t](k, p, w, *bufs, h1, h0, out)
    else:
        _split_sort[uint64_t](k, p, w, *bufs, h1, h0, out)
    j1, j0 = int(out[4]), int(out[5])
    return (bufs[1 if out[0] else 0][:j1], bufs[3 if out[1] else 2][:j1],
            bufs[5 if out[2] else 4][:j0], bufs[7 if out[3] else 6][:j0])


def from_bits(bits, dtype):
    """The keys of ``dtype`` (float64, int64 or uint64) whose order-preserving bits
    `weighted_class_sort` gave (``-0.0`` comes back as ``0.0``). One pass, ``O(n)``.

    >>> import numpy as np
    >>> k1, _, k0, _ = weighted_class_sort(np.array([-2.5, 0.0, 1.0]),
    ...                                    np.array([True, False, True]), np.ones(3))
    >>> from_bits(k1, np.float64).tolist(), from_bits(k0, np.float64).tolist()
    ([-2.5, 1.0], [0.0])
    """
    u = np.ascontiguousarray(bits, dtype=np.uint64)
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.int64, np.uint64):
        raise TypeError("from_bits: dtype must be float64, int64 or uint64")
    out = np.empty(u.shape[0], dtype=dtype)
    if u.shape[0] == 0:
        return out
    if dtype == np.float64:
        _decode[double](u, out)
    elif dtype == np.int64:
        _decode[int64_t](u, out)
    else:
        _decode[uint64_t](u, out)
    return out


cdef void _decode(const uint64_t[::1] u, key_t[::1] out) noexcept:
    cdef Py_ssize_t i, n = u.shape[0]
    cdef key_t like = out[0]
    with nogil:
        for i in range(n):
            out[i] = _from_bits(u[i], like)


cdef Py_ssize_t _merge(const key_t[::1] P, const key_t[::1] N, const double[::1] wp,
                       const double[::1] wn, bint weighted, key_t[::1] thr,
                       double[::1] tps, double[::1] fps) noexcept nogil:
    cdef Py_ssize_t i = P.shape[0] - 1, j = N.shape[0] - 1, m = 0
    cdef double tp = 0.0, fp = 0.0
    cdef int64_t ctp = 0, cfp = 0
    cdef key_t v
    while i >= 0 or j >= 0:
        if i >= 0 and (j < 0 or P[i] >= N[j]):
            v = P[i]
        else:
            v = N[j]
        if weighted:
            while i >= 0 and P[i] == v:
                tp = tp + wp[i]
                i -= 1
            while j >= 0 and N[j] == v:
                fp = fp + wn[j]
                j -= 1
        else:
            while i >= 0 and P[i] == v:
                ctp += 1
                i -= 1
            while j >= 0 and N[j] == v:
                cfp += 1
                j -= 1
            tp = <double>ctp
            fp = <double>cfp
        thr[m] = v
        tps[m] = tp
        fps[m] = fp
        m += 1
    return m


def threshold_counts(pos, neg, wpos=None, wneg=None):
    """``(thresholds, tps, fps)``: the distinct values of ``pos`` and ``neg`` (each sorted
    ascending, one key dtype: float64, int64 or uint64) in decreasing order, and at each
    the weight of the positives and of the negatives scored at or above it (float64).

    Without weights the counts; with weights (float64, aligned with the keys) running sums
    taken from the end of each array backwards, one addition per sample. One merge pass,
    ``O(len(pos) + len(neg))``.

    >>> import numpy as np
    >>> t, tp, fp = threshold_counts(np.array([0.2, 0.7]), np.array([0.2, 0.5]))
    >>> t.tolist(), tp.tolist(), fp.tolist()
    ([0.7, 0.5, 0.2], [1.0, 1.0, 2.0], [0.0, 1.0, 2.0])
    """
    if pos.dtype != neg.dtype or pos.dtype not in (np.float64, np.int64, np.uint64):
        raise TypeError("threshold_counts: pos and neg must share a float64, int64 or "
                        "uint64 dtype")
    P = np.ascontiguousarray(pos)
    N = np.ascontiguousarray(neg)
    weighted = wpos is not None
    if weighted != (wneg is not None):
        raise ValueError("threshold_counts: pass both weight arrays or neither")
    if weighted:
        wp = np.ascontiguousarray(wpos, dtype=np.float64)
        wn = np.ascontiguousarray(wneg, dtype=np.float64)
        if wp.shape != P.shape or wn.shape != N.shape:
            raise ValueError("threshold_counts: one weight per key expected")
    else:
        wp = wn = np.empty(0)
    size = P.shape[0] + N.shape[0]
    thr = np.empty(size, dtype=P.dtype)
    tps = np.empty(size, dtype=np.float64)
    fps = np.empty(size, dtype=np.float64)
    if P.dtype == np.float64:
        m = _merge[double](P, N, wp, wn, weighted, thr, tps, fps)
    elif P.dtype == np.int64:
        m = _merge[int64_t](P, N, wp, wn, weighted, thr, tps, fps)
    else:
        m = _merge[uint64_t](P, N, wp, wn, weighted, thr, tps, fps)
    return thr[:m], tps[:m], fps[:m]


cdef inline bint _bends(const double[::1] x, Py_ssize_t i) noexcept nogil:
    """numpy's ``np.diff(x, 2)[i - 1] != 0``: the slopes before and after ``i`` differ."""
    return (x[i + 1] - x[i]) - (x[i] - x[i - 1]) != 0


cdef Py_ssize_t _roc(const key_t[::1] thr, const double[::1] tps, const double[::1] fps,
                     bint drop, double[::1] ot, double[::1] otp,
                     double[::1] ofp) noexcept nogil:
    cdef Py_ssize_t m = thr.shape[0], i, k = 1
    cdef double T = tps[m - 1], F = fps[m - 1]
    cdef double nan = NAN
    drop = drop and m > 2
    ot[0] = INFINITY
    otp[0] = 0.0 / T if T > 0 else nan
    ofp[0] = 0.0 / F if F > 0 else nan
    for i in range(m):
        if drop and 0 < i < m - 1 and not (_bends(fps, i) or _bends(tps, i)):
            continue
        ot[k] = <double>thr[i]
        otp[k] = tps[i] / T if T > 0 else nan
        ofp[k] = fps[i] / F if F > 0 else nan
        k += 1
    return k


def roc_points(thr, tps, fps, bint drop_intermediate):
    """``(fpr, tpr, thresholds)`` of scikit-learn's ``roc_curve`` from the threshold
    counts of `threshold_counts`: the collinear points dropped (``drop_intermediate``,
    its second-difference rule), the point (0, 0) at threshold ``inf`` prepended, and the
    counts divided by their totals (``nan`` throughout when a total is 0). One pass.

    >>> import numpy as np
    >>> fpr, tpr, t = roc_points(np.array([3.0, 2.0, 1.0]), np.array([1.0, 2.0, 3.0]),
    ...                          np.array([0.0, 0.0, 1.0]), True)
    >>> fpr.tolist(), tpr.tolist(), t.tolist()
    ([0.0, 0.0, 0.0, 1.0], [0.0, 0.3333333333333333, 0.6666666666666666, 1.0], [inf, 3.0, 2.0, 1.0])
    """
    m = thr.shape[0]
    if m == 0 or tps.shape != (m,) or fps.shape != (m,):
        raise ValueError("roc_points: one count of each class per threshold expected")
    ot = np.empty(m + 1)
    otp = np.empty(m + 1)
    ofp = np.empty(m + 1)
    t = np.ascontiguousarray(thr)
    tp = np.ascontiguousarray(tps, dtype=np.float64)
    fp = np.ascontiguousarray(fps, dtype=np.float64)
    if t.dtype == np.float64:
        k = _roc[double](t, tp, fp, drop_intermediate, ot, otp, ofp)
    elif t.dtype == np.int64:
        k = _roc[int64_t](t, tp, fp, drop_intermediate, ot, otp, ofp)
    else:
        k = _roc[uint64_t](t, tp, fp, drop_intermediate, ot, otp, ofp)
    return ofp[:k], otp[:k], ot[:k]


cdef Py_ssize_t _pr(const key_t[::1] thr, const double[::1] tps, const double[::1] fps,
                    bint drop, key_t[::1] ot, double[::1] op, double[::1] orc) noexcept nogil:
    cdef Py_ssize_t m = thr.shape[0], i, k = 0, j
    cdef double T = tps[m - 1], ps
    drop = drop and m > 2
    for i in range(m):                              # the points kept
        if drop and 0 < i < m - 1 and tps[i] - tps[i - 1] == 0 and tps[i + 1] - tps[i] == 0:
            continue
        k += 1
    j = k                                           # written backwards: increasing thresholds
    op[k] = 1.0
    orc[k] = 0.0
    for i in range(m):
        if drop and 0 < i < m - 1 and tps[i] - tps[i - 1] == 0 and tps[i + 1] - tps[i] == 0:
            continue
        j -= 1
        ot[j] = thr[i]
        ps = tps[i] + fps[i]
        op[j] = tps[i] / ps if ps != 0 else 0.0
        orc[j] = tps[i] / T if T != 0 else 1.0
    return k


def pr_points(thr, tps, fps, bint drop_intermediate):
    """``(precision, recall, thresholds)`` of scikit-learn's ``precision_recall_curve``
    from the threshold counts of `threshold_counts`: the inner points of each run of
    equal true positives dropped (``drop_intermediate``), the order reversed (increasing
    thresholds), and the point (1, 0) appended; recall is 1 throughout when there is no
    positive, precision 0 where nothing is predicted positive. One pass.

    >>> import numpy as np
    >>> p, r, t = pr_points(np.array([3.0, 2.0]), np.array([1.0, 1.0]),
    ...                     np.array([0.0, 1.0]), False)
    >>> p.tolist(), r.tolist(), t.tolist()
    ([0.5, 1.0, 1.0], [1.0, 1.0, 0.0], [2.0, 3.0])
    """
    m = thr.shape[0]
    if m == 0 or tps.shape != (m,) or fps.shape != (m,):
        raise ValueError("pr_points: one count of each class per threshold expected")
    t = np.ascontiguousarray(thr)
    ot = np.empty(m, dtype=t.dtype)
    op = np.empty(m + 1)
    orc = np.empty(m + 1)
    tp = np.ascontiguousarray(tps, dtype=np.float64)
    fp = np.ascontiguousarray(fps, dtype=np.float64)
    if t.dtype == np.float64:
        k = _pr[double](t, tp, fp, drop_intermediate, ot, op, orc)
    elif t.dtype == np.int64:
        k = _pr[int64_t](t, tp, fp, drop_intermediate, ot, op, orc)
    else:
        k = _pr[uint64_t](t, tp, fp, drop_intermediate, ot, op, orc)
    return op[:k + 1], orc[:k + 1], ot[:k]
