# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Compiled merge-sort inversion counts behind `streamrank.batch._kernels` (the few-level
kernels are in `streamrank.batch._clevels`, the row grouping in
`streamrank.batch._cgroups`).

* `sort_count`: a stable merge sort that counts the strict inversions
  ``sum_{i<j, keys_i > keys_j} left_i * right_j`` of its input, weighted or not;
* `sort_runs`: the same sort applied to each of a set of contiguous runs (no count).

Merge sort. Blocks of ``SR_BLOCK`` (8) keys are sorted by insertion (each shift moves a key
past one strictly greater key: one inversion), then ``ceil(log2(n / 8))`` bottom-up passes
merge runs between the array and one scratch buffer. A merge of two runs of equal length
``m`` (all but the last of a pass) is a *parity merge*: two independent chains, one from
the front and one from the back, each taking exactly ``m`` steps. Before its step
``s < m`` each chain has taken ``s`` keys, so neither run can be exhausted and the loop
needs no bound check; the two chains halve the latency that bounds a branch-free merge.
The front takes the left key when keys are equal, the back the right one, so the merge is
stable and equal keys are never counted.

Counting inside a merge. A pair (``x`` from the left run, ``y`` from the right run) is
inverted when ``y < x``, i.e. when ``y`` ends before ``x``. If both land in the front half
of the output the pair is counted when the front takes ``x`` (``y`` was taken before it);
if both land in the back half, when the back takes ``y`` (``x`` was taken before it); a
``y`` of the front half and an ``x`` of the back half are always inverted, which is the
product of the two chains' tallies. Every term is a sum of nonnegative products.

Exactness. Without weights the count is an exact Python int (128-bit accumulators, which
no array that fits in memory can overflow). Integer weights (nonnegative) give exact Python
ints while ``sum(left) * sum(right) < 2**128`` (checked before any work). Float weights give
a float64 sum of nonnegative products with no subtraction: a relative error below about
``2 n eps`` whatever the weights' spread.

