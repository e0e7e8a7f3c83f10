# The running counts of `_cbinary.pyx` (included there): `Sums`, exact 128-bit integers or
# Neumaier-compensated floats, and the conversions of plain Python numbers to C.

cdef object _py128(sr_int128 x):
    cdef bint neg = x < 0
    if neg:
        x = -x
    cdef uint64_t lo = <uint64_t>(x & <sr_int128>0xFFFFFFFFFFFFFFFFULL)
    cdef uint64_t hi = <uint64_t>(x >> 64)
    value = (<object>hi << 64) | <object>lo
    return -value if neg else value


cdef sr_int128 _from_py(object x) except? -1:
    """A Python int of magnitude below ``2**126`` as an int128."""
    cdef bint neg = x < 0
    if neg:
        x = -x
    if x >> 126:
        raise OverflowError("a count beyond 2**126")
    cdef uint64_t lo = <uint64_t>(x & 0xFFFFFFFFFFFFFFFF)
    cdef uint64_t hi = <uint64_t>(x >> 64)
    cdef sr_int128 v = ((<sr_int128>hi) << 64) | <sr_int128>lo
    return -v if neg else v


cdef class Sums:
    """The running counts ``C, D, T, Ty, Tyy`` and the weight held ``W``.

    Integer mode: exact 128-bit sums (`values` gives Python ints). Float mode: Neumaier
    sums (`values` gives ``acc + compensation``, counts clipped at 0), and `hist`, the
    weight that passed through since the last `reset`. Every change is ``O(1)``.

    >>> s = Sums(); s.add((3, 1, 0, 2, 0), 2, 2); s.values()
    [6, 2, 0, 4, 0, 2]
    >>> s.to_float(); s.add((0.5, 0.0, 0.0, 0.0, 0.0), 1.0, 1.0); s.values()
    [6.5, 2.0, 0.0, 4.0, 0.0, 3.0]
    """

    cdef sr_int128 i[6]
    cdef double f[6]
    cdef double e[6]
    cdef public double hist
    cdef readonly bint floats

    def __init__(self, bint floats=False):
        self.reset(floats)

    cpdef void reset(self, bint floats):
        """Zero every sum (and `hist`); ``floats`` picks the mode."""
        cdef int j
        self.floats = floats
        for j in range(6):
            self.i[j] = 0
            self.f[j] = 0.0
            self.e[j] = 0.0
        self.hist = 0.0

    def to_float(self):
        """Move to float sums (the integer values, rounded once); `hist` = the weight."""
        cdef int j
        if self.floats:
            return
        values = self.values()
        for j in range(6):
            self.f[j] = float(values[j])
            self.e[j] = float(values[j] - int(self.f[j]))
        self.floats = True
        self.hist = self.f[5] + self.e[5]

    cdef inline void add_i(self, int64_t* terms, int64_t w, int64_t wsum) noexcept:
        cdef int j
        for j in range(5):
            self.i[j] += <sr_int128>w * terms[j]
        self.i[5] += wsum

    cdef inline void add_f(self, double* terms, double w, double wsum) noexcept:
        cdef int j
        for j in range(5):
            _two_sum_add(&self.f[j], &self.e[j], w * terms[j])
        _two_sum_add(&self.f[5], &self.e[5], wsum)
        self.hist += fabs(wsum)

    def add(self, terms, w, wsum):
        """Add ``w * terms[j]`` to each count and ``wsum`` to the weight held (Python
        numbers: ints in integer mode, of any size below ``2**126``)."""
        cdef double ft[5]
        cdef int j
        if self.floats:
            for j in range(5):
                ft[j] = terms[j]
            self.add_f(ft, w, wsum)
            return
        for j in range(5):
            self.i[j] += _from_py(w * terms[j])
        self.i[5] += _from_py(wsum)

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
        return _restore_sums, (self.floats, self.values(), self.hist, parts)

    cdef void _set_parts(self, list acc, list comp):
        cdef int j
        for j in range(6):
            self.f[j] = acc[j]
            self.e[j] = comp[j]

    def weight(self):
        """The weight held, ``W``, as a Python number."""
        return (self.f[5] + self.e[5]) if self.floats else _py128(self.i[5])


cdef inline bint _plain(object x, double* out) noexcept:
    """A finite float, or an int float64 holds exactly (``|x| <= 2**53``), as a double."""
    cdef double v
    if isinstance(x, float):        # numpy's float64 too
        v = <double>x
        if not isfinite(v):
            return False
        out[0] = v
        return True
    cdef int64_t i
    if type(x) is int:
        try:
            i = <int64_t>x
        except OverflowError:
            return False
        if i > _EXACT or i < -_EXACT:
            return False
        out[0] = <double>i
        return True
    return False



def _restore_sums(floats, values, hist, parts=None):
    """Unpickle `Sums`: float sums from their accumulators and compensations (``parts``;
    pickles of version 0.1 give only ``values``, their rounded sums)."""
    cdef Sums sums = Sums(floats)
    if floats and parts is not None:
        sums._set_parts(list(parts[0]), list(parts[1]))
    elif floats:
        sums.add(values[:5], 1.0, values[5])
    else:
        sums.add(values[:5], 1, values[5])
    sums.hist = hist
    return sums
