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
a fractional weight may round, so the owner recounts from the window after
`RECOUNT_AFTER` of them (`fractional` counts them).

>>> import numpy as np
>>> bins = ScoreBins(np.array([0.2, 0.5]))
>>> bins.recount(np.array([0.1, 0.2, 0.3, 0.9]), np.ones(4))
>>> bins.arrays()                       # gaps (below 0.2, 0.2..0.5, above 0.5), points
([1.0, 1.0, 1.0], [1.0, 0.0])
"""

from libc.math cimport floor

import numpy as np

#: Changes of a fractional weight after which the owner recounts the bins (their
#: rounding, at most 2**-53 of a bin's weight per change, stays below 2**-33 of it).
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
        self.w2 = 0.0
        self.fractional = 0

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
        self.w2 += sign * w * w
        if w != floor(w):
            self.fractional += 1

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
        self.w2 = float(np.dot(w, w))
        self.fractional = 0

    def arrays(self):
        """``(lt, eq)`` as lists (the gaps, then the points). ``O(R)``."""
        return self._lt.tolist(), self._eq.tolist()

    def views(self):
        """``(lt, eq)``: the bins' own float64 arrays (read them, do not write). O(1)."""
        return self._lt, self._eq

    def _check(self, s, w):
        """The bins equal a recount of the window scores ``s`` with weights ``w``
        (exactly for whole-number weights). O(W log R)."""
        w = np.asarray(w, dtype=np.float64)
        other = ScoreBins(self._ref)
        other.recount(s, w)
        assert self.rows == other.rows, (self.rows, other.rows)
        assert bool(np.all(np.diff(self._ref) > 0))
        whole = bool(np.all(w == np.floor(w)))
        for mine, theirs in ((self._lt, other._lt), (self._eq, other._eq)):
            if whole:
                assert np.array_equal(mine, theirs), (mine, theirs)
            else:
                assert np.allclose(mine, theirs, rtol=0, atol=1e-9 * max(w.sum(), 1.0)), \
                    (mine, theirs)