Runtime complexity ``O(n log n)`` and ``n`` scratch entries per array sorted.
"""

from libc.stdint cimport int64_t, uint64_t

import numpy as np

cdef extern from *:
    """
    #include <string.h>
    #include <stdint.h>
    typedef unsigned __int128 sr_u128;
    static inline unsigned long long sr_hi(sr_u128 x) { return (unsigned long long)(x >> 64); }
    static inline unsigned long long sr_lo(sr_u128 x) { return (unsigned long long)x; }
    #define SR_BLOCK 8
    #define SR_MIN(a, b) ((a) < (b) ? (a) : (b))

    /* ---------------------------------------------------------------- unweighted */
    #define SR_SORT_COUNT(T, NAME)                                                         \\
    static inline sr_u128 NAME##_insertion(T* a, Py_ssize_t lo, Py_ssize_t hi) {          \\
        uint64_t shifts = 0;                                                               \\
        for (Py_ssize_t p = lo + 1; p < hi; p++) {                                         \\
            T x = a[p];                                                                    \\
            Py_ssize_t q = p;                                                              \\
            while (q > lo && a[q - 1] > x) { a[q] = a[q - 1]; q--; }                       \\
            a[q] = x;                                                                      \\
            shifts += (uint64_t)(p - q);                                                   \\
        }                                                                                  \\
        return shifts;                                                                     \\
    }                                                                                      \\
    static inline sr_u128 NAME##_merge(const T* src, T* dst, Py_ssize_t lo,                \\
                                       Py_ssize_t mid, Py_ssize_t hi) {                    \\
        Py_ssize_t i = lo, j = mid, k = lo;                                                \\
        sr_u128 count = 0;                                                                 \\
        while (i < mid && j < hi) {                                                        \\
            T x = src[i], y = src[j];                                                      \\
            Py_ssize_t t = y < x;                                                          \\
            dst[k++] = t ? y : x;                                                          \\
            count += (uint64_t)((mid - i) & -t);   /* y before the mid - i left keys */    \\
            i += 1 - t;                                                                    \\
            j += t;                                                                        \\
        }                                                                                  \\
        memcpy(dst + k, src + i, (size_t)(mid - i) * sizeof(T));                           \\
        k += mid - i;                                                                      \\
        memcpy(dst + k, src + j, (size_t)(hi - j) * sizeof(T));                            \\
        return count;                                                                      \\
    }                                                                                      \\
    static inline sr_u128 NAME##_parity(const T* src, T* dst, Py_ssize_t lo, Py_ssize_t m) \\
    {                                                                                      \\
        const T* L = src + lo;                                                             \\
        const T* R = src + lo + m;                                                         \\
        T* front = dst + lo;                                                               \\
        T* back = dst + lo + 2 * m - 1;                                                    \\
        Py_ssize_t i = 0, j = 0, ib = m - 1, jb = m - 1;                                   \\
        sr_u128 cf = 0, cb = 0;                                                            \\
        for (Py_ssize_t s = 0; s < m; s++) {                                               \\
            T x = L[i], y = R[j];                                                          \\
            Py_ssize_t t = y < x;                                                          \\
            *front++ = t ? y : x;                                                          \\
            cf += (uint64_t)(j & (t - 1));          /* x after the j right keys taken */   \\
            i += 1 - t;                                                                    \\
            j += t;                                                                        \\
            T xb = L[ib], yb = R[jb];                                                      \\
            Py_ssize_t u = xb > yb;                                                        \\
            *back-- = u ? xb : yb;                                                         \\
            cb += (uint64_t)((m - 1 - ib) & (u - 1));  /* y after the left keys taken */   \\
            ib -= u;                                                                       \\
            jb -= 1 - u;                                                                   \\
        }                                                                                  \\
        return cf + cb + (sr_u128)(uint64_t)j * (uint64_t)(m - 1 - ib);                    \\
    }                                                                                      \\
    /* Two parity merges of one pass in one loop: four independent chains. Per-merge   \\
       tallies fit 64 bits while m < 2**31 (the caller checks). */                       \\
    static inline sr_u128 NAME##_parity2(const T* src, T* dst, Py_ssize_t lo,              \\
                                         Py_ssize_t lo2, Py_ssize_t m) {                   \\
        const T* L = src + lo;                                                             \\
        const T* R = src + lo + m;                                                         \\
        const T* L2 = src + lo2;                                                           \\
        const T* R2 = src + lo2 + m;                                                       \\
        T* front = dst + lo;                                                               \\
        T* back = dst + lo + 2 * m - 1;                                                    \\
        T* front2 = dst + lo2;                                                             \\
        T* back2 = dst + lo2 + 2 * m - 1;                                                  \\
        Py_ssize_t i = 0, j = 0, ib = m - 1, jb = m - 1;                                   \\
        Py_ssize_t i2 = 0, j2 = 0, ib2 = m - 1, jb2 = m - 1;                               \\
        uint64_t cf = 0, cb = 0, cf2 = 0, cb2 = 0;                                         \\
        for (Py_ssize_t s = 0; s < m; s++) {                                               \\
            T x = L[i], y = R[j];                                                          \\
            T x2 = L2[i2], y2 = R2[j2];                                                    \\
            T xb = L[ib], yb = R[jb];                                                      \\
            T xb2 = L2[ib2], yb2 = R2[jb2];                                                \\
            Py_ssize_t t = y < x, t2 = y2 < x2, u = xb > yb, u2 = xb2 > yb2;               \\
            *front++ = t ? y : x;                                                          \\
            cf += (uint64_t)(j & (t - 1));                                                 \\
            i += 1 - t;                                                                    \\
            j += t;                                                                        \\
            *front2++ = t2 ? y2 : x2;                                                      \\
            cf2 += (uint64_t)(j2 & (t2 - 1));                                              \\
            i2 += 1 - t2;                                                                  \\
            j2 += t2;                                                                      \\
            *back-- = u ? xb : yb;                                                         \\
            cb += (uint64_t)((m - 1 - ib) & (u - 1));                                      \\
            ib -= u;                                                                       \\
            jb -= 1 - u;                                                                   \\
            *back2-- = u2 ? xb2 : yb2;                                                     \\
            cb2 += (uint64_t)((m - 1 - ib2) & (u2 - 1));                                   \\
            ib2 -= u2;                                                                     \\
            jb2 -= 1 - u2;                                                                 \\
        }                                                                                  \\
        return (sr_u128)cf + cb + cf2 + cb2 + (sr_u128)(uint64_t)j * (uint64_t)(m - 1 - ib) \\
               + (sr_u128)(uint64_t)j2 * (uint64_t)(m - 1 - ib2);                          \\
    }                                                                                      \\
    static sr_u128 NAME(T* a, T* buf, Py_ssize_t n) {                                      \\
        sr_u128 total = 0;                                                                 \\
        T* src = a;                                                                        \\
        T* dst = buf;                                                                      \\
        for (Py_ssize_t lo = 0; lo < n; lo += SR_BLOCK)                                    \\
            total += NAME##_insertion(a, lo, SR_MIN(lo + SR_BLOCK, n));                    \\
        for (Py_ssize_t width = SR_BLOCK; width < n; width *= 2) {                         \\
            Py_ssize_t pending = -1;        /* a parity merge waiting for a partner */     \\
            for (Py_ssize_t lo = 0; lo < n; lo += 2 * width) {                             \\
                Py_ssize_t mid = SR_MIN(lo + width, n), hi = SR_MIN(lo + 2 * width, n);    \\
                if (mid >= hi || !(src[mid] < src[mid - 1])) {    /* already in order */   \\
                    memcpy(dst + lo, src + lo, (size_t)(hi - lo) * sizeof(T));             \\
                } else if (hi - mid < width) {                                             \\
                    total += NAME##_merge(src, dst, lo, mid, hi);                          \\
                } else if (width >= ((Py_ssize_t)1 << 31)) {                               \\
                    total += NAME##_parity(src, dst, lo, width);                           \\
                } else if (pending < 0) {                                                  \\
                    pending = lo;                                                          \\
                } else {                                                                   \\
                    total += NAME##_parity2(src, dst, pending, lo, width);                 \\
                    pending = -1;                                                          \\
                }                                                                          \\
            }                                                                              \\
            if (pending >= 0) total += NAME##_parity(src, dst, pending, width);            \\
            T* tmp = src; src = dst; dst = tmp;                                            \\
        }                                                                                  \\
        if (src != a) memcpy(a, src, (size_t)n * sizeof(T));                               \\
        return total;                                                                      \\
    }

    /* ------------------------------------------------------------------ weighted */
    /* l weighs the earlier key of a pair, r the later one; A accumulates (double, or
       sr_u128 for integer weights). l and r may be one array (then la == ra): every move
       then writes the same value twice. */
    #define SR_MOVE(d, s)  do { dst[d] = src[s]; dl[d] = sl[s]; dr[d] = sr[s]; } while (0)
    #define SR_SORT_COUNT_W(T, W, A, NAME)                                                 \\
    static inline A NAME##_insertion(T* a, W* l, W* r, Py_ssize_t lo, Py_ssize_t hi) {    \\
        A total = 0;                                                                       \\
        for (Py_ssize_t p = lo + 1; p < hi; p++) {                                         \\
            T x = a[p];                                                                    \\
            W xl = l[p], xr = r[p];                                                        \\
            A shifted = 0;                                                                 \\
            Py_ssize_t q = p;                                                              \\
            while (q > lo && a[q - 1] > x) {                                               \\
                shifted += l[q - 1];                                                       \\
                a[q] = a[q - 1]; l[q] = l[q - 1]; r[q] = r[q - 1];                         \\
                q--;                                                                       \\
            }                                                                              \\
            a[q] = x; l[q] = xl; r[q] = xr;                                                \\
            total += shifted * (A)xr;                                                      \\
        }                                                                                  \\
        return total;                                                                      \\
    }                                                                                      \\
    static inline A NAME##_merge(const T* src, const W* sl, const W* sr, T* dst, W* dl,    \\
                                 W* dr, Py_ssize_t lo, Py_ssize_t mid, Py_ssize_t hi) {    \\
        Py_ssize_t i = lo, j = mid, k = lo;                                                \\
        A count = 0, right = 0, rest = 0;                                                  \\
        while (i < mid && j < hi) {                                                        \\
            Py_ssize_t t = src[j] < src[i];                                                \\
            Py_ssize_t at = t ? j : i;                                                     \\
            A took_left = (A)sl[i] * right;                                                \\
            A took_right = (A)sr[j];                                                       \\
            SR_MOVE(k, at);                                                                \\
            count += t ? (A)0 : took_left;                                                 \\
            right += t ? took_right : (A)0;                                                \\
            i += 1 - t;                                                                    \\
            j += t;                                                                        \\
            k++;                                                                           \\
        }                                                                                  \\
        for (; i < mid; i++, k++) { rest += sl[i]; SR_MOVE(k, i); }                        \\
        for (; j < hi; j++, k++) SR_MOVE(k, j);                                            \\
        return count + rest * right;                                                       \\
    }                                                                                      \\
    static inline A NAME##_parity(const T* src, const W* sl, const W* sr, T* dst, W* dl,   \\
                                  W* dr, Py_ssize_t lo, Py_ssize_t m) {                    \\
        Py_ssize_t i = lo, j = lo + m, ib = lo + m - 1, jb = lo + 2 * m - 1;               \\
        Py_ssize_t f = lo, b = lo + 2 * m - 1;                                             \\
        A cf = 0, cb = 0, right_front = 0, left_back = 0;                                  \\
        for (Py_ssize_t s = 0; s < m; s++) {                                               \\
            Py_ssize_t t = src[j] < src[i];                                                \\
            Py_ssize_t at = t ? j : i;                                                     \\
            A took_left = (A)sl[i] * right_front;                                          \\
            A took_right = (A)sr[j];                                                       \\
            SR_MOVE(f, at);                                                                \\
            cf += t ? (A)0 : took_left;                                                    \\
            right_front += t ? took_right : (A)0;                                          \\
            i += 1 - t;                                                                    \\
            j += t;                                                                        \\
            f++;                                                                           \\
            Py_ssize_t u = src[ib] > src[jb];                                              \\
            at = u ? ib : jb;                                                              \\
            A took_right_b = (A)sr[jb] * left_back;                                        \\
            A took_left_b = (A)sl[ib];                                                     \\
            SR_MOVE(b, at);                                                                \\
            cb += u ? (A)0 : took_right_b;                                                 \\
            left_back += u ? took_left_b : (A)0;                                           \\
            ib -= u;                                                                       \\
            jb -= 1 - u;                                                                   \\
            b--;                                                                           \\
        }                                                                                  \\
        return cf + cb + right_front * left_back;                                          \\
    }                                                                                      \\
    static A NAME(T* a, W* l, W* r, T* ka, W* la, W* ra, Py_ssize_t n) {                  \\
        A total = 0;                                                                       \\
        T* src = a; W* sl = l; W* sr = r;                                                  \\
        T* dst = ka; W* dl = la; W* dr = ra;                                               \\
        for (Py_ssize_t lo = 0; lo < n; lo += SR_BLOCK)                                    \\
            total += NAME##_insertion(a, l, r, lo, SR_MIN(lo + SR_BLOCK, n));              \\
        for (Py_ssize_t width = SR_BLOCK; width < n; width *= 2) {                         \\
            for (Py_ssize_t lo = 0; lo < n; lo += 2 * width) {                             \\
                Py_ssize_t mid = SR_MIN(lo + width, n), hi = SR_MIN(lo + 2 * width, n);    \\
                if (mid >= hi || !(src[mid] < src[mid - 1])) {                             \\
                    memcpy(dst + lo, src + lo, (size_t)(hi - lo) * sizeof(T));             \\
                    memcpy(dl + lo, sl + lo, (size_t)(hi - lo) * sizeof(W));               \\
                    if (dr != dl) memcpy(dr + lo, sr + lo, (size_t)(hi - lo) * sizeof(W)); \\
                } else if (hi - mid == width) {                                            \\
                    total += NAME##_parity(src, sl, sr, dst, dl, dr, lo, width);           \\
                } else {                                                                   \\
                    total += NAME##_merge(src, sl, sr, dst, dl, dr, lo, mid, hi);          \\
                }                                                                          \\
            }                                                                              \\
            T* tk = src; src = dst; dst = tk;                                              \\
            W* tw = sl; sl = dl; dl = tw;                                                  \\
            tw = sr; sr = dr; dr = tw;                                                     \\
        }                                                                                  \\
        if (src != a) {                                                                    \\
            memcpy(a, src, (size_t)n * sizeof(T));                                         \\
            memcpy(l, sl, (size_t)n * sizeof(W));                                          \\
            if (r != l) memcpy(r, sr, (size_t)n * sizeof(W));                              \\
        }                                                                                  \\
        return total;                                                                      \\
    }

    SR_SORT_COUNT(double, sr_count_f64)
    SR_SORT_COUNT(int64_t, sr_count_i64)
    SR_SORT_COUNT(uint64_t, sr_count_u64)
    SR_SORT_COUNT_W(double, double, double, sr_wcount_f64_f)
    SR_SORT_COUNT_W(int64_t, double, double, sr_wcount_i64_f)
    SR_SORT_COUNT_W(uint64_t, double, double, sr_wcount_u64_f)
    SR_SORT_COUNT_W(double, uint64_t, sr_u128, sr_wcount_f64_i)
    SR_SORT_COUNT_W(int64_t, uint64_t, sr_u128, sr_wcount_i64_i)
    SR_SORT_COUNT_W(uint64_t, uint64_t, sr_u128, sr_wcount_u64_i)
    """
    ctypedef unsigned long long sr_u128
    unsigned long long sr_hi(sr_u128) nogil
    unsigned long long sr_lo(sr_u128) nogil
    sr_u128 sr_count_f64(double*, double*, Py_ssize_t) nogil
    sr_u128 sr_count_i64(int64_t*, int64_t*, Py_ssize_t) nogil
    sr_u128 sr_count_u64(uint64_t*, uint64_t*, Py_ssize_t) nogil
    double sr_wcount_f64_f(double*, double*, double*, double*, double*, double*,
                           Py_ssize_t) nogil
    double sr_wcount_i64_f(int64_t*, double*, double*, int64_t*, double*, double*,
                           Py_ssize_t) nogil
    double sr_wcount_u64_f(uint64_t*, double*, double*, uint64_t*, double*, double*,
                           Py_ssize_t) nogil
    sr_u128 sr_wcount_f64_i(double*, uint64_t*, uint64_t*, double*, uint64_t*, uint64_t*,
                            Py_ssize_t) nogil
    sr_u128 sr_wcount_i64_i(int64_t*, uint64_t*, uint64_t*, int64_t*, uint64_t*, uint64_t*,
                            Py_ssize_t) nogil
    sr_u128 sr_wcount_u64_i(uint64_t*, uint64_t*, uint64_t*, uint64_t*, uint64_t*,
                            uint64_t*, Py_ssize_t) nogil

ctypedef fused key_t:
    double
    int64_t
    uint64_t

ctypedef fused wt_t:
    double
    uint64_t


# ------------------------------------------------------------------------ typed cores
cdef inline sr_u128 _count(key_t* a, key_t* buf, Py_ssize_t n) noexcept nogil:
    if key_t is double:
        return sr_count_f64(a, buf, n)
    elif key_t is int64_t:
        return sr_count_i64(a, buf, n)
    else:
        return sr_count_u64(a, buf, n)


cdef inline void _wcount(key_t* a, wt_t* l, wt_t* r, key_t* ka, wt_t* la, wt_t* ra,
                         Py_ssize_t n, double* facc, sr_u128* iacc) noexcept nogil:
    if wt_t is double:
        if key_t is double:
            facc[0] += sr_wcount_f64_f(a, l, r, ka, la, ra, n)
        elif key_t is int64_t:
            facc[0] += sr_wcount_i64_f(a, l, r, ka, la, ra, n)
        else:
            facc[0] += sr_wcount_u64_f(a, l, r, ka, la, ra, n)
    else:
        if key_t is double:
            iacc[0] += sr_wcount_f64_i(a, l, r, ka, la, ra, n)
        elif key_t is int64_t:
            iacc[0] += sr_wcount_i64_i(a, l, r, ka, la, ra, n)
        else:
            iacc[0] += sr_wcount_u64_i(a, l, r, ka, la, ra, n)


cdef object _u128_to_int(sr_u128 x):
    return (int(sr_hi(x)) << 64) | int(sr_lo(x))


def _scratch(size, like):
    """A scratch array for the sort: a numpy array, so that memory tools that follow numpy
    (tracemalloc) see it."""
    return np.empty(max(int(size), 1), dtype=like.dtype)


cdef object _sort_keys(key_t[::1] k, const Py_ssize_t[::1] starts):
    """Sort ``k`` (whole, or each run of ``starts``) in place; the strict inversions of
    the whole array (0 when sorting runs)."""
    cdef Py_ssize_t n = k.shape[0], i, lo, hi, longest
    cdef Py_ssize_t nruns = 0 if starts is None else starts.shape[0]
    cdef key_t[::1] buf
    cdef sr_u128 total = 0
    if n < 2:
        return 0
    longest = n if starts is None else _longest_run(starts, n)
    if longest < 2:
        return 0
    buf = _scratch(longest, np.asarray(k))
    with nogil:
        if starts is None:
            total = _count(&k[0], &buf[0], n)
        else:
            for i in range(nruns):
                lo = starts[i]
                hi = starts[i + 1] if i + 1 < nruns else n
                if hi - lo > 1:
                    _count(&k[lo], &buf[0], hi - lo)
    return _u128_to_int(total)


cdef object _sort_weighted(key_t[::1] k, wt_t[::1] l, wt_t[::1] r, bint same,
                           const Py_ssize_t[::1] starts):
    """Weighted `_sort_keys`: ``l`` and ``r`` move with the keys (``same``: one array)."""
    cdef Py_ssize_t n = k.shape[0], i, lo, hi, longest
    cdef Py_ssize_t nruns = 0 if starts is None else starts.shape[0]
    cdef key_t[::1] ka
    cdef wt_t[::1] la, ra
    cdef double facc = 0.0
    cdef sr_u128 iacc = 0
    longest = n if starts is None else _longest_run(starts, n)
    if n >= 2 and longest >= 2:
        ka = _scratch(longest, np.asarray(k))
        la = _scratch(longest, np.asarray(l))
        ra = la if same else _scratch(longest, np.asarray(l))
        with nogil:
            if starts is None:
                _wcount(&k[0], &l[0], &r[0], &ka[0], &la[0], &ra[0], n, &facc, &iacc)
            else:
                for i in range(nruns):
                    lo = starts[i]
                    hi = starts[i + 1] if i + 1 < nruns else n
                    if hi - lo > 1:
                        _wcount(&k[lo], &l[lo], &r[lo], &ka[0], &la[0], &ra[0], hi - lo,
                                &facc, &iacc)
    if starts is not None:
        return 0
    if wt_t is double:
        return max(0.0, facc)
    else:
        return _u128_to_int(iacc)


cdef Py_ssize_t _longest_run(const Py_ssize_t[::1] starts, Py_ssize_t n) except -1:
    cdef Py_ssize_t i, hi, longest = 0, m = starts.shape[0]
    for i in range(m):
        hi = starts[i + 1] if i + 1 < m else n
        if starts[i] < 0 or hi < starts[i] or hi > n or (i == 0 and starts[0] != 0):
            raise ValueError("sort_runs: starts must increase from 0 within the array")
        if hi - starts[i] > longest:
            longest = hi - starts[i]
    return longest


# ------------------------------------------------------------------------ dispatch
def _key_array(keys):
    """``keys`` as a writable C-contiguous float64, int64 or uint64 array, without a copy
    when it already is one (exact for every numeric dtype)."""
    kind = keys.dtype.kind
    if kind == "f":
        dtype = np.float64
    elif kind in "bi":
        dtype = np.int64
    elif kind == "u":
        dtype = np.uint64
    else:
        raise TypeError(f"numeric keys expected, got dtype {keys.dtype}")
    out = np.ascontiguousarray(keys, dtype=dtype)
    return out if out.flags.writeable else out.copy()


def _exact_total(w):
    """Exact Python-int sum of a uint64 array (in chunks whose sums cannot wrap)."""
    top = int(w.max()) if w.size else 0
    if top == 0:
        return 0
    step = max(1, ((1 << 64) - 1) // top)
    return sum(int(w[i:i + step].sum(dtype=np.uint64)) for i in range(0, w.size, step))


def _weight_arrays(n, left, right):
    """``(l, r, floats)``: fresh contiguous copies, float64, or uint64 when both are
    integer (or None, a unit weight); ``r is l`` when ``right is left``."""
    floats = any(w is not None and w.dtype.kind not in "biu" for w in (left, right))
    dtype = np.float64 if floats else np.uint64

    def prepare(w):
        if w is None:
            return np.ones(n, dtype=dtype)
        if w.shape != (n,):
            raise ValueError(f"weights of shape ({n},) expected, got {w.shape}")
        if not floats and w.dtype.kind == "i" and w.size and int(w.min()) < 0:
            raise ValueError("integer weights must be nonnegative")
        return np.array(w, dtype=dtype, order="C", copy=True)

    l = prepare(left)
    r = l if right is left else prepare(right)
    if not floats and _exact_total(l) * _exact_total(r) >= 1 << 128:
        raise OverflowError("integer weights whose total pair weight reaches 2**128: pass "
                            "them as floats")
    return l, r, floats


def _run(k, l, r, floats, starts):
    same = r is l
    if l is None:
        if k.dtype == np.float64:
            return _sort_keys[double](k, starts)
        if k.dtype == np.int64:
            return _sort_keys[int64_t](k, starts)
        return _sort_keys[uint64_t](k, starts)
    if floats:
        if k.dtype == np.float64:
            return _sort_weighted[double, double](k, l, r, same, starts)
        if k.dtype == np.int64:
            return _sort_weighted[int64_t, double](k, l, r, same, starts)
        return _sort_weighted[uint64_t, double](k, l, r, same, starts)
    if k.dtype == np.float64:
        return _sort_weighted[double, uint64_t](k, l, r, same, starts)
    if k.dtype == np.int64:
        return _sort_weighted[int64_t, uint64_t](k, l, r, same, starts)
    return _sort_weighted[uint64_t, uint64_t](k, l, r, same, starts)


def sort_count(keys, left=None, right=None):
    """Strict inversions ``sum_{i<j, keys_i > keys_j} left_i * right_j``, and the sort.

    Parameters
    ----------
    keys : ndarray of shape (n,)
        Numeric keys (bool and int compare as int64, uint as uint64, floats as float64,
        so the comparisons are exact). A writable C-contiguous float64, int64 or uint64
        array is sorted in place; any other is copied first. Use the returned array.
    left, right : ndarray of shape (n,) or None
        Nonnegative weights of the earlier and of the later element of a pair (``None``:
        unit weights). Copied, and the copies permuted with the keys; integer weights
        give an exact int, float weights a float64 sum.

    Returns
    -------
    (count, keys, left, right)
        ``count`` an int (no weights, or integer weights) or a float; ``keys`` sorted
        ascending (stable); ``left`` and ``right`` in that order, as float64 or uint64
        (``None`` when not given; one array when ``left is right``).

    Runtime complexity: ``O(n log n)``; memory: one scratch array per array moved.

    >>> import numpy as np
    >>> count, k, _, _ = sort_count(np.array([3.0, 1.0, 2.0, 1.0]))
    >>> count, k.tolist()
    (4, [1.0, 1.0, 2.0, 3.0])
    >>> sort_count(np.array([2, 1]), np.array([0.5, 4.0]), np.array([3.0, 1.0]))[0]
    0.5
    """
    k = _key_array(keys)
    if left is None and right is None:
        return _run(k, None, None, False, None), k, None, None
    l, r, floats = _weight_arrays(k.shape[0], left, right)
    count = _run(k, l, r, floats, None)
    return count, k, (None if left is None else l), (None if right is None else r)


def sort_runs(keys, starts, left=None, right=None):
    """Sort each run ``keys[starts[i]:starts[i + 1]]`` in place, stably, moving the weight
    arrays along (each sorted in place: they must be writable C-contiguous arrays of the
    dtype `sort_count` uses, float64 or uint64, and ``keys`` a writable C-contiguous
    float64, int64 or uint64 array).

    ``starts``: increasing run starts, the first 0 (as from `streamrank.batch._kernels.run_starts`).
    Runtime complexity: ``O(sum of l log l)`` over the run lengths ``l``.

    >>> import numpy as np
    >>> k = np.array([2.0, 1.0, 5.0, 4.0, 3.0])
    >>> w = np.array([0.2, 0.1, 0.5, 0.4, 0.3])
    >>> sort_runs(k, np.array([0, 2]), w, w)
    >>> k.tolist(), w.tolist()
    ([1.0, 2.0, 3.0, 4.0, 5.0], [0.1, 0.2, 0.3, 0.4, 0.5])
    """
    if keys.dtype not in (np.float64, np.int64, np.uint64) or not keys.flags.c_contiguous:
        raise TypeError("sort_runs: keys must be a C-contiguous float64, int64 or uint64 array")
    st = np.ascontiguousarray(starts, dtype=np.intp)
    if keys.shape[0] == 0:
        return
    if left is None and right is None:
        _run(keys, None, None, False, st)
        return
    if left is None or right is None:
        raise ValueError("sort_runs: pass both weight arrays (the same one twice for one)")
    floats = left.dtype == np.float64
    for w in (left, right):
        if w.dtype != left.dtype or w.dtype not in (np.float64, np.uint64) or \
                not w.flags.c_contiguous or w.shape != keys.shape:
            raise TypeError("sort_runs: weights must be C-contiguous float64 or uint64 "
                            "arrays of the keys' shape")
    _run(keys, left, right, floats, st)
