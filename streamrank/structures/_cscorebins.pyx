# cython: language_level=3, boundscheck=False, wraparound=False
"""`ScoreBins`: a window's scores counted against the distinct scores of a frozen
reference, for the monitor's score drift (`streamrank.monitor._scores`).

The reference's distinct scores ``r_0 < r_1 < ... < r_(R-1)`` cut the line into the
points ``r_j`` and the open gaps between them (below ``r_0``, between ``r_(j-1)`` and
``r_j``, above ``r_(R-1)``). The bins hold the window's weight at each point (`eq`) and in
each gap (`lt`, the gap below ``r_j``; ``lt[R]`` above every reference score): a window
score changes one bin, found by a binary search, ``O(log R)``, in C. Every window score in
a bin is placed alike against the reference (the reference weight below it, and at it),
and the window's distribution function is known at every reference score and just below
it: so the Mann-Whitney shift of the window against the reference, both sides' DeLong
placements and the Kolmogorov-Smirnov statistic are read from the bins in ``O(R)``,
whatever the window holds.

The weights are doubles: exact while they are whole numbers below 2**53; each change of
another weight may round, so the owner recounts from the window after `RECOUNT_AFTER`
of them (`fractional` counts them), and a window emptied of rows reads as empty
(`rows`, exact) whatever rounding is left in its bins.

>>> import numpy as np
>>> bins = ScoreBins(np.array([0.2, 0.5]))
>>> bins.recount(np.array([0.1, 0.2, 0.3, 0.9]), np.ones(4))
>>> bins.arrays()                       # gaps (below 0.2, 0.2..0.5, above 0.5), points
([1.0, 1.0, 1.0], [1.0, 0.0])
"""

from libc.math cimport fabs, floor

import numpy as np

cdef extern from *:
    """
    static inline int sr_mul_ovf(long long a, long long b, long long* r) {
        return __builtin_mul_overflow(a, b, r);
    }
    static inline int sr_add_ovf(long long a, long long b, long long* r) {
        return __builtin_add_overflow(a, b, r);
    }
    """
    bint sr_mul_ovf(long long a, long long b, long long* r) noexcept nogil
    bint sr_add_ovf(long long a, long long b, long long* r) noexcept nogil

cdef double EXACT = 2.0 ** 53


cdef inline bint _add_exact(double x, double p, long long* acc) noexcept nogil:
    """``acc += x p`` in int64, both whole numbers below 2**53: False (``acc`` no longer
    exact) when a factor is too large or the product or the sum overflows."""
    cdef long long term
    return not (x >= EXACT or p >= EXACT or sr_mul_ovf(<long long>x, <long long>p, &term)
                or sr_add_ovf(acc[0], term, acc))

#: Changes of a fractional (or huge) weight after which the owner recounts the bins
#: (their rounding, at most 2**-53 of the largest weight a bin held per change, stays
#: below 2**-33 of it).
RECOUNT_AFTER = 1 << 20


