# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""`Sums`: the running counts ``C, D, T, Ty, Tyy`` and the weight held of every engine
(`streamrank.engine.PairEngine`, the tree modules `streamrank.structures._cbinary` and
`streamrank.structures._cdominance`, which cimport it: `_csums.pxd`), exact 128-bit
integers or compensated (double-double) floats. Every change is ``O(1)``."""

from libc.stdint cimport int64_t, uint64_t
from libc.math cimport fabs

from ._cnumeric cimport _from_py, _py128, _two_sum_add, sr_int128

cdef class Sums:
    """The running counts ``C, D, T, Ty, Tyy`` and the weight held ``W``.

    Integer mode: exact 128-bit sums (`values` gives Python ints). Float mode:
    double-double sums (`_two_sum_add`; `values` gives ``acc + compensation``, counts
    clipped at 0), `hist`, the weight
    that passed through since the last `reset`, and the pair weight of every term added
    since then: `cross`, of the terms of ``C``, ``D`` and ``T`` (pairs of two labels), and
    `within`, of those of ``Ty`` (pairs of one label; ``Tyy`` is part of it), and
    `exposure`, the sum of ``|w| * hist`` (a change against the weight that passed before
    it, whose rounding the structures' sums may still carry). A count's rounding since the
    reset is a small multiple of ``2**-53`` times them, so `stale` compares them with the
    counts held. Every change is ``O(1)``.

    >>> s = Sums(); s.add((3, 1, 0, 2, 0), 2, 2); s.values()
    [6, 2, 0, 4, 0, 2]
    >>> s.to_float(); s.add((0.5, 0.0, 0.0, 0.0, 0.0), 1.0, 1.0); s.values()
    [6.5, 2.0, 0.0, 4.0, 0.0, 3.0]
    """

    # The fields: `_csums.pxd`.

    def __init__(self, bint floats=False):
        self.reset(floats)

    cpdef void reset(self, bint floats):
        """Zero every sum (and `hist`, `cross`, `within`, `exposure`); ``floats`` picks the
        mode."""
        cdef int j
        self.floats = floats
        self.changes += 1
        for j in range(6):
            self.i[j] = 0
            self.f[j] = 0.0
            self.e[j] = 0.0
        self.hist = 0.0
        self.cross = 0.0
        self.within = 0.0
        self.exposure = 0.0

    def to_float(self):
        """Move to float sums (the integer values, rounded once), as if recounted: `hist`
        = the weight, `cross` = ``C + D + T``, `within` = ``Ty``."""
        cdef int j
        if self.floats:
            return
        values = self.values()
        for j in range(6):
            self.f[j] = float(values[j])
            self.e[j] = float(values[j] - int(self.f[j]))
        self.floats = True
        self.changes += 1
        self.hist = self.f[5] + self.e[5]
        self._counted()

    cdef void _counted(self) noexcept:
        """`cross` and `within` of counts added at once (a recount's); no `exposure`."""
        cdef double c[4]
        cdef int j
        for j in range(4):
            c[j] = self.f[j] + self.e[j]
        self.cross = fabs(c[0]) + fabs(c[1]) + fabs(c[2])
        self.within = fabs(c[3])
        self.exposure = 0.0

    cdef void add_i(self, int64_t* terms, int64_t w, int64_t wsum) noexcept:
        cdef int j
        self.changes += 1
        for j in range(5):
            self.i[j] += <sr_int128>w * terms[j]
        self.i[5] += wsum

    cdef void add_f(self, double* terms, double w, double wsum) noexcept:
        cdef int j
        cdef double aw = fabs(w)
        self.changes += 1
        for j in range(5):
            _two_sum_add(&self.f[j], &self.e[j], w * terms[j])
        _two_sum_add(&self.f[5], &self.e[5], wsum)
        self.exposure += aw * self.hist
        self.hist += fabs(wsum)
        self.cross += aw * (fabs(terms[0]) + fabs(terms[1]) + fabs(terms[2]))
        self.within += aw * fabs(terms[3])

    def add(self, terms, w, wsum):
        """Add ``w * terms[j]`` to each count and ``wsum`` to the weight held (Python
        numbers: ints in integer mode, of any size below ``2**126``)."""
        cdef double ft[5]
        cdef int j
        self.changes += 1
        if self.floats:
            for j in range(5):
                ft[j] = terms[j]
            self.add_f(ft, w, wsum)
            return
        for j in range(5):
            self.i[j] += _from_py(w * terms[j])
        self.i[5] += _from_py(wsum)

    cpdef bint stale(self, double weight_ratio, double pair_ratio, bint joint):
        """Whether float rounding may have left more than a recount would: the weight that
        passed through past ``weight_ratio`` times the weight held, or the pair weight of
        the terms past ``pair_ratio`` times the counts it could have moved. With ``joint``
        (the dominance counter: every term is a difference of sums over every label, and
        its score multisets are plain float sums) ``cross + within + exposure`` against
        ``N0 = C + D + T + Ty``; else (the B+ trees, whose sums are recomputed from
        double-double entries) `cross` against ``P = C + D + T`` and `within` against
        ``N0``, each with ``2**-64`` of `exposure`. Never in integer mode. O(1).

        >>> s = Sums(True); s.add((0.0, 0.0, 0.0, 1.0, 0.0), 1.0, 2.0); s.stale(64, 256, False)
        False
        >>> s.add((1e9, 0.0, 0.0, 0.0, 0.0), 1.0, 1.0); s.add((1e9, 0.0, 0.0, 0.0, 0.0), -1.0, -1.0)
        >>> s.stale(64, 256, False)                 # 2e9 of pairs came and went, none held
        True
        """
        cdef double c[6]
        cdef int j
        if not self.floats:
            return False
        for j in range(6):
            c[j] = max(0.0, self.f[j] + self.e[j])
        if self.hist > weight_ratio * c[5]:
            return True
        cdef double p = c[0] + c[1] + c[2]
        if joint:
            return self.cross + self.within + self.exposure > pair_ratio * (p + c[3])
        cdef double entries = self.exposure * 2.0 ** -64
        return (self.cross + entries > pair_ratio * p
                or self.within + entries > pair_ratio * (p + c[3]))

    def values(self):
        """``[C, D, T, Ty, Tyy, W]`` as Python numbers. O(1)."""
        cdef int j
        if self.floats:
            return [max(0.0, self.f[j] + self.e[j]) for j in range(6)]
        return [_py128(self.i[j]) for j in range(6)]

    def __reduce__(self):
        """Pickle by value; float sums keep their compensations (``parts``)."""
        cdef int j
        parts = ([self.f[j] for j in range(6)], [self.e[j] for j in range(6)]) \
            if self.floats else None
        return _restore_sums, (self.floats, self.values(), self.hist, parts,
                               (self.cross, self.within, self.exposure))

    cdef void _set_parts(self, list acc, list comp):
        cdef int j
        self.changes += 1
        for j in range(6):
            self.f[j] = acc[j]
            self.e[j] = comp[j]

    def weight(self):
        """The weight held, ``W``, as a Python number."""
        return (self.f[5] + self.e[5]) if self.floats else _py128(self.i[5])


def _restore_sums(floats, values, hist, parts, pairs):
    """Unpickle `Sums`: int sums from ``values``; float sums from their accumulators and
    compensations (``parts``), with `cross`, `within` and `exposure` (``pairs``)."""
    cdef Sums sums = Sums(floats)
    if floats:
        sums._set_parts(list(parts[0]), list(parts[1]))
        sums._counted()
    else:
        sums.add(values[:5], 1, values[5])
    sums.hist = hist
    if floats:
        sums.cross, sums.within, sums.exposure = pairs
    return sums