cdef class ScoreBins:
    """A window's weight in the gaps and at the points of a reference's distinct scores
    (module docstring). ``put`` and `change` ``O(log R)``; `arrays` ``O(R)``."""

    def __init__(self, ref):
        """``ref``: the reference's distinct scores, increasing (finite float64)."""
        self._ref = np.ascontiguousarray(ref, dtype=np.float64)
        self._lt = np.zeros(self._ref.size + 1)
        self._eq = np.zeros(self._ref.size)
        self.ref, self.lt, self.eq = self._ref, self._lt, self._eq
        self.rows = 0
        self.fractional = 0
        self.whole = True

    cdef void put(self, double s, double w, int sign) noexcept:
        """A window score ``s`` of weight ``w`` in (``sign`` 1) or out (-1)."""
        cdef Py_ssize_t lo = 0, hi = self.ref.shape[0], mid
        while lo < hi:                  # the first reference score >= s
            mid = (lo + hi) >> 1
            if self.ref[mid] < s:
                lo = mid + 1
            else:
                hi = mid
        if lo < self.ref.shape[0] and self.ref[lo] == s:
            self.eq[lo] += sign * w
        else:
            self.lt[lo] += sign * w
        self.rows += sign
        if w != floor(w) or w >= EXACT:       # (a sum of such weights may round)
            self.fractional += 1
            self.whole = False

    def change(self, double s, double w, int sign):
        """`put` from Python: score ``s`` of weight ``w`` in (``sign`` 1) or out (-1)."""
        self.put(s, w, sign)

    def recount(self, s, w):
        """Hold exactly the window scores ``s`` with weights ``w`` (arrays). ``O(W log
        R)``, vectorized."""
        s = np.asarray(s, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        at = np.searchsorted(self._ref, s, side="left")
        hit = at < self._ref.size
        hit[hit] = self._ref[at[hit]] == s[hit]
        self._lt[:] = np.bincount(at[~hit], weights=w[~hit], minlength=self._lt.size)
        self._eq[:] = np.bincount(at[hit], weights=w[hit], minlength=self._eq.size)
        self.rows = s.size
        self.fractional = 0
        self.whole = bool(np.all((w == np.floor(w)) & (w < EXACT)))

    def read(self, const double[::1] mass, double rt, bint whole):
        """The sums a score drift reads, against a reference of weight ``mass[j]`` at
        each of its distinct scores, ``rt`` in all (``whole``: every weight of it a whole
        number below 2**53): ``(num, fnum, wt, s10, s01, ks)``. ``2 rt wt`` times the
        shift is ``num`` (an exact int: every weight whole, in int64) or else ``fnum`` (a
        float sum); ``wt`` the window's weight; ``s10`` and ``s01`` the weighted sums of
        the squared deviations of the window's and the reference's DeLong placements
        from the shift; ``ks`` the Kolmogorov-Smirnov statistic. Two passes over the
        bins, ``O(R)``, in C."""
        cdef Py_ssize_t j, R = self.ref.shape[0]
        cdef const double* m = &mass[0] if R else NULL
        cdef double* lt = &self.lt[0]
        cdef double* eq = &self.eq[0] if R else NULL
        cdef double wt = 0.0, below = 0.0, g, a, fnum = 0.0
        cdef long long inum = 0
        cdef bint exact = self.whole and whole
        for j in range(R + 1):
            g = 2.0 * below                             # placement of the gap below j
            wt += lt[j]
            fnum += lt[j] * g
            exact = exact and _add_exact(lt[j], g, &inum)
            if j == R:
                break
            a = g + m[j]                                # and at the reference score j
            wt += eq[j]
            fnum += eq[j] * a
            exact = exact and _add_exact(eq[j], a, &inum)
            below += m[j]
        if not (rt > 0.0 and wt > 0.0):
            return None, fnum, wt, 0.0, 0.0, 0.0
        cdef double shift = fnum / (2.0 * wt * rt)
        cdef double s10 = 0.0, s01 = 0.0, ks = 0.0, under = 0.0, v, d
        cdef double iw = 1.0 / wt, ir = 1.0 / rt
        below = 0.0
        for j in range(R + 1):
            v = below * ir - shift                      # the gap's placement, less A
            s10 += lt[j] * v * v
            under += lt[j]
            if j == R:
                break
            d = fabs(under * iw - below * ir)           # just below reference score j
            ks = d if d > ks else ks
            v = (below + 0.5 * m[j]) * ir - shift       # at it
            s10 += eq[j] * v * v
            v = (wt - under - 0.5 * eq[j]) * iw - shift     # its own placement
            s01 += m[j] * v * v
            under += eq[j]
            below += m[j]
            d = fabs(under * iw - below * ir)           # at it
            ks = d if d > ks else ks
        return (inum if exact else None), fnum, wt, s10, s01, ks

    def arrays(self):
        """``(lt, eq)`` as lists (the gaps, then the points). ``O(R)``."""
        return self._lt.tolist(), self._eq.tolist()

    def views(self):
        """``(lt, eq)``: the bins' own float64 arrays (read them, do not write). O(1)."""
        return self._lt, self._eq

    def _check(self, s, w):
        """The bins equal a recount of the window scores ``s`` with weights ``w``
        (exactly while every weight since the last recount was whole). O(W log R)."""
        w = np.asarray(w, dtype=np.float64)
        other = ScoreBins(self._ref)
        other.recount(s, w)
        assert self.rows == other.rows, (self.rows, other.rows)
        assert bool(np.all(np.diff(self._ref) > 0))
        whole = self.whole and bool(np.all((w == np.floor(w)) & (w < EXACT)))
        for mine, theirs in ((self._lt, other._lt), (self._eq, other._eq)):
            if whole:       # (every weight that came and went whole: exact)
                assert np.array_equal(mine, theirs), (mine, theirs)
            else:
                assert np.allclose(mine, theirs, rtol=0, atol=1e-9 * max(w.sum(), 1.0)), \
                    (mine, theirs)
